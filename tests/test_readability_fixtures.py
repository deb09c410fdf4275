"""Per-page checks on a varied handful of Mozilla Readability's test pages.

For each case the extracted title must equal expected-metadata.json's title (whitespace
normalised), as must `dir` and `lang` where the metadata gives them, and the text's shingle F1
against expected.html (the benchmark metric of `winnow.evaluation`) must stay at or above a
floor pinned from the results when these tests were written, minus 0.05. Without the shared
data directory the tests skip, except under CI (env CI set), where they fail.

Left out because their F1 was below 0.8 when pinned: ehow-1 (0.36), hukumusume (0.44),
pixnet (0.19), qq (0.67), wikipedia (0.73), mozilla-1 (0.79), breitbart (0.80).
"""

from __future__ import annotations

import re

import pytest
from helpers import require_corpus
from winnow import evaluation as ev
from winnow import extract

FLOORS = {
    # case: F1 floor (measured F1 - 0.05, rounded down)
    "001": 0.88,  # English blog post with code blocks
    "002": 0.90,  # English technical article
    "bbc-1": 0.86,  # news, heavy template
    "folha": 0.85,  # Portuguese news
    "guardian-1": 0.91,  # news with Māori macrons
    "heise": 0.93,  # German tech news
    "la-nacion": 0.94,  # Spanish opinion piece
    "lemonde-1": 0.92,  # French news
    "lwn-1": 0.85,  # long weekly edition, many sections
    "medium-1": 0.90,  # Medium post
    "nytimes-1": 0.89,  # news
    "rtl-1": 0.95,  # dir="rtl" page
    "telegraph": 0.81,  # news with live-blog furniture
    "youth": 0.85,  # Chinese news (CJK punctuation)
}

_SPACE_RE = re.compile(r"\s+")


def _normalise(text: str | None) -> str:
    return _SPACE_RE.sub(" ", text or "").strip()


@pytest.fixture(scope="module")
def cases() -> dict[str, ev.Case]:
    """The readability cases by id; skips (fails under CI) when the data is absent."""
    require_corpus("articles", "readability")
    return {case.id: case for case in ev.readability_cases() if case.id in FLOORS}


@pytest.mark.parametrize("case_id", sorted(FLOORS))
def test_readability_case(cases: dict[str, ev.Case], case_id: str) -> None:
    assert case_id in cases, f"readability case {case_id} is missing from the data directory"
    case = cases[case_id]
    result = extract(case.html, url=ev.READABILITY_URL)
    assert result.kind == "article"
    assert result.article is not None
    expected_title = case.metadata.get("title")
    assert expected_title, f"{case_id}: expected-metadata.json has no title"
    assert _normalise(result.article.title) == _normalise(expected_title)
    for key in ("dir", "lang"):
        if case.metadata.get(key):
            assert getattr(result.article, key) == case.metadata[key], key
    counts = ev.page_counts(case.gold, result.article.text)
    p, r = ev.precision(counts), ev.recall(counts)
    score = ev.f1(p, r)
    floor = FLOORS[case_id]
    assert score >= floor, (
        f"{case_id}: F1 {score:.3f} (P {p:.3f}, R {r:.3f}) fell below the pinned floor {floor}")
