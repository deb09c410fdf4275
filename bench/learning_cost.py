#!/usr/bin/env python3
"""The cost side of bench/learning.py: timing one visit, and the cost run that browses one
site's pages over and over (cycling, each copy after the first marked as a new visit) to
time add+extract per page and the model's JSON size at 10, 100 and 1,000 pages, with the
tables that report them."""

from __future__ import annotations

import gc
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from evaluate import percentile
from winnow import evaluation as ev
from winnow.learning import read_page
from winnow.result import Extraction
from winnow.sitemodel import Observation, SiteModel

TEMPLATE = "template+econ"
"""The extraction method of a page a site model's template explained."""
MARKS = (10, 100, 1000)
"""Pages of a site at which the cost per added page and the model size are reported."""
WINDOW = 10
"""Pages before each mark whose add+extract times make its median and p95."""

T = TypeVar("T")


@dataclass
class CostRun:
    """Per-page times of add+extract over many pages of one site, and model sizes."""

    site: str
    extract_ms: list[float]
    add_ms: list[float]
    json_bytes: dict[int, int]
    template_pages: int

    @property
    def total_ms(self) -> list[float]:
        return [e + a for e, a in zip(self.extract_ms, self.add_ms, strict=True)]


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """The call's result and its duration in milliseconds (perf_counter)."""
    start = time.perf_counter()
    value = fn()
    return value, (time.perf_counter() - start) * 1000


def browse_extract(model: SiteModel, html: bytes) -> tuple[Extraction, Observation]:
    """What a visit does before learning (`learning.read_page`, as `Learner.browse` and
    `winnow batch`): parse once, observe once (the observation, with where the extraction
    found the content, is what `model.add` learns), extract with the template."""
    return read_page(model, html, None)


def json_size(model: SiteModel) -> int:
    """Bytes of the model's JSON (compact UTF-8)."""
    return len(json.dumps(model.to_json(), separators=(",", ":")).encode())


# --- cost run -----------------------------------------------------------------------------------

def cost_run(site: str, cases: Sequence[ev.Case], pages: int, marks: Sequence[int]) -> CostRun:
    """Browse `pages` pages of a site, cycling through its cases; time extract and add of
    each page as `winnow extract --learn` does them (one parse, one observation), and take
    the model's JSON size at the marks (outside the timings)."""
    model = SiteModel(site)
    run = CostRun(site, [], [], {}, 0)
    gc.collect()
    for n in range(1, pages + 1):
        html = nth_copy(cases[(n - 1) % len(cases)].html, (n - 1) // len(cases))
        (result, seen), extract_ms = timed(partial(browse_extract, model, html))
        _, add_ms = timed(partial(model.add, seen))
        run.extract_ms.append(extract_ms)
        run.add_ms.append(add_ms)
        run.template_pages += result.method == TEMPLATE
        if n in marks:
            run.json_bytes[n] = json_size(model)
    return run


def nth_copy(html: bytes, cycle: int) -> bytes:
    """The page as browsed on its `cycle`-th pass: from the second pass on, a visit marker
    paragraph before `</body>` is its only change. A site model learns a page once (by URL
    and by text), so an unchanged copy would be a revisit and cost nothing to learn."""
    if cycle == 0:
        return html
    marker = f"<p>visit {cycle}</p>".encode()
    end = html.rfind(b"</body>")
    return html[:end] + marker + html[end:] if end >= 0 else html + marker


def windows(pages: int, cycle: int) -> list[tuple[str, int, int]]:
    """(label, first, last) page windows, 1-based: WINDOW pages up to each mark, and whole
    cycles through the site's pages at the start, near 100 and at the end (same pages)."""
    found = [(f"{max(1, m - WINDOW + 1)}-{m}", max(1, m - WINDOW + 1), m)
             for m in MARKS if m <= pages]
    for start in sorted({1, (100 // cycle) * cycle + 1, (pages // cycle - 1) * cycle + 1}):
        if start >= 1 and start + cycle - 1 <= pages:
            found.append((f"{start}-{start + cycle - 1} (cycle)", start, start + cycle - 1))
    return found


def cost_table(costs: Sequence[CostRun], cycle: dict[str, int]) -> list[str]:
    """Median and p95 of add+extract per page in each window, and the split of the median."""
    rows = ["| site | pages | add+extract ms median | p95 | extract ms median | add ms median "
            "| median vs first window of its kind |", "|---|---|---|---|---|---|---|"]
    for run in costs:
        first: dict[bool, float] = {}
        for label, lo, hi in windows(len(run.add_ms), cycle[run.site]):
            total = run.total_ms[lo - 1:hi]
            median = statistics.median(total)
            base = first.setdefault("cycle" in label, median)
            rows.append(f"| {run.site} | {label} | {median:.1f} | {percentile(total, 95):.1f} "
                        f"| {statistics.median(run.extract_ms[lo - 1:hi]):.1f} "
                        f"| {statistics.median(run.add_ms[lo - 1:hi]):.1f} "
                        f"| {median / base:.2f}x |")
    return rows


def size_table(costs: Sequence[CostRun]) -> list[str]:
    """Model JSON size at each mark, and pages that used the template."""
    marks = [m for m in MARKS if any(m in run.json_bytes for run in costs)]
    rows = ["| site | " + " | ".join(f"JSON KB at {m}" for m in marks)
            + " | pages extracted with the template |", "|---" * (len(marks) + 2) + "|"]
    for run in costs:
        sizes = " | ".join(f"{run.json_bytes[m] / 1024:.0f}" if m in run.json_bytes else "n/a"
                           for m in marks)
        rows.append(f"| {run.site} | {sizes} | {run.template_pages}/{len(run.add_ms)} |")
    return rows


