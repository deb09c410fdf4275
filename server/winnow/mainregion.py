"""The page's main region: the whole main content of pages that are not one article body.

A documentation page spreads over sections ECON sees as separate bodies, and a listing, a
product or a service page holds its content in many blocks; their main content is the page's
own main container (`<main>`, `role="main"`, or a lone `<article>`) or, without one, the body,
less what is plainly page furniture: header, navigation, sidebars, footers, forms and the
blocks whose class or role says noise (`article.is_noise_hint`; in a page's main text, not
the carousels, banners and section headers that hold prose), plus any elements the caller
knows are noise (a learned template's, a thread's records). The region is returned as a copy
without those parts and with the page's content and noise labels, as an `ArticleContent`, so
it renders and maps like ECON's body. Pure: no I/O.
"""

from __future__ import annotations

import copy
from bisect import bisect_left
from collections import Counter
from collections.abc import Collection, Sequence

from winnow import econ
from winnow.article import (
    ArticleContent,
    folded_indices,
    is_noise_hint,
    label_regions,
    page_stats,
    page_teasers,
)
from winnow.article_candidates import (
    HIDING_CLASSES,
    class_names,
    hidden_prose,
    names_reviews,
    noise_hint,
    shows_prose,
)
from winnow.article_names import says_display_only
from winnow.article_trim import MIN_TWIN_CHARS, card_twins, twin_blocks
from winnow.edges import edge_furniture
from winnow.folded import unfold
from winnow.layouttitles import normalize_url, words_of
from winnow.mibat_dom import page_dom
from winnow.page import HtmlElement, Page, is_hidden, wn_id
from winnow.pagetype import PageType, readerless_probability
from winnow.router import weighted_length

FURNITURE_TAGS = frozenset({"header", "nav", "footer", "aside"})
"""Tags that hold page furniture inside a main region (a docs page's sidebar and table of
contents are `nav` or `aside`, or named so)."""

MAIN_XPATH = "descendant::main | descendant::*[@role='main'] | descendant::*[@id='main']"
"""A main container: `<main>`, `role="main"`, or the element whose id is "main" (the
convention of documentation generators and many site themes that predate `<main>`)."""

MIN_MAIN_SHARE = 0.2
"""Share of the body's text a `<main>`, `role="main"` or lone `<article>` must hold to be the
page's main container: a shop's slide-out cart or an empty app shell named main holds a few
words while the page's content lies outside it."""

WRAPPER_SHARE = 0.5
"""Share of the region's text above which a block whose class, id or tag says noise (but no
header, nav, footer or aside element) is the page's wrapper rather than furniture: a sidebar
layout, a sticky-footer shell or a whole-page form holds the content itself. Its inside is
still read block by block."""

SPREAD_LEAN = 0.5
"""Probability of the readerless types (listing, product, service) from which a page read as
an article is checked for a spread-out body (`is_spread_out`): below it the page is taken at
its word as an article."""

SPREAD_BODY_SHARE = 0.75
"""Share of the main region's text below which ECON's body may be one block of a page spread
over many (a service page's sections, a listing's cards): such a page leaning to a readerless
type is "other" when the quality estimate rates its whole main region above the body. An
article's body holds most of its region. At 0.5, WCXB's tune pages (out-of-fold types) lost
collections whose body held 60% to 75% of the region; the estimate, not this gate, is the
judge, so the gate is wide."""


SPREAD_TEXT_SHARE = 0.45
"""Share of the main region's text below which the text ECON kept of its body (`text_share`)
says the page is spread out even when the body's element holds more: ECON's pruning kept a
few blocks of a large one. A little under SPREAD_BODY_SHARE, the quality estimate being a
weak judge near half: at 0.5 a readability article (0.475) went to "other"; 0.45 keeps it
and gives up one WCXB service page (0.463)."""


LEANING_TEXT_SHARE = 0.7
"""Share of the main region's text below which the text ECON kept of its body (`text_share`)
says a page leaning to a readerless type (SPREAD_LEAN) may be spread out even when the body's
element holds more: ECON's pruning kept a few blocks of a large one. The quality estimate then
judges; pages not leaning so keep SPREAD_TEXT_SHARE (`extractor._prose_region`). At 0.45, WCXB's
tune collections and listings (out-of-fold types) whose body kept half to two thirds of the
region stayed articles though the region reads better."""


