"""Article extraction, stage 2: the snippet-node and the climb to the summary-node.

ECON's Joint-para and snippet, the short-page search next to the title's heading, and the
backtracking with its stops: a density stop, blurbs added after the child, and a child that
is one record of a teaser list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from winnow import econ
from winnow.article_candidates import (
    INLINE_TAGS,
    MIN_PROSE_CHARS,
    MIN_TEASERS,
    PARAGRAPH_TAGS,
    are_teasers,
    children,
    is_prose,
    kind_of,
)
from winnow.econ import TreeStats
from winnow.page import HEADING_TAGS

ITEM_TAGS = frozenset({"li", "dt", "dd", "td", "th", "figcaption", "caption"})
_CELL_TAGS = frozenset({"td", "th"})
MAX_LABEL_CHARS = 40
"""Text without punctuation up to this length (non-link chars) is a label, not the end of the
article: a climb over it is tentative (see `_backtrack`)."""


MIN_PARENT_GAIN = 0.2
"""Backtracking stops when the parent adds less than this share of the child's punctuation
(ECON stops at exactly 0: noise with a stray comma no longer pulls the summary-node up)."""


MIN_FRAGMENTS = 3
"""Text-paras the child must hold before the fragment stop below can judge its paragraphs."""


MIN_ADDED_FRAGMENTS = 4
FRAGMENT_SHARE = 0.5
MAX_FRAGMENT_CHARS = 500
"""Backtracking also stops when the parent adds, after the child, at least
MIN_ADDED_FRAGMENTS text-paras, none longer than FRAGMENT_SHARE of the child's longest one
nor than MAX_FRAGMENT_CHARS (blurbs, not a second run of paragraphs)."""


LOW_DENSITY_STOP = 0.8
"""...and the text the parent adds is this much sparser in punctuation than the child's."""


LOOKAHEAD_LEVELS = 6
MIN_AHEAD_GAIN = 1.0
"""Where the climb would stop, an ancestor up to LOOKAHEAD_LEVELS text-adding steps above the
stop (wrappers that add nothing are free) that adds at least MIN_AHEAD_GAIN times the
summary-node's punctuation, as densely (LOW_DENSITY_STOP), and a paragraph as long as the
article's (not blurbs), continues the article: page builders (Divi, Elementor, Webflow,
Gutenberg columns) put each run of paragraphs in a module of its own, with a heading or an
image module between them that adds a label and stops the climb one module short."""


MIN_PROSE_RECORDS = 0.75
"""Share of an element's siblings of its tag and class that must hold prose for it to be one
entry of a list that is the article (see `_prose_record`)."""


RECORD_REACH = 4
"""Levels above an unpunctuated line within which an entry of a list of prose entries makes
it that entry's field (see `_record_field`)."""


HEADING_WRAPPER_LEVELS = 3
"""Levels of wrappers holding nothing but a heading through which it still labels the block
that follows them (see `_wrapper_heads_content`)."""


BOLD_TAGS = frozenset({"b", "strong"})
"""Inline tags whose line, all the text of its block, is set as a heading."""

MIN_WRAPPED_LINES = 3
"""Adjacent blocks, each all one inline-wrapped line of plain text, that make a list written
as lines rather than a lone label (see `_wrapped_line`)."""


MAX_LINK_DENSITY = 0.5
SHORT_PAGE_CHARS = 500
"""A page whose longest text-para is shorter than this is a short page (ECON IV.C)."""


class Climb(NamedTuple):
    """What `summary_node` found."""

    summary: int
    snippet: int
    pruned: list[int]
    """Joint-para's pruned nodes."""
    snippet_chars: int
    """The snippet's prose characters."""
    near_heading: bool = False
    """The snippet was looked for near the title's heading (a short page): without the
    heading, the climb would have found the same nodes otherwise."""


