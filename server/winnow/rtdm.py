"""RTDM (Reis et al., 2004, section 3, Figure 5): restricted top-down tree edit distance.

A restricted top-down mapping (Definition 3) maps a vertex only when its parent is mapped
(top-down, Definition 2) and lets two vertices with different labels be mapped only where
none of their descendants are: once labels differ the rest of both subtrees is inserted and
deleted. Figure 5 aligns the children of two mapped vertices with a string edit distance
whose substitution cost is the distance between the child subtrees:

- lines 13-14: delete or insert a whole child subtree;
- lines 15-16, the threshold cut-off: when the cost of the prefix alignment M[i-1, j-1]
  already exceeds epsilon, the pair is not compared at all (s = infinity);
- lines 17-18, the bottom-up short-cut: identical subtrees (equal subtree hashes, computed
  once per tree in post-order) cost 0 without descending;
- lines 20-25, the top-down short-cut: when one side is a leaf, or (Definition 3) the labels
  differ, the cost is replace(root) plus inserting / deleting the rest, without descending;
- otherwise line 27 recurses, here with an explicit stack of generator frames, so a
  10,000-deep tree needs no Python recursion.

Guarantee of the cut-off: the result equals the true distance when that is at most epsilon
and is some value above epsilon otherwise (every alignment pruned by line 15 already costs
more than epsilon, and costs are non-negative).

Adapted, and why:

- Lines 7-8 of the scanned figure initialise M[i, 0] and M[0, j] to 0, which would make
  deleting the first children free; we use the cumulative subtree deletion / insertion
  costs, as in every string edit distance (and as the matching cost model H requires).
- The scanned figure recurses (line 27) into any two non-leaves; Definition 3 forbids
  mapping below two differently labelled vertices, so such a pair is cut like a leaf pair
  (its branch on line 19 is illegible in the scan).
- The roots of the two trees are compared like any pair (identical, replaced, or aligned).
- Ties between alignments of equal cost go to deleting / inserting the later children
  (the traceback runs from the end), so extra siblings form the tail of a run: composing a
  3- and a 5-paragraph body gives `. . . ? ?`, not `? ? . . .`. The paper leaves ties open.
- A pair of children lists with more than `MAX_ALIGN_CELLS` cells (hostile pages with
  100,000 siblings) is aligned greedily in O(m + n) instead: common identical prefix and
  suffix, then position by position. That mapping is valid but not always minimal.

The costs are pluggable (`CostModel`): unit costs for clustering and composition (sections
4.1-4.2), and the ne-pattern matching model (section 4.3, in `winnow.patterns`), which also
needs D/E: a PLUS or KLEENE wildcard consumes the sibling subtrees that follow the one it
replaced at zero cost. `top_down_distance` is the plain top-down edit distance (Yang's
recursion with no short-cut at all), the baseline the paper compares with in Figure 10.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from winnow.tree import Tree

INF = math.inf

CLUSTER_SIMILARITY = 0.8
"""Section 4.1: two pages belong to the same template cluster at 80% similarity or more."""

MAX_ALIGN_CELLS = 250_000
"""Largest children-alignment matrix (m x n) computed exactly; above it the greedy alignment
is used. Not in the paper: a guard so a page with 100,000 siblings cannot stall the server."""

MAX_RECURSION_HEIGHT = 200
"""Trees lower than this are aligned by plain recursion, one Python call per aligned pair,
about twice as fast as the generator frames of the explicit stack; higher trees, and costs
with absorbing (D/E) vertices, use the stack. Not in the paper: clustering compares every
page with RTDM, composition aligns the first pages of each cluster, and real pages are 10
to 50 levels high."""

# Traceback codes of one alignment cell.
_DEL, _INS, _DIAG, _VIA_RUN, _RUN = 1, 2, 3, 4, 5
# How a diagonal pair was costed (ops kept for the mapping).
_SAME, _CUT, _DESCEND, _ABSORB = 0, 1, 2, 3

Op = tuple[int, int, int]
"""(node of t1, node of t2, how): _SAME identical subtrees, _CUT mapped without
descendants, _DESCEND aligned below, _ABSORB t2 subtree consumed by a sibling run (D/E)."""


class CostModel:
    """Unit costs (section 4.1): insertion, deletion and replacement of different labels
    cost 1, equal labels 0. Subclasses override to change the model.

    `by_tag` makes the equality operator compare tags instead of full labels (text digests
    and classes ignored), for the structural similarity of templates.
    """

    by_tag = False

    def delete_costs(self, tree: Tree) -> Sequence[float]:
        """The cost of deleting each vertex of `tree` (the first tree) alone."""
        return [1.0] * len(tree)

    def insert_costs(self, tree: Tree) -> Sequence[float]:
        """The cost of inserting each vertex of `tree` (the second tree) alone."""
        return [1.0] * len(tree)

    def replace(self, t1: Tree, a: int, t2: Tree, b: int) -> float:
        """The cost of mapping vertex a to vertex b (0 when the labels are equal)."""
        if self.by_tag:
            return 0.0 if t1.tags[a] == t2.tags[b] else 1.0
        return 0.0 if t1.labels[a] == t2.labels[b] else 1.0

    def cut(self, t1: Tree, a: int, t2: Tree, b: int, below_a: float, below_b: float) -> float:
        """Lines 20-25: map a to b and delete / insert all their descendants, whose total
        costs are `below_a` and `below_b`."""
        return self.replace(t1, a, t2, b) + below_a + below_b

    def absorbs(self, t1: Tree, a: int) -> bool:
        """True when a may also consume the t2 siblings following its match (costs D/E)."""
        return False

    def absorb(self, t1: Tree, a: int, t2: Tree, b: int) -> float:
        """The cost of vertex a consuming the further sibling subtree rooted at b."""
        return INF


class StructureCosts(CostModel):
    """Unit costs over tags only: the template (layout) similarity of section 4.1, where
    the text of the pages, which differs on every page of a template, must not count."""

    by_tag = True


UNIT_COSTS = CostModel()
STRUCTURE_COSTS = StructureCosts()


@dataclass(frozen=True)
class RtdmResult:
    """A distance and its restricted top-down mapping.

    `forward[a]` is the t2 vertex mapped to t1 vertex a (-1 when a is deleted), `backward`
    the converse. `absorbed` lists (t1 vertex, t2 subtree root) pairs where the t2 subtree was
    consumed as a further sibling by a PLUS/KLEENE vertex (empty under unit costs).
    When the distance is infinite (no finite mapping exists) the mapping is empty.
    """

    distance: float
    forward: tuple[int, ...]
    backward: tuple[int, ...]
    absorbed: tuple[tuple[int, int], ...]

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The mapped (t1, t2) pairs in t1 preorder."""
        return [(a, b) for a, b in enumerate(self.forward) if b >= 0]


