"""Fixtures for the browser tests: Debian's Chromium driven by Playwright with the unpacked
extension, the real `winnow serve` as a subprocess, and the test's own aiohttp server for pages.

One browser, one server and one page server are shared by the whole session (starting
Chromium is the slow part). The extension is copied to a temp dir whose config.json points at
the test server's port and makes reconnecting fast. Fixture pages are read in place from
../shared/data and never copied into the project.

The tests skip when /usr/bin/chromium is missing, except when the CI variable is set: then a
missing browser is a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXTENSION = ROOT / "extension"
DATA = ROOT.parent / "shared" / "data"
ARTICLES = DATA / "articles" / "readability"
FORUMS = DATA / "forums" / "pages"
ARTIFACTS = HERE / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
WINNOW = Path(sys.executable).with_name("winnow")

WEB_EXT = "web-ext@10.7.0"
"""Mozilla's web-ext (lint, and running Firefox), pinned so that a new release's new rules do
not fail an unchanged extension."""

RECONNECT = {"initialMs": 100, "maxMs": 400}
"""Fast reconnect for tests: the restart test waits for at most a few of these delays."""

TIMEOUT_S = 15.0
"""Upper bound for anything a test waits for (server start, a reader view, a stats count)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the tests that need Chromium when it is missing, unless CI demands them (then the
    `browser` fixture fails)."""
    if CHROMIUM.exists() or os.environ.get("CI"):
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is not installed (make test installs it)")
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()) and HERE in Path(item.fspath).parents:
            item.add_marker(skip)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], Any], timeout: float = TIMEOUT_S, interval: float = 0.05,
             what: str = "condition") -> Any:
    """Poll `check` until it returns something truthy; return that, or fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


# ---------------------------------------------------------------- winnow serve


@dataclass
class WinnowServer:
    """`winnow serve` on a fixed free port with a temp data dir; can be stopped and restarted
    on the same port (the reconnect test)."""

    port: int
    data_dir: Path
    process: subprocess.Popen[bytes] | None = None
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.data_dir.parent / "server.log"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        args = [str(WINNOW), "serve", "--port", str(self.port), "--data-dir", str(self.data_dir),
                "--workers", "1"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        wait_for(self.healthy, what=f"winnow serve on port {self.port} (log: {self.log})")

    def healthy(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"winnow serve exited: {self.log.read_text()[-2000:]}")
        try:
            self.api("/healthz")
        except OSError:
            return False
        return True

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def api(self, path: str) -> Any:
        """GET a JSON endpoint of the HTTP API, with the data dir's token."""
        token = (self.data_dir / "token").read_text().strip()   # OSError until it exists
        request = urllib.request.Request(f"{self.http}{path}", headers={"X-Winnow-Token": token})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)

    def forget(self, site: str) -> None:
        """Delete a site's pages and learned model (the `forget_site` message), so a test's
        pages are extracted as a first visit whatever earlier tests sent."""
        from websockets.sync.client import connect

        token = (self.data_dir / "token").read_text().strip()
        with connect(f"ws://127.0.0.1:{self.port}/ws",
                     additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            ws.send(json.dumps({"v": 1, "id": 1, "type": "forget_site", "site": site}))
            reply = json.loads(ws.recv(timeout=10))
        assert reply["type"] == "forgotten", reply

    def pages_of(self, site: str) -> int:
        """How many pages the server has stored for `site` (0 for a site it never stored)."""
        sites = self.api("/api/sites")["sites"]
        return sum(row["pages"] for row in sites if row["site"] == site)


TEST_SITES = ("127.0.0.1", "localhost")
"""The sites of the page server (the same server under its two local names)."""


@pytest.fixture(autouse=True)
def fresh_sites(request: pytest.FixtureRequest) -> None:
    """Each browser test starts with sites the server knows nothing about: the server learns
    templates from every page it sees, and the same fixture page seen again and again would
    become its own template."""
    if "browser" in request.fixturenames:
        server: WinnowServer = request.getfixturevalue("winnow_server")
        for site in TEST_SITES:
            server.forget(site)


@pytest.fixture(scope="session")
def winnow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WinnowServer]:
    base = tmp_path_factory.mktemp("winnow")
    server = WinnowServer(port=free_port(), data_dir=base / "data")
    server.start()
    try:
        yield server
    finally:
        server.stop()


# ---------------------------------------------------------------- pages for the browser


