"""Single-page article extraction: ECON's summary-node, made robust for today's pages.

ECON (see `econ.py`) finds the snippet-node by punctuation and backtracks to the summary-node.
On its own it fails where the paper says it does: noise that carries punctuation (footers,
comment threads, related-story teasers) keeps the backtracking climbing, and short pages give
no reliable snippet. This module keeps the paper's steps and adds, each measured in `bench/`:

- noise hints before counting: hidden nodes and containers whose class, id, role or tag says
  navigation, comments, sharing or sidebars count for nothing, so their punctuation cannot
  pull the backtracking up;
- punctuation outside links only, since link text is navigation far more often than news;
- a stop rule that also halts when the parent adds text of low punctuation density (the
  paper's distance 0 is the limit case of that);
- conditional pruning inside the summary-node of link lists and blocks without sentences.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from lxml.html import HtmlElement

from winnow import econ
from winnow.econ import TreeStats
from winnow.metadata import text_similarity
from winnow.page import HEADING_TAGS, Page, is_hidden, wn_id
from winnow.tree import normalize_space

UNLIKELY_RE = re.compile(
    r"-ad-|ai2html|banner|breadcrumb|combx|comment|community|cover-wrap|disqus|extra|footer|"
    r"gdpr|header|foot\b|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|"
    r"sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote|share|sharing|"
    r"newsletter|promo|outbrain|taboola|cookie|masthead|subscribe|signup|toolbar|"
    r"byline|author|bio|footnote|contact|tags|shopping|scroll|"
    r"sr-only|visually-hidden|visuallyhidden|screen-reader|off-screen|offscreen|copyright|"
    r"carousel|slideshow|trackback|(?<![a-z])login|lightbox|textwidget|typelist|"
    r"(?<![a-z-])secondary",
    re.I)
"""Class/id words of template noise (Mozilla Readability's unlikelyCandidates, extended with
words measured on the dev sets, and blog engines' sidebar names: WordPress's `textwidget` and
`#secondary`, TypePad's `typelist`). `login` is not the one in `bloginfo`; `secondary` is not
a utility class's (`text-secondary`, `btn-secondary`)."""

HIDING_CLASSES = frozenset({"hidden", "hide", "d-none", "is-hidden", "display-none"})
"""Utility classes of CSS frameworks that hide an element (Bootstrap, Tailwind, Bulma)."""

MAYBE_CONTENT_RE = re.compile(r"and|article|body|column|content|main|mathjax|shadow|story|"
                              r"entry|post", re.I)
"""Words that overrule UNLIKELY_RE: 'main-header' may hold the article (Readability)."""

COMMENTS_RE = re.compile(r"comment|disqus|replies|respond|reactions", re.I)
COMMENTS_HEADING_RE = re.compile(
    r"^(\d+\s+(comments?|responses?|replies|reactions)\b"
    r"|(comments|responses|replies|reactions|discussion)\s*(\(\d+\))?\s*:?$"
    r"|(leave a (comment|reply)|post a comment|add a comment|join the discussion)\b)", re.I)
"""Headings that open a comment section ("Comments", "12 Responses", "Leave a Reply")."""
"""Class/id words of comment sections: noise for the article even when they are long."""

PARAGRAPH_TAGS = frozenset({"p", "div", "blockquote", "pre"})
INLINE_TAGS = frozenset({"span", "a", "b", "i", "em", "strong", "font", "small", "u", "label"})
MAX_INLINE_NOISE_CHARS = 300
"""An inline element with a noise class (byline, author, tags) holds a line, not more."""
ITEM_TAGS = frozenset({"li", "dt", "dd", "td", "th", "figcaption", "caption"})
_CELL_TAGS = frozenset({"td", "th"})

SLUG_WORDS = 4
_SLUG_SPLIT_RE = re.compile(r"[-_]+")
_WORD_RE = re.compile(r"[^\W_]+")
_NAME_SPLIT_RE = re.compile(r"[\s_-]+")

NOISE_ROLES = frozenset({"menu", "menubar", "complementary", "navigation", "alert",
                         "alertdialog", "dialog", "banner", "contentinfo", "search"})
NOISE_TAGS = frozenset({"nav", "aside", "footer", "dialog", "menu", "form"})
NAMED_NOISE_TAGS = frozenset({"nav", "aside", "footer"})
"""Noise tags that are never a page-wide wrapper (a <form> around the whole page is)."""
NEVER_NOISE_TAGS = frozenset({"html", "body", "article", "main", "a", "table", "tbody", "tr",
                              "td", "th", "pre", "code", "figure", "img", "picture"})

MAX_NOISE_SHARE = 0.5
"""A noise-hinted element holding this share of the page's punctuation is a wrapper, kept."""

TEASER_TAGS = frozenset({"li", "div", "article", "section", "dd", "dt"})
MIN_TEASERS = 3
MAX_TEASER_CHARS = 600
"""Teaser records are short: a headline link and at most a sentence or two each."""
MIN_TEASER_LINK_DENSITY = 0.1
MIN_TEASERS_WITH_LINK = 0.8
"""Share of the records that must open with a link (a headline link)."""

MIN_PROSE_PUNC = 2
MIN_PROSE_CHARS = 100
"""Prose: a block with this many sentence marks and characters outside links. A list beside
a paragraph of prose is in the text (its records are no teasers); sibling parts of an
article each hold prose."""

STANDFIRST_TAGS = frozenset({"p", "div"})
MAX_STANDFIRST_CHARS = 500
MIN_STANDFIRST_PROSE = 0.5
MIN_STANDFIRST_SIMILARITY = 0.8
"""A standfirst is a block of prose (at least this share of its text outside links) of at most
this length right under the headline that says what the page's description says
(text_similarity both ways round: neither holds much the other does not)."""

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

FULL_CONFIDENCE_PUNC = 20
"""Punctuation marks of prose at which the confidence in the summary-node reaches 1."""

MAX_LINK_DENSITY = 0.5

SHORT_PAGE_CHARS = 500
"""A page whose longest text-para is shorter than this is a short page (ECON IV.C)."""

TAIL_LINK_DENSITY = 0.5
"""Blocks after the article with more link text than this are link lists, not prose."""

LIST_TAGS = frozenset({"ul", "ol"})
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

FEW_SENTENCES = 10
"""Punctuation marks below which a noise-named block is pruned (Readability: 10 commas)."""

NEGATIVE_RE = re.compile(
    r"-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|foot|footer|"
    r"footnote|gdpr|masthead|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|"
    r"skyscraper|sponsor|shopping|tags|tool|widget", re.I)
POSITIVE_RE = re.compile(r"article|body|content|entry|hentry|h-entry|main|page|pagination|"
                         r"post|text|blog|story", re.I)
"""Readability's class weights: -25 / +25 for these class and id words."""
"""A block inside the summary-node whose text is mostly link text is a link list."""


@dataclass
class ArticleContent:
    """The chosen content as a cleaned copy of `source` (the summary-node), and the `data-wn`
    ids of the outermost content and noise elements of the page."""

    content: HtmlElement
    source: HtmlElement
    content_ids: list[int]
    noise_ids: list[int]
    method: str
    confidence: float
    page_chars: int


def is_noise_hint(el: HtmlElement) -> bool:
    """True for hidden elements and for containers whose tag, role, class or id says noise."""
    tag = el.tag
    if tag in NEVER_NOISE_TAGS:
        return False
    if is_hidden(el) or tag in NOISE_TAGS or _hidden_by_class(el):
        return True
    if (el.get("role") or "").lower() in NOISE_ROLES:
        return True
    names = _names(el)
    return len(names) >= 3 and _names_say_noise(names)


def _hidden_by_class(el: HtmlElement) -> bool:
    """A utility class that means display:none ("hidden", "d-none"): no other class word
    overrules it (`vcrArticleTab hidden` is a tab not shown)."""
    classes = el.get("class")
    return bool(classes) and not HIDING_CLASSES.isdisjoint(classes.split())


@functools.lru_cache(maxsize=4096)
def _names_say_noise(names: str) -> bool:
    """Whether class and id words name comments or noise no content word overrules (a
    page repeats the same few class strings on thousands of elements, hence the cache)."""
    if COMMENTS_RE.search(names):
        return True
    return bool(UNLIKELY_RE.search(names)) and not _maybe_content(names)


def _maybe_content(names: str) -> bool:
    """True when a class or id word says content on its own: "main" in `main-header`, but
    not "post" in `relatedposts`, where it is part of the noise word."""
    return any(MAYBE_CONTENT_RE.search(word) and not UNLIKELY_RE.search(word)
               for word in _NAME_SPLIT_RE.split(names))


def _names(el: HtmlElement) -> str:
    """The class and id words that can say what an element is for. An id of SLUG_WORDS words
    or more is a slug of the content's own heading ("sharing-with-a-single-developer"), not
    a role, and is left out; so is an id that spells the element's own text (the anchor of a
    section heading "Community")."""
    ident = el.get("id") or ""
    if ident and (len(_SLUG_SPLIT_RE.split(ident)) >= SLUG_WORDS
                  or _spells_own_text(el, ident)):
        ident = ""
    return f"{el.get('class') or ''} {ident}"


def _spells_own_text(el: HtmlElement, ident: str) -> bool:
    words = _WORD_RE.findall(ident.casefold())
    return bool(words) and words == _WORD_RE.findall((el.text or "").casefold())


def noise_roots(stats: TreeStats, heading: int | None = None) -> list[int]:
    """Elements whose subtrees are noise before any extraction: teaser lists, and hinted
    containers that are not layout wrappers (see `_is_wrapper`)."""
    limit = MAX_NOISE_SHARE * max(stats.content_punc(0), 1)
    roots = [i for i, el in enumerate(stats.elements)
             if is_noise_hint(el) and not _swallows_blocks(stats, i)
             and not _is_wrapper(stats, i, heading, limit)]
    roots.extend(teaser_lists(stats))
    return roots


def _is_wrapper(stats: TreeStats, i: int, heading: int | None, limit: float) -> bool:
    """A hinted container holding most of the page's sentences (`limit` punctuation marks)
    wraps the article: class names that speak of a layout (`page no-sidebars`). With the
    title's heading known, it must hold that heading, and then even an <aside> a site put its
    post in is one; without it, an <aside>, a comment list or a navigation role never is.
    A list never wraps a page: a slideshow's many captions are still a slideshow."""
    if stats.content_punc(i) < limit or stats.elements[i].tag in LIST_TAGS:
        return False
    if heading is None:
        return not _named_noise(stats.elements[i])
    return econ.is_descendant(stats, heading, i)


def template_roots(stats: TreeStats, flagged: set[int]) -> list[int]:
    """Outermost elements all of whose text is template text (the own text of `flagged`
    elements): a container whose own words are template but that also holds the article
    must not take the article with it."""
    n = len(stats.elements)
    template = [stats.own_chars[i] if i in flagged else 0 for i in range(n)]
    for i in range(n - 1, 0, -1):
        template[stats.parent[i]] += template[i]
    return [i for i in range(n) if _all_template(stats, template, i)
            and (i == 0 or not _all_template(stats, template, stats.parent[i]))]


def _all_template(stats: TreeStats, template: list[int], i: int) -> bool:
    return stats.chars[i] > 0 and template[i] >= stats.chars[i]


def _swallows_blocks(stats: TreeStats, i: int) -> bool:
    """An inline element holding more than a line of text is broken markup (an unclosed
    byline <span> that swallowed the post): its class names the byline, not its content."""
    return stats.elements[i].tag in INLINE_TAGS and stats.chars[i] > MAX_INLINE_NOISE_CHARS


def teaser_lists(stats: TreeStats) -> list[int]:
    """Repeated link-led records: related stories, most-read lists, rails.

    Three or more siblings with the same tag and class that each hold a link and little
    text form a list of records, not prose; article paragraphs repeat too but are not led
    by links (the record idea of MDR and MiBAT, applied to template noise). A list that
    stands among the paragraphs of a post is what the post links to, and stays.
    """
    groups: dict[tuple[int, str, str], list[int]] = {}
    for i in range(1, len(stats.elements)):
        el = stats.elements[i]
        if el.tag in TEASER_TAGS and stats.chars[i]:
            key = (stats.parent[i], el.tag, el.get("class") or "")
            groups.setdefault(key, []).append(i)
    in_prose = _prose_parents(stats)
    found: list[int] = []
    for items in groups.values():
        if (len(items) >= MIN_TEASERS and _are_teasers(stats, items)
                and not _list_in_prose(stats, stats.parent[items[0]], in_prose)):
            found.extend(items)
    return found


def _prose_parents(stats: TreeStats, root: int = 0) -> set[int]:
    """Elements in `root`'s subtree with a paragraph of prose among their children: where a
    post's text is."""
    return {stats.parent[i] for i in range(root + 1, stats.end[root])
            if stats.elements[i].tag == "p" and _is_prose(stats, i)}


def _list_in_prose(stats: TreeStats, i: int, prose_parents: set[int]) -> bool:
    """A list standing among paragraphs of prose: what a post links to or enumerates (a
    roundup, a blog carnival, a schedule), not a rail beside it."""
    return (i > 0 and stats.elements[i].tag in LIST_TAGS
            and stats.parent[i] in prose_parents)


def _are_teasers(stats: TreeStats, items: list[int]) -> bool:
    if max(stats.chars[i] for i in items) > MAX_TEASER_CHARS:
        return False
    chars = sum(stats.chars[i] for i in items)
    if sum(stats.link_chars[i] for i in items) < MIN_TEASER_LINK_DENSITY * chars:
        return False
    led = sum(1 for i in items if _starts_with_link(stats, i))
    return led >= MIN_TEASERS_WITH_LINK * len(items)


def _starts_with_link(stats: TreeStats, item: int) -> bool:
    """True when the first words of the record are link text (a headline or a title link).
    A record led by a link into the page itself is a footnote behind its back-link ("^",
    "[1]"), not a teaser."""
    for j in range(item, stats.end[item]):
        if stats.is_link[j] and (stats.elements[j].get("href") or "").startswith("#"):
            return False
        text = stats.elements[j].text
        if text and _WORD_RE.search(text):
            while j != item and not stats.is_link[j]:
                j = stats.parent[j]
            return stats.is_link[j]
    return False


def _named_noise(el: HtmlElement) -> bool:
    """Noise by what the element is (tag, role, comments), not by layout class words."""
    return (el.tag in NAMED_NOISE_TAGS or (el.get("role") or "").lower() in NOISE_ROLES
            or is_comments(el))


def is_comments(el: HtmlElement) -> bool:
    """True for containers of user comments, which never belong to the article text."""
    return bool(COMMENTS_RE.search(_names(el))) and el.tag not in NEVER_NOISE_TAGS


def summary_node(stats: TreeStats,
                 heading: int | None = None) -> tuple[int, int, list[int]] | None:
    """ECON's summary-node, snippet-node and Joint-para's pruned nodes, backtracking on
    link-free punctuation with a density stop.

    On short pages (the paper's weak spot) a sidebar's "about me" is often longer than the
    story; there, with the title's heading known, the snippet is the longest text-para in
    the smallest container around the heading that holds one.
    """
    paras = econ.text_node_sets(stats)
    kept, pruned = econ.joint_para(paras)
    pruned = [i for i in pruned if not _heads_content(stats, i) and not _list_item(stats, i)
              and not _in_formula(stats, i)]
    if heading is not None and kept and max(map(_prose_chars, kept)) < SHORT_PAGE_CHARS:
        kept = _near(stats, kept, heading) or kept
    snippet = econ.snippet_node(kept, size=_prose_chars)
    if snippet is None:
        return _short_page(stats, paras)
    return _backtrack(stats, snippet, kept), snippet, pruned


def _heads_content(stats: TreeStats, i: int) -> bool:
    """A heading followed (past further headings) by a block with sentences labels that
    block: Joint-para must not prune it for its own lack of punctuation (a subheading above
    a list or a table)."""
    after = i
    while stats.elements[after].tag in HEADING_TAGS:
        after = stats.end[after]
        if after >= len(stats.elements) or stats.parent[after] != stats.parent[i]:
            return False
        if stats.excluded[after]:
            return False
    return after != i and stats.content_punc(after) > 0


def _list_item(stats: TreeStats, i: int) -> bool:
    """List items, table cells and captions of plain text (names, ingredients, figures) are
    content without punctuation; only link-heavy ones are navigation. A table row is kept
    or dropped whole: a linked title cell belongs to the row that describes it."""
    tag = stats.elements[i].tag
    if tag in _CELL_TAGS and stats.parent[i] >= 0:
        return _row_has_text(stats, stats.parent[i])
    return tag in ITEM_TAGS and stats.link_density(i) <= MAX_LINK_DENSITY


def _row_has_text(stats: TreeStats, row: int) -> bool:
    """True when a cell of the row holds sentences or plain (unlinked) text."""
    return any(stats.content_punc(j) or stats.link_density(j) <= MAX_LINK_DENSITY
               for j in _children(stats, row) if stats.elements[j].tag in _CELL_TAGS)


def _in_formula(stats: TreeStats, i: int) -> bool:
    """Parts of a MathML formula are content without punctuation: the formula is text."""
    while i > 0:
        if stats.elements[i].tag == "math":
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


def _prose_chars(para: econ.TextPara) -> int:
    return para.chars - para.link_chars


def _short_page(stats: TreeStats,
                paras: list[econ.TextPara]) -> tuple[int, int, list[int]] | None:
    """The paper's weak spot: no text-para has punctuation (a one-line page, a caption-only
    photo page). Take the longest non-link text-para's parent, pruning nothing. A page whose
    few words sit right in <body>, or in paragraphs a link wraps, is its own summary-node;
    a page of bare links is not an article."""
    snippet = econ.snippet_node([p for p in paras if _prose_chars(p)], size=_prose_chars)
    if snippet is not None:
        return max(stats.parent[snippet], 0), snippet, []
    if stats.content_chars(0) or _link_wraps_blocks(stats):
        return 0, 0, []
    return None


def _link_wraps_blocks(stats: TreeStats) -> bool:
    """True when a link holds paragraphs: a script-driven page, not a navigation link."""
    return any(stats.is_link[i] and not stats.excluded[i]
               and any(stats.elements[j].tag in PARAGRAPH_TAGS for j in range(i + 1, stats.end[i]))
               for i in range(len(stats.elements)))


def _backtrack(stats: TreeStats, snippet: int, paras: Sequence[econ.TextPara]) -> int:
    """Climb like ECON, but look through steps that add (almost) no text.

    A parent that adds no text, or only a short label without punctuation (a step heading,
    a wrapper's caption), gives distance 0 without saying the article ended, so the climb
    goes on tentatively; it is kept only if a later step adds real sentences. When the climb
    stops (`_stops`, or a parent adding only fragments among the text-paras `paras`), the
    lowest element of the last real step is the summary-node.
    """
    best = child = snippet
    parent = stats.parent[child]
    while parent >= 0:
        added = stats.content_chars(parent) - stats.content_chars(child)
        gain = stats.content_punc(parent) - stats.content_punc(child)
        if gain <= 0 and added <= MAX_LABEL_CHARS:
            child, parent = parent, stats.parent[parent]
            continue
        if (_stops(stats, child, parent) and not _more_of_the_same(stats, child, parent, snippet)
                or _adds_fragments(stats, child, parent, paras)):
            return best
        child, parent = parent, stats.parent[parent]
        best = child
    return best


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
            inside.append(_prose_chars(para))
        elif stats.end[child] <= first < stats.end[parent]:
            after.append(_prose_chars(para))
    if len(after) < MIN_ADDED_FRAGMENTS or len(inside) < MIN_FRAGMENTS:
        return False
    return max(after) < min(FRAGMENT_SHARE * max(inside), MAX_FRAGMENT_CHARS)


def _more_of_the_same(stats: TreeStats, child: int, parent: int, snippet: int) -> bool:
    """True when the parent adds, beside the child, paragraphs of the snippet's own kind (tag
    and class) with sentences: the article's body split around an embed or a "read more"
    wrapper, not a box beside it."""
    kind = _kind(stats.elements[snippet])
    return any(j != child and stats.content_punc(j) and _kind(stats.elements[j]) == kind
               for j in _children(stats, parent))


def _kind(el: HtmlElement) -> tuple[str, str]:
    return el.tag, el.get("class") or ""


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


@dataclass
class PageHints:
    """What is known of a page besides its tree: the heading that shows the title (from
    metadata) and, from a learned site template, the elements whose own text it explains
    (static blocks, template text chunks)."""

    title_heading: HtmlElement | None = None
    template_noise: Sequence[HtmlElement] = ()
    description: str | None = None
    """The page's own description (meta tags, JSON-LD): it tells a standfirst."""


def extract_article(page: Page, hints: PageHints | None = None) -> ArticleContent | None:
    """Return the article's content from a single page, or None when ECON finds no text.

    Subtrees made only of text the template explains count for nothing, as hinted noise
    does, and ECON runs on what is left.
    """
    hints = hints or PageHints()
    body = page.body
    stats = econ.collect_stats(body)
    page_chars = stats.chars[0]
    heading = stats.index.get(hints.title_heading) if hints.title_heading is not None else None
    roots = noise_roots(stats, heading)
    roots.extend(template_roots(stats, _indices(stats, hints.template_noise)))
    econ.exclude_subtrees(stats, roots)
    title_heading = heading  # kept for the standfirst, even when a noise box holds it
    if heading is not None and stats.excluded[heading]:
        heading = None
    found = summary_node(stats, heading)
    if found is None:
        return None
    summary, snippet, pruned = found
    summary, outside = _join_parts(stats, summary)
    drop = set(i for i in pruned if econ.is_descendant(stats, i, summary))
    drop.update(outside)
    drop.update(_excluded_roots(stats, summary))
    drop.update(_link_lists(stats, summary, snippet))
    drop.update(_trailing_noise(stats, summary, snippet, drop))
    drop.update(_leading_noise(stats, summary, snippet, drop))
    drop.update(_comments_section(stats, summary, snippet))
    drop.update(_ad_labels(stats, summary))
    deck = _standfirst(stats, title_heading, summary, drop, hints.description)
    return _build(stats, summary, drop, page_chars, deck)


def _join_parts(stats: TreeStats, summary: int) -> tuple[int, list[int]]:
    """The summary-node's parent, and its children outside the article, when the article is
    split into sibling parts of one tag and a class that names content, with prose in each
    (a lead paragraph in its own `articleBody` before a photo, then the rest): Readability
    joins such siblings. Otherwise the summary-node itself and nothing to drop."""
    kind = _kind(stats.elements[summary])
    if summary == 0 or not POSITIVE_RE.search(kind[1]):
        return summary, []
    parent = stats.parent[summary]
    kids = _children(stats, parent)
    parts = [k for k in kids if k != summary and _kind(stats.elements[k]) == kind
             and _is_prose(stats, k)]
    if not parts:
        return summary, []
    first, last = min(parts + [summary]), max(parts + [summary])
    return parent, [k for k in kids if k < first or k > last]


def _is_prose(stats: TreeStats, i: int) -> bool:
    """A block with a sentence or more of text outside links (MIN_PROSE_*)."""
    return (not stats.excluded[i] and stats.content_punc(i) >= MIN_PROSE_PUNC
            and stats.content_chars(i) >= MIN_PROSE_CHARS)


def _standfirst(stats: TreeStats, title: int | None, summary: int, drop: set[int],
                description: str | None) -> int | None:
    """The block right after the title's heading that the article leaves out, when it is the
    page's own description in a sentence or two: the standfirst a header box holds beside
    the headline ("Google is finally reintroducing GrandCentral, ..."). None otherwise."""
    if title is None or not description:
        return None
    j = _next_with_text(stats, title)
    if j is None or econ.is_descendant(stats, summary, j) or _kept(stats, j, summary, drop):
        return None
    el = stats.elements[j]
    text = _text(stats, j)
    # The block is often excluded (a noise box holds it), and exclusion zeroes its counts.
    link_chars = sum(len(normalize_space(a.text_content())) for a in el.iter("a"))
    prose = len(text) - link_chars
    return j if (el.tag in STANDFIRST_TAGS and len(text) <= MAX_STANDFIRST_CHARS
                 and prose >= MIN_PROSE_CHARS and prose >= MIN_STANDFIRST_PROSE * len(text)
                 and econ.punc_num(text) >= MIN_PROSE_PUNC
                 and min(text_similarity(text, description),
                         text_similarity(description, text)) >= MIN_STANDFIRST_SIMILARITY
                 ) else None


def _next_with_text(stats: TreeStats, i: int) -> int | None:
    """The first later sibling of `i` with any text (even excluded text), or None."""
    return next((j for j in _children(stats, stats.parent[i]) if j > i and _text(stats, j)),
                None)


def _kept(stats: TreeStats, i: int, summary: int, drop: set[int]) -> bool:
    """True when `i` is in the article: inside the summary-node, neither excluded nor dropped."""
    if not summary <= i < stats.end[summary] or stats.excluded[i]:
        return False
    while i != summary:
        if i in drop:
            return False
        i = stats.parent[i]
    return True


def _ad_labels(stats: TreeStats, summary: int) -> list[int]:
    """Elements inside the summary-node whose whole text labels an ad slot
    ("ADVERTISEMENT", "(Story continues below)")."""
    return [i for i in range(summary + 1, stats.end[summary])
            if 0 < stats.chars[i] <= MAX_LABEL_CHARS and not stats.excluded[i]
            and AD_LABEL_RE.match(_text(stats, i))]


def _trailing_noise(stats: TreeStats, summary: int, snippet: int, drop: set[int]) -> list[int]:
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
                                   or _named_tail(stats.elements[i])))


