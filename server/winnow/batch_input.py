"""Reading a crawl for `winnow batch`: index the records of an input file, then read pages
back one at a time by offset.

Inputs are WARC files (`.warc`, or `.warc.gz` gzipped per record, as crawlers and `winnow
export-corpus` write them), read with warcio, or JSON lines as `winnow export-corpus
--format jsonl` writes them (`site`, `url`, `seen_at`, `html`). The index pass streams a file
once and keeps, per usable page, only where it lies (`RecordRef`); bad records are counted
by kind (`batch_plan.BAD_KINDS`). A task later reads its own pages by offset, so no process
ever holds more than one page of the crawl.

WARC records taken as pages are `response` records (the HTTP body, decoded) with a 2xx
status and `resource` records (what `export-corpus` writes); both must be HTML by their media
type, or have none. Other record types (`request`, `metadata`, `warcinfo`, ...) are not
pages and are not counted as bad.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any, BinaryIO

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord

from winnow.batch_plan import (
    BINARY_PROBE_BYTES,
    RecordRef,
    is_html_type,
    looks_binary,
    matches_pattern,
)
from winnow.page import MAX_PAGE_BYTES
from winnow.sitekeys import normalize_site, site_key

PAGE_RECORD_TYPES = ("response", "resource")
"""WARC record types that carry a page."""

SITE_HEADER = "WARC-Winnow-Site"
"""The header `winnow export-corpus` names each page's site in; else the URL's host is the
site."""

READ_CHUNK = 1 << 16


class BadRecord(Exception):
    """A record that is not a usable page; `kind` is one of `batch_plan.BAD_KINDS`."""

    def __init__(self, kind: str, message: str = "") -> None:
        super().__init__(message or kind)
        self.kind = kind


@dataclass
class FileIndex:
    """The usable pages of one input file, and the bad records met."""

    refs: list[RecordRef] = field(default_factory=list)
    bad: Counter[str] = field(default_factory=Counter)
    other_sites: int = 0
    """Pages left out by `--site-pattern`."""


def is_jsonl(path: str) -> bool:
    """JSON lines by the file name (.jsonl, .ndjson, .json; uncompressed); everything else
    is read as WARC."""
    return Path(path).suffix.lower() in (".jsonl", ".ndjson", ".json")


def index_file(path: str, file_id: int, site_pattern: str | None = None) -> FileIndex:
    """Stream one input file and index its pages (a Dask task: one per input file)."""
    index = FileIndex()
    with open(path, "rb") as handle:
        if is_jsonl(path):
            _index_jsonl(handle, file_id, site_pattern, index)
            return index
        _index_warc(handle, file_id, site_pattern, index)
    if index.refs:
        _check_seekable(path, index.refs[0])
    return index


def _check_seekable(path: str, ref: RecordRef) -> None:
    """Refuse a WARC whose records can't be read back by offset: one gzip stream over the
    whole file instead of one per record."""
    with PageReader([path]) as reader:
        try:
            reader.read(RecordRef(0, ref.offset, ref.length, ref.url, ref.site, ref.date))
        except BadRecord as bad:
            if bad.kind == "unreadable":
                raise ValueError(f"{path}: records cannot be read by offset (gzipped as one "
                                 "stream, not per record?); recompress it with `warcio "
                                 "recompress`") from bad


def _keep(index: FileIndex, ref: RecordRef, site_pattern: str | None) -> None:
    if matches_pattern(ref.site, site_pattern):
        index.refs.append(ref)
    else:
        index.other_sites += 1


# --- WARC ---------------------------------------------------------------------------------------

def _index_warc(handle: BinaryIO, file_id: int, site_pattern: str | None,
                index: FileIndex) -> None:
    records = ArchiveIterator(handle)
    end = 0
    try:
        for record in records:
            cut_short = _drain(record)
            offset = records.get_record_offset()
            records.read_to_end()
            end = offset + records.get_record_length()
            if record.rec_type not in PAGE_RECORD_TYPES:
                continue
            if cut_short:
                index.bad["truncated"] += 1
                continue
            try:
                url, site, date = _describe_warc(record)
            except BadRecord as bad:
                index.bad[bad.kind] += 1
                continue
            _keep(index, RecordRef(file_id, offset, end - offset, url, site, date),
                  site_pattern)
    except (ArchiveLoadFailed, ValueError, EOFError, OSError):
        index.bad["unreadable"] += 1  # the rest of the file cannot be resynchronised
        return
    if _has_trailing_record(handle, end):
        index.bad["truncated"] += 1


def _drain(record: ArcWarcRecord) -> bool:
    """Read a record's remaining bytes without keeping them; True when the file ended
    before its declared length."""
    stream = record.raw_stream
    while stream.read(READ_CHUNK):
        pass
    return bool(getattr(stream, "limit", 0))


def _has_trailing_record(handle: BinaryIO, end: int) -> bool:
    """Whether bytes past the last whole record (beyond the blank lines that close it) hold a
    record cut short: warcio silently drops a gzip member that ends early."""
    handle.seek(end)
    return bool(handle.read(READ_CHUNK).strip())


def _describe_warc(record: ArcWarcRecord) -> tuple[str, str, str]:
    """A page record's URL, site and date; BadRecord when it is no usable page."""
    headers = record.rec_headers
    if record.rec_type == "response":
        http = record.http_headers
        if http is None:
            raise BadRecord("unreadable", "response without HTTP headers")
        status = http.get_statuscode() or ""
        if not status.startswith("2"):
            raise BadRecord("http_status")
        content_type = http.get_header("Content-Type")
    else:
        content_type = headers.get_header("Content-Type")
    if is_html_type(content_type) is False:
        raise BadRecord("not_html")
    length = int(headers.get_header("Content-Length") or 0)
    if length > MAX_PAGE_BYTES:
        raise BadRecord("too_large")
    url = (headers.get_header("WARC-Target-URI") or "").strip()
    return url, _site_of(url, headers.get_header(SITE_HEADER)), \
        headers.get_header("WARC-Date") or ""