SPA_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>{title}</title></head><body>
<nav><a href="/spa/one">One</a> <a href="/spa/two" id="go">Two</a></nav>
<main><article><h1 id="heading">{title}</h1>{body}</article></main>
<footer>Footer links: <a href="/about">About</a> <a href="/contact">Contact</a></footer>
<script>
document.getElementById("go").addEventListener("click", (event) => {{
  event.preventDefault();
  history.pushState({{}}, "", "/spa/two");
  document.title = "Second story";
  document.getElementById("heading").textContent = "Second story";
  document.querySelector("article").innerHTML = '<h1 id="heading">Second story</h1>' + {second};
}});
</script></body></html>"""


def story(seed: str, paragraphs: int = 6) -> str:
    """Paragraphs of plain article prose (enough for the article router), varied by `seed`."""
    sentence = (f"The {seed} committee met on Tuesday to discuss the harbour, and after a long "
                "debate, members agreed that the old pier needs repairs before winter storms. ")
    return "".join(f"<p>{sentence * 3}Paragraph {i} of the {seed} story.</p>"
                   for i in range(paragraphs))


def plain_page(title: str, seed: str) -> str:
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
            f"</head><body><header><a href='/'>Home</a> <a href='/news'>News</a></header>"
            f"<main><article><h1>{title}</h1>{story(seed)}</article></main>"
            f"<footer><a href='/about'>About us</a></footer></body></html>")


def listing_page() -> str:
    """A news section's front: a dozen dated teasers (a linked headline, a date, a summary of
    article-like prose) and an archive table of dated links; no article of its own."""
    summary = ("The harbour committee met again to weigh the cost of repairing the old pier "
               "before the winter storms, and members asked for a second survey of the piles. ")
    teasers = "".join(
        f"<article class='teaser'><h2><a href='/plain/story-{i}'>Harbour story number {i}</a>"
        f"</h2><time datetime='2024-05-{i + 1:02d}'>May {i + 1}, 2024</time>"
        f"<p>{summary}{summary}</p></article>" for i in range(12))
    rows = "".join(f"<tr><td><a href='/plain/archive-{i}'>Archive {i}</a></td>"
                   f"<td>2023-0{i % 9 + 1}-15</td><td>{i * 3 + 2} KB</td></tr>" for i in range(20))
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Harbour news"
            "</title></head><body><header><a href='/'>Home</a> <a href='/news'>News</a></header>"
            f"<main><h1>Harbour news</h1><section class='river'>{teasers}</section>"
            f"<table class='archive'>{rows}</table></main>"
            "<footer><a href='/about'>About us</a></footer></body></html>")


LATE_THREAD_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Tide gauge drifts after firmware update - Harbour Makers</title></head><body>
<div id="splash">Loading…</div><div id="app"></div>
<script>
const posts = {posts};
window.renderTopic = () => {{
  document.getElementById("splash").remove();
  const app = document.getElementById("app");
  app.innerHTML = '<h1>Tide gauge drifts after firmware update</h1>' + posts.map((p, i) =>
    `<article class="topic-post"><div class="names"><a href="/u/${{p.who}}">${{p.who}}</a></div>` +
    `<time datetime="2025-03-0${{i + 1}}T09:00:00Z">Mar ${{i + 1}}, 2025</time>` +
    `<div class="cooked"><p>${{p.text}}</p></div></article>`).join("");
}};
</script></body></html>"""
"""A forum that builds its topic with its own script after load (as Discourse does); the test
calls `renderTopic()` when it wants the posts to appear."""

LATE_POSTS = [
    {"who": "mira", "text": "Since the 2.4 firmware my tide gauge reads about four centimetres "
     "high at every low water, while the old readings matched the harbour chart exactly."},
    {"who": "jonas", "text": "Same here on two units. The offset appears right after the "
     "update and does not change when I recalibrate against the staff gauge on the pier."},
    {"who": "mira", "text": "Rolling back to 2.3 removes the offset for me, so it looks like "
     "the new temperature compensation is applied twice in the pressure conversion."},
    {"who": "ellen", "text": "The vendor confirmed the double compensation today and promised "
     "a fixed build next week; until then keep 2.3 on any gauge you report from."},
]