def _leading_noise(stats: TreeStats, summary: int, snippet: int, drop: set[int]) -> list[int]:
    """Blocks before the article's text on each level from the summary-node down to the
    snippet: from the start, link lines without sentences (a breadcrumb, "« Previous |
    Main | Next »", category links, a share bar) up to the first block that is not one, or
    a heading."""
    return _outer_noise(stats, _beside_path(stats, summary, snippet, drop, after=False),
                        lambda i: (stats.link_density(i) > TAIL_LINK_DENSITY
                                   and stats.content_punc(i) <= 1
                                   and stats.elements[i].tag not in HEADING_TAGS))


def _beside_path(stats: TreeStats, summary: int, snippet: int, drop: set[int],
                 after: bool) -> Iterator[list[int]]:
    """Per level from the summary-node down to the snippet, the kept blocks after (or
    before) the branch that leads to the snippet, outermost first."""
    path = _path(stats, summary, snippet)
    for node, on_path in zip(path, path[1:], strict=False):
        kids = [i for i in _children(stats, node) if i not in drop and not stats.excluded[i]]
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


def _named_tail(el: HtmlElement) -> bool:
    return el.tag in TAIL_BLOCK_TAGS and bool(UNLIKELY_RE.search(_names(el)))


def _short_notice(stats: TreeStats, i: int, notice: re.Pattern[str]) -> bool:
    """A block of at most MAX_NOTICE_CHARS whose text `notice` finds: a footer line."""
    return stats.chars[i] <= MAX_NOTICE_CHARS and bool(notice.search(_text(stats, i)))


