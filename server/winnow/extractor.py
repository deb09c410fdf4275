"""`extract`: parse a page, route it by type, run the matching extractor, label its ids."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime

from winnow.article import ArticleContent, PageHints, extract_article, needs_retry
from winnow.collector import paused
from winnow.consensus import outside, strays
from winnow.declared import declared_description, with_declared
from winnow.leads import lead_chunks, with_leads
from winnow.mainregion import (
    LEANING_TEXT_SHARE,
    LEFT_OUT_LEAN,
    SPREAD_LEAN,
    SPREAD_TEXT_SHARE,
    body_share,
    is_spread_out,
    left_out_prose,
    main_container,
    main_region,
    rest_is_prose,
    text_share,
)
from winnow.metadata import Metadata, extract_metadata, text_direction
from winnow.page import HtmlElement, Page, parse_page
from winnow.pagefeatures import page_features
from winnow.pagetype import (
    PageType,
    classify,
    reader_page_type,
    readerless_probability,
    type_features,
)
from winnow.posts import PageContext, Thread, find_thread, opening_post
from winnow.quality import RETRY_BELOW, estimate, result_features
from winnow.render import Rendered, render_article
from winnow.result import Article, ArticleInfo, Extraction, PageKind
from winnow.router import (
    ThreadRole,
    declares_discussion,
    is_front_page,
    readerless_records,
    records_are_items,
    route,
    thread_role,
    weighted_length,
)
from winnow.sitemodel import SiteModel, Template
from winnow.threadpage import next_page, thread_noise_map, thread_title
from winnow.threadtext import posts_text

TITLE_REACH = 2
"""Ancestors of a short body searched for the title's heading (a post's title and its
caption share a container or two)."""

CONTENT_ROOT = "content_root"
"""`Page.derived` key of the element an article was found in, for the site model's vote on
where its template keeps the content (`Observation.note_content`)."""

BODY_TEXT = "article_body_text"
"""`Page.derived` key of the article's text before its learned lead was put before it: what the
site model's vote on where its template keeps the lead compares the lead with."""

RENDERED = "rendered_bodies"
"""`Page.derived` key of the bodies rendered during an extraction (`_render`)."""

FRAGMENT_SHARE = 0.1
"""Share of the text of the page's named main container (`<main>`, `role="main"`, id
"main") below which ECON's body is a fragment of it whatever the page's type, and the page
is "other" when the quality estimate rates the region's text above the body's. On WCXB's
tune pages read with out-of-fold page types (as unseen sites are), the listings and
collections read as articles keep 0.4% to 5% of their main container; an article's body
keeps most of it (the lowest, 11%, is an article beside a long teaser list). Pages without
a named container are left alone: their region is the whole body, blogrolls and all."""

FRAGMENT_BOUND = 2 * FRAGMENT_SHARE
"""Share of the main container's raw text (`text_content`, whitespace and all, an upper bound
of its region's rendered text) from which ECON's body is surely no fragment of it: the region
is then neither built nor rendered (`_fragment_region`). Twice FRAGMENT_SHARE, so that the
title and alt texts a rendering adds never matter."""

CODE_LEAN = 0.2
"""Documentation probability from which a page's preformatted blocks of plain text are
content on the article path (`PageHints.keep_code`): a fair chance of a manual's page, whose
commands and listings carry no punctuation (a page surely documentation takes the
documentation route, which keeps them anyway). A page read as an article (no records beside
its body) that leans so far to documentation is read on the documentation route as well
(`_whole_document`): its body is one section of a reference page, ECON's candidates drop its
short linked items (a guide's index of tasks) as teaser lists. On WCXB's tune pages with
out-of-fold types, the 14 pages read as articles with a documentation probability of 0.2 or
more gain 0.065 word F1 in sum (0.92 -> 0.99 for a guide's overview), one article loses 0.045
(its main container holds its related reads)."""

EXCERPT_CHARS = 200
"""Length of the excerpt taken from the body when the page has no description."""


@paused
def extract(html: bytes | str, url: str | None = None,
            model: SiteModel | None = None, now: datetime | None = None) -> Extraction:
    """Extract the reader view of one page, or the posts of a thread.

    With the `model` of the page's site, the template of the page's cluster marks what it
    explains as noise first (method "template+econ"); without one, or while the cluster is
    too young, the page gets single-page extraction (method "econ"). Raises `PageError`
    only for input that is not a page at all (empty, oversized, not text or bytes); any
    markup, however broken, gives a result. Relative post dates ("3 hours ago") count back
    from `now`, the time the page was seen (default: the current time).
    """
    clock = _Clock()
    page = parse_page(html, url)
    clock.lap("parse")
    template = model.template(page) if model is not None else None
    clock.lap("template")
    return extract_page(page, template, clock, now)