class _Context:
    """Per-comparison arrays, read by every alignment frame."""

    def __init__(self, t1: Tree, t2: Tree, costs: CostModel, epsilon: float,
                 keep: bool) -> None:
        self.t1, self.t2, self.costs, self.epsilon, self.keep = t1, t2, costs, epsilon, keep
        self.del_tree, self.del_below = _subtree_sums(t1, costs.delete_costs(t1))
        self.ins_tree, self.ins_below = _subtree_sums(t2, costs.insert_costs(t2))
        self.absorbing = ([False] * len(t1) if type(costs).absorbs is CostModel.absorbs
                          else [costs.absorbs(t1, a) for a in range(len(t1))])
        self.unit_cut = (type(costs).cut is CostModel.cut
                         and type(costs).replace is CostModel.replace)
        """`cut` is replace-by-label plus the costs below (inlined by `_distance`)."""
        self.lab1, self.lab2 = (t1.tags, t2.tags) if costs.by_tag else (t1.labels, t2.labels)
        self.h1, self.h2 = ((t1.tag_hashes, t2.tag_hashes) if costs.by_tag
                            else (t1.hashes, t2.hashes))
        self.ops: dict[tuple[int, int], list[Op]] = {}

    def cut(self, a: int, b: int) -> float:
        """Lines 20-25 for the pair (a, b)."""
        return self.costs.cut(self.t1, a, self.t2, b, self.del_below[a], self.ins_below[b])

    def how(self, a: int, b: int) -> int:
        """Which branch of lines 17-27 costs the pair (a, b) under the restricted mapping."""
        t1, t2 = self.t1, self.t2
        if self.h1[a] == self.h2[b] and t1.sizes[a] == t2.sizes[b]:
            return _SAME
        if not t1.children[a] or not t2.children[b] or self.lab1[a] != self.lab2[b]:
            return _CUT
        return _DESCEND