PROSE_REST_LINKS = 0.2
"""Link density of the main region's text outside ECON's body below which that text is prose
(`rest_is_prose`): a service page's other sections, a guide's other entries. On the article
sets' tune pages, an untitled body holding under half of its region has a region whose rest
is mostly links (0.5 to 1) but for a few pages of long comments, which the quality estimate
keeps as articles."""

PROSE_MARK_CHARS = 200
"""Characters outside links per sentence mark above which a region's text is no prose
(`rest_is_prose`): prose has a mark every sentence (50 to 90 characters on WCXB's landing
pages), a wall of words or a list of names none."""


LEFT_OUT_LEAN = 0.35
"""Probability of the readerless types from which a page read as an article is read as its
main region when ECON's pruning left the page's own prose out of it (`left_out_prose`).
Lower than SPREAD_LEAN: the sign here is the text ECON dropped, not a guess of the page's
shape. On WCXB's tune pages the gain holds from 0.35 to 0.5, with types shipped or
out-of-fold; below it articles start to go."""

LEFT_OUT_MIN_LINES = 10
"""Lines of the main region's text outside ECON's body from which what ECON left out can be
a landing page's other sections (`left_out_prose`); fewer are a caption, a teaser or two."""

LEFT_OUT_PROSE_SHARE = 0.15
"""Share of the words outside ECON's body in the page's own sentences (PROSE_LINE_WORDS, a
sentence mark at the end, not inside a link nor under a linked title) from which ECON's
pruning dropped the page's own text rather than its links, labels and teasers
(`left_out_prose`). On WCXB's tune pages leaning to the readerless types (LEFT_OUT_LEAN),
service pages whose ECON body is one section of the landing page have 0.27 to 0.82; news
pages whose region adds teasers, tags and menus 0 to 0.07 (a guidance page whose related
cards are not links has 0.18, and loses)."""

PROSE_LINE_WORDS = 10
"""Words a line of text holds at least to be a sentence of prose (`left_out_prose`)."""

PROSE_LINE_ENDS = ".!?:;)\"'\u201d"
"""The characters a line of prose ends with: a sentence mark or a closing quote or bracket."""


RAIL_SHARE = 0.2
"""Share of the main region's text under which the page's teaser lists together are rails
beside a product (related, recently viewed: 2% to 17% of WCXB's tune product regions) and
are dropped from a product page's main text (`_rails`); from it they are the page's own
cards, a collection or a service page the page-type classifier took for a product's (26% to
85% on WCXB's tune pages with out-of-fold types)."""


FACET_OPTION_CHARS = 80
"""Characters of text up to which the element around a checkbox or radio button (its label,
its list item) is one option of a choice: a filter's "Black (12)", a sort order's "Price: Low
to High". Longer, the control sits on a card or in a form of prose (a product's compare box)."""

MIN_FACET_OPTIONS = 3
"""Options (FACET_OPTION_CHARS) a block holds at least to be a panel of choices."""

FACET_SHARE = 0.6
"""Share of a block's text its options (FACET_OPTION_CHARS) hold from which the block is a
panel of choices, page furniture (`_FacetOptions`): a shop's filters by brand, price and
colour, a sort menu, a cookie dialog's purposes. On WCXB's tune listings and collections the
filter panels' options hold 60% to 96% of their text (the rest: group headings, "Show more");
a grid of cards with a compare box each holds a few percent."""


LINK_LIST_LINKS = 4
"""Links a block of link text alone must hold to be a service page's menu
(`_is_menu`)."""

LINK_LIST_SHARE = 0.8
"""Share of a block's text in links from which it is a list of links, not prose with links."""

LINK_LIST_CHARS = 30
"""Characters per link up to which a list of links is a menu of short labels, not a list of
titled cards."""

LINK_LIST_LONGEST = 60
"""Characters of a menu's longest link: a menu's labels are all short, a teaser list's
titles are long, however short its links to sections and authors."""

LINK_LIST_REPEATS = 0.5
"""Share of a list's links whose targets other links of the page also point to, from which
the list repeats the site's navigation (a menu) rather than listing the page's own items:
a category page's lists of subcategories and a freelancer site's skills point once each."""

