"""The learned quality estimate: how good is this extraction, as a predicted F1 in [0, 1].

A small gradient-boosted ensemble, trained offline by `bench/train_models.py` on the tune
parts of every article set (target: the page's F1 against its gold, shingle F1 for most sets,
word F1 for WCXB), predicts the F1 from cheap features of the page (`pagefeatures`), of its
type (`pagetype`) and of the result: the scored text's length, prose share and punctuation,
the chosen node's depth and link density, its share of the page's text, and whether the
title heading sits with it. The prediction is the result's `confidence`, and it decides
whether the article extraction retries with looser rules (`needs_retry`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from winnow import econ
from winnow.article import ArticleContent
from winnow.page import HtmlElement
from winnow.pagefeatures import Features
from winnow.result import PageKind
from winnow.treemodel import load_model

MODEL_NAME = "quality"

RETRY_BELOW = 0.5
"""An article body whose estimate is below this is retried with looser rules (the retry is
kept only when the article module's strict acceptance rule takes it). On the article sets'
tune pages, thresholds from 0.4 to 0.6 change the same 20 of 1,084 bodies against the
article module's own trigger, each for the better on average (+0.006 F1 per page)."""

PROSE_LINE_CHARS = 80
"""A line of text at least this long with a sentence mark in it counts as prose."""

SHORT_LINE_CHARS = 40
"""A line shorter than this is a label, a link or a caption rather than prose."""

KINDS = ("article", "thread", "other")


def text_features(text: str) -> Features:
    """Length, prose and punctuation of the text a result gives its reader."""
    stripped = text.strip()
    chars = len(stripped)
    lines = [line.strip() for line in stripped.split("\n") if line.strip()]
    prose = sum(len(line) for line in lines
                if len(line) >= PROSE_LINE_CHARS and econ.punc_num(line))
    short = sum(1 for line in lines if len(line) < SHORT_LINE_CHARS)
    words = len(stripped.split())
    return {
        "text_log_chars": math.log1p(chars),
        "text_log_words": math.log1p(words),
        "text_log_lines": math.log1p(len(lines)),
        "text_line_chars": chars / len(lines) if lines else 0.0,
        "text_prose_share": prose / chars if chars else 0.0,
        "text_short_lines": short / len(lines) if lines else 0.0,
        "text_punc_per_kchar": 1000.0 * econ.punc_num(stripped) / chars if chars else 0.0,
    }


def body_features(found: ArticleContent | None, titled: bool) -> Features:
    """Where the chosen body sits and what it is made of."""
    if found is None:
        return {"body_found": 0.0, "body_depth": 0.0, "body_link_density": 0.0,
                "body_page_share": 0.0, "body_paragraphs": 0.0, "body_headings": 0.0,
                "body_econ_confidence": 0.0, "body_titled": 0.0}
    content = found.content
    chars = len(content.text_content().strip())
    links = sum(len(a.text_content().strip()) for a in content.iter("a"))
    return {
        "body_found": 1.0,
        "body_depth": float(_depth(found.source)),
        "body_link_density": links / chars if chars else 0.0,
        "body_page_share": min(1.0, chars / found.page_chars) if found.page_chars else 0.0,
        "body_paragraphs": math.log1p(sum(1 for _ in content.iter("p"))),
        "body_headings": math.log1p(sum(1 for _ in content.iter("h2", "h3", "h4"))),
        "body_econ_confidence": found.confidence,
        "body_titled": 1.0 if titled else 0.0,
    }


def _depth(el: HtmlElement) -> int:
    return sum(1 for _ in el.iterancestors())


def result_features(page: Mapping[str, float], types: Mapping[str, float], kind: PageKind,
                    text: str, found: ArticleContent | None, titled: bool,
                    posts: int = 0) -> Features:
    """Every feature the quality model reads, for one result."""
    feats: Features = dict(page)
    feats.update(types)
    feats.update({f"kind_{k}": 1.0 if k == kind else 0.0 for k in KINDS})
    feats["log_posts"] = math.log1p(posts)
    feats.update(text_features(text))
    feats.update(body_features(found, titled))
    return feats


def estimate(features: Mapping[str, float]) -> float:
    """The predicted F1 of a result with these features, in [0, 1]."""
    value = load_model(MODEL_NAME).predict(dict(features))
    return min(1.0, max(0.0, value))
