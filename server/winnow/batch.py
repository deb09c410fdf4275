"""`winnow batch`: learn site templates and extract whole crawls on Dask.

    winnow batch [--output DIR] [--format parquet|jsonl] [--scheduler ADDRESS]
                 [--workers N] [--site-pattern GLOB] [--shard-pages N] INPUT...

A run has two passes. First one task per input file streams it and indexes its pages
(`winnow.batch_input`): where each lies, its URL, site and date, never its content. Then
the plan (`winnow.batch_plan`) orders each site's pages by date and cuts big sites into
shards; one task per shard reads its own pages by offset and processes them as `winnow
extract --learn` does (`learning.read_page`, then `SiteModel.add`): each page is extracted
with what its site learned from the pages before it, then learned. A site's shards run one
after the other, each starting from the model the previous one saved; different sites run in
parallel, the biggest first.

A site's model goes from shard to shard in memory, as the task's result, so a site split into
shards gives exactly what one `extract --learn` process gives on all its pages (a saved model
leaves out what `SiteModel.to_json` keeps in memory only). A task lost with its worker is run
again by Dask, and so is a finished shard whose result (the model) died with its worker
before the next shard took it: within a run, shards are exact whatever dies. Outputs are
written atomically (`winnow.batch_output`), and a shard whose completion marker matches the
plan is not submitted again: a rerun of a killed job does only what is missing, from the
model the last finished shard saved, as `extract --learn` goes on after a restart; a rerun of
a finished job does nothing.

Without `--scheduler` the run starts a local cluster of one single-threaded worker process
per core (or `--workers`); with it, it runs on that cluster, whose workers must see the
inputs and the output folder at the same paths (a shared filesystem).
"""

from __future__ import annotations

import argparse
import copy
import os
import resource
import socket
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from winnow.batch_input import BadRecord, FileIndex, PageReader, index_file
from winnow.batch_output import (
    OutputLayout,
    PartWriter,
    drop_parts_after,
    page_row,
    read_json,
    write_json,
)
from winnow.batch_plan import FORMATS, SHARD_PAGES, Shard, describe_bad, plan_shards
from winnow.cli import _progress
from winnow.learning import read_page
from winnow.sitemodel import SiteModel

STEPS = ("read", "extract", "learn", "write")
"""Where a shard's time goes: reading its records, extracting (parse, template match,
extraction), learning (`SiteModel.add`) and writing rows (elapsed seconds; a shard's `cpu`
is its process CPU time, which tells a busy machine from a slow step)."""


@dataclass
class ShardDone:
    """What one shard did (also its completion marker, with the fingerprint and format)."""

    site: str
    index: int
    pages: int
    bad: dict[str, int]
    seconds: dict[str, float]
    worker: str
    peak_rss_mb: float
    fingerprint: str = ""
    format: str = ""
    run: str = ""
    """The run that wrote it."""
    errors: list[str] = field(default_factory=list)
    """The first few messages of pages the extractor failed on."""
    model: SiteModel | None = None
    """The site's model after this shard, for the next one (not in the marker)."""

    def marker(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "model"}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ShardDone:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data
                      and k != "model"})


LOCAL_HOST = "127.0.0.1"
"""Where the local cluster's scheduler, workers and dashboard listen: a Dask scheduler runs
whatever code its clients send, so it is never reachable from the network."""
DASHBOARD_PORT = 8787
"""Dask's usual dashboard port (another free one is taken when it is in use)."""

MAX_ERRORS_KEPT = 5
"""Messages of failed pages a shard keeps for the report."""


# --- the work of one shard (runs on a worker) ---------------------------------------------------

def completed(layout: OutputLayout, shard: Shard, fmt: str) -> ShardDone | None:
    """The shard's marker when it matches the plan (fingerprint and format) and its part is
    there; else None."""
    data = read_json(layout.marker(shard.site, shard.index))
    if not isinstance(data, dict) or data.get("fingerprint") != shard.fingerprint \
            or data.get("format") != fmt or not layout.part(shard, fmt).is_file():
        return None
    try:
        return ShardDone.from_json(data)
    except TypeError:
        return None