MAIN_CONTAINERS = "main_containers"
"""`page.derived` key of the page's main containers found so far, by the `near` asked with."""


def main_container(page: Page, near: HtmlElement | None = None) -> HtmlElement | None:
    """The page's main container: the main element (MAIN_XPATH) holding `near` (the body
    ECON chose) when there is one, else the largest; a lone `<article>` when the page has
    none; None when the page names no main container. Found once per page and `near`: the
    landing-page, fragment and main-text readings of one body all ask (memoized in
    `page.derived`, keyed by `near`, which the memo keeps alive)."""
    memo: dict[int | None, tuple[HtmlElement | None, HtmlElement | None]] = \
        page.derived.setdefault(MAIN_CONTAINERS, {})
    key = None if near is None else id(near)
    known = memo.get(key)
    if known is None or known[0] is not near:
        known = memo[key] = (near, _find_main_container(page, near))
    return known[1]


def _find_main_container(page: Page, near: HtmlElement | None) -> HtmlElement | None:
    """`main_container`, found."""
    stats = page_stats(page)
    mains = _mains(page)
    if near is not None:
        holding = [el for el in mains if el is near or el in near.iterancestors()]
        if holding:
            return holding[-1]  # the innermost
    found: HtmlElement | None = None
    if mains:
        found = max(mains, key=lambda el: len(el.text_content()))
    else:
        articles = page.body.findall(".//article")
        found = articles[0] if len(articles) == 1 else None
    if found is None:
        return None
    return found if stats.chars[stats.index[found]] >= MIN_MAIN_SHARE * stats.chars[0] else None


def _mains(page: Page) -> list[HtmlElement]:
    """The main elements under the body (MAIN_XPATH's answer, in document order): its
    `<main>` elements and, of the nodes with a role or an id (`DomTree.named`), those whose
    role or id is "main". A look at two attributes of each element cost half the query (which
    walks the body once per branch of its union), and the named nodes are a tenth of them."""
    dom = page_dom(page)
    elements, tags = dom.elements, dom.tree.tags
    found = {v for v in dom.named
             if v and (elements[v].get("role") == "main" or elements[v].get("id") == "main")}
    if "main" in tags:
        found.update(v for v, tag in enumerate(tags) if tag == "main")
    return [elements[v] for v in sorted(found)]


def main_region(page: Page, root: HtmlElement, noise: Sequence[HtmlElement] = (),
                drop_twins: bool = False, drop_reviews: bool = False,
                drop_teasers: bool = False, shown_prose: bool = False,
                folded_classes: bool = False, laid_out: bool = False,
                drop_menus: bool = False, trim_edges: bool = False,
                drop_card_twins: bool = False) -> ArticleContent:
    """`root` without its furniture and the given `noise`, with the page's labels; with
    `drop_twins`, without the blocks that repeat an earlier one's text (`twin_blocks`: a page's
    main text, not a document whose language tabs each repeat the same notes), and with
    `drop_card_twins` also of the short texts a card repeats (`card_twins`; without it, the
    region counts those it keeps); with
    `drop_teasers`, without its rails of teasers (`_rails`: a product page's related and
    recently viewed products); with `shown_prose`, keeping the prose of blocks named only for
    how they are shown (`_shown_prose`) and of the blocks the page hides without naming their
    control (`article_candidates.hidden_prose`), and with `folded_classes` also of those it
    hides by a hiding class (a service page's FAQ answers; a product page hides so the
    notices of states the shopper has not chosen: sold out, on sale, back in stock), and
    with `laid_out` also of the blocks named only for how they are laid out
    (`article_names.LAYOUT_WORDS`: a landing page's sections, a product page's galleries); with
    `drop_menus`, without the menus repeated in it (`_is_menu`: blocks of short links alone,
    most of them to targets other links of the page point to); with `trim_edges`, without
    the lines of furniture that open or close its text (`edge_furniture`)."""
    stats = page_stats(page)
    start = stats.index[root]
    panels = {stats.elements[i] for i in folded_indices(page, stats)
              if start <= i < stats.end[start]}
    if shown_prose:
        panels |= hidden_prose(stats, start, by_class=folded_classes)
    drop = _furniture(page, stats, start, noise, panels, drop_reviews, shown_prose,
                      shown_prose and laid_out, drop_menus)
    if drop_teasers:
        drop = sorted(drop + _rails(page, stats, start, drop))
    if trim_edges:
        drop = sorted(drop + edge_furniture(stats, start, set(drop)))
    cards: list[int] = []
    if drop_twins:
        drop = sorted(drop + twin_blocks(stats, start, set(drop), MIN_TWIN_CHARS))
        cards = card_twins(stats, start, set(drop))
    if drop_card_twins:
        drop = sorted(drop + cards)
    clone = copy.deepcopy(root)
    clone.tail = None
    twins = list(clone.iter())
    for el in panels:
        unfold(twins[stats.index[el] - start], HIDING_CLASSES)
    for i in drop:
        twin = twins[i - start]
        if twin.getparent() is not None:
            twin.drop_tree()
    content, dropped = label_regions(stats, start, set(drop))
    return ArticleContent(clone, root, _ids(stats, content), _ids(stats, dropped), "region",
                          0.0, stats.chars[0], card_twins=0 if drop_card_twins else len(cards))