def _subtree_sums(tree: Tree, node_costs: Sequence[float]) -> tuple[list[float], list[float]]:
    """Per node, the summed costs of its whole subtree and of its proper descendants only
    (summed, never subtracted, so infinite costs stay well-defined)."""
    below = [0.0] * len(node_costs)
    parents = tree.parents
    for v in range(len(below) - 1, 0, -1):
        below[parents[v]] += below[v] + node_costs[v]
    return [c + b for c, b in zip(node_costs, below, strict=True)], below


Frame = Generator[tuple[int, int], float, float]


def _run(ctx: _Context, root_frame: Frame,
         child_frame: Callable[[_Context, int, int], Frame] | None = None) -> float:
    """Drive alignment frames with an explicit stack: a frame yields a child pair whose
    distance it needs (line 27) and receives it back through `send`."""
    make = child_frame or _align
    stack = [root_frame]
    value: float | None = None
    while stack:
        try:
            a, b = stack[-1].send(value)  # type: ignore[arg-type]
        except StopIteration as done:
            stack.pop()
            value = done.value
            continue
        stack.append(make(ctx, a, b))
        value = None
    assert value is not None
    return value


def _root_frame(ctx: _Context) -> Frame:
    """The roots compared like any pair: identical, cut, or aligned below."""
    how = ctx.how(0, 0)
    if how == _SAME:
        if ctx.keep:
            ctx.ops[(-1, -1)] = [(0, 0, _SAME)]
        return 0.0
    if how == _CUT:
        if ctx.keep:
            ctx.ops[(-1, -1)] = [(0, 0, _CUT)]
        return ctx.cut(0, 0)
    if ctx.keep:
        ctx.ops[(-1, -1)] = [(0, 0, _DESCEND)]
    s = yield (0, 0)
    return s + ctx.costs.replace(ctx.t1, 0, ctx.t2, 0)


