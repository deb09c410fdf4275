#!/usr/bin/env python3
"""Measure per-site template learning on the Big9 pages (issue 3, item 8), in one run.

    .venv/bin/python bench/learning.py                          # all sites, about 2.5 minutes
    .venv/bin/python bench/learning.py --quick                  # cost run to 200 pages, 1 site
    .venv/bin/python bench/learning.py --write bench/RESULTS.md

Pages come from articles/sites in the shared data directory (`$WINNOW_DATA`): 6 sites x 4
template eras (years) x 10 pages. Per site, pages are visited in browsing order (year, then
name): each page is extracted with what the site model learned from the pages before it,
then learned. Single-page Winnow and trafilatura run on the same pages in the same run.
Printed as markdown: F1 per site, the learning curve, clustering purity, the cost per added
page at 10, 100 and 1,000 pages of a site, persistence across a JSON round trip, and the
pages where learning made extraction worse, with the template source that removed gold text.
The cost run and its tables are in bench/learning_cost.py.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import winnow
from evaluate import _git_state, _nproc, command_line, percentile, publish
from evaluate import run_trafilatura_precision as run_trafilatura
from learning_cost import (
    MARKS,
    TEMPLATE,
    CostRun,
    browse_extract,
    cost_run,
    cost_table,
    size_table,
    timed,
)
from lxml.html import HtmlElement
from winnow import evaluation as ev
from winnow.clustering import MAX_CLUSTERS
from winnow.page import PageError, iter_elements, parse_page, wn_id
from winnow.result import Extraction
from winnow.sitemodel import Observation, SiteModel

SECTION = "learning"
BUCKETS = ((0, 0, "0"), (1, 1, "1"), (2, 4, "2-4"), (5, 9, "5-9"))
"""Learning-curve buckets: (least, most pages of the page's site-year learned before it,
label). Each site-year has 10 pages, so the k-th page of a template has k-1 before it."""
DIAGNOSE_MARGIN = 0.01
"""Pages whose learned F1 is this much below single-page F1 are diagnosed."""


# --- data ---------------------------------------------------------------------------------------

@dataclass
class Visit:
    """One page of a site's browsing order, scored three ways, and what learning did."""

    case: ev.Case
    year: str
    seen: int
    """Pages of the same site-year learned before this one."""
    method: str
    learned: ev.Counts
    single: ev.Counts
    trafilatura: ev.Counts
    ms: dict[str, float]
    changed: bool = False
    """The learned article text differs from single-page Winnow's."""
    revisit: ev.Counts = (0.0, 0.0, 0.0)
    """Second visit, with the model that learned all the site's pages (this one included)."""
    sources: dict[str, int] = field(default_factory=dict)
    gold_lost: dict[str, float] = field(default_factory=dict)


@dataclass
class SiteRun:
    """A site's browsing run: the visits, the final model, cluster membership, persistence."""

    site: str
    visits: list[Visit]
    model: SiteModel
    members: dict[int, list[str]]
    """Cluster id -> site-year labels of the pages it holds (merges followed)."""
    held_out_same: int = 0
    """Pages extracted identically, before they were learned, by the model and its copy."""
    held_out_template: int = 0
    """Of those checked, pages whose extraction used the template."""
    revisits_same: int = 0
    json_stable: bool = False


# --- helpers ------------------------------------------------------------------------------------

def text_of(result: Extraction) -> str:
    """The article text of an extraction, empty when there is none."""
    return result.article.text if result.article is not None else ""


def safe_extract(html: bytes, model: SiteModel | None = None) -> Extraction:
    """`winnow.extract` without a URL; a refused page gives an empty extraction."""
    try:
        return winnow.extract(html, None, model)
    except PageError:
        return Extraction(kind="other", method="error")  # type: ignore[arg-type]


def fingerprint(result: Extraction) -> str:
    """The extraction as JSON, timings left out, to compare two runs."""
    data = result.to_dict()
    data.pop("timing_ms", None)
    return json.dumps(data, sort_keys=True, default=str)