def is_spread_out(page: Page, page_type: PageType, body: HtmlElement,
                  noise: Sequence[HtmlElement] = ()) -> bool:
    """True when a page leaning to a readerless type (SPREAD_LEAN) has its text spread over
    many blocks: ECON's `body` holds under SPREAD_BODY_SHARE of the main region around it."""
    if readerless_probability(page_type) < SPREAD_LEAN:
        return False
    return body_share(page, body, noise) < SPREAD_BODY_SHARE


def body_share(page: Page, body: HtmlElement, noise: Sequence[HtmlElement] = ()) -> float:
    """The share of the main region's text (the main container around `body`, less its
    furniture and the given noise) that `body` holds; 1 when the region holds no text."""
    stats = page_stats(page)
    if body not in stats.index:
        return 1.0
    main = main_container(page, body)
    start = stats.index[page.body if main is None else main]
    region = stats.chars[start] \
        - sum(stats.chars[i] for i in _furniture(page, stats, start, noise))
    return min(1.0, stats.chars[stats.index[body]] / region) if region > 0 else 1.0


def rest_is_prose(page: Page, body: HtmlElement, noise: Sequence[HtmlElement] = ()) -> bool:
    """Whether the main region's text outside `body` (the main container around it, or the
    page's body, less its furniture and the given noise) is prose: link density under
    PROSE_REST_LINKS and a sentence mark outside links at least every PROSE_MARK_CHARS
    characters outside links. What a prose page's region holds beside one section is more
    prose; what an article's region holds beside its body is mostly links (blogrolls,
    teasers, tag clouds the furniture names missed). False when `body` is not in the region
    or the region holds nothing else."""
    rest = _rest_counts(page, body, noise)
    if rest is None or rest[0] <= 0 or rest[1] >= PROSE_REST_LINKS * rest[0]:
        return False
    return rest[0] - rest[1] <= PROSE_MARK_CHARS * rest[2]


def _rest_counts(page: Page, body: HtmlElement,
                 noise: Sequence[HtmlElement]) -> tuple[int, int, int] | None:
    """Characters, link characters and sentence marks outside links of the main region's
    text outside `body`; None when `body` is not inside the region."""
    stats = page_stats(page)
    if body not in stats.index:
        return None
    main = main_container(page, body)
    root = page.body if main is None else main
    start, inner = stats.index[root], stats.index[body]
    if not start < inner < stats.end[start]:
        return None
    drop = _furniture(page, stats, start, noise)
    if not any(i <= inner < stats.end[i] for i in drop):
        drop = [i for i in drop if not inner < i < stats.end[inner]] + [inner]
    chars = stats.chars[start] - sum(stats.chars[i] for i in drop)
    links = stats.link_chars[start] - sum(stats.link_chars[i] for i in drop)
    marks = stats.content_punc(start) - sum(stats.content_punc(i) for i in drop)
    return chars, links, marks


def text_share(body_text: str, region_text: str) -> float:
    """The share of the main region's text (weighted length) the body's rendered text holds;
    1 when the region has none. ECON's body may be a large block of which its pruning kept a
    few paragraphs: its element then holds most of the region, its text does not."""
    region = weighted_length(region_text)
    return min(1.0, weighted_length(body_text) / region) if region else 1.0


