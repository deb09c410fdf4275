"""What reader-view users expect, in real Chromium: the shortcuts bound, line height and
alignment, reading aloud through speechSynthesis (a stand-in engine records what it is asked
to say), keyboard control, Save as HTML (the downloaded file's content), the reading position
kept, the toolbar badge on an article and not on a listing, and "Forget this site" in the
popup, checked through the server's HTTP API."""

from __future__ import annotations

import json
import re
import urllib.error
from pathlib import Path
from typing import Any

import pytest
from conftest import TIMEOUT_S, Browser, WinnowServer, save_artifact, wait_for

SHOWCASE_TITLE = "The quiet engineering of tide tables"

FORUM_PAGE = "harvest__forum.videolan.org.viewtopic.php.92075.html"
"""A phpBB thread of 15 posts (VideoLAN forum)."""

SPEECH_STUB = """
(() => {
  const spoken = [];
  const stub = {
    spoken, paused: false, cancelled: 0, current: null,
    getVoices: () => [
      {name: 'Stub voice', lang: 'en-US', voiceURI: 'stub', default: true, localService: true},
      {name: 'Other voice', lang: 'de-DE', voiceURI: 'other', default: false, localService: true},
    ],
    speak(u) {
      spoken.push({text: u.text, rate: u.rate, voice: u.voice ? u.voice.name : null});
      stub.current = u;
      setTimeout(() => u.onstart && u.onstart(), 0);
    },
    pause() { stub.paused = true; },
    resume() { stub.paused = false; },
    cancel() { stub.cancelled += 1; stub.current = null; },
    finish() { const u = stub.current; stub.current = null; if (u && u.onend) u.onend(); },
    addEventListener() {},
  };
  class Utterance { constructor(text) { this.text = text; this.rate = 1; this.voice = null; } }
  Object.defineProperty(window, 'speechSynthesis', {value: stub, configurable: true});
  Object.defineProperty(window, 'SpeechSynthesisUtterance', {value: Utterance, configurable: true});
  window.__speech = stub;
})();
"""
"""A stand-in for the browser's speech engine, put in place before the reader's scripts run:
two voices, and a record of every utterance; `finish()` ends the current one."""


def reader_for(browser: Browser, page: Any, init_script: str | None = None) -> Any:
    """A reader view of `page`'s tab opened directly (so a script can be added first)."""
    reader = browser.context.new_page()
    if init_script:
        reader.add_init_script(init_script)
    reader.goto(browser.ext_url(f"reader/reader.html?tab={browser.tab_id(page)}&at={id(reader)}"))
    reader.wait_for_selector("html[data-state='article'], html[data-state='thread']",
                             state="attached")
    return reader


@pytest.fixture(scope="module")
def showcase_page(browser: Browser) -> Any:
    page = browser.open(browser.pages.url("/showcase"))
    yield page
    page.close()


@pytest.fixture()
def spoken_reader(browser: Browser, showcase_page: Any) -> Any:
    reader = reader_for(browser, showcase_page, SPEECH_STUB)
    yield reader
    if not reader.is_closed():
        reader.close()


def test_shortcuts_are_bound_in_chromium(browser: Browser) -> None:
    bound = browser.worker.evaluate("chrome.commands.getAll()")
    commands = {c["name"]: c["shortcut"] for c in bound}
    manifest = browser.worker.evaluate("chrome.runtime.getManifest().commands")
    for name, command in manifest.items():
        if "suggested_key" in command:
            assert commands[name] == command["suggested_key"]["default"], \
                f"{name}: Chromium left {command['suggested_key']['default']} unbound"
    assert commands["open-reader"] and commands["toggle-highlight"]


def test_popup_shows_the_bound_reader_shortcut(browser: Browser, showcase_page: Any) -> None:
    popup = browser.popup(showcase_page)
    shortcut = wait_for(lambda: popup.inner_text("#reader-shortcut"), what="the shortcut")
    assert shortcut == browser.worker.evaluate(
        "chrome.commands.getAll().then(c => c.find(x => x.name === 'open-reader').shortcut)")
    popup.close()


def reader_settings(browser: Browser) -> dict[str, Any]:
    settings: dict[str, Any] = browser.worker.evaluate("chrome.storage.local.get('settings')")
    return dict(settings["settings"]["reader"])