def summary_node(stats: TreeStats, heading: int | None = None,
                 keep_code: bool = False) -> Climb | None:
    """ECON's summary-node, snippet-node, Joint-para's pruned nodes and the snippet's prose
    characters, backtracking on link-free punctuation with a density stop.

    On short pages (the paper's weak spot) a sidebar's "about me" is often longer than the
    story; there, with the title's heading known, the snippet is the longest text-para in
    the smallest container around the heading that holds one. With `keep_code` (a page
    leaning to documentation), Joint-para prunes no preformatted block of plain text
    (`_in_code`).
    """
    paras = econ.text_node_sets(stats)
    kept, pruned = econ.joint_para(paras)
    records: dict[int, bool] = {}
    pruned = [i for i in pruned if not _heads_content(stats, i) and not _list_item(stats, i)
              and not _in_formula(stats, i) and not (keep_code and _in_code(stats, i))
              and not _record_field(stats, i, records) and not _wrapped_line(stats, i)]
    near: list[econ.TextPara] = []
    if heading is not None and kept and max(map(prose_chars, kept)) < SHORT_PAGE_CHARS:
        near = _near(stats, kept, heading)
        kept = near or kept
    snippet = econ.snippet_node(kept, size=prose_chars)
    if snippet is None:
        return _short_page(stats, paras)
    return Climb(_backtrack(stats, snippet, kept), snippet, pruned, max(map(prose_chars, kept)),
                 bool(near))


def _heads_content(stats: TreeStats, i: int) -> bool:
    """A heading that labels the block after it (`_labels_next`): Joint-para must not prune
    it for its own lack of punctuation (a subheading above a list or a table)."""
    return stats.tags[i] in HEADING_TAGS and _labels_next(stats, i)


def _labels_next(stats: TreeStats, i: int) -> bool:
    """True when the block after `i`, past further headings and blocks without text (a
    figure, a spacer), has sentences, or when `i` is all the text of its wrappers and the
    block after them has (`_wrapper_heads_content`)."""
    after = i
    while after == i or stats.tags[after] in HEADING_TAGS or not stats.chars[after]:
        after = stats.end[after]
        if after >= len(stats.elements) or stats.parent[after] != stats.parent[i]:
            return after == stats.end[i] and _wrapper_heads_content(stats, i)
        if stats.excluded[after]:
            return False
    return stats.content_punc(after) > 0


def _wrapper_heads_content(stats: TreeStats, i: int) -> bool:
    """A heading that is all the text of its wrappers (up to HEADING_WRAPPER_LEVELS: a page
    builder's heading module) labels the block after the outermost of them, when that block
    has sentences."""
    node = i
    for _ in range(HEADING_WRAPPER_LEVELS):
        parent = stats.parent[node]
        if parent <= 0 or stats.content_chars(parent) != stats.content_chars(i):
            return False
        node = parent
        after = stats.end[node]
        if after < len(stats.elements) and stats.parent[after] == stats.parent[node]:
            return not stats.excluded[after] and stats.content_punc(after) > 0
    return False


def _list_item(stats: TreeStats, i: int) -> bool:
    """List items, table cells and captions of plain text (names, ingredients, figures) are
    content without punctuation; only link-heavy ones are navigation. A table row is kept
    or dropped whole: a linked title cell belongs to the row that describes it."""
    tag = stats.tags[i]
    if tag in _CELL_TAGS and stats.parent[i] >= 0:
        return _row_has_text(stats, stats.parent[i])
    return tag in ITEM_TAGS and stats.link_density(i) <= MAX_LINK_DENSITY


