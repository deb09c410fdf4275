"""Article metadata: title, byline, date, language, direction, site name, image, description.

Sources are read in the priority order of Mozilla Readability (`_getJSONLD`,
`_getArticleMetadata`, `_getArticleTitle`): the first schema.org Article in the JSON-LD, then
Dublin Core / Open Graph / Twitter / Parse.ly meta tags, then the cleaned `<title>`, then the
page body (a short `rel=author` / `.byline` element, `<time datetime>`). Beyond Readability,
JSON-LD `@id` references are resolved and images are read; the byline (`winnow.byline`) is
never one that only repeats the site's name, and the date (`winnow.published`) is read from
`<time>`, microdata, JSON-LD and meta tags in that order of trust, normalised to ISO 8601.

The module is pure: it reads a `Page` and never raises on odd input. It walks the tree once,
in C, for the few tags it needs (`meta`, `title`, `base`, headings, `time`, `main`); only when
neither JSON-LD nor meta tags name an author does it loop over body elements in Python, and
stops at the first byline. Typical pages take a few tenths of a millisecond.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from lxml.html import HtmlElement

from winnow.byline import author_byline, in_furniture
from winnow.byline import clean_byline as clean_byline
from winnow.byline import tidy_text as _tidy
from winnow.mibat_dom import page_dom
from winnow.page import Page
from winnow.published import is_date_meta, published_date
from winnow.published import normalize_date as normalize_date
from winnow.result import ArticleInfo

# --- thresholds -------------------------------------------------------------------------------

MIN_TITLE_WORDS = 3
"""A title part with fewer words is a site name, so the other side of the separator is kept."""

SHORT_TITLE_WORDS = 4
"""A cleaned title with this many words or fewer falls back to the full `<title>` text."""

MAX_WORDS_BEFORE_COLON = 5
"""More words than this before a colon means the colon is inside the headline: keep it whole."""

MIN_TITLE_CHARS = 15
"""A separator-free `<title>` shorter than this is replaced by the page's only `<h1>`."""

MAX_TITLE_CHARS = 150
"""A separator-free `<title>` longer than this is replaced by the page's only `<h1>`."""

TITLE_SIMILARITY = 0.75
"""Token similarity above which a JSON-LD name/headline, or a heading, matches the title."""

SITE_SUFFIX_SEPARATORS = frozenset("«»|·•~–—-/\\")
"""Characters that part a title's headline from a site name appended to it."""

TITLE_HEADING_TAGS = ("h1", "h2", "h3")
"""Headings that can show the page's title, in order of preference."""

# --- patterns ---------------------------------------------------------------------------------

_SEPARATORS = r"|\-–—\\/>»"
_SEPARATOR_RE = re.compile(rf"\s[{_SEPARATORS}]\s")
_HIERARCHICAL_RE = re.compile(r"\s[\\/>»]\s")
_FIRST_PART_RE = re.compile(rf"^[^{_SEPARATORS}]*[{_SEPARATORS}]")
_SEPARATOR_RUN_RE = re.compile(rf"[{_SEPARATORS}]+")
_WS_RE = re.compile(r"\s+")
_TOKEN_RE = re.compile(r"\W+")
_URL_RE = re.compile(r"^(?:https?:)?//\S+$", re.I)
_DIR_VALUES = ("ltr", "rtl")

# Meta `property` holds a space-separated list; meta `name` holds one key.
_PROPERTY_RE = re.compile(
    r"\s*(article|dc|dcterm|og|twitter)\s*:\s*"
    r"(author|creator|description|published_time|title|site_name|image(?::url|:src|:secure_url)?)"
    r"(?=\s|$)", re.I)
_NAME_RE = re.compile(
    r"^\s*(?:(dc|dcterm|og|twitter|parsely|weibo:(?:article|webpage))\s*[-.:]\s*)?"
    r"(author|creator|pub-date|description|title|headline|site_name|image(?::src)?)\s*$", re.I)
_ITEMPROP_KEYS = {"headline": "itemprop:headline", "author": "itemprop:author",
                  "image": "itemprop:image",
                  "description": "itemprop:description"}

_TITLE_KEYS = ("dc:title", "dcterm:title", "og:title", "weibo:article:title",
               "weibo:webpage:title", "headline", "title", "twitter:title", "parsely-title")