def _align(ctx: _Context, a: int, b: int) -> Frame:
    """Figure 5 for one pair of vertices with equal labels: align their children.

    The hot loop of every comparison, so its lookups are hoisted into locals and the
    branches of lines 15-27 are written out instead of calling `_Context.how`.
    """
    ca, cb = ctx.t1.children[a], ctx.t2.children[b]
    if len(ca) * len(cb) > MAX_ALIGN_CELLS:
        return (yield from _align_greedy(ctx, a, b))
    if any(ctx.absorbing[x] for x in ca):
        return (yield from _align_runs(ctx, a, b))
    t1, t2 = ctx.t1, ctx.t2
    h1, h2, s1, s2 = ctx.h1, ctx.h2, t1.sizes, t2.sizes
    lab1, lab2, kids1, kids2 = ctx.lab1, ctx.lab2, t1.children, t2.children
    del_tree, ins_tree, eps, keep = ctx.del_tree, ctx.ins_tree, ctx.epsilon, ctx.keep
    n = len(cb)
    prev = _first_row(ins_tree, cb)
    choice = bytearray((len(ca) + 1) * (n + 1)) if keep else None
    for i, x in enumerate(ca, 1):
        dx, hx, sx, lx, leaf_x = del_tree[x], h1[x], s1[x], lab1[x], not kids1[x]
        cur = [prev[0] + dx]
        for j, y in enumerate(cb, 1):
            diag = prev[j - 1]
            best, code = INF, _DIAG
            if diag <= eps:                                   # lines 15-16
                if hx == h2[y] and sx == s2[y]:               # lines 17-18
                    best = diag
                elif leaf_x or not kids2[y] or lx != lab2[y]:  # lines 20-25, Def. 3
                    best = diag + ctx.cut(x, y)
                else:                                         # line 27
                    best = diag + (yield (x, y))
            d = prev[j] + dx                                  # line 13
            if d <= best:
                best, code = d, _DEL
            d = cur[j - 1] + ins_tree[y]                      # line 14
            if d <= best:
                best, code = d, _INS
            cur.append(best)                                  # line 30
            if choice is not None:
                choice[i * (n + 1) + j] = code
        prev = cur
    if choice is not None:
        ctx.ops[(a, b)] = _trace(ctx, ca, cb, choice, None)
    return prev[n]


def _first_row(ins_tree: Sequence[float], cb: Sequence[int]) -> list[float]:
    row = [0.0]
    for y in cb:
        row.append(row[-1] + ins_tree[y])
    return row


def _align_runs(ctx: _Context, a: int, b: int) -> Frame:
    """The alignment of `_align` with costs D/E: `run[j]` is the best cost where t2 child j
    is consumed by t1 child i, which may then consume child j + 1 for `absorb` cost."""
    ca, cb = ctx.t1.children[a], ctx.t2.children[b]
    costs, t1, t2, eps = ctx.costs, ctx.t1, ctx.t2, ctx.epsilon
    n = len(cb)
    prev = _first_row(ctx.ins_tree, cb)
    keep = ctx.keep
    choice = bytearray((len(ca) + 1) * (n + 1)) if keep else None
    run_choice = bytearray((len(ca) + 1) * (n + 1)) if keep else None
    for i, x in enumerate(ca, 1):
        dx, absorbing = ctx.del_tree[x], ctx.absorbing[x]
        cur, run = [prev[0] + dx], [INF]
        for j, y in enumerate(cb, 1):
            s = INF
            if prev[j - 1] <= eps:
                how = ctx.how(x, y)
                s = 0.0 if how == _SAME else ctx.cut(x, y) if how == _CUT else (yield (x, y))
            s += prev[j - 1]
            r, r_code = s, _DIAG
            if absorbing and run[j - 1] + costs.absorb(t1, x, t2, y) < r:
                r, r_code = run[j - 1] + costs.absorb(t1, x, t2, y), _RUN
            run.append(r if absorbing else INF)
            best, code = (r, _VIA_RUN) if absorbing else (s, _DIAG)
            if prev[j] + dx <= best:
                best, code = prev[j] + dx, _DEL
            if cur[j - 1] + ctx.ins_tree[y] <= best:
                best, code = cur[j - 1] + ctx.ins_tree[y], _INS
            cur.append(best)
            if choice is not None and run_choice is not None:
                choice[i * (n + 1) + j], run_choice[i * (n + 1) + j] = code, r_code
        prev = cur
    if choice is not None:
        ctx.ops[(a, b)] = _trace(ctx, ca, cb, choice, run_choice)
    return prev[n]


