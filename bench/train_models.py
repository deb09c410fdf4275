#!/usr/bin/env python3
"""Train Winnow's page-type classifier and quality estimate; report them on the check parts.

    .venv/bin/pip install -e '.[train]'
    .venv/bin/python bench/train_models.py            # train both models on tune, write JSON
    .venv/bin/python bench/train_models.py --report --write bench/RESULTS.md
                                    # no training: score the shipped models on tune and check

Training reads only the tune part of every set (`winnow.evaluation.load_cases(split="tune")`):

1. The page-type classifier (`winnow/models/pagetype.json`): a gradient-boosted ensemble over
   `winnow.pagefeatures` of WCXB's tune pages, labelled with WCXB's types (listing and
   collection as one, `pagetype.WCXB_TYPES`), and of the other sets' tune pages, all
   articles, with a small weight (ARTICLE_SETS_WEIGHT): news and blog pages of other eras
   than WCXB's must not pass for listings.
2. The quality estimate (`winnow/models/quality.json`): a gradient-boosted regressor over the
   features `extractor` records for each result (`quality.result_features`), with the new
   page-type classifier in place, on the tune pages of readability, sites, dragnet, wcxb and
   fundus. The target is the page's F1 against its gold: WCXB's word F1 for wcxb, the shingle
   F1 (precision and recall of the page, `winnow.evaluation`) for the others. The text is the
   one the benches score (`evaluation.content_text`). Extraction runs without the learned
   retry while the data is gathered, so the data does not depend on the model being trained.

Seeds are fixed, so the same extraction gives the same models. Every exported model is
evaluated by `winnow.treemodel` on the training rows and checked against scikit-learn's own
predictions before it is written. `--report` prints (and with `--write`, puts in
bench/RESULTS.md) Spearman's rank correlation between the confidence and the real F1 per set,
and the classifier's accuracy and confusion on WCXB, on tune and check (check pages are only
ever aggregated).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluate import _git_state, command_line, publish
from winnow import evaluation as ev
from winnow.extractor import extract_page
from winnow.page import parse_page
from winnow.pagefeatures import page_features
from winnow.pagetype import PAGE_TYPES, WCXB_TYPES, classify
from winnow.treemodel import load_model, parse_model

MODELS_DIR = Path(__file__).resolve().parents[1] / "server" / "winnow" / "models"
SEED = 12
PAGETYPE_PARAMS = {"n_estimators": 80, "max_depth": 2, "learning_rate": 0.1,
                   "subsample": 0.8, "min_samples_leaf": 10, "random_state": SEED}
"""Chosen by 5-fold cross-validation by domain on WCXB's tune pages (accuracy 0.82 against
0.80 for deeper, longer ensembles, which fit the tune pages perfectly)."""
ARTICLE_SETS = ("readability", "sites", "dragnet", "fundus")
"""Sets whose every page is an article: their tune pages join the classifier's training."""
ARTICLE_SETS_WEIGHT = 0.25
"""The article-set pages weigh this share of WCXB's tune articles together. Out of fold
(5 folds by domain), without them 147 of their 1,084 tune pages were taken for listings,
products or services with probability >= 0.6; with them, 7 (1 at 0.7), while WCXB's accuracy
went from 0.816 to 0.796."""
QUALITY_PARAMS = {"n_estimators": 200, "max_depth": 3, "learning_rate": 0.05,
                  "subsample": 0.8, "min_samples_leaf": 10, "random_state": SEED}
MAX_EXPORT_ERROR = 1e-6
"""Largest difference allowed between scikit-learn's and the JSON model's outputs."""


# --- export ---------------------------------------------------------------------------------

