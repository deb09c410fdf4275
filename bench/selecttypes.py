#!/usr/bin/env python3
"""Choose the page-type classifier's hyperparameters by cross-validation grouped by domain.

    .venv/bin/pip install -e '.[train]'
    .venv/bin/python bench/selecttypes.py                 # every candidate in CANDIDATES
    .venv/bin/python bench/selecttypes.py --only chosen,previous --repeats 1

The shipped classifier fits WCXB's tune pages almost perfectly (in-sample accuracy 0.97) and
gets a fifth of the pages of unseen sites wrong: in-sample fit says nothing about the choice.
Here every candidate (`CANDIDATES`: parameters of scikit-learn's GradientBoostingClassifier,
the model `winnow.treemodel` evaluates, and how the WCXB types are weighted) is trained on
`train_models.pagetype_data` (WCXB's tune pages and the article sets' tune pages) FOLDS times,
each time without one fold of domains (a site is in one fold only), and scored on the pages it
did not see, for REPEATS different splits of the domains into folds (the first one is
`bench/ooftypes.py`'s). Reported per candidate, as means over the repeats:

- `acc`: accuracy on WCXB's tune pages, and `logloss`, the mean log loss of the true type;
- `art→x`: WCXB articles the router would take out of the reader view (a listing, product
  or service type at `pagetype.MIN_TYPE_PROBABILITY` or more), and `sets→x`, the same among the
  article sets' pages (the costly error: an article read as a listing loses its body);
- `x sure`: WCXB listings, products and services typed right and sure, the pages whose
  routing the type changes; `docs`: documentation pages typed documentation.

`bench/evaluate.py --oof-types` then scores extraction with the out-of-fold types of the
candidate written into `train_models.PAGETYPE_PARAMS`: the final judge (the router reads the
probabilities, not only the label). Measured so far (repeat 0, with the prose-share features
of branch h-types-features): previous 0.825, depth2-feat 0.826, depth3-feat 0.831 out-of-fold
accuracy, yet with their out-of-fold types wcxb tune read 0.8744 -> 0.8733 and 0.8735 and wcxb
check (shipped) lost 0.001 to 0.002 (3 to 4 articles routed away, gained on services);
depth3-feat on the shipped features: out-of-fold 0.801, check 0.810 (0.795 shipped), wcxb tune
-0.0008, check +0.0001; depth2-feat on them: 0.822, check 0.810, wcxb tune -0.0012, check
-0.0007. Every candidate but the shipped one typed two borderline readability pages (service
0.66 and listing 0.24 out of fold with the shipped parameters) readerless. Out-of-fold
accuracy on 846 pages moves by 0.01 from one split to the next: judge a candidate by
--oof-types F1, which `bench/selectroutes.py` measures for every routing threshold at once.
The features are cached in `$XDG_CACHE_HOME/winnow`, keyed by the sources that compute them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluate import REPO_DIR
from train_models import (
    ARTICLE_SETS,
    ARTICLE_SETS_WEIGHT,
    PAGETYPE_PARAMS,
    SEED,
    PagetypeData,
    matrix,
    pagetype_data,
)
from winnow import evaluation as ev
from winnow.pagetype import MIN_TYPE_PROBABILITY, PAGE_TYPES, READERLESS_LABELS

FOLDS = 5
"""Folds of the tune domains, as in `bench/ooftypes.py`."""
REPEATS = 3
"""Different splits of the domains into folds, each a salt of the domain hash; the first salt
is `ooftypes.fold_of`'s, so its column matches `bench/ooftypes.py`."""

PREVIOUS_PARAMS: dict[str, Any] = {"n_estimators": 80, "max_depth": 2, "learning_rate": 0.1,
                                   "subsample": 0.8, "min_samples_leaf": 10}
"""The parameters shipped before this selection (in-sample accuracy 0.966, out of fold 0.816)."""

