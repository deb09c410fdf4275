"""Article extraction, stage 1: what counts for nothing before ECON counts (candidates).

Hidden elements, containers whose tag, role or class and id tokens say noise (see
`article_names`), teaser records and template text are excluded before punctuation is
counted, so their sentences cannot pull the backtracking up. A hinted container holding
most of the page's prose is a layout wrapper and is spared. Also the small tree helpers
the later stages share.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from lxml.html import HtmlElement

from winnow import article_names as names_mod
from winnow import econ
from winnow.econ import TreeStats
from winnow.folded import OVERLAY_WORDS
from winnow.page import HEADING_TAGS, hidden_by, is_hidden
from winnow.tree import normalize_space

HIDING_CLASSES = frozenset({"hidden", "hide", "d-none", "is-hidden", "display-none"})
"""Utility classes of CSS frameworks that hide an element (Bootstrap, Tailwind, Bulma)."""

RESPONSIVE_SHOW_RE = re.compile(
    r"(?:^|[-:@_])(?:xs|sm|md|lg|xl|xxl|2xl|desktop|tablet|mobile|medium|large|small)"
    r"[-:@_](?:block|flex|grid|inline|inline-block|inline-flex|table|contents|show|visible)$"
    r"|(?:block|flex|grid|inline|show|visible)[-:@_](?:xs|sm|md|lg|xl|xxl|desktop|tablet|mobile"
    r"|medium|large|small)$", re.IGNORECASE)
"""A class that shows its element from a screen width on, the other half of a responsive
pair with a hiding class: `lg:block`, `d-md-flex`, `display-block-desktop`, `visible-lg`,
`show@medium`."""

FOLDED_PANEL_SHARE = 0.25
"""Share of the main region's text under which a block hidden by a hiding class may be
folded content (an accordion's answer, a tab's panel: 3% to 23% of the region on WCXB's tune
service pages); from it the block is another view of the page, a comparison table or a
product's other layout (61% and 62% of the region on the tune collection and product pages
that lost most when every such block was shown)."""


PARAGRAPH_TAGS = frozenset({"p", "div", "blockquote", "pre"})
INLINE_TAGS = frozenset({"span", "a", "b", "i", "em", "strong", "font", "small", "u", "label"})
MAX_INLINE_NOISE_CHARS = 300
"""An inline element with a noise class (byline, author, tags) holds a line, not more."""


SLUG_WORDS = 4
_SLUG_SPLIT_RE = re.compile(r"[-_]+")
_WORD_RE = re.compile(r"[^\W_]+")
NOISE_ROLES = frozenset({"menu", "menubar", "complementary", "navigation", "alert",
                         "alertdialog", "dialog", "banner", "contentinfo", "search"})


NOISE_TAGS = frozenset({"nav", "aside", "footer", "dialog", "menu", "form"})
NAMED_NOISE_TAGS = frozenset({"nav", "aside", "footer"})
"""Noise tags that are never a page-wide wrapper (a <form> around the whole page is)."""

CUSTOM_NOISE_ROLES = frozenset({"nav", "navigation", "aside", "footer", "sidebar", "toc",
                                "breadcrumb", "breadcrumbs"})
"""Last pieces of a custom element's tag name (a web component, `<prefix-role>`) that name
page furniture as the standard tags do: `devsite-content-footer`, `starlight-toc`,
`devsite-book-nav`. The piece that ends the name says what the component is; the ones
before are its library's prefix and qualifiers (`content` there names no content)."""


NEVER_NOISE_TAGS = frozenset({"html", "body", "article", "main", "a", "table", "tbody", "tr",
                              "td", "th", "pre", "code", "figure", "img", "picture"})


MAX_NOISE_SHARE = 0.5
"""A noise-hinted element holding this share of the page's punctuation may be a wrapper
(see `_is_wrapper`)."""