def round_trip(model: SiteModel) -> SiteModel:
    """The model after to_json -> json.dumps -> json.loads -> from_json (a restart)."""
    return SiteModel.from_json(json.loads(json.dumps(model.to_json())))


def score(counts: Iterable[ev.Counts]) -> ev.Score:
    return ev.aggregate(list(counts))


def f1_of(counts: ev.Counts) -> float:
    return ev.f1(ev.precision(counts), ev.recall(counts))


def fmt(s: ev.Score) -> str:
    """F1 / P / R as three table cells."""
    return f"{s.f1:.3f} | {s.precision:.3f} | {s.recall:.3f}"


def site_cases(sites: Sequence[str]) -> dict[str, list[ev.Case]]:
    """The chosen sites' cases in browsing order: year, then page name."""
    grouped: dict[str, list[ev.Case]] = defaultdict(list)
    for case in ev.load_cases("sites"):
        site = case.id.split("/", 1)[0]
        if site in sites:
            grouped[site].append(case)
    return {site: sorted(grouped[site], key=lambda c: (year_of(c), c.id)) for site in sites
            if grouped[site]}


def year_of(case: ev.Case) -> str:
    return str(case.metadata.get("year") or case.id.split("/")[1])


# --- diagnosis ----------------------------------------------------------------------------------

def own_text(el: HtmlElement) -> str:
    """An element's own text (its text and its children's tails): what a template flag
    takes away, as `winnow.article.template_roots` counts it."""
    return " ".join([el.text or "", *(child.tail or "" for child in el)])


SOURCES = ("layout", "aside", "links", "chunks", "site")
"""The template sources `SiteModel.noise_sources` names, in the diagnosis table's order."""


def source_ids(model: SiteModel, seen: Observation) -> dict[str, set[int]] | None:
    """Ids of the elements each template source explains on an observed page, as
    `SiteModel.template` combines them (those of the page's elements); None when no
    template explains the page or the split does not add up to the template's noise."""
    template = model.template(seen)
    if template is None:
        return None
    noise = {wn_id(el) for el in template.noise}
    ids = {name: found & noise for name, found in model.noise_sources(seen).items()}
    return ids if set().union(*ids.values()) == noise else None


def gold_lost(model: SiteModel, html: bytes, gold: str) -> dict[str, float]:
    """Per template source, the share of the gold's shingles found in the own text of the
    elements that source marks as template noise."""
    seen = model.observe(parse_page(html))
    ids = source_ids(model, seen)
    if ids is None:
        return {}
    by_id = {i: el for el in iter_elements(seen.page.root) if (i := wn_id(el)) is not None}
    gold_shingles = ev.shingles(gold)
    total = max(sum(gold_shingles.values()), 1)
    lost = {}
    for source, found in ids.items():
        noise = ev.shingles("\n".join(own_text(by_id[i]) for i in sorted(found) if i in by_id))
        lost[source] = sum((gold_shingles & noise).values()) / total
    return lost


# --- browsing run -------------------------------------------------------------------------------

def visit(model: SiteModel, case: ev.Case, seen: int) -> tuple[Visit, Observation]:
    """Extract one page three ways; the learned extraction uses the model as it is, and its
    observation is what the model learns next."""
    (learned, observed), learned_ms = timed(lambda: browse_extract(model, case.html))
    single, single_ms = timed(lambda: safe_extract(case.html))
    (traf, _), traf_ms = timed(lambda: run_trafilatura(case.html, None))
    page = Visit(case, year_of(case), seen, learned.method,
                 ev.page_counts(case.gold, text_of(learned)),
                 ev.page_counts(case.gold, text_of(single)),
                 ev.page_counts(case.gold, traf),
                 {"learned": learned_ms, "single": single_ms, "trafilatura": traf_ms},
                 changed=text_of(learned) != text_of(single))
    if learned.method == TEMPLATE and f1_of(page.learned) < f1_of(page.single) - DIAGNOSE_MARGIN:
        template = model.template(parse_page(case.html))
        page.sources = dict(template.sources) if template else {}
        page.gold_lost = gold_lost(model, case.html, case.gold) or {"n/a": 0.0}
    return page, observed