_DESCRIPTION_KEYS = ("dc:description", "dcterm:description", "og:description",
                     "weibo:article:description", "weibo:webpage:description", "description",
                     "twitter:description", "itemprop:description")
_SOCIAL_IMAGE_KEYS = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image",
                      "twitter:image:src")
_OTHER_IMAGE_KEYS = ("image", "itemprop:image")


_TYPE_PREFIX_RE = re.compile(r"^.*[/:#]")
"""Strips "http://schema.org/" or "schema:" from a JSON-LD `@type`."""
_ARTICLE_TYPES = frozenset((
    "Article", "AdvertiserContentArticle", "NewsArticle", "AnalysisNewsArticle",
    "AskPublicNewsArticle", "BackgroundNewsArticle", "OpinionNewsArticle",
    "ReportageNewsArticle", "ReviewNewsArticle", "Report", "SatiricalArticle",
    "ScholarlyArticle", "MedicalScholarlyArticle", "SocialMediaPosting", "BlogPosting",
    "LiveBlogPosting", "DiscussionForumPosting", "TechArticle", "APIReference"))



@dataclass
class Metadata(ArticleInfo):
    """The article's metadata as read from the page, plus what extraction needs of it."""

    description: str | None = None
    heading: HtmlElement | None = None
    """The body's heading that shows the title (not part of the public result)."""


@dataclass
class _Scan:
    """What one walk over the tree collected."""

    meta: dict[str, str] = field(default_factory=dict)
    doc_title: str = ""
    base_href: str | None = None
    headings: list[HtmlElement] = field(default_factory=list)
    h1_count: int = 0
    times: list[HtmlElement] = field(default_factory=list)
    main: HtmlElement | None = None
    meta_dates: list[tuple[str, str]] = field(default_factory=list)
    """(key, content) of the meta tags naming a publication date, in page order."""


@dataclass
class _JsonLd:
    """The fields read from the page's schema.org Article, if it has one."""

    title: str | None = None
    byline: str | None = None
    description: str | None = None
    site_name: str | None = None
    published: list[str] = field(default_factory=list)
    """`datePublished` values: the Article's first, then other schema.org nodes'."""
    image: str | None = None


# --- entry points -----------------------------------------------------------------------------

def extract_metadata(page: Page, content: HtmlElement | None = None) -> Metadata:
    """Read the article's metadata from `page`; `content` (the article element) refines `dir`."""
    scan = _scan(page.root)
    doc_title = _clean_doc_title(scan)
    ld = _json_ld_metadata(page.json_ld, doc_title)
    meta = scan.meta
    title = _tidy(ld.title or _first(meta, _TITLE_KEYS) or doc_title) or None
    site_name = _tidy(ld.site_name or meta.get("og:site_name")) or None
    byline = author_byline(ld.byline, meta, page_dom(page).elements, site_name, page.url)
    heading = find_title_heading(page, title, scan.headings) if title else None
    if title and heading is None:
        heading = _segment_heading(title, scan.headings)
        title = _tidy(heading.text_content()) if heading is not None else title
    published = published_date(scan.times, page.root, ld.published, scan.meta_dates,
                               in_furniture, heading)
    return Metadata(
        title=title,
        byline=byline,
        published=published,
        lang=_lang(page.root),
        dir=text_direction(page, _first_element(content, heading, scan.main)),
        site_name=site_name,
        lead_image=_absolute_image(_first(meta, _SOCIAL_IMAGE_KEYS) or ld.image
                                   or _first(meta, _OTHER_IMAGE_KEYS), page, scan),
        description=_tidy(ld.description or _first(meta, _DESCRIPTION_KEYS)) or None,
        heading=heading,
    )


def find_title_heading(page: Page, title: str | None,
                       headings: Iterable[HtmlElement] | None = None) -> HtmlElement | None:
    """Return the body's h1/h2 whose text is (nearly) the title, preferring exact and h1.

    The reader shows the title itself, so this heading is the one to leave out of the body.
    `headings` saves a walk when the caller already has the page's h1/h2 elements.
    """
    wanted = _tidy(title).casefold()
    if not wanted:
        return None
    if headings is None:
        body: HtmlElement = page.body
        headings = body.iter(*TITLE_HEADING_TAGS)
    best: tuple[int, HtmlElement] | None = None
    for heading in headings:
        rank = _heading_rank(heading, wanted)
        if rank is not None and (best is None or rank < best[0]):
            best = (rank, heading)
            if rank == 0:
                break
    return best[1] if best else None


