"""`winnow posts`: thread export as JSON, CSV, Markdown and JSON lines."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from winnow import cli

POST = ('<div class="post"><div class="meta"><a href="/members/{n}">{n}</a> '
        '<span>{d} March 2012 14:05</span></div><div class="body"><p>{t}</p></div></div>')
THREAD = ("<html><head><title>Pumps</title></head><body>"
          + "".join(POST.format(n=n, d=d, t=t) for n, d, t in (
              ("ann", 1, "Which pump should I buy?"), ("bob", 2, "=SUM(A1) a big one."),
              ("cy", 3, "Check the warranty.")))
          + "</body></html>")


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "thread.html"
    path.write_text(THREAD, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = cli.main(["posts", *argv])
    return status, capsys.readouterr().out


def test_json_export_has_title_and_posts(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "--format", "json", str(page))
    assert status == 0
    data = json.loads(out)
    assert data["title"] == "Pumps"
    assert [p["author"] for p in data["posts"]] == ["ann", "bob", "cy"]
    assert data["posts"][0]["text"].startswith("Which pump")


def test_csv_export_defuses_formulas(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "--format", "csv", str(page))
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["author"] for r in rows] == ["ann", "bob", "cy"]
    assert rows[1]["text"].startswith("'=SUM")


def test_markdown_export_has_a_heading_per_post(page: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "--format", "markdown", str(page))
    assert status == 0
    assert out.startswith("# Pumps")
    assert out.count("\n## ") == 3


def test_jsonl_reports_bad_inputs_and_goes_on(page: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "--format", "jsonl", str(tmp_path / "missing.html"), str(page))
    assert status == 1
    lines = [json.loads(line) for line in out.splitlines()]
    assert "error" in lines[0]
    assert lines[1]["kind"] == "thread" and len(lines[1]["posts"]) == 3