@paused
def extract_page(page: Page, template: Template | None = None,
                 clock: _Clock | None = None, now: datetime | None = None, *,
                 learned_retry: bool = True) -> Extraction:
    """Extract an already parsed page, with the template of its site's cluster if any.

    MiBAT runs first; the records it finds count for nothing in ECON, so the article body
    found beside them says whether the page is a thread (the records hold most of the
    text), an article with comments (its body comes before them) or neither, in which
    case ECON runs again on the whole page. A body the quality estimate doubts is extracted
    again with looser rules (`learned_retry`; without it, the article module's own trigger
    decides: bench/train_models.py gathers its data so, independent of the model it trains).
    """
    clock = clock or _Clock()
    url = page.url
    meta = extract_metadata(page)
    noise = list(template.noise) if template else []
    context = PageContext(url, meta.title, meta.lang, now or datetime.now(UTC), page.has_ids)
    thread = find_thread(page, context, template.records if template else None)
    if thread is not None and not thread.are_posts():
        thread = None  # dated teasers or an archive: ECON runs once, on the whole page
    clock.lap("mibat")
    page_type = classify(page)
    reader_type = reader_page_type(page_type)
    clock.lap("pagetype")
    estimates = _Estimates(page, page_type)
    retry = _learned_retry(page, meta, estimates) if learned_retry else needs_retry
    forum = reader_type == "forum" or thread is not None and declares_discussion(page)
    code = page_type.probability("documentation") >= CODE_LEAN
    cards = readerless_probability(page_type) < SPREAD_LEAN
    found, rendered, role = _article_beside(page, meta, noise, thread, retry, forum, code,
                                            cards)
    container = template.container if template is not None else None
    if found is not None and container is not None and strays(found.source, container):
        found, rendered, role = _article_beside(page, meta, noise + outside(container, page.body),
                                                thread, retry, forum, code, cards)
    if found is not None:
        meta.dir = text_direction(page, found.source)
    role = readerless_records(role, page_type, thread is not None and thread.review_hint())
    if role == "thread" and thread is not None \
            and (reader_type == "article" and thread.one_voice() or is_front_page(url)
                 or _listed(page, meta, thread, page_type, noise)):
        thread = None  # a listing's signed items, a front page's teasers or an article's
        # list of its writer's stories: ECON runs again, the records in the page
        found, rendered, role = _article_beside(page, meta, noise, None, retry, forum, code,
                                                cards)
    clock.lap("extract")
    titled = found is not None and _under_heading(found.source, meta.heading)
    kind: PageKind = "thread" if role in ("thread", "opened") else "article" \
        if role == "comments" \
        else route(page, rendered.text if rendered else "", found.page_chars if found else 0,
                   titled, reader_type)
    result = Extraction(kind=kind, method="template+econ" if template else "econ",
                        title=meta.title, url=url)
    if template is not None:
        result.cluster, result.pages_learned = template.cluster, template.pages_learned
    scored = _Scored(estimates, found, titled)
    if kind == "thread" and thread is not None:
        result.posts = thread.posts
        if role == "opened" and rendered is not None and found is not None \
                and found.source is not page.body:  # the whole page's leftovers open nothing
            result.posts = [opening_post(rendered.text, rendered.html, meta.byline,
                                         meta.published), *thread.posts]
        elif thread.opening is not None:  # the topic's first post, above the replies' list
            result.posts = [thread.opening, *thread.posts]
        result.title, result.next_page = thread_title(page, meta.title), next_page(page)
        if page.has_ids:
            result.noise_ids, result.content_ids = thread_noise_map(page, thread.posts)
        result.method = "template+mibat" if template else "mibat"
        result.confidence = scored.confidence("thread", posts_text(thread.posts),
                                              len(thread.posts))
        result.timing_ms = clock.done()
        return result
    known_noise = noise + (thread.elements if thread else [])
    region: tuple[ArticleContent, str] | None = None
    if kind == "article" and found is not None and (
            reader_type == "documentation"
            or reader_type == "article" and role == "none" and code):
        # a page leaning to documentation (CODE_LEAN) is read as a manual too: its ECON body
        # is often one section of the reference page, the rest cut as link lists
        found, rendered = _whole_document(page, meta, found, rendered, known_noise)
    elif kind == "article" and found is not None and rendered is not None and role == "none" \
            and not titled and reader_type == "article" \
            and readerless_probability(page_type) >= SPREAD_LEAN:
        # ECON's body may be one block of a listing's or a service page's many, or what its
        # pruning left of the page's: the quality estimate says which reading is better, the
        # body or the whole main region
        region = _main_text(page, meta, found, known_noise)
        spread = is_spread_out(page, page_type, found.source, known_noise) \
            or text_share(rendered.text, region[1]) < LEANING_TEXT_SHARE
        if spread and scored.confidence("other", region[1]) \
                > scored.confidence("article", rendered.text):
            kind = "other"
    elif kind == "article" and found is not None and rendered is not None and role == "none" \
            and reader_type != "documentation":
        region = _fragment_region(page, meta, found, rendered, known_noise)
        if region is None and not titled and reader_type == "article":
            region = _prose_region(page, meta, found, rendered, known_noise, page_type.sure)
        if region is not None and scored.confidence("other", region[1]) \
                > scored.confidence("article", rendered.text):
            kind = "other"
    if kind == "article" and found is not None and rendered is not None and role == "none" \
            and reader_type == "article" and readerless_probability(page_type) >= LEFT_OUT_LEAN:
        # ECON's pruning may have dropped a landing page's other sections, prose and all
        region = region or _main_text(page, meta, found, known_noise)
        if left_out_prose(rendered.text, *region):
            kind = "other"
    if found is None or rendered is None or kind != "article":
        result.kind = "other"  # no reader view; the main region for the corpus
        content, result.main_text = region if region is not None and not region[0].card_twins \
            else _main_text(page, meta, found, known_noise, shown=True)
        if page.has_ids:
            result.noise_ids, result.content_ids = content.noise_ids, content.content_ids
        result.confidence = scored.confidence("other", result.main_text)
        result.timing_ms = clock.done()
        return result
    page.derived[CONTENT_ROOT] = found.source
    page.derived[BODY_TEXT] = rendered.text
    lead = lead_chunks(template.leads, found.source, meta.title, rendered.text) \
        if template else []
    if lead:
        rendered = with_leads(rendered, [c.shown or c.text for c in lead])
    article = _article(meta, rendered)
    if role == "comments" and thread is not None:
        article.comments = thread.posts
    return replace(
        result,
        article=article,
        noise_ids=found.noise_ids if page.has_ids else [],
        content_ids=[c.ids[0] for c in lead] + found.content_ids if page.has_ids else [],
        confidence=scored.confidence("article", rendered.text),
        timing_ms=clock.done(),
    )


