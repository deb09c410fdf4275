"""How often the extension's "this page can be read" badge is right, and what its check costs.

Runs the extension's in-page check (extension/content/readable.js, the code the badge uses)
in Debian's Chromium (Playwright, headless) on WCXB's pages, which carry a page type
(article, forum, listing, collection, product, service, documentation). Each page is served
as its saved HTML under its own URL, with every other request failed (no network), and the
check's verdict is read back: "article", "thread" or none.

A badge is wanted on articles and forums and not on listings and collections (those are the
pages where the reader says "No article here" after the click); product, service and
documentation pages are left out, as neither answer is wrong there. The pages are split into tune
and check parts by a stable hash of their domain (winnow.evaluation); both are reported.

With every other request failed, a page that builds its content with its own scripts (a
Discourse forum, a single-page app) shows nothing here: the "blank" column counts the pages
whose body has no visible text after loading. In a browser their scripts run and the check
looks again once the page has settled; this bench cannot measure that re-check.

    .venv/bin/python bench/readable_badge.py [--limit N] [--split tune|check]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from evaluate import percentile  # noqa: E402

CHECK_SCRIPT = ROOT / "extension" / "content" / "readable.js"
CHROMIUM = Path("/usr/bin/chromium")

WANTED = {"article": True, "forum": True, "listing": False, "collection": False}
"""Page types where a badge is wanted (True) or not (False); others are not scored."""

PAGE_TIMEOUT_MS = 15_000

BLANK_JS = "!(document.body && document.body.innerText.trim())"
"""True for a page whose body shows no text (its content needs its own scripts)."""


def run_check(page: Any, source: str) -> dict[str, Any]:
    """Run readable.js in the loaded page with a stand-in for the extension messaging API;
    return the message it sends ({kind, ms})."""
    verdict: dict[str, Any] = page.evaluate(
        "(source) => new Promise((resolve) => {"
        " globalThis.browser = {runtime: {sendMessage: async (m) => resolve(m)}};"
        " delete globalThis.__winnowReadable; (0, eval)(source); })", source)
    return verdict


def serve_once(html: bytes) -> Any:
    """A route handler that answers the first navigation with `html` and fails the rest."""
    served = False

    def route(request_route: Any) -> None:
        nonlocal served
        if not served and request_route.request.is_navigation_request():
            served = True
            request_route.fulfill(status=200, body=html, headers={"Content-Type": "text/html"})
        else:
            request_route.abort()
    return route


def measure(cases: list[Any]) -> list[tuple[Any, dict[str, Any]]]:
    from playwright.sync_api import sync_playwright

    source = CHECK_SCRIPT.read_text("utf-8")
    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            for case in cases:
                url = case.url or f"https://{case.domain or 'example.com'}/"
                page = context.new_page()
                page.route("**/*", serve_once(case.html))
                try:
                    page.goto(url, wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_MS)
                    verdict = run_check(page, source)
                    verdict["blank"] = page.evaluate(BLANK_JS)
                except Exception as exc:  # noqa: BLE001  (a broken page is reported, not fatal)
                    verdict = {"kind": None, "ms": None, "error": str(exc)[:200]}
                finally:
                    page.close()
                results.append((case, verdict))
        finally:
            browser.close()
    return results


def report(results: list[tuple[Any, dict[str, Any]]]) -> str:
    lines = ["| part | page type | pages | badge shown | as article | as thread | blank | errors |",
             "|---|---|---|---|---|---|---|---|"]
    by_part: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for case, verdict in results:
        by_part[(case.split, case.page_type)].append(verdict)
    for (part, page_type), verdicts in sorted(by_part.items()):
        kinds = Counter(v.get("kind") for v in verdicts)
        shown = kinds["article"] + kinds["thread"]
        errors = sum(1 for v in verdicts if v.get("error"))
        blank = sum(1 for v in verdicts if v.get("blank"))
        lines.append(f"| {part} | {page_type} | {len(verdicts)} | {shown / len(verdicts):.0%} | "
                     f"{kinds['article']} | {kinds['thread']} | {blank} | {errors} |")
    lines.append("")
    for part in ("tune", "check"):
        scored = [(case, v) for case, v in results
                  if case.split == part and case.page_type in WANTED and not v.get("error")]
        if not scored:
            continue
        right = sum((v.get("kind") is not None) == WANTED[case.page_type] for case, v in scored)
        wanted = [v for case, v in scored if WANTED[case.page_type]]
        unwanted = [v for case, v in scored if not WANTED[case.page_type]]
        recall = sum(v.get("kind") is not None for v in wanted) / max(1, len(wanted))
        false_shown = sum(v.get("kind") is not None for v in unwanted) / max(1, len(unwanted))
        lines.append(f"- {part}: right on {right}/{len(scored)} ({right / len(scored):.1%}) of "
                     f"articles, forums, listings and collections; badge on {recall:.1%} of "
                     f"articles and forums, on {false_shown:.1%} of listings and collections.")
    costs = [float(v["ms"]) for _, v in results if isinstance(v.get("ms"), (int, float))]
    if costs:
        lines.append(f"- cost of the check in the page: median {statistics.median(costs):.1f} ms, "
                     f"p95 {percentile(costs, 95):.1f} ms, max {max(costs):.0f} ms.")
    return "\n".join(lines) + "\n"


def main() -> None:
    from winnow.evaluation import load_cases

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="measure only the first N pages per part")
    parser.add_argument("--split", choices=["tune", "check"], help="only this part")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is not installed (scripts/install-browser-deps installs it)")
    cases = [case for case in load_cases("wcxb", split=args.split, scored=False)
             if case.page_type in WANTED]
    if args.limit:
        per_part: dict[str, int] = Counter()
        kept = []
        for case in cases:
            if per_part[case.split] < args.limit:
                per_part[case.split] += 1
                kept.append(case)
        cases = kept
    print(report(measure(cases)))


if __name__ == "__main__":
    main()