def _trace(ctx: _Context, ca: Sequence[int], cb: Sequence[int], choice: bytearray,
           run_choice: bytearray | None) -> list[Op]:
    """Walk the choices back from (m, n); return the mapped and absorbed pairs in order."""
    n = len(cb)
    i, j, in_run = len(ca), len(cb), False
    ops: list[Op] = []
    while i > 0 or j > 0:
        if i == 0 or j == 0:
            i, j = (i - 1, j) if j == 0 else (i, j - 1)
            continue
        cell = i * (n + 1) + j
        if in_run or choice[cell] == _VIA_RUN:
            assert run_choice is not None
            x, y = ca[i - 1], cb[j - 1]
            in_run = run_choice[cell] == _RUN
            ops.append((x, y, _ABSORB) if in_run else (x, y, ctx.how(x, y)))
            i, j = (i, j - 1) if in_run else (i - 1, j - 1)
        elif choice[cell] == _DIAG:
            ops.append((ca[i - 1], cb[j - 1], ctx.how(ca[i - 1], cb[j - 1])))
            i, j = i - 1, j - 1
        elif choice[cell] == _DEL:
            i -= 1
        else:
            j -= 1
    ops.reverse()
    return ops


def _align_greedy(ctx: _Context, a: int, b: int) -> Frame:
    """Oversized children lists: identical prefix and suffix, then pair by position."""
    ca, cb = ctx.t1.children[a], ctx.t2.children[b]
    lo = 0
    while lo < min(len(ca), len(cb)) and ctx.how(ca[lo], cb[lo]) == _SAME:
        lo += 1
    hi = 0
    while hi < min(len(ca), len(cb)) - lo and ctx.how(ca[-1 - hi], cb[-1 - hi]) == _SAME:
        hi += 1
    pairs = list(zip(ca[:lo], cb[:lo], strict=True))
    middle = list(zip(ca[lo:len(ca) - hi], cb[lo:len(cb) - hi], strict=False))
    total = sum((ctx.del_tree[x] for x in ca[lo + len(middle):len(ca) - hi]), 0.0)
    total += sum(ctx.ins_tree[y] for y in cb[lo + len(middle):len(cb) - hi])
    ops = [(x, y, _SAME) for x, y in pairs]
    for x, y in middle:
        how = ctx.how(x, y)
        total += 0.0 if how == _SAME else ctx.cut(x, y) if how == _CUT else (yield (x, y))
        ops.append((x, y, how))
    ops += [(x, y, _SAME) for x, y in zip(ca[len(ca) - hi:], cb[len(cb) - hi:], strict=True)]
    if ctx.keep:
        ctx.ops[(a, b)] = ops
    return total


def _mapping(ctx: _Context) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    """Assemble the whole mapping from the ops of the frames on the optimal path."""
    forward, backward = [-1] * len(ctx.t1), [-1] * len(ctx.t2)
    absorbed: list[tuple[int, int]] = []
    pending = list(ctx.ops[(-1, -1)])
    while pending:
        x, y, how = pending.pop()
        if how == _ABSORB:
            absorbed.append((x, y))
            continue
        if how == _SAME:
            for k in range(ctx.t1.sizes[x]):
                forward[x + k], backward[y + k] = y + k, x + k
            continue
        forward[x], backward[y] = y, x
        if how == _DESCEND:
            pending.extend(ctx.ops.get((x, y), ()))
    absorbed.sort()
    return forward, backward, absorbed


def rtdm(t1: Tree, t2: Tree, costs: CostModel = UNIT_COSTS,
         epsilon: float = INF) -> RtdmResult:
    """The restricted top-down distance from t1 to t2 and its mapping (Figure 5).

    With a finite `epsilon` the distance is exact when it is at most epsilon, and above
    epsilon otherwise (the mapping is then valid but not necessarily minimal).
    """
    ctx = _Context(t1, t2, costs, epsilon, keep=True)
    distance = _recursive_run(ctx) if _recursion_safe(ctx) else _run(ctx, _root_frame(ctx))
    if math.isinf(distance):
        return RtdmResult(distance, (-1,) * len(t1), (-1,) * len(t2), ())
    forward, backward, absorbed = _mapping(ctx)
    return RtdmResult(distance, tuple(forward), tuple(backward), tuple(absorbed))