def line_height(reader: Any) -> float:
    return float(reader.eval_on_selector("#body p",
                                         "el => parseFloat(getComputedStyle(el).lineHeight)"))


def test_line_height_and_alignment(browser: Browser, showcase_page: Any) -> None:
    reader = reader_for(browser, showcase_page)
    try:
        reader.click("button[popovertarget='type-panel']")
        reader.click("#type-panel [data-pref='leading'] [data-value='normal']")
        reader.wait_for_selector("html[data-leading='normal']", state="attached")
        normal = line_height(reader)
        reader.click("#type-panel [data-pref='leading'] [data-value='loose']")
        reader.wait_for_selector("html[data-leading='loose']", state="attached")
        loose = line_height(reader)
        reader.click("#type-panel [data-pref='leading'] [data-value='tight']")
        reader.wait_for_selector("html[data-leading='tight']", state="attached")
        tight = line_height(reader)
        assert tight < normal < loose
        reader.click("#type-panel [data-pref='align'] [data-value='justify']")
        reader.wait_for_selector("html[data-align='justify']", state="attached")
        align = reader.eval_on_selector("#body p", "el => getComputedStyle(el).textAlign")
        assert align == "justify"
        reader.click("#type-panel [data-pref='leading'] [data-value='loose']")
        save_artifact(reader, "reader-line-height-justified")
        stored = reader_settings(browser)
        assert stored["leading"] == "loose" and stored["align"] == "justify"
    finally:
        reader.click("#type-panel [data-pref='leading'] [data-value='normal']")
        reader.click("#type-panel [data-pref='align'] [data-value='start']")
        reader.close()


def spoken(reader: Any) -> list[dict[str, Any]]:
    return list(reader.evaluate("window.__speech.spoken"))


def speaking_text(reader: Any) -> str:
    return str(reader.evaluate("document.querySelector('.speaking')?.textContent ?? ''"))


def squash(text: str) -> str:
    return " ".join(text.split())


def test_read_aloud_drives_speech_synthesis(browser: Browser, spoken_reader: Any) -> None:
    reader = spoken_reader
    # Reading starts at the first block in view; a position kept from an earlier test of the
    # same page may have scrolled this reader down.
    reader.evaluate("scrollTo({top: 0, behavior: 'instant'})")
    reader.click("#listen")
    reader.wait_for_selector("#speech-panel:popover-open")
    voices = reader.eval_on_selector_all("#voice option", "els => els.map(el => el.value)")
    assert voices == ["", "Stub voice", "Other voice"]
    reader.select_option("#voice", "Stub voice")
    reader.select_option("#rate", "1.5")
    reader.click("#speak")
    wait_for(lambda: spoken(reader), what="an utterance")
    first = spoken(reader)[-1]
    assert first["voice"] == "Stub voice" and first["rate"] == 1.5
    assert first["text"] == SHOWCASE_TITLE
    wait_for(lambda: squash(speaking_text(reader)) == first["text"], what="the title highlighted")
    save_artifact(reader, "reader-read-aloud")

    reader.evaluate("window.__speech.finish()")
    wait_for(lambda: len(spoken(reader)) == 2, what="the next block")
    second = spoken(reader)[-1]["text"]
    assert second.startswith("Every morning") or len(second) > 20
    wait_for(lambda: squash(speaking_text(reader)) == second, what="the next block highlighted")

    reader.click("#speak")      # pause
    assert reader.evaluate("window.__speech.paused") is True
    assert reader.inner_text("#speak") == "Resume"
    reader.click("#speak")      # resume
    assert reader.evaluate("window.__speech.paused") is False
    reader.click("#speak-stop")
    assert reader.evaluate("document.querySelectorAll('.speaking').length") == 0
    stored = reader_settings(browser)
    assert stored["voice"] == "Stub voice" and stored["rate"] == 1.5
    browser.worker.evaluate("""chrome.storage.local.get('settings').then(({settings}) =>
        chrome.storage.local.set({settings: {...settings, reader: {...settings.reader,
        voice: '', rate: 1}}}))""")


def font_size(reader: Any) -> float:
    return float(reader.evaluate("parseFloat(getComputedStyle(document.body).fontSize)"))