def left_out_prose(body_text: str, region: ArticleContent, region_text: str) -> bool:
    """Whether the main region's text (`region_text`, of `region`) holds, outside the lines
    of ECON's body, the page's own prose: LEFT_OUT_MIN_LINES lines or more, LEFT_OUT_PROSE_SHARE
    of whose words are in sentences neither inside a link nor right under a line that is a
    whole link (a card's or a teaser's summary under its linked title). ECON's body is then one
    section of a landing page, the rest of which its pruning dropped; an article's region adds
    link lists, tags and teasers, which ECON rightly left out."""
    kept = {_words(line) for line in body_text.splitlines()}
    rest = [line for line in region_text.splitlines() if line.strip() and _words(line) not in kept]
    if len(rest) < LEFT_OUT_MIN_LINES:
        return False
    link_texts = [_words(a.text_content()) for a in region.content.iter("a")]
    links, linked = set(link_texts) - {""}, "\n".join(link_texts)
    own = sum(len(line.split()) for above, line in zip(["", *rest[:-1]], rest, strict=True)
              if _is_prose_line(line) and _words(above) not in links
              and _words(line) not in linked)
    return own >= LEFT_OUT_PROSE_SHARE * sum(len(line.split()) for line in rest)


def _words(line: str) -> str:
    """A line's words, lowercased, without punctuation: the same line in two renderings."""
    return " ".join(words_of(line))


def _is_prose_line(line: str) -> bool:
    """Whether a line of text is a sentence of prose (PROSE_LINE_WORDS, PROSE_LINE_ENDS)."""
    return len(line.split()) >= PROSE_LINE_WORDS and line.rstrip()[-1:] in PROSE_LINE_ENDS


def _furniture(page: Page, stats: econ.TreeStats, start: int, noise: Sequence[HtmlElement],
               panels: Collection[HtmlElement] = (), reviews: bool = False,
               prose: bool = False, laid_out: bool = False,
               drop_menus: bool = False) -> list[int]:
    """The indices of the furniture blocks, panels of choices (`_FacetOptions`) and given
    `noise` under element `start`, outermost only (a dropped block's inside is not visited).
    Folded `panels` are judged as shown; with `prose`, a block named only for how it is shown
    (and with `laid_out`, or laid out) stays when it holds prose; with `drop_menus`, a menu
    (`_is_menu`) is furniture."""
    given = {stats.index[el] for el in noise if el in stats.index}
    drop: list[int] = []
    wrapper_chars = WRAPPER_SHARE * stats.chars[start]
    facets = _FacetOptions.of(stats, page.choice_fields)
    targets = _link_targets(page.body) if drop_menus else None
    i = start + 1
    while i < stats.end[start]:
        el = stats.elements[i]
        shown = el in panels
        if i in given or el.tag in FURNITURE_TAGS \
                or facets is not None and facets.is_panel(i) and stats.chars[i] <= wrapper_chars \
                or (noise_hint(stats, i, shown=shown)
                    and not (prose and _shown_prose(stats, i, shown, laid_out))
                    or reviews and names_reviews(el)
                    or targets is not None and _is_menu(stats, i, targets)) \
                and not _is_wrapper(el, stats.chars[i], wrapper_chars):
            drop.append(i)
            i = stats.end[i]
        else:
            i += 1
    return drop


class _FacetOptions:
    """The options of the page's choices under a tree's counts: for each checkbox and radio
    button (`Page.choice_fields`, their parents), the nearest element around it with text,
    when that text is short (FACET_OPTION_CHARS); outermost only."""

    def __init__(self, stats: econ.TreeStats, choices: Sequence[HtmlElement]) -> None:
        self.stats = stats
        found: set[int] = set()
        for el in choices:
            i = stats.index.get(el)
            while i is not None and i > 0 and stats.chars[i] == 0:
                i = stats.parent[i]
            if i is not None and 0 < stats.chars[i] <= FACET_OPTION_CHARS:
                found.add(i)
        self.options: list[int] = []
        for i in sorted(found):
            if not (self.options and i < stats.end[self.options[-1]]):
                self.options.append(i)
        self.sums = [0]
        for i in self.options:
            self.sums.append(self.sums[-1] + stats.chars[i])

    @classmethod
    def of(cls, stats: econ.TreeStats, choices: Sequence[HtmlElement]) -> _FacetOptions | None:
        """The options of `choices`, or None when they are too few to make a panel (most
        pages have no checkbox at all)."""
        if len(choices) < MIN_FACET_OPTIONS:
            return None
        options = cls(stats, choices)
        return options if len(options.options) >= MIN_FACET_OPTIONS else None

    def is_panel(self, i: int) -> bool:
        """Whether block `i` is a panel of choices: it holds MIN_FACET_OPTIONS options or
        more, whose text is FACET_SHARE of its own or more."""
        first = bisect_left(self.options, i)
        last = bisect_left(self.options, self.stats.end[i])
        return last - first >= MIN_FACET_OPTIONS \
            and self.sums[last] - self.sums[first] >= FACET_SHARE * self.stats.chars[i]