def follow(members: dict[int, list[str]], model: SiteModel, cluster: int, label: str) -> None:
    """Record that a page with `label` joined `cluster`; clusters that vanished in that step
    were merged into it (eviction needs more than MAX_CLUSTERS clusters, checked by caller)."""
    for gone in [cid for cid in members if cid not in model.clusterer.clusters]:
        members.setdefault(cluster, []).extend(members.pop(gone))
    members.setdefault(cluster, []).append(label)


def browse(site: str, cases: Sequence[ev.Case]) -> SiteRun:
    """The browsing order: extract each page with the model so far, then learn it. Every page
    but the first is also extracted, before it is learned, with a round-tripped copy of the
    model (a restart) and the two results compared."""
    model = SiteModel(site)
    run = SiteRun(site, [], model, {})
    seen: Counter[str] = Counter()
    for index, case in enumerate(cases):
        if index:
            check_held_out(run, case)
        page, observed = visit(model, case, seen[year_of(case)])
        run.visits.append(page)
        follow(run.members, model, model.add(observed), year_of(case))
        seen[year_of(case)] += 1
    revisit(run, cases)
    return run


def check_held_out(run: SiteRun, case: ev.Case) -> None:
    """Extraction of a page the model has not learned, before and after a JSON round trip."""
    restored = round_trip(run.model)
    before = safe_extract(case.html, run.model)
    run.held_out_same += fingerprint(before) == fingerprint(safe_extract(case.html, restored))
    run.held_out_template += before.method == TEMPLATE


def revisit(run: SiteRun, cases: Sequence[ev.Case]) -> None:
    """Second visit of every page with the full model, and with its round-tripped copy."""
    restored = round_trip(run.model)
    run.json_stable = restored.to_json() == run.model.to_json()
    for page, case in zip(run.visits, cases, strict=True):
        result = safe_extract(case.html, run.model)
        page.revisit = ev.page_counts(case.gold, text_of(result))
        run.revisits_same += fingerprint(result) == fingerprint(safe_extract(case.html, restored))


# --- tables -------------------------------------------------------------------------------------

def part_of(site: str) -> str:
    """The part ("tune" or "check") a site belongs to, as in bench/evaluate.py."""
    return ev.split_of(site)


def site_table(runs: Sequence[SiteRun]) -> list[str]:
    """F1 / P / R per site, per part (tune, check) and overall: learned, single-page Winnow,
    trafilatura."""
    rows = ["| site | part | pages | learned F1 | P | R | single-page F1 | P | R "
            "| trafilatura F1 | P | R | learned - single | learned - trafilatura "
            "| template used (text changed) |", "|---" * 15 + "|"]
    groups = [(run.site, part_of(run.site), run.visits) for run in runs]
    for part in ev.SPLITS:
        groups.append((f"**{part}**", part, [v for run in runs if part_of(run.site) == part
                                             for v in run.visits]))
    groups.append(("**all**", "all", [v for run in runs for v in run.visits]))
    for name, part, visits in groups:
        if not visits:
            continue
        used = sum(v.method == TEMPLATE for v in visits)
        learned, single, traf = (score(getattr(v, key) for v in visits)
                                 for key in ("learned", "single", "trafilatura"))
        rows.append(f"| {name} | {part} | {len(visits)} | {fmt(learned)} | {fmt(single)} "
                    f"| {fmt(traf)} | {learned.f1 - single.f1:+.4f} "
                    f"| {learned.f1 - traf.f1:+.4f} "
                    f"| {used}/{len(visits)} ({sum(v.changed for v in visits)}) |")
    return rows


def unextractable(runs: Sequence[SiteRun], below: float = 0.2) -> str:
    """Pages on which every engine scores under `below` F1 (suspect gold or page)."""
    every = [v for run in runs for v in run.visits
             if max(f1_of(v.learned), f1_of(v.single), f1_of(v.trafilatura)) < below]
    pages = [v.case.id for v in every if part_of(v.case.id.split("/", 1)[0]) == "tune"]
    withheld = len(every) - len(pages)
    return (f"Pages where all three score F1 < {below} (suspect data): "
            f"{', '.join(pages) or 'none'}" + (f" (and {withheld} of check sites)" if withheld
                                               else "") + ".")