CANDIDATES: dict[str, dict[str, Any]] = {
    "chosen": {k: v for k, v in PAGETYPE_PARAMS.items() if k != "random_state"},
    "previous": PREVIOUS_PARAMS,
    "shallow": {**PREVIOUS_PARAMS, "max_depth": 1, "n_estimators": 150},
    "depth2-slow": {**PREVIOUS_PARAMS, "learning_rate": 0.05, "n_estimators": 120},
    "depth2-leaf20": {**PREVIOUS_PARAMS, "min_samples_leaf": 20},
    "depth2-leaf40": {**PREVIOUS_PARAMS, "min_samples_leaf": 40, "n_estimators": 120},
    "depth2-sub5": {**PREVIOUS_PARAMS, "subsample": 0.5, "min_samples_leaf": 20,
                    "n_estimators": 120},
    "depth2-feat": {**PREVIOUS_PARAMS, "max_features": 0.3, "min_samples_leaf": 20,
                    "n_estimators": 150},
    "depth3-feat": {**PREVIOUS_PARAMS, "max_depth": 3, "max_features": 0.3,
                    "min_samples_leaf": 20, "learning_rate": 0.05, "n_estimators": 200},
    "balanced": {**PREVIOUS_PARAMS, "class_weight": "balanced"},
    "balanced-feat": {**PREVIOUS_PARAMS, "class_weight": "balanced", "max_features": 0.3,
                      "min_samples_leaf": 20, "n_estimators": 150},
}
"""Candidates as full parameter sets: "chosen" is `train_models.PAGETYPE_PARAMS`, the others
change PREVIOUS_PARAMS. "class_weight": "balanced" weighs each WCXB type by the inverse of its
count (the article sets' pages keep their share), "without" names features left out (an
ablation); every other key is a GradientBoostingClassifier parameter."""

OWN_KEYS = ("class_weight", "without")
"""Candidate keys that are not GradientBoostingClassifier parameters."""

FEATURE_SOURCES = ("server/winnow/pagefeatures.py", "server/winnow/page.py",
                   "server/winnow/mibat_dom.py", "server/winnow/tree.py")
"""The files whose text keys the feature cache."""


def fold_of(domain: str, repeat: int) -> int:
    """The fold of a domain in one repeat (repeat 0 is `ooftypes.fold_of`)."""
    salt = "fold:" if repeat == 0 else f"fold{repeat}:"
    key = (salt + domain.strip().lower().removeprefix("www.")).encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % FOLDS


def cached_data() -> PagetypeData:
    """`train_models.pagetype_data`, from the cache when the feature sources are unchanged."""
    digest = hashlib.sha256(str(ev.data_dir().resolve()).encode())
    digest.update(repr((ARTICLE_SETS, ARTICLE_SETS_WEIGHT)).encode())
    for name in FEATURE_SOURCES:
        digest.update((REPO_DIR / name).read_bytes())
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "winnow"
    path = root / f"pagetype-data-{digest.hexdigest()[:16]}.json"
    if path.is_file():
        return PagetypeData(**json.loads(path.read_text("utf-8")))
    data = pagetype_data()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data.__dict__), "utf-8")
    return data


def balanced(labels: Sequence[str], keys: Sequence[str], weights: Sequence[float]
             ) -> list[float]:
    """The weights with each WCXB type weighing as much as WCXB's mean type (the article
    sets' pages unchanged)."""
    wcxb = [label for label, key in zip(labels, keys, strict=True) if key.startswith("wcxb/")]
    counts = {label: wcxb.count(label) for label in set(wcxb)}
    mean = len(wcxb) / len(counts)
    return [w * mean / counts[label] if key.startswith("wcxb/") else w
            for label, key, w in zip(labels, keys, weights, strict=True)]


def fit(params: dict[str, Any], x: Any, labels: Sequence[str], weights: Sequence[float]) -> Any:
    """A GradientBoostingClassifier of the candidate's parameters, fitted."""
    from sklearn.ensemble import GradientBoostingClassifier

    settings = {"random_state": SEED, **{k: v for k, v in params.items() if k not in OWN_KEYS}}
    return GradientBoostingClassifier(**settings).fit(x, list(labels),
                                                      sample_weight=list(weights))