def process_shard(shard: Shard, inputs: list[str], output: str, fmt: str, run: str = "",
                  after: ShardDone | None = None) -> ShardDone:
    """Extract and learn a shard's pages in order and write its part, model and marker.
    `after` is the site's previous shard of this run, with the model to start from; without
    it a shard starts from what the previous one saved (or anew, the site's first)."""
    cpu = time.process_time()
    layout = OutputLayout(Path(output))
    # a copy: on the worker that holds it, the result is the stored object itself
    model = copy.deepcopy(after.model) if after is not None and after.model is not None \
        else _starting_model(layout, shard)
    bad: Counter[str] = Counter()
    seconds = dict.fromkeys(STEPS, 0.0)
    errors: list[str] = []
    pages = 0
    with PageReader(inputs) as reader, PartWriter(layout.part(shard, fmt), fmt) as part:
        for ref in shard.records:
            clock = time.perf_counter()
            try:
                html = reader.read(ref)
            except BadRecord as exc:
                bad[exc.kind] += 1
                continue
            clock = _lap(seconds, "read", clock)
            try:
                result, seen = read_page(model, html, ref.url or None)
            except Exception as exc:  # one page must never lose its site's run
                bad["failed"] += 1
                if len(errors) < MAX_ERRORS_KEPT:
                    errors.append(f"{ref.url}: {type(exc).__name__}: {exc}")
                continue
            clock = _lap(seconds, "extract", clock)
            model.add(seen)
            clock = _lap(seconds, "learn", clock)
            part.write(page_row(result, ref.url, shard.site, ref.date))
            _lap(seconds, "write", clock)
            pages += 1
        clock = time.perf_counter()
        part.commit()
    write_json(layout.model(shard.site, shard.index, shard.last), model.to_json())
    if shard.last:
        drop_parts_after(layout, shard, fmt)
    _lap(seconds, "write", clock)
    seconds["cpu"] = time.process_time() - cpu
    done = ShardDone(shard.site, shard.index, pages, dict(bad),
                     {k: round(v, 4) for k, v in seconds.items()}, _worker_name(),
                     _peak_rss_mb(), shard.fingerprint, fmt, run, errors)
    write_json(layout.marker(shard.site, shard.index), done.marker())
    done.model = None if shard.last else model
    return done


def _starting_model(layout: OutputLayout, shard: Shard) -> SiteModel:
    """A new model for a site's first shard; else the model its previous shard saved."""
    if shard.index == 0:
        return SiteModel(shard.site)
    data = read_json(layout.model(shard.site, shard.index - 1, last=False))
    if not isinstance(data, dict):
        raise RuntimeError(f"{shard.site}: shard {shard.index - 1} left no model to start from")
    return SiteModel.from_json(data)


def _lap(seconds: dict[str, float], step: str, since: float) -> float:
    now = time.perf_counter()
    seconds[step] += now - since
    return now


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _peak_rss_mb() -> float:
    """The process's peak resident memory so far (Linux reports KB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


# --- the run (the client) -----------------------------------------------------------------------

@dataclass
class BatchOptions:
    """What `winnow batch` was asked to do."""

    inputs: Sequence[str]
    output: Path
    fmt: str = "parquet"
    scheduler: str | None = None
    workers: int | None = None
    site_pattern: str | None = None
    shard_pages: int = SHARD_PAGES


@dataclass
class BatchReport:
    """A run's totals (also written to DIR/report.json)."""

    sites: int = 0
    shards: int = 0
    shards_run: int = 0
    """Shards processed by this run (the others were complete from an earlier run)."""
    pages: int = 0
    """Pages in the output, this run's and earlier runs'."""
    pages_run: int = 0
    bad: dict[str, int] = field(default_factory=dict)
    other_sites: int = 0
    failed: list[str] = field(default_factory=list)
    """Shards that failed (site, shard, error); their site's later shards did not run."""
    errors: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    """Summed over this run's shards (`STEPS`), and elapsed: `startup` (the cluster),
    `index` (the index pass) and `wall` (the whole run)."""
    workers: int = 0
    peak_rss_mb: dict[str, float] = field(default_factory=dict)
    """Per worker process of this run, the peak resident memory its shards reported."""
    dashboard: str = ""

    def summary(self) -> str:
        wall = self.seconds.get("wall", 0.0)
        rate = f", {self.pages_run / wall:.1f} pages/s" if wall and self.pages_run else ""
        lines = [f"winnow: {self.pages} pages of {self.sites} sites in {self.shards} shards; "
                 f"this run: {self.shards_run} shards, {self.pages_run} pages in {wall:.1f} s"
                 f"{rate} on {self.workers} workers",
                 f"winnow: bad records: {describe_bad(self.bad)}"]
        if self.other_sites:
            lines.append(f"winnow: {self.other_sites} pages of sites not matching the pattern")
        lines += [f"winnow: failed: {failure}" for failure in self.failed]
        return "\n".join(lines)