def test_keyboard_controls_the_reader(browser: Browser, spoken_reader: Any) -> None:
    reader = spoken_reader
    reader.locator("body").focus()
    size = font_size(reader)
    reader.keyboard.press("+")
    wait_for(lambda: font_size(reader) == size + 1, what="larger text")
    reader.keyboard.press("-")
    wait_for(lambda: font_size(reader) == size, what="smaller text")
    theme = reader.get_attribute("html", "data-theme")
    reader.keyboard.press("t")
    wait_for(lambda: reader.get_attribute("html", "data-theme") != theme, what="the next theme")
    reader.keyboard.press("s")
    wait_for(lambda: spoken(reader), what="reading aloud")
    assert reader.get_attribute("html", "data-speech") == "playing"
    reader.keyboard.press("Escape")     # stops reading first
    assert reader.get_attribute("html", "data-speech") == "idle"
    reader.keyboard.press("?")
    reader.wait_for_selector("#keys-panel:popover-open")
    save_artifact(reader, "reader-keys")
    reader.keyboard.press("Escape")     # closes the panel, not the reader
    assert not reader.is_visible("#keys-panel") and reader.get_attribute("html", "data-state")
    while reader.get_attribute("html", "data-theme") != theme:
        reader.keyboard.press("t")
    from playwright.sync_api import Error as PlaywrightError

    try:
        reader.keyboard.press("q")
        reader.wait_for_event("close", timeout=TIMEOUT_S * 1000)
    except PlaywrightError:
        pass    # the tab closed while the key was pressed, before the wait began
    assert reader.is_closed()


def test_save_as_html(browser: Browser, showcase_page: Any, tmp_path: Path) -> None:
    reader = reader_for(browser, showcase_page)
    try:
        reader.click("button[popovertarget='export-panel']")
        formats = reader.eval_on_selector_all("#export-panel button",
                                              "els => els.map(el => el.dataset.format)")
        assert formats[0] == "markdown" and "html" in formats
        with reader.expect_download() as info:
            reader.click("#export-panel [data-format='html']")
        download = info.value
        assert download.suggested_filename == "the-quiet-engineering-of-tide-tables.html"
        text = Path(download.path()).read_text("utf-8")
    finally:
        reader.close()
    assert text.startswith("<!doctype html>")
    assert f"<title>{SHOWCASE_TITLE}</title>" in text and f">{SHOWCASE_TITLE}</h1>" in text
    assert "Every morning, before the first ferry leaves" in text
    lead = browser.pages.url("/img/lead.svg")
    assert re.search(rf'<img[^>]+src="{re.escape(lead)}"', text), "the article's image"
    assert 'http-equiv="Content-Security-Policy"' in text and "default-src 'none'" in text
    assert "<script" not in text.lower() and not re.search(r"\son[a-z]+=", text)
    assert "chrome-extension:" not in text and "javascript:" not in text
    assert "<style>" in text and "--measure" in text, "the reader's styles inlined"
    assert f'href="{browser.pages.url("/showcase")}"' in text, "a link to the original"
    # The saved file as a person opens it.
    viewer = browser.context.new_page()
    viewer.set_content(text, wait_until="load")
    assert viewer.inner_text("h1") == SHOWCASE_TITLE
    save_artifact(viewer, "saved-html", full_page=False)
    viewer.close()


def first_block_in_view(reader: Any) -> int:
    return int(reader.evaluate("""() => {
        const blocks = [...document.querySelectorAll(
          '#main :is(h1, h2, h3, h4, h5, h6, p, li, figure, pre, blockquote, table, .post)')]
          .filter(el => el.getClientRects().length);
        return blocks.findIndex(el => el.getBoundingClientRect().bottom > 56);
    }"""))


def test_reading_position_is_kept(browser: Browser) -> None:
    url = browser.pages.url("/articles/nytimes-1")
    page = browser.open(url)
    reader = reader_for(browser, page)
    try:
        assert first_block_in_view(reader) <= 2
        reader.evaluate("document.querySelectorAll('#body p')[8].scrollIntoView()")
        at = first_block_in_view(reader)
        assert at > 5
        wait_for(lambda: (browser.worker.evaluate("chrome.storage.local.get('positions')")
                          .get("positions", {}).get(url, {}).get("block")) == at,
                 what="the position saved")
        reader.reload()
        reader.wait_for_selector("html[data-state='article']", state="attached")
        wait_for(lambda: first_block_in_view(reader) == at, what="the position restored")
        again = reader_for(browser, page)     # a new reader view of the same page
        wait_for(lambda: first_block_in_view(again) == at, what="the position in a new reader")
        save_artifact(again, "reader-position-restored")
        again.close()
    finally:
        reader.close()
        page.close()