def speed_line(runs: Sequence[SiteRun]) -> str:
    """Median and p95 ms per page of each extraction (parse included)."""
    every = [v for run in runs for v in run.visits]
    parts = []
    for key in ("learned", "single", "trafilatura"):
        ms = [v.ms[key] for v in every]
        parts.append(f"{key} {statistics.median(ms):.1f} / {percentile(ms, 95):.1f}")
    return "Extraction ms per page, median / p95: " + "; ".join(parts) + "."


def curve_table(runs: Sequence[SiteRun]) -> list[str]:
    """F1 by how many pages of the page's site-year had been learned before it."""
    every = [v for run in runs for v in run.visits]
    rows = ["| pages of its template learned before | pages | template used | learned F1 "
            "| single-page F1 | trafilatura F1 |", "|---|---|---|---|---|---|"]
    for low, high, label in BUCKETS:
        visits = [v for v in every if low <= v.seen <= high]
        if visits:
            used = sum(v.method == TEMPLATE for v in visits)
            rows.append(f"| {label} | {len(visits)} | {used} "
                        f"| {score(v.learned for v in visits).f1:.3f} "
                        f"| {score(v.single for v in visits).f1:.3f} "
                        f"| {score(v.trafilatura for v in visits).f1:.3f} |")
    rows.append(f"| 10, second visit (page itself learned) | {len(every)} | n/a "
                f"| {score(v.revisit for v in every).f1:.3f} "
                f"| {score(v.single for v in every).f1:.3f} "
                f"| {score(v.trafilatura for v in every).f1:.3f} |")
    return rows


def purity(members: dict[int, list[str]]) -> tuple[float, float]:
    """(purity, inverse purity) of clusters against labels: the share of pages in their
    cluster's majority label, and the share in their label's largest cluster."""
    pages = sum(len(labels) for labels in members.values())
    if not pages:
        return 0.0, 0.0
    majority = sum(Counter(labels).most_common(1)[0][1] for labels in members.values())
    largest: dict[str, int] = defaultdict(int)
    for labels in members.values():
        for label, count in Counter(labels).items():
            largest[label] = max(largest[label], count)
    return majority / pages, sum(largest.values()) / pages


def cluster_table(runs: Sequence[SiteRun]) -> list[str]:
    """Purity, inverse purity and cluster counts per site and overall."""
    rows = ["| site | pages | clusters | singleton clusters | purity | inverse purity "
            "| cluster sizes (site-year: sizes) |", "|---|---|---|---|---|---|---|"]
    merged: dict[int, list[str]] = {}
    for run in runs:
        offset = len(merged)
        merged.update({offset + i: [f"{run.site}/{label}" for label in labels]
                       for i, labels in enumerate(run.members.values())})
        rows.append(cluster_row(run.site, run.members))
    rows.append(cluster_row("**all**", merged, sizes=False))
    return rows


def cluster_row(name: str, members: dict[int, list[str]], sizes: bool = True) -> str:
    p, inverse = purity(members)
    pages = sum(len(labels) for labels in members.values())
    singletons = sum(len(labels) == 1 for labels in members.values())
    detail = layout_of(members) if sizes else ""
    return (f"| {name} | {pages} | {len(members)} | {singletons} | {p:.3f} | {inverse:.3f} "
            f"| {detail} |")


def layout_of(members: dict[int, list[str]]) -> str:
    """Per site-year, the sizes of the clusters holding its pages, largest first."""
    per_label: dict[str, list[int]] = defaultdict(list)
    for labels in members.values():
        for label, count in Counter(labels).items():
            per_label[label].append(count)
    return "; ".join(f"{label}: {'+'.join(map(str, sorted(counts, reverse=True)))}"
                     for label, counts in sorted(per_label.items()))


