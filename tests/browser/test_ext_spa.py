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


def test_highlighting_follows_a_history_navigation(browser: Browser) -> None:
    from test_ext_highlight import set_highlight

    page = browser.open(browser.pages.url("/spa/one"))
    set_highlight(browser, page, True).close()
    page.wait_for_selector(".winnow-content", state="attached")
    page.click("#go")
    assert page.url.endswith("/spa/two")
    wait_for(lambda: page.evaluate(
        "[...document.querySelectorAll('.winnow-content')]"
        ".some(el => el.textContent.includes('second story'))"), what="the new content marked")
    assert page.locator("winnow-legend").count() == 1
    set_highlight(browser, page, False).close()
    page.close()
