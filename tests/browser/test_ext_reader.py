"""The reader view in real Chromium: an article fixture's title and text, a forum fixture's
posts, right-to-left text, themes, safe rendering, and screenshots of what a reader sees."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import ARTICLES, FORUMS, ROOT, Browser, save_artifact, tab_state, wait_for
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
    result: dict[str, Any] = tab_state(browser.worker, int(tab.group(1)))["result"]
    return result


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


def test_reader_shows_the_articles_formula_as_mathml(showcase: Any) -> None:
    """The showcase's formula travels page -> server -> reader as MathML and is laid out
    (it has a size), with its TeX annotation gone."""
    formula = showcase.evaluate("""() => {
        const math = document.querySelector('math[display="block"]');
        if (!math) return null;
        math.scrollIntoView({block: 'center'});
        const box = math.getBoundingClientRect();
        return {ns: math.namespaceURI, width: box.width, height: box.height,
                annotations: document.querySelectorAll('annotation').length};
    }""")
    assert formula is not None and formula["ns"] == "http://www.w3.org/1998/Math/MathML"
    assert formula["width"] > 50 and formula["height"] > 10 and formula["annotations"] == 0
    save_artifact(showcase, "reader-formula", full_page=False)


def test_reader_auto_theme_follows_the_system(showcase: Any) -> None:
    showcase.click("button[popovertarget='type-panel']")
    showcase.click("#type-panel [data-pref='theme'] [data-value='auto']")
    # the choice is stored before it is applied: wait for it, or a slow machine reads the
    # theme an earlier test left
    showcase.wait_for_selector("html[data-theme='auto']", state="attached")
    showcase.keyboard.press("Escape")
    background = "getComputedStyle(document.documentElement).backgroundColor"
    try:
        showcase.emulate_media(color_scheme="dark")
        assert showcase.evaluate(background) == THEME_BACKGROUNDS["dark"]
        showcase.emulate_media(color_scheme="light")
        assert showcase.evaluate(background) == THEME_BACKGROUNDS["light"]
    finally:
        showcase.emulate_media(color_scheme=None)


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


def test_reader_rebuilds_mathml_formulas_safely(browser: Browser, showcase: Any) -> None:
    """Formulas are rebuilt as MathML (so the browser lays them out) with presentation
    attributes only; annotations, handlers and links inside them do not survive."""
    rebuilt = showcase.evaluate("""async () => {
        const { safeFragment } = await import('/reader/render.js');
        const html = '<p>When <math display="block"><mi onclick="x()">a</mi><mo>≠</mo>'
          + '<mn>0</mn><maction href="javascript:alert(1)"><mi>b</mi></maction>'
          + '<semantics><annotation>a \\neq 0</annotation></semantics></math>, done.</p>';
        const box = document.createElement('div');
        box.append(safeFragment(html, 'https://example.com/news/story'));
        const math = box.querySelector('math');
        return {html: box.innerHTML, ns: math && math.namespaceURI,
                text: box.textContent, width: math ? math.getBoundingClientRect().width : -1};
    }""")
    assert rebuilt["ns"] == "http://www.w3.org/1998/Math/MathML"
    assert 'display="block"' in rebuilt["html"] and "<mo>≠</mo>" in rebuilt["html"]
    assert "onclick" not in rebuilt["html"] and "javascript" not in rebuilt["html"]
    assert "annotation" not in rebuilt["html"] and "neq" not in rebuilt["text"]
    assert "maction" not in rebuilt["html"] and "<mi>b</mi>" in rebuilt["html"]


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


def synthetic_thread() -> dict[str, Any]:
    """A thread result as the server sends it, with nested replies."""
    def post(author: str, depth: int, text: str, n: int) -> dict[str, Any]:
        return {"author": author, "author_url": f"https://forum.example/u/{author}",
                "date": f"{n} hours ago", "published": f"2024-05-0{n}T10:1{n}:00Z",
                "text": text, "html": f"<p>{text}</p>",
                "permalink": f"https://forum.example/t/1#p{n}", "depth": depth, "ids": []}
    posts = [
        post("marta", 0, "Which tide table app do you trust for the old pier?", 1),
        post("jonas", 1, "The harbour office PDF. Apps round the times to 5 minutes.", 2),
        post("marta", 2, "Good to know, I had wondered why they disagree.", 3),
        post("ole", 1, "I add 20 minutes for the bay: the tables are for the outer pier.", 4),
        post("anna", 0, "Storm surge is the real problem; no table includes it.", 5),
    ]
    return {"kind": "thread", "article": None, "posts": posts, "noise_ids": [],
            "content_ids": [], "method": "econ", "confidence": 0.9, "timing_ms": {"total": 1},
            "cluster": None, "pages_learned": 0, "title": "Tide tables for the old pier?",
            "url": "https://forum.example/t/1"}


def test_reader_indents_replies_by_depth(browser: Browser) -> None:
    """The reader's thread layout on a result with nested replies (stored for a tab that no
    longer exists, which the reader view shows as it was)."""
    tab = 987654
    state = {"url": "https://forum.example/t/1", "title": "Tide tables", "site": "forum.example",
             "instance": "x", "serial": 1, "result": synthetic_thread(), "at": 0}
    browser.worker.evaluate(f"chrome.storage.session.set({{'tab:{tab}': {json.dumps(state)}}})")
    reader = browser.open(browser.ext_url(f"reader/reader.html?tab={tab}"))
    try:
        reader.wait_for_selector("html[data-state='thread']", state="attached")
        depths = reader.eval_on_selector_all("#posts > .post", "els => els.map(el => ["
                                             "el.dataset.depth, el.getBoundingClientRect().left])")
        assert [int(d) for d, _ in depths] == [0, 1, 2, 1, 0]
        lefts = [left for _, left in depths]
        assert lefts[0] < lefts[1] < lefts[2] and lefts[1] == lefts[3] and lefts[4] == lefts[0]
        assert reader.inner_text("#thread-meta").startswith("5 posts")
        assert reader.get_attribute("#posts > .post .permalink", "href") == \
            "https://forum.example/t/1#p1"
        save_artifact(reader, "reader-thread-nested")
    finally:
        reader.close()
        browser.worker.evaluate(f"chrome.storage.session.remove('tab:{tab}')")
