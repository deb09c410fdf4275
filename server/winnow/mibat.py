"""MiBAT (Song et al., CIKM 2010): data records with user-generated content, found by anchor trees.

Forum posts and comments are records whose free-format text (the UGC) makes plain tree
similarity fail. MiBAT anchors records on a domain constraint, the *post date*: the *pivot*
is the lowest node holding it (section 4.2), and two sibling subtrees are records of one list
when a top-down tree matching maps the pivot of one onto the pivot of the other. The paper's
steps, each a function here:

1. Simple tree matching (`stm`, `TreeMatcher`): the top-down mapping of Yang (1991), as MDR
   and RTDM use it; `|M|` is the number of matched node pairs (section 4.1, Equ. 1).
2. Similarity by domain constraints (section 4.2): Pivot Match (PM: the pivots are mapped onto
   each other) and Pivot and Siblings (PS: Equ. 2 over the pivot and its siblings).
3. FindAnchorTrees (Alg. 2): sibling subtrees that match at a candidate pivot, consecutive or
   not, and the real pivots as a by-product.
4. DetermineBoundary (Alg. 3) with the paper's three cases: adjacent anchors, expansions that
   fit between anchors, and overlapping expansions resolved by the start offset of largest
   similarity (Equ. 3).
5. Main region selection (section 5.4): regions with a pivot in every record (built in) whose
   records are not bare dates (section 6.2), scored by the matched nodes between consecutive
   records (Heuristic 2).

Departures, each measured on `../shared/data/forums` (see docs/algorithm.md):

- Records of the main region's kind that sit under other parents (a Q&A page's question above
  its answers, a forum's first post in its own block, nested replies) are added when their
  anchor tree matches a main-region anchor tree by PS at the main region's pivot
  (`same_kind_records`). The paper leaves this to future work (sections 6.1.5 and 6.2).
- Pivots are found among visible nodes only, and `<time datetime>` elements and date `title`
  attributes are candidate pivots as well as dates in text.

The module is pure: it reads an lxml tree and returns records as lists of elements.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, cast

from lxml.html import HtmlElement

from winnow.dates import PIVOT_MAX_CHARS, is_date_pivot, parse_date, parse_datetime_attr
from winnow.page import HIDING_ATTRS, Page, is_hidden
from winnow.tree import (
    BLOCK_TAGS,
    LabelOptions,
    ReadTree,
    Tree,
    TreeError,
    from_arrays,
    normalize_space,
    read_tree,
)
from winnow.tree import _subtree_hashes as subtree_hashes

PS_THRESHOLD = 0.5
"""Pivot-and-Siblings similarity a pair of anchor trees must exceed (DomainSimilarity > tau in
Alg. 2). The paper tunes tau on a development set and does not print it; with PS the pivot's
siblings are template (author link, post number, labels), so half of them matching is a
lenient bar that UGC dates (a date inside a post's paragraph) rarely pass."""

MIN_RECORDS = 2
"""A record list needs two anchor trees (Alg. 2, line 14: one tree alone is no list)."""

MAX_MATCH_DEPTH = 10
"""Levels below the compared roots that tree matching descends; deeper nodes stay unmatched.
A record's template lies in its top levels (MiBAT section 5.1, "same length"); below them is
UGC, whose matching costs time and decides nothing. Measured: 60 levels and 10 give the same
posts on forums/."""

PIVOT_MATCH_DEPTH = 4
"""Levels below each pair of nodes on the two root-to-pivot paths that weigh the alignment of
their children in PM and PS: the children's top levels decide which child maps to which
(T3L of the paper is the same idea as a measure of its own)."""

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

DATE_CACHE_SIZE = 8192
"""Short texts whose date test is remembered (a few pages' worth)."""

COMMENT_ITEM_TAGS = frozenset({"li", "article"})
COMMENT_NAME_RE = re.compile(r"comment", re.I)
"""Class and id word of a comment list or item (generic vocabulary)."""

DATE_ATTRS = ("datetime", "title", "data-time", "data-timestamp", "data-date")
"""Attributes whose value may hold a machine-readable post date (a candidate pivot)."""

MARKS_XPATH = " | ".join(f"descendant-or-self::*/@{name}"
                        for name in (*DATE_ATTRS, *HIDING_ATTRS))
"""The DATE_ATTRS and HIDING_ATTRS of a subtree's elements: one XPath query finds the few
elements with a date attribute and the few `page.is_hidden` may find hidden (a union of
attribute paths is faster than testing attributes in a predicate)."""

DATE_INLINE_TAGS = frozenset({"span", "abbr", "time"})
"""Inline tags a page writes a date in: one tag for matching (`_dates_one_tag`)."""

DATE_TAG = "time"
"""The tag candidate pivots in DATE_INLINE_TAGS are matched as."""

MAX_PIVOT_TEXT = 150
"""Nodes with more text than this are never pivots. The pivot is the lowest node *containing*
the post date (section 4.2), which often holds the author and a title too ("Post by mfkl »
23 Jul 2018 09:58"); a long text is a post body, whose dates are not the record's."""


# --- the tree MiBAT works on -------------------------------------------------------------------


@dataclass
class DomTree:
    """The page's element tree in preorder arrays plus what MiBAT needs per node.

    `cand[v]` marks candidate pivots (the lowest visible nodes whose text, `datetime` or date
    `title` is a post date); `cands_below[v]` counts candidate pivots in v's subtree;
    `text_len[v]` is the visible text length of v's subtree.
    """

    tree: Tree
    cand: list[bool]
    cands_below: list[int]
    text_len: list[int]
    hidden: list[bool]
    collapsed: list[bool]
    """Candidate pivots inside hidden subtrees (collapsed reply branches): records of the main
    region's kind may be anchored on them, never a region of their own."""
    all_len: list[int]
    """Text length of v's subtree, hidden parts included."""

    @property
    def elements(self) -> Sequence[HtmlElement]:
        assert self.tree.elements is not None
        return self.tree.elements


def page_dom(page: Page) -> DomTree:
    """`dom_tree` of the page's body, built once per page: extraction and learning both
    read it."""
    dom = page.derived.get("mibat_dom")
    if dom is None:
        dom = page.derived["mibat_dom"] = dom_tree(page.body)
    return cast(DomTree, dom)


def dom_tree(root: HtmlElement) -> DomTree:
    """Build the arrays and classify candidate pivots bottom-up in one pass.

    Preorder puts every child after its parent, so walking the nodes backwards finishes a
    node's subtree before the node: each pass adds a node's count to its parent's. Hidden
    elements and elements with date attributes are few; one XPath query each finds them.
    """
    read = read_tree(root, LabelOptions(with_text=False))
    tree, index = read.tree, read.index
    elements = tree.elements
    assert elements is not None
    n = len(tree)
    parents = tree.parents
    dated, hiding = _marked(root, index)
    hidden = [False] * n
    for v in hiding:
        hidden[v] = is_hidden(elements[v])
    for v in range(1, n):
        if hidden[parents[v]]:
            hidden[v] = True
    all_len = _text_lengths(tree, [False] * n)
    text_len = _text_lengths(tree, hidden)
    short = _short_texts(read, all_len)
    cand = [False] * n
    collapsed = [False] * n
    below = [0] * n
    hidden_below = [0] * n
    for v in range(n - 1, -1, -1):
        # a hidden node is a collapsed pivot, counted apart from the visible candidates
        length, marks, counts = ((all_len[v], collapsed, hidden_below) if hidden[v]
                                 else (text_len[v], cand, below))
        if not counts[v] and length <= MAX_PIVOT_TEXT and (length or v in dated) \
                and _is_pivot_node(elements[v], length, v in dated, short[v]):
            marks[v] = True
            counts[v] = 1
        if parents[v] >= 0:
            counts[parents[v]] += counts[v]
    tree = _dates_one_tag(tree, cand, collapsed)
    return DomTree(tree, cand, below, text_len, hidden, collapsed, all_len)


def _dates_one_tag(tree: Tree, cand: Sequence[bool], collapsed: Sequence[bool]) -> Tree:
    """The tree with every candidate pivot written in a date's own inline tag
    (DATE_INLINE_TAGS) tagged DATE_TAG: an engine that writes recent dates as `<abbr>` and
    older ones as `<span>` still has records of one kind, and the real date keeps its place
    in the matching."""
    changed = [v for v, tag in enumerate(tree.tags) if (cand[v] or collapsed[v])
               and tag in DATE_INLINE_TAGS and tag != DATE_TAG]
    if not changed:
        return tree
    tags, labels = list(tree.tags), list(tree.labels)
    for v in changed:
        tags[v] = labels[v] = DATE_TAG
    return dataclasses.replace(tree, tags=tuple(tags), labels=tuple(labels),
                               hashes=subtree_hashes(labels, tree.children))


def _marked(root: HtmlElement, index: dict[HtmlElement, int]) -> tuple[set[int], set[int]]:
    """The nodes with a date attribute and the nodes with an attribute that may hide them."""
    dated: set[int] = set()
    hiding: set[int] = set()
    for value in root.xpath(MARKS_XPATH):
        (dated if value.attrname in DATE_ATTRS else hiding).add(index[value.getparent()])
    return dated, hiding


def _text_lengths(tree: Tree, left_out: Sequence[bool]) -> list[int]:
    """The normalised text length of each node's subtree (its own tail excluded), without
    the subtrees of `left_out` nodes (which keep their own length)."""
    lengths = [0 if out else len(text) for out, text in zip(left_out, tree.texts, strict=True)]
    parents, tails = tree.parents, tree.tails
    for v in range(len(tree) - 1, 0, -1):
        if not left_out[v]:
            lengths[parents[v]] += lengths[v] + len(tails[v])
    return lengths


def _short_texts(read: ReadTree, all_len: Sequence[int]) -> list[str | None]:
    """The text content of each node with at most MAX_PIVOT_TEXT characters of text (hidden
    text included), joined from the raw texts as lxml's `text_content` joins them; None for
    other nodes, and for all when the raw texts are unknown."""
    tree = read.tree
    raw_texts, raw_tails = read.raw_texts, read.raw_tails
    short: list[str | None] = [None] * len(tree)
    if raw_texts is None or raw_tails is None:
        return short
    children = tree.children
    for v in range(len(tree) - 1, -1, -1):
        if all_len[v] <= MAX_PIVOT_TEXT:
            kids = children[v]
            short[v] = raw_texts[v] + "".join([f"{short[c]}{raw_tails[c]}" for c in kids]) \
                if kids else raw_texts[v]
    return short


def _is_pivot_node(el: HtmlElement, length: int, dated: bool, text: str | None) -> bool:
    """A node whose short text is a post date, or whose date attribute is one (`dated`: it
    has one of DATE_ATTRS). `text` is the node's text content when known."""
    if length > MAX_PIVOT_TEXT:
        return False
    if length and _holds_date(el.text_content() if text is None else text):
        return True
    if not dated:
        return False
    for name in DATE_ATTRS:
        value = el.get(name)
        if value and (name != "title" or any(ch.isdigit() for ch in value)) \
                and parse_datetime_attr(value) is not None:
            return True
    return False


@lru_cache(maxsize=DATE_CACHE_SIZE)
def _holds_date(text: str) -> bool:
    """Whether a short text holds a date; cached, since a page repeats its labels, names
    and dates from record to record (and pages of a site repeat them too)."""
    return parse_date(text) is not None


# --- simple tree matching ----------------------------------------------------------------------


class TreeMatcher:
    """Simple tree matching (Yang 1991) between subtrees of one `Tree`, memoized per pair.

    `score(a, b)` is |M|, the size of the maximum top-down mapping between the subtrees at a
    and b: 0 when their root tags differ, else 1 plus the best order-preserving alignment of
    their children (a dynamic program over child pairs). Identical subtrees (equal structure
    hashes) short-cut to their size.
    """

    def __init__(self, tree: Tree, max_depth: int = MAX_MATCH_DEPTH,
                 other: Tree | None = None) -> None:
        self.tree = tree
        self.other = other if other is not None else tree
        """`score(a, b)` takes a from `tree` and b from `other` (the same tree by default)."""
        self.max_depth = max_depth
        self._shallow: TreeMatcher | None = None
        self.memo: dict[tuple[int, int], int] = {}
        self.pair_memo: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def score(self, a: int, b: int, depth: int = 0) -> int:
        t, u = self.tree, self.other
        if t.tags[a] != u.tags[b]:
            return 0
        if t.hashes[a] == u.hashes[b] and t.sizes[a] == u.sizes[b]:
            return t.sizes[a]
        ka, kb = t.children[a], u.children[b]
        if not ka or not kb or depth >= self.max_depth:
            return 1
        key = (a, b)
        found = self.memo.get(key)
        if found is None:
            found = 1 + self._align(ka, kb, depth + 1)[-1][-1]
            self.memo[key] = found
        return found

    def _align(self, ka: Sequence[int], kb: Sequence[int], depth: int) -> list[list[int]]:
        """The DP table of the children alignment: m[i][j] is the best |M| of ka[:i], kb[:j]."""
        m = [[0] * (len(kb) + 1) for _ in range(len(ka) + 1)]
        for i, x in enumerate(ka, 1):
            row, prev = m[i], m[i - 1]
            for j, y in enumerate(kb, 1):
                best = row[j - 1] if row[j - 1] > prev[j] else prev[j]
                w = self.score(x, y, depth)
                if w and prev[j - 1] + w > best:
                    best = prev[j - 1] + w
                row[j] = best
        return m

    @property
    def shallow(self) -> TreeMatcher:
        """A matcher of the same tree that descends PIVOT_MATCH_DEPTH levels only."""
        if self._shallow is None:
            self._shallow = TreeMatcher(self.tree, PIVOT_MATCH_DEPTH, self.other)
        return self._shallow

    def pairs(self, a: int, b: int) -> list[tuple[int, int]]:
        """The child pairs the optimal alignment of a's and b's children maps (traceback)."""
        key = (a, b)
        found = self.pair_memo.get(key)
        if found is None:
            found = self.pair_memo[key] = self._pairs(a, b)
        return found

    def _pairs(self, a: int, b: int) -> list[tuple[int, int]]:
        ka, kb = self.tree.children[a], self.other.children[b]
        m = self._align(ka, kb, 1)
        out: list[tuple[int, int]] = []
        i, j = len(ka), len(kb)
        while i and j:
            w = self.score(ka[i - 1], kb[j - 1], 1)
            if w and m[i][j] == m[i - 1][j - 1] + w:
                out.append((ka[i - 1], kb[j - 1]))
                i, j = i - 1, j - 1
            elif m[i][j] == m[i - 1][j]:
                i -= 1
            else:
                j -= 1
        return out[::-1]


def stm(tree: Tree, a: int, b: int) -> int:
    """|M| of the simple tree matching between the subtrees at `a` and `b`."""
    return TreeMatcher(tree).score(a, b)


# --- similarity by domain constraints --------------------------------------------------------


def _path(tree: Tree, top: int, node: int) -> list[int] | None:
    """Nodes from `top` down to `node`, or None when `node` is not under `top`."""
    path = [node]
    while path[-1] != top:
        p = tree.parents[path[-1]]
        if p < top:
            return None
        path.append(p)
    return path[::-1]


def pivot_similarity(matcher: TreeMatcher, a: int, b: int, pa: int, pb: int,
                     measure: str = "PS") -> float:
    """DomainSimilarity of anchor trees `a` and `b` with pivots `pa` and `pb` (section 4.2).

    PM is 1 when the top-down mapping maps pa onto pb, else 0. PS is Equ. 2 over the pivot
    and its siblings: the matched pairs among the children of the pivots' parents over the
    mean number of those children; it is 0 when the pivots themselves are not mapped.
    The mapping is followed only along the two root-to-pivot paths: in a top-down mapping a
    node is mapped only when its parent is, so the rest of the mapping cannot change it.
    """
    tree, other = matcher.tree, matcher.other
    matcher = matcher.shallow
    path_a, path_b = _path(tree, a, pa), _path(other, b, pb)
    if path_a is None or path_b is None or len(path_a) != len(path_b):
        return 0.0
    if any(tree.tags[x] != other.tags[y] for x, y in zip(path_a, path_b, strict=True)):
        return 0.0
    if len(path_a) == 1:
        return 1.0
    sibling_pairs: list[tuple[int, int]] = []
    for k in range(len(path_a) - 1):
        pairs = matcher.pairs(path_a[k], path_b[k])
        if (path_a[k + 1], path_b[k + 1]) not in pairs:
            return 0.0
        sibling_pairs = pairs
    if measure == "PM":
        return 1.0
    parent_a, parent_b = path_a[-2], path_b[-2]
    size = (len(tree.children[parent_a]) + len(other.children[parent_b])) / 2
    return len(sibling_pairs) / size


# --- FindAnchorTrees (Alg. 2) ----------------------------------------------------------------


@dataclass
class AnchorList:
    """Anchor trees under one parent (child positions) and, per anchor, its real pivots (the
    candidate pivots that matched in every anchor tree, first one first)."""

    parent: int
    positions: list[int]
    pivots: list[tuple[int, ...]]


def candidates_in(dom: DomTree, v: int) -> list[int]:
    """Candidate pivots in v's subtree, in document order."""
    if not dom.cands_below[v]:
        return []
    return [u for u in dom.tree.subtree(v) if dom.cand[u]]


def domain_compare(matcher: TreeMatcher, dom: DomTree, ti: int, tj: int,
                   pivots: Sequence[int], measure: str = "PS") -> dict[int, int]:
    """DOMAINCOMPARE of Alg. 2: the candidate pivots of `ti` (among `pivots`) that match some
    candidate pivot of `tj`, each with the pivot of `tj` it matched."""
    if dom.tree.tags[ti] != dom.tree.tags[tj]:
        return {}
    theirs = candidates_in(dom, tj)
    matched: dict[int, int] = {}
    depths = dom.tree.depths
    for c in pivots:
        for c2 in theirs:
            if depths[c] - depths[ti] != depths[c2] - depths[tj]:
                continue
            if pivot_similarity(matcher, ti, tj, c, c2, measure) > PS_THRESHOLD:
                matched[c] = c2
                break
    return matched


def find_anchor_trees(matcher: TreeMatcher, dom: DomTree, parent: int,
                      measure: str = "PS") -> list[AnchorList]:
    """FINDANCHORTREES (Alg. 2) over the children of `parent`: every list of two or more
    sibling subtrees that match at a candidate pivot, with the real pivot of each."""
    kids = dom.tree.children[parent]
    used = [False] * len(kids)
    found: list[AnchorList] = []
    for i, ti in enumerate(kids):
        if used[i] or not dom.cands_below[ti]:
            continue
        pivots = candidates_in(dom, ti)
        members: list[tuple[int, dict[int, int]]] = []
        for j in range(i + 1, len(kids)):
            if used[j] or not dom.cands_below[kids[j]]:
                continue
            matched = domain_compare(matcher, dom, ti, kids[j], pivots, measure)
            if matched:
                members.append((j, matched))
                pivots = [c for c in pivots if c in matched]
                used[j] = True
        if len(members) + 1 >= MIN_RECORDS:
            used[i] = True
            found.append(AnchorList(parent, [i] + [j for j, _ in members],
                                    [tuple(pivots)] + [tuple(m[c] for c in pivots)
                                                       for _, m in members]))
    return found


# --- DetermineBoundary (Alg. 3) --------------------------------------------------------------


def determine_boundary(matcher: TreeMatcher, kids: Sequence[int],
                       anchors: Sequence[int]) -> tuple[int, int]:
    """DETERMINEBOUNDARY (Alg. 3): the start offset (relative to each anchor) and the length
    of the records around `anchors` (positions in `kids`).

    Case 1, adjacent anchors: every anchor tree is a record. Otherwise each anchor expands
    left and right while all anchors see the same tag at the same offset, up to the nearest
    anchor; Case 2, the expansion fits between anchors: it is the record. Case 3, it
    overlaps: the record length is the anchors' minimal distance and the start offset is the
    one whose records are most similar (Equ. 3).
    """
    tags = matcher.tree.tags
    gap = min(b - a for a, b in zip(anchors, anchors[1:], strict=False))
    left = 0
    for k in range(1, min(gap, anchors[0] + 1)):
        if len({tags[kids[a - k]] for a in anchors}) > 1:
            break
        left = k
    right = 0
    for k in range(1, min(gap - 1, len(kids) - 1 - anchors[-1]) + 1):
        if len({tags[kids[a + k]] for a in anchors}) > 1:
            break
        right = k
    expansion = left + right + 1
    length = min(gap, expansion)
    offsets = range(max(-left, 1 - length), min(0, right - length + 1) + 1)
    if len(offsets) == 1:
        return offsets[0], length
    return max(offsets, key=lambda x: _records_similarity(matcher, kids, anchors, x, length)), \
        length


def _records_similarity(matcher: TreeMatcher, kids: Sequence[int], anchors: Sequence[int],
                        offset: int, length: int) -> int:
    """Equ. 3: matched nodes between corresponding subtrees of consecutive records."""
    total = 0
    for a, b in zip(anchors, anchors[1:], strict=False):
        for j in range(length):
            total += matcher.score(kids[a + offset + j], kids[b + offset + j])
    return total


# --- regions and the main region --------------------------------------------------------------


@dataclass
class Region:
    """A list of records under one parent: each record is a run of sibling elements (tree
    node numbers), `anchors` the anchor tree of each record and `pivots` its real pivots."""

    parent: int
    records: list[list[int]]
    anchors: list[int]
    pivots: list[tuple[int, ...]]
    score: int = 0
    extra: list[int] = field(default_factory=list)
    """Indices into `records` of records added by `same_kind_records` (not in the paper)."""


def mine_regions(dom: DomTree, matcher: TreeMatcher | None = None,
                 measure: str = "PS") -> list[Region]:
    """MiBAT (Alg. 1): every record list of the page, with its Heuristic 2 score."""
    matcher = matcher or TreeMatcher(dom.tree)
    tree = dom.tree
    regions: list[Region] = []
    for parent in range(len(tree)):
        kids = tree.children[parent]
        if len(kids) < MIN_RECORDS or dom.cands_below[parent] < MIN_RECORDS:
            continue
        if sum(1 for c in kids if dom.cands_below[c]) < MIN_RECORDS:
            continue
        for anchor_list in find_anchor_trees(matcher, dom, parent, measure):
            regions.append(_region(matcher, kids, anchor_list))
    return regions


def _region(matcher: TreeMatcher, kids: Sequence[int], found: AnchorList) -> Region:
    offset, length = determine_boundary(matcher, kids, found.positions)
    records = [[kids[a + offset + j] for j in range(length)] for a in found.positions]
    score = _records_similarity(matcher, kids, found.positions, offset, length)
    return Region(found.parent, records, [kids[a] for a in found.positions], found.pivots,
                  score)


def is_date_list(dom: DomTree, region: Region) -> bool:
    """Records whose whole text is a date (blog archive links, section 6.2's extra filter)."""
    return all(sum(dom.text_len[v] for v in record) <= PIVOT_MAX_CHARS
               and is_date_pivot(" ".join(dom.elements[v].text_content() for v in record))
               for record in region.records)


def ranked_regions(dom: DomTree, regions: Sequence[Region]) -> list[Region]:
    """Section 5.4: the regions without bare date lists, largest score first."""
    return sorted((r for r in regions if not is_date_list(dom, r)), key=lambda r: -r.score)


def main_region(dom: DomTree, regions: Sequence[Region]) -> Region | None:
    """Section 5.4: drop bare date lists, then take the region of the largest score."""
    ranked = ranked_regions(dom, regions)
    return ranked[0] if ranked else None


# --- records of the main region's kind elsewhere (not in the paper) --------------------------


def same_kind_records(matcher: TreeMatcher, dom: DomTree, main: Region) -> Region:
    """The main region plus every subtree elsewhere on the page that is a record of its kind:
    its anchor tree matches the main region's first anchor tree by PS at one of the main
    region's real pivots. This finds what the same-parent assumption misses (section 6.1.5:
    first posts under another parent or in their own block, Q&A questions above their
    answers; section 6.2: nested replies). Records come back in document order."""
    tree = dom.tree
    anchor = main.anchors[0]
    taken = [tree.subtree(v) for record in main.records for v in record]
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
            if any(r.start in tree.subtree(a) for r in taken) or any(a == f for f, _ in found):
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
    below_anchor = _path(tree, anchor, pivot)
    below_a = _path(tree, a, c)
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
    post with one comment still has a comment section. None when there is none."""
    tree = dom.tree
    found: list[tuple[int, int]] = []
    for c in range(len(tree)):
        if not dom.cand[c]:
            continue
        item = _comment_item(dom, c)
        if item is not None and all(item != f for f, _ in found):
            found.append((item, c))
    found = [(a, c) for a, c in found if not any(f != a and a in tree.subtree(f)
                                                 for f, _ in found)]
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