def readable_verdict(browser: Browser, page: Any) -> dict[str, Any]:
    key = f"readable:{browser.tab_id(page)}"
    verdict: dict[str, Any] = browser.worker.evaluate(
        f"chrome.storage.session.get('{key}')").get(key, {})
    return verdict


def badge_of(browser: Browser, page: Any) -> str:
    tab = browser.tab_id(page)
    return str(browser.worker.evaluate(f"chrome.action.getBadgeText({{tabId: {tab}}})"))


@pytest.mark.parametrize(("path", "kind"), [
    ("/plain/badge", "article"),
    ("/articles/nytimes-1", "article"),
    ("/showcase", "article"),
    (f"/forums/{FORUM_PAGE}", "thread"),
    ("/listing", None),
])
def test_badge_says_a_page_can_be_read(browser: Browser, path: str, kind: str | None) -> None:
    page = browser.open(browser.pages.url(path))
    try:
        verdict = wait_for(lambda: readable_verdict(browser, page), what="the page's check")
        assert verdict["kind"] == kind
        assert badge_of(browser, page) == ("read" if kind else "")
        if kind == "article" and path == "/plain/badge":
            # The same tab navigated to a listing loses the sign.
            page.goto(browser.pages.url("/listing"))
            wait_for(lambda: readable_verdict(browser, page).get("kind", "x") is None,
                     what="the listing checked")
            assert badge_of(browser, page) == ""
    finally:
        page.close()


def site_known(server: WinnowServer, site: str) -> bool:
    try:
        server.api(f"/api/sites/{site}")
    except urllib.error.HTTPError as err:
        if err.code == 404:
            return False
        raise
    return True


def test_forget_this_site_from_the_popup(browser: Browser, winnow_server: WinnowServer) -> None:
    site = "127.0.0.1"
    browser.reset_settings()
    page = browser.open(browser.pages.url("/plain/forget-me"))
    popup = browser.popup(page)
    try:
        popup.wait_for_selector("#collect-site:not([disabled])")
        popup.click("#collect-site")
        wait_for(lambda: popup.is_checked("#collect-site"), what="collection on")
        wait_for(lambda: browser.worker.evaluate(
            "chrome.scripting.getRegisteredContentScripts({ids: ['winnow-collect']})"
            f".then((found) => found.some((s) => s.matches.some((m) => m.includes('{site}'))))"),
            what="the collecting script registered for the site")
        for count, name in enumerate(("forget-1", "forget-2"), start=1):
            visited = browser.open(browser.pages.url(f"/plain/{name}"))
            visited.wait_for_load_state("load")
            # the collecting script sends once the page is idle: close the tab only after
            wait_for(lambda n=count: winnow_server.pages_of(site) >= n, what="pages stored")
            visited.close()
        assert site_known(winnow_server, site)
        positions = {browser.pages.url("/plain/forget-1"): {"block": 3, "offset": 0, "at": 1},
                     "https://example.com/kept": {"block": 2, "offset": 0, "at": 1}}
        browser.worker.evaluate(f"chrome.storage.local.set({{positions: {json.dumps(positions)}}})")
        popup.reload()
        popup.wait_for_selector("#forget:not([disabled])")
        popup.click("#forget")
        popup.wait_for_selector("#forget-confirm", state="visible")
        assert site in popup.inner_text("#forget-confirm")
        popup.set_viewport_size({"width": 340, "height": 640})
        save_artifact(popup.locator("body"), "popup-forget-confirm")
        popup.click("#forget-yes")
        message = wait_for(lambda: popup.is_visible("#message") and popup.inner_text("#message"),
                           what="the popup's answer")
        assert message.startswith(f"Forgot {site}")
        save_artifact(popup.locator("body"), "popup-forgotten")
        assert winnow_server.pages_of(site) == 0
        assert not site_known(winnow_server, site), "the site's model is still there"
        positions = browser.worker.evaluate("chrome.storage.local.get('positions')")["positions"]
        assert list(positions) == ["https://example.com/kept"]
    finally:
        popup.close()
        page.close()
        browser.reset_settings()
        browser.unregister_collecting()