DISPLAY_PROSE_PUNC = 3
"""Sentence marks outside links from which a block named only for how it is shown (a
carousel, a banner, a section header: `article_names.DISPLAY_WORDS`) is content of a page's
main text rather than furniture: three sentences are a pitch, not a caption or a price."""

DISPLAY_SENTENCE_CHARS = 30
"""Characters outside links per sentence mark from which such a block's marks end sentences:
a carousel of product cards has a mark every few words (prices, "Quick view: Add to
basket"), prose one every sentence."""

DISPLAY_LINKS = 0.5
"""Link density below which such a block is prose: a carousel of links to other products
or posts is furniture whatever it says."""


MOST_PROSE_SHARE = 0.7
"""A noise-hinted element holding this share of the page's punctuation is a wrapper,
whatever its class names say (unless its tag or role says navigation or an aside, or it is named for
comments: a long discussion under a short post holds most of the page too)."""


MIN_OWN_PARAGRAPHS = 3
"""Paragraphs of prose a hinted block holding half of the page's sentences must have as its
children to be the post's body without holding the title's heading (see `_is_wrapper`)."""


TEASER_TAGS = frozenset({"li", "div", "article", "section", "dd", "dt"})
MIN_TEASERS = 3
CARD_TAGS = frozenset({"div", "article", "section"})
"""Teaser records that are cards, whose classes may name the record (`_shared_class_groups`)."""
MAX_TEASER_CHARS = 600
"""Teaser records are short: a headline link and at most a sentence or two each."""


CARD_REACH = 3
CARD_EXTRA = 0.25
"""Wrappers (CARD_REACH at most) around a block of teaser-like records, each adding under
CARD_EXTRA of the block's text, through which the block may stand among a post's
paragraphs (`_card_list_in_prose`)."""


MIN_TEASER_LINK_DENSITY = 0.1
MIN_TEASERS_WITH_LINK = 0.8
"""Share of the records that must open with a link (a headline link)."""


MIN_PROSE_PUNC = 2
MIN_PROSE_CHARS = 100
"""Prose: a block with this many sentence marks and characters outside links. A list beside
a paragraph of prose is in the text (its records are no teasers); sibling parts of an
article each hold prose."""


LIST_TAGS = frozenset({"ul", "ol"})


def is_noise_hint(el: HtmlElement, class_hints: bool = True, shown: bool = False) -> bool:
    """True for hidden elements and for containers whose tag, role, class or id says noise
    (without `class_hints`, of class and id names only those that say comments: a retry
    that takes a comment list for the article finds other text, not more of it; with
    `shown`, hiding is no noise: a folded panel, see `folded`). A heading is no container:
    its names name the heading (`et_pb_module_header`, `map-search-header`), not a region of
    the page, and only a comment name counts. The element's attributes are read in one
    call (every element of a page is asked, and one read of each of seven names cost
    three times as much); an element without any is noise only by its tag."""
    return _tagged_noise_hint(el, el.tag, class_hints, shown)


def _tagged_noise_hint(el: HtmlElement, tag: str, class_hints: bool, shown: bool) -> bool:
    """`is_noise_hint` of `el`, whose tag the caller read already."""
    if tag in NEVER_NOISE_TAGS:
        return False
    items = el.items()
    if not items:
        return tag in NOISE_TAGS or is_custom_furniture(tag)
    attrs = dict(items)
    if not shown and (hidden_by(attrs, tag) or _hidden_by_class(attrs.get("class"))) \
            or tag in NOISE_TAGS or is_custom_furniture(tag):
        return True
    if (attrs.get("role") or "").lower() in NOISE_ROLES:
        return True
    names = _class_names(el, attrs)
    if not class_hints or tag in HEADING_TAGS:
        return len(names) >= 3 and names_mod.says_comments(names)
    return len(names) >= 3 and _names_say_noise(names)


