"""`winnow batch` on a real Dask LocalCluster (2 worker processes): the same results as
`winnow extract --learn` per site, a worker killed mid-run, reruns and resumes, bad records.

The crawl is built here with warcio from pages of the shared sites set: 3 sites, pages dated
in each site's year order but written to two WARC files out of order, so the run must group
and sort them. Shards of 2 pages make every site but one span several tasks.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

if not os.environ.get("CI"):  # make test installs the batch extra: CI must run these
    pytest.importorskip("distributed")
    pytest.importorskip("pyarrow")

import cloudpickle  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from distributed.diagnostics.plugin import WorkerPlugin  # noqa: E402
from helpers import site_year_groups  # noqa: E402
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402
from winnow import batch_plan, cli  # noqa: E402
from winnow.batch import BatchOptions, BatchReport, process_shard, run_batch  # noqa: E402
from winnow.batch_input import index_file  # noqa: E402
from winnow.batch_output import OutputLayout, read_pages  # noqa: E402
from winnow.corpus import export_corpus  # noqa: E402
from winnow.learning import Learner  # noqa: E402
from winnow.sitemodel import SiteModel  # noqa: E402
from winnow.store import Store  # noqa: E402

CHOSEN = {("bbc", "2005"): 3, ("bbc", "2009"): 2, ("cnn", "2013"): 3, ("foxnews", "2017"): 2}
"""Pages taken per site-year: bbc learns across a template change (5 pages, 3 shards)."""
SHARD_PAGES = 2
VOLATILE = ("timing_ms",)
"""Fields that differ between two runs of the same extraction."""


@dataclass(frozen=True)
class Page:
    site: str
    url: str
    date: str
    path: Path
    html: bytes


# --- the crawl ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pages() -> list[Page]:
    groups = site_year_groups()
    chosen: list[Page] = []
    for (site, year), count in CHOSEN.items():
        for i, case in enumerate(groups[(site, year)][:count]):
            name = case.id.rsplit("/", 1)[-1]
            chosen.append(Page(f"{site}.example", f"https://{site}.example/{year}/{name}.html",
                               f"{year}-03-01T10:00:{i:02d}Z", case.path, case.html))
    return chosen


def response(writer: WARCWriter, url: str, body: bytes, date: str, *, status: str = "200 OK",
             content_type: str = "text/html; charset=utf-8") -> None:
    http = StatusAndHeaders(status, [("Content-Type", content_type)], protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(
        url, "response", payload=io.BytesIO(body), http_headers=http,
        warc_headers_dict={"WARC-Date": date}))


def resource(writer: WARCWriter, url: str, body: bytes, date: str, content_type: str) -> None:
    writer.write_record(writer.create_warc_record(
        url, "resource", payload=io.BytesIO(body), length=len(body),
        warc_content_type=content_type, warc_headers_dict={"WARC-Date": date}))


BAD = {"binary": 1, "http_status": 1, "no_site": 1, "not_html": 2, "truncated": 1}
"""The bad records `crawl` writes, by kind."""


@pytest.fixture(scope="module")
def crawl(pages: list[Page], tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two WARC files: the good pages in reverse order, split between a gzipped and a plain
    file, with bad records among them and a record cut short at the end of the gzipped one."""
    folder = tmp_path_factory.mktemp("crawl")
    first, second = folder / "one.warc.gz", folder / "two.warc"
    ordered = list(reversed(pages))
    with open(first, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        for page in ordered[::2]:
            response(writer, page.url, page.html, page.date)
        response(writer, "https://bbc.example/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00",
                 "2005-03-01T10:00:00Z", content_type="image/png")
        response(writer, "https://bbc.example/missing", b"<html>gone</html>",
                 "2005-03-01T10:00:00Z", status="404 Not Found")
        writer.write_record(writer.create_warc_record(
            "https://cnn.example/", "request", payload=io.BytesIO(b"GET / HTTP/1.1\r\n\r\n"),
            warc_headers_dict={"WARC-Date": "2013-03-01T10:00:00Z"}))
    with open(second, "wb") as out:
        writer = WARCWriter(out, gzip=False)
        for page in ordered[1::2]:
            response(writer, page.url, page.html, page.date)
        resource(writer, "https://cnn.example/blob", b"<html>\x00\x01\x02\x03</html>",
                 "2013-03-01T10:00:00Z", "text/html")
        resource(writer, "https://cnn.example/data", b"\x00\x00\x00 binary", "2013-03-01",
                 "application/octet-stream")
        resource(writer, "page-without-host.html", b"<html><p>Hi</p></html>",
                 "2013-03-01T10:00:00Z", "text/html")
    cut = io.BytesIO()
    response(WARCWriter(cut, gzip=True), "https://foxnews.example/cut", pages[0].html,
             "2017-03-01T10:00:00Z")
    with open(first, "ab") as out:
        out.write(cut.getvalue()[:len(cut.getvalue()) // 2])
    return [str(first), str(second)]


# --- the reference: what winnow extract --learn does, in this process ---------------------------

def extract_learn(pages: list[Page], data_dir: Path, restart_after: int | None = None
                  ) -> dict[str, list[dict[str, Any]]]:
    """Per site, its pages in date order through one `Learner` on a store, as `winnow extract
    --learn` runs them (`cli.run_extract`: read the file, `Learner.browse` with the page's
    URL), in one process; with `restart_after`, the learner saves its models and a new one
    takes over after that many pages of each site (as a second command would)."""
    results: dict[str, list[dict[str, Any]]] = {}
    with Store.open(data_dir) as store:
        learner = Learner(store)
        for page in sorted(pages, key=lambda p: (p.site, p.date)):
            done = results.setdefault(page.site, [])
            if restart_after is not None and len(done) == restart_after:
                learner.save()
                learner = Learner(store)
            result, _ = learner.browse(page.site, page.path.read_bytes(), page.url, page.url)
            done.append(stable(result.to_dict()))
        learner.save()
    return results


@pytest.fixture(scope="module")
def expected(pages: list[Page], tmp_path_factory: pytest.TempPathFactory
             ) -> dict[str, list[dict[str, Any]]]:
    return extract_learn(pages, tmp_path_factory.mktemp("learn"))


def stable(row: dict[str, Any]) -> dict[str, Any]:
    """An extraction's fields without timings."""
    return {k: v for k, v in row.items() if k not in VOLATILE}


def by_site(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Output rows per site in date order, as `Extraction.to_dict()` fields (the extra
    columns checked and dropped)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: (r["site"], r["warc_date"])):
        assert row["site"] in row["url"]
        grouped.setdefault(row.pop("site"), []).append(stable(
            {k: v for k, v in row.items() if k != "warc_date"}))
    return grouped


# --- the cluster --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as local:
        yield local


def run(crawl: list[str], output: Path, cluster: LocalCluster, fmt: str = "parquet"
        ) -> BatchReport:
    options = BatchOptions(crawl, output, fmt, scheduler=cluster.scheduler_address,
                           shard_pages=SHARD_PAGES)
    return run_batch(options, io.StringIO())


@pytest.fixture(scope="module")
def first_run(crawl: list[str], cluster: LocalCluster,
              tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BatchReport]:
    output = tmp_path_factory.mktemp("batch")
    return output, run(crawl, output, cluster)


def test_batch_gives_extract_learn_results_per_site(
        first_run: tuple[Path, BatchReport], pages: list[Page],
        expected: dict[str, list[dict[str, Any]]]) -> None:
    output, report = first_run
    assert report.failed == [] and report.workers == 2
    assert report.sites == 3 and report.shards == 3 + 2 + 1  # cnn has a binary record
    assert report.pages == report.pages_run == len(pages)
    rows = read_pages(output)
    assert sorted(r["url"] for r in rows) == sorted(p.url for p in pages)
    assert {r["warc_date"] for r in rows} == {p.date for p in pages}
    got = by_site(rows)
    assert got.keys() == expected.keys()
    for site, results in expected.items():
        assert got[site] == results, site
    assert any(r["method"] == "template+econ" for r in got["bbc.example"])
    model = json.loads((output / "models" / "bbc.example.json").read_text())
    assert SiteModel.from_json(model).pages_seen == 5
    assert set(report.seconds) >= {"read", "extract", "learn", "write", "index", "wall"}


def test_bad_records_are_counted_not_fatal(first_run: tuple[Path, BatchReport]) -> None:
    _, report = first_run
    assert report.bad == BAD
    assert report.failed == []


def test_rerun_does_no_work(first_run: tuple[Path, BatchReport], crawl: list[str],
                            cluster: LocalCluster) -> None:
    output, _ = first_run
    before = {p: p.stat().st_mtime_ns for p in output.rglob("*") if p.is_file()
              and p.name != "report.json"}
    again = run(crawl, output, cluster)
    assert again.shards_run == 0 and again.pages_run == 0
    assert again.pages == sum(CHOSEN.values())
    after = {p: p.stat().st_mtime_ns for p in output.rglob("*") if p.is_file()
             and p.name != "report.json"}
    assert after == before


def test_a_killed_job_resumes_from_its_first_missing_shard(
        first_run: tuple[Path, BatchReport], crawl: list[str], cluster: LocalCluster,
        pages: list[Page], expected: dict[str, list[dict[str, Any]]], tmp_path: Path) -> None:
    """The site goes on from the model its last finished shard saved, as `extract --learn`
    goes on after a restart; the other sites are not run again."""
    output = tmp_path / "resumed"
    shutil.copytree(first_run[0], output)
    layout = OutputLayout(output)
    layout.marker("bbc.example", 1).unlink()  # as if killed before shard 1 was marked done
    again = run(crawl, output, cluster)
    assert again.shards_run == 2 and again.pages_run == 3  # bbc shards 1 and 2
    assert again.pages == len(pages) and again.failed == []
    restarted = extract_learn(pages, tmp_path / "learn", restart_after=SHARD_PAGES)
    got = by_site(read_pages(output))
    assert got["bbc.example"] == restarted["bbc.example"]
    assert got["cnn.example"] == expected["cnn.example"]


class KillFirstShard(WorkerPlugin):
    """Kills the worker process (SIGKILL, no cleanup) when a shard task starts executing,
    once across the cluster: the marker file decides which worker does it."""

    name = "kill-first-shard"

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish != "executing" or "winnow-shard" not in str(key):
            return
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_worker_is_retried_and_nothing_is_lost_or_duplicated(
        crawl: list[str], cluster: LocalCluster, pages: list[Page],
        expected: dict[str, list[dict[str, Any]]], tmp_path: Path) -> None:
    marker = tmp_path / "killed"
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with Client(cluster) as client:
        client.register_plugin(KillFirstShard(str(marker)))
        try:
            out = io.StringIO()
            with contextlib.redirect_stderr(out):
                status = cli.main(["batch", "--scheduler", cluster.scheduler_address,
                                   "--output", str(tmp_path / "out"), "--format", "jsonl",
                                   "--shard-pages", str(SHARD_PAGES), *crawl])
        finally:
            client.unregister_worker_plugin(KillFirstShard.name)
            cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert marker.exists()  # a worker was killed
    assert status == 0, out.getvalue()
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["failed"] == [] and report["pages"] == len(pages)
    rows = read_pages(tmp_path / "out")
    assert sorted(r["url"] for r in rows) == sorted(p.url for p in pages)  # once each
    assert by_site(rows) == expected
    assert "bad records: 1 binary" in out.getvalue()


# --- in one process: JSON lines input, the plan ---------------------------------------------------

@pytest.mark.parametrize("fmt", ["jsonl", "warc"])
def test_export_corpus_output_gives_the_same_pages(
        fmt: str, pages: list[Page], expected: dict[str, list[dict[str, Any]]],
        tmp_path: Path) -> None:
    """What `winnow export-corpus` writes (JSON lines or WARC of resource records naming
    their site), run in one process, shard by shard."""
    cnn = [p for p in pages if p.site == "cnn.example"]
    with Store.open(tmp_path / "store") as store:
        for n, page in enumerate(cnn):
            store.add_page(page.site, page.url, page.html, seen_at=1_360_000_000 + n)
        corpus = tmp_path / f"corpus.{fmt}"
        with open(corpus, "wb") as out:
            assert export_corpus(store, fmt, out).pages == len(cnn)
    if fmt == "jsonl":
        with open(corpus, "a", encoding="utf-8") as out:
            out.write("{not json\n")
            out.write(json.dumps({"url": "https://x.example/", "html": "<p>cut"}))
    index = index_file(str(corpus), 0)
    assert dict(index.bad) == ({"unreadable": 1, "truncated": 1} if fmt == "jsonl" else {})
    shards = batch_plan.plan_shards(index.refs, [str(corpus)], shard_pages=SHARD_PAGES)
    assert [s.pages for s in shards] == [2, 1]
    first = process_shard(shards[0], [str(corpus)], str(tmp_path / "out"), "jsonl")
    assert first.model is not None and first.pages == 2
    last = process_shard(shards[1], [str(corpus)], str(tmp_path / "out"), "jsonl", after=first)
    assert last.model is None and last.pages == 1  # the site's last shard hands on no model
    assert by_site(read_pages(tmp_path / "out")) == {"cnn.example": expected["cnn.example"]}


def test_site_pattern_keeps_only_matching_sites(crawl: list[str]) -> None:
    index = index_file(crawl[0], 0, site_pattern="bbc.*")
    assert index.refs and {ref.site for ref in index.refs} == {"bbc.example"}
    assert index.other_sites > 0


def test_plan_orders_by_date_and_chains_fingerprints() -> None:
    refs = [batch_plan.RecordRef(0, n * 10, 10, f"https://a.example/{n}", "a.example", date)
            for n, date in enumerate(["2017-01-02T00:00:00Z", "2005-01-01T00:00:00Z",
                                      "2009-06-01T00:00:00.5Z", ""])]
    shards = batch_plan.plan_shards(refs, ["in.warc"], shard_pages=3)
    assert [s.pages for s in shards] == [3, 1] and [s.count for s in shards] == [2, 2]
    assert [r.offset for s in shards for r in s.records] == [30, 10, 20, 0]
    changed = batch_plan.plan_shards([*refs[:3], batch_plan.RecordRef(
        0, 30, 11, "https://a.example/3", "a.example", "")], ["in.warc"], shard_pages=3)
    assert all(a.fingerprint != b.fingerprint for a, b in zip(shards, changed, strict=True))
    assert "/" not in batch_plan.site_slug("../x") and not batch_plan.site_slug(
        "..").startswith(".")
