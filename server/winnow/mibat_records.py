"""Records MiBAT's lists miss (`mibat`; not in the paper): records of the main region's kind
elsewhere on the page (a first post, a Q&A question, nested replies), the records a site's
learned record template finds (MiBAT+MP, section 6.3), a comment section too short to
repeat, and a thread of one post.

Pure: it reads the page's `DomTree` and returns `Region`s.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lxml.html import HtmlElement

from winnow.mibat import (
    MAX_MATCH_DEPTH,
    MIN_RECORDS,
    PS_THRESHOLD,
    Region,
    TreeMatcher,
    candidates_in,
    pivot_similarity,
    tree_path,
)
from winnow.mibat_dom import MAX_PIVOT_TEXT, DomTree
from winnow.page import schema_type
from winnow.tree import BLOCK_TAGS, Tree, TreeError, from_arrays, normalize_space

MIN_FIRST_POST_DEPTH = 3
"""Levels between a record's root and its pivot below which a first post whose root tag
differs is still compared one level down: with fewer, too little structure is left."""

FIRST_POST_SIZE = 0.5
"""A first post compared one level down has at least this share of the nodes of the list's
first record (a post's template is about as big as the others')."""

ASIDE_TAGS = frozenset({"aside", "nav", "footer"})
ASIDE_ROLES = frozenset({"complementary", "navigation", "contentinfo"})
ASIDE_RE = re.compile(r"sidebar|widget|(?:^|[\s_-])rail(?:$|[\s_-])", re.I)
"""Page furniture beside a thread: records of its kind there (a "best comment" box) quote it."""

POST_NAME_RE = re.compile(r"(?:^|\s)post(?:\s|$)", re.I)
"""The class word of a forum post's box (generic vocabulary)."""

MEMBER_HREF_RE = re.compile(r"member|[?&]u(?:ser)?(?:id)?=\d|/u/\d|/users?/\d", re.I)
"""Links to a forum member's profile: a member list, a numeric user id (a blog's author
and profile pages are not a forum's members)."""

FILE_HREF_RE = re.compile(
    r"\.(?:mp3|m4a|ogg|wav|flac|mp4|mov|webm|pdf|zip|rar|jpe?g|png|gif|webp|docx?|xlsx?)"
    r"(?:$|[?#])", re.I)
"""Links to a file (a song, a document, a picture) under a user's folder: never a profile."""

COMMENT_ITEM_TAGS = frozenset({"li", "article"})
COMMENT_NAME_RE = re.compile(r"comment", re.I)
"""Class and id word of a comment list or item (generic vocabulary)."""


# --- records of the main region's kind elsewhere (not in the paper) --------------------------


def with_sibling_lists(dom: DomTree, main: Region, regions: Sequence[Region]) -> Region:
    """The main region merged with the other record lists under its parent that interleave
    with it (a record of one lies between two records of the other) or, with anchor trees
    of its anchors' tag, follow on from it (no dated sibling between the two): one thread
    whose date markup varies (an edited post's date in a span of its own, a reply followed
    by its nested replies) falls into several anchor lists, each holding part of the posts.
    A record of the main region holding a whole record of another list is split at its
    anchor tree (the boundary joined two posts); another list's record overlapping the main
    region's keeps the siblings outside it when its anchor tree is among them."""
    tags = dom.tree.tags
    others = [other for other in regions if other is not main and other.parent == main.parent
              and (_interleave(main, other) or (tags[other.anchors[0]] == tags[main.anchors[0]]
                                                and _follow_on(dom, main, other)))]
    if not others:
        return main
    foreign = [(r, a, p) for other in others
               for r, a, p in zip(other.records, other.anchors, other.pivots, strict=True)]
    merged: list[tuple[list[int], int, tuple[int, ...]]] = []
    for record, anchor, pivots in zip(main.records, main.anchors, main.pivots, strict=True):
        merged += _split(record, {anchor: pivots, **{a: p for r, a, p in foreign
                                                    if a != anchor and set(r) <= set(record)}})
    for other in others:
        nodes = {v for record, _, _ in merged for v in record}
        for record, anchor, pivots in zip(other.records, other.anchors, other.pivots,
                                          strict=True):
            own = [v for v in record if v not in nodes]
            if anchor in own:
                merged.append((own, anchor, pivots))
    merged.sort(key=lambda item: item[0][0])
    return Region(main.parent, [r for r, _, _ in merged], [a for _, a, _ in merged],
                  [p for _, _, p in merged], main.score)