def _wrapped_line(stats: TreeStats, i: int) -> bool:
    """Plain (unlinked) text in an inline wrapper that is all the text of its block (`<div>
    <span>1 large onion</span></div>`) is a line of the text where the same line written
    straight into its block would be: that one joins its prose siblings' text-para, the
    wrapped one is a text-para of its own, which Joint-para prunes for want of punctuation.
    It is kept when it is a sentence that lost its full stop (MIN_PROSE_CHARS or more), a
    bold line that heads a block with sentences (a subheading set in `<strong>`), or one
    of a run of MIN_WRAPPED_LINES or more such blocks (a list written as lines:
    ingredients). A lone short wrapped line is a label (a dateline, "More on this", a
    video's title), as Joint-para has it."""
    block = stats.parent[i]
    return (block > 0 and _is_wrapped_line(stats, i, block)
            and (stats.chars[i] >= MIN_PROSE_CHARS
                 or stats.tags[i] in BOLD_TAGS and _labels_next(stats, block)
                 or _run_length(stats, block) >= MIN_WRAPPED_LINES))


def _is_wrapped_line(stats: TreeStats, i: int, block: int) -> bool:
    """`i` is an inline wrapper of plain text that is all the text of `block`."""
    return (stats.tags[i] in INLINE_TAGS and stats.tags[block] not in INLINE_TAGS
            and stats.link_density(i) <= MAX_LINK_DENSITY
            and stats.chars[block] == stats.chars[i] > 0)


def _run_length(stats: TreeStats, block: int) -> int:
    """Adjacent siblings of `block` of its tag that, like it, hold one wrapped line."""
    kids = children(stats, stats.parent[block])
    at = kids.index(block)

    def line(k: int) -> bool:
        return (stats.tags[k] == stats.tags[block]
                and any(_is_wrapped_line(stats, j, k) for j in children(stats, k)))

    before = next((n for n, k in enumerate(reversed(kids[:at])) if not line(k)), at)
    after = next((n for n, k in enumerate(kids[at + 1:]) if not line(k)), len(kids) - at - 1)
    return before + 1 + after


def _row_has_text(stats: TreeStats, row: int) -> bool:
    """True when a cell of the row holds sentences or plain (unlinked) text."""
    return any(stats.content_punc(j) or stats.link_density(j) <= MAX_LINK_DENSITY
               for j in children(stats, row) if stats.tags[j] in _CELL_TAGS)


def _record_field(stats: TreeStats, i: int, records: dict[int, bool]) -> bool:
    """Plain (unlinked) text within RECORD_REACH levels of an entry of a list of prose
    entries (`_prose_record`) is one of its fields: a place's name, area and cuisine above
    its paragraph belong to it, as a linked title cell belongs to its table row. `records`
    caches the test per element."""
    if stats.link_density(i) > MAX_LINK_DENSITY:
        return False
    a = stats.parent[i]
    for _ in range(RECORD_REACH):
        if a <= 0:
            return False
        if a not in records:
            records[a] = _prose_record(stats, a)
        if records[a]:
            return True
        a = stats.parent[a]
    return False


def _in_formula(stats: TreeStats, i: int) -> bool:
    """Parts of a MathML formula are content without punctuation: the formula is text."""
    return _within(stats, i, "math")


def _in_code(stats: TreeStats, i: int) -> bool:
    """A preformatted block (or a part of one) of plain text is code or a listing: content
    without punctuation ("npm install x", a shell command), as a formula is. Only a
    link-heavy one is navigation."""
    return stats.link_density(i) <= MAX_LINK_DENSITY and _within(stats, i, "pre")


def _within(stats: TreeStats, i: int, tag: str) -> bool:
    """Whether element `i` or one of its ancestors below the body is a `tag`."""
    while i > 0:
        if stats.tags[i] == tag:
            return True
        i = stats.parent[i]
    return False


def _near(stats: TreeStats, paras: list[econ.TextPara], heading: int) -> list[econ.TextPara]:
    """The text-paras inside the lowest ancestor of `heading` that contains any."""
    a = stats.parent[heading]
    while a >= 0:
        inside = [p for p in paras if a < p.nodes[0] < stats.end[a]]
        if inside:
            return inside
        a = stats.parent[a]
    return []


def prose_chars(para: econ.TextPara) -> int:
    return para.chars - para.link_chars


