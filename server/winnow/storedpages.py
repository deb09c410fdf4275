"""How a page's HTML is kept in the store: zlib-compressed with its size and content hash,
and read back only when it inflates to exactly what was stored."""

from __future__ import annotations

import hashlib
import logging
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from winnow.page import MAX_PAGE_BYTES, PageError, decode_html

log = logging.getLogger(__name__)

ZLIB_LEVEL = 6
"""zlib's default: the article corpus shrinks 4.5x (level 1: 3.9x, level 9: no better)."""


PAGE_COLUMNS = "id, site, url, title, seen_at, cluster, html_size, content_hash"



@dataclass(frozen=True)
class StoredPage:
    """One stored page. `raw` is the HTML as it was given (str input as UTF-8); it is empty
    when the page was listed without HTML or its stored data is corrupt (`corrupt` is True)."""

    id: int
    site: str
    url: str
    title: str | None
    seen_at: float
    cluster: int | None
    html_size: int
    content_hash: str
    raw: bytes = b""
    corrupt: bool = False

    @property
    def html(self) -> str:
        """Return the HTML as text, decoded like `winnow.page` decodes bytes; never raises."""
        return decode_html(self.raw) if self.raw else ""


@dataclass(frozen=True)
class PageBlob:
    """Page HTML ready to store: compressed bytes, original size and content hash."""

    data: bytes
    size: int
    digest: str

    @classmethod
    def of(cls, html: bytes | str) -> PageBlob:
        """Encode, check the size limit, compress and hash `html`; lone surrogates (which
        JSON can carry but UTF-8 cannot) become U+FFFD."""
        if isinstance(html, str):
            raw = html.encode("utf-8", errors="replace")
        elif isinstance(html, bytes):
            raw = html
        else:
            raise TypeError(f"expected HTML as bytes or str, got {type(html).__name__}")
        if len(raw) > MAX_PAGE_BYTES:
            raise PageError(f"page is {len(raw):,} bytes, over the {MAX_PAGE_BYTES:,}-byte limit")
        digest = hashlib.sha256(raw).hexdigest()
        return cls(zlib.compress(raw, ZLIB_LEVEL), len(raw), digest)


def page_from_row(row: Sequence[Any], with_html: bool) -> StoredPage:
    """Build a `StoredPage` from a row of `PAGE_COLUMNS` (plus html when `with_html`)."""
    page_id, site, url, title, seen_at, cluster, size, digest = row[:8]
    page = StoredPage(int(page_id), site, url, title, float(seen_at), cluster, int(size), digest)
    if not with_html:
        return page
    raw = inflate(row[8], int(size))
    if raw is None:
        log.warning("page %d of %s has corrupt stored HTML", page_id, site)
        return replace(page, corrupt=True)
    return replace(page, raw=raw)


def inflate(data: Any, size: int) -> bytes | None:
    """Decompress stored HTML, or return None when it is not what was stored: not zlib,
    truncated, or not `size` bytes (never inflating past that, whatever the data says)."""
    if not isinstance(data, bytes):
        return None
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data, size + 1)
    except zlib.error:
        return None
    return raw if len(raw) == size and inflater.eof else None
