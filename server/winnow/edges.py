"""The edges of a document's region: the lines of page furniture that open or close its text.

A documentation page's main container holds, around its text, what the site prints on every
page: a breadcrumb, "Edit" and "Share via" bars, version switchers, previous/next links,
category links, "Last updated on ..." stamps and the copyright line. These are told by
structure and text statistics: from each end of the region inward, a block that is mostly
links without sentences, a short line holding a date and little else or a short legal
notice is furniture, up to the first block that is none of these; headings are passed over
(they stay), except that at the end a heading stops the trimming and keeps the block it
labels (a wiki's section of links is its text); the first block of text is entered when it
is a wrapper of blocks, to trim its own edges. ECON's body has the same trimming along its
path to the snippet (`article_trim.leading_noise`, `trailing_noise`). Pure: no I/O.
"""

from __future__ import annotations

from winnow.article_candidates import children, text_of
from winnow.article_trim import LEGAL_NOTICE_RE, MAX_NOTICE_CHARS, TAIL_LINK_DENSITY
from winnow.econ import TreeStats
from winnow.page import HEADING_TAGS
from winnow.tidy import is_dateline

EDGE_DEPTH = 6
"""Levels the trimming descends into the first (or last) block of text at each end: a
region's text sits a few wrappers deep (main > article > div.body)."""

MAX_LINK_LINE_PUNC = 1
"""Punctuation marks outside links a link line holds at most (prev | next, a breadcrumb)."""

MAX_NOTICE_PUNC = 3
"""Punctuation marks outside links a dated line or a legal notice holds at most ("Last
updated on March 5, 2025", "© 2025 Name. All rights reserved."): more are sentences."""

LINE_SHARE = 0.5
"""Share of an element's text its inline parts (own text, tails, inline children) make, at
least, for the element to be a line of text rather than a stack of blocks."""

TEXT_LINE_TAGS = frozenset({"a", "span", "em", "strong", "b", "i", "u", "code", "kbd", "small",
                            "sub", "sup", "abbr", "time", "img", "br", "q", "cite", "mark", "s",
                            "var", "samp", "label", "font"})
"""Inline tags: an element holding one is a line of text, whose parts are not blocks (named
apart from `article_candidates.INLINE_TAGS`, the inline wrappers a noise block may be)."""


def edge_furniture(stats: TreeStats, start: int, drop: set[int]) -> list[int]:
    """The furniture blocks at both ends of element `start`'s text, outside the `drop`ped
    ones (see the module docstring)."""
    found: list[int] = []
    for forward in (True, False):
        node = start
        for _ in range(EDGE_DEPTH):
            if _holds_inline_text(stats, node):
                break  # a paragraph's own links and spans are its words
            kids = [k for k in children(stats, node) if k not in drop and stats.chars[k]]
            inner = None
            level: list[int] = []
            for k in kids if forward else reversed(kids):
                if _is_edge_furniture(stats, k):
                    level.append(k)
                elif stats.tags[k] not in HEADING_TAGS:
                    inner = k
                    break
                elif not forward and level:
                    level.pop()  # the links a heading labels are its section, not furniture
                    break
            found.extend(level)
            if inner is None:
                break
            node = inner
    return sorted(set(found))


def _holds_inline_text(stats: TreeStats, i: int) -> bool:
    """Whether element `i` is a line of text, not a stack of blocks: its own text, its
    children's tails and its inline children (TEXT_LINE_TAGS) make at least LINE_SHARE of its
    text. A stray link beside a container's blocks ("Back to top") leaves it a stack."""
    el = stats.elements[i]
    inline = len((el.text or "").strip())
    holds_inline = bool(inline)
    for child in el:
        tail = len((child.tail or "").strip())
        inline += tail
        if child.tag in TEXT_LINE_TAGS:
            inline += stats.chars[stats.index[child]] if child in stats.index else 0
            holds_inline = True
        holds_inline = holds_inline or bool(tail)
    return holds_inline and inline >= LINE_SHARE * stats.chars[i]


def _is_edge_furniture(stats: TreeStats, i: int) -> bool:
    """A link line without sentences, a short dated line or a short legal notice. An anchor
    without a target wrapping blocks is a named anchor left open (`<a name>` never closed),
    whose text the parser counts as links: it is the text it wraps."""
    if stats.tags[i] == "a" and stats.elements[i].get("href") is None \
            and any(child.tag not in TEXT_LINE_TAGS for child in stats.elements[i]):
        return False
    if stats.link_density(i) > TAIL_LINK_DENSITY and stats.content_punc(i) <= MAX_LINK_LINE_PUNC:
        return True
    if stats.chars[i] > MAX_NOTICE_CHARS or stats.content_punc(i) > MAX_NOTICE_PUNC:
        return False  # a short page's whole text may end in its copyright line
    text = text_of(stats, i)
    return bool(LEGAL_NOTICE_RE.search(text)) or is_dateline(text)
