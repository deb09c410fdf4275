"""The learned quality estimate: the shipped regressor, the features the extractor gives it,
and the confidence it becomes."""

from __future__ import annotations

import pytest
from model_reference import model_data, reference_raw
from winnow.extractor import extract_page
from winnow.page import parse_page
from winnow.quality import estimate, text_features
from winnow.treemodel import load_model

SENTENCE = ("The council voted on Tuesday to rebuild the old harbour wall, which storms had "
            "broken twice in ten years, and to pay for it from the port's own reserves. ")


def article_page() -> str:
    paragraphs = "".join(f"<p>{SENTENCE * 3}</p>" for _ in range(8))
    nav = "".join(f"<li><a href='/s/{i}'>Section {i}</a></li>" for i in range(12))
    return (f"<html><head><title>Harbour wall to be rebuilt</title></head><body>"
            f"<nav><ul>{nav}</ul></nav><article><h1>Harbour wall to be rebuilt</h1>"
            f"{paragraphs}</article><footer>© The Gazette</footer></body></html>")


def fragment_page() -> str:
    """A portal whose only prose is one caption away from any heading: little to extract."""
    links = "".join(f"<li><a href='/story/{i}'>Headline number {i} of the day</a></li>"
                    for i in range(60))
    return (f"<html><head><title>Portal</title></head><body><ul>{links}</ul>"
            "<div><p>Photo: the harbour at dawn, by staff.</p></div></body></html>")


def test_shipped_regressor_loads_and_reads_the_features_the_extractor_gives() -> None:
    model = load_model("quality")
    assert model.kind == "regressor" and len(model.base) == 1 and model.trees
    page = parse_page(article_page(), "https://gazette.example/2024/05/harbour-wall")
    extract_page(page)
    features = page.derived["quality_features"]
    assert set(model.features) <= set(features)


def test_regressor_evaluates_as_a_second_reading_of_its_json() -> None:
    page = parse_page(article_page(), "https://gazette.example/2024/05/harbour-wall")
    result = extract_page(page)
    features = page.derived["quality_features"]
    want = reference_raw(model_data("quality"), features)[0]
    assert load_model("quality").predict(features) == pytest.approx(want, abs=1e-12)
    assert result.confidence == round(min(1.0, max(0.0, want)), 3)


def test_a_clean_article_is_trusted_more_than_a_fragment() -> None:
    article = extract_page(parse_page(article_page(), "https://gazette.example/2024/05/wall"))
    fragment = extract_page(parse_page(fragment_page(), "https://gazette.example/"))
    assert article.kind == "article"
    assert article.confidence > fragment.confidence
    assert 0.0 <= fragment.confidence <= 1.0


def test_estimate_stays_within_zero_and_one() -> None:
    page = parse_page(article_page(), "https://gazette.example/2024/05/harbour-wall")
    extract_page(page)
    features = dict(page.derived["quality_features"])
    for name in ("text_log_chars", "body_link_density", "text_prose_share"):
        for value in (-1e6, 1e6):
            assert 0.0 <= estimate({**features, name: value}) <= 1.0


def test_text_features_measure_prose() -> None:
    prose = text_features(SENTENCE * 4)
    labels = text_features("\n".join(f"Link {i}" for i in range(20)))
    assert prose["text_prose_share"] == pytest.approx(1.0)
    assert labels["text_prose_share"] == 0.0 and labels["text_short_lines"] == 1.0
    assert text_features("")["text_log_chars"] == 0.0
