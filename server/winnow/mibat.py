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
  (`mibat_records.same_kind_records`). The paper leaves this to future work (sections 6.1.5
  and 6.2).
- Pivots are found among visible nodes only, and `<time datetime>` elements and date `title`
  attributes are candidate pivots as well as dates in text (`mibat_dom`, the tree MiBAT
  reads).

The module is pure: it reads a `mibat_dom.DomTree` and returns records as tree nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from winnow.dates import PIVOT_MAX_CHARS, is_date_pivot
from winnow.mibat_dom import DomTree
from winnow.tree import Tree

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


def tree_path(tree: Tree, top: int, node: int) -> list[int] | None:
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
    path_a, path_b = tree_path(tree, a, pa), tree_path(other, b, pb)
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
    if dom.cands_below[0] < MIN_RECORDS:
        return regions  # a list needs a candidate pivot in each of MIN_RECORDS subtrees
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
