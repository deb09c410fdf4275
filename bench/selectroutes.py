#!/usr/bin/env python3
"""Choose the page-type classifier and the routing threshold together, by the extraction's F1.

    .venv/bin/pip install -e '.[train]'
    .venv/bin/python bench/selectroutes.py --only chosen,depth2-feat

`bench/selecttypes.py` scores candidate classifiers by accuracy out of fold, but what a type
costs is what the router does with it: an article read as a listing loses its reader view and
most of its F1, a product read as an article loses little. Here each candidate of
`selecttypes.CANDIDATES` gets its out-of-fold probabilities on the tune pages (folds grouped by
domain, split `repeat` of `selecttypes.fold_of`), and every WCXB tune page is extracted with
them twice: with its most probable type acted on (`PageType.sure`) and without (read as an
article would be, the probabilities still feeding the leans and the quality model). A routing
threshold then picks one of the two extractions per page, so the WCXB word F1 of any threshold
is known exactly, without extracting again. Reported per candidate:

- `acc`: out-of-fold accuracy; `shipped t` (`at 0.7` below): the mean F1 at
  `pagetype.MIN_TYPE_PROBABILITY`;
- `best t`: the single threshold on the probability of the most probable type that maximises
  the mean F1, and its F1 (chosen in sample: an upper bound);
- `nested`: the F1 of a rule chosen on four folds and applied to the fifth, the honest
  estimate of choosing it: `single`, one threshold for every acted type; `readerless`, one for
  listings, products and services (forums keep MIN_TYPE_PROBABILITY); `per-type`, one per
  type; `expected`, the cost-sensitive rule that acts on a type when the gain it expects, the
  sum over true types of their probability times the mean F1 gain of acting on that label
  for pages of that true type (learned on the other folds), is positive;
- the article sets' loss: the sum over their tune pages typed readerless at each threshold
  of the page F1 (shingle) lost by acting on the type.

Extractions are cached in `$XDG_CACHE_HOME/winnow`, keyed by the extraction's sources; the
first run of a candidate extracts each WCXB tune page up to twice (about 4 minutes).

Measured at ab783ea (split 0; the shipped-threshold column of "chosen" is exactly
`bench/evaluate.py --sets wcxb --oof-types`'s tune 0.8754):

| candidate | acc | at 0.7 | best t | nested: single | readerless | per-type | expected |
|---|---|---|---|---|---|---|---|
| chosen | 0.816 | 0.8754 | 0.55 0.8776 | 0.8764 | 0.8764 | 0.8718 | 0.8766 |
| depth2-feat | 0.822 | 0.8743 | 0.30 0.8756 | 0.8730 | 0.8730 | 0.8728 | 0.8744 |
| depth3-feat | 0.801 | 0.8746 | 0.75 0.8753 | 0.8730 | 0.8730 | 0.8726 | 0.8726 |
| balanced | 0.804 | 0.8766 | 0.70 0.8766 | 0.8744 | 0.8742 | 0.8728 | 0.8756 |
| depth2-leaf20 | 0.820 | 0.8745 | 0.35 0.8759 | 0.8757 | 0.8771 | 0.8746 | 0.8771 |
| shallow | 0.812 | 0.8726 | 0.45 0.8747 | 0.8733 | 0.8731 | 0.8729 | 0.8730 |

The shipped classifier stays the best; its F1 is flat from 0.3 to 0.6 (0.8773 to 0.8776), a
forum's threshold changes nothing below 0.7, and per-type thresholds overfit (nested 0.8718).
Its best threshold, 0.55, read WCXB tune 0.8754 -> 0.8776 (--oof-types: collections +0.017,
services +0.008, articles +0.0003) but check 0.8505 -> 0.8450 (articles -0.0084, collections,
listings and products -0.006 to -0.008, services +0.002): the nested gain (+0.001) is within
what one split of 846 pages can tell, and it was not shipped. One of the article sets' tune
pages, typed readerless between 0.55 and 0.7, loses its whole body below 0.7. The
"balanced" classifier, retrained and shipped at 0.7, read WCXB tune 0.8754 -> 0.8766 (as
predicted here) and check 0.8505 -> 0.8502 (articles -0.0033, services +0.018): not shipped
either. Both times WCXB's check articles lost what its tune articles, out of fold, did not.

`bench/chooseroutes.py` then asked what the two readings themselves tell (measured at ca5c2da):
keeping the better of the article reading and the type's reading of every page would read
WCXB tune 0.8757 -> 0.8927 (the oracle; +0.013 of it from 45 pages whose readings differ by
more than 0.1 F1), but a chooser learned on both texts' statistics, the type probabilities
and the page features, out of fold with its threshold nested, reads 0.8716 to 0.8776 (0.8753
to 0.8776 by random seed for the best) and costs the article sets' open tune pages 1.6 to 2.6
points of F1 summed: not wired, no check number taken.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from evaluate import REPO_DIR
from selecttypes import CANDIDATES, FOLDS, cached_data, fold_of, out_of_fold
from train_models import ARTICLE_SETS, PagetypeData, page_key, page_score
from winnow import evaluation as ev
from winnow.pagetype import (
    MIN_TYPE_PROBABILITY,
    MIN_TYPED_CHARS,
    PAGE_TYPES,
    READERLESS_LABELS,
    PageType,
)

ACTED_TYPES = ("forum", "listing", "product", "service")
"""The labels whose being acted on depends on a threshold: an article reads the same either
way and documentation is acted on as the most probable type alone."""

THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(14))
"""The thresholds tried, 0.3 to 0.95."""

Costs = dict[str, tuple[float, float]]
"""Page key -> word F1 with its label acted on and without."""


def cache_file() -> Path:
    """The extraction cache of the current sources, models and data directory."""
    digest = hashlib.sha256(str(ev.data_dir().resolve()).encode())
    for path in sorted((REPO_DIR / "server" / "winnow").rglob("*")):
        if path.suffix in (".py", ".json"):
            digest.update(path.read_bytes())
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "winnow"
    return root / f"routecosts-{digest.hexdigest()[:16]}.json"


def probability_key(key: str, probabilities: dict[str, float], sure: bool) -> str:
    """The cache key of one extraction: the page, its probabilities (rounded) and the flag."""
    rounded = ",".join(f"{probabilities[label]:.5f}" for label in PAGE_TYPES)
    return f"{key}|{rounded}|{int(sure)}"


def page_f1(case: ev.Case, probabilities: dict[str, float], sure: bool) -> float:
    """The page's F1 by its set's metric (WCXB's word F1, the others' shingle F1) when read
    with these probabilities, its label acted on (`sure`)."""
    label = max(PAGE_TYPES, key=lambda t: probabilities[t])
    text, _ = ev.extract_text(case.html, case.url, PageType(label, probabilities, sure))
    return page_score(case, text)


def route_costs(data: PagetypeData, probabilities: list[dict[str, float]],
                cases: dict[str, ev.Case], cache: dict[str, float]) -> Costs:
    """Every page's F1 acted on and not (`Costs`) among `cases` (WCXB's tune pages, or the
    article sets' pages of an acted-on label), from `cache` when known."""
    costs: Costs = {}
    typed = [math.log1p(MIN_TYPED_CHARS) <= row["log_chars"] for row in data.rows]
    for i, key in enumerate(data.keys):
        if key not in cases:
            continue
        p = probabilities[i]
        label = max(PAGE_TYPES, key=lambda t: p[t])
        flags = (True, False) if label in ACTED_TYPES and typed[i] \
            else (label == "documentation" and typed[i],)
        found = []
        for sure in flags:
            cache_key = probability_key(key, p, sure)
            if cache_key not in cache:
                cache[cache_key] = page_f1(cases[key], p, sure)
            found.append(cache[cache_key])
        costs[key] = (found[0], found[-1])
    return costs


