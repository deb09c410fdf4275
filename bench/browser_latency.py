"""From page load to reader view shown, measured in the browser.

Runs Debian's Chromium (Playwright, headless) with the unpacked extension against a real
`winnow serve`, using the browser tests' harness (tests/browser/conftest.py: the server
subprocess, the page server reading ../shared/data in place, the extension copy pointed at
the server). For each article fixture of ../shared/data/articles/readability:

1. load the page in a tab and wait for its load event;
2. ask the background to open the reader view for that tab (what the popup button, the
   context menu and Alt+Shift+R do);
3. wait until the reader view has rendered the article (its `winnow-reader-shown` mark).

Reported per page, from the browser's own clocks (`performance.timeOrigin` + entries, the same
wall clock in both tabs):

- load→shown: the page's loadEventEnd to the reader's mark; includes the harness noticing
  the load and sending the request (a person pressing the shortcut is slower still);
- request→shown: from the background receiving the request; what the extension costs;
- reader page: from the reader tab's navigation start (its page loading, waiting for the
  result, rendering);
- serialize: the content script cloning, stamping and serializing the page;
- server: the server's own time for the `page` message (extraction included).

Each page is a first visit: the site is forgotten on the server before it. The first page is
a warm-up and is not counted.

    .venv/bin/python bench/browser_latency.py [--limit N] [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))

from conftest import (  # noqa: E402  (the harness lives with the browser tests)
    ARTICLES,
    CHROMIUM,
    TEST_SITES,
    WinnowServer,
    free_port,
    launch_chromium,
    start_page_server,
    tab_state,
    wait_for,
)
from evaluate import _git_state, _nproc, command_line, percentile, publish  # noqa: E402

SECTION = "extension"
TARGET_MS = 300.0
"""DESIGN.md: page load to reader view under 300 ms for a typical page."""

READER_TIMEOUT_MS = 20_000

OPEN_READER = """async (url) => {
    const [tab] = await chrome.tabs.query({url});
    const requested = Date.now();
    const reply = await chrome.runtime.sendMessage({type: 'reader:open', tabId: tab.id});
    return {requested, tabId: tab.id, ok: reply.ok};
}"""

SHOWN_AT = """() => {
    const [mark] = performance.getEntriesByName('winnow-reader-shown');
    return mark ? performance.timeOrigin + mark.startTime : null;
}"""

LOADED_AT = """() => {
    const [nav] = performance.getEntriesByType('navigation');
    return performance.timeOrigin + nav.loadEventEnd;
}"""


@dataclass
class Sample:
    case: str
    state: str
    load_to_shown: float
    request_to_shown: float
    reader_page: float
    serialize: float
    server: float
    html_chars: int


def cases(limit: int | None) -> list[str]:
    names = sorted(p.name for p in ARTICLES.iterdir() if (p / "source.html").is_file())
    return names[: limit + 1] if limit else names


def measure(context: Any, worker: Any, control: Any, server: WinnowServer, url: str,
            case: str) -> Sample:
    """Open one page and its reader view; return the timings."""
    for site in TEST_SITES:
        server.forget(site)
    page = context.new_page()
    page.goto(url, wait_until="load")
    loaded = page.evaluate(LOADED_AT)
    with context.expect_page(lambda p: "reader/reader.html" in p.url) as opened:
        request = control.evaluate(OPEN_READER, page.url)
    reader = opened.value
    reader.wait_for_selector("html:not([data-state='loading'])", state="attached",
                             timeout=READER_TIMEOUT_MS)
    state = reader.get_attribute("html", "data-state") or ""
    shown = wait_for(lambda: reader.evaluate(SHOWN_AT), timeout=5) if state in (
        "article", "thread") else reader.evaluate("Date.now()")
    reader_start = reader.evaluate("performance.timeOrigin")
    stored = tab_state(worker, request["tabId"])
    html_chars = page.evaluate("document.documentElement.outerHTML.length")
    reader.close()
    page.close()
    result = stored.get("result") or {}
    return Sample(case, state, shown - loaded, shown - request["requested"], shown - reader_start,
                  float(stored.get("serializeMs") or 0.0),
                  float(result.get("timing_ms", {}).get("server", 0.0)), html_chars)


def run(limit: int | None) -> list[Sample]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="winnow-latency-") as tmp:
        base = Path(tmp)
        server = WinnowServer(port=free_port(), data_dir=base / "data")
        server.start()
        pages, stop_pages = start_page_server()
        try:
            with sync_playwright() as playwright:
                context, worker = launch_chromium(playwright, base, server.port)
                try:
                    control = context.new_page()
                    control.goto(f"chrome-extension://{worker.url.split('/')[2]}/options/options.html")
                    samples = []
                    for case in cases(limit):
                        sample = measure(context, worker, control, server,
                                         pages.url(f"/articles/{case}"), case)
                        samples.append(sample)
                        print(f"{case:45} {sample.state:8} {sample.load_to_shown:7.0f} ms "
                              f"(request {sample.request_to_shown:5.0f}, reader page "
                              f"{sample.reader_page:5.0f}, serialize "
                              f"{sample.serialize:5.1f}, server {sample.server:6.1f})",
                              flush=True)
                    return samples[1:]   # the first page warms the browser and the server
                finally:
                    context.close()
        finally:
            stop_pages()
            server.stop()


def row(name: str, values: list[float]) -> str:
    return (f"| {name} | {statistics.median(values):.0f} | {percentile(values, 90):.0f} | "
            f"{percentile(values, 95):.0f} | {min(values):.0f} | {max(values):.0f} |")


def report(samples: list[Sample], command: str) -> str:
    shown = [s for s in samples if s.state in ("article", "thread")]
    load = [s.load_to_shown for s in shown]
    under = sum(value < TARGET_MS for value in load)
    chars = sorted(s.html_chars for s in shown)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## Extension",
        "",
        f"Command: `{command}`  ",
        f"Date: {date}; machine: nproc {_nproc()}, {platform.machine()}, Python "
        f"{platform.python_version()}, Chromium at {CHROMIUM} (headless, Playwright); "
        f"{_git_state()}.",
        "",
        "Page load to reader view shown, measured in the browser on the readability/ article "
        "fixtures (served from 127.0.0.1, each a first visit of its site; the first page is a "
        "warm-up and not counted). *load→shown*: the page's loadEventEnd to the reader view's "
        "`winnow-reader-shown` mark, both on the browser's wall clock; *request→shown*: from "
        "the open-reader request (popup, menu or shortcut) to the mark; *reader page*: from "
        "the reader view's navigation start to the mark; *serialize*: the content script's "
        "clone, stamp and serialize; *server*: the server's time for the `page` message, "
        "extraction included.",
        "",
        "| ms | median | p90 | p95 | min | max |",
        "|---|---|---|---|---|---|",
        row("load→shown", load),
        row("request→shown", [s.request_to_shown for s in shown]),
        row("reader page", [s.reader_page for s in shown]),
        row("serialize", [s.serialize for s in shown]),
        row("server", [s.server for s in shown]),
        "",
        f"Pages: {len(samples)}; reader view shown for {len(shown)} (the others had no "
        f"article: {', '.join(s.case for s in samples if s not in shown) or 'none'}). "
        f"Under {TARGET_MS:.0f} ms load→shown: {under}/{len(shown)}; median "
        f"{statistics.median(load):.0f} ms against the {TARGET_MS:.0f} ms target. Page size: "
        f"median {statistics.median(chars) / 1000:.0f} k characters, largest "
        f"{chars[-1] / 1000:.0f} k.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="measure only the first N pages")
    parser.add_argument("--write", type=Path, help="replace the Extension section of this file")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is not installed (scripts/install-browser-deps installs it)")
    samples = run(args.limit)
    publish(report(samples, command_line("browser_latency.py", None)), args.write, SECTION)


if __name__ == "__main__":
    main()