def _heading_rank(heading: HtmlElement, wanted: str) -> int | None:
    """0 for an h1 equal to the title, +1 for h2, +2 for h3 (a blog's post title under the
    blog's own h1), +3 for merely similar; None if unrelated."""
    text = _tidy(heading.text_content()).casefold()
    if not text:
        return None
    if text == wanted:
        rank = 0
    elif (text_similarity(wanted, text) > TITLE_SIMILARITY
          and text_similarity(text, wanted) > TITLE_SIMILARITY) or _heads_title(text, wanted):
        rank = 3
    else:
        return None
    return rank + TITLE_HEADING_TAGS.index(heading.tag)


def _segment_heading(title: str, headings: Iterable[HtmlElement]) -> HtmlElement | None:
    """The first h1/h2/h3 that shows one part of a title made of parts joined by separators
    ("Site - Headline - Section | More", "Blog Name: Post Title"), the headline among site
    and section names that the title cleaning could not tell apart; None without one."""
    parts = {_tidy(part).casefold() for part in _SEPARATOR_RE.split(title)}
    _, colon, after_site = title.partition(": ")
    if colon:
        parts.add(_tidy(after_site).casefold())
    if len(parts) < 2:
        return None
    for heading in headings:
        text = _tidy(heading.text_content())
        if _word_count(text) >= MIN_TITLE_WORDS and text.casefold() in parts:
            return heading
    return None


def _heads_title(text: str, wanted: str) -> bool:
    """True when the title is the heading plus a site suffix after a separator the title
    cleaning did not take off ("Headline « Site"). A colon is left out: "Site: Headline"
    titles put the site first."""
    rest = wanted[len(text):].lstrip() if wanted.startswith(text) else ""
    return rest[:1] in SITE_SUFFIX_SEPARATORS and _word_count(text) >= MIN_TITLE_WORDS


# --- the walk ---------------------------------------------------------------------------------

def _scan(root: HtmlElement) -> _Scan:
    """Collect meta values, the `<title>`, `<base>`, headings and `<time>` in one walk."""
    scan = _Scan()
    title_seen = False
    for el in root.iter("meta", "title", "base", *TITLE_HEADING_TAGS, "time", "main", "article"):
        tag = el.tag
        if tag == "meta":
            _read_meta(el, scan.meta)
            _read_meta_date(el, scan.meta_dates)
        elif tag in TITLE_HEADING_TAGS:
            scan.headings.append(el)
            scan.h1_count += tag == "h1"
        elif tag == "time":
            scan.times.append(el)
        elif tag == "title" and not title_seen:
            title_seen = True
            scan.doc_title = _tidy(el.text_content())
        elif tag == "base" and scan.base_href is None and el.get("href"):
            scan.base_href = el.get("href", "").strip()
        elif tag in ("main", "article") and scan.main is None:
            scan.main = el
    return scan


def _read_meta(el: HtmlElement, values: dict[str, str]) -> None:
    """Store a meta tag's content under each key its property/name/itemprop maps to."""
    content = (el.get("content") or "").strip()
    if not content:
        return
    prop = el.get("property")
    found = False
    if prop:
        for match in _PROPERTY_RE.finditer(prop):
            _store(values, f"{match.group(1)}:{match.group(2)}".lower(), content)
            found = True
    name = el.get("name")
    if not found and name and _NAME_RE.match(name):
        _store(values, _WS_RE.sub("", name).lower().replace(".", ":"), content)
    itemprop = (el.get("itemprop") or "").strip().lower()
    if itemprop in _ITEMPROP_KEYS:
        values.setdefault(_ITEMPROP_KEYS[itemprop], content)


def _read_meta_date(el: HtmlElement, dates: list[tuple[str, str]]) -> None:
    """Keep a meta tag's content when its property or name says it holds a publication date
    (an `itemprop` meta is microdata, read with the other microdata)."""
    key = (el.get("property") or el.get("name") or "").strip().lower()
    content = (el.get("content") or "").strip()
    if key and content and is_date_meta(key):
        dates.append((_WS_RE.sub("", key).replace(".", ":"), content))