def rtdm_distance(t1: Tree, t2: Tree, costs: CostModel = UNIT_COSTS,
                  epsilon: float = INF) -> float:
    """The distance of `rtdm` without building the mapping (faster, less memory)."""
    ctx = _Context(t1, t2, costs, epsilon, keep=False)
    return _recursive_run(ctx) if _recursion_safe(ctx) else _run(ctx, _root_frame(ctx))


def _recursion_safe(ctx: _Context) -> bool:
    """True when `_recursive_run` gives the explicit stack's result: both trees low
    enough (`MAX_RECURSION_HEIGHT`), no children pair over `MAX_ALIGN_CELLS` (so never the
    greedy alignment) and no absorbing vertex (so never `_align_runs`)."""
    t1, t2 = ctx.t1, ctx.t2
    return (min(max(t1.depths), max(t2.depths)) < MAX_RECURSION_HEIGHT
            and max(map(len, t1.children)) * max(map(len, t2.children)) <= MAX_ALIGN_CELLS
            and not any(ctx.absorbing))


def _recursive_run(ctx: _Context) -> float:
    """`_run` of `_root_frame` and `_align` by plain recursion: the same cells, cut-offs,
    short-cuts and choices in the same order, so the same distance and, when `ctx.keep`,
    the same ops."""
    t1, t2, eps, keep = ctx.t1, ctx.t2, ctx.epsilon, ctx.keep
    h1, h2, s1, s2 = ctx.h1, ctx.h2, t1.sizes, t2.sizes
    lab1, lab2, kids1, kids2 = ctx.lab1, ctx.lab2, t1.children, t2.children
    del_tree, ins_tree, del_below, ins_below = (ctx.del_tree, ctx.ins_tree, ctx.del_below,
                                                ctx.ins_below)
    unit_cut = ctx.unit_cut

    def align(a: int, b: int) -> float:
        ca, cb = kids1[a], kids2[b]
        n = len(cb)
        prev = _first_row(ins_tree, cb)
        choice = bytearray((len(ca) + 1) * (n + 1)) if keep else None
        for i, x in enumerate(ca, 1):
            dx, hx, sx, lx, leaf_x = del_tree[x], h1[x], s1[x], lab1[x], not kids1[x]
            cur = [prev[0] + dx]
            for j, y in enumerate(cb, 1):
                best = diag = prev[j - 1]
                code = _DIAG
                if diag > eps:                                    # lines 15-16
                    best = INF
                elif hx == h2[y] and sx == s2[y]:                 # lines 17-18
                    pass
                elif leaf_x or not kids2[y] or lx != lab2[y]:     # lines 20-25, Def. 3
                    best += ((0.0 if lx == lab2[y] else 1.0) + del_below[x] + ins_below[y]
                             if unit_cut else ctx.cut(x, y))
                else:                                             # line 27
                    best += align(x, y)
                d = prev[j] + dx                                  # line 13
                if d <= best:
                    best, code = d, _DEL
                d = cur[j - 1] + ins_tree[y]                      # line 14
                if d <= best:
                    best, code = d, _INS
                cur.append(best)
                if choice is not None:
                    choice[i * (n + 1) + j] = code
            prev = cur
        if choice is not None:
            ctx.ops[(a, b)] = _trace(ctx, ca, cb, choice, None)
        return prev[n]

    how = ctx.how(0, 0)
    if keep:
        ctx.ops[(-1, -1)] = [(0, 0, how)]
    if how == _SAME:
        return 0.0
    if how == _CUT:
        return ctx.cut(0, 0)
    return align(0, 0) + ctx.costs.replace(t1, 0, t2, 0)


def normaliser(t1: Tree, t2: Tree) -> int:
    """|T1| + |T2|: the unit cost of deleting all of T1 and inserting all of T2, an upper
    bound of the unit-cost distance, so similarity stays within [0, 1]."""
    return len(t1) + len(t2)