def _text(stats: TreeStats, i: int) -> str:
    """An element's whole text, whitespace collapsed."""
    return normalize_space(stats.elements[i].text_content())


def _comments_section(stats: TreeStats, summary: int, snippet: int) -> list[int]:
    """Everything from a "Comments" / "N Responses" heading after the article's text on:
    flat blog layouts put the comments in the article's own container, with nothing but
    that heading between them."""
    for i in range(snippet + 1, stats.end[summary]):
        if stats.elements[i].tag in HEADING_TAGS and COMMENTS_HEADING_RE.match(_text(stats, i)):
            return _from_here_on(stats, summary, i)
    return []


def _from_here_on(stats: TreeStats, summary: int, start: int) -> list[int]:
    """`start` and every element after it inside `summary`, as outermost subtrees."""
    found = [start]
    node = start
    while node != summary and node > 0:
        parent = stats.parent[node]
        j = stats.end[node]
        while j < stats.end[parent]:
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


def _children(stats: TreeStats, i: int) -> list[int]:
    kids = []
    j = i + 1
    while j < stats.end[i]:
        kids.append(j)
        j = stats.end[j]
    return kids


def _indices(stats: TreeStats, elements: Iterable[HtmlElement]) -> set[int]:
    return {i for i in map(stats.index.get, elements) if i is not None}


