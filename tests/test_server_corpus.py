"""The research corpus export: JSON lines and WARC, through the API and `winnow
export-corpus`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from server_helpers import article_page
from warcio.archiveiterator import ArchiveIterator
from winnow.cli import main
from winnow.corpus import export_corpus
from winnow.store import Store

SITE = "planet.example"


def filled(data_dir: Path) -> Store:
    store = Store.open(data_dir)
    for n in range(3):
        store.add_page(SITE, f"https://{SITE}/{n}", article_page(n), title=f"Report {n}",
                       cluster=1, seen_at=1_700_000_000 + n)
    store.add_page("other.example", "https://other.example/é", "<p>Ünïcode</p>".encode("cp1252"))
    return store


def test_jsonl_has_one_record_per_page(tmp_path: Path) -> None:
    with filled(tmp_path) as store:
        out = io.BytesIO()
        written = export_corpus(store, "jsonl", out, SITE)
    assert (written.pages, written.skipped) == (3, 0)
    records = [json.loads(line) for line in out.getvalue().decode("utf-8").splitlines()]
    assert [r["url"] for r in records] == [f"https://{SITE}/{n}" for n in range(3)]
    assert records[0]["html"] == article_page(0) and records[0]["title"] == "Report 0"
    assert records[0]["seen_at"] == "2023-11-14T22:13:20Z" and records[0]["cluster"] == 1
    assert len(records[0]["sha256"]) == 64


def test_warc_round_trips_through_warcio(tmp_path: Path) -> None:
    with filled(tmp_path) as store:
        out = io.BytesIO()
        written = export_corpus(store, "warc", out)
    assert written.pages == 4
    out.seek(0)
    records = list((r.rec_type, r.rec_headers.get_header("WARC-Target-URI"),
                    r.rec_headers.get_header("Content-Type"), r.content_stream().read())
                   for r in ArchiveIterator(out))
    assert records[0][0] == "warcinfo"
    pages = {uri: (kind, ctype, body) for kind, uri, ctype, body in records[1:]}
    kind, ctype, body = pages[f"https://{SITE}/1"]
    assert kind == "resource" and ctype == "text/html; charset=utf-8"
    assert body.decode("utf-8") == article_page(1)
    assert pages["https://other.example/é"][1] == "text/html"  # not UTF-8: no charset claimed


def test_unknown_format_is_refused(tmp_path: Path) -> None:
    with filled(tmp_path) as store, pytest.raises(ValueError, match="jsonl"):
        export_corpus(store, "zip", io.BytesIO())


def test_cli_export_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    filled(tmp_path / "data").close()
    target = tmp_path / "corpus.warc.gz"
    assert main(["export-corpus", "--data-dir", str(tmp_path / "data"), "--site",
                 f"www.{SITE}", "--format", "warc", "--output", str(target)]) == 0
    assert "exported 3 pages" in capsys.readouterr().err
    with target.open("rb") as handle:
        assert sum(1 for r in ArchiveIterator(handle) if r.rec_type == "resource") == 3