def _short_page(stats: TreeStats, paras: list[econ.TextPara]) -> Climb | None:
    """The paper's weak spot: no text-para has punctuation (a one-line page, a caption-only
    photo page). Take the longest non-link text-para's parent, pruning nothing. A page whose
    few words sit right in <body>, or in paragraphs a link wraps, is its own summary-node;
    a page of bare links is not an article."""
    snippet = econ.snippet_node([p for p in paras if prose_chars(p)], size=prose_chars)
    if snippet is not None:
        return Climb(max(stats.parent[snippet], 0), snippet, [], 0)
    if stats.content_chars(0) or _link_wraps_blocks(stats):
        return Climb(0, 0, [], 0)
    return None


def _link_wraps_blocks(stats: TreeStats) -> bool:
    """True when a link holds paragraphs: a script-driven page, not a navigation link."""
    return any(stats.is_link[i] and not stats.excluded[i]
               and any(stats.tags[j] in PARAGRAPH_TAGS for j in range(i + 1, stats.end[i]))
               for i in range(len(stats.elements)))


def _backtrack(stats: TreeStats, snippet: int, paras: Sequence[econ.TextPara]) -> int:
    """Climb like ECON, but look through steps that add (almost) no text.

    A parent that adds no text, or only a short label without punctuation (a step heading,
    a wrapper's caption), or that is the card of one entry of a list of prose entries
    (`_prose_record`), gives distance 0 without saying the article ended, so the climb
    goes on tentatively; it is kept only if a later step adds real sentences. When the climb
    stops (`_stops`, or a parent adding only fragments among the text-paras `paras`), the
    lowest element of the last real step is the summary-node.
    """
    best = child = snippet
    parent = stats.parent[child]
    while parent >= 0:
        added = stats.content_chars(parent) - stats.content_chars(child)
        gain = stats.content_punc(parent) - stats.content_punc(child)
        if gain <= 0 and (added <= MAX_LABEL_CHARS or _prose_record(stats, parent)):
            child, parent = parent, stats.parent[parent]
            continue
        if (_stops(stats, child, parent) and not _more_of_the_same(stats, child, parent, snippet)
                or _adds_fragments(stats, child, parent, paras)
                or _among_teasers(stats, child, parent)):
            ahead = _continues_above(stats, best, parent, paras)
            if ahead is None:
                return best
            parent = ahead
        child, parent = parent, stats.parent[parent]
        best = child
    return best


def _prose_record(stats: TreeStats, i: int) -> bool:
    """True when `i` is one of MIN_TEASERS or more siblings of its tag and class that hold
    prose (MIN_PROSE_RECORDS of them: a date line or a breadcrumb of its kind aside): an
    entry of a list that is the article (a ranked list of places, each a card with a name,
    stars and buttons above its paragraph), whose card adds a label longer than
    MAX_LABEL_CHARS without saying the article ended."""
    kind = kind_of(stats.elements[i])
    same = [k for k in children(stats, stats.parent[i])
            if kind_of(stats.elements[k]) == kind and stats.chars[k]]
    prose = sum(1 for k in same if is_prose(stats, k))
    return prose >= MIN_TEASERS and prose >= MIN_PROSE_RECORDS * len(same)


def _continues_above(stats: TreeStats, best: int, stop: int,
                     paras: Sequence[econ.TextPara]) -> int | None:
    """The lowest ancestor from `stop` up (LOOKAHEAD_LEVELS steps that add text, never
    <body>) whose step from
    `best` adds MIN_AHEAD_GAIN times its punctuation, as densely as `best` (LOW_DENSITY_STOP)
    and a paragraph of its length (`_adds_paragraphs`): the rest of an article split into
    sibling modules. None when there is none."""
    punc = stats.content_punc(best)
    density = punc / max(stats.content_chars(best), 1)
    ancestor, steps, chars = stop, 0, stats.content_chars(best)
    while ancestor > 0 and steps < LOOKAHEAD_LEVELS:
        gain = stats.content_punc(ancestor) - punc
        added = stats.content_chars(ancestor) - stats.content_chars(best)
        if (gain >= MIN_AHEAD_GAIN * max(punc, 1)
                and gain / max(added, 1) >= LOW_DENSITY_STOP * density
                and _adds_paragraphs(stats, best, ancestor, paras)):
            return ancestor
        if stats.content_chars(ancestor) > chars:
            steps, chars = steps + 1, stats.content_chars(ancestor)
        ancestor = stats.parent[ancestor]
    return None