MISNESTED_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Misnested markup</title></head><body>
<table class="menu"><tr><td><a href="/a">Home</a> <a href="/b">World</a> <a href="/c">Sport</a>
<p>Stray text the parser moves out of the table</table>
<b><i>Overlapping tags</b> close out of order</i>
<div id="story"><h1>Misnested markup</h1>
<p>Para one of the story<div>a block inside a paragraph</div> and the rest of para one.
{body}
</div>
<ul class="links"><li><a href="/x">Link x</a><li><a href="/y">Link y</a><li><a href="/z">Link z</a>
</ul><footer><a href="/about">About</a> <a href="/terms">Terms</a></footer>
</body></html>"""
"""Markup that HTML parsers restructure (foster-parented table text, a block inside a <p>,
overlapping inline tags, unclosed list items); lxml and the browser do not agree on all of it,
so ids must travel as attributes."""


def page_app() -> Any:
    """The aiohttp app serving fixture pages in place, plain generated pages and an SPA."""
    from aiohttp import web

    def html(text: str) -> web.Response:
        return web.Response(text=text, content_type="text/html", charset="utf-8")

    async def article(request: web.Request) -> web.StreamResponse:
        path = ARTICLES / request.match_info["name"] / "source.html"
        return web.FileResponse(path, headers={"Content-Type": "text/html; charset=utf-8"})

    async def forum(request: web.Request) -> web.StreamResponse:
        path = FORUMS / request.match_info["name"]
        return web.FileResponse(path, headers={"Content-Type": "text/html; charset=utf-8"})

    async def plain(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        return html(plain_page(f"Plain story {name}", name))

    async def showcase(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(HERE / "showcase.html")

    async def image(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(HERE / "lead.svg", headers={"Content-Type": "image/svg+xml"})

    async def listing(request: web.Request) -> web.Response:
        return html(listing_page())

    async def late_thread(request: web.Request) -> web.Response:
        return html(LATE_THREAD_PAGE.format(posts=json.dumps(LATE_POSTS)))

    async def misnested(request: web.Request) -> web.Response:
        return html(MISNESTED_PAGE.format(body=story("misnested")))

    async def spa(request: web.Request) -> web.Response:
        second = json.dumps(story("second"))
        return html(SPA_PAGE.format(title="First story", body=story("first"), second=second))

    app = web.Application()
    app.add_routes([
        web.get("/articles/{name}", article),
        web.get("/forums/{name}", forum),
        web.get("/plain/{name}", plain),
        web.get("/spa/{name}", spa),
        web.get("/showcase", showcase),
        web.get("/misnested", misnested),
        web.get("/listing", listing),
        web.get("/late-thread", late_thread),
        web.get("/img/lead.svg", image),
    ])
    return app


@dataclass
class PageServer:
    port: int

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


def start_page_server() -> tuple[PageServer, Callable[[], None]]:
    """Start the page server on its own event loop in a thread (the tests use Playwright's
    sync API); return it and the function that stops it."""
    from aiohttp import web

    loop = asyncio.new_event_loop()
    port = free_port()
    runner = web.AppRunner(page_app())

    async def start() -> None:
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=10)

    def stop() -> None:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)

    return PageServer(port), stop


@pytest.fixture(scope="session")
def pages() -> Iterator[PageServer]:
    server, stop = start_page_server()
    try:
        yield server
    finally:
        stop()


# ---------------------------------------------------------------- the browser


LOCAL_URLS = ("http://127.0.0.1:", "http://localhost:", "chrome")
"""What the browser may load; everything else is failed at once (there is no network)."""


def extension_copy(target: Path, server_port: int) -> Path:
    """Copy the extension and point its config.json at the test server."""
    shutil.copytree(EXTENSION, target, ignore=shutil.ignore_patterns("README.md"))
    config = json.loads((target / "config.json").read_text())
    config.update(server=f"ws://127.0.0.1:{server_port}/ws", reconnect=RECONNECT, keepaliveMs=5000)
    (target / "config.json").write_text(json.dumps(config))
    return target


def tab_state(worker: Any, tab_id: int) -> dict[str, Any]:
    """What the background keeps about a tab in storage.session: its page's url, title,
    serialization and extraction result ({} before it has read the tab)."""
    key = f"tab:{tab_id}"
    state: dict[str, Any] = worker.evaluate(f"chrome.storage.session.get('{key}')").get(key, {})
    return state


def launch_chromium(playwright: Any, base: Path, server_port: int) -> tuple[Any, Any]:
    """Chromium with a copy of the extension pointed at the server on `server_port` (the copy
    and the profile under `base`); return the browser context and the extension's service
    worker. The caller closes the context."""
    ext = extension_copy(base / "extension", server_port)
    context = playwright.chromium.launch_persistent_context(
        str(base / "profile"), executable_path=str(CHROMIUM), headless=True,
        accept_downloads=True, viewport={"width": 1100, "height": 900},
        args=[f"--disable-extensions-except={ext}", f"--load-extension={ext}"])
    try:
        # Fixture pages link images and scripts on the web; this machine has no network, so
        # fail those requests at once instead of waiting for DNS.
        context.route(lambda url: not url.startswith(LOCAL_URLS), lambda route: route.abort())
        return context, find_worker(context)
    except BaseException:
        context.close()
        raise


@dataclass
class Browser:
    """The shared browser context with helpers for the extension's pages and state."""

    context: Any
    worker: Any
    extension_id: str
    pages: PageServer

    def ext_url(self, path: str) -> str:
        return f"chrome-extension://{self.extension_id}/{path}"

    def open(self, url: str) -> Any:
        page = self.context.new_page()
        page.goto(url)
        return page

    def tab_id(self, page: Any) -> int:
        """The extension's tab id of a Playwright page (matched by URL)."""
        tabs = self.worker.evaluate("chrome.tabs.query({})")
        matches = [tab["id"] for tab in tabs if tab.get("url") == page.url]
        assert matches, f"no tab for {page.url}"
        return int(matches[-1])

    def popup_page(self) -> Any:
        """A blank page for an extension page (opened without touching the worker)."""
        return self.context.new_page()

    def popup(self, page: Any) -> Any:
        """The toolbar popup as a page, acting on the tab of `page`."""
        popup = self.popup_page()
        popup.goto(self.ext_url(f"popup/popup.html?tab={self.tab_id(page)}"))
        popup.wait_for_selector("#status-text")
        return popup

    def open_reader(self, page: Any) -> Any:
        """Click the popup's Reader view button and return the reader page."""
        popup = self.popup(page)
        with self.context.expect_page(lambda p: "reader/reader.html" in p.url) as opened:
            popup.click("#reader")
        popup.close()
        reader = opened.value
        reader.wait_for_selector("html:not([data-state='loading'])", state="attached",
                                 timeout=TIMEOUT_S * 1000)
        return reader

    def status(self) -> dict[str, Any]:
        """The connection status the background keeps in storage.session."""
        stored: dict[str, Any] = self.worker.evaluate("chrome.storage.session.get('status')")
        return stored.get("status") or {}

    def unregister_collecting(self) -> None:
        """Remove the collecting content script (the readable check stays registered)."""
        # The background may remove it at the same moment (settings just reset): either way
        # it is gone after this.
        self.worker.evaluate("""chrome.scripting.unregisterContentScripts({ids: ['winnow-collect']})
            .catch(() => {})""")

    def reset_settings(self) -> None:
        """Forget every setting (collection off), as after a fresh install."""
        self.worker.evaluate("chrome.storage.local.clear()")


