"""bench/ooftypes.py: out-of-fold page types are folded by domain."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import ooftypes  # noqa: E402
import train_models  # noqa: E402
from winnow.pagetype import PAGE_TYPES  # noqa: E402


def test_fold_depends_on_the_domain_only() -> None:
    domains = [f"site{i}.example" for i in range(200)]
    folds = [ooftypes.fold_of(d) for d in domains]
    assert folds == [ooftypes.fold_of(d) for d in domains]
    assert ooftypes.fold_of("www.Site1.example") == ooftypes.fold_of("site1.example")
    assert set(folds) == set(range(ooftypes.FOLDS))


class _Model:
    """A stand-in classifier that remembers the domains it learned from."""

    classes_ = list(PAGE_TYPES)

    def __init__(self, rows: list[dict[str, float]]) -> None:
        self.seen = {row["domain"] for row in rows}

    def predict_proba(self, x: list[list[float]]) -> list[list[float]]:
        return [[1.0 / len(PAGE_TYPES)] * len(PAGE_TYPES) for _ in x]


def test_no_page_is_typed_by_a_model_that_saw_its_domain(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    data = train_models.PagetypeData()
    for i in range(120):
        domain = f"d{i % 40}.example"
        data.rows.append({"domain": float(i % 40), "log_chars": 8.0})
        data.labels.append("article")
        data.weights.append(1.0)
        data.keys.append(f"wcxb/{i}")
        data.domains.append(domain)
    models: list[_Model] = []

    def fit(rows: list[dict[str, float]], *args: Any) -> _Model:
        models.append(_Model(rows))
        return models[-1]

    monkeypatch.setattr(ooftypes, "pagetype_data", lambda: data)
    monkeypatch.setattr(ooftypes, "fit_pagetype", fit)
    out = ooftypes.compute_oof_types()
    assert sorted(out) == sorted(data.keys)
    assert len(models) == ooftypes.FOLDS
    for k, model in enumerate(models):
        held = {float(i % 40) for i in range(40) if ooftypes.fold_of(f"d{i}.example") == k}
        assert held and not held & model.seen


def test_true_types_are_forced_on_wcxb_tune_pages_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """`true_runners` (`evaluate.py --true-types`) reads a WCXB tune page with its labelled
    type, certain (a collection as a listing); a check page, or another set's, keeps the
    shipped classifier."""
    domains = [f"shop{i}.example" for i in range(40)]
    tune = next(d for d in domains if ooftypes.ev.split_of(d) == "tune")
    check = next(d for d in domains if ooftypes.ev.split_of(d) == "check")

    def case(set_name: str, case_id: str, domain: str) -> ooftypes.ev.Case:
        return ooftypes.ev.Case(set_name, case_id, Path(case_id), b"<html></html>", None, "",
                                {"page_type": "collection"}, domain=domain)

    cases = [case("wcxb", "1", tune), case("wcxb", "2", check), case("fundus", "3", tune)]
    entry = {**dict.fromkeys(PAGE_TYPES, 0.0), "article": 1.0, "log_chars": 9.0}
    monkeypatch.setattr(ooftypes, "oof_types",
                        lambda: {train_models.page_key(c): entry for c in cases})
    runners = ooftypes.true_runners(cases)
    assert list(runners) == ["1"]
    page_type = runners["1"].keywords["page_type"]  # type: ignore[attr-defined]
    assert page_type.label == "listing" and page_type.sure