def _adds_paragraphs(stats: TreeStats, child: int, ancestor: int,
                     paras: Sequence[econ.TextPara]) -> bool:
    """True when the ancestor adds, before or after the child, a text-para as long as a
    paragraph of the child's (FRAGMENT_SHARE of its longest, or MAX_FRAGMENT_CHARS): more
    of the article, where a rail of teasers adds only blurbs."""
    inside, added = [0], [0]
    for para in paras:
        first = para.nodes[0]
        if econ.is_descendant(stats, first, child):
            inside.append(prose_chars(para))
        elif ancestor < first < stats.end[ancestor]:
            added.append(prose_chars(para))
    return max(added) >= min(FRAGMENT_SHARE * max(inside), MAX_FRAGMENT_CHARS)


def _adds_fragments(stats: TreeStats, child: int, parent: int,
                    paras: Sequence[econ.TextPara]) -> bool:
    """True when all the parent adds after the child are short snippets, much shorter than
    the child's longest text-para: a rail of teasers or a box of blurbs after a post, where
    a continued article adds paragraphs like its own. (What comes before the child is left alone: a
    header's standfirst, byline and caption are short too.)"""
    inside, after = [], []
    for para in paras:
        first = para.nodes[0]
        if econ.is_descendant(stats, first, child):
            inside.append(prose_chars(para))
        elif stats.end[child] <= first < stats.end[parent]:
            after.append(prose_chars(para))
    if len(after) < MIN_ADDED_FRAGMENTS or len(inside) < MIN_FRAGMENTS:
        return False
    return max(after) < min(FRAGMENT_SHARE * max(inside), MAX_FRAGMENT_CHARS)


def _among_teasers(stats: TreeStats, child: int, parent: int) -> bool:
    """True when the child is one record of a teaser list (MIN_TEASERS or more siblings of
    its tag and class, the others short and led by links): a "most popular" item that
    carries the full text of its story, which is the article; the list is not. A child
    that is itself a short link-led record is one entry of a list that is the content (a
    roundup of products, a list of services), and the climb goes on."""
    kind = kind_of(stats.elements[child])
    others = [k for k in children(stats, parent)
              if k != child and stats.chars[k] and kind_of(stats.elements[k]) == kind]
    return (len(others) >= MIN_TEASERS - 1 and are_teasers(stats, others)
            and not are_teasers(stats, [child]))


def _more_of_the_same(stats: TreeStats, child: int, parent: int, snippet: int) -> bool:
    """True when the parent adds, beside the child, paragraphs of the snippet's own kind (tag
    and class) with sentences: the article's body split around an embed or a "read more"
    wrapper, not a box beside it."""
    kind = kind_of(stats.elements[snippet])
    return any(j != child and stats.content_punc(j) and kind_of(stats.elements[j]) == kind
               for j in children(stats, parent))


def _stops(stats: TreeStats, child: int, parent: int) -> bool:
    """ECON's distance-0 rule, plus a stop when the parent adds few, sparse sentences."""
    child_punc = stats.content_punc(child)
    gain = stats.content_punc(parent) - child_punc
    if gain <= 0:
        return True
    if gain >= MIN_PARENT_GAIN * child_punc:
        return False
    added_chars = stats.content_chars(parent) - stats.content_chars(child)
    child_density = child_punc / max(stats.content_chars(child), 1)
    added_density = gain / max(added_chars, 1)
    return added_density < LOW_DENSITY_STOP * child_density
