"""The lead before the body: prose between the title's header and the summary-node.

Many templates put the article's opening paragraph (an intro, a lead field) in a container
of its own between the headline's block and the body's: ECON's summary-node is the body's
container, and its backtracking stops before the wrapper they share, which also holds the
header's furniture. The lead is recovered here: walking up from the summary-node to the
lowest ancestor it shares with the title's heading, the blocks before it on each level,
back to the heading's own branch, that hold sentences (`_is_lead`) join it; short blocks
without sentences between them (a date, a picture's credit, a share bar) are passed over
and left out, and a box with a heading, a time or a label of its own (highlights, a
synopsis, a slideshow's item) is no lead. The heading's branch itself (the header with its
standfirst, byline and date) gives no lead: a dek is shown with the title, and readability's
and WCXB's golds leave it out (taking it cost them, while Fundus's and Dragnet's keep it).
The summary-node becomes the shared ancestor, with all of it but the lead blocks and the
old summary-node dropped.
"""

from __future__ import annotations

from winnow import econ
from winnow.article_candidates import children
from winnow.econ import TreeStats
from winnow.edges import TEXT_LINE_TAGS
from winnow.page import HEADING_TAGS

MAX_LABEL_CHARS = 30
"""Characters of a box's label (a block of its own, no punctuation): 'Synopsis'."""

MIN_LEAD_CHARS = 100
MIN_LEAD_PUNC = 2
"""Characters and punctuation marks outside links a lead block needs: sentences (as
`is_prose` asks of prose)."""

MAX_LEAD_LINK_DENSITY = 0.3
"""Share of a lead block's text that may be link text: more is a teaser or a link list."""

MIN_LINKS_DENSITY = 0.5
"""Share of link text from which a block without sentences is links (passed over too)."""

MAX_SKIPPED_CHARS = 200
"""Characters a block without prose may have and still be passed over on the way back to
the heading (a byline, a dateline, a caption): a longer one is another part of the page."""


def lead_blocks(stats: TreeStats, summary: int, heading: int | None,
                drop: set[int]) -> tuple[int, list[int]]:
    """The new summary-node and what to drop in it when prose blocks lie between the title's
    heading and the summary-node (see the module's docstring); else `summary` and nothing."""
    if heading is None or heading >= summary or stats.excluded[heading]:
        return summary, []
    top = _common_ancestor(stats, heading, summary)
    if top == heading:
        return summary, []
    before, after = _between(stats, summary, top, heading)
    leads = _leads(stats, before)
    if not leads:
        return summary, []
    keep = set(leads)
    out = [k for k in before + after if k not in keep]
    out.extend(_outside(stats, summary, top, heading))
    return top, [k for k in out if k not in drop]


def _outside(stats: TreeStats, summary: int, top: int, heading: int) -> list[int]:
    """What lies under `top` outside the stretch from the heading to the summary-node: the
    heading's branch up to the heading, the heading, and all after the summary-node."""
    found: list[int] = []
    node = summary
    while node != top:
        parent = stats.parent[node]
        found.extend(k for k in children(stats, parent) if k > node)
        node = parent
    node = heading
    found.append(heading)
    while node != top:
        parent = stats.parent[node]
        found.extend(k for k in children(stats, parent) if k < node)
        node = parent
    return found


def _leads(stats: TreeStats, before: list[int]) -> list[int]:
    """The lead blocks among `before` (the blocks outside the heading's branch before the
    summary-node, nearest first, `_between`), up to the first that is neither a lead nor
    short."""
    found: list[int] = []
    for k in before:
        if stats.excluded[k] or stats.chars[k] == 0:
            continue
        if _is_lead(stats, k):
            found.append(k)
        elif not _passed_over(stats, k):
            break
    return found


def _between(stats: TreeStats, summary: int, top: int, heading: int
             ) -> tuple[list[int], list[int]]:
    """The outermost blocks after the heading and before the summary-node under `top`, in
    reverse document order: those outside the heading's branch (before the summary-node on
    each level up to `top`), and those in it (after the heading on each level from `top`
    down to it: the header's dek, byline and date)."""
    before: list[int] = []
    node = summary
    while stats.parent[node] != top:
        parent = stats.parent[node]
        before.extend(reversed([k for k in children(stats, parent) if k < node]))
        node = parent
    beside = [k for k in children(stats, top) if k < node]
    branch = next((k for k in beside if econ.is_descendant(stats, heading, k)), None)
    before.extend(reversed([k for k in beside if branch is not None and k > branch]))
    after: list[int] = []
    node = heading
    while node != branch and node is not None and node != top:
        parent = stats.parent[node]
        after.extend(reversed([k for k in children(stats, parent) if k > node]))
        node = parent
    return before, after


def _passed_over(stats: TreeStats, i: int) -> bool:
    """A block the walk back to the heading passes: short (MAX_SKIPPED_CHARS), or links
    without sentences (a table of contents, a share bar, MIN_LINKS_DENSITY)."""
    return (stats.chars[i] <= MAX_SKIPPED_CHARS
            or stats.link_density(i) > MIN_LINKS_DENSITY and stats.content_punc(i) <= 1)


def _is_lead(stats: TreeStats, i: int) -> bool:
    """A block of sentences of its own words (MIN_LEAD_CHARS, MIN_LEAD_PUNC,
    MAX_LEAD_LINK_DENSITY) that is no box (`_boxed`)."""
    return (stats.content_punc(i) >= MIN_LEAD_PUNC and stats.content_chars(i) >= MIN_LEAD_CHARS
            and stats.link_density(i) <= MAX_LEAD_LINK_DENSITY and not _boxed(stats, i))


def _boxed(stats: TreeStats, i: int) -> bool:
    """A block with a heading, a time or a label of its own in it: a box (highlights, a
    synopsis, a byline with its date, a slideshow's item), not the article's lead."""
    for k in range(i + 1, stats.end[i]):
        tag = stats.tags[k]
        if tag in HEADING_TAGS or tag == "time":
            return True
        if tag not in TEXT_LINE_TAGS and 0 < stats.chars[k] <= MAX_LABEL_CHARS \
                and stats.punc[k] == 0:
            return True
    return False


def _common_ancestor(stats: TreeStats, a: int, b: int) -> int:
    """The lowest element whose subtree holds both `a` and `b`."""
    node = a
    while not econ.is_descendant(stats, b, node):
        node = stats.parent[node]
    return node