def _site_of(url: str, named: str | None) -> str:
    """The record's site, interned: every page of a site shares one string."""
    try:
        return sys.intern(normalize_site(named) if named else site_key(url))
    except ValueError as exc:
        raise BadRecord("no_site", str(exc)) from exc


# --- JSON lines ---------------------------------------------------------------------------------

def _index_jsonl(handle: BinaryIO, file_id: int, site_pattern: str | None,
                 index: FileIndex) -> None:
    offset = 0
    for line in handle:
        length = len(line)
        try:
            if line.strip():
                url, site, date = _describe_json(_json_record(line))
                _keep(index, RecordRef(file_id, offset, length, url, site, date), site_pattern)
        except BadRecord as bad:
            index.bad[bad.kind] += 1
        offset += length


def _json_record(line: bytes) -> dict[str, Any]:
    if not line.endswith(b"\n"):
        raise BadRecord("truncated", "last line has no newline")
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadRecord("unreadable", f"not a JSON line: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("html"), str):
        raise BadRecord("unreadable", "a JSON line without an html string")
    return data


def _describe_json(data: dict[str, Any]) -> tuple[str, str, str]:
    url = data.get("url") if isinstance(data.get("url"), str) else ""
    site = data.get("site") if isinstance(data.get("site"), str) else None
    if len(data["html"]) > MAX_PAGE_BYTES:
        raise BadRecord("too_large")
    date = data.get("seen_at") if isinstance(data.get("seen_at"), str) else ""
    return str(url), _site_of(str(url), site), str(date)


# --- reading pages back -------------------------------------------------------------------------

class PageReader:
    """Reads pages by their `RecordRef`, keeping each input file open once per task."""

    def __init__(self, inputs: list[str]) -> None:
        self.inputs = inputs
        self.handles: dict[int, BinaryIO] = {}

    def __enter__(self) -> PageReader:
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self.handles.values():
            handle.close()
        self.handles.clear()

    def read(self, ref: RecordRef) -> bytes | str:
        """The page's HTML (bytes from WARC, text from JSON lines); BadRecord when it is
        not usable after all (binary, or the file changed under the index)."""
        handle = self.handles.get(ref.file)
        if handle is None:
            handle = self.handles[ref.file] = open(self.inputs[ref.file], "rb")
        handle.seek(ref.offset)
        data = handle.read(ref.length)
        if len(data) < ref.length:
            raise BadRecord("truncated", "the input is shorter than when it was indexed")
        if is_jsonl(self.inputs[ref.file]):
            html: str = _json_record(data)["html"]
            if looks_binary(html[:BINARY_PROBE_BYTES].encode("utf-8", "replace")):
                raise BadRecord("binary")
            return html
        payload = _warc_payload(data)
        if looks_binary(payload):
            raise BadRecord("binary")
        return payload


def _warc_payload(data: bytes) -> bytes:
    try:
        record = next(iter(ArchiveIterator(BytesIO(data))))
        payload: bytes = record.content_stream().read()
    except (StopIteration, ArchiveLoadFailed, ValueError, EOFError, OSError) as exc:
        raise BadRecord("unreadable", str(exc)) from exc
    return payload
