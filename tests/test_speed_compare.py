"""`bench/speed.py compare` names the tune pages whose results differ and only counts the
others: the check part is read as aggregates only."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import speed  # noqa: E402


def _dump(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _row(page: str, part: str | None, text: str) -> dict[str, Any]:
    row: dict[str, Any] = {"set": "wcxb", "id": page, "result": {"main_text": text}}
    if part is not None:
        row["part"] = part
    return row


def test_compare_names_tune_pages_and_counts_the_rest(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    before = _dump(tmp_path / "a.jsonl", [_row("t1", "tune", "a"), _row("c1", "check", "a"),
                                          _row("u1", None, "a"), _row("t2", "tune", "same")])
    after = _dump(tmp_path / "b.jsonl", [_row("t1", "tune", "b"), _row("c1", "check", "b"),
                                         _row("u1", None, "b"), _row("t2", "tune", "same")])
    assert speed.compare(before, after) == 1
    out = capsys.readouterr().out
    assert "wcxb/t1: .result.main_text" in out
    assert "c1" not in out and "u1" not in out and "t2" not in out
    assert "4 vs 4 pages, 3 differ (2 of them check pages or pages of unknown part" in out


def test_compare_of_identical_dumps_passes(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    rows = [_row("t1", "tune", "a"), _row("c1", "check", "a")]
    assert speed.compare(_dump(tmp_path / "a.jsonl", rows), _dump(tmp_path / "b.jsonl", rows)) == 0
    assert capsys.readouterr().out.strip() == "2 vs 2 pages, 0 differ"


def test_a_dump_without_parts_compares_with_one_that_has_them(tmp_path: Path) -> None:
    old = _dump(tmp_path / "a.jsonl", [_row("t1", None, "a")])
    assert speed.compare(old, _dump(tmp_path / "b.jsonl", [_row("t1", "tune", "a")])) == 0
