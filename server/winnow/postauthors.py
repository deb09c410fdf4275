"""Authors found by structure: the short text standing in the same place in most records.

A forum's template prints the poster's name in the same spot of every post, whatever the
markup calls it: `<dt><strong>name</strong>`, `<strong>Vega</strong> Says:`, a link to a
profile, a `<span>` in a user column. Class words and profile links (`postfields.find_author`)
miss names that carry neither. This module compares the records of a region with each
other: a place (the path of tags and classes from the record's root) where most records hold
a short, name-like text, whose texts are not one template label repeated ("Member",
"Offline"), is the author's place. Among such places, links and names that recur across the
thread (people answer each other) weigh most, then the place nearest the record's start; a
place showing one text in every record (a label) comes last.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from winnow.page import HEADING_TAGS
from winnow.postfields import is_name_text, name_text
from winnow.postview import RecordView
from winnow.tree import BLOCK_TAGS, normalize_space

MIN_PLACE_SHARE = 0.5
"""Share of the records (more than this) that must hold a name at a place for it to be the
author's place: a template prints the name in every post."""

MAX_LABEL_SHARE = 0.7
"""Share of the records above which one text repeated at a place is a template label
("Member", "Offline", "Quote"), not a name; only judged on MIN_LABEL_RECORDS records or more."""

MIN_LABEL_RECORDS = 3
"""Records needed before a text shared by all of them is taken for a label (two posts by
one person are a thread too)."""

MIN_COMPARED_RECORDS = 2
"""Records a place must be compared across to be the author's."""

MIN_RECURRING_RECORDS = 4
"""Records from which on a thread's names must recur at their place (someone posts twice)."""

MAX_NAME_LINE_CHARS = 80
"""A paragraph longer than this is prose: a short text inside it is no name by place."""

MAX_NAME_WORDS = 4
"""Words a name may have; longer short texts are titles or sentences."""

LABEL_VALUE_RE = re.compile(r"^[^:]{1,30}:\s*\S|^[\d.,]+\s*[kKmM]?\s+[^\W\d_]+\.?$")
"""A "Label: value" line of a user block ("Posts: 710", "Registered: 2016-07-02") or a
count ("3 Antworten", "12 replies"): never a name."""

NOT_NAME_CONTAINERS = frozenset({"pre", "code", "figure", "figcaption"})
"""Elements whose short texts are never a poster's name by place: code, references in a
preformatted page, photo captions and credits."""

BY_LABEL_RE = re.compile(r"(?<![^\W\d_])(?:by|von|par|por|door|di|от)\s", re.I)
"""A "by" label anywhere in a short text: a credit or a byline, not a name alone."""

Place = tuple[tuple[str, str], ...]
"""Where a node sits in its record: the (tag, class) steps from the record's root."""


@dataclass
class _Place:
    """The name-like texts found at one place, per record."""

    records: dict[int, int]
    """Record index -> the first node at this place holding a name."""
    texts: dict[int, str]
    links: int = 0
    first_rank: int = 0


def place_authors(views: Sequence[RecordView], records: Sequence[Sequence[int]],
                  named: Sequence[int | None] = ()) -> list[int | None]:
    """The author's node of each record, found by structure; None for every record when no
    place qualifies (or for a record that lacks the place). Where some records' authors are
    already `named` (by class words or a profile link), the place most of those lie at is
    the author's place."""
    if len(records) < MIN_COMPARED_RECORDS:
        return [None] * len(records)  # one record has nothing to compare its places with
    places: dict[Place, _Place] = {}
    at: dict[int, Place] = {}
    for n, (view, record) in enumerate(zip(views, records, strict=True)):
        for rank, (place, v) in enumerate(_name_nodes(view, record)):
            at[v] = place
            found = places.setdefault(place, _Place({}, {}, 0, rank))
            if n in found.records:
                continue
            found.records[n] = v
            found.texts[n] = name_text(view, v)
            found.links += view.elements[v].tag == "a"
            found.first_rank = min(found.first_rank, rank)
    known = Counter(at[v] for v in named if v is not None and v in at).most_common(1)
    best = places[known[0][0]] if known else _best_place(places, len(records))
    if best is None:
        return [None] * len(records)
    return [best.records.get(n) for n in range(len(records))]