def similarity(t1: Tree, t2: Tree, threshold: float | None = None,
               costs: CostModel = STRUCTURE_COSTS) -> float:
    """1 - distance / (|T1| + |T2|) under unit costs (section 4.1's clustering measure).

    By default vertices are compared by tag (`STRUCTURE_COSTS`): a template is layout, and
    with text in the labels every paragraph of a news body would count as a difference.

    With a `threshold` (e.g. `CLUSTER_SIMILARITY`) RTDM stops early once the pages cannot
    reach it (lines 15-16); the result is exact at or above the threshold and some value
    below it otherwise.
    """
    total = normaliser(t1, t2)
    epsilon = INF if threshold is None else (1.0 - threshold) * total
    if threshold is not None and type(costs) is StructureCosts:
        bound = structure_bound(t1, t2)
        if bound > epsilon:
            return 1.0 - bound / total  # below the threshold without aligning anything
    return 1.0 - rtdm_distance(t1, t2, costs, epsilon) / total


def structure_bound(t1: Tree, t2: Tree) -> int:
    """A lower bound of the distance under `STRUCTURE_COSTS`, from tag path counts alone.

    Not in the paper; it settles most comparisons of pages of different templates without
    an alignment. A restricted top-down mapping maps a pair only below mapped pairs of equal
    labels (Definitions 2-3), so every mapped pair has equal parent tag paths and every pair
    mapped at cost 0 equal tag paths. Per parent path p, the s_p pairs of cost 0 are at most
    M_p (the summed minimum counts of each path under p) and all pairs at most
    min(n1_p, n2_p); with unit costs the distance is n1 + n2 - (2 s + r) over mapped pairs
    (s of cost 0, r replaced), so at least n1 + n2 - sum_p (M_p + min(n1_p, n2_p)).
    """
    (paths1, parents1), (paths2, parents2) = t1.tag_path_counts, t2.tag_path_counts
    kept: dict[int, int] = {}
    for key, count in paths1.items():
        other = paths2.get(key)
        if other:
            kept[key[0]] = kept.get(key[0], 0) + min(count, other)
    for parent, count in parents1.items():
        other = parents2.get(parent)
        if other:
            kept[parent] = kept.get(parent, 0) + min(count, other)
    return len(t1) + len(t2) - sum(kept.values())


def same_template(t1: Tree, t2: Tree, threshold: float = CLUSTER_SIMILARITY,
                  costs: CostModel = STRUCTURE_COSTS) -> bool:
    """True when the two pages are at least `threshold` similar (one cluster, section 4.1)."""
    return similarity(t1, t2, threshold, costs) >= threshold


# --- the baseline: plain top-down distance --------------------------------------------------

def top_down_distance(t1: Tree, t2: Tree, costs: CostModel = UNIT_COSTS) -> float:
    """The (unrestricted) top-down edit distance, Yang's recursion with no short-cut.

    Every mapped pair costs replace(a, b) plus the alignment of its children, whatever the
    labels; no identical-subtree, leaf or threshold short-cut. This is the quadratic
    baseline of Figure 10. `costs.cut`/`absorb` are not used.
    """
    ctx = _Context(t1, t2, costs, INF, keep=False)
    return _run(ctx, _plain_frame(ctx, 0, 0), _plain_frame)


def _plain_frame(ctx: _Context, a: int, b: int) -> Frame:
    """replace(a, b) + the edit distance of the children sequences of a and b."""
    t1, t2, costs = ctx.t1, ctx.t2, ctx.costs
    ca, cb = t1.children[a], t2.children[b]
    del_tree, ins_tree = ctx.del_tree, ctx.ins_tree
    prev = _first_row(ins_tree, cb)
    for x in ca:
        cur = [prev[0] + del_tree[x]]
        for j, y in enumerate(cb, 1):
            best = prev[j - 1] + (yield (x, y))
            best = min(best, prev[j] + del_tree[x], cur[j - 1] + ins_tree[y])
            cur.append(best)
        prev = cur
    return costs.replace(t1, a, t2, b) + prev[len(cb)]
