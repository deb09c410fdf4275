"""Noise highlighting on the live page: classes on the server's noise and content ids, a
legend, and not a trace left once it is turned off."""

from __future__ import annotations

import re
from typing import Any

from conftest import Browser, save_artifact, wait_for

MARKED = ".winnow-noise, .winnow-content"


def page_markup(page: Any) -> str:
    return str(page.evaluate("document.documentElement.outerHTML"))


def set_highlight(browser: Browser, page: Any, on: bool) -> Any:
    popup = browser.popup(page)
    popup.wait_for_selector("#highlight:not([disabled])")
    if popup.is_checked("#highlight") != on:
        popup.click("#highlight")
    wait_for(lambda: popup.is_checked("#highlight") == on and popup.is_enabled("#highlight"),
             what=f"highlight switch {on}")
    return popup


def test_highlight_marks_noise_and_content_then_leaves_no_trace(browser: Browser) -> None:
    page = browser.open(browser.pages.url("/showcase"))
    before = page_markup(page)
    popup = set_highlight(browser, page, True)
    page.wait_for_selector(".winnow-noise", state="attached")

    noise = page.eval_on_selector_all(".winnow-noise", "els => els.map(el => el.localName)")
    content = page.eval_on_selector_all(".winnow-content", "els => els.map(el => el.localName)")
    assert noise and content
    article_in_content = page.evaluate(
        "[...document.querySelectorAll('.winnow-content')].some(el => el.contains("
        "document.querySelector('article p')) || el.closest('article'))")
    assert article_in_content
    nav_is_noise = page.evaluate(
        "!!document.querySelector('nav').closest('.winnow-noise')"
        " || !!document.querySelector('nav .winnow-noise')")
    assert nav_is_noise
    outline = page.eval_on_selector(".winnow-noise", "el => getComputedStyle(el).outlineStyle")
    assert outline == "dashed"
    assert page.locator("winnow-legend").count() == 1
    said = wait_for(lambda: popup.inner_text("#message"), what="the popup's message")
    assert re.fullmatch(r"\d+ content and \d+ noise elements outlined\.", said), said
    save_artifact(page, "highlight")
    popup.close()

    popup = set_highlight(browser, page, False)
    wait_for(lambda: page.locator(MARKED).count() == 0, what="highlight removed")
    assert page.locator("winnow-legend").count() == 0
    assert page_markup(page) == before
    assert page.eval_on_selector("nav", "el => getComputedStyle(el).outlineStyle") == "none"
    popup.close()
    page.close()


def test_legend_hide_button_turns_highlighting_off(browser: Browser) -> None:
    page = browser.open(browser.pages.url("/plain/legend"))
    before = page_markup(page)
    set_highlight(browser, page, True).close()
    page.wait_for_selector("winnow-legend", state="attached")
    # The legend lives in a closed shadow root; click its button by position.
    box = page.evaluate("""() => {
        const r = document.querySelector('winnow-legend');
        return {w: innerWidth, h: innerHeight};
    }""")
    page.mouse.click(box["w"] - 16 - 30, box["h"] - 16 - 18)
    wait_for(lambda: page.locator("winnow-legend").count() == 0, what="legend closed")
    assert page_markup(page) == before
    popup = browser.popup(page)
    wait_for(lambda: not popup.is_checked("#highlight"), what="popup shows highlighting off")
    popup.close()
    page.close()


INSIDE = """([selector, cls]) => [...document.querySelectorAll(selector)]
    .map(el => !!el.closest('.' + cls))"""


def test_ids_map_back_on_markup_the_parser_restructures(browser: Browser) -> None:
    """The story's paragraphs end up inside content frames and the menu and link list inside
    noise frames, though lxml and the browser build different trees from this page."""
    page = browser.open(browser.pages.url("/misnested"))
    set_highlight(browser, page, True).close()
    page.wait_for_selector(".winnow-content", state="attached")
    paragraphs = page.evaluate(INSIDE, ["#story p", "winnow-content"])
    assert paragraphs and all(paragraphs)
    assert not any(page.evaluate(INSIDE, ["#story p", "winnow-noise"]))
    assert all(page.evaluate(INSIDE, [".links a", "winnow-noise"]))
    assert all(page.evaluate(INSIDE, ["footer a", "winnow-noise"]))
    set_highlight(browser, page, False).close()
    page.close()
