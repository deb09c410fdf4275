"""The page's type, from cheap page features and a classifier trained offline on WCXB.

WCXB labels its pages article, documentation, forum, listing, collection, product and
service; Winnow tells six types, a listing and a collection being one type for a reader
(a page of links to other pages). `bench/train_models.py` trains the classifier on the tune
part of WCXB (with the article sets' tune pages as articles, lightly weighted) and ships it
as `winnow/models/pagetype.json`; it is evaluated here in plain
Python (`treemodel`). The router uses the type: listings, products and services get no reader
view, documentation gets its whole main container (see `extractor`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from winnow.page import Page
from winnow.pagefeatures import page_features
from winnow.treemodel import load_model

PAGE_TYPES = ("article", "documentation", "forum", "listing", "product", "service")
"""The types the classifier tells apart."""

READERLESS_LABELS = ("listing", "product", "service")
"""The types read without a reader view (`router.READERLESS_TYPES`)."""

WCXB_TYPES = {"article": "article", "documentation": "documentation", "forum": "forum",
              "listing": "listing", "collection": "listing", "product": "product",
              "service": "service"}
"""WCXB's page types as Winnow's."""

MIN_TYPED_CHARS = 1000
"""A page with less text than this is outside what the classifier learned from (WCXB's
pages, but for a few empty script shells, hold over 1,100 characters); it is read as an
article would be."""

MODEL_NAME = "pagetype"

MIN_TYPE_PROBABILITY = 0.7
"""A type the classifier gives at least this probability changes how the page is read;
below it, the page is read as an article would be (the extraction's own tests decide). Out of
fold on the tune pages, 0.7 sends 6 of WCXB's 455 articles and 1 of the other sets' 1,084
article pages to "other", and 106 of WCXB's 276 listings, products and services (0.6: 6, 7
and 131)."""


@dataclass(frozen=True)
class PageType:
    """The most probable type and every type's probability."""

    label: str
    probabilities: dict[str, float] = field(default_factory=dict)
    sure: bool = False
    """The label is probable enough (MIN_TYPE_PROBABILITY) on a page large enough
    (MIN_TYPED_CHARS) to act on. Documentation needs only be the most probable type: what
    it changes (the reader view widened to the main container around ECON's body) keeps the
    reader view, where the other types take it away."""

    def probability(self, label: str) -> float:
        return self.probabilities.get(label, 0.0)


def classify(page: Page) -> PageType:
    """The page's type by the shipped classifier (cached in `page.derived`)."""
    cached = page.derived.get("page_type")
    if isinstance(cached, PageType):
        return cached
    features = page_features(page)
    found = page_type_of(load_model(MODEL_NAME).probabilities(features), features)
    page.derived["page_type"] = found
    return found


def page_type_of(probabilities: dict[str, float], features: dict[str, float]) -> PageType:
    """The type a classifier's `probabilities` give a page of these `features` (the most
    probable label, sure by MIN_TYPE_PROBABILITY and MIN_TYPED_CHARS)."""
    label = max(probabilities, key=lambda k: probabilities[k])
    probable = label == "documentation" or probabilities[label] >= MIN_TYPE_PROBABILITY
    sure = probable and features["log_chars"] >= math.log1p(MIN_TYPED_CHARS)
    return PageType(label, probabilities, sure)


def reader_page_type(page_type: PageType) -> str:
    """The type the router and the extraction act on: the classifier's label when it is
    sure (`PageType.sure`), else "article"."""
    return page_type.label if page_type.sure else "article"


def readerless_probability(page_type: PageType) -> float:
    """The probability that the page is a listing, a product or a service page."""
    return sum(page_type.probability(label) for label in READERLESS_LABELS)


def type_features(page_type: PageType) -> dict[str, float]:
    """The type's probabilities as features of the quality model."""
    return {f"type_{label}": page_type.probability(label) for label in PAGE_TYPES}