def export_tree(tree: Any) -> dict[str, list[Any]]:
    """A fitted scikit-learn tree as the parallel lists `treemodel.Tree` reads."""
    t = tree.tree_
    return {"feature": [int(f) if left >= 0 else -1
                        for f, left in zip(t.feature, t.children_left, strict=True)],
            "threshold": [float(v) for v in t.threshold],
            "left": [int(v) for v in t.children_left],
            "right": [int(v) for v in t.children_right],
            "value": [float(v[0][0]) for v in t.value]}


def export_ensemble(model: Any, features: Sequence[str], x0: Any, classes: Sequence[str] = ()
                    ) -> dict[str, Any]:
    """A fitted GradientBoostingRegressor or GradientBoostingClassifier as JSON data; the base
    score is read off one sample (raw output minus the scaled trees)."""
    import numpy as np

    stages = model.estimators_
    rate = float(model.learning_rate)
    sums = np.array([sum(stage[k].predict(x0)[0] for stage in stages)
                     for k in range(stages.shape[1])])
    if classes:
        raw = np.atleast_1d(model.decision_function(x0)[0])
        kind = "classifier"
    else:
        raw = np.atleast_1d(model.predict(x0)[0])
        kind = "regressor"
    base = raw - rate * sums
    return {"kind": kind, "features": list(features), "classes": list(classes),
            "base": [float(b) for b in base], "learning_rate": rate,
            "trees": [[export_tree(tree) for tree in stage] for stage in stages]}


def matrix(rows: Sequence[dict[str, float]], features: Sequence[str]) -> list[list[float]]:
    return [[row[name] for name in features] for row in rows]


def write_model(name: str, data: dict[str, Any]) -> None:
    path = MODELS_DIR / f"{name}.json"
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n", "utf-8")
    load_model.cache_clear()
    print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")


# --- the page-type classifier ---------------------------------------------------------------

