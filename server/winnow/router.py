"""Page-type routing: is this page an article, a thread, or something else?

`looks_like_article` is a cheap check of its own, run before extraction, in the spirit of
Mozilla Readability's `isProbablyReaderable`: enough long, visible paragraphs outside noise
containers. It counts text per writing system, since a Chinese or Japanese character carries
about as much as a short word (readability issues 381 and 429). Threads join the router in
the forum issue; for now every page is an article or other.
"""

from __future__ import annotations

import math

from winnow.article import is_noise_hint
from winnow.markdown import CJK_RE
from winnow.page import Page
from winnow.result import PageKind

MIN_PARAGRAPH_CHARS = 140
"""Paragraphs shorter than this add nothing to the article score (Readability: 140)."""

MIN_ARTICLE_SCORE = 20.0
"""Sum of sqrt(chars - 140) over paragraphs a page needs (Readability: 20)."""

CJK_WEIGHT = 3
"""A CJK character counts as this many Latin characters: roughly one word each."""

MIN_CONTENT_CHARS = 80
"""An extracted body shorter than this (weighted chars) is not an article."""

MIN_PAGE_SHARE = 0.5
"""A short body holding this share of the page's text is the page's content."""

_PARAGRAPH_TAGS = ("p", "pre", "blockquote")


def weighted_length(text: str) -> int:
    """Length of stripped text with each CJK character counted CJK_WEIGHT times."""
    stripped = text.strip()
    return len(stripped) + (CJK_WEIGHT - 1) * len(CJK_RE.findall(stripped))


def looks_like_article(page: Page) -> bool:
    """True when the page has enough long visible paragraphs to be worth a reader view."""
    score = 0.0
    for el in page.body.iter(*_PARAGRAPH_TAGS):
        if is_noise_hint(el):
            continue
        length = weighted_length(el.text_content())
        if length < MIN_PARAGRAPH_CHARS:
            continue
        score += math.sqrt(length - MIN_PARAGRAPH_CHARS)
        if score > MIN_ARTICLE_SCORE:
            return True
    return False


def route(page: Page, content_text: str, page_chars: int) -> PageKind:
    """Decide the page type: an article when the page passes the cheap check, when ECON
    found a body of real length, or when the body is most of a tiny page (then it is the
    page's message, not a fragment of a portal); anything else is "other", no reader view."""
    length = weighted_length(content_text)
    if looks_like_article(page) or length >= MIN_CONTENT_CHARS:
        return "article"
    if length and len(content_text.strip()) >= MIN_PAGE_SHARE * page_chars:
        return "article"
    return "other"
