"""Article extraction, stage 3: trimming inside the summary-node.

Joined sibling parts, and what goes inside the article: link
lists and noise-named blocks with few sentences (Readability's conditional cleaning), link
lines leading and blocks trailing the article's text on the snippet's path, a flat comment
section after its heading and a box of other posts after its label, ad-slot labels, author
boxes (a bio under the writer's linked name).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet

from lxml.html import HtmlElement

from winnow import article_names as names_mod
from winnow import econ
from winnow.article_candidates import (
    children,
    class_names,
    is_prose,
    kind_of,
    list_in_prose,
    prose_parents,
    text_of,
)
from winnow.article_climb import (
    MAX_LABEL_CHARS,
    MAX_LINK_DENSITY,
)
from winnow.econ import TreeStats
from winnow.page import HEADING_TAGS

COMMENTS_HEADING_RE = re.compile(
    r"^(\d+\s+(comments?|responses?|replies|reactions)\b"
    r"|(comments|responses|replies|reactions|discussion)\s*(\(\d+\))?\s*:?$"
    r"|(leave a (comment|reply)|post a comment|add a comment|join the discussion)\b)", re.I)
"""Headings that open a comment section ("Comments", "12 Responses", "Leave a Reply")."""
"""Class/id words of comment sections: noise for the article even when they are long."""


RELATED_LABEL_RE = re.compile(
    r"^\W*(related (posts?|articles?|stories|reading|content|reads)"
    r"|you (may|might) also (like|enjoy)|more from\b.*|recommended( for you)?|keep reading"
    r"|more (articles|stories|posts)( like this)?)\W*$", re.I)
"""The whole text of a label that opens a box of other posts ("Related posts", "You might
also like", "More from CFR", "Read next")."""

LABEL_TAGS = HEADING_TAGS | {"div", "p", "section", "header"}
"""Tags of a label on its own line."""

RELATED_MAX_SHARE = 0.5
"""At most this share of the summary-node's text lies from a related label on: more is
the article going on after a label that introduced a link inside it."""


TAIL_LINK_DENSITY = 0.5
"""Blocks after the article with more link text than this are link lists, not prose."""


MAX_ANNOTATED_LINK_DENSITY = 0.7
MIN_ANNOTATED_ITEMS = 1 / 3
"""A list in the article's text is kept, links and all, when this share of its items have
words outside their links (an item's link density below the maximum)."""


LEGAL_NOTICE_RE = re.compile(
    r"^\W*(©|\(c\)\s*\d{4}|copyright\b)|all rights reserved|may not be (re)?published", re.I)


POST_FOOTER_RE = re.compile(
    r"^\W*((tags|categories|category|filed under|labels)\s*:"
    r"|posted in\b[^.]*(\||\bcomments?\b)"
    r"|this (entry|post) was (posted|written)\b|this was written by\b"
    r"|you can follow any responses to this entry"
    r"|listed below are links to (weblogs|blogs) that reference"
    r"|sign[ -]?up\b|subscribe\b|join our (newsletter|mailing list|list)\b"
    r"|follow (me|us) on\b|to receive these\b|stay up[ -]to[ -]date\b)",
    re.I)
"""The lines blog engines print under a post (WordPress, Blogger, TypePad): its tags and
categories, when it was posted, its feed and trackbacks; and the calls to subscribe or
follow that close a post ("Sign up for our newsletter", "Follow me on Twitter")."""


AD_LABEL_RE = re.compile(
    r"^\W*(advertisements?|sponsored|(story|article) continues( below)?|"
    r"(continue reading|advertisement continues) below)\W*$", re.I)
"""The whole text of a label that marks an ad slot inside an article's body."""


TAIL_BLOCK_TAGS = frozenset({"div", "section", "aside", "footer", "p", "ul", "ol", "dl", "table"})
"""Blocks after the article's text that a noise word in their names makes a tail (an inline
element's names say less: an unclosed byline <span> can swallow a post)."""


MAX_NOTICE_CHARS = 400
"""A copyright line or rights notice this short, after the article's text, is its footer."""


SIGNUP_MAX_CHARS = 400
"""A sign-up box around an e-mail field holds at most this much text outside links (a
heading, a pitch of a sentence or two, the form's labels and fine print); more is content
the field sits in."""

SIGNUP_MAX_SHARE = 0.2
"""And at most this share of the summary-node's text outside links: on a short page the
box that fits under SIGNUP_MAX_CHARS may be the article itself, its comment form inside."""


ITEM_TAGS = frozenset({"li", "dt", "dd", "tr", "td", "th"})
"""Items of a list or table, and all inside them, are never twins: the same line in two
pricing plans' feature lists, or in two rows of a table, is a feature both have."""

MIN_TWIN_CHARS = 80
"""Characters of text from which a block that repeats an earlier block's text word for word
is that block's twin and is left out: a responsive layout's mobile and desktop copies (a
site builder such as Framer renders a whole post once per screen size, the others hidden
by CSS), a product's description or a card shown twice. Shorter repeats are labels,
prices and buttons that recur for a reason. In an article's body a twin must also be a
section (MIN_TWIN_PARTS)."""

VERBATIM_TAGS = frozenset({"math", "pre", "code", "table"})
"""Blocks whose short parts repeat for a reason (a formula's symbols, a listing's keywords, a
comparison table's values): no card twins are searched in them."""

CARD_TWIN_CHARS = 600
"""Characters of text the smallest block around two copies of a short text may hold for the
later copy to be a twin (`card_twins`): one card or teaser (its title on its picture's link
and in its heading, its whole text once per screen size), not a list of records, whose
fields repeat from record to record (a price, a rating, a date)."""

MIN_TWIN_PARTS = 2
"""Children with text a block of an article's body must have to be a twin (`twin_blocks`):
a copy of a section, not a paragraph the post says twice."""

FEW_SENTENCES = 10
"""Punctuation marks below which a noise-named block is pruned (Readability: 10 commas)."""

AUTHOR_PATH_RE = re.compile(r"/(authors?|contributors?|writers?)/[^/?#]+", re.I)
"""A link's path to a writer's page (`/author/jane-doe/`): the name in an author box."""

MIN_BIO_CHARS = 80
"""Characters from which a block that opens with the linked writer's name is a bio (a
sentence or more about them), not a byline."""

MAX_BIO_BOX_CHARS = 1500
"""An author box holds at most this much text: the name, a photo's caption, a short bio
of a few sentences and links; more is the article the bio sits beside."""


def join_parts(stats: TreeStats, summary: int) -> tuple[int, list[int]]:
    """The summary-node's parent, and its children outside the article, when the article is
    split into sibling parts of one tag and a class that names content, with prose in each
    (a lead paragraph in its own `articleBody` before a photo, then the rest): Readability
    joins such siblings. Otherwise the summary-node itself and nothing to drop."""
    part = _named_part(stats, summary)
    kind = kind_of(stats.elements[part])
    if part == 0 or not names_mod.says_content(kind[1]):
        return summary, []
    parent = stats.parent[part]
    kids = children(stats, parent)
    parts = [k for k in kids if k != part and _same_kind(kind, kind_of(stats.elements[k]))
             and is_prose(stats, k)]
    if not parts:
        return summary, []
    first, last = min(parts + [part]), max(parts + [part])
    return parent, [k for k in kids if k < first or k > last]


def _same_kind(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Same tag, and the classes of one among the other's (`article_body` and
    `article_body entry-content`: a part marked first or lead by an extra class)."""
    if a[0] != b[0]:
        return False
    ca, cb = set(a[1].split()), set(b[1].split())
    return bool(ca and cb) and (ca <= cb or cb <= ca)


def _named_part(stats: TreeStats, summary: int) -> int:
    """The summary-node, or the lowest wrapper around it that adds no text and whose class
    names content (`<div class="article_body"><article>…`): the part that has siblings."""
    node = summary
    while node > 0 and not names_mod.says_content(kind_of(stats.elements[node])[1]):
        parent = stats.parent[node]
        if parent <= 0 or stats.content_chars(parent) != stats.content_chars(node):
            return summary
        node = parent
    return node


def signup_boxes(stats: TreeStats, summary: int, snippet: int,
                 fields: AbstractSet[int]) -> list[int]:
    """The boxes around the article's e-mail fields (`Page.address_fields`): a newsletter's
    sign-up, a "get our updates" pitch, a feedback form. A box is the widest ancestor of the
    field's parent, below the summary-node and off the snippet's path, with at most
    SIGNUP_MAX_CHARS of text (and SIGNUP_MAX_SHARE of the summary-node's): the pitch and the
    form's labels, not the prose beside them."""
    limit = min(SIGNUP_MAX_CHARS, SIGNUP_MAX_SHARE * stats.content_chars(summary))
    boxes: set[int] = set()
    for field in fields:
        if not summary < field < stats.end[summary]:
            continue
        box = None
        node = field
        while node != summary and stats.content_chars(node) <= limit \
                and not node <= snippet < stats.end[node]:
            box = node
            node = stats.parent[node]
        if box is not None and stats.chars[box]:
            boxes.add(box)
    return sorted(boxes)


def ad_labels(stats: TreeStats, summary: int) -> list[int]:
    """Elements inside the summary-node whose whole text labels an ad slot
    ("ADVERTISEMENT", "(Story continues below)")."""
    return [i for i in range(summary + 1, stats.end[summary])
            if 0 < stats.chars[i] <= MAX_LABEL_CHARS and not stats.excluded[i]
            and AD_LABEL_RE.match(text_of(stats, i))]


def trailing_noise(stats: TreeStats, summary: int, snippet: int, drop: AbstractSet[int],
                   class_hints: bool = True) -> list[int]:
    """Blocks after the article's text on each level from the summary-node down to the
    snippet: scanning back from the end, link lists ("Today's top stories", "Related
    links"), legal notices ("Copyright © 2009 ...", "All rights reserved"), the lines blog
    engines print under a post ("Tags: ...", "This entry was posted ...", "Subscribe ...")
    and blocks whose names say noise are template tails, up to the first block that is none
    of these. Past the text, no content word overrules a noise word: `article-author` is
    the author's box."""
    return _outer_noise(stats, _beside_path(stats, summary, snippet, drop, after=True),
                        lambda i: (stats.link_density(i) > TAIL_LINK_DENSITY
                                   or _short_notice(stats, i, LEGAL_NOTICE_RE)
                                   or _short_notice(stats, i, POST_FOOTER_RE)
                                   or class_hints and _named_tail(stats.elements[i])))


def leading_noise(stats: TreeStats, summary: int, snippet: int,
                  drop: AbstractSet[int]) -> list[int]:
    """Blocks before the article's text on each level from the summary-node down to the
    snippet: from the start, link lines without sentences (a breadcrumb, "« Previous |
    Main | Next »", category links, a share bar) up to the first block that is not one, or
    a heading."""
    return _outer_noise(stats, _beside_path(stats, summary, snippet, drop, after=False),
                        lambda i: (stats.link_density(i) > TAIL_LINK_DENSITY
                                   and stats.content_punc(i) <= 1
                                   and stats.tags[i] not in HEADING_TAGS))


def _beside_path(stats: TreeStats, summary: int, snippet: int, drop: AbstractSet[int],
                 after: bool) -> Iterator[list[int]]:
    """Per level from the summary-node down to the snippet, the kept blocks after (or
    before) the branch that leads to the snippet, outermost first."""
    path = _path(stats, summary, snippet)
    for node, on_path in zip(path, path[1:], strict=False):
        kids = [i for i in children(stats, node) if i not in drop and not stats.excluded[i]]
        if on_path not in kids:
            continue
        at = kids.index(on_path)
        yield kids[:at:-1] if after else kids[:at]


def _outer_noise(stats: TreeStats, levels: Iterable[list[int]],
                 is_noise: Callable[[int], bool]) -> list[int]:
    """On each level, the blocks from the outside in while they are noise (empty ones
    skipped), up to the first that is not."""
    found: list[int] = []
    for blocks in levels:
        for i in blocks:
            if stats.chars[i] == 0:
                continue
            if not is_noise(i):
                break
            found.append(i)
    return found


def author_boxes(stats: TreeStats, summary: int, snippet: int) -> list[int]:
    """Author boxes inside the summary-node: the lowest block around a link to a writer's
    page (`rel=author`, AUTHOR_PATH_RE) that also holds a bio opening with the writer's
    first name ("Jane Doe is a reporter ...", MIN_BIO_CHARS or more), off the snippet's
    path and at most MAX_BIO_BOX_CHARS. Whatever the box's class calls it (a plugin's
    `saboxplugin-wrap`, a builder's column), a bio under the writer's linked name is about
    the writer, not the article."""
    found: list[int] = []
    for link in range(summary + 1, stats.end[summary]):
        if not stats.is_link[link]:  # the name may be excluded as a byline, its bio not
            continue
        el = stats.elements[link]
        if not (el.get("rel") == "author" or AUTHOR_PATH_RE.search(el.get("href") or "")):
            continue
        name = text_of(stats, link).split()
        if not name:
            continue
        box = _bio_box(stats, summary, snippet, link, name[0])
        if box is not None and not any(econ.is_descendant(stats, box, f) for f in found):
            found.append(box)
    return found


def _bio_box(stats: TreeStats, summary: int, snippet: int, link: int, first: str
             ) -> int | None:
    """The lowest ancestor of `link` below the summary-node holding a bio that opens with
    `first` outside the link; None past MAX_BIO_BOX_CHARS or the snippet's path."""
    node = stats.parent[link]
    while node != summary and node > 0:
        if econ.is_descendant(stats, snippet, node) or stats.chars[node] > MAX_BIO_BOX_CHARS:
            return None
        for i in range(node + 1, stats.end[node]):
            if (not (link <= i < stats.end[link] or i <= link < stats.end[i])
                    and stats.chars[i] >= MIN_BIO_CHARS
                    and not stats.is_link[i] and stats.content_punc(i)
                    and _opens_with(text_of(stats, i), first)):
                return node
        node = stats.parent[node]
    return None


def _opens_with(text: str, first: str) -> bool:
    """Whether `text` opens with the word `first` ("Jane is", "Jane's"), not a longer one."""
    return text.startswith(first) and text[len(first):len(first) + 1] in (" ", "'", "\u2019")


def _named_tail(el: HtmlElement) -> bool:
    return el.tag in TAIL_BLOCK_TAGS and names_mod.says_noise_strictly(class_names(el))


def _short_notice(stats: TreeStats, i: int, notice: re.Pattern[str]) -> bool:
    """A block of at most MAX_NOTICE_CHARS whose text `notice` finds: a footer line."""
    return stats.chars[i] <= MAX_NOTICE_CHARS and bool(notice.search(text_of(stats, i)))


def comments_section(stats: TreeStats, summary: int, snippet: int) -> list[int]:
    """Everything from a "Comments" / "N Responses" heading after the article's text on:
    flat blog layouts put the comments in the article's own container, with nothing but
    that heading between them."""
    for i in range(snippet + 1, stats.end[summary]):
        if stats.tags[i] in HEADING_TAGS and COMMENTS_HEADING_RE.match(text_of(stats, i)):
            return _from_here_on(stats, summary, i)
    return []


def related_section(stats: TreeStats, summary: int, snippet: int) -> list[int]:
    """A box of other posts after the article's text: a label that opens it
    (RELATED_LABEL_RE) and the blocks after it, on its level and the levels above inside
    the summary-node, up to the first paragraph of prose or heading (the article going on
    after a box set in its middle), at most RELATED_MAX_SHARE of the summary-node's text.
    The teasers stand under their label whatever they look like (cards with blurbs and
    dates, a previous/next pair, a plain list)."""
    for i in range(snippet + 1, stats.end[summary]):
        if (0 < stats.chars[i] <= MAX_LABEL_CHARS and not stats.excluded[i]
                and RELATED_LABEL_RE.match(text_of(stats, i))):
            label = _label_block(stats, summary, i)
            if label is None:
                continue
            found = _from_here_on(stats, summary, label, _goes_on)
            dropped = sum(stats.chars[k] for k in found)
            return found if dropped <= RELATED_MAX_SHARE * stats.chars[summary] else []
    return []


def _goes_on(stats: TreeStats, j: int) -> bool:
    """Whether element `j` is a heading or a paragraph of prose: the article going on."""
    return stats.tags[j] in HEADING_TAGS or stats.tags[j] == "p" and is_prose(stats, j)


def _label_block(stats: TreeStats, summary: int, i: int) -> int | None:
    """The outermost element below the summary-node with the same text as `i`, when it is a
    block or a heading (LABEL_TAGS): a label on its own line, not the lead-in of a sentence
    ("Related reading: <a>...</a>") inside a paragraph."""
    while stats.parent[i] != summary and stats.chars[stats.parent[i]] == stats.chars[i]:
        i = stats.parent[i]
    return i if stats.tags[i] in LABEL_TAGS else None


def _from_here_on(stats: TreeStats, summary: int, start: int,
                  until: Callable[[TreeStats, int], bool] | None = None) -> list[int]:
    """`start` and every element after it inside `summary`, as outermost subtrees; with
    `until`, up to the first element it holds for."""
    found = [start]
    node = start
    while node != summary and node > 0:
        parent = stats.parent[node]
        j = stats.end[node]
        while j < stats.end[parent]:
            if until is not None and until(stats, j):
                return found
            found.append(j)
            j = stats.end[j]
        node = parent
    return found


def _path(stats: TreeStats, top: int, bottom: int) -> list[int]:
    """Elements from `top` down to `bottom`, both included."""
    path = [bottom]
    while path[-1] != top and path[-1] > 0:
        path.append(stats.parent[path[-1]])
    return path[::-1]


def excluded_roots(stats: TreeStats, summary: int) -> list[int]:
    """Outermost excluded elements inside the summary-node."""
    roots = []
    for i in range(summary + 1, stats.end[summary]):
        if stats.excluded[i] and not stats.excluded[stats.parent[i]]:
            roots.append(i)
    return roots


_BLOCKS = frozenset({"div", "ul", "ol", "table", "section", "dl", "form", "header"})


def link_lists(stats: TreeStats, summary: int, snippet: int,
               class_hints: bool = True) -> list[int]:
    """Blocks inside the summary-node that are mostly links and hold no sentences, or whose
    class says noise and that hold few sentences (Readability's conditional cleaning).
    Blocks around the snippet-node are the article itself and are never pruned; a list
    among its paragraphs whose items say more than their links is no link list."""
    in_prose = prose_parents(stats, summary) | {stats.parent[snippet]}
    prose_at = sorted(in_prose)
    own = _path_classes(stats, summary, snippet)
    found = []
    for i in range(summary + 1, stats.end[summary]):
        if stats.excluded[i] or stats.tags[i] not in _BLOCKS:
            continue
        if econ.is_descendant(stats, snippet, i):
            continue
        weight = _class_weight(stats.elements[i]) if class_hints else 0
        if weight < 0 and stats.elements[i].get("class") in own:
            weight = 0
        if (weight < 0 and stats.content_punc(i) < FEW_SENTENCES
                and not _holds_prose(stats, i, prose_at)):
            found.append(i)
        elif list_in_prose(stats, i, in_prose) and _annotated(stats, i):
            continue
        elif stats.link_density(i) > MAX_LINK_DENSITY and stats.content_punc(i) <= 1:
            found.append(i)
        elif (weight <= 0 and stats.link_density(i) > 0.25
              and stats.content_punc(i) < FEW_SENTENCES and stats.content_chars(i) < 250):
            found.append(i)
    return found


def _path_classes(stats: TreeStats, summary: int, snippet: int) -> set[str]:
    """The class attributes on the way from the summary-node down to the snippet: a class
    the article's own text wears names the page builder's modules (`widget-container`),
    not a box beside the article, and its negative weight counts nothing against its
    sibling modules."""
    return {c for c in (stats.elements[i].get("class") for i in _path(stats, summary, snippet))
            if c}


def _holds_prose(stats: TreeStats, i: int, prose_at: list[int]) -> bool:
    """True when a paragraph of prose lies in `i`'s subtree (`prose_at`: the sorted parents
    of such paragraphs): a page builder's `widget` holds the article's own paragraphs, and
    a class word is no reason to drop them (Readability keeps a negative-weight node whose
    paragraphs outscore its weight)."""
    k = bisect.bisect_left(prose_at, i)
    return k < len(prose_at) and prose_at[k] < stats.end[i]


def _annotated(stats: TreeStats, i: int) -> bool:
    """A list whose items carry words of their own around their links (a share of them,
    MIN_ANNOTATED_ITEMS); a box of related stories is a list of bare links."""
    items = [k for k in children(stats, i) if stats.chars[k]]
    annotated = [k for k in items if stats.link_density(k) < MAX_ANNOTATED_LINK_DENSITY]
    return bool(items) and len(annotated) >= len(items) * MIN_ANNOTATED_ITEMS


def _class_weight(el: HtmlElement) -> int:
    return names_mod.class_weight(class_names(el))


def twin_blocks(stats: TreeStats, start: int, drop: AbstractSet[int], min_chars: int,
                sections: bool = False) -> list[int]:
    """The blocks under element `start`, outside the `drop`ped ones, whose text (of
    `min_chars` or more, spaces normalised) an earlier block outside them already holds;
    outermost only. A wrapper and its only child share their text and are no twins; list
    items and table cells (ITEM_TAGS) are not searched. With `sections`, only a block of
    MIN_TWIN_PARTS parts with text or more is a twin: a post repeats a paragraph (a refrain,
    a placeholder text) but not a whole section. Only the texts of blocks of a size two
    blocks apart share are read (`_twin_sizes`)."""
    blocks = _long_blocks(stats, start, drop, min_chars)
    sizes = _twin_sizes(stats, blocks)
    seen: dict[str, int] = {}
    twins: list[int] = []
    inside = 0  # blocks before this are inside the last twin
    for i in blocks:
        if i < inside or stats.text_size(i) not in sizes \
                or sections and _parts(stats, i) < MIN_TWIN_PARTS:
            continue
        first = seen.setdefault(text_of(stats, i), i)
        if first != i and stats.end[first] <= i:
            twins.append(i)
            inside = stats.end[i]
    return twins


def _twin_sizes(stats: TreeStats, blocks: Iterable[int]) -> set[int]:
    """The sizes (`TreeStats.text_size`) of which `blocks` (in document order) hold two, one
    not inside the other. Blocks of one text are of one size, so a block of another size
    has no twin and is no block's twin. Blocks of one size nest when the first holds all
    the others: two of them inside it would each hold all of its characters, which two
    blocks apart cannot (a wrapper, its only child and theirs are of one size)."""
    first_end: dict[int, int] = {}
    shared: set[int] = set()
    for i in blocks:
        size = stats.text_size(i)
        if i >= first_end.setdefault(size, stats.end[i]):
            shared.add(size)
    return shared


def _long_blocks(stats: TreeStats, start: int, drop: AbstractSet[int],
                 min_chars: int) -> list[int]:
    """The elements under `start`, outside the `drop`ped ones and list items and table cells
    (ITEM_TAGS), with `min_chars` characters of text or more, in document order."""
    blocks: list[int] = []
    i = start + 1
    while i < stats.end[start]:
        if i in drop or stats.tags[i] in ITEM_TAGS:
            i = stats.end[i]
            continue
        if stats.chars[i] >= min_chars:
            blocks.append(i)
        i += 1
    return blocks


def card_twins(stats: TreeStats, start: int, drop: AbstractSet[int]) -> list[int]:
    """The blocks under element `start`, outside the `drop`ped ones, whose text, shorter
    than MIN_TWIN_CHARS, repeats the nearest earlier block of that text (outside them) in
    the same card (`_same_card`); outermost only. A card that shows its title twice or lays
    out its text once per screen size is read once; a field repeated by the records of a
    list is kept. Formulas, code and tables (VERBATIM_TAGS) are not searched."""
    last: dict[str, int] = {}
    twins: list[int] = []
    i = start + 1
    while i < stats.end[start]:
        if i in drop or stats.tags[i] in VERBATIM_TAGS:
            i = stats.end[i]
            continue
        if 0 < stats.chars[i] < MIN_TWIN_CHARS:
            text = text_of(stats, i)
            first = last.get(text)
            if first is None or stats.end[first] <= i:  # not inside the block of that text
                if first is not None and _same_card(stats, first, i):
                    twins.append(i)
                    i = stats.end[i]
                    continue
                last[text] = i
        i += 1
    return twins


def _same_card(stats: TreeStats, first: int, later: int) -> bool:
    """Whether two blocks lie in one card: the smallest block around both holds at most
    CARD_TWIN_CHARS of text, and they are not the same field of two of its records (the
    same tags and classes on the way down to each)."""
    top = stats.parent[later]
    while top >= 0 and not econ.is_descendant(stats, first, top):
        if stats.chars[top] > CARD_TWIN_CHARS:
            return False
        top = stats.parent[top]
    return top >= 0 and stats.chars[top] <= CARD_TWIN_CHARS \
        and _kinds_below(stats, first, top) != _kinds_below(stats, later, top)


def _kinds_below(stats: TreeStats, i: int, top: int) -> list[tuple[str, str]]:
    """The tag and class of each element from `top`'s child down to element `i`."""
    kinds = []
    while i != top:
        kinds.append(kind_of(stats.elements[i]))
        i = stats.parent[i]
    return kinds


def _parts(stats: TreeStats, i: int) -> int:
    """The element's children that hold text."""
    return sum(1 for k in children(stats, i) if stats.chars[k])