@dataclass
class _Estimates:
    """The quality estimates of a page's results, each computed once: the retry trigger and
    the result's confidence often estimate the same body."""

    page: Page
    page_type: PageType
    known: dict[tuple[PageKind, str, int, bool, int],
                tuple[ArticleContent | None, dict[str, float], float]] = \
        field(default_factory=dict)
    """Features and estimate by kind, text, body (its id; the entry keeps the body alive and
    serves only that very body), whether the body is titled, and posts."""

    def estimate(self, kind: PageKind, text: str, found: ArticleContent | None,
                 titled: bool, posts: int = 0) -> tuple[dict[str, float], float]:
        """A result's features and its estimated F1."""
        key = (kind, text, id(found), titled, posts)
        known = self.known.get(key)
        if known is None or known[0] is not found:
            feats = result_features(page_features(self.page), type_features(self.page_type),
                                    kind, text, found, titled, posts)
            known = self.known[key] = (found, feats, estimate(feats))
        return known[1], known[2]


@dataclass
class _Scored:
    """What the quality estimate of a result reads besides the result's own text."""

    estimates: _Estimates
    found: ArticleContent | None
    titled: bool

    def confidence(self, kind: PageKind, text: str, posts: int = 0) -> float:
        feats, value = self.estimates.estimate(kind, text, self.found, self.titled, posts)
        self.estimates.page.derived["quality_features"] = feats  # read by bench/train_models.py
        return round(value, 3)


def _main_text(page: Page, meta: Metadata, found: ArticleContent | None,
               noise: list[HtmlElement], shown: bool = False) -> tuple[ArticleContent, str]:
    """The page's main region (around ECON's body when there is one) without furniture (but
    with the prose of its carousels and banners and, but on a product's page, of the blocks
    it hides by a hiding class or names only for their layout), `noise`, twin blocks, on a
    page most likely a service's, the menus its main region repeats (`mainregion._is_menu`)
    and, on a page most likely a product's, its customer reviews and teaser lists (its rails
    of related and recently viewed products); and its text, with such a page's declared
    description when the region misses it (`declared`): what a page without a reader view
    gives the corpus. The text `shown` as the result also leaves out the short texts a card
    repeats (`article_trim.card_twins`), which the routing's readings of the region keep: a
    card's repeated title says nothing about which reading is better."""
    main = main_container(page, found.source if found else None)
    label = classify(page).label
    product = label == "product"
    region = main_region(page, page.body if main is None else main, noise, drop_twins=True,
                         drop_reviews=product, drop_teasers=product, shown_prose=True,
                         folded_classes=not product, laid_out=not product,
                         drop_menus=label == "service", drop_card_twins=shown)
    text = render_article(region.content, page.url, meta.title, meta.byline).text
    return region, with_declared(text, declared_description(page)) if product else text


