"""Quality gate: Winnow's score on every evaluation set, on its tune part and on its check part
alike, must stay at or above the floor pinned for that part, and no more article pages (gold
one article, no comments) may come back as threads than the count pinned for that part (issue
4's routing rule was none; a few pages of dragnet, wcxb and fundus still do, see
bench/RESULTS.md).

Each set is judged by its own metric (`winnow.evaluation.set_metric`: WCXB's word F1 on wcxb,
the shingle F1 elsewhere) and split by a stable hash of each page's domain (tune and check,
`winnow.evaluation.split_of`). Floors and the corpus fingerprint live in quality_floors.json;
re-pin both with `.venv/bin/python bench/evaluate.py --engines winnow --pin-floors`. Without
the shared data directory the gate skips, except under CI (env CI set), where it fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import require_corpus
from winnow import evaluation as ev
from winnow import extract
from winnow.page import PageError

FLOORS_PATH = Path(__file__).with_name("quality_floors.json")
REPIN = "re-pin with: .venv/bin/python bench/evaluate.py --engines winnow --pin-floors"


@pytest.fixture(scope="module")
def floors() -> dict[str, Any]:
    """The pinned floors; skips (fails under CI) when the data directory is absent."""
    require_corpus("articles")
    data: dict[str, Any] = json.loads(FLOORS_PATH.read_text("utf-8"))
    return data


def test_corpus_matches_pinned_floors(floors: dict[str, Any]) -> None:
    assert ev.corpus_fingerprint() == floors["corpus_sha256"], (
        f"the evaluation corpus changed since the floors were pinned; floors must be re-pinned: "
        f"{REPIN}")
    assert set(floors["floors"]) == set(ev.SETS), f"floors are missing sets; {REPIN}"


@pytest.mark.parametrize("set_name", ev.SETS)
def test_score_above_floor_on_tune_and_check(floors: dict[str, Any], set_name: str) -> None:
    pairs: dict[str, list[tuple[str, str]]] = {split: [] for split in ev.SPLITS}
    threads: dict[str, list[str]] = {split: [] for split in ev.SPLITS}
    disagree = []
    for case in ev.load_cases(set_name):
        try:
            result = extract(case.html, case.url)
        except PageError:
            pairs[case.split].append((case.gold, ""))
            continue
        pairs[case.split].append((case.gold, ev.content_text(result)))
        if result.kind == "thread" and ev.is_article_page(case):
            threads[case.split].append(case.id)
        if (result.kind == "article") != (result.article is not None):
            disagree.append(case.id)
    metric = ev.set_metric(set_name)
    for split in ev.SPLITS:
        score = ev.score_texts(set_name, pairs[split])
        floor = floors["floors"][set_name][split]
        assert score.f1 >= floor, (
            f"{set_name} {split}: {metric} F1 {score.f1:.4f} (P {score.precision:.4f}, "
            f"R {score.recall:.4f}, {score.pages} pages) fell below the pinned floor {floor:.3f}")
        ceiling = floors["misrouted"][set_name][split]
        assert len(threads[split]) <= ceiling, (
            f"{set_name} {split}: more article pages without comments read as threads than "
            f"the pinned {ceiling}: {threads[split]}")
    assert not disagree, f"{set_name}: kind 'article' and the article disagree on {disagree}"
