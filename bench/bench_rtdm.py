#!/usr/bin/env python3
"""Time RTDM against the plain top-down edit distance on real page pairs (Figure 10 of
Reis et al. 2004), and the ne-pattern steps built on it; print markdown tables.

    .venv/bin/python bench/bench_rtdm.py            # all pairs, about 4 minutes (top-down)
    .venv/bin/python bench/bench_rtdm.py --quick    # a third of the pairs, about 1 minute

Pairs come from the Big9 pages (articles/sites in the shared data directory, `$WINNOW_DATA`):
same-template pairs are pages of one site and year that are at least 80% similar;
cross-template pairs are pages of one site from different years. Larger pages (2,000 to
9,500 nodes) come from same-site families of the Readability corpus. Trees are built once
per page; only the comparison is timed. Distances use unit costs over tags (the template
similarity); "RTDM eps" stops at the clustering threshold (lines 15-16 of Figure 5).
"""

from __future__ import annotations

import argparse
import datetime
import functools
import gc
import itertools
import platform
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluate import _git_state, _nproc, write_section
from winnow import evaluation as ev
from winnow.page import parse_page
from winnow.patterns import compose, extract, pattern_of
from winnow.rtdm import (
    CLUSTER_SIMILARITY,
    STRUCTURE_COSTS,
    normaliser,
    rtdm,
    rtdm_distance,
    top_down_distance,
)
from winnow.tree import Tree, build_tree

LARGE_PAIRS = [("nytimes-1", "nytimes-2"), ("yahoo-2", "yahoo-3"), ("wikipedia", "wikipedia-4"),
               ("wikipedia", "wikipedia-2"), ("nytimes-1", "wikipedia"), ("lazy-image-1",
                                                                        "lazy-image-2")]


