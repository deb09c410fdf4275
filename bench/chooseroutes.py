#!/usr/bin/env python3
"""Choose between a page's article reading and its type's reading by what each one gives.

    .venv/bin/pip install -e '.[train]'
    .venv/bin/python bench/chooseroutes.py [--quality]

`bench/selectroutes.py` chooses a routing threshold on the classifier's probability alone.
Here every WCXB tune page, and every article set's tune page whose out-of-fold article
probability is under ARTICLE_BOUND, is extracted twice with its out-of-fold probabilities
(`selecttypes.out_of_fold`, the shipped candidate, split 0): read as an article (its most
probable type not acted on) and read as its type (the most probable type acted on, or, on a
page typed article, the second most probable). Reported:

- the shipped rule (`pagetype.page_type_of`) and the oracle that keeps the better reading of
  every page, per WCXB type, and how much of the oracle's gain comes from pages whose two
  readings differ by more than a margin;
- learned choosers (scikit-learn's GradientBoostingClassifier, each page weighted by how much
  F1 its choice moves) over the type probabilities, the classifier's page features and the
  statistics of both texts (length, lines, words per line, sentence marks, short and long
  lines, `quality.text_features`, the words they share): `direct` predicts which reading
  scores higher, `flip` whether to overturn the shipped rule. Each is trained on four folds
  of domains and applied to the fifth, its probability threshold chosen on the four folds by
  the summed F1 (nested). Scores: WCXB tune word F1 (mean) / the article sets' shingle F1
  summed over their open pages.

The readings are cached in `$XDG_CACHE_HOME/winnow` (about 3 minutes to extract at first).

Measured at ca5c2da (846 WCXB tune pages, 385 article-set pages with p(article) < 0.9): shipped
rule 0.8757 / 354.00, oracle 0.8927 / 356.45 (+0.017: +0.008 from pages typed listing, product,
service, forum or documentation, +0.009 from pages typed article; listing 0.703 -> 0.745,
service 0.811 -> 0.850, documentation 0.921 -> 0.934, article 0.955 -> 0.961). Of the +0.017,
+0.013 comes from 45 pages whose readings differ by more than 0.1 F1. No chooser finds them.
Nested, `direct` read 0.8716 to 0.8776 / 351.4 to 352.4 and `flip` 0.8745 to 0.8757 / 353.2 to
354.1 (its thresholds climb to 0.95, where it overturns nothing). The best, `direct` depth 2
with the page features (0.8776 / 351.66), is a lucky seed: with the random states 1 and 2 it
reads 0.8761 and 0.8753. Its one steady gain (+0.002 on WCXB, about 80 pages) reads as their
type pages typed other than article but under `pagetype.MIN_TYPE_PROBABILITY`, the move of
selectroutes' threshold 0.55, which lost check articles, and it costs 4 article-set pages 0.7
points of F1; what it reads as their second type among the pages typed article gains WCXB
-0.0005 to +0.0009 and costs the article sets 0.7 to 1.6 points (14 to 23 pages). The
statistics of the two texts do not tell which one is the page's main content: nothing was wired
into the router and no check number was taken (nothing to ship).

`--quality` reads each reading's `confidence` (the quality model's estimate of its F1, from
`quality.result_features`, which knows where the body sits in the page; stored per reading
with those features, cache `readingsq-*`) and measures, nested as above: `higher` (take the
type's reading when its confidence passes the article reading's by more than a margin, the
margin chosen on the other four folds from -0.2 to 0.2), `overturn` (keep the shipped rule's
reading unless the other's confidence passes it by more than the margin), and the choosers
above with both confidences and their difference added to their features. The shipped
quality model saw every tune page (in sample), so each is measured twice: with its
confidences, and with a quality model refitted (`train_models.QUALITY_PARAMS`, on
`train_models.run_set`'s rows, cache `qualitydata-*`) without the page's fold of domains.

Measured at c926ae7 (same pages, shipped rule 0.8757 / 354.00), shipped model then out of fold:
`higher` 0.8704 / 350.85 then 0.8669 / 349.11; `overturn` 0.8759 / 352.81 then 0.8747 /
352.61 (`overturn` picks margins of 0.14 to 0.2, where it moves little; `higher` 0 to 0.18);
choosers with the confidences 0.8744 to 0.8768 / 351.3 to 354.2 then 0.8741 to 0.8770 / 351.4
to 354.1 (the best, `direct` depth 1 with the page features, 0.8770 / 352.19: +0.0013 on
WCXB for 1.8 points on the article sets, the same trade as without the confidences). In
sample the plain `higher` rule at margin 0 reads 0.8793 / 344.59 (+0.0036 on WCXB for 9.4
points on the article sets; the WCXB pages typed article give +0.0029 of it). Why: on WCXB
the two confidences' difference follows the two F1s' difference with correlation 0.71 in
sample but 0.38 out of fold (618 pages whose readings differ), and on the article sets' open
pages not at all (-0.01 out of fold, 0.04 in sample, 309 pages): on a page the model did not
see read that way, a type's reading and an article reading look alike to it. Nothing meets
the bar (+0.003 on WCXB tune out of fold at no cost to the article sets): not wired, no check
number taken. The choosers given instead the quality features of ECON's body (`body_*`: its
depth, link density, share of the page's text, paragraphs, headings, ECON's confidence, under
the title or not; the same for both readings) read 0.8739 to 0.8786 / 350.9 to 354.0; the best,
`direct` depth 1 without the page features, 0.8786 / 351.62 (+0.0029 for 2.4 points on the
article sets; random states 1 and 2: 0.8777 / 352.44 and 0.8785 / 352.56), again the trade
above, steadier by seed but not free.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from selectroutes import cache_file
from selecttypes import CANDIDATES, cached_data, fold_of, out_of_fold
from train_models import ARTICLE_SETS, page_key, page_score
from winnow import evaluation as ev
from winnow.pagetype import MIN_TYPED_CHARS, PAGE_TYPES, PageType, page_type_of
from winnow.quality import text_features

ARTICLE_BOUND = 0.9
"""An article set's page is open (extracted both ways) when its out-of-fold article
probability is under this: the pages a chooser could take out of the reader view."""

MARGINS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.4)
"""The margins by which the oracle's gain is split."""

