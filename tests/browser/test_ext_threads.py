"""Threads in the browser: highlighting outlines each post as content and the rest of the page
as noise; the reader's Markdown export keeps quotes as `>` blockquotes and each signature apart
from its post; a thread with more pages links its next page.

The thread is a real Vanilla forum page of ../shared/data/forums (read in place): eleven posts,
two of them quoting an earlier post, seven signed, and a `<link rel="next">` in its head. What
the tests expect is read from the page's own markup in the browser (its quote and signature
boxes), never written down here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import Browser, save_artifact, tab_state, wait_for
from test_ext_highlight import set_highlight

THREAD = ("harvest__forums.moneysavingexpert.com.discussion.5567669."
          "unsure-whether-to-consolidate-please-advise.html")
"""A Vanilla thread with quotes (`blockquote.UserQuote`) and signatures (`.UserSignature`)."""

RELATIVE_NEXT = "harvest__forums.macrumors.com.threads.se-or-11.2231616..html"
"""A XenForo thread whose head links its second page by a path (`/threads/…/page-2`)."""

SNIPPET_CHARS = 40
"""Characters of a quote or signature looked for in the export (from their start)."""


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def texts_of(page: Any, selector: str) -> list[str]:
    """The whitespace-collapsed texts of the page's elements matching `selector`."""
    texts = page.eval_on_selector_all(selector, "els => els.map(el => el.textContent)")
    return [squash(text) for text in texts if squash(text)]


CLASSES = ("[...document.querySelectorAll('*')]"
           ".map((el) => [el.localName, el.getAttribute('class')])")
"""Every element's tag and class attribute: what highlighting changes (the page's own inline
scripts also touch inline styles, so the whole markup is no fixed point on a real page)."""


def stored_result(browser: Browser, page: Any) -> dict[str, Any]:
    """The extraction the background stored for the tab of `page` (waits until it is there)."""
    tab = browser.tab_id(page)
    found: dict[str, Any] = wait_for(lambda: tab_state(browser.worker, tab).get("result"),
                                     what="the tab's extraction")
    return found


def key(text: str) -> str:
    """Text compared without whitespace, Markdown's emphasis, escapes and quote marks: a
    page's `textContent` glues lines its `<br>`s separate, the export writes them as lines."""
    text = re.sub(r"^(?:>\s?)+", "", text, flags=re.M)
    return re.sub(r"[\s*_`\\]", "", text)


@pytest.fixture(scope="module")
def thread(browser: Browser) -> Any:
    page = browser.open(browser.pages.url(f"/forums/{THREAD}"))
    yield page
    page.close()


def test_highlighting_a_thread_outlines_each_post_as_content(browser: Browser,
                                                             thread: Any) -> None:
    before = thread.evaluate(CLASSES)
    popup = set_highlight(browser, thread, True)
    thread.wait_for_selector(".winnow-content", state="attached")
    said = wait_for(lambda: popup.inner_text("#message"), what="the popup's message")
    counts = re.fullmatch(r"(\d+) content and (\d+) noise elements outlined\.", said)
    assert counts, said
    content, noise = int(counts.group(1)), int(counts.group(2))
    assert content > 0 and noise > 0, said

    result = stored_result(browser, thread)
    assert result["kind"] == "thread"
    posts = result["posts"]
    assert len(posts) >= 5
    assert content == len(result["content_ids"]) == thread.locator(".winnow-content").count()
    assert noise == len(result["noise_ids"]) == thread.locator(".winnow-noise").count()
    # Each post's opening words lie inside an outlined post, and in no noise.
    inside = thread.evaluate("""(starts) => starts.map((start) => {
        const squash = (s) => s.replace(/\\s+/g, " ").trim();
        const boxes = [...document.querySelectorAll('.winnow-content')];
        const hit = boxes.find((el) => squash(el.textContent).includes(start));
        return hit ? !hit.closest('.winnow-noise') : false;
    })""", [squash(post["text"])[:SNIPPET_CHARS] for post in posts])
    assert all(inside), inside
    # The forum's chrome (the links of its header, navigation and footer) is noise, in no post.
    chrome = thread.evaluate("""() => {
        const links = [...document.querySelectorAll('header a[href], nav a[href], footer a[href]')];
        return {links: links.length,
                outlined: links.filter((a) => a.closest('.winnow-noise')).length,
                inPost: links.filter((a) => a.closest('.winnow-content')).length};
    }""")
    assert chrome["links"] >= 20 and chrome["inPost"] == 0, chrome
    assert chrome["outlined"] == chrome["links"], chrome
    thread.locator(".winnow-content").first.scroll_into_view_if_needed()
    save_artifact(thread, "highlight-thread")
    popup.close()

    set_highlight(browser, thread, False).close()
    wait_for(lambda: thread.locator(".winnow-content, .winnow-noise").count() == 0,
             what="highlight removed")
    assert thread.evaluate(CLASSES) == before
    assert thread.locator("winnow-legend").count() == 0