Rule = Callable[[str, dict[str, float]], bool]
"""Whether to act on a page's label, given the label and its probabilities."""


def mean_f1(costs: Costs, probabilities: dict[str, dict[str, float]], rule: Rule,
            keys: Sequence[str]) -> float:
    """The mean F1 over `keys` when `rule` decides which pages are acted on."""
    total = 0.0
    for key in keys:
        p = probabilities[key]
        label = max(PAGE_TYPES, key=lambda t: p[t])
        total += costs[key][0] if rule(label, p) else costs[key][1]
    return total / len(keys) if keys else 0.0


def threshold_rule(thresholds: dict[str, float]) -> Rule:
    """Act on a label when its probability reaches its threshold."""
    return lambda label, p: p[label] >= thresholds.get(label, 0.0)


def best_thresholds(costs: Costs, probabilities: dict[str, dict[str, float]],
                    keys: Sequence[str]) -> dict[str, float]:
    """Per label, the threshold of THRESHOLDS with the highest total F1 on `keys` (the labels'
    pages are disjoint, so each is chosen alone); ties go to the higher threshold."""
    chosen: dict[str, float] = {}
    for label in ACTED_TYPES:
        mine = [k for k in keys if max(PAGE_TYPES, key=lambda t: probabilities[k][t]) == label]
        best = max(reversed(THRESHOLDS), key=lambda t: sum(
            costs[k][0] if probabilities[k][label] >= t else costs[k][1] for k in mine))
        chosen[label] = best
    return chosen