SENTENCE_END = re.compile(r"[.!?:;\"')\]]$")

Reading = dict[str, Any]


def scored_reading(case: ev.Case, page_type: PageType) -> tuple[str, float, dict[str, float]]:
    """The page's text read as `page_type`, the result's `confidence` (the quality model's
    estimate of its F1) and the quality features that estimate read."""
    from winnow.extractor import extract_page
    from winnow.page import PageError, parse_page
    try:
        page = parse_page(case.html, case.url)
    except PageError:
        return "", 0.0, {}
    page.derived["page_type"] = page_type
    result = extract_page(page)
    return (ev.content_text(result), result.confidence,
            dict(page.derived.get("quality_features", {})))


def readings() -> list[Reading]:
    """Both readings of every open page, each with its confidence and quality features, from
    the cache when the sources are unchanged."""
    path = cache_file().with_name(cache_file().name.replace("routecosts", "readingsq"))
    if path.is_file():
        return [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    data = cached_data()
    probabilities = out_of_fold(CANDIDATES["chosen"], data, 0)
    cases = {page_key(c): c for name in ("wcxb", *ARTICLE_SETS)
             for c in ev.load_cases(name, split="tune")}
    found: list[Reading] = []
    for key, row, p, label, domain in zip(data.keys, data.rows, probabilities, data.labels,
                                          data.domains, strict=True):
        ranked = sorted(PAGE_TYPES, key=lambda t: -p[t])
        if key not in cases or (not key.startswith("wcxb/") and ranked[0] == "article"
                                and p["article"] >= ARTICLE_BOUND):
            continue
        alt = ranked[0] if ranked[0] != "article" else ranked[1]
        case = cases[key]
        reader, q_reader, f_reader = scored_reading(case, PageType(ranked[0], p, False))
        acted, q_acted, f_acted = scored_reading(case, PageType(alt, p, True))
        found.append({
            "key": key, "label": label, "top": ranked[0], "alt": alt, "p": p, "page": row,
            "shipped": ranked[0] != "article" and page_type_of(p, row).sure,
            "typed": math.log1p(MIN_TYPED_CHARS) <= row["log_chars"],
            "fold": fold_of(domain, 0), "reader": reader, "acted": acted,
            "f1_reader": page_score(case, reader), "f1_acted": page_score(case, acted),
            "q_reader": q_reader, "q_acted": q_acted, "qf_reader": f_reader,
            "qf_acted": f_acted})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in found), "utf-8")
    return found


def text_stats(text: str) -> list[float]:
    """Length, lines, words per line, and the shares of lines that end a sentence, are
    short (under 5 words) or long (20 words or more)."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    words = [len(line.split()) for line in lines]
    n = max(len(lines), 1)
    return [math.log1p(len(text)), math.log1p(len(lines)), sum(words) / n,
            sum(bool(SENTENCE_END.search(line)) for line in lines) / n,
            sum(w < 5 for w in words) / n, sum(w >= 20 for w in words) / n,
            *text_features(text).values()]


def features(r: Reading, page: bool, quality: bool = False, body: bool = False) -> list[float]:
    """A chooser's features of one open page (with the classifier's page features or not,
    with both readings' confidences and their difference or not, with the quality features of
    ECON's body, where it sits and what it holds, the same for both readings, or not)."""
    a, b = text_stats(r["reader"]), text_stats(r["acted"])
    wa, wb = Counter(r["reader"].split()), Counter(r["acted"].split())
    common = sum((wa & wb).values())
    found = [r["p"][t] for t in PAGE_TYPES]
    found += [PAGE_TYPES.index(r["top"]), PAGE_TYPES.index(r["alt"]), float(r["shipped"]),
              float(r["typed"]), *a, *b, *(y - x for x, y in zip(a, b, strict=True)),
              common / max(sum(wa.values()), 1), common / max(sum(wb.values()), 1)]
    if quality:
        found += [r["q_reader"], r["q_acted"], r["q_acted"] - r["q_reader"]]
    if body:
        found += [v for k, v in r["qf_reader"].items() if k.startswith("body_")]
    return found + ([float(v) for v in r["page"].values()] if page else [])