def _fragment_region(page: Page, meta: Metadata, found: ArticleContent, rendered: Rendered,
                     noise: list[HtmlElement]) -> tuple[ArticleContent, str] | None:
    """The page's main region and its text when the page names a main container
    (`main_container`) and ECON's body keeps under FRAGMENT_SHARE of that region's text: the
    body is one card of a listing, one section of a service page, or a heading ECON's pruning
    left of the container; else None (the body is the page's article, whatever its type)."""
    container = main_container(page, found.source)
    if container is None or weighted_length(rendered.text) \
            >= FRAGMENT_BOUND * weighted_length(container.text_content()):
        return None
    region = _main_text(page, meta, found, noise)
    return region if text_share(rendered.text, region[1]) < FRAGMENT_SHARE else None


def _prose_region(page: Page, meta: Metadata, found: ArticleContent, rendered: Rendered,
                  noise: list[HtmlElement], sure: bool) -> tuple[ArticleContent, str] | None:
    """The page's main region and its text when ECON's body (not under the page's title)
    keeps under SPREAD_TEXT_SHARE of the region's text and what it left out is the page's;
    else None. Either the region holds prose beside the body's element
    (`mainregion.rest_is_prose`: few links, a sentence mark every few lines): the body is one
    section of a landing page or one entry of a guide, whatever the page's type (an
    article's region holds links beside its body: teasers, blogrolls). Or, on a page the
    classifier is not `sure` of, the body's element holds the whole region (`body_share` 1)
    and ECON's pruning, not the layout, left the rest out: a feed of teasers or a shop's
    front page cut to a few of its blocks (a sure article keeps what ECON kept, the comments
    and asides it pruned out of its own element). The quality estimate judges the region
    against the body."""
    if not rest_is_prose(page, found.source, noise) \
            and (sure or body_share(page, found.source, noise) < 1.0):
        return None
    region = _main_text(page, meta, found, noise)
    return region if text_share(rendered.text, region[1]) < SPREAD_TEXT_SHARE else None


def _listed(page: Page, meta: Metadata, thread: Thread, page_type: PageType,
            noise: list[HtmlElement]) -> bool:
    """Whether the thread's records, on a page leaning to the readerless types (SPREAD_LEAN),
    are a listing's items (`router.records_are_items`), measured against the page's main
    region with the records in it."""
    if readerless_probability(page_type) < SPREAD_LEAN:
        return False
    region = _main_text(page, meta, None, noise)[1]
    return records_are_items([weighted_length(post.text) for post in thread.posts],
                             weighted_length(region))


def _whole_document(page: Page, meta: Metadata, found: ArticleContent,
                    rendered: Rendered | None, noise: list[HtmlElement]
                    ) -> tuple[ArticleContent, Rendered | None]:
    """A documentation page's whole main container around ECON's body, without its sidebar,
    table of contents and other furniture: ECON takes one section of a reference page, the
    reader wants all of them, with their code, tables and headings. A body that is the main
    container itself is read as a region too: ECON's pruning drops its folded tabs and the
    code and headings it finds no sentences in. So is one that holds the main container (a
    layout wrapper around <main> and the rail beside it): ECON's pruning of the wrapper drops
    the manual's index of subtopics and its sections' link lists with the rail."""
    container = main_container(page, found.source)
    if container is None or container is not found.source \
            and container not in found.source.iterancestors() \
            and found.source not in container.iterancestors():
        return found, rendered
    region = main_region(page, container, noise, trim_edges=True)
    return region, _render(region, page, meta)