def noise_hint(stats: TreeStats, i: int, class_hints: bool = True, shown: bool = False) -> bool:
    """`is_noise_hint` of element `i` of `stats`; with the default flags, asked once per
    element and page (`TreeStats.noise_hints`): every pass of the retry ladder
    (`noise_roots`) and the main region's furniture ask the same elements again. Without
    `class_hints` an element is hinted only where it is with them (the names then count
    only when they say comments, which hints with them too), so an element known unhinted
    with the default flags is not read again: most of a retry pass's elements."""
    el, tag = stats.elements[i], stats.tags[i]
    if shown:
        return _tagged_noise_hint(el, tag, class_hints, True)
    known = stats.noise_hints.get(i)
    if not class_hints:
        return known is not False and _tagged_noise_hint(el, tag, False, False)
    if known is None:
        known = stats.noise_hints[i] = _tagged_noise_hint(el, tag, True, False)
    return known


def is_custom_furniture(tag: object) -> bool:
    """Whether a tag is a custom element's whose last piece names furniture
    (CUSTOM_NOISE_ROLES)."""
    return isinstance(tag, str) and "-" in tag \
        and tag.rsplit("-", 1)[1].lower() in CUSTOM_NOISE_ROLES


def _hidden_by_class(classes: str | None) -> bool:
    """A utility class that means display:none ("hidden", "d-none"): no other class word
    overrules it (`vcrArticleTab hidden` is a tab not shown)."""
    if not classes:
        return False
    return not HIDING_CLASSES.isdisjoint(classes.split())


def _names_say_noise(names: str) -> bool:
    """Whether class and id tokens name comments or noise no content word overrules."""
    return names_mod.says_comments(names) or names_mod.says_noise(names)


def class_names(el: HtmlElement) -> str:
    """The class and id words that can say what an element is for. An id of SLUG_WORDS words
    or more is a slug of the content's own heading ("sharing-with-a-single-developer"), not
    a role, and is left out; so is an id that spells the element's own text (the anchor of a
    section heading "Community")."""
    return _class_names(el, el.attrib)


def _class_names(el: HtmlElement, attrs: Mapping[str, str]) -> str:
    """`class_names` of `el`, whose attributes are `attrs`."""
    ident = attrs.get("id") or ""
    if ident and (len(_SLUG_SPLIT_RE.split(ident)) >= SLUG_WORDS
                  or _spells_own_text(el, ident)):
        ident = ""
    return f"{attrs.get('class') or ''} {ident}"


def _spells_own_text(el: HtmlElement, ident: str) -> bool:
    words = _WORD_RE.findall(ident.casefold())
    return bool(words) and words == _WORD_RE.findall((el.text or "").casefold())


def noise_roots(stats: TreeStats, heading: int | None = None,
                class_hints: bool = True, folded: AbstractSet[int] = frozenset()) -> list[int]:
    """Hinted containers, whose subtrees are noise before any extraction, that are not
    layout wrappers (see `_is_wrapper`); class and id names count only with `class_hints`.
    The `folded` elements (panels a control shows, see `folded`) are judged as shown: hiding
    them makes them no noise. The page's other noise before extraction is its teaser lists
    (`teaser_lists`)."""
    page_punc = max(stats.content_punc(0), 1)
    roots: list[int] = []
    i, n = 0, len(stats.elements)
    while i < n:  # a root's subtree goes with it: what lies inside is not looked at
        if noise_hint(stats, i, class_hints, i in folded) \
                and not _swallows_blocks(stats, i) \
                and not _is_wrapper(stats, i, heading, page_punc):
            roots.append(i)
            i = stats.end[i]
        else:
            i += 1
    return roots