def download_markdown(reader: Any) -> tuple[str, str]:
    reader.click("button[popovertarget='export-panel']")
    with reader.expect_download() as info:
        reader.click("#export-panel [data-format='markdown']")
    done = info.value
    return done.suggested_filename, Path(done.path()).read_text("utf-8")


def test_markdown_export_of_a_thread_keeps_quotes_and_signatures_apart(
        browser: Browser, thread: Any) -> None:
    quotes = texts_of(thread, "blockquote")
    signatures = texts_of(thread, ".Signature")
    assert len(quotes) >= 2 and len(signatures) >= 5   # what makes the page the right test

    reader = browser.open_reader(thread)
    assert reader.get_attribute("html", "data-state") == "thread"
    shown = reader.eval_on_selector_all("#posts > .post", """els => els.map(el => ({
        body: el.querySelector('.post-body').textContent,
        quoted: [...el.querySelectorAll('.post-body blockquote')].map(q => q.textContent),
        signature: el.querySelector('.signature')?.textContent ?? null}))""")
    assert sum(1 for post in shown if post["quoted"]) >= 2
    shown_signatures = [squash(post["signature"]) for post in shown if post["signature"]]
    assert len(shown_signatures) == len(signatures)
    for post in shown:
        for signature in signatures:
            assert key(signature)[:SNIPPET_CHARS] not in key(post["body"])
    reader.locator("#posts > .post blockquote").first.scroll_into_view_if_needed()
    save_artifact(reader, "reader-thread-quote-signature")

    name, text = download_markdown(reader)
    reader.close()
    assert name.endswith(".md")
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert len(sections) == len(shown)
    quoted = key("\n".join(line for line in text.splitlines() if line.startswith(">")))
    for quote in quotes:
        # The end of each quote box is quoted text (it may open with a "name said:" line).
        assert key(quote)[-SNIPPET_CHARS:] in quoted, quote
    for signature in signatures:
        start = key(signature)[:SNIPPET_CHARS]
        holders = [section for section in sections if start in key(section)]
        assert holders, signature
        for section in holders:
            body, rule, sign = section.partition("\n---\n")
            assert rule and start in key(sign) and start not in key(body), section
            paragraphs = [part.strip() for part in sign.strip().split("\n\n") if part.strip()]
            assert all(part.startswith("*") and part.endswith("*") for part in paragraphs)


def test_reader_links_the_next_page_of_a_thread(browser: Browser) -> None:
    """The head's `<link rel="next">` is a path: the reader links it on the page's own host."""
    page = browser.open(browser.pages.url(f"/forums/{RELATIVE_NEXT}"))
    head = page.eval_on_selector("link[rel=next]", "el => el.href")   # the browser's resolution
    reader = browser.open_reader(page)
    assert reader.get_attribute("html", "data-state") == "thread"
    link = reader.locator(".next-page a[rel=next]")
    assert link.count() == 1
    assert link.get_attribute("href") == head
    assert head.startswith(browser.pages.url("/threads/"))
    link.scroll_into_view_if_needed()
    save_artifact(reader, "reader-thread-next-page")
    reader.close()
    page.close()