def _article_beside(page: Page, meta: Metadata, noise: list[HtmlElement],
                    thread: Thread | None, retry: RetryTrigger = needs_retry,
                    forum: bool = False, code: bool = False, cards: bool = False
                    ) -> tuple[ArticleContent | None, Rendered | None, ThreadRole]:
    """ECON's article with the records left out, rendered, and the records' role (`forum`:
    the page type says forum or the page declares a discussion, see `router.thread_role` and
    `router.declares_discussion`; `code`: it leans to documentation, see
    `PageHints.keep_code`; `cards`: it reads as an article, see `PageHints.cards_by_record`);
    when the records are neither a thread nor comments, ECON runs again on the whole page."""
    hinted = noise + (thread.elements if thread else [])
    found = extract_article(page, PageHints(meta.heading, hinted, code, cards), retry)
    rendered = _render(found, page, meta)
    role = _thread_role(thread, found, rendered, meta, forum)
    if thread is not None and role == "none":
        found = extract_article(page, PageHints(meta.heading, noise, code, cards), retry)
        rendered = _render(found, page, meta)
    return found, rendered, role


RetryTrigger = Callable[[ArticleContent | None], bool]


def _learned_retry(page: Page, meta: Metadata, estimates: _Estimates) -> RetryTrigger:
    """The quality estimate as the retry ladder's trigger: no body, or a body whose
    estimated F1 is below `quality.RETRY_BELOW`, is tried again with looser rules (the
    article module keeps a retry only by its strict rule). On the article sets' tune pages it
    changes 20 of 1,084 bodies against the module's own trigger, +0.006 F1 per page."""
    def retry(found: ArticleContent | None) -> bool:
        if found is None:
            return True
        rendered = _render(found, page, meta)
        _, value = estimates.estimate("article", rendered.text if rendered else "", found,
                                      _under_heading(found.source, meta.heading))
        return value < RETRY_BELOW
    return retry


def _under_heading(source: HtmlElement, heading: HtmlElement | None) -> bool:
    """True when the title's heading is in the body or in one of its TITLE_REACH nearest
    ancestors: the body belongs to the page's own title."""
    node: HtmlElement | None = source
    for _ in range(TITLE_REACH + 1):
        if node is None or heading is None:
            return False
        if heading is node or node in heading.iterancestors():
            return True
        node = node.getparent()
    return False


def _render(found: ArticleContent | None, page: Page, meta: Metadata) -> Rendered | None:
    """The body rendered, once per body and extraction: the retry trigger, the thread role
    and the result read the same rendering (memoized in `page.derived`, keyed by the body's
    content element, which the memo keeps alive)."""
    if found is None:
        return None
    memo: dict[int, tuple[HtmlElement, tuple[object, ...], Rendered]] = \
        page.derived.setdefault(RENDERED, {})
    key = (page.url, meta.title, meta.byline)
    known = memo.get(id(found.content))
    if known is None or known[0] is not found.content or known[1] != key:
        known = (found.content, key,
                 render_article(found.content, page.url, meta.title, meta.byline))
        memo[id(found.content)] = known
    return known[2]


def _thread_role(thread: Thread | None, found: ArticleContent | None,
                 rendered: Rendered | None, meta: Metadata, forum: bool = False) -> ThreadRole:
    """Place the record region: thread, comments or none (see `router.thread_role`). The
    records hold the page's title heading (`headed`) as an article holds its title only
    when they do not all repeat it: posts whose title lines all hold it ("Re: <title>") are
    a thread's, whatever the page's type."""
    if thread is None:
        return "none"
    article_chars = 0
    before = False
    if found is not None and rendered is not None:
        article_chars = weighted_length(rendered.text)
        before = thread.starts_after(found.source)
    headed = meta.heading is not None and thread.holds(meta.heading) \
        and not thread.repeat_title(meta.heading)
    return thread_role(thread.post_chars(), thread.authored(), article_chars,
                       before, thread.comment_hint(), thread.learned, headed, forum)


def _article(meta: Metadata, rendered: Rendered) -> Article:
    info = {f.name: getattr(meta, f.name) for f in fields(ArticleInfo)}
    info["lead_image"] = meta.lead_image or _first(rendered)
    return Article(**info, html=rendered.html, text=rendered.text, markdown=rendered.markdown,
                   excerpt=meta.description or _excerpt(rendered.text),
                   word_count=rendered.word_count)


def _first(rendered: Rendered) -> str | None:
    return rendered.images[0] if rendered.images else None


def _excerpt(text: str) -> str | None:
    """The first paragraph, cut at a word boundary."""
    first = text.strip().split("\n", 1)[0].strip()
    if len(first) <= EXCERPT_CHARS:
        return first or None
    return first[:EXCERPT_CHARS].rsplit(" ", 1)[0] + "…"


class _Clock:
    """Milliseconds per stage, plus `total`."""

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = round((now - self.last) * 1000, 3)
        self.last = now

    def done(self) -> dict[str, float]:
        self.laps["total"] = round((time.perf_counter() - self.start) * 1000, 3)
        return self.laps

