"""The reader view never loses its page: a reload after the source tab closed and the worker
stopped shows the same article; "Original page" switches to the page's tab or opens its URL
in a new tab (never in the reader's); with the server down it says how to start it, "Try
again" tries again, and the article shows by itself once the server is back."""

from __future__ import annotations

from typing import Any

from conftest import Browser, WinnowServer, save_artifact, stop_worker, wait_for


def wire_types(page: Any) -> list[str]:
    """The types of the protocol messages the extension sent, oldest first."""
    log = page.evaluate("chrome.runtime.sendMessage({type: 'wire:log'})")["messages"]
    return [entry["message"]["type"] for entry in log if entry["direction"] == "out"]


def test_reader_reload_after_the_tab_closed_and_the_worker_stopped(browser: Browser) -> None:
    page = browser.open(browser.pages.url("/plain/kept"))
    reader = browser.open_reader(page)
    state = reader.get_attribute("html", "data-state")
    assert state == "article", reader.inner_text("#failure-text")
    title = reader.inner_text("#title")
    body = reader.inner_text("#body")
    assert "kept committee" in body
    page.close()
    stop_worker(browser, reader)
    reader.reload()
    reader.wait_for_selector("html[data-state='article']", state="attached")
    assert reader.inner_text("#title") == title
    assert reader.inner_text("#body") == body
    # The article came from the reader's own storage: the page was not read or sent again.
    assert "page" not in wire_types(reader)
    save_artifact(reader, "reader-reload-tab-closed")
    reader.close()


def tab_active(browser: Browser, tab_id: int) -> bool:
    return bool(browser.worker.evaluate(f"chrome.tabs.get({tab_id}).then(tab => tab.active)"))


def test_original_page_switches_to_its_tab_or_opens_it(browser: Browser) -> None:
    url = browser.pages.url("/plain/original")
    page = browser.open(url)
    source = browser.tab_id(page)
    reader = browser.open_reader(page)
    reader.bring_to_front()
    assert not tab_active(browser, source)
    tabs_before = len(browser.context.pages)
    reader.click("#original")
    wait_for(lambda: tab_active(browser, source), what="the source tab in front")
    assert len(browser.context.pages) == tabs_before, "a new tab was opened for an open page"
    assert "reader/reader.html" in reader.url, "the reader's tab navigated away"

    page.close()
    reader.bring_to_front()
    with browser.context.expect_page(lambda p: p.url == url) as opened:
        reader.click("#original")
    opened.value.wait_for_load_state()
    assert "reader/reader.html" in reader.url and reader.inner_text("#title")
    opened.value.close()
    reader.close()


def test_offline_reader_says_how_to_start_and_try_again_works(
        browser: Browser, winnow_server: WinnowServer) -> None:
    page = browser.open(browser.pages.url("/plain/offline"))
    winnow_server.stop()
    try:
        wait_for(lambda: browser.status().get("state") == "offline", what="offline")
        reader = browser.open_reader(page)
        assert reader.get_attribute("html", "data-state") == "offline"
        notice = reader.inner_text("#offline")
        assert "make run" in notice and ".venv/bin/winnow serve" in notice
        save_artifact(reader, "reader-offline-commands")
        # "Try again now" while the server is still down: a new attempt, and the notice again
        # (not a stuck skeleton or an error page).
        reader.click("#offline-retry")
        reader.wait_for_selector("html[data-state='offline']", state="attached")
        assert reader.is_visible("#offline-retry")
    finally:
        winnow_server.start()
    # The server is back: the reader shows the article by itself, with no click.
    reader.wait_for_selector("html[data-state='article']", state="attached")
    assert "offline committee" in reader.inner_text("#body")
    save_artifact(reader, "reader-back-online")
    reader.close()
    page.close()