def _is_wrapper(stats: TreeStats, i: int, heading: int | None, page_punc: int) -> bool:
    """A hinted container holding most of the page's sentences wraps the article: class
    names that speak of a layout (`page no-sidebars`, `l-sidebar-fixed`) or a tone
    (`subscriber-only`). Holding MOST_PROSE_SHARE of the page's punctuation, it is one whatever
    its class words say, unless its tag or role says navigation or an aside or it is named
    for comments (a long discussion under a short post). Holding
    MAX_NOISE_SHARE, with the title's heading known, it must hold that heading, and then even
    an <aside> a site put its post in is one, or hold MIN_OWN_PARAGRAPHS paragraphs of prose
    as its children (the post's body itself, `rich-text-newsletter` under a newsletter
    issue's title), and be no aside, navigation or comment list; without the heading, an
    <aside>, a comment list or a navigation role never is. A list never wraps a page: a
    slideshow's many captions are still a slideshow."""
    punc = stats.content_punc(i)
    el = stats.elements[i]
    if punc < MAX_NOISE_SHARE * page_punc or el.tag in LIST_TAGS:
        return False
    if punc >= MOST_PROSE_SHARE * page_punc and not named_noise(el):
        return True
    if heading is None:
        return not named_noise(el)
    return econ.is_descendant(stats, heading, i) or (
        not named_noise(el) and _own_paragraphs(stats, i) >= MIN_OWN_PARAGRAPHS)


def _own_paragraphs(stats: TreeStats, i: int) -> int:
    """The element's children that are paragraphs of prose."""
    return sum(1 for k in children(stats, i)
               if stats.tags[k] == "p" and is_prose(stats, k))


def template_roots(stats: TreeStats, flagged: set[int]) -> list[int]:
    """Outermost elements all of whose text is template text (the own text of `flagged`
    elements): a container whose own words are template but that also holds the article
    must not take the article with it."""
    if not flagged:
        return []  # no template text: no element is all template
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
    return stats.tags[i] in INLINE_TAGS and stats.chars[i] > MAX_INLINE_NOISE_CHARS


def teaser_lists(stats: TreeStats, by_record: bool = False) -> list[int]:
    """Repeated link-led records: related stories, most-read lists, rails.

    Three or more siblings with the same tag and class that each hold a link and little
    text form a list of records, not prose; article paragraphs repeat too but are not led
    by links (the record idea of MDR and MiBAT, applied to template noise). A list that
    stands among the paragraphs of a post is what the post links to, and stays; so does a
    list holding most of the page's sentences (`_is_listicle`). With `by_record`, cards
    whose classes differ only in per-record tokens are one list (`_shared_class_groups`).
    """
    groups: dict[tuple[int, str, str], list[int]] = {}
    tags = stats.tags
    for i in range(1, len(stats.elements)):
        if stats.chars[i] and tags[i] in TEASER_TAGS:
            key = (stats.parent[i], tags[i], stats.elements[i].get("class") or "")
            groups.setdefault(key, []).append(i)
    if by_record:
        groups = _shared_class_groups(groups)
    in_prose = prose_parents(stats)
    page_punc = max(stats.content_punc(0), 1)
    found: list[int] = []
    for items in groups.values():
        if (len(items) >= MIN_TEASERS and are_teasers(stats, items)
                and not list_in_prose(stats, stats.parent[items[0]], in_prose)
                and not _card_list_in_prose(stats, stats.parent[items[0]], in_prose)
                and not _is_listicle(stats, items, page_punc)):
            found.extend(items)
    return found


def _shared_class_groups(groups: Mapping[tuple[int, str, str], list[int]]
                         ) -> dict[tuple[int, str, str], list[int]]:
    """`groups` of same-class siblings regrouped by their classes less per-record tokens:
    tokens holding a digit (an id: `post-1281`) and, when the siblings of a tag share some
    tokens, all tokens but those (`category-news`, `tag-hiring`), so that a blog's post
    cards, each naming its own id, categories and tags (WordPress's `post_class`), are one
    list as cards sharing one class string are. Only cards (CARD_TAGS): the items of a
    list are one list already, and a menu's items, each typed by what it links to, are
    left to the rules that read menus."""
    found: dict[tuple[int, str, str], list[int]] = {}
    cards: dict[tuple[int, str], list[tuple[str, list[int]]]] = {}
    for (parent, tag, classes), items in groups.items():
        if tag in CARD_TAGS:
            cards.setdefault((parent, tag), []).append((classes, items))
        else:
            found[(parent, tag, classes)] = items
    for (parent, tag), siblings in cards.items():
        if len(siblings) == 1:  # one class string: nothing to regroup
            found[(parent, tag, siblings[0][0])] = siblings[0][1]
            continue
        tokens = [{t for t in classes.split() if not any(c.isdigit() for c in t)}
                  for classes, _ in siblings]
        shared = set.intersection(*tokens)
        merged: dict[str, list[int]] = {}
        for own, (_, items) in zip(tokens, siblings, strict=True):
            merged.setdefault(" ".join(sorted(shared or own)), []).extend(items)
        for key, items in merged.items():
            found[(parent, tag, key)] = sorted(items)
    return found


