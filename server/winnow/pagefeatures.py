"""Cheap numeric features of a parsed page, for the page-type classifier and the quality model.

One pass over the body's elements counts tags, class and id tokens by theme, repeated sibling
structures (product grids, teaser lists), link, code and table text; the URL's path tokens,
JSON-LD `@type`s and `og:type` add what the site says the page is. Every feature is a float
named in `PAGE_FEATURES`; models trained offline (`bench/train_models.py`) read them by name,
so adding a feature never shifts another. The module is pure: no I/O, no clock.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, cast
from urllib.parse import urlsplit

import lxml.etree as etree
from lxml.html import HtmlElement

from winnow.mibat_dom import page_dom
from winnow.page import Page, ld_types
from winnow.tree import Tree

Features = dict[str, float]

COUNTED_TAGS = ("p", "a", "li", "pre", "code", "table", "tr", "h1", "h2", "h3", "h4", "form",
                "img", "article", "section", "dl", "nav", "aside", "time", "blockquote", "main",
                "figure", "ul", "ol", "label")
"""Tags whose counts (per 100 elements, and in log) are features."""

MIN_REPEAT_CHILDREN = 4
"""Children an element needs before its most common child kind counts as a repeated
structure (a product grid, a list of teasers, a thread's posts)."""

NAME_THEMES: dict[str, frozenset[str]] = {
    "forum": frozenset("post posts comment comments reply replies answer answers vote votes "
                       "thread threads topic topics forum forums message messages question "
                       "questions userinfo username avatar signature quote".split()),
    "product": frozenset("price prices cart basket product products sku rating ratings "
                         "review reviews stock checkout buy shop wishlist quantity qty "
                         "variant variants swatch".split()),
    "docs": frozenset("toc doc docs documentation api sphinx highlight sourcecode syntax "
                      "headerlink md rst docutils admonition literal signature sig "
                      "theme manual reference".split()),
    "listing": frozenset("card cards grid tile tiles teaser teasers item items list listing "
                         "results result pagination pager archive feed thumb thumbnail "
                         "excerpt collection".split()),
    "article": frozenset("article story entry byline author headline dateline body lede "
                         "published hentry".split()),
    "service": frozenset("hero cta contact services service testimonial testimonials "
                         "pricing plan plans features feature team faq accordion "
                         "banner".split()),
}
"""Class and id tokens counted per theme: what the page's markup names its blocks."""

URL_THEMES: dict[str, frozenset[str]] = {
    "docs": frozenset("docs doc documentation api reference manual guide guides tutorial "
                      "tutorials wiki library userguide howto handbook learn kb "
                      "knowledgebase help latest stable en-us".split()),
    "product": frozenset("product products p dp item items shop store buy sku "
                         "catalog".split()),
    "forum": frozenset("forum forums thread threads topic topics t questions question q "
                       "community discussion discussions viewtopic showthread board "
                       "boards r comments".split()),
    "listing": frozenset("category categories tag tags list lists archive archives search "
                         "collections collection page news blog blogs events directory "
                         "browse all shows".split()),
    "service": frozenset("service services pricing about contact solutions solution "
                         "features plans team company careers locations".split()),
    "article": frozenset("article articles story stories post posts news blog opinion "
                         "press".split()),
}
"""URL path tokens counted per theme."""

LD_TYPES: dict[str, frozenset[str]] = {
    "article": frozenset({"article", "newsarticle", "blogposting", "reportagenewsarticle",
                          "opinionnewsarticle", "analysisnewsarticle", "scholarlyarticle"}),
    "docs": frozenset({"techarticle", "apireference", "howto"}),
    "product": frozenset({"product", "offer", "aggregateoffer", "productgroup", "car",
                          "book", "softwareapplication"}),
    "forum": frozenset({"qapage", "discussionforumposting", "question", "answer",
                        "socialmediaposting", "comment"}),
    "listing": frozenset({"collectionpage", "itemlist", "searchresultspage",
                          "breadcrumblist"}),
    "service": frozenset({"service", "localbusiness", "organization", "professionalservice",
                          "faqpage", "contactpage", "aboutpage", "event"}),
}
"""JSON-LD `@type`s (lower-cased) counted per theme."""

OG_TYPES = ("article", "product", "website", "profile", "book", "video")
"""og:type values that are each a feature."""

SHARED_TAGS = {"a": "a", "pre": "pre", "table": "table", "p": "p", "ul": "list", "ol": "list",
               **{f"h{level}": "heading" for level in range(1, 7)}}
"""Tags whose share of the page's text is a feature, by group (lists and headings count
together; the longest paragraph is one too)."""

_NAME_TOKEN_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_URL_TOKEN_RE = re.compile(r"[a-z]+")
_PRICE_RE = re.compile(r"[$€£¥₹\d](?:(?<=[$€£¥₹])\s?\d"
                       r"|(?<=\d)(?:[.,]\d\d)?\s?(?:€|EUR|USD|zł|kr)\b)")
"""A price: a currency sign before a digit, or a number (cents allowed) before a currency.
The regex starts with one character class, which the regex engine scans a text for in C;
the plain alternation of the two it stands for was tried at every position of the text."""
_DATE_PATH_RE = re.compile(r"/(?:19|20)\d\d/(?:[01]?\d/)?")
_SENTENCE_RE = re.compile(r"[.!?。！？](?:\s|$)")


def page_features(page: Page) -> Features:
    """The page's features; computed once per page and cached in `page.derived`."""
    cached = page.derived.get("page_features")
    if cached is None:
        cached = _compute(page)
        page.derived["page_features"] = cached
    return dict(cached)


def _compute(page: Page) -> Features:
    """The features, read from the arrays MiBAT's DOM tree holds of the body (its elements,
    in document order, and their lower-case tags) rather than a walk of their own."""
    body = page.body
    read = page_dom(page).read
    assert read is not None and read.tree.elements is not None \
        and read.tree.elements[0] is body
    n = max(1, len(read.tree.elements))
    tags = Counter(read.tree.tags)
    text = body.text_content()
    chars = max(1, len(text.strip()))
    feats: Features = {"log_elements": math.log1p(n), "log_chars": math.log1p(chars),
                       "chars_per_element": chars / n}
    for tag in COUNTED_TAGS:
        feats[f"tag_{tag}"] = 100.0 * tags.get(tag, 0) / n
        feats[f"log_{tag}"] = math.log1p(tags.get(tag, 0))
    lengths = read.text_lengths
    nodes = _nodes_by_tag(read.tree.tags)
    feats["link_density"] = _share(lengths, nodes["a"], chars)
    feats["code_share"] = _share(lengths, nodes["pre"], chars)
    feats["table_share"] = _share(lengths, nodes["table"], chars)
    feats["list_share"] = _share(lengths, _outer(nodes["list"], read.tree.sizes), chars)
    feats["heading_share"] = _share(lengths, nodes["heading"], chars)
    feats.update(_repeats(read.tree))
    feats.update(_name_themes(body, n))
    feats.update(_url_themes(page.url))
    feats.update(_ld_themes(page.json_ld))
    feats.update(_og_types(page.root))
    feats["log_prices"] = math.log1p(len(_PRICE_RE.findall(text)))
    feats["sentences_per_kchar"] = 1000.0 * len(_SENTENCE_RE.findall(text)) / chars
    feats["longest_p"] = math.log1p(max((lengths[v] for v in nodes["p"]), default=0))
    return feats


def _strings(xpath: etree.XPath, el: HtmlElement) -> list[str]:
    """The strings an XPath selecting text nodes or attributes returns."""
    return cast(list[str], xpath(el))


def _nodes_by_tag(tags: Sequence[str]) -> dict[str, list[int]]:
    """The body's nodes (`tree.read_tree` numbers) of each SHARED_TAGS group, in order."""
    nodes: dict[str, list[int]] = {group: [] for group in SHARED_TAGS.values()}
    for v, tag in enumerate(tags):
        group = SHARED_TAGS.get(tag)
        if group is not None:
            nodes[group].append(v)
    return nodes


def _share(lengths: Sequence[int], nodes: Iterable[int], chars: int) -> float:
    """The text of `nodes` (their `text_content` lengths) per character of the page."""
    return min(1.0, sum(lengths[v] for v in nodes) / chars)


def _outer(nodes: Iterable[int], sizes: Sequence[int]) -> Iterator[int]:
    """The preorder `nodes` that are not inside an earlier one (nested lists count once)."""
    end = 0
    for v in nodes:
        if v >= end:
            end = v + sizes[v]
            yield v


def _repeats(tree: Tree) -> Features:
    """The largest run of same-kind children (tag and class) under one parent, and how many
    parents hold a repeated structure. The tree's child lists hold the element children
    only, so a parent of fewer than MIN_REPEAT_CHILDREN of them is passed over unread."""
    assert tree.elements is not None
    elements, tags = tree.elements, tree.tags
    best = groups = 0
    for kids in tree.children:
        if len(kids) < MIN_REPEAT_CHILDREN:
            continue
        top = max(Counter([(tags[c], elements[c].get("class")) for c in kids]).values())
        if top >= MIN_REPEAT_CHILDREN:
            groups += 1
            best = max(best, top)
    return {"log_max_repeat": math.log1p(best), "log_repeat_groups": math.log1p(groups)}


def name_tokens(names: str) -> list[str]:
    """Lower-cased word tokens of class and id values: `l-sidebar_fixed postBody2` gives
    l, sidebar, fixed, post, body."""
    return [t.lower() for t in _NAME_TOKEN_RE.findall(names)]


_NAMES_XPATHS = tuple(etree.XPath(f"descendant-or-self::*/@{name}", smart_strings=False)
                      for name in ("class", "id"))
"""The class values and the id values, one query each (plain strings: twice as fast to make).
Their union in one query cost a third more: libxml2 sorts a union into document order, which
a count of the values does not need."""
_THEMES_OF_TOKEN: dict[str, tuple[str, ...]] = {}
"""The themes a name token names, by the token as _NAME_TOKEN_RE finds it: a lower-case
theme word ("post") is found as "post", "Post" or "POST", the three ways a token of that
regex lower-cases to it."""
for _theme, _words in NAME_THEMES.items():
    for _word in _words:
        for _form in {_word, _word.capitalize(), _word.upper()}:
            _THEMES_OF_TOKEN[_form] = (*_THEMES_OF_TOKEN.get(_form, ()), _theme)


def _name_themes(body: HtmlElement, n: int) -> Features:
    """Per theme, the class and id tokens naming it, per 100 elements (each distinct class
    and id value tokenized once: a page repeats its class values on many elements)."""
    counts = dict.fromkeys(NAME_THEMES, 0)
    values = Counter(_strings(_NAMES_XPATHS[0], body))
    values.update(_strings(_NAMES_XPATHS[1], body))
    for value, repeats in values.items():
        for token in _NAME_TOKEN_RE.findall(value):
            for theme in _THEMES_OF_TOKEN.get(token, ()):
                counts[theme] += repeats
    return {f"names_{theme}": 100.0 * count / n for theme, count in counts.items()}


def _url_themes(url: str | None) -> Features:
    parts = urlsplit(url or "")
    path = parts.path.lower()
    tokens = _URL_TOKEN_RE.findall(path)
    feats: Features = {f"url_{theme}": float(sum(t in words for t in tokens))
                       for theme, words in URL_THEMES.items()}
    segments = [s for s in path.split("/") if s]
    last = segments[-1] if segments else ""
    feats["url_depth"] = float(len(segments))
    feats["url_slug_words"] = float(len(re.split(r"[-_]", last))) if last else 0.0
    feats["url_date"] = 1.0 if _DATE_PATH_RE.search(path) else 0.0
    feats["url_query"] = 1.0 if parts.query else 0.0
    feats["url_root"] = 1.0 if not segments else 0.0
    feats["url_ext_doc"] = 1.0 if last.endswith((".html", ".htm")) else 0.0
    return feats


def _ld_themes(blocks: list[Any]) -> Features:
    found = dict.fromkeys(LD_TYPES, 0.0)
    for kind in map(str.lower, ld_types(blocks)):
        for theme, names in LD_TYPES.items():
            if kind in names:
                found[theme] = 1.0
    return {f"ld_{theme}": value for theme, value in found.items()}


def _og_types(root: HtmlElement) -> Features:
    value = ""
    head = root.find("head")
    for meta in (head if head is not None else root).iter("meta"):
        if (meta.get("property") or meta.get("name") or "").lower() == "og:type":
            value = (meta.get("content") or "").strip().lower()
            break
    return {f"og_{kind}": 1.0 if value.startswith(kind) else 0.0 for kind in OG_TYPES}
