"""Export from the reader view: the downloaded file's name and content."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Browser

TITLE = "The quiet engineering of tide tables"


@pytest.fixture(scope="module")
def reader(browser: Browser) -> Any:
    started = browser.worker.evaluate("Date.now()")
    page = browser.open(browser.pages.url("/showcase"))
    reader = browser.open_reader(page)
    reader.started = started   # when this module's traffic began (the wire log is shared)
    yield reader
    reader.close()
    page.close()


def download(reader: Any, format_: str) -> tuple[str, str]:
    """Export through the reader's menu; return the suggested filename and the file's text."""
    reader.click("button[popovertarget='export-panel']")
    with reader.expect_download() as info:
        reader.click(f"#export-panel [data-format='{format_}']")
    done = info.value
    return done.suggested_filename, Path(done.path()).read_text("utf-8")


def test_export_markdown(reader: Any) -> None:
    name, text = download(reader, "markdown")
    assert name.endswith(".md") and "tide" in name
    assert TITLE in text
    assert "Every morning, before the first ferry leaves" in text
    assert "| M2 |" in text.replace("  ", " ") or "M2" in text


def test_export_json(reader: Any) -> None:
    name, text = download(reader, "json")
    assert name.endswith(".json")
    data = json.loads(text)
    assert TITLE in json.dumps(data)
    assert "harmonic constituents" in json.dumps(data)


def test_export_csv(reader: Any) -> None:
    name, text = download(reader, "csv")
    assert name.endswith(".csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) >= 2
    assert any("Every morning" in cell for row in rows for cell in row)


def test_exports_do_not_teach_the_server_the_page_again(browser: Browser, reader: Any) -> None:
    """The reader read the page once; the exports send copies with `export`, never another
    `page` (each `page` is a visit the server learns from)."""
    log = reader.evaluate("chrome.runtime.sendMessage({type: 'wire:log'})")["messages"]
    # Only this module's traffic: other test files read the same page and export too.
    sent = [entry["message"] for entry in log
            if entry["direction"] == "out" and entry["at"] >= reader.started]
    pages = [m for m in sent if m["type"] == "page" and m["url"].endswith("/showcase")]
    exports = [m for m in sent if m["type"] == "export"]
    assert len(pages) == 1 and len(exports) == 3