def _split(record: list[int], anchors: dict[int, tuple[int, ...]]
           ) -> list[tuple[list[int], int, tuple[int, ...]]]:
    """A record cut before each of its anchor trees but the first (siblings before the first
    anchor stay with it)."""
    starts = sorted(anchors)
    cuts = [0, *(record.index(a) for a in starts[1:]), len(record)]
    return [(record[cuts[n]:cuts[n + 1]], a, anchors[a]) for n, a in enumerate(starts)]


def _interleave(a: Region, b: Region) -> bool:
    """True when a record of one region starts between the first and last records of the
    other (both lists under one parent)."""
    def inside(outer: Region, inner: Region) -> bool:
        first, last = outer.records[0][0], outer.records[-1][0]
        return any(first < record[0] < last for record in inner.records)

    return inside(a, b) or inside(b, a)


def _follow_on(dom: DomTree, a: Region, b: Region) -> bool:
    """True when one region's records start after the other's end with no sibling holding
    a date between them (both lists under one parent)."""
    first, second = (a, b) if a.records[0][0] < b.records[0][0] else (b, a)
    end, start = first.records[-1][-1], second.records[0][0]
    kids = dom.tree.children[a.parent]
    between = kids[kids.index(end) + 1:kids.index(start)] if end < start else None
    return between is not None and not any(dom.cands_below[v] for v in between)


def _starts_in(starts: Sequence[int], span: range) -> bool:
    """Whether one of the sorted `starts` lies in `span` (a subtree's node range)."""
    at = bisect_left(starts, span.start)
    return at < len(starts) and starts[at] < span.stop


def same_kind_records(matcher: TreeMatcher, dom: DomTree, main: Region) -> Region:
    """The main region plus every subtree elsewhere on the page that is a record of its kind:
    its anchor tree matches the main region's first anchor tree by PS at one of the main
    region's real pivots. This finds what the same-parent assumption misses (section 6.1.5:
    first posts under another parent or in their own block, Q&A questions above their
    answers; section 6.2: nested replies). Records come back in document order."""
    tree = dom.tree
    anchor = main.anchors[0]
    taken = [tree.subtree(v) for record in main.records for v in record]
    taken_starts = sorted(r.start for r in taken)
    start = main.records[0][0]
    found: list[tuple[int, int]] = []
    for c in range(len(tree)):
        if not dom.cand[c] and not dom.collapsed[c]:
            continue
        for pivot in main.pivots[0]:  # every real pivot: a question may lack one of them
            rel = tree.depths[pivot] - tree.depths[anchor]
            if tree.depths[c] < rel:
                continue
            a = _ancestor(tree, c, rel)
            if _starts_in(taken_starts, tree.subtree(a)) or any(a == f for f, _ in found):
                continue  # a record already, or around one; inside one is a nested reply
            if not any(a in r for r in taken) and _aside(dom, a) and not _aside(dom, start):
                continue  # a "top comment" widget in a sidebar quotes the thread
            if _same_kind(matcher, anchor, a, pivot, c, before=a < start):
                found.append((a, c))
                break
    found = [(a, c) for a, c in found  # before the list: the innermost of nested candidates
             if a > start or not any(f != a and f in tree.subtree(a) for f, _ in found)]
    if not found:
        return main
    records = list(zip(main.records, main.anchors, main.pivots, strict=True))
    for a, c in found:
        records.append(([a], a, (c,)))
    records.sort(key=lambda item: item[0][0])
    extra = [n for n, item in enumerate(records) if len(item[2]) == 1 and
             (item[1], item[2][0]) in found]
    return Region(main.parent, [r for r, _, _ in records], [a for _, a, _ in records],
                  [p for _, _, p in records], main.score, extra)


def _ancestor(tree: Tree, v: int, levels: int) -> int:
    """The node `levels` levels above v."""
    for _ in range(levels):
        v = tree.parents[v]
    return v


def _aside(dom: DomTree, v: int) -> bool:
    """True when v sits in a sidebar, a widget or page furniture (aside, nav, footer)."""
    for el in (dom.elements[v], *dom.elements[v].iterancestors()):
        if el.tag in ASIDE_TAGS or (el.get("role") or "").lower() in ASIDE_ROLES:
            return True
        if ASIDE_RE.search(_names(el)):
            return True
    return False