def _store(values: dict[str, str], key: str, content: str) -> None:
    """Keep the last value of a key, as Readability does, but the first image (the main one)."""
    if "image" in key:
        values.setdefault(key, content)
    else:
        values[key] = content


def _first_element(*elements: HtmlElement | None) -> HtmlElement | None:
    """The first of `elements` that is not None (elements are falsy when childless)."""
    return next((el for el in elements if el is not None), None)


def _first(values: dict[str, str], keys: Iterable[str]) -> str | None:
    """Return the first non-empty value among `keys`."""
    for key in keys:
        value = values.get(key)
        if value:
            return value
    return None


# --- title ------------------------------------------------------------------------------------

def _word_count(text: str) -> int:
    """Count words as JavaScript's `str.split(/\\s+/).length` does (Readability's rule)."""
    return len(_WS_RE.split(text))


def _clean_doc_title(scan: _Scan) -> str:
    """Readability's `_getArticleTitle`: drop a site name joined to `<title>` by a separator."""
    orig = scan.doc_title
    cur = orig
    hierarchical = False
    separators = list(_SEPARATOR_RE.finditer(orig))
    if separators:
        hierarchical = bool(_HIERARCHICAL_RE.search(orig))
        cur = orig[:separators[-1].start()]
        if _word_count(cur) < MIN_TITLE_WORDS:
            cur = _FIRST_PART_RE.sub("", orig, count=1)
    elif ": " in orig:
        cur = _split_colon_title(orig, scan.headings)
    elif (len(orig) > MAX_TITLE_CHARS or len(orig) < MIN_TITLE_CHARS) and scan.h1_count == 1:
        h1 = next(h for h in scan.headings if h.tag == "h1")
        cur = h1.text_content()
    cur = _tidy(cur)
    words = _word_count(cur)
    if words <= SHORT_TITLE_WORDS and (
            not hierarchical or words != _word_count(_SEPARATOR_RUN_RE.sub("", orig)) - 1):
        cur = orig
    return cur


def _split_colon_title(orig: str, headings: list[HtmlElement]) -> str:
    """Keep a `Site: Headline` title's headline unless a heading shows the colon is its own."""
    if any(_tidy(h.text_content()) == orig for h in headings if h.tag in ("h1", "h2")):
        return orig
    cur = orig[orig.rfind(":") + 1:]
    if _word_count(cur) < MIN_TITLE_WORDS:
        return orig[orig.find(":") + 1:]
    if _word_count(orig[:orig.find(":")]) > MAX_WORDS_BEFORE_COLON:
        return orig
    return cur


def text_similarity(text_a: str, text_b: str) -> float:
    """Share of `text_b`'s token characters also in `text_a` (Readability's `_textSimilarity`)."""
    tokens_a = [t for t in _TOKEN_RE.split(text_a.lower()) if t]
    tokens_b = [t for t in _TOKEN_RE.split(text_b.lower()) if t]
    if not tokens_a or not tokens_b:
        return 0.0
    set_a = set(tokens_a)
    unique_b = [t for t in tokens_b if t not in set_a]
    return 1.0 - len(" ".join(unique_b)) / len(" ".join(tokens_b))


# --- JSON-LD ----------------------------------------------------------------------------------

def _json_ld_metadata(blocks: list[Any], doc_title: str) -> _JsonLd:
    """Read the first schema.org Article among the JSON-LD blocks; never raise."""
    nodes = list(_ld_nodes(blocks))
    by_id = {node["@id"]: node for node in nodes if isinstance(node.get("@id"), str)}
    article = next((node for node in nodes if _is_article(node)), None)
    dates = [date for node in ([article] if article else []) + nodes
             if (date := _ld_string(node.get("datePublished")))]
    if article is None:
        return _JsonLd(published=dates)
    publisher = article.get("publisher")
    if isinstance(publisher, list):
        publisher = publisher[0] if publisher else None
    return _JsonLd(
        title=_ld_title(article, doc_title),
        byline=_ld_authors(article.get("author"), by_id),
        description=_ld_string(article.get("description")),
        site_name=_ld_authors(publisher, by_id),
        published=dates,
        image=_ld_image(_resolve(article.get("image"), by_id)),
    )


