"""ECON (Guo et al., 2010): the article body of a news page from punctuation counts.

The paper's steps, each a function here:

1. big-nodes (III.B): elements that are the father of a text node, or inline/line-breaking
   tags that break news text into pieces (<p>, <br>, headings, font and emphasis tags, ...).
2. text-node-sets: maximal runs of adjacent sibling big-nodes; the text they wrap together is
   a text-para.
3. Joint-para: a text-para with punc-num 0 is noise and its nodes are pruned; the others are
   output.
4. The snippet-node: a node of the set wrapping the longest text-para.
5. Backtracking to the summary-node: climb from the snippet-node; the first step whose
   distance (node-punc-num of the parent minus that of the child) is 0 stops, and the child
   is the summary-node.

Everything works on `TreeStats`, one bottom-up pass over the tree that counts characters and
punctuation per subtree, so no step re-reads text and nothing recurses: a 2,000-level page
costs the same stack as a flat one. The module is pure: no I/O, no clock.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from lxml.html import HtmlElement

PUNCTUATION = ".,;:!?" + "。，、！？；：" + "،؛؟" + "．，！？；：｡､"
"""Marks counted as punc-num. The paper counts period and comma (III.B) and notes that CJK
and Arabic pages use their own periods (IV.D); the issue adds ! ? ; : in each script."""

_LATIN_MARKS = PUNCTUATION[:6]
_PUNCT_RE = re.compile(f"[{re.escape(PUNCTUATION)}]"
                       rf"(?:(?<![{re.escape(_LATIN_MARKS)}])|(?!\w))")
"""Latin marks count only where they end a word: the dot of 3.5, the colons of 4:36:00 and
the comma of 15,303 are not punctuation of prose (stock tickers and timestamps are noise).
The regex starts with one character class, all the marks, which the regex engine scans a
text for in C (the plain alternation of the two was tried at every position)."""

BIG_NODE_TAGS = frozenset({
    "p", "br", "h1", "h2", "h3", "h4", "h5", "h6", "b", "strong", "em", "i", "u", "font",
    "span", "a", "small", "big", "sup", "sub", "blockquote", "li", "td", "th", "dt", "dd",
    "caption", "figcaption", "code", "q", "cite", "mark", "abbr", "time",
})
"""Tags the paper lists as big-nodes whatever their text (III.B, condition 2): they break
news text into pieces. The scanned list is partly illegible; these are the line-breaking,
paragraph and inline-formatting tags it names or clearly means."""


def punc_num(text: str) -> int:
    """Count the punctuation marks of `text` (the paper's punc-num)."""
    return len(_PUNCT_RE.findall(text))


@dataclass
class TreeStats:
    """Per-element counts, indexed by document order (0 is the root of the pass).

    `end[i]` is one past the last element of i's subtree, so i's descendants are
    `range(i + 1, end[i])`.
    `chars`/`punc` cover the element's whole subtree; `link_chars`/`link_punc` the part of it
    inside <a> elements. `own_chars` is the text directly under the element (its text nodes),
    which makes it the father of a text node when positive. Excluded elements count zero.
    """

    elements: list[HtmlElement]
    index: dict[HtmlElement, int]
    parent: list[int]
    own_chars: list[int]
    own_punc: list[int]
    is_link: list[bool]
    chars: list[int]
    punc: list[int]
    link_chars: list[int]
    link_punc: list[int]
    end: list[int]
    excluded: list[bool]
    tags: list[str]
    """Each element's tag, read once (lxml makes a new string on every read of `.tag`)."""
    noise_hints: dict[int, bool] = field(default_factory=dict)
    """`article_candidates.is_noise_hint` of elements by index, with its default flags, as
    asked so far (see `article_candidates.noise_hint`): shared by the copies of a page's stats
    (`copy_stats`), as the elements are."""
    texts: dict[int, str] = field(default_factory=dict)
    """`article_candidates.text_of` of elements by index, as asked so far: shared by the
    copies of a page's stats like `noise_hints` (the trimming rules of every pass and the
    main region's twins read the same elements' texts; the page's tree does not change
    under its counts)."""
    hidden: frozenset[int] | None = None
    """The elements `page.is_hidden` holds for, when the reading of the page found them
    (`mibat_dom.DomTree.hiding`; see `article_candidates.hidden_at`); None when unknown."""
    text_sizes: list[int] = field(default_factory=list, repr=False)
    """The non-space characters of the elements' own texts, summed in document order from 0
    (`text_size`)."""

    def text_size(self, i: int) -> int:
        """The non-space characters of element i's whole text (its `text_content`, excluded
        parts too): elements of one text, whitespace aside, are of one size, so a search for
        repeated texts (`article_trim.twin_blocks`) reads the texts of few."""
        return self.text_sizes[self.end[i]] - self.text_sizes[i]


    def content_punc(self, i: int) -> int:
        """Punctuation outside links: link text is navigation more often than news."""
        return self.punc[i] - self.link_punc[i]

    def content_chars(self, i: int) -> int:
        return self.chars[i] - self.link_chars[i]

    def link_density(self, i: int) -> float:
        return self.link_chars[i] / self.chars[i] if self.chars[i] else 0.0


def _visible_len(text: str | None) -> int:
    return len(text.strip()) if text else 0


def collect_stats(root: HtmlElement) -> TreeStats:
    """Count characters and punctuation per subtree in one pass, children before parents.

    An element's own text is its .text and the tails of its children (comments' too), joined
    by spaces; a node's tail is filed with its parent as the preorder walk meets the node,
    which keeps each parent's tails in document order.
    """
    elements: list[HtmlElement] = []
    index: dict[HtmlElement, int] = {}
    parent: list[int] = []
    parts: list[list[str]] = []
    for node in root.iter():
        up = index[node.getparent()] if node is not root else -1
        if isinstance(node.tag, str):
            index[node] = len(elements)
            elements.append(node)
            parent.append(up)
            parts.append([node.text or ""])
        if up >= 0 and node.tail:
            parts[up].append(node.tail)
    return _counted(elements, index, parent,
                    [" ".join(texts) if len(texts) > 1 else texts[0] for texts in parts])


def stats_from_arrays(elements: Sequence[HtmlElement], index: dict[HtmlElement, int],
                      parent: Sequence[int], texts: Sequence[str],
                      tails: Sequence[str], tags: Sequence[str]) -> TreeStats:
    """`collect_stats` of a subtree of elements only (no comments), read already into
    preorder arrays: each element, its number, its parent's number (-1 for the root), its
    .text and its .tail ("" for None; the root's tail is not read) and its .tag."""
    own = list(texts)
    parts: dict[int, list[str]] = {}  # the elements with children's tails: their pieces
    for i in range(1, len(own)):
        if tails[i]:
            up = parent[i]
            pieces = parts.get(up)
            if pieces is None:
                pieces = parts[up] = [texts[up]]
            pieces.append(tails[i])
    for i, pieces in parts.items():
        own[i] = " ".join(pieces)
    return _counted(list(elements), index, list(parent), own, list(tags))


def _counted(elements: list[HtmlElement], index: dict[HtmlElement, int], parent: list[int],
             own: list[str], tags: list[str] | None = None) -> TreeStats:
    """The stats of preorder elements with their own texts (see `collect_stats`) and their
    tags when the caller read them already."""
    n = len(elements)
    chars = [_visible_len(t) for t in own]
    if tags is None:
        tags = [el.tag for el in elements]
    stats = TreeStats(elements, index, parent, chars,
                      [punc_num(t) if c else 0 for t, c in zip(own, chars, strict=True)],
                      [tag == "a" for tag in tags], [], [], [], [], _ends(parent),
                      [False] * n, tags)
    stats.text_sizes = list(accumulate([len("".join(t.split())) if t else 0 for t in own],
                                       initial=0))
    _aggregate(stats)
    return stats


def _ends(parent: list[int]) -> list[int]:
    """One past the last element of each element's subtree (preorder parents)."""
    end = list(range(1, len(parent) + 1))
    for i in range(len(parent) - 1, 0, -1):
        p = parent[i]
        if end[i] > end[p]:
            end[p] = end[i]
    return end


def copy_stats(stats: TreeStats) -> TreeStats:
    """A copy of `stats` that `exclude_subtrees` may change while `stats` stays as it is (the
    element arrays are shared: nothing changes them, and the counts are replaced, not
    changed in place)."""
    return dataclasses.replace(stats, excluded=list(stats.excluded))


def exclude_subtrees(stats: TreeStats, roots: Iterable[int]) -> None:
    """Make the subtrees under `roots` count for nothing (hidden nodes, known noise)."""
    excluded = stats.excluded
    for i in roots:
        excluded[i] = True
    for i in range(1, len(excluded)):
        if excluded[stats.parent[i]]:
            excluded[i] = True
    _aggregate(stats)


def _aggregate(stats: TreeStats) -> None:
    """Sum own counts into subtree counts, skipping excluded elements (`end`, which no
    exclusion changes, is set once, by `_ends`)."""
    n = len(stats.elements)
    parent, excluded = stats.parent, stats.excluded
    own_chars, own_punc, is_link = stats.own_chars, stats.own_punc, stats.is_link
    chars, punc = [0] * n, [0] * n
    link_chars, link_punc = [0] * n, [0] * n
    for i in range(n - 1, -1, -1):
        if excluded[i]:
            continue
        subtree_chars = chars[i] + own_chars[i]
        subtree_punc = punc[i] + own_punc[i]
        chars[i], punc[i] = subtree_chars, subtree_punc
        if is_link[i]:
            link_chars[i], link_punc[i] = subtree_chars, subtree_punc
        p = parent[i]
        if p >= 0:
            chars[p] += subtree_chars
            punc[p] += subtree_punc
            link_chars[p] += link_chars[i]
            link_punc[p] += link_punc[i]
    stats.chars, stats.punc = chars, punc
    stats.link_chars, stats.link_punc = link_chars, link_punc


def is_big_node(stats: TreeStats, i: int) -> bool:
    """III.B: the father of a text node, or a tag that breaks news text into pieces."""
    if stats.excluded[i]:
        return False
    return stats.own_chars[i] > 0 or stats.tags[i] in BIG_NODE_TAGS


@dataclass(frozen=True)
class TextPara:
    """A text-node-set (adjacent sibling big-nodes) and the counts of the text it wraps."""

    nodes: tuple[int, ...]
    chars: int
    punc: int
    link_chars: int = 0


def text_node_sets(stats: TreeStats) -> list[TextPara]:
    """Group every parent's children into maximal runs of adjacent big-nodes.

    Text nodes are siblings too: the text before a run (the parent's leading text or the
    tail of the node that broke the previous run) and the tails of its members belong to
    the run, so `<p>by <a>the Ministry</a> on Tuesday, it said.</p>` is one text-para.
    Descendants of a big-node are not grouped again: they are already part of the text-para
    of that big-node, and `<tt><span>rsync</span></tt>` inside a sentence is no
    text-para of its own (Joint-para would prune it for having no punctuation).
    """
    n = len(stats.elements)
    big = [is_big_node(stats, i) for i in range(n)]
    in_text = [False] * n
    children: dict[int, list[int]] = {}
    for i in range(1, n):
        p = stats.parent[i]
        in_text[i] = p > 0 and (in_text[p] or big[p])
        if p >= 0 and not stats.excluded[i] and not in_text[i]:
            children.setdefault(p, []).append(i)
    sets: list[TextPara] = []
    for p, kids in children.items():
        lead = stats.elements[p].text
        run: list[int] = []
        for i in kids:
            if big[i]:
                run.append(i)
                continue
            if run:
                sets.append(_text_para(stats, run, lead))
                run = []
            lead = stats.elements[i].tail
        if run:
            sets.append(_text_para(stats, run, lead))
    return sets


def _text_para(stats: TreeStats, run: list[int], lead: str | None) -> TextPara:
    texts = [lead or ""] + [stats.elements[i].tail or "" for i in run]
    return TextPara(
        nodes=tuple(run),
        chars=sum(stats.chars[i] for i in run) + sum(_visible_len(t) for t in texts),
        punc=sum(stats.punc[i] for i in run) + sum(punc_num(t) for t in texts if t),
        link_chars=sum(stats.link_chars[i] for i in run),
    )


def joint_para(sets: Iterable[TextPara]) -> tuple[list[TextPara], list[int]]:
    """Split text-paras into output (punc-num > 0) and the nodes of noise ones (punc-num 0)."""
    kept: list[TextPara] = []
    pruned: list[int] = []
    for para in sets:
        if para.punc == 0:
            pruned.extend(para.nodes)
        else:
            kept.append(para)
    return kept, pruned


def snippet_node(paras: list[TextPara],
                 size: Callable[[TextPara], float] | None = None) -> int | None:
    """The first node of the longest text-para (the paper picks any node of that set)."""
    if not paras:
        return None
    measure = size or (lambda para: para.chars)
    best = max(paras, key=measure)
    return best.nodes[0]


def backtrack(stats: TreeStats, snippet: int,
              punc: Callable[[int], int] | None = None) -> int:
    """Climb from the snippet-node until the distance first appears 0; return the child.

    distance = node-punc-num(parent) - node-punc-num(child). Reaching the root of the pass
    without a 0 distance makes the root the summary-node.
    """
    count = punc or (lambda i: stats.punc[i])
    child = snippet
    parent = stats.parent[child]
    while parent >= 0:
        if count(parent) - count(child) == 0:
            return child
        child, parent = parent, stats.parent[parent]
    return child


@dataclass
class EconResult:
    """The summary-node, the nodes Joint-para pruned inside it, and the snippet-node."""

    summary: int
    snippet: int
    pruned: list[int]


def extract_news(root: HtmlElement) -> EconResult | None:
    """The paper's Extract-news, faithfully: None when no text-para has punctuation."""
    stats = collect_stats(root)
    kept, pruned = joint_para(text_node_sets(stats))
    snippet = snippet_node(kept)
    if snippet is None:
        return None
    summary = backtrack(stats, snippet)
    inside = [i for i in pruned if is_descendant(stats, i, summary)]
    return EconResult(summary=summary, snippet=snippet, pruned=inside)


def is_descendant(stats: TreeStats, i: int, ancestor: int) -> bool:
    """True when element `i` lies in the subtree of element `ancestor` (itself included)."""
    return ancestor <= i < stats.end[ancestor]
