#!/usr/bin/env python3
"""Headroom and out-of-fold value of a learned filter for the main region's blocks.

    .venv/bin/python bench/blockfilter.py --oracle           # what a perfect filter would gain
    .venv/bin/python bench/blockfilter.py --cv               # a learned leaf-block filter, OOF
    .venv/bin/python bench/blockfilter.py --units 0.1 --cv   # the same over coarser units
    .venv/bin/python bench/blockfilter.py --drops            # the gold the furniture rules drop
    .venv/bin/python bench/blockfilter.py --readmit          # a learned re-admission of furniture

Reads WCXB's tune pages only (needs the `train` extra). Each page is extracted with its
out-of-fold page type (`bench/ooftypes.py`); the pages whose result is the main region
(`kind` "other": what `extractor._main_text` returned, recorded by wrapping it) are kept. A
region is split into text blocks (`blockfeatures.region_blocks`, every piece of text to its
nearest block-level ancestor; only leaf blocks can be dropped) or, with `--units`, into the
outermost elements holding at most that share of its text. A unit is content when at least
LABEL_SHARE of its words are gold words. A choice of units is scored by WCXB's word F1 of the
kept units' text (bags of words: the order does not matter).

`--cv` trains a gradient-boosted classifier on four fifths of the domains
(`ooftypes.fold_of`) and drops the held fifth's units below each threshold. `--drops` wraps
`mainregion`'s furniture, twin and edge rules, and says per rule how the page's F1 would change
with what it dropped inside the region put back. `--readmit` learns, out of fold, which of those
dropped elements to put back.

Findings at ee98d7f (175 WCXB tune pages read as regions; out-of-fold types):
- Winnow 0.720 on them; leaf-block oracle 0.795 (listing 0.730 -> 0.854, product 0.720 ->
  0.810, collection 0.663 -> 0.738, service 0.808 -> 0.839); region recall 0.836.
- A learned leaf-block filter: out-of-fold AUC 0.56 (0.48 weighted by words); page F1 +0.006
  at best, all from one page whose gold is empty ("Skip to content" dropped); more pages lose
  than gain at every threshold. Coarser units (3%, 10%, 25% of the region): oracle 0.796,
  0.805, 0.810, out-of-fold AUC 0.56 to 0.64 and the same one-page gain. Weighting blocks by
  words, leaving ambiguous labels out, a shallower ensemble, or block features alone (no
  page-type or region features) change nothing. The words the gold leaves out of these
  regions are mostly prose and product text like the kept words; simple rules (drop link
  lists, repeated blocks, noise-named blocks) lose too.
- Recall: the main container holds 0.904 of the gold words, the region 0.836. Every furniture
  rule gains on average (putting back a rule's drops loses F1), but noise-named blocks lose
  gold on 28 of 164 pages; a learned re-admission gains +0.003 at best out of fold, as many
  pages losing as gaining (listing loses).
"""

from __future__ import annotations

import argparse
import collections
import os
import pickle
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import lxml.html
from blockfeatures import (
    SKIPPED_TAGS,
    Block,
    block_features,
    gold_share,
    region_blocks,
    region_units,
    unit_features,
)
from ooftypes import FOLDS, fold_of, oof_types
from train_models import page_key
from winnow import evaluation as ev
from winnow import extractor, mainregion
from winnow.article_candidates import names_reviews
from winnow.page import HtmlElement, Page, parse_page
from winnow.pagetype import PAGE_TYPES, PageType, page_type_of

LABEL_SHARE = 0.5
"""Share of a unit's words in the gold from which the unit is content."""
SEED = 12
PARAMS = {"n_estimators": 150, "max_depth": 3, "learning_rate": 0.1, "subsample": 0.8,
          "min_samples_leaf": 20, "random_state": SEED}
THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
RULES = ("name", "hidden", "header", "footer", "nav", "aside", "twin_blocks", "reviews",
         "given", "facets", "edge_furniture")
"""`mainregion`'s reasons to drop an element from the region, as `--drops` tells them."""
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "winnow" \
    / "blockfilter.pkl"


@dataclass
class RegionPage:
    """One tune page read as a main region: the region's HTML, the elements the region
    rules dropped inside it (HTML and rule), the gold and what Winnow scored."""

    key: str
    domain: str
    wcxb_type: str
    gold: str
    html: str
    page_type: PageType
    winnow_f1: float
    container_text: str
    dropped: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Units:
    """A page's units: texts, whether each may be dropped, features and gold shares."""

    page: RegionPage
    texts: list[str]
    droppable: list[bool]
    rows: list[dict[str, float]]
    shares: list[float]


def text_of(el: HtmlElement) -> str:
    """An element's text, its pieces joined by spaces (words of two elements stay apart)."""
    return " ".join(str(t) for t in el.itertext())