def gain_table(costs: Costs, probabilities: dict[str, dict[str, float]],
               truth: dict[str, str], keys: Sequence[str]) -> dict[tuple[str, str], float]:
    """(label, true type) -> the mean F1 gain of acting on the label for such pages."""
    sums: dict[tuple[str, str], list[float]] = {}
    for key in keys:
        label = max(PAGE_TYPES, key=lambda t: probabilities[key][t])
        if label in ACTED_TYPES:
            sums.setdefault((label, truth[key]), []).append(costs[key][0] - costs[key][1])
    return {pair: sum(v) / len(v) for pair, v in sums.items()}


def expected_rule(gains: dict[tuple[str, str], float]) -> Rule:
    """Act on a label when the gain it expects under the probabilities is positive."""
    return lambda label, p: sum(p[t] * gains.get((label, t), 0.0) for t in PAGE_TYPES) > 0


def shared_threshold(costs: Costs, probabilities: dict[str, dict[str, float]],
                     keys: Sequence[str], labels: Sequence[str]) -> dict[str, float]:
    """One threshold of THRESHOLDS for `labels` (the other acted types keep
    MIN_TYPE_PROBABILITY) with the highest mean F1 on `keys`; ties go to the higher one."""
    def thresholds(t: float) -> dict[str, float]:
        return {label: t if label in labels else MIN_TYPE_PROBABILITY for label in ACTED_TYPES}

    best = max(reversed(THRESHOLDS), key=lambda t: mean_f1(
        costs, probabilities, threshold_rule(thresholds(t)), keys))
    return thresholds(best)


Chooser = Callable[[Sequence[str]], Rule]
"""A way of choosing a rule on some pages."""


def nested(costs: Costs, folds: dict[str, int], probabilities: dict[str, dict[str, float]],
           choose: Chooser) -> float:
    """Mean F1 of a rule chosen (`choose`) on four folds and applied to the fifth."""
    total = 0.0
    for k in range(FOLDS):
        train = [key for key in costs if folds[key] != k]
        held = [key for key in costs if folds[key] == k]
        total += mean_f1(costs, probabilities, choose(train), held) * len(held)
    return total / len(costs)