def score(rows: Sequence[Reading], acted: Sequence[bool], wcxb: bool) -> float:
    """WCXB's mean F1 (`wcxb`) or the article sets' summed F1 when `acted` picks readings."""
    values = [r["f1_acted"] if a else r["f1_reader"] for r, a in zip(rows, acted, strict=True)
              if r["key"].startswith("wcxb/") == wcxb]
    return sum(values) / len(values) if wcxb else sum(values)


def both(rows: Sequence[Reading], acted: Sequence[bool]) -> str:
    return f"{score(rows, acted, True):.4f} / {score(rows, acted, False):.2f}"


def oracle_report(rows: list[Reading]) -> None:
    """The shipped rule against the oracle, per WCXB type and by margin."""
    shipped = [r["shipped"] for r in rows]
    best = [r["f1_acted"] > r["f1_reader"] for r in rows]
    print(f"shipped {both(rows, shipped)}, oracle {both(rows, best)}")
    for label in sorted({r["label"] for r in rows if r["key"].startswith("wcxb/")}):
        mine = [r for r in rows if r["label"] == label]
        print(f"  {label} ({sum(r['key'].startswith('wcxb/') for r in mine)}): "
              f"{score(mine, [r['shipped'] for r in mine], True):.4f} -> "
              f"{score(mine, [r['f1_acted'] > r['f1_reader'] for r in mine], True):.4f}")
    wcxb = [r for r in rows if r["key"].startswith("wcxb/")]
    for margin in MARGINS:
        gain = sum(max(r["f1_acted"], r["f1_reader"]) - (r["f1_acted"] if r["shipped"]
                   else r["f1_reader"]) for r in wcxb
                   if abs(r["f1_acted"] - r["f1_reader"]) > margin)
        print(f"  oracle gain from pages whose readings differ by > {margin}: "
              f"{gain / len(wcxb):+.4f}")


def chooser(rows: list[Reading], flip: bool, depth: int, page: bool, quality: bool = False,
            seed: int = 0, body: bool = False) -> str:
    """Out-of-fold decisions of one learned chooser, its threshold chosen nested."""
    import numpy as np
    from sklearn.ensemble import GradientBoostingClassifier

    x = np.array([features(r, page, quality, body) for r in rows])
    shipped = np.array([r["shipped"] for r in rows])
    gain = np.array([r["f1_acted"] - r["f1_reader"] for r in rows])
    if flip:
        gain = np.where(shipped, -gain, gain)
    folds = np.array([r["fold"] for r in rows])
    probability = np.zeros(len(rows))
    for k in range(5):
        train = (folds != k) & (gain != 0)
        model = GradientBoostingClassifier(n_estimators=200, max_depth=depth,
                                           learning_rate=0.05, min_samples_leaf=10,
                                           subsample=0.8, random_state=seed)
        model.fit(x[train], gain[train] > 0, sample_weight=np.abs(gain[train]) + 1e-3)
        probability[folds == k] = model.predict_proba(x[folds == k])[:, 1]

    def decide(t: float) -> list[bool]:
        chosen = probability > t
        return [bool(v) for v in (shipped ^ chosen if flip else chosen)]

    grid = [round(0.3 + 0.05 * i, 2) for i in range(14)]
    acted = list(shipped)
    thresholds = []
    for k in range(5):
        train = [r for r in rows if r["fold"] != k]
        mask = [r["fold"] != k for r in rows]
        t = max(reversed(grid), key=lambda t: sum(
            r["f1_acted"] if a else r["f1_reader"]
            for r, a in zip(train, [d for d, m in zip(decide(t), mask, strict=True) if m],
                            strict=True)))
        thresholds.append(t)
        acted = [d if r["fold"] == k else a for r, a, d in zip(rows, acted, decide(t),
                                                               strict=True)]
    return f"nested {both(rows, acted)} (thresholds {thresholds}); at 0.5 {both(rows, decide(0.5))}"