# --- collection -----------------------------------------------------------------------------

class _Recorder:
    """Wraps `extractor._main_text` and `mainregion`'s drop rules to record the regions
    built and what each rule dropped."""

    def __init__(self) -> None:
        self.regions: list[tuple[Any, str, dict[int, tuple[str, HtmlElement]]]] = []
        self.drops: dict[int, tuple[str, HtmlElement]] = {}
        main_text, furniture = extractor._main_text, mainregion._furniture

        def recording(*args: Any, **kwargs: Any) -> Any:
            found = main_text(*args, **kwargs)
            self.regions.append((found[0], found[1], dict(self.drops)))
            return found

        def furniture_rule(page: Any, stats: Any, start: int, noise: Sequence[HtmlElement],
                           *args: Any, **kwargs: Any) -> list[int]:
            drop: list[int] = furniture(page, stats, start, noise, *args, **kwargs)
            given = {stats.index[el] for el in noise if el in stats.index}
            reviews = len(args) > 1 and args[1]
            facets = mainregion._FacetOptions.of(stats, page.choice_fields)
            for i in drop:
                el = stats.elements[i]
                rule = "given" if i in given else el.tag if el.tag in mainregion.FURNITURE_TAGS \
                    else "facets" if facets is not None and facets.is_panel(i) \
                    else "reviews" if reviews and names_reviews(el) else "hidden" \
                    if el.get("hidden") is not None \
                    or "display:none" in (el.get("style") or "").replace(" ", "") else "name"
                self.drops[id(el)] = (rule, el)
            return drop

        extractor._main_text = recording  # type: ignore[assignment]
        mainregion._furniture = furniture_rule  # type: ignore[assignment]
        for name in ("twin_blocks", "edge_furniture"):
            setattr(mainregion, name, self._rule(name, getattr(mainregion, name)))

    def _rule(self, name: str, rule: Callable[..., list[int]]) -> Callable[..., list[int]]:
        def wrapped(stats: Any, start: int, *args: Any, **kwargs: Any) -> list[int]:
            drop = rule(stats, start, *args, **kwargs)
            for i in drop:
                self.drops[id(stats.elements[i])] = (name, stats.elements[i])
            return drop
        return wrapped

    def extract(self, page: Page) -> tuple[Any, str, Any] | None:
        """Extract the page; its region, text and drops when its result is the region."""
        self.regions.clear()
        self.drops.clear()
        result = extractor.extract_page(page)
        if result.article is not None or result.posts:
            return None
        return next(((r, t, d) for r, t, d in self.regions if t == result.main_text), None)


def collect() -> list[RegionPage]:
    """Every WCXB tune page whose result is its main region, extracted with its out-of-fold
    type."""
    types, recorder, out = oof_types(), _Recorder(), []
    for case in ev.load_cases("wcxb"):
        if case.split != "tune":
            continue
        page = parse_page(case.html, case.url)
        entry = types.get(page_key(case))
        if entry is not None:
            page.derived["page_type"] = page_type_of(
                {label: entry[label] for label in PAGE_TYPES}, {"log_chars": entry["log_chars"]})
        found = recorder.extract(page)
        if found is None:
            continue
        region, text, drops = found
        root = region.source
        inside = [(rule, lxml.html.tostring(el, encoding="unicode"))
                  for rule, el in drops.values() if any(a is root for a in el.iterancestors())]
        out.append(RegionPage(page_key(case), case.domain, case.page_type, case.gold,
                              lxml.html.tostring(region.content, encoding="unicode"),
                              page.derived["page_type"], ev.word_f1(case.gold, text)[2],
                              text_of(root), inside))
    return out


# --- units and scores -------------------------------------------------------------------------

def leaf_units(page: RegionPage) -> Units:
    """The region's text blocks; only leaf blocks may be dropped."""
    blocks = region_blocks(lxml.html.fromstring(page.html))
    gold = _gold_words(page)
    return Units(page, [b.text for b in blocks], [b.leaf for b in blocks],
                 block_features(blocks, page.page_type), [gold_share(b.text, gold) for b in blocks])


def share_units(page: RegionPage, share: float) -> Units:
    """The region's units of at most `share` of its text, and the rest of its text (kept)."""
    root = lxml.html.fromstring(page.html)
    for bad in list(root.iter(*SKIPPED_TAGS)):
        cast(HtmlElement, bad).drop_tree()
    units = region_units(root, share)
    rows = unit_features(root, units, page.page_type)
    texts = [text_of(u) for u in units]
    gold = _gold_words(page)
    shares = [gold_share(t, gold) for t in texts]
    for unit in units:
        unit.drop_tree()
    rest = [rows[0]] if rows else []  # never dropped: its features are not read
    return Units(page, [*texts, text_of(root)], [True] * len(units) + [False],
                 [*rows, *rest], [*shares, 1.0])


