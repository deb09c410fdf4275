"""Single-page apps: after a history navigation the content script sends the page again, the
reader view follows, and highlighting is re-applied to the new content."""

from __future__ import annotations

from conftest import Browser, tab_state, wait_for


def test_history_navigation_resends_the_page(browser: Browser) -> None:
    page = browser.open(browser.pages.url("/spa/one"))
    reader = browser.open_reader(page)
    assert reader.inner_text("#title") == "First story"
    tab = browser.tab_id(page)

    page.click("#go")
    assert page.url.endswith("/spa/two")
    wait_for(lambda: tab_state(browser.worker, tab).get("url", "").endswith("/spa/two"),
             what="the page sent again")
    wait_for(lambda: reader.inner_text("#title") == "Second story", what="the reader following")
    assert "second story" in reader.inner_text("#body")
    reader.close()
    page.close()