def _excluded_roots(stats: TreeStats, summary: int) -> list[int]:
    """Outermost excluded elements inside the summary-node."""
    roots = []
    for i in range(summary + 1, stats.end[summary]):
        if stats.excluded[i] and not stats.excluded[stats.parent[i]]:
            roots.append(i)
    return roots


_BLOCKS = frozenset({"div", "ul", "ol", "table", "section", "dl", "form", "header"})


def _link_lists(stats: TreeStats, summary: int, snippet: int) -> list[int]:
    """Blocks inside the summary-node that are mostly links and hold no sentences, or whose
    class says noise and that hold few sentences (Readability's conditional cleaning).
    Blocks around the snippet-node are the article itself and are never pruned; a list
    among its paragraphs whose items say more than their links is no link list."""
    in_prose = _prose_parents(stats, summary) | {stats.parent[snippet]}
    found = []
    for i in range(summary + 1, stats.end[summary]):
        if stats.excluded[i] or stats.elements[i].tag not in _BLOCKS:
            continue
        if econ.is_descendant(stats, snippet, i):
            continue
        weight = _class_weight(stats.elements[i])
        if weight < 0 and stats.content_punc(i) < FEW_SENTENCES:
            found.append(i)
        elif _list_in_prose(stats, i, in_prose) and _annotated(stats, i):
            continue
        elif stats.link_density(i) > MAX_LINK_DENSITY and stats.content_punc(i) <= 1:
            found.append(i)
        elif (weight <= 0 and stats.link_density(i) > 0.25
              and stats.content_punc(i) < FEW_SENTENCES and stats.content_chars(i) < 250):
            found.append(i)
    return found


