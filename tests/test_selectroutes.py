"""bench/selectroutes.py: routing rules are scored by the F1 of each page's two readings."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import selectroutes  # noqa: E402
from winnow.pagetype import PAGE_TYPES  # noqa: E402


def _p(label: str, value: float) -> dict[str, float]:
    """Probabilities with `value` on `label` and the rest on article."""
    return {**dict.fromkeys(PAGE_TYPES, 0.0), "article": 1.0 - value, label: value}


COSTS = {"a": (0.0, 1.0), "b": (0.9, 0.5), "c": (0.8, 0.4)}
"""An article typed listing loses its body when acted on; two listings gain."""
PROBABILITIES = {"a": _p("listing", 0.6), "b": _p("listing", 0.8), "c": _p("listing", 0.9)}


def test_a_threshold_picks_each_page_s_reading() -> None:
    rule = selectroutes.threshold_rule({"listing": 0.7})
    assert selectroutes.mean_f1(COSTS, PROBABILITIES, rule, list(COSTS)) \
        == (1.0 + 0.9 + 0.8) / 3


def test_the_best_threshold_keeps_the_article_and_acts_on_the_listings() -> None:
    chosen = selectroutes.best_thresholds(COSTS, PROBABILITIES, list(COSTS))
    assert 0.6 < chosen["listing"] <= 0.8


def test_the_expected_gain_rule_weighs_the_gain_by_the_probabilities() -> None:
    truth = {"a": "article", "b": "listing", "c": "listing"}
    gains = selectroutes.gain_table(COSTS, PROBABILITIES, truth, list(COSTS))
    assert gains[("listing", "article")] == -1.0
    rule = selectroutes.expected_rule(gains)
    assert rule("listing", _p("listing", 0.9)) and not rule("listing", _p("listing", 0.55))