def _same_kind(matcher: TreeMatcher, anchor: int, a: int, pivot: int, c: int,
               before: bool) -> bool:
    """Whether the subtree at `a` (pivot `c`) is a record like `anchor` (pivot `pivot`): PS
    above the threshold; a first post before the list may differ in its root's tag alone
    (`<div>` above a list of `<li>`), and is then compared one level down."""
    tree = matcher.tree
    if tree.tags[a] == tree.tags[anchor]:
        return pivot_similarity(matcher, anchor, a, pivot, c) > PS_THRESHOLD
    if not before or tree.depths[pivot] - tree.depths[anchor] < MIN_FIRST_POST_DEPTH:
        return False
    if tree.sizes[a] < FIRST_POST_SIZE * tree.sizes[anchor]:
        return False  # a stats box with the thread's date, not a post
    below_anchor = tree_path(tree, anchor, pivot)
    below_a = tree_path(tree, a, c)
    assert below_anchor is not None and below_a is not None
    return pivot_similarity(matcher, below_anchor[1], below_a[1], pivot, c) > PS_THRESHOLD


def nesting_depths(dom: DomTree, region: Region) -> list[int]:
    """How many other records of the region contain each record (reply nesting)."""
    tree = dom.tree
    spans = [tree.subtree(record[0]) for record in region.records]
    return [sum(1 for m, span in enumerate(spans) if m != n and record[0] in span)
            for n, record in enumerate(region.records)]


# --- a site's record template (MiBAT+MP, section 6.3) ----------------------------------------


@dataclass
class RecordTemplate:
    """A forum's post record as learned from its thread pages: the top levels of the anchor
    tree of the best main region seen (largest Heuristic 2 score, as the paper's MiBAT+MP
    picks its page) and where the pivot is in it. Tags only; it extracts records from pages
    the single-page method cannot read, such as a thread's lone first post."""

    tree: Tree
    pivot: int
    score: int

    def to_json(self) -> dict[str, Any]:
        return {"tags": list(self.tree.tags), "parents": list(self.tree.parents),
                "pivot": self.pivot, "score": self.score}

    @classmethod
    def from_json(cls, data: Any) -> RecordTemplate:
        if not isinstance(data, dict):
            raise TreeError("a record template must be a JSON object")
        tags, parents = data.get("tags"), data.get("parents")
        pivot, score = data.get("pivot"), data.get("score")
        if not isinstance(tags, list) or not isinstance(parents, list) \
                or not isinstance(pivot, int) or not isinstance(score, int) \
                or not 0 <= pivot < len(tags):
            raise TreeError("a record template needs tags, parents, pivot and score")
        return cls(from_arrays(tags, tags, parents), pivot, score)


def record_template(dom: DomTree, region: Region) -> RecordTemplate:
    """The record template of a main region: its first anchor tree, MAX_MATCH_DEPTH levels."""
    tree = dom.tree
    anchor, pivot = region.anchors[0], region.pivots[0][0]
    limit = tree.depths[anchor] + MAX_MATCH_DEPTH
    keep = [v for v in tree.subtree(anchor) if tree.depths[v] <= limit]
    index = {v: n for n, v in enumerate(keep)}
    tags = [tree.tags[v] for v in keep]
    parents = [index.get(tree.parents[v], -1) if v != anchor else -1 for v in keep]
    return RecordTemplate(from_arrays(tags, tags, parents), index[pivot], region.score)


def template_records(dom: DomTree, template: RecordTemplate) -> Region | None:
    """Records of the page that match a learned record template by PS at its pivot, the
    outermost of any nested in one another; None when there are none."""
    tree = dom.tree
    matcher = TreeMatcher(template.tree, other=tree)
    rel = template.tree.depths[template.pivot]
    found: list[tuple[int, int]] = []
    for c in range(len(tree)):
        if not dom.cand[c] or tree.depths[c] < rel:
            continue
        a = _ancestor(tree, c, rel)
        if any(a == f for f, _ in found) or tree.tags[a] != template.tree.tags[0]:
            continue
        if pivot_similarity(matcher, 0, a, template.pivot, c) > PS_THRESHOLD:
            found.append((a, c))
    return _single_records(tree, found)


# --- a comment section of one comment (not in the paper) ------------------------------------


def lone_comments(dom: DomTree) -> Region | None:
    """The comments of a comment section too short to repeat: dated list items (or articles)
    inside a container named for comments. MiBAT needs two records to see a list; a blog
    post with one comment still has a comment section, and a chain of one reply per level
    (a comment, a reply in it, a reply in that) has no two sibling records either: each
    nested item is a comment of its own (its parent's post leaves it out, `postview`).
    None when there is none."""
    tree = dom.tree
    found: list[tuple[int, int]] = []
    for c in range(len(tree)):
        if not dom.cand[c]:
            continue
        item = _comment_item(dom, c)
        if item is not None and all(item != f for f, _ in found):
            found.append((item, c))
    return _single_records(tree, found)