def _annotated(stats: TreeStats, i: int) -> bool:
    """A list whose items carry words of their own around their links (a share of them,
    MIN_ANNOTATED_ITEMS); a box of related stories is a list of bare links."""
    items = [k for k in _children(stats, i) if stats.chars[k]]
    annotated = [k for k in items if stats.link_density(k) < MAX_ANNOTATED_LINK_DENSITY]
    return bool(items) and len(annotated) >= len(items) * MIN_ANNOTATED_ITEMS


def _class_weight(el: HtmlElement) -> int:
    names = _names(el)
    if len(names) < 3:
        return 0
    weight = 0
    if NEGATIVE_RE.search(names):
        weight -= 25
    if POSITIVE_RE.search(names):
        weight += 25
    return weight


def _build(stats: TreeStats, summary: int, drop: set[int], page_chars: int,
           deck: int | None = None) -> ArticleContent:
    """Copy the summary-node without the dropped subtrees (copy and original pair up in
    document order), a copy of the standfirst `deck` first if there is one and the article
    does not repeat it, and label the page's outermost content and noise elements."""
    original = stats.elements[summary]
    clone = copy.deepcopy(original)
    clone.tail = None
    twins = list(clone.iter())
    doomed = [twins[i - summary] for i in sorted(drop) if summary <= i < stats.end[summary]]
    for twin in doomed:
        if twin.getparent() is not None:
            twin.drop_tree()
    content, noise = label_regions(stats, summary, drop)
    if deck is not None and _text(stats, deck) not in normalize_space(clone.text_content()):
        twin = copy.deepcopy(stats.elements[deck])
        twin.tail, clone.text = clone.text, None
        clone.insert(0, twin)
        content.append(deck)
        noise = _carve_out(stats, noise, deck)
    confidence = min(1.0, stats.content_punc(summary) / FULL_CONFIDENCE_PUNC)
    return ArticleContent(clone, original, _ids(stats, content), _ids(stats, noise), "econ",
                          confidence, page_chars)