def stop_worker(browser: Browser, page: Any) -> None:
    """Stop the extension's service worker, as Chromium does with an idle one (through the
    DevTools protocol on `page`); the next extension event starts a new one."""
    cdp = browser.context.new_cdp_session(page)

    def worker_targets() -> list[str]:
        return [t["targetId"] for t in cdp.send("Target.getTargets")["targetInfos"]
                if t["type"] == "service_worker" and t["url"] == browser.worker.url]

    [target] = worker_targets()
    cdp.send("Target.closeTarget", {"targetId": target})
    wait_for(lambda: not worker_targets(), what="the worker stopped")
    cdp.detach()


def find_worker(context: Any) -> Any:
    """The extension's service worker (the newest, after a restart), waiting for it to start."""
    workers = [w for w in context.service_workers if w.url.startswith("chrome-extension://")]
    return workers[-1] if workers else context.wait_for_event("serviceworker", timeout=10_000)


@pytest.fixture(scope="session")
def browser(winnow_server: WinnowServer, pages: PageServer,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing and CI is set: install it "
                    "(scripts/install-browser-deps)")
    from playwright.sync_api import sync_playwright

    base = tmp_path_factory.mktemp("chromium")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        context, worker = launch_chromium(playwright, base, winnow_server.port)
        try:
            extension_id = worker.url.split("/")[2]
            browser = Browser(context, worker, extension_id, pages)
            wait_for(lambda: browser.status().get("state") == "online", what="extension online")
            yield browser
        finally:
            context.close()


def save_artifact(page: Any, name: str, **options: Any) -> Path:
    """Save a screenshot under tests/browser/artifacts/ (git-ignored) and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), **options)
    return path
