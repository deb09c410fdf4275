"""The `winnow` command line: `winnow extract` in-process and through a subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from winnow import cli

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. "
            "Residents were pleased, mostly, though some objected. ")
PAGE = f"""<html><head><title>Budget passes</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Budget passes</h1><p>{SENTENCE * 2}</p>
<img src="/img/chart.png" alt="chart">
<p>More in <a href="../report.html">the full report, published today.</a> {SENTENCE}</p>
</article>
<footer>Copyright 2024, Example. All rights reserved.</footer>
</body></html>"""
OTHER = f"""<html><head><title>Second page</title></head><body>
<article><p>Le conseil s'est réuni mardi, et il a voté. {SENTENCE * 2}</p></article>
</body></html>"""
URL = "http://example.com/news/2024/budget.html"


@pytest.fixture
def pages(tmp_path: Path) -> tuple[Path, Path]:
    a = tmp_path / "a.html"
    b = tmp_path / "b.html"
    a.write_text(PAGE, "utf-8")
    b.write_text(OTHER, "utf-8")
    return a, b


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["extract", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def jsonl(out: str) -> list[dict[str, Any]]:
    lines = out.splitlines()
    assert all(line.strip() for line in lines)
    return [json.loads(line) for line in lines]


def test_jsonl_with_a_missing_file(capsys: pytest.CaptureFixture[str], pages: tuple[Path, Path],
                                   tmp_path: Path) -> None:
    a, b = pages
    missing = tmp_path / "missing.html"
    status, out, _ = run(capsys, "--format", "jsonl", str(a), str(missing), str(b))
    assert status == 1
    records = jsonl(out)
    assert len(records) == 3
    assert [r["path"] for r in records] == [str(a), str(missing), str(b)]
    good1, bad, good2 = records
    assert set(bad) == {"path", "error"}
    assert "No such file" in bad["error"]
    for good in (good1, good2):
        assert "error" not in good
        assert good["kind"] == "article"
        assert good["timing_ms"]["total"] >= 0
    assert good1["article"]["title"] == "Budget passes"
    assert "Residents were pleased" in good1["article"]["text"]
    assert "Copyright" not in good1["article"]["text"]
    assert good2["article"]["title"] == "Second page"
    assert "réuni mardi" in good2["article"]["text"]


def test_jsonl_reports_page_errors(capsys: pytest.CaptureFixture[str], pages: tuple[Path, Path],
                                   tmp_path: Path) -> None:
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"  \n")
    status, out, _ = run(capsys, "--format", "jsonl", str(empty), str(pages[0]))
    assert status == 1
    bad, good = jsonl(out)
    assert bad == {"path": str(empty), "error": "page is empty"}
    assert good["kind"] == "article"


def test_jsonl_all_good_exits_zero(capsys: pytest.CaptureFixture[str],
                                   pages: tuple[Path, Path]) -> None:
    status, out, err = run(capsys, "--format", "jsonl", *map(str, pages))
    assert status == 0
    assert err == ""
    assert [r["kind"] for r in jsonl(out)] == ["article", "article"]


def test_json_is_indented_record(capsys: pytest.CaptureFixture[str],
                                 pages: tuple[Path, Path]) -> None:
    status, out, _ = run(capsys, "--format", "json", str(pages[0]))
    assert status == 0
    assert out.startswith("{\n  ")
    record = json.loads(out)
    assert record["path"] == str(pages[0])
    assert record["article"]["title"] == "Budget passes"
    assert record["method"] == "econ"


def test_text_is_default(capsys: pytest.CaptureFixture[str], pages: tuple[Path, Path]) -> None:
    status, out, _ = run(capsys, str(pages[0]))
    assert status == 0
    status_text, out_text, _ = run(capsys, "--format", "text", str(pages[0]))
    assert status_text == 0 and out_text == out
    assert "Residents were pleased" in out
    assert "<p>" not in out and "Home" not in out and "Copyright" not in out
    assert out.endswith("\n") and not out.endswith("\n\n")


def test_text_of_two_files_separated_by_blank_line(capsys: pytest.CaptureFixture[str],
                                                   pages: tuple[Path, Path]) -> None:
    _, first, _ = run(capsys, str(pages[0]))
    _, second, _ = run(capsys, str(pages[1]))
    status, out, _ = run(capsys, *map(str, pages))
    assert status == 0
    assert out == first + "\n" + second


def test_html_format(capsys: pytest.CaptureFixture[str], pages: tuple[Path, Path]) -> None:
    status, out, _ = run(capsys, "--format", "html", str(pages[0]))
    assert status == 0
    assert "<p>" in out and "Residents were pleased" in out
    assert "<nav" not in out and "<footer" not in out


def test_markdown_format(capsys: pytest.CaptureFixture[str], pages: tuple[Path, Path]) -> None:
    status, out, _ = run(capsys, "--format", "markdown", str(pages[0]))
    assert status == 0
    assert "Residents were pleased" in out
    assert "![" in out and "](" in out
    assert "<p>" not in out


def test_text_format_missing_file_goes_to_stderr(capsys: pytest.CaptureFixture[str],
                                                 pages: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    missing = tmp_path / "nope.html"
    status, out, err = run(capsys, str(missing), str(pages[0]))
    assert status == 1
    assert f"winnow: {missing}: No such file" in err
    assert "Residents were pleased" in out


def test_not_an_article_goes_to_stderr(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    menu = tmp_path / "menu.html"
    menu.write_text('<html><body><a href="/">Home</a></body></html>', "utf-8")
    status, out, err = run(capsys, str(menu))
    assert status == 0
    assert out == ""
    assert "not an article (other)" in err


def test_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(PAGE.encode("utf-8")), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    status, out, _ = run(capsys, "--format", "jsonl", "-")
    assert status == 0
    (record,) = jsonl(out)
    assert record["path"] == "-"
    assert record["article"]["title"] == "Budget passes"


def test_url_makes_links_and_images_absolute(capsys: pytest.CaptureFixture[str],
                                             pages: tuple[Path, Path]) -> None:
    status, out, _ = run(capsys, "--format", "json", "--url", URL, str(pages[0]))
    assert status == 0
    article = json.loads(out)["article"]
    assert 'src="http://example.com/img/chart.png"' in article["html"]
    assert 'href="http://example.com/news/report.html"' in article["html"]
    assert "http://example.com/img/chart.png" in article["markdown"]
    assert article["lead_image"] == "http://example.com/img/chart.png"


def test_without_url_links_stay_relative(capsys: pytest.CaptureFixture[str],
                                         pages: tuple[Path, Path]) -> None:
    status, out, _ = run(capsys, "--format", "html", str(pages[0]))
    assert status == 0
    assert "http://example.com" not in out
    assert "/img/chart.png" in out


@pytest.mark.parametrize("argv", [[], ["extract"], ["extract", "--format", "pdf", "x.html"],
                                  ["nosuch", "x.html"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_subprocess_module_entry(pages: tuple[Path, Path], tmp_path: Path) -> None:
    missing = tmp_path / "missing.html"
    proc = subprocess.run(
        [sys.executable, "-m", "winnow.cli", "extract", "--format", "jsonl", "--url", URL,
         "-", str(missing), str(pages[1])],
        input=PAGE.encode("utf-8"), capture_output=True, timeout=60, check=False)
    assert proc.returncode == 1, proc.stderr.decode(errors="replace")
    records = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]
    assert [r["path"] for r in records] == ["-", str(missing), str(pages[1])]
    assert records[0]["article"]["lead_image"] == "http://example.com/img/chart.png"
    assert set(records[1]) == {"path", "error"}
    assert "réuni mardi" in records[2]["article"]["text"]


def test_subprocess_text_exit_zero(pages: tuple[Path, Path]) -> None:
    proc = subprocess.run([sys.executable, "-m", "winnow.cli", "extract", str(pages[0])],
                          capture_output=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert "Residents were pleased" in proc.stdout.decode("utf-8")