def run_batch(options: BatchOptions, log: TextIO = sys.stderr,
              progress: bool = False) -> BatchReport:
    """Run a batch on a local cluster or on `options.scheduler`; write DIR/report.json."""
    started = time.perf_counter()
    inputs = _check(options)
    layout = OutputLayout(options.output)
    report = BatchReport()
    with _client(options) as client:
        report.dashboard = str(client.dashboard_link or "")
        report.workers = len(client.scheduler_info(n_workers=-1)["workers"])
        print(f"winnow: Dask dashboard at {report.dashboard} ({report.workers} workers)",
              file=log, flush=True)
        up = time.perf_counter()
        report.seconds["startup"] = round(up - started, 3)
        indexes = _index(client, inputs, options.site_pattern)
        report.seconds["index"] = round(time.perf_counter() - up, 3)
        shards = plan_shards((ref for ix in indexes for ref in ix.refs), inputs,
                             options.shard_pages)
        run = uuid.uuid4().hex[:12]
        futures = _submit(client, _todo(layout, shards, options.fmt), inputs,
                          str(layout.root), options.fmt, run)
        _follow(futures, report, log if progress else None)
    _totals(report, layout, shards, indexes, run, options.fmt)
    report.seconds["wall"] = round(time.perf_counter() - started, 3)
    write_json(layout.report, asdict(report))
    return report


def _check(options: BatchOptions) -> list[str]:
    """The inputs as absolute paths (workers may run elsewhere); ValueError for a bad run."""
    if options.fmt not in FORMATS:
        raise ValueError(f"unknown format {options.fmt!r}: use one of {', '.join(FORMATS)}")
    if options.workers is not None and options.workers < 1:
        raise ValueError("--workers must be at least 1")
    if options.shard_pages < 1:
        raise ValueError("--shard-pages must be at least 1")
    if not options.inputs:
        raise ValueError("no input given")
    missing = [p for p in options.inputs if not Path(p).is_file()]
    if missing:
        raise ValueError(f"input not found: {', '.join(missing)}")
    try:
        import distributed  # noqa: F401
        if options.fmt == "parquet":
            import pyarrow  # noqa: F401
    except ImportError as exc:
        raise ValueError(f"winnow batch needs the batch extra: pip install 'winnow[batch]' "
                         f"({exc})") from exc
    options.output.mkdir(parents=True, exist_ok=True)
    return [str(Path(p).resolve()) for p in options.inputs]


@contextmanager
def _client(options: BatchOptions) -> Iterator[Any]:
    """A Dask client of the given scheduler, else of a local cluster started for the run."""
    import logging

    from distributed import Client, LocalCluster

    if options.scheduler:
        with Client(options.scheduler) as client:
            yield client
        return
    workers = options.workers or os.cpu_count() or 1
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host=LOCAL_HOST, dashboard_address=f"{LOCAL_HOST}:{DASHBOARD_PORT}",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        yield client


def _index(client: Any, inputs: list[str], site_pattern: str | None) -> list[FileIndex]:
    """Index every input in parallel, one task per file."""
    futures = client.map(index_file, inputs, range(len(inputs)), site_pattern=site_pattern,
                         pure=False)
    indexes: list[FileIndex] = client.gather(futures)
    return indexes