def _comment_item(dom: DomTree, pivot: int) -> int | None:
    """The list item or article holding `pivot` in a comment-named list, if any."""
    tree = dom.tree
    v = tree.parents[pivot]
    while v > 0:
        parent = tree.parents[v]
        if tree.tags[v] in COMMENT_ITEM_TAGS or tree.tags[parent] in ("ol", "ul"):
            named = (dom.elements[v], dom.elements[parent])
            return v if any(COMMENT_NAME_RE.search(_names(el)) for el in named) else None
        v = parent
    return None


def _names(el: HtmlElement) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}"


# --- a forum thread of one post (not in the paper) ------------------------------------------


def _member_link(a: HtmlElement) -> bool:
    """A link to a member's profile in a post's header: not one in the post's prose."""
    href = a.get("href") or ""
    if not MEMBER_HREF_RE.search(href) or FILE_HREF_RE.search(href):
        return False
    block = next((p for p in a.iterancestors() if p.tag in BLOCK_TAGS), None)
    return block is None or len(normalize_space(block.text_content())) <= MAX_PIVOT_TEXT


def lone_post(dom: DomTree) -> Region | None:
    """The one post of a thread that has no reply yet: the only element named as a post
    (class word "post") that holds a date and a link to a member's profile. MiBAT needs two
    records; a site's learned record template (MiBAT+MP) is the better way, this is the
    fallback for a forum seen for the first time. None unless exactly one such element."""
    tree = dom.tree
    found: list[tuple[int, int]] = []
    for v in range(len(tree)):
        if not dom.cands_below[v]:
            continue  # no date below: no post (checked first, it costs no attribute read)
        el = dom.elements[v]
        if dom.hidden[v] or not POST_NAME_RE.search(el.get("class") or ""):
            continue
        if any(v in tree.subtree(f) for f, _ in found):
            continue
        pivots = candidates_in(dom, v)
        if pivots and any(_member_link(a) for a in el.iter("a")):
            found.append((v, pivots[-1]))
    return _single_records(tree, found) if len(found) == 1 else None


def _single_records(tree: Tree, found: Sequence[tuple[int, int]]) -> Region | None:
    """A region of one-element records found outside MiBAT's lists, from (record root,
    pivot) pairs, every record marked as added; None when there are none."""
    if not found:
        return None
    return Region(tree.parents[found[0][0]], [[a] for a, _ in found], [a for a, _ in found],
                  [(c,) for _, c in found], 0, list(range(len(found))))


# --- posts the page's microdata declares (not in the paper) ----------------------------------

DECLARED_POST_TYPES = frozenset({"question", "answer", "discussionforumposting", "comment"})
"""schema.org microdata types of a discussion's posts: a question and its answers, a forum
topic's posts and the comments on them."""

def declared_posts(dom: DomTree) -> Region | None:
    """The posts a page's microdata marks (DECLARED_POST_TYPES), each with a date: a question
    and its one answer are no list for MiBAT (two records under different parents), but the
    page says what each is. A post's record is the box holding its declared text and author
    (`_declared_box`: an item may wrap the page's whole column), its pivot the last date in
    it outside the posts it holds. None unless two posts at least are dated."""
    tree = dom.tree
    roots = [v for v in range(len(tree)) if dom.cands_below[v] and not dom.hidden[v]
             and schema_type(dom.elements[v].get("itemtype") or "") in DECLARED_POST_TYPES]
    found: list[tuple[int, int]] = []
    for v in roots:
        inner = [tree.subtree(u) for u in roots if u != v and u in tree.subtree(v)]
        box = _declared_box(dom, v, inner)
        pivots = [c for c in candidates_in(dom, box) if not any(c in span for span in inner)]
        if pivots:
            found.append((box, pivots[-1]))
    return _single_records(tree, found) if len(found) >= MIN_RECORDS else None


def _declared_box(dom: DomTree, item: int, inner: Sequence[range]) -> int:
    """The smallest element of `item` holding both its `text` and its `author` property
    (outside the items in it); the item itself when it declares not both."""
    props: dict[str, int] = {}
    for u in dom.tree.subtree(item):
        if any(u in span for span in inner):
            continue
        for name in (dom.elements[u].get("itemprop") or "").split():
            props.setdefault(name, u)
    if "text" not in props or "author" not in props:
        return item
    box, other = props["text"], props["author"]
    while box != item and other not in dom.tree.subtree(box):
        box = dom.tree.parents[box]
    return box