def persistence_table(runs: Sequence[SiteRun]) -> list[str]:
    """Held-out page and second-visit extractions before and after a JSON round trip."""
    rows = ["| site | held-out pages unchanged | of them template+econ | second visits "
            "unchanged | JSON stable | all unchanged |", "|---|---|---|---|---|---|"]
    for run in runs:
        checked = len(run.visits) - 1
        same = (run.held_out_same == checked and run.revisits_same == len(run.visits)
                and run.json_stable)
        rows.append(f"| {run.site} | {run.held_out_same}/{checked} | {run.held_out_template} "
                    f"| {run.revisits_same}/{len(run.visits)} | {yes(run.json_stable)} "
                    f"| {yes(same)} |")
    return rows


def yes(flag: bool) -> str:
    return "yes" if flag else "**no**"


def diagnosis_table(runs: Sequence[SiteRun]) -> list[str]:
    """Pages where the template made extraction worse, worst first, with each source's
    element count and the share of the gold text in the own text of its elements."""
    bad = sorted((v for run in runs if part_of(run.site) == "tune" for v in run.visits
                  if v.gold_lost or v.sources),
                 key=lambda v: f1_of(v.learned) - f1_of(v.single))
    if not bad:
        return ["No page lost more than "
                f"{DIAGNOSE_MARGIN} F1 to its learned template."]
    names = ", ".join(SOURCES)
    rows = [f"| page | before | learned F1 / P / R | single F1 / P / R | elements: {names} "
            f"| gold in {' / '.join(SOURCES)} noise |", "|---|---|---|---|---|---|"]
    for v in bad:
        src, lost = v.sources, v.gold_lost
        shares = ("n/a (split does not add up)" if "n/a" in lost else
                  " / ".join(f"{lost.get(key, 0):.2f}" for key in SOURCES))
        counts = ", ".join(str(src.get(key, 0)) for key in SOURCES)
        rows.append(f"| {v.case.id} | {v.seen} | {prf(v.learned)} | {prf(v.single)} "
                    f"| {counts} | {shares} |")
    return rows


def prf(counts: ev.Counts) -> str:
    p, r = ev.precision(counts), ev.recall(counts)
    return f"{ev.f1(p, r):.2f} / {p:.2f} / {r:.2f}"


# --- report -------------------------------------------------------------------------------------

def header(command: str) -> list[str]:
    """Section title, command, date, machine and versions."""
    from importlib.metadata import version

    return [
        "## Per-site template learning",
        "",
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; machine: nproc "
        f"{_nproc()}, {platform.machine()}, Python {platform.python_version()}; winnow "
        f"{version('winnow')}, trafilatura {version('trafilatura')}; {_git_state()}.",
    ]


