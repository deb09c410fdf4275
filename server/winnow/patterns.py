"""ne-patterns (Reis et al., 2004, section 4): a site template as a tree with wildcards.

- Definition 5: wildcards are leaves of four kinds, SINGLE (.) one subtree, PLUS (+) one or
  more sibling subtrees, OPTION (?) zero or one, KLEENE (*) zero or more.
- Composition (4.2, Definition 6): RTDM with unit costs maps pattern and page, equality
  being "same label" (two wildcards are equal iff of the same kind, since a wildcard's label
  is its kind); every mapped pair becomes f(a, b) and every unmapped vertex f(a, ?), with
  the whole unmapped or replaced subtree collapsing into that one wildcard leaf.
- Promotion (4.2): "every wildcard followed by a set of option wildcards" becomes one
  variable-size wildcard, PLUS when that wildcard is SINGLE or PLUS, else KLEENE, and the
  wildcards may be up to `MAX_PROMOTION_GAP` non-wildcard vertices apart, those vertices
  merged in. We read "followed by options" as: the run holds at least one OPTION after its
  first wildcard; two SINGLEs side by side (title, byline) are not merged, since nothing
  shows them to be a list. (Merging every run instead scored the same on the Big9 pages but
  fused titles with bylines.)
- Matching (4.3, Definition 7): RTDM with the cost model A-H (`MatchCosts`); an infinite
  cost means the pattern does not accept the page.
- Extraction and labelling (4.3-4.4): the text each wildcard consumes, in pattern preorder,
  then the body (longest passage over 100 terms) and the title (1 to 20 terms, before the
  body, most terms shared with the body per vertex of distance).

Nodes mapped to fixed (non-wildcard) pattern vertices are template; nodes consumed by
wildcards are data (`Match.template_nodes`, `Match.consumed`). Patterns serialize to
versioned JSON; nothing is pickled or evaluated. The module is pure: no I/O, no clock.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from winnow.rtdm import INF, CostModel, rtdm
from winnow.tree import LabelOptions, Tree, TreeError, from_arrays

SINGLE, PLUS, OPTION, KLEENE = ".", "+", "?", "*"
WILDCARDS = (SINGLE, PLUS, OPTION, KLEENE)
WILDCARD_LABELS = {kind: f"<{kind}>" for kind in WILDCARDS}
"""A wildcard's label (and tag): '<' never occurs in a parsed tag name, so no page vertex
can carry it and the equality operator of 4.2 (same kind) is plain label equality."""
_KIND_OF_LABEL = {label: kind for kind, label in WILDCARD_LABELS.items()}

MAX_PROMOTION_GAP = 3
"""4.2: wildcards separated by at most 3 non-wildcard vertices can still be merged into one
variable-size wildcard, the vertices between them included (see `promote`)."""

BODY_MIN_TERMS = 100
"""4.4, body labelling: the body is the longest passage with more than 100 terms."""

TITLE_MAX_TERMS = 20
"""4.4, title labelling: a title has from 1 to 20 terms."""

PATTERN_VERSION = 1
PATTERN_FORMAT = "winnow.ne-pattern"

MATCH_EPSILON = sys.float_info.max
"""Matching threshold for RTDM lines 15-16: any finite cost passes, an infinite prefix cost
(the pattern already rejected) stops the comparison of the pairs after it."""

VIOLATION_COST = 1e9
"""Tolerant matching (not in the paper): the finite cost of one vertex breaking rule B, F or
H, far above the total of the OPTION/KLEENE removals (G, cost 1 each) of any real pattern,
so the cost divided by it counts the violations."""

_F_TABLE: dict[tuple[str, str], str] = {
    (KLEENE, KLEENE): KLEENE, (KLEENE, PLUS): KLEENE, (KLEENE, OPTION): KLEENE,
    (KLEENE, SINGLE): KLEENE, (KLEENE, "n"): KLEENE,
    (PLUS, PLUS): PLUS, (PLUS, SINGLE): PLUS, (PLUS, OPTION): KLEENE, (PLUS, "n"): PLUS,
    (SINGLE, SINGLE): SINGLE, (SINGLE, OPTION): OPTION, (SINGLE, "n"): SINGLE,
    (OPTION, OPTION): OPTION, (OPTION, "n"): OPTION,
}
"""4.2, the composition f(a, b) for a wildcard and a wildcard or a non-wildcard vertex n;
argument order does not matter. (The scan's f(., .) = * in the fourth row is f(*, .).)"""

_TERM_RE = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
    r"|[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
"""Terms for 4.4's lengths: words, except that each Han, kana or Hangul character counts as
one term, since those scripts do not separate words by spaces."""


class PatternError(ValueError):
    """A pattern (or its JSON) is malformed; the message says why."""


def compose_kind(a: str | None, b: str | None, same_label: bool) -> str | None:
    """f(a, b) of 4.2 on kinds (None = a non-wildcard vertex); None means "keep a"."""
    if a is None and b is None:
        return None if same_label else SINGLE
    key = (a or "n", b or "n")
    return _F_TABLE.get(key) or _F_TABLE[(key[1], key[0])]


@dataclass(frozen=True, eq=False)
class Pattern:
    """An ne-pattern: a tree whose wildcard vertices carry `WILDCARD_LABELS`.

    `pages` counts the pages composed into it; `options` are the label options every page
    must be built with to be composed with or matched against it.
    """

    tree: Tree
    pages: int = 1
    options: LabelOptions = LabelOptions()

    def kind(self, v: int) -> str | None:
        """The wildcard kind of vertex v, or None for a fixed (template) vertex."""
        return _KIND_OF_LABEL.get(self.tree.labels[v])

    def wildcards(self) -> list[int]:
        """The wildcard vertices in preorder (the positions p_i of 4.4)."""
        return [v for v, lab in enumerate(self.tree.labels) if lab in _KIND_OF_LABEL]

    def fixed(self) -> list[int]:
        """The fixed vertices: what every page of the template shares."""
        return [v for v, lab in enumerate(self.tree.labels) if lab not in _KIND_OF_LABEL]

    def to_json(self) -> dict[str, Any]:
        """A versioned JSON-ready dict (lists of strings and integers only)."""
        return {"format": PATTERN_FORMAT, "version": PATTERN_VERSION, "pages": self.pages,
                "label_options": self.options.to_json(),
                "tree": self.tree.to_json(with_text=False)}

    @classmethod
    def from_json(cls, data: Any) -> Pattern:
        """Load `to_json` output; raise `PatternError` on a wrong format, version or tree."""
        if not isinstance(data, dict) or data.get("format") != PATTERN_FORMAT:
            raise PatternError(f"not an ne-pattern: expected format {PATTERN_FORMAT!r}")
        if data.get("version") != PATTERN_VERSION:
            raise PatternError(f"unsupported ne-pattern version {data.get('version')!r}; "
                               f"this code reads version {PATTERN_VERSION}")
        pages = data.get("pages")
        if not isinstance(pages, int) or isinstance(pages, bool) or pages < 1:
            raise PatternError("'pages' must be a positive integer")
        try:
            tree = Tree.from_json(data.get("tree"))
            options = LabelOptions.from_json(data.get("label_options", {}))
        except TreeError as exc:
            raise PatternError(f"bad ne-pattern tree: {exc}") from exc
        _check_wildcards_are_leaves(tree)
        return cls(tree=tree, pages=pages, options=options)


def _check_wildcards_are_leaves(tree: Tree) -> None:
    for v, lab in enumerate(tree.labels):
        if lab in _KIND_OF_LABEL and tree.children[v]:
            raise PatternError(f"wildcard vertex {v} has children; wildcards are leaves")


def pattern_of(tree: Tree, options: LabelOptions | None = None) -> Pattern:
    """A page tree seen as an ne-pattern without wildcards (4.2). The pattern keeps the
    tree's structure only (`Tree.structure`, as its JSON does): a cluster's pattern of one
    page would otherwise keep that page's whole DOM alive."""
    return Pattern(tree=tree.structure(), pages=1, options=options or LabelOptions())


# --- composition (4.2) -------------------------------------------------------------------

Item = tuple[str, int, int]
"""A vertex of the composed pattern before it is emitted: ("pair", a, b) for a mapped pair,
("one1", a, 0) / ("one2", b, 0) for an unmapped vertex of either side, ("wild", k, 0) for a
promoted wildcard whose kind is WILDCARDS[k]."""


class _Composer:
    """Build T3 = T1 o T2 from an RTDM mapping, in preorder, with an explicit stack."""

    def __init__(self, t1: Tree, t2: Tree, forward: Sequence[int]) -> None:
        self.t1, self.t2, self.forward = t1, t2, forward
        self.tags: list[str] = []
        self.labels: list[str] = []
        self.parents: list[int] = []

    def kind(self, item: Item) -> str | None:
        """The kind the item will have in T3 (None: a fixed vertex copied from T1)."""
        what, x, y = item
        if what == "wild":
            return WILDCARDS[x]
        if what == "pair":
            same = self.t1.labels[x] == self.t2.labels[y]
            return compose_kind(_KIND_OF_LABEL.get(self.t1.labels[x]),
                                _KIND_OF_LABEL.get(self.t2.labels[y]), same)
        tree = self.t1 if what == "one1" else self.t2
        return compose_kind(_KIND_OF_LABEL.get(tree.labels[x]), OPTION, False)

    def build(self) -> Tree:
        stack: list[tuple[Item, int]] = [(("pair", 0, 0), -1)]
        while stack:
            item, parent = stack.pop()
            kind = self.kind(item)
            index = len(self.labels)
            self.parents.append(parent)
            if kind is not None:
                self.tags.append(WILDCARD_LABELS[kind])
                self.labels.append(WILDCARD_LABELS[kind])
                continue
            _, x, y = item
            self.tags.append(self.t1.tags[x])
            self.labels.append(self.t1.labels[x])
            kids = promote(self.children(x, y), self.kind)
            stack.extend((kid, index) for kid in reversed(kids))
        return from_arrays(self.tags, self.labels, self.parents)

    def children(self, a: int, b: int) -> list[Item]:
        """The children of the mapped pair (a, b) in order: mapped pairs, and unmapped
        children of either side where they fall (deleted ones before inserted ones)."""
        items: list[Item] = []
        cb = self.t2.children[b]
        k = 0
        for x in self.t1.children[a]:
            y = self.forward[x]
            if y < 0:
                items.append(("one1", x, 0))
                continue
            while cb[k] != y:
                items.append(("one2", cb[k], 0))
                k += 1
            items.append(("pair", x, y))
            k += 1
        items.extend(("one2", y, 0) for y in cb[k:])
        return items


def promote(items: list[Item], kind_of: Callable[[Item], str | None]) -> list[Item]:
    """4.2's post-processing on one sibling list.

    A run of wildcards, each at most `MAX_PROMOTION_GAP` non-wildcard siblings from the
    next, in which the first wildcard is followed by at least one OPTION wildcard, becomes
    one wildcard spanning the run, the non-wildcards included: PLUS when the first is SINGLE
    or PLUS, else KLEENE. The options are the evidence of a variable-size object; a run of
    wildcards without one (a title next to a byline) keeps its objects apart.
    """
    kinds: list[str | None] = [kind_of(item) for item in items]
    out: list[Item] = []
    i = 0
    while i < len(items):
        first = kinds[i]
        if first is None:
            out.append(items[i])
            i += 1
            continue
        last, gap, j = i, 0, i + 1
        while j < len(items) and gap <= MAX_PROMOTION_GAP:
            if kinds[j] is not None:
                last, gap = j, 0
            else:
                gap += 1
            j += 1
        if OPTION not in kinds[i + 1:last + 1]:
            out.extend(items[i:last + 1])
            i = last + 1
            continue
        merged = PLUS if first in (SINGLE, PLUS) else KLEENE
        out.append(("wild", WILDCARDS.index(merged), 0))
        i = last + 1
    return out


def compose(pattern: Pattern, other: Pattern | Tree) -> Pattern:
    """T1 o T2 (Definition 6): a pattern accepting every tree either input accepts.

    `other` is a page tree (built with `pattern.options`) or another pattern.
    """
    other_pattern = other if isinstance(other, Pattern) else pattern_of(other, pattern.options)
    if other_pattern.options != pattern.options:
        raise PatternError("cannot compose trees built with different label options")
    t1, t2 = pattern.tree, other_pattern.tree
    mapping = rtdm(t1, t2)
    tree = _Composer(t1, t2, mapping.forward).build()
    return Pattern(tree=tree, pages=pattern.pages + other_pattern.pages,
                   options=pattern.options)


def compose_all(trees: Iterable[Tree], options: LabelOptions | None = None) -> Pattern:
    """Compose a cluster's pages one after the other into its ne-pattern (4.2)."""
    result: Pattern | None = None
    for tree in trees:
        result = pattern_of(tree, options) if result is None else compose(result, tree)
    if result is None:
        raise PatternError("a pattern needs at least one page")
    return result


# --- matching (4.3) ----------------------------------------------------------------------

class MatchCosts(CostModel):
    """Definition 7's cost model, t1 being the pattern and t2 the page.

    Replacement: (A) a wildcard, 0; (B) otherwise infinite (identical vertices cost 0, they
    are not replaced). Insertion: (C) under a consumed ancestor, 0 (in `cut`); (D)/(E) after
    a sibling consumed by a KLEENE/PLUS wildcard, 0 (in `absorb`); (F) otherwise infinite.
    Removal: (G) an OPTION or KLEENE wildcard, 1; (H) otherwise infinite.

    `violation` replaces the infinite cost of B, F and H per vertex; the paper's model is
    `violation = INF`. A finite value (`VIOLATION_COST`) gives the tolerant matching of
    `match(..., tolerance=k)`, which is not in the paper.
    """

    def __init__(self, violation: float = INF) -> None:
        self.violation = violation

    def delete_costs(self, tree: Tree) -> list[float]:
        return [1.0 if _KIND_OF_LABEL.get(lab) in (OPTION, KLEENE) else self.violation
                for lab in tree.labels]

    def insert_costs(self, tree: Tree) -> list[float]:
        return [self.violation] * len(tree)

    def replace(self, t1: Tree, a: int, t2: Tree, b: int) -> float:
        if t1.labels[a] in _KIND_OF_LABEL or t1.labels[a] == t2.labels[b]:
            return 0.0
        return self.violation

    def cut(self, t1: Tree, a: int, t2: Tree, b: int, below_a: float, below_b: float) -> float:
        if t1.labels[a] in _KIND_OF_LABEL:
            return 0.0
        return self.replace(t1, a, t2, b) + below_a + below_b

    def absorbs(self, t1: Tree, a: int) -> bool:
        return _KIND_OF_LABEL.get(t1.labels[a]) in (PLUS, KLEENE)

    def absorb(self, t1: Tree, a: int, t2: Tree, b: int) -> float:
        return 0.0


MATCH_COSTS = MatchCosts()


@dataclass(frozen=True)
class Match:
    """A mapping of a pattern onto a page tree.

    `fixed[a]` is the page node mapped to fixed pattern vertex a (-1 for wildcards and for
    vertices the page lacks); `consumed[w]` the page subtree roots wildcard w consumes, in
    document order (empty for a discarded OPTION/KLEENE). `violations` counts the vertices
    that break Definition 7 (always 0 unless matched with a tolerance).
    """

    cost: float
    pattern: Pattern
    tree: Tree
    fixed: tuple[int, ...]
    consumed: dict[int, tuple[int, ...]]
    violations: int = 0

    def template_nodes(self) -> list[int]:
        """Page nodes mapped to identical fixed pattern vertices: the page's template."""
        labels, page = self.pattern.tree.labels, self.tree.labels
        return sorted(b for a, b in enumerate(self.fixed) if b >= 0 and labels[a] == page[b])

    def consumed_nodes(self, wildcard: int) -> list[int]:
        """Every page node (roots and their descendants) the wildcard consumes."""
        return [v for root in self.consumed.get(wildcard, ()) for v in self.tree.subtree(root)]

    def unexplained_nodes(self) -> list[int]:
        """Page nodes neither template nor consumed (only under a tolerance)."""
        known = set(self.template_nodes())
        for w in self.consumed:
            known.update(self.consumed_nodes(w))
        return [v for v in range(len(self.tree)) if v not in known]


def match(pattern: Pattern, tree: Tree, tolerance: int = 0) -> Match | None:
    """Match the page `tree` against `pattern` (4.3); None when the pattern rejects it.

    With `tolerance` k > 0 (not in the paper) the page is accepted when at most k vertices
    break Definition 7 (a fixed vertex missing or different, a page vertex nothing accounts
    for); the mapping minimises their number, and the wildcards still say what is data.
    """
    if tolerance <= 0:
        result = rtdm(pattern.tree, tree, MATCH_COSTS, MATCH_EPSILON)
        if result.distance == INF:
            return None
        violations = 0
    else:
        epsilon = (tolerance + 1) * VIOLATION_COST - 1
        result = rtdm(pattern.tree, tree, MatchCosts(VIOLATION_COST), epsilon)
        violations = int(result.distance // VIOLATION_COST)
        if violations > tolerance:
            return None
    consumed: dict[int, list[int]] = {w: [] for w in pattern.wildcards()}
    for w in consumed:
        if result.forward[w] >= 0:
            consumed[w].append(result.forward[w])
    for w, root in result.absorbed:
        consumed[w].append(root)
    fixed = tuple(-1 if pattern.kind(a) is not None else b
                  for a, b in enumerate(result.forward))
    return Match(cost=result.distance, pattern=pattern, tree=tree, fixed=fixed,
                 consumed={w: tuple(sorted(roots)) for w, roots in consumed.items()},
                 violations=violations)


# --- extraction and labelling (4.3-4.4) --------------------------------------------------

@dataclass(frozen=True)
class Passage:
    """The text one wildcard consumed: (t_i, p_i) of 4.4, with its page nodes."""

    wildcard: int
    """p_i: the wildcard's preorder position in the pattern."""
    kind: str
    text: str
    roots: tuple[int, ...]
    nodes: tuple[int, ...]
    wn_ids: tuple[int, ...]
    terms: int


@dataclass(frozen=True)
class Extraction:
    """The passages of a matched page in pattern preorder, and the labelled title/body."""

    match: Match
    passages: tuple[Passage, ...]
    title: Passage | None
    body: Passage | None


def terms(text: str) -> list[str]:
    """The lower-cased terms of a passage (see `_TERM_RE`)."""
    return _TERM_RE.findall(text.lower())


def passages(m: Match) -> list[Passage]:
    """4.3: walk the pattern in preorder; each wildcard yields the text it consumed."""
    out: list[Passage] = []
    tree = m.tree
    for w in m.pattern.wildcards():
        roots = m.consumed.get(w, ())
        if not roots:
            continue
        text = "\n".join(t for t in (tree.subtree_text(r) for r in roots) if t)
        nodes = tuple(m.consumed_nodes(w))
        ids = tuple(i for i in (tree.wn_ids[v] for v in nodes) if i is not None)
        kind = m.pattern.kind(w) or SINGLE
        out.append(Passage(w, kind, text, roots, nodes, ids, len(terms(text))))
    return out


def label(found: Sequence[Passage]) -> tuple[Passage | None, Passage | None]:
    """4.4's heuristics: (title, body).

    Body: the longest passage, when it has more than `BODY_MIN_TERMS` terms. Title: among
    passages before the body with 1 to `TITLE_MAX_TERMS` terms, the one maximising
    |terms shared with the body| / (p_body - p_title); ties go to the closest. The paper
    writes p_j - p_i, negative for a title before the body; the prose ("the closest one to
    the body") means the distance. No body, or no shared term, means no title.
    """
    body = max(found, key=lambda p: p.terms, default=None)
    if body is None or body.terms <= BODY_MIN_TERMS:
        return None, None
    body_terms = set(terms(body.text))
    best: Passage | None = None
    best_score = 0.0
    for p in found:
        if p.wildcard >= body.wildcard or not 1 <= p.terms <= TITLE_MAX_TERMS:
            continue
        score = len(set(terms(p.text)) & body_terms) / (body.wildcard - p.wildcard)
        if score > 0 and score >= best_score:
            best, best_score = p, score
    return best, body


def extract(pattern: Pattern, tree: Tree, tolerance: int = 0) -> Extraction | None:
    """Match, extract the passages and label title and body; None when no match."""
    m = match(pattern, tree, tolerance)
    if m is None:
        return None
    found = passages(m)
    title, body = label(found)
    return Extraction(match=m, passages=tuple(found), title=title, body=body)
