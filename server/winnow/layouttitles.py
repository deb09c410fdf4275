"""Webstemmer's title finding (Step 5), its inputs and measures: the anchor texts of the links
to a page from the site's other pages, Dice similarity to an anchor text (arrow 1), and the
titlability of a section against the main text (arrow 2, the fallback). Used by
`winnow.layout`, which re-exports the public names. Pure: no I/O.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol
from urllib.parse import urldefrag, urljoin

from rapidfuzz.distance import Indel

from winnow.chunks import Link, sigchars

AnchorTexts = Mapping[str, Sequence[str]]
"""URL -> anchor texts of the links pointing to it from the site's other pages."""

_WORD_RE = re.compile(r"\w+")


class Linked(Protocol):
    """A page as its links and URL (`layout.Layout`)."""

    @property
    def links(self) -> tuple[Link, ...]: ...

    @property
    def url(self) -> str | None: ...


def dice(a: str, b: str) -> float:
    """analyze.py dice_coeff: 2 |LCS| / (|a| + |b|)."""
    return float(Indel.normalized_similarity(a, b))


def words_of(text: str) -> list[str]:
    """The text's words, lowercased (titlability compares runs of whole words)."""
    return _WORD_RE.findall(text.lower())


class Titlability:
    """analyze.py titlability(title, body): sum of squared lengths of the runs the title shares
    with the body, over the title's length, so a title the body repeats whole scores high.
    Adapted: runs are of whole words (lengths in characters) and the body is indexed once, which
    takes 0.01 ms a candidate where difflib over characters took 1 ms."""

    def __init__(self, body: list[str]) -> None:
        self.matcher = difflib.SequenceMatcher(None, autojunk=False)
        self.matcher.set_seq2(body)
        self.body = body

    def __call__(self, title: list[str]) -> float:
        size = sum(map(len, title))
        if not size:
            return 0.0
        self.matcher.set_seq1(title)
        runs = self.matcher.get_matching_blocks()
        return sum(sum(map(len, self.body[j:j + n])) ** 2 for _, j, n in runs) / size


def normalize_url(url: str) -> str:
    """The key of an anchor-texts mapping: no fragment, no trailing slash after a path."""
    bare = urldefrag(url.strip())[0]
    return bare[:-1] if bare.endswith("/") and bare.count("/") > 3 else bare


def outgoing_anchors(layout: Linked) -> list[tuple[str, str]]:
    """(target URL, anchor text) of the page's links to other pages, hrefs resolved against the
    page's URL: what a caller keeping the mapping incrementally adds per page."""
    base = layout.url or ""
    own = normalize_url(base) if base else None
    out: list[tuple[str, str]] = []
    for href, text in layout.links:
        if not text or not href or href.startswith(("javascript:", "mailto:", "#")):
            continue
        target = normalize_url(urljoin(base, href))
        if target != own:
            out.append((target, text))
    return out


def collect_anchor_texts(layouts: Iterable[Linked]) -> dict[str, list[str]]:
    """The url -> anchor texts mapping over a site's pages (Step 5's input)."""
    mapping: dict[str, list[str]] = {}
    for layout in layouts:
        for target, text in outgoing_anchors(layout):
            mapping.setdefault(target, []).append(text)
    return mapping


def anchors_for(layout: Linked, anchor_texts: AnchorTexts | None) -> list[str]:
    """The significant characters of the anchor texts of links to this page, from the mapping
    (keys normalised or not)."""
    if not anchor_texts or not layout.url:
        return []
    texts = anchor_texts.get(normalize_url(layout.url)) or anchor_texts.get(layout.url) or ()
    return [s for s in map(sigchars, texts) if s]
