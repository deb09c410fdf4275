#!/usr/bin/env python3
"""Where learned extraction loses words against the gold, by template class, on the Big9 pages.

    .venv/bin/python bench/learning_census.py            # every site, about 30 s
    .venv/bin/python bench/learning_census.py --pages    # and one row per tune page

Browses each tune site as bench/learning.py does (year, then page name; extract with the model
so far, then learn) and puts every page in the class of what its template could do for it:

- `none`: no cluster explained anything (the first page of a template nothing near lends to);
- `lent`: its own cluster had learned nothing, a nearer cluster lent its template or text;
- `young`: its own cluster, with at most `YOUNG` pages of its site-year learned before it;
- `own`: its own cluster, later.

Per class: pages, F1 of learned and single-page Winnow (shingles, as the learning table), and
bag-of-words counts against the gold: gold words the extraction misses (recall) and words it
adds (precision), learned and single-page. Tune sites get a row per site and class (and per
page with --pages); check sites are shown only as the part's aggregate per class.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from learning import f1_of, safe_extract, score, site_cases, text_of, year_of
from learning_cost import TEMPLATE, browse_extract
from winnow import evaluation as ev
from winnow.sitemodel import SiteModel

YOUNG = 1
"""Pages of its site-year learned before it up to which a page of its own cluster is young."""


@dataclass
class Row:
    """One page: its class, scores and word counts against the gold."""

    id: str
    kind: str
    learned: ev.Counts
    single: ev.Counts
    missed: tuple[int, int]
    """Gold words missing from the (learned, single-page) text."""
    added: tuple[int, int]
    """Words of the (learned, single-page) text the gold lacks."""


def word_gaps(gold: str, text: str) -> tuple[int, int]:
    """(gold words the text misses, text words the gold lacks), as bags of words."""
    want, got = Counter(gold.split()), Counter(text.split())
    return sum((want - got).values()), sum((got - want).values())


def census(site: str, cases: Sequence[ev.Case]) -> list[Row]:
    """Browse one site and classify each page by what its template could do for it."""
    model = SiteModel(site)
    seen: Counter[str] = Counter()
    rows = []
    for case in cases:
        learned, observed = browse_extract(model, case.html)
        single = safe_extract(case.html)
        own = observed.matches[0][0] if observed.matches else None
        kind = ("none" if learned.method != TEMPLATE or learned.cluster is None else
                "lent" if learned.cluster != own else
                "young" if seen[year_of(case)] <= YOUNG else "own")
        gaps = word_gaps(case.gold, text_of(learned)), word_gaps(case.gold, text_of(single))
        rows.append(Row(case.id, kind, ev.page_counts(case.gold, text_of(learned)),
                        ev.page_counts(case.gold, text_of(single)),
                        (gaps[0][0], gaps[1][0]), (gaps[0][1], gaps[1][1])))
        model.add(observed)
        seen[year_of(case)] += 1
    return rows


def class_table(rows: Sequence[Row]) -> list[str]:
    """Per class: pages, learned and single-page F1, missed and added words, per part and per
    tune site (a check site is part of its part's rows only)."""
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        site = row.id.split("/", 1)[0]
        part = ev.split_of(site)
        for name in (f"**{part}**", site) if part == "tune" else (f"**{part}**",):
            groups[(name, row.kind)].append(row)
    lines = ["| site | class | pages | learned F1 | single F1 | missed words (learned / single) "
             "| added words (learned / single) |", "|---" * 7 + "|"]
    for (site, kind), group in sorted(groups.items()):
        lines.append(
            f"| {site} | {kind} | {len(group)} | {score(r.learned for r in group).f1:.3f} "
            f"| {score(r.single for r in group).f1:.3f} "
            f"| {sum(r.missed[0] for r in group)} / {sum(r.missed[1] for r in group)} "
            f"| {sum(r.added[0] for r in group)} / {sum(r.added[1] for r in group)} |")
    return lines


def page_table(rows: Sequence[Row]) -> list[str]:
    """One row per tune page, largest learned word loss first."""
    lines = ["| page | class | learned F1 | single F1 | missed (learned / single) "
             "| added (learned / single) |", "|---" * 6 + "|"]
    tune = [row for row in rows if ev.split_of(row.id.split("/", 1)[0]) == "tune"]
    for row in sorted(tune, key=lambda r: -(r.missed[0] + r.added[0])):
        lines.append(f"| {row.id} | {row.kind} | {f1_of(row.learned):.3f} "
                     f"| {f1_of(row.single):.3f} | {row.missed[0]} / {row.missed[1]} "
                     f"| {row.added[0]} / {row.added[1]} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", action="store_true", help="also one row per page")
    args = parser.parse_args(argv)
    sites = sorted({c.id.split("/", 1)[0] for c in ev.load_cases("sites")})
    rows = [row for site, cases in site_cases(sites).items() for row in census(site, cases)]
    print("\n".join(class_table(rows)))
    if args.pages:
        print("\n" + "\n".join(page_table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
