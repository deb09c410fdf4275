"""The reader view in real Chromium: an article fixture's title and text, a forum fixture's
posts, right-to-left text, themes, safe rendering, and screenshots of what a reader sees."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import ARTICLES, FORUMS, ROOT, Browser, save_artifact, wait_for
from lxml import html as lxml_html

ARTICLE = "nytimes-1"
"""A news article with a byline, a date, a captioned figure and links."""

FORUM_PAGE = "harvest__forum.videolan.org.viewtopic.php.92075.html"
"""A phpBB thread of 15 posts (VideoLAN forum)."""

GOLD_PREFIX = 30
"""Characters of a gold post's start that must open the shown post (the MiBAT scoring rule
of ../shared/data/README.md: whitespace removed, first 30 characters)."""


THEME_BACKGROUNDS = {
    "light": "rgb(253, 253, 252)", "sepia": "rgb(246, 239, 224)", "dark": "rgb(22, 24, 27)",
}
"""The page background each theme sets (reader.css)."""


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def first_paragraph(case: str) -> str:
    """The first substantial paragraph of Readability's expected output, whitespace-normalized."""
    tree = lxml_html.fromstring((ARTICLES / case / "expected.html").read_text("utf-8"))
    texts = (" ".join(p.text_content().split()) for p in tree.iter("p"))
    return next(text for text in texts if len(text) > 80)


def stored_result(browser: Browser, reader: Any) -> dict[str, Any]:
    """The result the background stored for the reader's source tab."""
    tab = re.search(r"tab=(\d+)", reader.url)
    assert tab
    key = f"tab:{tab.group(1)}"
    state: dict[str, Any] = browser.worker.evaluate(f"chrome.storage.session.get('{key}')")[key]
    return state["result"]


def test_reader_shows_the_article(browser: Browser) -> None:
    import jsonschema

    metadata = json.loads((ARTICLES / ARTICLE / "expected-metadata.json").read_text())
    page = browser.open(browser.pages.url(f"/articles/{ARTICLE}"))
    reader = browser.open_reader(page)
    assert reader.get_attribute("html", "data-state") == "article"
    assert reader.inner_text("#title") == metadata["title"]
    assert reader.title() == metadata["title"]
    body = " ".join(reader.inner_text("#body").split())
    assert first_paragraph(ARTICLE)[:120] in body
    assert metadata["byline"] in reader.inner_text("#meta")
    schema = json.loads((ROOT / "shared" / "extraction.schema.json").read_text())
    jsonschema.validate(stored_result(browser, reader), schema)
    reader.close()
    page.close()


def test_reader_keeps_right_to_left_text(browser: Browser) -> None:
    page = browser.open(browser.pages.url("/articles/rtl-1"))
    reader = browser.open_reader(page)
    assert reader.get_attribute("#article", "dir") == "rtl"
    assert reader.eval_on_selector("#body", "el => getComputedStyle(el).direction") == "rtl"
    reader.close()
    page.close()


def gold_posts(name: str) -> list[dict[str, Any]]:
    truth = json.loads((FORUMS.parent / "truth.json").read_text())
    [case] = [case for case in truth if case["file"] == f"pages/{name}"]
    posts: list[dict[str, Any]] = case["posts"]
    return posts


def test_reader_lists_the_posts_of_a_thread(browser: Browser) -> None:
    gold = gold_posts(FORUM_PAGE)
    page = browser.open(browser.pages.url(f"/forums/{FORUM_PAGE}"))
    reader = browser.open_reader(page)
    assert reader.get_attribute("html", "data-state") == "thread", \
        "the server did not return kind 'thread' (forum extraction)"
    shown = reader.eval_on_selector_all(
        "#posts > .post", "els => els.map(el => ({author: el.querySelector('.author').textContent,"
        " text: el.querySelector('.post-body').innerText}))")
    assert len(shown) == len(gold)
    for post, expected in zip(shown, gold, strict=True):
        assert squash(post["text"]).startswith(squash(expected["text_start"])[:GOLD_PREFIX])
        assert post["author"].strip() == expected["author"].strip()
    save_artifact(reader, "reader-thread", full_page=False)
    reader.close()
    page.close()


@pytest.mark.parametrize("theme", ["light", "sepia", "dark"])
def test_reader_themes_screenshots(browser: Browser, theme: str, showcase: Any) -> None:
    reader = showcase
    reader.click("button[popovertarget='type-panel']")
    reader.click(f"#type-panel [data-pref='theme'] [data-value='{theme}']")
    reader.wait_for_selector(f"html[data-theme='{theme}']", state="attached")
    if theme == "light":
        save_artifact(reader, "reader-typography-panel")
    reader.keyboard.press("Escape")
    reader.evaluate("document.activeElement?.blur()")
    background = reader.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == THEME_BACKGROUNDS[theme]
    save_artifact(reader, f"reader-{theme}", full_page=theme == "light")


def test_reader_print_styles(showcase: Any) -> None:
    showcase.emulate_media(media="print")
    try:
        assert showcase.is_hidden(".toolbar")
        assert showcase.eval_on_selector("html", "el => getComputedStyle(el).backgroundColor") \
            in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")
        save_artifact(showcase, "reader-print", full_page=True)
    finally:
        showcase.emulate_media(media="screen")


def test_reader_text_size_and_width_persist(browser: Browser, showcase: Any) -> None:
    reader = showcase
    reader.click("button[popovertarget='type-panel']")
    before = reader.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    reader.click("#larger")
    reader.click("#type-panel [data-pref='width'] [data-value='wide']")
    reader.wait_for_selector("html[data-width='wide']", state="attached")
    after = reader.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert after == before + 1
    stored = browser.worker.evaluate("chrome.storage.local.get('settings')")["settings"]["reader"]
    assert stored["width"] == "wide" and stored["size"] == after
    reader.click("#smaller")
    reader.click("#type-panel [data-pref='width'] [data-value='medium']")
    reader.keyboard.press("Escape")


def test_reader_renders_only_allowed_markup(browser: Browser, showcase: Any) -> None:
    """The reader's own sanitizer, whatever the server sent: no scripts, handlers, or
    javascript: links survive, and relative URLs resolve against the page."""
    rebuilt = showcase.evaluate("""async () => {
        const { safeFragment } = await import('/reader/render.js');
        const html = '<p onclick="x()">Hi <a href="javascript:alert(1)">bad</a>'
          + ' <a href="/ok">ok</a><script>alert(1)</script>'
          + '<img src="pic.png" onerror="alert(1)"><iframe src="/x"></iframe>'
          + '<custom-el>kept text</custom-el></p>';
        const box = document.createElement('div');
        box.append(safeFragment(html, 'https://example.com/news/story'));
        return box.innerHTML;
    }""")
    assert "onclick" not in rebuilt and "onerror" not in rebuilt
    assert "script" not in rebuilt and "iframe" not in rebuilt and "javascript:" not in rebuilt
    assert 'href="https://example.com/ok"' in rebuilt
    assert 'src="https://example.com/news/pic.png"' in rebuilt
    assert "kept text" in rebuilt and "custom-el" not in rebuilt


@pytest.fixture(scope="module")
def showcase(browser: Browser) -> Any:
    """A reader view of the showcase article (figure, code, table, quote; served locally so
    its images load), shared by the theme and typography tests."""
    page = browser.open(browser.pages.url("/showcase"))
    reader = browser.open_reader(page)
    assert reader.get_attribute("html", "data-state") == "article"
    wait_for(lambda: reader.evaluate("[...document.images].every(img => img.complete)"),
             what="the showcase's images")
    yield reader
    reader.close()
    page.close()