@dataclass
class Pair:
    group: str
    a: Tree
    b: Tree


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """Seconds one call takes, with the garbage collector paused; and its result."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        result = fn()
        return time.perf_counter() - start, result
    finally:
        gc.enable()


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def site_pairs(quick: bool) -> list[Pair]:
    """Same-template and cross-template pairs of the Big9 pages."""
    groups: dict[tuple[str, str], list[Tree]] = defaultdict(list)
    for case in ev.sites_cases():
        key = (str(case.metadata["site"]), str(case.metadata["year"]))
        groups[key].append(build_tree(parse_page(case.html).root))
    step = 3 if quick else 1
    pairs: list[Pair] = []
    for trees in groups.values():
        for a, b in list(itertools.combinations(trees, 2))[::2 * step]:
            sim = 1 - rtdm_distance(a, b, STRUCTURE_COSTS) / normaliser(a, b)
            if sim >= CLUSTER_SIMILARITY:
                pairs.append(Pair("same template", a, b))
    for (site, year), trees in groups.items():
        for (site2, year2), others in groups.items():
            if site2 == site and year2 > year:
                pairs += [Pair("cross template", a, b)
                          for a, b in list(zip(trees, others, strict=True))[:4:step]]
    return pairs


def large_pairs() -> list[Pair]:
    cases = {case.id: case for case in ev.readability_cases()}
    return [Pair("large pages", build_tree(parse_page(cases[x].html).root),
                 build_tree(parse_page(cases[y].html).root))
            for x, y in LARGE_PAIRS if x in cases and y in cases]


def measure(pairs: list[Pair]) -> dict[str, dict[str, list[float]]]:
    """Per group, per method: the seconds of each pair (and the pair sizes, distances)."""
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for pair in pairs:
        a, b = pair.a, pair.b
        eps = (1 - CLUSTER_SIMILARITY) * normaliser(a, b)
        row = out[pair.group]
        seconds, rtdm_d = timed(functools.partial(rtdm_distance, a, b, STRUCTURE_COSTS))
        row["RTDM"].append(seconds)
        row["RTDM + mapping"].append(timed(functools.partial(rtdm, a, b, STRUCTURE_COSTS))[0])
        row["RTDM eps"].append(
            timed(functools.partial(rtdm_distance, a, b, STRUCTURE_COSTS, eps))[0])
        seconds, td_d = timed(functools.partial(top_down_distance, a, b, STRUCTURE_COSTS))
        row["top-down"].append(seconds)
        row["nodes"].append((len(a) + len(b)) / 2)
        row["speed-up"].append(row["top-down"][-1] / max(row["RTDM"][-1], 1e-9))
        assert isinstance(rtdm_d, float) and isinstance(td_d, float)
        row["td/rtdm distance"].append(td_d / rtdm_d if rtdm_d else 1.0)
    return out


def comparison_table(results: dict[str, dict[str, list[float]]]) -> str:
    methods = ["RTDM", "RTDM eps", "RTDM + mapping", "top-down"]
    head = ("| pairs | n | nodes (median) | " + " | ".join(f"{m} median / p95 ms" for m in methods)
            + " | speed-up (median) | top-down / RTDM distance (median) |")
    lines = [head, "|" + "---|" * (len(methods) + 5)]
    for group, row in results.items():
        cells = [f"{statistics.median(row[m]) * 1e3:.2f} / {p95(row[m]) * 1e3:.2f}"
                 for m in methods]
        lines.append(f"| {group} | {len(row['nodes'])} | {statistics.median(row['nodes']):.0f}"
                     f" | " + " | ".join(cells) + f" | {statistics.median(row['speed-up']):.0f}x"
                     f" | {statistics.median(row['td/rtdm distance']):.2f} |")
    return "\n".join(lines)


def pattern_table(quick: bool) -> str:
    """Compose each site-year's first pages one by one, then extract the others."""
    groups: dict[tuple[str, str], list[Tree]] = defaultdict(list)
    for case in ev.sites_cases():
        key = (str(case.metadata["site"]), str(case.metadata["year"]))
        groups[key].append(build_tree(parse_page(case.html).root))
    composing, strict, tolerant = [], [], []
    accepted = [0, 0]
    for trees in list(groups.values())[::3 if quick else 1]:
        p = pattern_of(trees[0])
        for tree in trees[1:4]:
            seconds, composed = timed(functools.partial(compose, p, tree))
            composing.append(seconds)
            p = composed  # type: ignore[assignment]
        for tree in trees[4:]:
            seconds, ex = timed(functools.partial(extract, p, tree))
            strict.append(seconds)
            accepted[0] += ex is not None
            seconds, ex = timed(functools.partial(extract, p, tree, 10))
            tolerant.append(seconds)
            accepted[1] += ex is not None
    total = len(strict)
    return "\n".join([
        "| ne-pattern step | n | median ms | p95 ms | pages accepted |", "|---|---|---|---|---|",
        f"| compose one page into the pattern | {len(composing)} | "
        f"{statistics.median(composing) * 1e3:.2f} | {p95(composing) * 1e3:.2f} | |",
        f"| match + extract + label (strict, the paper) | {total} | "
        f"{statistics.median(strict) * 1e3:.2f} | {p95(strict) * 1e3:.2f} | "
        f"{accepted[0]}/{total} |",
        f"| match + extract + label (tolerance 10) | {total} | "
        f"{statistics.median(tolerant) * 1e3:.2f} | {p95(tolerant) * 1e3:.2f} | "
        f"{accepted[1]}/{total} |"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a third of the pairs")
    parser.add_argument("--write", type=Path, help="write/replace the rtdm section of this file")
    args = parser.parse_args(argv)
    if not (ev.data_dir() / "articles" / "sites" / "manifest.json").is_file():
        print(f"evaluation data not found at {ev.data_dir()} (set WINNOW_DATA)",
              file=sys.stderr)
        return 2
    pairs = site_pairs(args.quick) + large_pairs()
    command = " ".join([".venv/bin/python", "bench/bench_rtdm.py", *(argv or sys.argv[1:])])
    text = "\n".join([
        "## RTDM against the plain top-down distance", "",
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; machine: nproc "
        f"{_nproc()}, {platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}; {_git_state()}.", "",
        "Time per comparison on the same page pairs, one process:", "",
        comparison_table(measure(pairs)), "",
        "ne-patterns on the Big9 pages (first 4 pages of each site-year composed, "
        "the other 6 extracted):", "",
        pattern_table(args.quick), ""])
    print(text)
    if args.write:
        write_section(args.write, text, "rtdm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