def _gold_words(page: RegionPage) -> set[str]:
    return {w.lower() for w in ev.tokenize(page.gold)}


def units_f1(units: Units, keep: Sequence[bool]) -> float:
    """WCXB word F1 of the kept units' text (a unit that may not be dropped is kept)."""
    text = " ".join(t for t, k, d in zip(units.texts, keep, units.droppable, strict=True)
                    if k or not d)
    return ev.word_f1(units.page.gold, text)[2]


def by_type(pages: Sequence[RegionPage], scores: Sequence[float]) -> str:
    """Mean score over all pages and per WCXB type."""
    groups: dict[str, list[float]] = collections.defaultdict(list)
    for page, score in zip(pages, scores, strict=True):
        groups[page.wcxb_type].append(score)
        groups["all"].append(score)
    return "  ".join(f"{k} {statistics.fmean(v):.3f} ({len(v)})" for k, v in sorted(groups.items()))


def oracle(all_units: Sequence[Units]) -> None:
    """Winnow's score, the units' own score, the oracle's and the region's recall."""
    pages = [u.page for u in all_units]
    print("winnow  ", by_type(pages, [p.winnow_f1 for p in pages]))
    print("units   ", by_type(pages, [units_f1(u, [True] * len(u.texts)) for u in all_units]))
    print("oracle  ", by_type(pages, [units_f1(u, [s >= LABEL_SHARE for s in u.shares])
                                      for u in all_units]))
    print("recall  ", by_type(pages, [ev.word_f1(p.gold, " ".join(u.texts))[1]
                                      for p, u in zip(pages, all_units, strict=True)]))
    print("in main ", by_type(pages, [ev.word_f1(p.gold, p.container_text)[1] for p in pages]))


# --- learning ---------------------------------------------------------------------------------

def _fit(x: list[list[float]], y: list[int], w: list[float] | None = None) -> Any:
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(**PARAMS).fit(x, y, sample_weight=w)


def cross_validate(all_units: Sequence[Units]) -> None:
    """Out-of-fold probabilities by domain; page word F1 per threshold, and how many pages
    gain or lose more than 0.01."""
    from sklearn.metrics import roc_auc_score

    features = next(list(u.rows[0]) for u in all_units if u.rows)
    probs: dict[str, list[float]] = {}
    for k in range(FOLDS):
        x, y = [], []
        for units in (u for u in all_units if fold_of(u.page.domain) != k and u.rows):
            for row, share, drop in zip(units.rows, units.shares, units.droppable, strict=True):
                if drop:
                    x.append([row[f] for f in features])
                    y.append(int(share >= LABEL_SHARE))
        model = _fit(x, y)
        for units in (u for u in all_units if fold_of(u.page.domain) == k and u.rows):
            probs[units.page.key] = list(model.predict_proba(
                [[r[f] for f in features] for r in units.rows])[:, 1])
    labels = [(s >= LABEL_SHARE, probs[u.page.key][i]) for u in all_units if u.rows
              for i, (s, d) in enumerate(zip(u.shares, u.droppable, strict=True)) if d]
    print(f"out-of-fold AUC {roc_auc_score(*zip(*labels, strict=True)):.3f}")
    pages = [u.page for u in all_units]
    base = [units_f1(u, [True] * len(u.texts)) for u in all_units]
    print("units    ", by_type(pages, base))
    for threshold in THRESHOLDS:
        scores = [units_f1(u, [q >= threshold for q in probs[u.page.key]]) if u.rows else b
                  for u, b in zip(all_units, base, strict=True)]
        _print_scores(f"oof {threshold:.2f}", pages, base, scores)


def _print_scores(name: str, pages: Sequence[RegionPage], base: Sequence[float],
                  scores: Sequence[float]) -> None:
    up = sum(s > b + 0.01 for s, b in zip(scores, base, strict=True))
    down = sum(s < b - 0.01 for s, b in zip(scores, base, strict=True))
    print(f"{name} +{up} -{down}", by_type(pages, scores))


# --- the furniture rules ------------------------------------------------------------------------

@dataclass
class Dropped:
    """What one rule dropped inside a page's region: texts, rules, features, and the change
    of the page's F1 with each put back alone."""

    texts: list[str]
    rules: list[str]
    rows: list[dict[str, float]]
    gains: list[float]


