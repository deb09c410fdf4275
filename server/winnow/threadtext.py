"""A thread's text as one string: each post's author line, date line and own words.

A date line the page gives relative to when it was saved ("3 hours ago", "Yesterday at
10:00") is left out: read later, it no longer says when the post was written (the post's
`published` keeps the date it was resolved to).

A reply that quotes another post of the same page repeats that post's words; the thread's
text counts them once, where the quoted post stands. A quote is a `<blockquote>` of the
post (outermost ones only) whose word shingles are mostly found in the other posts of the
page. A quote of a post that is not on the page (an earlier page of the thread, another
thread) is kept: its words are nowhere else in the text.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import lxml.html
from lxml import etree

from winnow.dates import parse_date
from winnow.markdown import to_text
from winnow.result import Post

SHINGLE_WORDS = 4
"""Words per shingle compared between a quote and the other posts."""

MIN_QUOTED_SHARE = 0.6
"""Share of a blockquote's shingles found in the page's other posts for it to be a quote of
one of them (an attribution line, an ellipsis or a trimmed word keep it under 1)."""

WORD_RE = re.compile(r"\w+")


def posts_text(posts: Sequence[Post]) -> str:
    """The thread's text: per post, its author line, its date line (unless relative) and its
    own words (its text without quotes of the page's other posts), posts apart by a blank
    line."""
    shingles = [_shingles(_unquoted(post)) for post in posts]
    parts = []
    for n, post in enumerate(posts):
        others: set[tuple[str, ...]] = set().union(*(s for m, s in enumerate(shingles)
                                                      if m != n))
        text = own_words(post, others)
        parts.append("\n".join(part for part in (post.author, date_line(post.date), text)
                               if part))
    return "\n\n".join(parts)


def date_line(date: str | None) -> str | None:
    """The date as the thread's text shows it: None for a date relative to when the page
    was saved ("2 years ago", "Tuesday at 4:27 AM"), which no longer holds when read."""
    if not date:
        return None
    found = parse_date(date)
    return None if found is not None and found.relative else date


def own_words(post: Post, elsewhere: set[tuple[str, ...]]) -> str:
    """The post's text without the outermost blockquotes whose shingles are mostly in
    `elsewhere` (the other posts' shingles)."""
    root = _body(post) if elsewhere else None
    if root is None:
        return post.text
    quotes = [q for q in _quotes(root) if _quoted(q.text_content(), elsewhere)]
    if not quotes:
        return post.text
    for quote in quotes:
        quote.drop_tree()
    return to_text(root)


def _unquoted(post: Post) -> str:
    """The post's text without any of its quotes: what another post's quote of it repeats."""
    root = _body(post)
    if root is None:
        return post.text
    for quote in _quotes(root):
        quote.drop_tree()
    return to_text(root)


def _body(post: Post) -> lxml.html.HtmlElement | None:
    """The post's html as a tree when it holds a blockquote, entered through blockquotes
    that hold all of its text (a body box that is a blockquote, as in XenForo 1)."""
    if "<blockquote" not in post.html:
        return None
    try:
        root = lxml.html.fragment_fromstring(post.html, create_parent="div")
    except (etree.ParserError, ValueError):
        return None
    while True:
        whole = _text_length(root)
        wrappers = [q for q in root.iter("blockquote")
                    if q is not root and _text_length(q) == whole]
        if not wrappers:
            return root
        root = wrappers[-1]


def _quotes(root: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """The outermost blockquotes under `root`."""
    return [q for q in root.iter("blockquote") if q is not root
            and not any(a.tag == "blockquote" for a in _up_to(q, root))]


def _up_to(el: lxml.html.HtmlElement, root: lxml.html.HtmlElement
           ) -> list[lxml.html.HtmlElement]:
    """The ancestors of `el` below `root`."""
    found = []
    for parent in el.iterancestors():
        if parent is root:
            break
        found.append(parent)
    return found


def _text_length(el: lxml.html.HtmlElement) -> int:
    return len("".join(el.itertext()).strip())


def _quoted(text: str, elsewhere: set[tuple[str, ...]]) -> bool:
    own = _shingles(text)
    if not own:
        return False
    return sum(1 for s in own if s in elsewhere) >= MIN_QUOTED_SHARE * len(own)


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = [w.lower() for w in WORD_RE.findall(text)]
    return {tuple(words[i:i + SHINGLE_WORDS])
            for i in range(max(len(words) - SHINGLE_WORDS + 1, 0))}