def _is_listicle(stats: TreeStats, items: list[int], page_punc: int) -> bool:
    """Records holding MOST_PROSE_SHARE of the page's punctuation are the page's own text (a
    listicle of places or products, each a linked name and a paragraph), not a rail beside
    it: a rail is the smaller part of a page, as a wrapper is the larger (`_is_wrapper`)."""
    return sum(stats.content_punc(i) for i in items) >= MOST_PROSE_SHARE * page_punc


def prose_parents(stats: TreeStats, root: int = 0) -> set[int]:
    """Elements in `root`'s subtree with a paragraph of prose among their children: where a
    post's text is."""
    return {stats.parent[i] for i in range(root + 1, stats.end[root])
            if stats.tags[i] == "p" and is_prose(stats, i)}


def list_in_prose(stats: TreeStats, i: int, prose_parents: set[int]) -> bool:
    """A list standing among paragraphs of prose: what a post links to or enumerates (a
    roundup, a blog carnival, a schedule), not a rail beside it."""
    return (i > 0 and stats.tags[i] in LIST_TAGS
            and stats.parent[i] in prose_parents)


def _card_list_in_prose(stats: TreeStats, parent: int, prose_parents: set[int]) -> bool:
    """Records in a block of cards (not a list: `list_in_prose` judges those) that stands
    among the paragraphs of a post, inside at most CARD_REACH wrappers that add little text
    of their own (CARD_EXTRA: a card's heading or intro): a list plugin's roundup of
    projects or products the post presents, as a list among its paragraphs is."""
    if stats.tags[parent] in LIST_TAGS or stats.tags[parent] == "dl":
        return False
    a = parent
    for _ in range(CARD_REACH):
        up = stats.parent[a]
        if up <= 0:
            return False
        if up in prose_parents:
            return True
        if stats.chars[up] > (1 + CARD_EXTRA) * stats.chars[parent]:
            return False
        a = up
    return False


def are_teasers(stats: TreeStats, items: list[int]) -> bool:
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


def named_noise(el: HtmlElement) -> bool:
    """Noise by what the element is (tag, role, comments), not by layout class words."""
    return (el.tag in NAMED_NOISE_TAGS or (el.get("role") or "").lower() in NOISE_ROLES
            or is_comments(el))


def is_comments(el: HtmlElement) -> bool:
    """True for containers of user comments, which never belong to the article text."""
    return names_mod.says_comments(class_names(el)) and el.tag not in NEVER_NOISE_TAGS


REVIEW_WORDS = frozenset({"review", "reviews"})
"""Class and id words of the blocks that hold customer reviews: on a product page they are
furniture beside the product's own text, as an article's comments are, and records so named
are reviews, not a thread's posts."""


def names_reviews(el: HtmlElement) -> bool:
    """Whether the element's class or id words name customer reviews (REVIEW_WORDS)."""
    return names_mod.has_word(names_mod.name_tokens(class_names(el)), REVIEW_WORDS)


def kind_of(el: HtmlElement) -> tuple[str, str]:
    return el.tag, el.get("class") or ""


