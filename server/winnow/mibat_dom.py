"""The tree MiBAT (`mibat`) works on: the page's elements in preorder arrays, with each
node's visible text length and the candidate pivots (the lowest visible nodes holding a post
date, in text, a `datetime` or a date `title`; dates in hidden, collapsed branches apart).

Pure: it reads an lxml tree.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

from lxml.html import HtmlElement

from winnow.dates import parse_date, parse_datetime_attr
from winnow.page import HIDING_ATTRS, Page, has_any_ids, is_hidden
from winnow.tree import LabelOptions, ReadTree, Tree, read_tree

DATE_CACHE_SIZE = 8192
"""Short texts whose date test is remembered (a few pages' worth)."""

DATE_ATTRS = ("datetime", "title", "data-time", "data-timestamp", "data-date")
"""Attributes whose value may hold a machine-readable post date (a candidate pivot)."""

_DATE_ATTR_SET = frozenset(DATE_ATTRS)
_HIDING_ATTR_SET = frozenset(HIDING_ATTRS)
NAMING_ATTRS = frozenset({"role", "id"})
"""The attributes of the nodes `DomTree.named` lists."""

DATE_INLINE_TAGS = frozenset({"span", "abbr", "time"})
"""Inline tags a page writes a date in: one tag for matching (`_dates_one_tag`)."""

DATE_TAG = "time"
"""The tag candidate pivots in DATE_INLINE_TAGS are matched as."""

MAX_PIVOT_TEXT = 150
"""Nodes with more text than this are never pivots. The pivot is the lowest node *containing*
the post date (section 4.2), which often holds the author and a title too ("Post by mfkl »
23 Jul 2018 09:58"); a long text is a post body, whose dates are not the record's."""

CHANGE_NOTE_RE = re.compile(
    r"edited|modified|updated|revised|bearbeitet|geändert|aktualisiert|modifié|édité|"
    r"mis à jour|editado|modificado|actualizado|atualizado|modificato|aggiornato|bewerkt|"
    r"gewijzigd|bijgewerkt|изменен|отредактирован|обновлен|编辑|編輯|編集|修改|更新", re.I)
"""Labels of a change note ("This post was last modified: <date>", "Zuletzt bearbeitet
am"): a date after one in its node's text is when the post was edited, not written, so the
node is no candidate pivot (a post's edit note would break its alignment with the records
whose date line has none, and its date line holding both stays the candidate)."""

MAX_PIVOT_HIDDEN_TEXT = 2000
"""A node with short visible text is never a pivot when its text, hidden parts included, is
longer than this: a folded menu or form, not a date line (and parsing 18,000 characters for a
date costs 30 ms)."""


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
    read: ReadTree | None = None
    """The page as `tree.read_tree` read it (element numbers, raw texts): ECON's counts
    start from it too (`article.page_stats`)."""
    named: tuple[int, ...] = ()
    """The nodes with a role or an id attribute (NAMING_ATTRS), in document order, found in
    the look at each element's attribute names that finds the dated and hiding ones: the
    page's folded panels (`folded`) and main containers (`mainregion`) are among them, and
    a few dozen elements of a page's hundreds are asked for them instead of all."""
    hiding: frozenset[int] = frozenset()
    """The nodes `page.is_hidden` holds for (their own attribute hides them), before hiding
    is handed down to their subtrees: ECON's counts of the page know them by it
    (`TreeStats.hidden`)."""

    @property
    def elements(self) -> Sequence[HtmlElement]:
        assert self.tree.elements is not None
        return self.tree.elements


def page_dom(page: Page) -> DomTree:
    """`dom_tree` of the page's body, built once per page: extraction and learning both
    read it."""
    dom = page.derived.get("mibat_dom")
    if dom is None:
        dom = page.derived["mibat_dom"] = dom_tree(page.body, with_ids=has_any_ids(page))
    return cast(DomTree, dom)


def dom_tree(root: HtmlElement, with_ids: bool = True) -> DomTree:
    """Build the arrays and classify candidate pivots bottom-up in one pass.

    Preorder puts every child after its parent, so walking the nodes backwards finishes a
    node's subtree before the node: each pass adds a node's count to its parent's. Hidden
    elements and elements with date attributes are few; one look at each element's
    attribute names finds them. Without `with_ids` (no element carries a `data-wn` id) the
    tree's ids are not read.
    """
    read = read_tree(root, LabelOptions(with_text=False), with_ids=with_ids)
    tree = read.tree
    elements = tree.elements
    assert elements is not None
    n = len(tree)
    parents = tree.parents
    dated, hiding, named = _marked(elements)
    hidden = [False] * n
    for v in hiding:
        hidden[v] = is_hidden(elements[v])
    hides = frozenset(v for v in hiding if hidden[v])
    all_len = _text_lengths(tree, [False] * n)
    if any(hidden):  # handed down to the hidden elements' subtrees
        for v in range(1, n):
            if hidden[parents[v]]:
                hidden[v] = True
        text_len = _text_lengths(tree, hidden)
    else:  # nothing hidden: the visible lengths are all the lengths
        text_len = list(all_len)
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
                and all_len[v] <= MAX_PIVOT_HIDDEN_TEXT \
                and _is_pivot_node(elements[v], length, v in dated, short[v]):
            marks[v] = True
            counts[v] = 1
        if parents[v] >= 0:
            counts[parents[v]] += counts[v]
    tree = _dates_one_tag(tree, cand, collapsed)
    return DomTree(tree, cand, below, text_len, hidden, collapsed, all_len, read, named, hides)


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
    return dataclasses.replace(tree, tags=tuple(tags), labels=tuple(labels))


def _marked(elements: Sequence[HtmlElement]) -> tuple[set[int], set[int], tuple[int, ...]]:
    """The nodes with a date attribute (DATE_ATTRS), the nodes with an attribute that may
    hide them (HIDING_ATTRS) and the nodes with a role or an id (NAMING_ATTRS). Each
    element's attribute names come in one call: an XPath query for the nine names walked
    the tree once per name, a third slower."""
    dated: set[int] = set()
    hiding: set[int] = set()
    named: list[int] = []
    for v, names in enumerate(map(HtmlElement.keys, elements)):
        if names:
            if not _DATE_ATTR_SET.isdisjoint(names):
                dated.add(v)
            if not _HIDING_ATTR_SET.isdisjoint(names):
                hiding.add(v)
            if not NAMING_ATTRS.isdisjoint(names):
                named.append(v)
    return dated, hiding, tuple(named)


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
    if length and _holds_date((el.text_content() if text is None else text).strip()):
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
    and dates from record to record (and pages of a site repeat them too). The caller strips
    the text: a node and the one element inside it mostly differ only by the whitespace
    around their text, and that whitespace never decides whether `parse_date` finds a date
    (its patterns look past a date's edges only for what must not be there, a letter, a
    digit or a separator), so the two share one entry: a fifth fewer parses on WCXB. A date
    behind a change note's label (CHANGE_NOTE_RE) is an edit's, no post date."""
    match = parse_date(text)
    return match is not None and CHANGE_NOTE_RE.search(text, 0, match.start) is None