def _best_place(places: dict[Place, _Place], n: int) -> _Place | None:
    """The author's place: held by most records, not one repeated label; links and names
    that recur across records first, then the place met first in a record."""
    qualified = [p for p in places.values()
                 if len(p.records) > MIN_PLACE_SHARE * n and not _label(p, n)
                 and (n < MIN_RECURRING_RECORDS or _recurring(p))]
    if not qualified:
        return None

    def rank(p: _Place) -> tuple[int, int, int, int]:
        counts = Counter(p.texts.values())
        constant = len(counts) == 1 and len(p.records) > 1
        recurring = not constant and any(count > 1 for count in counts.values())
        return (int(constant), -int(p.links * 2 > len(p.records)), -int(recurring),
                p.first_rank)

    return min(qualified, key=rank)


def _recurring(place: _Place) -> bool:
    """True when some text stands at this place in two records: a poster who posts twice
    (genre labels and teaser titles of a list differ from record to record)."""
    return any(count > 1 for count in Counter(place.texts.values()).values())


def _label(place: _Place, n: int) -> bool:
    """True when one text fills most of the records at this place: a template label."""
    if n < MIN_LABEL_RECORDS:
        return False
    top = Counter(place.texts.values()).most_common(1)[0][1]
    return top > MAX_LABEL_SHARE * n


def _name_nodes(view: RecordView, record: Sequence[int]) -> list[tuple[Place, int]]:
    """The record's nodes holding a short name-like text of their own (or a link's text),
    with their places, in document order."""
    found: list[tuple[Place, int]] = []
    for i, root in enumerate(record):
        v, end = root, root + view.tree.sizes[root]
        while v < end:
            if view.hidden[v]:
                v += view.tree.sizes[v]
                continue
            if _holds_name(view, v):
                found.append((_place(view, root, v, i), v))
            v += 1
    return found


def _holds_name(view: RecordView, v: int) -> bool:
    el = view.elements[v]
    if el.tag != "a" and not view.tree.texts[v]:
        return False
    if view.text_len[v] > MAX_NAME_LINE_CHARS:
        return False  # the opening words of a paragraph, not a name
    if el.tag in HEADING_TAGS or any(a.tag in HEADING_TAGS for a in el.iterancestors()):
        return False  # a heading titles a section: a name by place is never one
    if _bold_line(view, v) or any(a.tag in NOT_NAME_CONTAINERS for a in el.iterancestors()):
        return False
    if BY_LABEL_RE.search(name_text(view, v)):
        return False  # "Photo by X": a credit, not a poster's name
    if el.tag == "a" and view.tree.children[v] and view.tree.texts[v]:
        return False  # a link with text and markup mixed is prose, not a name
    text = name_text(view, v)
    words = text.split()
    lower = sum(1 for word in words if word[:1].islower())
    if len(words) > 2 and lower * 2 >= len(words):
        return False  # a phrase ("CES starts 2026's conference"), not a name
    return len(words) <= MAX_NAME_WORDS and not LABEL_VALUE_RE.match(text) \
        and is_name_text(view, v, text)


def _bold_line(view: RecordView, v: int) -> bool:
    """True for a paragraph's whole text in bold (`<p><strong>Music</strong></p>`), the
    heading of an article's section, or a bold phrase inside a paragraph of prose: not a
    poster's name."""
    el = view.elements[v]
    if el.tag == "p":
        return False
    paragraph = next((a for a in el.iterancestors() if a.tag in BLOCK_TAGS), None)
    if paragraph is None or paragraph.tag != "p":
        return False
    line = normalize_space(paragraph.text_content())
    return line == normalize_space(el.text_content()) or len(line) > MAX_NAME_LINE_CHARS


def _place(view: RecordView, root: int, v: int, index: int) -> Place:
    steps: list[tuple[str, str]] = []
    while v != root:
        el = view.elements[v]
        steps.append((el.tag, " ".join(sorted((el.get("class") or "").split()))))
        v = view.tree.parents[v]
    steps.append((view.elements[root].tag, str(index)))
    return tuple(reversed(steps))
