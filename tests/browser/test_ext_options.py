"""The options page, the context menu entries and the keyboard commands."""

from __future__ import annotations

from conftest import Browser, save_artifact


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