def quality_data() -> list[dict[str, Any]]:
    """The quality model's training rows (`train_models.run_set`: every set's tune pages,
    learned retry off), each with its page's key and fold, from the cache when the sources
    are unchanged."""
    from train_models import run_set

    path = cache_file().with_name(cache_file().name.replace("routecosts", "qualitydata"))
    if path.is_file():
        return [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    found = [{"key": page_key(case), "fold": fold_of(case.domain or case.id, 0),
              "features": features, "f1": f1}
             for name in ev.SETS for case, features, _, f1, _ in run_set(name, "tune", False)]
    path.write_text("\n".join(json.dumps(r) for r in found), "utf-8")
    return found


def out_of_fold_confidences(rows: list[Reading]) -> None:
    """Replace each reading's confidence by that of a quality model fitted without its fold
    of domains (`train_models.QUALITY_PARAMS`): the shipped model saw every tune page."""
    from sklearn.ensemble import GradientBoostingRegressor
    from train_models import QUALITY_PARAMS, matrix

    data = quality_data()
    names = list(data[0]["features"])
    for k in range(5):
        train = [d for d in data if d["fold"] != k]
        model = GradientBoostingRegressor(**QUALITY_PARAMS).fit(
            matrix([d["features"] for d in train], names), [d["f1"] for d in train])
        mine = [r for r in rows if r["fold"] == k]
        for side in ("reader", "acted"):
            values = model.predict(matrix([r[f"qf_{side}"] for r in mine], names))
            for r, v in zip(mine, values, strict=True):
                r[f"q_{side}"] = round(min(1.0, max(0.0, float(v))), 3)


CONFIDENCE_MARGINS = tuple(round(0.01 * i, 2) for i in range(-20, 21))
"""The margins the confidence rules choose from (nested): a reading's confidence must pass
the other's by more than this."""


def by_confidence(r: Reading, margin: float, overturn: bool) -> bool:
    """Whether a rule on the two readings' confidences takes the type's reading: the one with
    the higher confidence (the type's by more than `margin`), or (`overturn`) the shipped
    rule's unless the other reading's confidence passes it by more than `margin`."""
    if not overturn:
        return bool(r["q_acted"] > r["q_reader"] + margin)
    if r["shipped"]:
        return not r["q_reader"] > r["q_acted"] + margin
    return bool(r["q_acted"] > r["q_reader"] + margin)


def confidence_rule(rows: list[Reading], overturn: bool) -> str:
    """Out-of-fold decisions of a confidence rule, its margin chosen on the other four folds
    by their summed F1 (nested); and the rule at each margin in sample."""
    acted = [r["shipped"] for r in rows]
    chosen = []
    for k in range(5):
        train = [r for r in rows if r["fold"] != k]
        margin = max(CONFIDENCE_MARGINS, key=lambda m: (sum(
            r["f1_acted"] if by_confidence(r, m, overturn) else r["f1_reader"]
            for r in train), -abs(m)))
        chosen.append(margin)
        acted = [by_confidence(r, margin, overturn) if r["fold"] == k else a
                 for r, a in zip(rows, acted, strict=True)]
    fixed = ", ".join(f"{m}: {both(rows, [by_confidence(r, m, overturn) for r in rows])}"
                      for m in (-0.1, -0.05, 0.0, 0.05, 0.1, 0.2))
    return f"nested {both(rows, acted)} (margins {chosen}); in sample {fixed}"


def chooser_grid(rows: list[Reading], label: str, **inputs: bool) -> None:
    """Print `chooser` for each kind (direct or flip), depth and use of the page features,
    with the extra `inputs` it is given (`quality`, `body`) named by `label`."""
    for flip in (False, True):
        for depth in (1, 2, 3):
            for page in (False, True):
                print(f"{'flip' if flip else 'direct'} depth {depth} "
                      f"{'+page' if page else '-page'}{label}: "
                      f"{chooser(rows, flip, depth, page, **inputs)}", flush=True)


def quality_report(rows: list[Reading], name: str) -> None:
    """The confidence rules and the learned choosers given both readings' confidences."""
    print(f"confidences {name}:")
    for overturn in (False, True):
        print(f"{'overturn' if overturn else 'higher'} confidence: "
              f"{confidence_rule(rows, overturn)}", flush=True)
    chooser_grid(rows, " +confidence", quality=True)


def main() -> int:
    rows = readings()
    print(f"{sum(r['key'].startswith('wcxb/') for r in rows)} WCXB tune pages, "
          f"{sum(not r['key'].startswith('wcxb/') for r in rows)} article-set pages")
    oracle_report(rows)
    if "--quality" in sys.argv:
        chooser_grid(rows, " +body", body=True)
        quality_report(rows, "of the shipped quality model (it saw every tune page)")
        out_of_fold_confidences(rows)
        quality_report(rows, "out of fold (a quality model fitted without the page's fold)")
        return 0
    chooser_grid(rows, "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