def _carve_out(stats: TreeStats, noise: list[int], keep: int) -> list[int]:
    """The noise subtrees without `keep`: a noise subtree holding it gives way to its parts
    beside the path down to `keep`; one inside it goes."""
    carved: list[int] = []
    for i in noise:
        if econ.is_descendant(stats, i, keep):
            continue
        if not econ.is_descendant(stats, keep, i):
            carved.append(i)
            continue
        node = i
        while node != keep:
            kids = _children(stats, node)
            node = next(k for k in kids if econ.is_descendant(stats, keep, k))
            carved.extend(k for k in kids if k != node)
    return carved


def label_regions(stats: TreeStats, summary: int, drop: set[int]) -> tuple[list[int], list[int]]:
    """Outermost elements that are all content, and outermost ones that are all noise.

    Content lies in the summary-node outside dropped subtrees; noise is every dropped subtree
    and everything outside the summary-node that is not one of its ancestors.
    """
    end = stats.end[summary]
    has_noise = [False] * (end - summary)
    for i in range(end - 1, summary - 1, -1):
        if i in drop:
            has_noise[i - summary] = True
        if has_noise[i - summary] and i > summary:
            has_noise[stats.parent[i] - summary] = True
    content: list[int] = []
    noise: list[int] = []
    i = summary
    while i < end:
        if i in drop:
            noise.append(i)
            i = stats.end[i]
        elif not has_noise[i - summary]:
            content.append(i)
            i = stats.end[i]
        else:
            i += 1
    ancestors = set()
    a = summary
    while a >= 0:
        ancestors.add(a)
        a = stats.parent[a]
    noise.extend(i for i in range(1, len(stats.elements))
                 if stats.parent[i] in ancestors and i not in ancestors
                 and not summary <= i < end)
    return content, noise


def _ids(stats: TreeStats, indices: list[int]) -> list[int]:
    ids = (wn_id(stats.elements[i]) for i in indices)
    return sorted(i for i in ids if i is not None)