def _ld_nodes(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Yield the dict nodes of JSON-LD blocks, descending into lists and `@graph`."""
    if depth > 4:
        return
    if isinstance(value, list):
        for item in value:
            yield from _ld_nodes(item, depth + 1)
    elif isinstance(value, dict):
        if not _schema_org_context(value.get("@context")):
            return
        yield value
        for key in ("@graph", "mainEntity"):
            if isinstance(value.get(key), (list, dict)):
                yield from _ld_nodes(value[key], depth + 1)


def _schema_org_context(context: Any) -> bool:
    """False only when a node declares a vocabulary other than schema.org."""
    if context is None:
        return True
    if isinstance(context, dict):
        context = context.get("@vocab", "schema.org")
    if isinstance(context, list):
        return any(_schema_org_context(item) for item in context if isinstance(item, str))
    return isinstance(context, str) and "schema.org" in context.lower()


def _is_article(node: dict[str, Any]) -> bool:
    """True when the node's `@type` (a string or a list) names an Article subtype."""
    types = node.get("@type")
    if isinstance(types, str):
        types = [types]
    if not isinstance(types, list):
        return False
    return any(isinstance(t, str) and _TYPE_PREFIX_RE.sub("", t) in _ARTICLE_TYPES
               for t in types)


def _resolve(value: Any, by_id: dict[str, dict[str, Any]]) -> Any:
    """Replace a bare `{"@id": ...}` reference with the node it names, when known."""
    if isinstance(value, dict) and set(value) <= {"@id", "@type"}:
        ref = value.get("@id")
        return by_id.get(ref, value) if isinstance(ref, str) else value
    return value


def _ld_string(value: Any) -> str | None:
    """Return a stripped non-empty string, else None."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _ld_title(article: dict[str, Any], doc_title: str) -> str | None:
    """Pick `name` or `headline`; when they differ, the one resembling `<title>` (else name)."""
    name = _ld_string(article.get("name"))
    headline = _ld_string(article.get("headline"))
    if name and headline and name != headline:
        name_ok = text_similarity(name, doc_title) > TITLE_SIMILARITY
        headline_ok = text_similarity(headline, doc_title) > TITLE_SIMILARITY
        return headline if headline_ok and not name_ok else name
    return name or headline


def _ld_authors(value: Any, by_id: dict[str, dict[str, Any]]) -> str | None:
    """Join the names in a string, a Person/Organization (or its `@id`), or a list of them."""
    items = value if isinstance(value, list) else [value]
    names: list[str] = []
    for item in items:
        item = _resolve(item, by_id)
        name = item.get("name") if isinstance(item, dict) else item
        text = _ld_string(name)
        if text and not _URL_RE.match(text) and text not in names:
            names.append(text)
    return ", ".join(names) or None


def _ld_image(value: Any) -> str | None:
    """Return the first image URL from a string, an ImageObject, or a list of either."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("url") or value.get("contentUrl")
    return _ld_string(value)


# --- language, direction, image ---------------------------------------------------------------

def _lang(root: HtmlElement) -> str | None:
    """The `<html lang>` (or `xml:lang`) attribute."""
    value = root.get("lang") or root.get("xml:lang") or ""
    return value.strip() or None


def text_direction(page: Page, anchor: HtmlElement | None) -> str | None:
    """The nearest `dir` on or above `anchor` (the article, its heading or `<main>`/`<article>`),
    else on `<body>`, else on `<html>`; as Readability reads it from the article's ancestors."""
    chain: list[HtmlElement] = []
    if anchor is not None:
        chain.append(anchor)
        chain.extend(anchor.iterancestors())
    else:
        chain.extend((page.body, page.root))
    for el in chain:
        value = (el.get("dir") or "").strip().lower()
        if value in _DIR_VALUES:
            return value
    return None


def _absolute_image(url: str | None, page: Page, scan: _Scan) -> str | None:
    """Resolve `url` against `<base href>` and the page URL; data: URIs are not lead images."""
    url = _tidy(url)
    if not url or url.lower().startswith("data:"):
        return None
    try:
        base = urljoin(page.url or "", scan.base_href or "")
        return urljoin(base, url) if base else url
    except ValueError:
        return url