def report(runs: Sequence[SiteRun], costs: Sequence[CostRun], command: str) -> str:
    """The markdown section."""
    cycle = {run.site: len(run.visits) for run in runs}
    lines = [
        *header(command), "",
        "Data: articles/sites (site x year x 10 pages). Browsing order per site: year, then "
        "page name; each page is extracted with the site model learned from the pages before "
        "it (`winnow.extract(html, None, model)`), then learned (`model.add_page`). "
        "Single-page Winnow (`winnow.extract(html)`) and trafilatura (`favor_precision=True`) "
        "run on the same pages in the same run. Sites are split into tune and check parts "
        "by a stable hash of the site's name, as in the article table. Metric as in the "
        "article table (shingle P and R averaged over pages, F1 of the averages). "
        "\"template used\": pages extracted with method template+econ: their cluster had "
        "learned a page, a nearer cluster that learned one lent its template (or, when its "
        "layout pattern did not match, its template text), or text repeated across the "
        "site's learned pages explained part of them.",
        "", "### F1 per site", "", *site_table(runs), "", speed_line(runs), "",
        unextractable(runs),
        "", "### Learning curve", "",
        "Pages bucketed by how many pages of their own template (site-year label) the model "
        "had learned before them: the k-th page of a template has k-1 before it. Each "
        "site-year has 10 pages, so 9 is the most a first visit can have; the last row "
        "re-extracts every page with the final model (10 pages of its template learned, the "
        "page itself among them).", "", *curve_table(runs),
        "", "### Clustering against site-year labels", "",
        "Purity: pages in their cluster's majority site-year / pages. Inverse purity: pages in "
        "their site-year's largest cluster / pages (1.0 = no template split). Clusters as "
        "they stand after the browsing run, merges followed.", "", *cluster_table(runs),
    ]
    if costs:
        lines += [
            "", "### Cost per added page", "",
            "One site model per site browses N pages, cycling through the site's pages in "
            "browsing order (from the second cycle on each copy carries a `<p>visit k</p>` "
            "marker, so the model learns it as a new page rather than skipping a revisit), "
            "as `winnow extract --learn` does it: parse and observe once, "
            "extract with the template (the extract column, parse included), then learn from "
            "the same observation (the add column). perf_counter per page; windows of the 10 "
            "pages up to "
            "each mark, and whole cycles (the same pages, so directly comparable).", "",
            *cost_table(costs, cycle), "", *size_table(costs),
        ]
    lines += [
        "", "### Persistence", "",
        "Before each page is learned (from the second on), the site model goes to_json -> "
        "json.dumps -> json.loads -> from_json; the held-out page is extracted with both "
        "models and the results (everything but timings) compared. After the run, every page "
        "is extracted again with the final model and with its round-tripped copy. JSON "
        "stable: the final copy's to_json equals the original's.", "", *persistence_table(runs),
        "", "### Pages the template made worse", "",
        f"Template-extracted pages of tune sites (check sites' pages are not shown: they are "
        f"looked at only as aggregates) whose F1 is more than {DIAGNOSE_MARGIN} below "
        "single-page Winnow's; \"before\" = pages of its template learned before it; gold in "
        "noise = share of the gold's shingles present in the own text of the elements each source "
        "(`model.template(page).sources`) marks as template (gold text that is repeated in "
        "genuine noise, such as a sidebar link carrying the headline, counts too; all zeros "
        "means the loss is indirect: the flags moved ECON's choice of the article's node).",
        "", *diagnosis_table(runs),
    ]
    return "\n".join(lines) + "\n"


# --- command line -------------------------------------------------------------------------------

def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", help="comma-separated sites (default: all)")
    parser.add_argument("--cost-sites", default="bbc,cnn",
                        help="comma-separated sites for the cost run (default: bbc,cnn)")
    parser.add_argument("--cost-pages", type=int, default=MARKS[-1],
                        help=f"pages per site in the cost run (default {MARKS[-1]})")
    parser.add_argument("--quick", action="store_true",
                        help="cost run to 200 pages on the first cost site only")
    parser.add_argument("--write", type=Path, help="write/replace the section in this markdown")
    return parser.parse_args(argv)


def split(value: str | None, default: Sequence[str]) -> list[str]:
    return [s.strip() for s in value.split(",") if s.strip()] if value else list(default)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every measurement and print (and optionally write) the markdown section."""
    args = parse_args(argv)
    if not (ev.data_dir() / "articles" / "sites").is_dir():
        print(f"no data at {ev.data_dir()} (set WINNOW_DATA)", file=sys.stderr)
        return 2
    all_sites = sorted({c.id.split("/", 1)[0] for c in ev.load_cases("sites")})
    cases = site_cases(split(args.sites, all_sites))
    runs = []
    for site, site_pages in cases.items():
        print(f"browsing {site} ...", file=sys.stderr, flush=True)
        runs.append(browse(site, site_pages))
        if len(runs[-1].members) > MAX_CLUSTERS:
            print(f"warning: {site} has more than {MAX_CLUSTERS} clusters", file=sys.stderr)
    cost_sites = [s for s in split(args.cost_sites, ()) if s in cases]
    pages = min(args.cost_pages, 200) if args.quick else args.cost_pages
    costs = []
    for site in cost_sites[:1] if args.quick else cost_sites:
        print(f"cost run {site}, {pages} pages ...", file=sys.stderr, flush=True)
        costs.append(cost_run(site, cases[site], pages, MARKS))
    publish(report(runs, costs, command_line("learning.py", argv)), args.write, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