def choosers(costs: Costs, probabilities: dict[str, dict[str, float]],
             truth: dict[str, str]) -> dict[str, Chooser]:
    """The ways of choosing compared: one threshold for every acted type, one for the
    readerless types (forum's kept), one per type, and the expected-gain rule."""
    return {
        "single": lambda keys: threshold_rule(
            shared_threshold(costs, probabilities, keys, ACTED_TYPES)),
        "readerless": lambda keys: threshold_rule(
            shared_threshold(costs, probabilities, keys, READERLESS_LABELS)),
        "per-type": lambda keys: threshold_rule(best_thresholds(costs, probabilities, keys)),
        "expected": lambda keys: expected_rule(gain_table(costs, probabilities, truth, keys)),
    }


def report(name: str, data: PagetypeData, probabilities: list[dict[str, float]],
           costs: Costs, sets: Costs, repeat: int) -> str:
    """A table row for one candidate (see the module's docstring)."""
    by_key = dict(zip(data.keys, probabilities, strict=True))
    truth = dict(zip(data.keys, data.labels, strict=True))
    folds = {key: fold_of(domain, repeat) for key, domain in zip(data.keys, data.domains,
                                                                   strict=True)}
    keys = list(costs)
    acc = sum(max(PAGE_TYPES, key=lambda t: by_key[k][t]) == truth[k] for k in keys) / len(keys)
    single = {t: mean_f1(costs, by_key, threshold_rule(dict.fromkeys(ACTED_TYPES, t)), keys)
              for t in THRESHOLDS}
    best = max(reversed(THRESHOLDS), key=lambda t: single[t])
    ways = choosers(costs, by_key, truth)
    honest = " | ".join(f"{nested(costs, folds, by_key, way):.4f}" for way in ways.values())
    lost = {t: sum(f[1] - f[0] for k, f in sets.items() if by_key[k][max(
        PAGE_TYPES, key=lambda c: by_key[k][c])] >= t and max(
        PAGE_TYPES, key=lambda c: by_key[k][c]) in READERLESS_LABELS) for t in THRESHOLDS}
    curve = " ".join(f"{t:.2f}:{single[t]:.4f}" for t in THRESHOLDS)
    sets_curve = " ".join(f"{t:.2f}:{lost[t]:.2f}" for t in THRESHOLDS)
    return (f"| {name} | {acc:.3f} | {single[MIN_TYPE_PROBABILITY]:.4f} | "
            f"{best:.2f} {single[best]:.4f} | {honest} |\n"
            f"  curve {curve}\n  article sets' F1 lost (sum over pages) {sets_curve}\n"
            f"  in sample: readerless {shared_threshold(costs, by_key, keys, READERLESS_LABELS)}"
            f", per-type {best_thresholds(costs, by_key, keys)}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", help="comma-separated candidate names (default: all)")
    parser.add_argument("--repeat", type=int, default=0,
                        help="which split of the domains into folds (0: bench/ooftypes.py's)")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(CANDIDATES)
    data = cached_data()
    cases = {page_key(case): case for case in ev.load_cases("wcxb", split="tune")}
    path = cache_file()
    cache: dict[str, float] = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    print(f"{len(cases)} WCXB tune pages; split {args.repeat}\n")
    sets = {page_key(case): case for name in ARTICLE_SETS
            for case in ev.load_cases(name, split="tune")}
    print("| candidate | acc | shipped t | best t | nested: single | readerless | per-type | "
          "expected |\n|---|---|---|---|---|---|---|---|", flush=True)
    for name in names:
        probabilities = out_of_fold(CANDIDATES[name], data, args.repeat)
        costs = route_costs(data, probabilities, cases, cache)
        acted = {key: case for key, case, p in zip(data.keys, [sets.get(k) for k in data.keys],
                                                   probabilities, strict=True)
                 if case is not None and max(PAGE_TYPES, key=lambda t: p[t]) in ACTED_TYPES}
        set_costs = route_costs(data, probabilities, acted, cache)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cache), "utf-8")
        print(report(name, data, probabilities, costs, set_costs, args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