def _rails(page: Page, stats: econ.TreeStats, start: int, drop: Sequence[int]) -> list[int]:
    """The page's teaser lists (`article.page_teasers`, the records ECON's body leaves out)
    under element `start` and outside the `drop`ped blocks, outermost only, when together
    they hold under RAIL_SHARE of the region's text less `drop`: a product page's rails of
    related products. More are the page's own cards (a collection or a service page's
    offers the page-type classifier took for a product's); none are then dropped."""
    dropped = [(i, stats.end[i]) for i in drop]
    found: list[int] = []
    for i in sorted(page_teasers(page, stats)):
        if start < i < stats.end[start] and not any(a <= i < b for a, b in dropped) \
                and not (found and i < stats.end[found[-1]]):
            found.append(i)
    region = stats.chars[start] - sum(stats.chars[i] for i in drop)
    return found if sum(stats.chars[i] for i in found) < RAIL_SHARE * region else []


def _shown_prose(stats: econ.TreeStats, i: int, shown: bool, laid_out: bool = False) -> bool:
    """Whether block `i`, noise by its class or id names alone and those only DISPLAY_WORDS
    (with `laid_out`, or LAYOUT_WORDS: `article_names.says_display_only`), holds prose
    (`article_candidates.shows_prose`): a landing page's carousel of features, its banner's
    pitch or its sections in scrolling strips, not a row of links."""
    el = stats.elements[i]
    if is_noise_hint(el, class_hints=False, shown=shown) \
            or not says_display_only(class_names(el), laid_out):
        return False
    return shows_prose(stats, i)


def _is_menu(stats: econ.TreeStats, i: int, targets: Counter[str]) -> bool:
    """Whether block `i` is a menu: LINK_LIST_LINKS links or more, LINK_LIST_SHARE of its
    text in them, LINK_LIST_CHARS characters or fewer per link and none longer than
    LINK_LIST_LONGEST, LINK_LIST_REPEATS of them pointing where other links of the page
    (`targets`) point too."""
    if stats.link_density(i) < LINK_LIST_SHARE:
        return False
    links = sum(stats.is_link[i:stats.end[i]])
    if links < LINK_LIST_LINKS or stats.link_chars[i] > LINK_LIST_CHARS * links:
        return False
    el = stats.elements[i]
    if any(len(a.text_content().strip()) > LINK_LIST_LONGEST for a in el.iter("a")):
        return False
    own = _link_targets(el)
    repeated = sum(n for target, n in own.items() if targets[target] > n)
    return repeated >= LINK_LIST_REPEATS * sum(own.values())


def _link_targets(root: HtmlElement) -> Counter[str]:
    """How many links under `root` point to each target (`layouttitles.normalize_url`)."""
    return Counter(normalize_url(a.get("href", "")) for a in root.iter("a") if a.get("href"))


def _is_wrapper(el: HtmlElement, chars: int, wrapper_chars: float) -> bool:
    """A noise-named block holding more than `wrapper_chars` of text, and hidden neither by
    its attributes nor by a hiding class, is the page's wrapper (WRAPPER_SHARE)."""
    classes = (el.get("class") or "").split()
    return chars > wrapper_chars and not is_hidden(el) and HIDING_CLASSES.isdisjoint(classes)


def _ids(stats: econ.TreeStats, indices: list[int]) -> list[int]:
    ids = (wn_id(stats.elements[i]) for i in indices)
    return sorted(i for i in ids if i is not None)