def _todo(layout: OutputLayout, shards: list[Shard], fmt: str) -> list[Shard]:
    """Shards to run: of each site, from its first incomplete shard on."""
    todo: list[Shard] = []
    resuming: set[str] = set()
    for shard in shards:
        if shard.site in resuming or completed(layout, shard, fmt) is None:
            resuming.add(shard.site)
            todo.append(shard)
    return todo


def _submit(client: Any, shards: list[Shard], inputs: list[str], output: str,
            fmt: str, run: str) -> list[Any]:
    """One task per shard, each taking its site's previous one; bigger sites first."""
    site_pages: Counter[str] = Counter()
    for shard in shards:
        site_pages[shard.site] += shard.pages
    futures: list[Any] = []
    previous: dict[str, Any] = {}
    for n, shard in enumerate(shards):
        future = client.submit(process_shard, shard, inputs, output, fmt, run,
                               previous.get(shard.site), key=f"winnow-shard-{run}-{n}",
                               priority=site_pages[shard.site], pure=False)
        previous[shard.site] = future
        futures.append(future)
    return futures


def _follow(futures: list[Any], report: BatchReport, bar: TextIO | None) -> None:
    """Wait for every shard, drawing a progress bar on `bar`; failures go to the report,
    never raised. Each future is let go when it ends (its model stays on the worker only
    until the site's next shard has taken it), and results are never fetched: the markers
    say what each shard did."""
    from distributed import as_completed

    if bar is not None:
        _progress(0, len(futures), bar)
    for n, future in enumerate(as_completed(futures), 1):
        if future.status != "finished":
            exc = future.exception()
            report.failed.append(f"{future.key}: {type(exc).__name__}: {exc}")
        future.release()
        if bar is not None:
            _progress(n, len(futures), bar)
    if bar is not None and futures:
        print(file=bar)
    futures.clear()


def _totals(report: BatchReport, layout: OutputLayout, shards: list[Shard],
            indexes: list[FileIndex], run: str, fmt: str) -> None:
    """Fill the report from the index and every shard's marker (this run's and earlier)."""
    bad: Counter[str] = Counter()
    for index in indexes:
        bad.update(index.bad)
        report.other_sites += index.other_sites
    seconds: Counter[str] = Counter()
    peaks: dict[str, float] = defaultdict(float)
    for shard in shards:
        done = completed(layout, shard, fmt)
        if done is None:
            continue
        report.pages += done.pages
        bad.update(done.bad)
        if done.run == run:
            report.shards_run += 1
            report.pages_run += done.pages
            seconds.update(done.seconds)
            peaks[done.worker] = max(peaks[done.worker], done.peak_rss_mb)
            report.errors += done.errors
    report.sites = len({shard.site for shard in shards})
    report.shards = len(shards)
    report.bad = dict(sorted(bad.items()))
    report.seconds.update({k: round(v, 3) for k, v in seconds.items()})
    report.peak_rss_mb = dict(peaks)


# --- command line -------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `winnow batch` options."""
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="WARC files (.warc, .warc.gz) or JSON lines of export-corpus")
    parser.add_argument("--output", "-o", type=Path, default=Path("winnow-batch"),
                        help="output folder (default ./winnow-batch)")
    parser.add_argument("--format", choices=FORMATS, default="parquet",
                        help="format of the extracted pages (default parquet)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on this Dask scheduler (tcp://host:8786) instead of a "
                             "local cluster")
    parser.add_argument("--workers", type=int,
                        help="worker processes of the local cluster (default: one per core)")
    parser.add_argument("--site-pattern", metavar="GLOB",
                        help="only sites whose name matches this shell pattern")
    parser.add_argument("--shard-pages", type=int, default=SHARD_PAGES,
                        help=f"pages of a site per task (default {SHARD_PAGES})")


def main_batch(args: argparse.Namespace) -> int:
    """Run `winnow batch`; 1 when a shard failed, else 0 (bad records are not failures)."""
    options = BatchOptions(args.inputs, args.output, args.format, args.scheduler,
                           args.workers, args.site_pattern, args.shard_pages)
    report = run_batch(options, sys.stderr, progress=sys.stdout.isatty())
    print(report.summary(), file=sys.stderr)
    return 1 if report.failed else 0