@dataclass
class PagetypeData:
    """The classifier's training pages: features, labels and weights, and each page's key
    (`page_key`) and domain (what `bench/ooftypes.py` folds by)."""

    rows: list[dict[str, float]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    domains: list[str] = field(default_factory=list)


def page_key(case: ev.Case) -> str:
    """A page's key across sets: its set and id."""
    return f"{case.set}/{case.id}"


def pagetype_data() -> PagetypeData:
    """WCXB's tune pages with their types, then the tune pages of the article sets as
    articles, weighted to ARTICLE_SETS_WEIGHT of WCXB's articles together."""
    data = PagetypeData()

    def add(case: ev.Case, label: str) -> None:
        data.rows.append(page_features(parse_page(case.html, case.url)))
        data.labels.append(label)
        data.keys.append(page_key(case))
        data.domains.append(case.domain or case.id)

    for case in ev.load_cases("wcxb", split="tune"):
        add(case, WCXB_TYPES[case.page_type])
    wcxb = len(data.rows)
    articles = data.labels.count("article")
    for name in ARTICLE_SETS:
        for case in ev.load_cases(name, split="tune"):
            add(case, "article")
    extra = len(data.rows) - wcxb
    data.weights = [1.0] * wcxb + [ARTICLE_SETS_WEIGHT * articles / extra] * extra
    return data


def fit_pagetype(rows: Sequence[dict[str, float]], labels: Sequence[str],
                 weights: Sequence[float], features: Sequence[str]) -> Any:
    """The fitted scikit-learn classifier (PAGETYPE_PARAMS) over `features` of `rows`."""
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(**PAGETYPE_PARAMS).fit(
        matrix(rows, features), list(labels), sample_weight=list(weights))


def train_pagetype() -> None:
    """Fit the classifier on `pagetype_data` and write it after checking the export."""
    data = pagetype_data()
    rows = data.rows
    features = list(rows[0])
    x = matrix(rows, features)
    model = fit_pagetype(rows, data.labels, data.weights, features)
    classes = [str(c) for c in model.classes_]
    if sorted(classes) != sorted(PAGE_TYPES):
        sys.exit(f"the tune pages do not hold every page type: {classes}")
    export = export_ensemble(model, features, x[:1], classes)
    ensemble = parse_model(export)
    expected = model.predict_proba(x)
    worst = max(abs(ensemble.probabilities(row)[label] - expected[i][k])
                for i, row in enumerate(rows) for k, label in enumerate(classes))
    extra = sum(not key.startswith("wcxb/") for key in data.keys)
    print(f"pagetype: {len(rows) - extra} WCXB pages and {extra} article-set pages, "
          f"{len(features)} features, export error {worst:.2e}")
    if worst > MAX_EXPORT_ERROR:
        sys.exit("the exported classifier disagrees with scikit-learn")
    write_model("pagetype", export)


# --- the quality estimate -------------------------------------------------------------------

def page_score(case: ev.Case, text: str) -> float:
    """The page's F1 by its set's metric: WCXB's word F1 on wcxb, the shingle F1 of the page
    elsewhere."""
    if ev.set_metric(case.set) == "word":
        return ev.word_f1(case.gold, text)[2]
    counts = ev.page_counts(case.gold, text)
    return ev.f1(ev.precision(counts), ev.recall(counts))


def run_set(name: str, split: str, learned_retry: bool
            ) -> list[tuple[ev.Case, dict[str, float], float, float, str]]:
    """Extract every page of one part: (case, quality features, confidence, F1, kind)."""
    out: list[tuple[ev.Case, dict[str, float], float, float, str]] = []
    for case in ev.load_cases(name, split=split):
        page = parse_page(case.html, case.url)
        result = extract_page(page, learned_retry=learned_retry)
        text = ev.content_text(result)
        out.append((case, page.derived["quality_features"], result.confidence,
                    page_score(case, text), result.kind))
    return out


def ensure_quality_model() -> None:
    """On the very first run there is no quality model yet: a constant one stands in while
    the features are gathered (the confidence it gives is no feature, and the learned retry
    is off then)."""
    path = MODELS_DIR / "quality.json"
    if not path.exists():
        path.write_text(json.dumps({"kind": "regressor", "features": [], "base": [0.5],
                                    "learning_rate": 0.1, "trees": []}), "utf-8")
        load_model.cache_clear()


def train_quality() -> None:
    """Fit the regressor on every set's tune pages and write it after checking the export."""
    from sklearn.ensemble import GradientBoostingRegressor

    ensure_quality_model()
    rows: list[dict[str, float]] = []
    targets: list[float] = []
    for name in ev.SETS:
        start = time.perf_counter()
        results = run_set(name, "tune", learned_retry=False)
        rows.extend(r[1] for r in results)
        targets.extend(r[3] for r in results)
        print(f"quality data: {name} {len(results)} pages, mean F1 "
              f"{statistics.fmean(r[3] for r in results):.3f}, "
              f"{time.perf_counter() - start:.0f} s")
    features = list(rows[0])
    x = matrix(rows, features)
    model = GradientBoostingRegressor(**QUALITY_PARAMS).fit(x, targets)
    data = export_ensemble(model, features, x[:1])
    ensemble = parse_model(data)
    expected = model.predict(x)
    worst = max(abs(ensemble.predict(row) - expected[i]) for i, row in enumerate(rows))
    print(f"quality: {len(rows)} pages, {len(features)} features, export error {worst:.2e}")
    if worst > MAX_EXPORT_ERROR:
        sys.exit("the exported regressor disagrees with scikit-learn")
    write_model("quality", data)


# --- the report -----------------------------------------------------------------------------

SECTION = "models"
"""The section of bench/RESULTS.md that `--report --write` replaces."""


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            out[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the ranks (0 when one side is
    constant)."""
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var else 0.0


def report_quality(split: str) -> list[str]:
    """Table rows: per set and pooled, the rank correlation of the confidence with the real
    F1 on one part, and how many pages that fail outright (F1 < 0.2) get a confidence under
    0.5."""
    rows: list[str] = []
    pooled_c: list[float] = []
    pooled_f: list[float] = []
    for name in ev.SETS:
        results = run_set(name, split, learned_retry=True)
        conf = [r[2] for r in results]
        f1s = [r[3] for r in results]
        pooled_c += conf
        pooled_f += f1s
        failed = [c for c, f in zip(conf, f1s, strict=True) if f < 0.2]
        rows.append(f"| {split} | {name} | {len(results)} | {statistics.fmean(f1s):.3f} | "
                    f"{statistics.fmean(conf):.3f} | {spearman(conf, f1s):.3f} | "
                    f"{sum(c < 0.5 for c in failed)}/{len(failed)} |")
    failed = [c for c, f in zip(pooled_c, pooled_f, strict=True) if f < 0.2]
    rows.append(f"| {split} | **pooled** | {len(pooled_f)} | {statistics.fmean(pooled_f):.3f} | "
                f"{statistics.fmean(pooled_c):.3f} | **{spearman(pooled_c, pooled_f):.3f}** | "
                f"{sum(c < 0.5 for c in failed)}/{len(failed)} |")
    return rows


def shipped_label(case: ev.Case) -> str:
    """The shipped classifier's type of a page."""
    return classify(parse_page(case.html, case.url)).label


def report_pagetype(split: str, label_of: Callable[[ev.Case], str] = shipped_label,
                    what: str = "Page types") -> list[str]:
    """The accuracy of the types `label_of` gives WCXB's pages of one part, and its confusion
    (rows: truth, columns: predicted)."""
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    for case in ev.load_cases("wcxb", split=split):
        confusion[WCXB_TYPES[case.page_type]][label_of(case)] += 1
    right = sum(confusion[t][t] for t in PAGE_TYPES)
    total = sum(sum(row.values()) for row in confusion.values())
    lines = [f"{what}, {split} ({total} WCXB pages): accuracy {right / total:.3f} "
             f"({right}/{total}).", "",
             "| truth \\ predicted | " + " | ".join(PAGE_TYPES) + " |",
             "|---|" + "---|" * len(PAGE_TYPES)]
    for truth in PAGE_TYPES:
        lines.append(f"| {truth} | " + " | ".join(str(confusion[truth][t]) for t in PAGE_TYPES)
                     + " |")
    return lines + [""]


def report(splits: Sequence[str], command: str) -> str:
    """The models' section of bench/RESULTS.md."""
    quality = [row for split in splits for row in report_quality(split)]
    lines = ["## Quality estimate and page types", "",
             f"Command: `{command}`  ",
             f"Date: {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; "
             f"{_git_state()}.", "",
             "`confidence` is the quality model's estimate of the result's F1 (`quality.py`, "
             "trained on the tune parts only by this script). Per part and set: pages, the "
             "mean real F1 (WCXB's word F1 on wcxb, the page's shingle F1 elsewhere, of the "
             "text the benches score), the mean confidence, Spearman's rank correlation of "
             "confidence and F1, and the pages that fail outright (F1 < 0.2) that get a "
             "confidence under 0.5.", "",
             "| part | set | pages | mean F1 | mean confidence | Spearman | failed, "
             "confidence < 0.5 |", "|---|---|---|---|---|---|---|", *quality, ""]
    for split in splits:
        lines += report_pagetype(split)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--report", action="store_true",
                        help="score the shipped models on tune and check; train nothing")
    parser.add_argument("--splits", default="tune,check", help="parts to report on")
    parser.add_argument("--models", default="pagetype,quality",
                        help="models to train (the quality model reads the page type's)")
    parser.add_argument("--write", type=Path,
                        help="with --report: write/replace the section in this markdown")
    args = parser.parse_args(argv)
    if not args.report:
        if "pagetype" in args.models:
            train_pagetype()
        if "quality" in args.models:
            train_quality()
        return 0
    text = report(args.splits.split(","), command_line("train_models.py", argv))
    publish(text, args.write, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