def out_of_fold(params: dict[str, Any], data: PagetypeData, repeat: int
                ) -> list[dict[str, float]]:
    """Every page's out-of-fold probabilities in one repeat's split."""
    import numpy as np

    features = [name for name in data.rows[0] if name not in params.get("without", ())]
    x = np.array(matrix(data.rows, features))
    weights = (balanced(data.labels, data.keys, data.weights)
               if params.get("class_weight") == "balanced" else data.weights)
    folds = [fold_of(domain, repeat) for domain in data.domains]
    out: list[dict[str, float]] = [{} for _ in data.rows]
    for k in range(FOLDS):
        train = [i for i, fold in enumerate(folds) if fold != k]
        held = [i for i, fold in enumerate(folds) if fold == k]
        model = fit(params, x[train], [data.labels[i] for i in train],
                    [weights[i] for i in train])
        classes = [str(c) for c in model.classes_]
        for i, row in zip(held, model.predict_proba(x[held]), strict=True):
            out[i] = {**dict.fromkeys(PAGE_TYPES, 0.0),
                      **{c: float(p) for c, p in zip(classes, row, strict=True)}}
    return out


def scores(data: PagetypeData, probabilities: list[dict[str, float]]) -> dict[str, float]:
    """One repeat's measures (see the module's docstring)."""
    found = dict.fromkeys(("acc", "logloss", "art→x", "sets→x", "x sure", "docs"), 0.0)
    wcxb = 0
    for key, label, p in zip(data.keys, data.labels, probabilities, strict=True):
        top = max(PAGE_TYPES, key=lambda t: p[t])
        readerless = top in READERLESS_LABELS and p[top] >= MIN_TYPE_PROBABILITY
        if not key.startswith("wcxb/"):
            found["sets→x"] += readerless
            continue
        wcxb += 1
        found["acc"] += top == label
        found["logloss"] -= math.log(max(p[label], 1e-9))
        if label == "article":
            found["art→x"] += readerless
        elif label in READERLESS_LABELS:
            found["x sure"] += readerless and top == label
        elif label == "documentation":
            found["docs"] += top == label
    found["acc"] /= wcxb
    found["logloss"] /= wcxb
    return found


def evaluate(name: str, params: dict[str, Any], data: PagetypeData, repeats: int) -> str:
    """A table row: the candidate's measures, means over `repeats` splits (the first split's
    accuracy apart)."""
    start = time.perf_counter()
    runs = [scores(data, out_of_fold(params, data, r)) for r in range(repeats)]
    mean = {k: sum(run[k] for run in runs) / len(runs) for k in runs[0]}
    return (f"| {name} | {runs[0]['acc']:.3f} | {mean['acc']:.3f} | {mean['logloss']:.3f} | "
            f"{mean['art→x']:.1f} | {mean['sets→x']:.1f} | {mean['x sure']:.1f} | "
            f"{mean['docs']:.1f} | {time.perf_counter() - start:.0f} s |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", help="comma-separated candidate names (default: all)")
    parser.add_argument("--repeats", type=int, default=REPEATS,
                        help="splits of the domains into folds")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(CANDIDATES)
    data = cached_data()
    print(f"{sum(k.startswith('wcxb/') for k in data.keys)} WCXB tune pages, "
          f"{sum(not k.startswith('wcxb/') for k in data.keys)} article-set tune pages, "
          f"{len(data.rows[0])} features; {FOLDS} folds by domain, {args.repeats} repeats\n")
    print("| candidate | acc (ooftypes split) | acc | logloss | art→x | sets→x | x sure | "
          "docs | time |\n|---|---|---|---|---|---|---|---|---|", flush=True)
    for name in names:
        print(evaluate(name, CANDIDATES[name], data, args.repeats), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
