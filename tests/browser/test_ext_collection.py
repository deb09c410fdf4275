"""Passive collection: pages are stored only while collection is on for the site, checked
through the server's HTTP API."""

from __future__ import annotations

import time

from conftest import Browser, WinnowServer, wait_for

SITE = "127.0.0.1"
OTHER_HOST = "localhost"
"""The same page server under another site name: a tab that is not being collected."""

SETTLE_S = 1.5
"""How long a page that should not be stored gets to show up anyway."""


def visit(browser: Browser, name: str) -> None:
    page = browser.open(browser.pages.url(f"/plain/{name}"))
    page.wait_for_load_state("load")
    time.sleep(0.2)
    page.close()


def switch(browser: Browser, selector: str, on: bool, host: str = "127.0.0.1") -> None:
    """Flip a popup switch for a tab of `host` (the popup's site switch acts on that site)."""
    page = browser.open(browser.pages.url("/plain/switchboard", host))
    popup = browser.popup(page)
    popup.wait_for_selector(f"{selector}:not([disabled])")
    if popup.is_checked(selector) != on:
        popup.click(selector)
    wait_for(lambda: popup.is_checked(selector) == on, what=f"{selector} {on}")
    popup.close()
    page.close()


def test_collection_stores_pages_only_when_on(browser: Browser,
                                              winnow_server: WinnowServer) -> None:
    browser.reset_settings()
    try:
        start = winnow_server.pages_of(SITE)
        visit(browser, "off-1")
        time.sleep(SETTLE_S)
        assert winnow_server.pages_of(SITE) == start, "stored while collection was off"

        switch(browser, "#collect-site", True)
        visit(browser, "on-1")
        wait_for(lambda: winnow_server.pages_of(SITE) > start, what="the collected page")
        collected = winnow_server.pages_of(SITE)

        switch(browser, "#collect-paused", True, host=OTHER_HOST)
        visit(browser, "paused-1")
        time.sleep(SETTLE_S)
        assert winnow_server.pages_of(SITE) == collected, "stored while paused"
        switch(browser, "#collect-paused", False, host=OTHER_HOST)

        switch(browser, "#collect-site", False)
        collected = winnow_server.pages_of(SITE)   # the popup's own tab may have been collected
        visit(browser, "off-2")
        time.sleep(SETTLE_S)
        assert winnow_server.pages_of(SITE) == collected, "stored after collection was turned off"
    finally:
        browser.reset_settings()
        browser.unregister_collecting()


def test_popup_shows_collected_count(browser: Browser) -> None:
    page = browser.open(browser.pages.url("/plain/count"))
    popup = browser.popup(page)
    text = wait_for(lambda: popup.inner_text("#stats"), what="stats line")
    assert f"collected from {SITE}" in text
    popup.close()
    page.close()


def outbox(browser: Browser) -> list[dict]:
    stored = browser.worker.evaluate("chrome.storage.local.get('outbox')")
    return list(stored.get("outbox") or [])


def test_pages_collected_offline_wait_for_the_server(browser: Browser,
                                                     winnow_server: WinnowServer) -> None:
    browser.reset_settings()
    try:
        switch(browser, "#collect-site", True)
        start = winnow_server.pages_of(SITE)
        winnow_server.stop()
        try:
            wait_for(lambda: browser.status().get("state") == "offline", what="offline")
            visit(browser, "while-offline")
            wait_for(lambda: [p["url"] for p in outbox(browser)] ==
                     [browser.pages.url("/plain/while-offline")], what="the page in the outbox")
        finally:
            winnow_server.start()
        wait_for(lambda: not outbox(browser), what="the outbox sent")
        wait_for(lambda: winnow_server.pages_of(SITE) == start + 1, what="the page stored")
    finally:
        browser.reset_settings()
        browser.unregister_collecting()
