"""The options page, the context menu entries and the keyboard commands."""

from __future__ import annotations

from conftest import Browser, WinnowServer, save_artifact, wait_for


def stored_settings(browser: Browser) -> dict:
    return dict(browser.worker.evaluate("chrome.storage.local.get('settings')")["settings"])


def test_options_save_lists_and_reader_defaults(browser: Browser) -> None:
    browser.reset_settings()
    options = browser.open(browser.ext_url("options/options.html"))
    try:
        options.wait_for_selector("#status-text:not(:empty)")
        options.fill("#denySites", "https://www.bank.example/login\nmail.example.org\n")
        options.fill("#allowSites", "news.example.com")
        options.select_option("#theme", "sepia")
        options.fill("#size", "22")
        save_artifact(options, "options", full_page=True)
        options.click("button[type='submit']")
        options.wait_for_selector("#saved:text('Saved.')")
        settings = stored_settings(browser)
        assert settings["denySites"] == ["bank.example", "mail.example.org"]
        assert settings["allowSites"] == ["news.example.com"]
        assert settings["reader"]["theme"] == "sepia" and settings["reader"]["size"] == 22
        assert settings["collectAll"] is False

        options.fill("#server", "http://not-a-websocket")
        options.click("button[type='submit']")
        options.wait_for_selector("#saved:text('ws://')")
        assert stored_settings(browser)["server"] == ""
    finally:
        options.close()
        browser.reset_settings()


def test_context_menu_and_shortcuts_are_registered(browser: Browser) -> None:
    commands = browser.worker.evaluate("chrome.commands.getAll()")
    names = {command["name"] for command in commands}
    assert {"open-reader", "toggle-highlight"} <= names
    for menu in ("winnow-reader", "winnow-highlight"):
        # update() fails for a menu entry that does not exist
        browser.worker.evaluate(f"chrome.contextMenus.update('{menu}', {{}})")


def test_popup_opens_the_dashboard(browser: Browser, winnow_server: WinnowServer) -> None:
    page = browser.open(browser.pages.url("/plain/dashboard"))
    popup = browser.popup(page)
    with browser.context.expect_page(lambda p: p.url.startswith(winnow_server.http)) as opened:
        popup.click("#dashboard")
    dashboard = opened.value
    dashboard.wait_for_load_state()
    assert "403" not in dashboard.inner_text("body")[:200]
    for closing in (dashboard, popup, page):
        closing.close()


def test_popup_shows_the_reader_shortcut(browser: Browser) -> None:
    commands = browser.worker.evaluate("chrome.commands.getAll()")
    shortcut = next(c["shortcut"] for c in commands if c["name"] == "open-reader")
    page = browser.open(browser.pages.url("/plain/shortcut"))
    popup = browser.popup(page)
    if shortcut:   # the popup asks for it after loading
        wait_for(lambda: popup.inner_text("#reader-shortcut") == shortcut, what="the shortcut")
    else:   # not bound (taken by another extension, or removed by the user)
        assert popup.is_hidden("#reader-shortcut")
    popup.close()
    page.close()