def is_prose(stats: TreeStats, i: int) -> bool:
    """A block with a sentence or more of text outside links (MIN_PROSE_*)."""
    return (not stats.excluded[i] and stats.content_punc(i) >= MIN_PROSE_PUNC
            and stats.content_chars(i) >= MIN_PROSE_CHARS)


def text_of(stats: TreeStats, i: int) -> str:
    """An element's whole text, whitespace collapsed; read once per element and page
    (`TreeStats.texts`)."""
    text = stats.texts.get(i)
    if text is None:
        text = stats.texts[i] = normalize_space(stats.elements[i].text_content())
    return text


def children(stats: TreeStats, i: int) -> list[int]:
    kids = []
    j = i + 1
    while j < stats.end[i]:
        kids.append(j)
        j = stats.end[j]
    return kids


def hidden_prose(stats: TreeStats, start: int, by_class: bool = False) -> set[HtmlElement]:
    """The blocks under element `start` that the page hides by attribute or inline style
    (`is_hidden`) and that hold prose (`shows_prose`), noise neither by tag, role or name once
    shown nor named for an overlay (OVERLAY_WORDS); outermost only. These are folded
    content whose control the page does not name (an accordion's answers, a tab's panels
    opened by script): the main region (`mainregion.main_region`) shows them, and so does
    ECON's body (`article.choose_body`). Hiding classes hide a responsive layout's other
    copy as often, so ECON's body leaves them alone; with `by_class` (the main region, which
    drops a block repeating an earlier one's text) a block hidden by a hiding class counts
    too (`_folded_by_class`)."""
    found: set[HtmlElement] = set()
    i = start + 1
    while i < stats.end[start]:
        el = stats.elements[i]
        if (hidden_at(stats, i) or by_class and _folded_by_class(stats, i, start)) \
                and not is_noise_hint(el, shown=True) and shows_prose(stats, i) \
                and not names_mod.has_word(names_mod.name_tokens(class_names(el)), OVERLAY_WORDS):
            found.add(el)
            i = stats.end[i]
        else:
            i += 1
    return found


def hidden_at(stats: TreeStats, i: int) -> bool:
    """`is_hidden` of element `i`, told by the page's hidden elements when its counts know
    them (`TreeStats.hidden`): `hidden_prose` asks every element of a region, and one set
    lookup costs a tenth of reading its four hiding attributes."""
    if stats.hidden is None:
        return is_hidden(stats.elements[i])
    return i in stats.hidden


def _folded_by_class(stats: TreeStats, i: int, start: int) -> bool:
    """Whether block `i` is hidden by a hiding class as folded content is: no class of its
    own shows it from some screen width (`_shown_responsively`), and it holds under
    FOLDED_PANEL_SHARE of the text under element `start`."""
    classes = stats.elements[i].get("class")
    return _hidden_by_class(classes) and not _shown_responsively(classes or "") \
        and stats.chars[i] < FOLDED_PANEL_SHARE * stats.chars[start]


def _shown_responsively(classes: str) -> bool:
    """Whether a class list shows its element from some screen width on (RESPONSIVE_SHOW_RE:
    Tailwind's `hidden lg:block`, Bootstrap's `d-none d-md-flex`, `display-block-desktop`):
    the element is one copy of a responsive layout, not content a script unfolds."""
    return any(RESPONSIVE_SHOW_RE.search(name) for name in classes.split())


def shows_prose(stats: TreeStats, i: int) -> bool:
    """Whether block `i` holds prose worth showing (what `mainregion` keeps of the blocks
    named only for how they are shown, and of hidden blocks): DISPLAY_PROSE_PUNC sentence
    marks or more outside links, DISPLAY_SENTENCE_CHARS characters per mark, link density
    under DISPLAY_LINKS."""
    marks = stats.content_punc(i)
    return marks >= DISPLAY_PROSE_PUNC and stats.link_density(i) < DISPLAY_LINKS \
        and stats.content_chars(i) >= DISPLAY_SENTENCE_CHARS * marks
