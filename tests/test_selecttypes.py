"""bench/selecttypes.py: candidates are scored on folds of domains, the first split being
bench/ooftypes.py's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import ooftypes  # noqa: E402
import selecttypes  # noqa: E402
from train_models import PAGETYPE_PARAMS, PagetypeData  # noqa: E402


def test_first_split_is_ooftypes_and_the_others_differ() -> None:
    domains = [f"site{i}.example" for i in range(200)]
    assert [selecttypes.fold_of(d, 0) for d in domains] == [ooftypes.fold_of(d) for d in domains]
    other = [selecttypes.fold_of(d, 1) for d in domains]
    assert other != [ooftypes.fold_of(d) for d in domains]
    assert set(other) == set(range(selecttypes.FOLDS))
    assert selecttypes.fold_of("www.Site1.example", 2) == selecttypes.fold_of("site1.example", 2)


def test_balanced_weights_even_out_wcxb_types_only() -> None:
    labels = ["article"] * 6 + ["listing"] * 2 + ["article"] * 3
    keys = [f"wcxb/{i}" for i in range(8)] + [f"dragnet/{i}" for i in range(3)]
    weights = selecttypes.balanced(labels, keys, [1.0] * 8 + [0.2] * 3)
    assert sum(weights[:6]) == pytest.approx(sum(weights[6:8])) == pytest.approx(4.0)
    assert weights[8:] == [0.2] * 3


def test_chosen_candidate_is_the_shipped_parameters() -> None:
    chosen = selecttypes.CANDIDATES["chosen"]
    assert chosen == {k: v for k, v in PAGETYPE_PARAMS.items() if k != "random_state"}


def test_scores_count_sure_readerless_articles() -> None:
    data = PagetypeData(rows=[{}, {}, {}], labels=["article", "listing", "article"],
                        keys=["wcxb/1", "wcxb/2", "dragnet/3"], domains=["a", "b", "c"])
    sure_listing = {"article": 0.1, "documentation": 0.0, "forum": 0.0, "listing": 0.9,
                    "product": 0.0, "service": 0.0}
    found = selecttypes.scores(data, [sure_listing, sure_listing, sure_listing])
    assert found["acc"] == 0.5 and found["art→x"] == 1 and found["sets→x"] == 1
    assert found["x sure"] == 1