def dropped(page: RegionPage) -> Dropped:
    """The page's dropped elements, read as one block each."""
    base = text_of(lxml.html.fromstring(page.html))
    f0 = ev.word_f1(page.gold, base)[2]
    elements = [lxml.html.fromstring(html) for _, html in page.dropped]
    wholes = []
    for el in elements:
        blocks = region_blocks(el)
        wholes.append(Block(el, 0, [b.text for b in blocks],
                            sum(min(b.link_chars, len(b.text)) for b in blocks)))
    texts = [text_of(el) for el in elements]
    rows = []
    for (rule, _), row, text in zip(page.dropped, block_features(wholes, page.page_type), texts,
                                    strict=True):
        row = {k: v for k, v in row.items() if k.startswith(("type_", "tag_", "in_"))
               or k in ("log_chars", "log_words", "links", "marks", "mark_rate", "ends_mark",
                        "digits", "capitals", "mean_word", "noise_named", "content_named")}
        row.update({f"rule_{r}": float(rule == r) for r in RULES})
        row["add_share"] = len(text) / (len(base) or 1)
        rows.append(row)
    gains = [ev.word_f1(page.gold, base + " " + t)[2] - f0 for t in texts]
    return Dropped(texts, [r for r, _ in page.dropped], rows, gains)


def drops_report(pages: Sequence[RegionPage]) -> None:
    """Per rule: the pages it dropped something on, the mean F1 change with all its drops
    put back, and how many pages would gain or lose more than 0.02."""
    gains: dict[str, list[float]] = collections.defaultdict(list)
    for page in pages:
        base = text_of(lxml.html.fromstring(page.html))
        f0 = ev.word_f1(page.gold, base)[2]
        rules: dict[str, list[str]] = collections.defaultdict(list)
        for rule, html in page.dropped:
            rules[rule].append(text_of(lxml.html.fromstring(html)))
        for rule, texts in rules.items():
            gains[rule].append(ev.word_f1(page.gold, base + " " + " ".join(texts))[2] - f0)
    for rule, values in sorted(gains.items()):
        print(f"{rule:15} pages {len(values):3}  put back {statistics.fmean(values):+.4f}"
              f"  per region page {sum(values) / len(pages):+.4f}"
              f"  gain {sum(v > 0.02 for v in values)}  lose {sum(v < -0.02 for v in values)}")


def readmit(pages: Sequence[RegionPage]) -> None:
    """Learn out of fold which dropped elements to put back (labelled by the sign of the
    page's F1 change, weighted by its size); page F1 per probability threshold."""
    data = {p.key: dropped(p) for p in pages}
    features = next(list(d.rows[0]) for d in data.values() if d.rows)
    probs: dict[str, list[float]] = {}
    for k in range(FOLDS):
        x, y, w = [], [], []
        for page in (p for p in pages if fold_of(p.domain) != k):
            for row, gain in zip(data[page.key].rows, data[page.key].gains, strict=True):
                if abs(gain) >= 0.002:
                    x.append([row[f] for f in features])
                    y.append(int(gain > 0))
                    w.append(min(abs(gain), 0.2))
        model = _fit(x, y, w)
        for page in (p for p in pages if fold_of(p.domain) == k and data[p.key].rows):
            probs[page.key] = list(model.predict_proba(
                [[r[f] for f in features] for r in data[page.key].rows])[:, 1])
    bases = [text_of(lxml.html.fromstring(p.html)) for p in pages]
    base = [ev.word_f1(p.gold, b)[2] for p, b in zip(pages, bases, strict=True)]
    print("region   ", by_type(pages, base))
    for threshold in (0.5, 0.6, 0.7, 0.8, 0.9):
        scores = [ev.word_f1(p.gold, b + " " + " ".join(
            t for t, q in zip(data[p.key].texts, probs.get(p.key, []), strict=False)
            if q >= threshold))[2] for p, b in zip(pages, bases, strict=True)]
        _print_scores(f"oof {threshold:.2f}", pages, base, scores)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--collect", action="store_true", help="extract again (else cached)")
    parser.add_argument("--units", type=float, help="units of at most this share of the "
                                                    "region's text (default: leaf blocks)")
    parser.add_argument("--oracle", action="store_true")
    parser.add_argument("--cv", action="store_true")
    parser.add_argument("--drops", action="store_true")
    parser.add_argument("--readmit", action="store_true")
    args = parser.parse_args(argv)
    if args.collect or not CACHE.exists():
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_bytes(pickle.dumps(collect()))
    pages: list[RegionPage] = pickle.loads(CACHE.read_bytes())
    print(f"{len(pages)} WCXB tune pages read as main regions", file=sys.stderr)
    if args.oracle or args.cv:
        units = [share_units(p, args.units) if args.units else leaf_units(p) for p in pages]
        if args.oracle:
            oracle(units)
        if args.cv:
            cross_validate(units)
    if args.drops:
        drops_report(pages)
    if args.readmit:
        readmit(pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
