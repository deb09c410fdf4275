"""The research corpus: stored pages exported as JSON lines or as a WARC file.

`winnow export-corpus --site SITE --format jsonl|warc` writes the pages a site collected
(all sites without `--site`), oldest first, read from the store in batches so memory stays
flat however large the corpus. JSONL has one object per page (`FIELDS`, the HTML as text).
WARC (ISO 28500, written by warcio, gzipped per record) starts with a `warcinfo` record and
has one `resource` record per page: the HTML as the browser serialized it, with
`WARC-Target-URI`, `WARC-Date` (when the page was seen) and the page's cluster and site in
`WARC-Winnow-*` headers. Corrupt stored pages are skipped and counted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from typing import BinaryIO

from warcio.warcwriter import WARCWriter

from winnow import __version__
from winnow.store import Store
from winnow.storedpages import StoredPage

FORMATS = ("jsonl", "warc")
FIELDS = ("id", "site", "url", "title", "seen_at", "cluster", "sha256", "html")
"""The keys of a JSONL record, in order."""
WARC_FILENAME = "winnow-corpus.warc.gz"


@dataclass(frozen=True)
class Written:
    """What an export wrote: pages, and corrupt pages skipped."""

    pages: int
    skipped: int


def export_corpus(store: Store, fmt: str, out: BinaryIO, site: str | None = None) -> Written:
    """Write the pages of `site` (or of every site) to `out` in `fmt` ("jsonl" or "warc")."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown corpus format {fmt!r}: use one of {', '.join(FORMATS)}")
    pages, skipped = 0, 0
    writer = _WarcOut(out) if fmt == "warc" else None
    for page in _pages(store, site):
        if page.corrupt:
            skipped += 1
            continue
        if writer is None:
            out.write(json.dumps(jsonl_record(page), ensure_ascii=False).encode("utf-8") + b"\n")
        else:
            writer.page(page)
        pages += 1
    return Written(pages, skipped)


def _pages(store: Store, site: str | None) -> Iterator[StoredPage]:
    sites = [site] if site is not None else [info.site for info in store.sites()]
    for name in sites:
        yield from store.iter_pages(name)


def jsonl_record(page: StoredPage) -> dict[str, object]:
    """One page as a JSONL record (`FIELDS`); `seen_at` in ISO 8601 UTC."""
    return {"id": page.id, "site": page.site, "url": page.url, "title": page.title,
            "seen_at": iso_time(page.seen_at), "cluster": page.cluster,
            "sha256": page.content_hash, "html": page.html}


def iso_time(seconds: float) -> str:
    """Unix seconds as ISO 8601 UTC with a Z, as WARC-Date wants."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _WarcOut:
    """A WARC writer that starts with the warcinfo record."""

    def __init__(self, out: BinaryIO) -> None:
        self.writer = WARCWriter(out, gzip=True)
        info = self.writer.create_warcinfo_record(WARC_FILENAME, {
            "software": f"Winnow {__version__}",
            "format": "WARC File Format 1.1",
            "description": "Pages collected by the Winnow browser extension, as the browser "
                           "serialized them (data-wn ids stamped by the content script)"})
        self.writer.write_record(info)

    def page(self, page: StoredPage) -> None:
        record = self.writer.create_warc_record(
            page.url, "resource", payload=BytesIO(page.raw), length=len(page.raw),
            warc_content_type=_content_type(page.raw),
            warc_headers_dict={"WARC-Date": iso_time(page.seen_at),
                               "WARC-Winnow-Site": page.site,
                               "WARC-Winnow-Cluster": "" if page.cluster is None
                               else str(page.cluster),
                               "WARC-Winnow-Page-Id": str(page.id)})
        self.writer.write_record(record)


def _content_type(raw: bytes) -> str:
    """text/html, with the charset when the bytes are UTF-8 (all pages from the extension)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "text/html"
    return "text/html; charset=utf-8"
