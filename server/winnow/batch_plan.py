"""Planning a `winnow batch` run: which records make which task, in which order, and where
each task's output goes. Pure: no I/O, no clock.

A crawl is first indexed (`winnow.batch_input`): every usable record becomes a `RecordRef`,
where it lies in which input and which site and date it has, never its content. The plan
groups the references by site, orders each site's pages by `WARC-Date` (browsing order: a
page is extracted with what its site learned from the pages before it) and cuts a site of
more than `SHARD_PAGES` pages into shards that run one after the other, each starting from
the model the previous one left. Each shard carries a fingerprint of its records and of every
record before it in its site, so a rerun knows whether a finished shard still stands for the
same input.
"""

from __future__ import annotations

import fnmatch
import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

SHARD_PAGES = 1000
"""Pages of one site a task processes at most. A site's shards learn in order, so this does
not make a site faster; it bounds what a killed worker loses and how long one task holds a
worker (at a few pages per second, minutes), and lets a site's progress be checkpointed."""

HTML_TYPES = ("text/html", "application/xhtml+xml")
"""Media types of records taken as pages; a record without a type is sniffed instead."""

BINARY_PROBE_BYTES = 4096
"""Leading bytes of a payload searched for a NUL byte: HTML never has one there, images,
archives and PDFs almost always do."""

BAD_KINDS = {
    "not_html": "response or resource records of another media type",
    "http_status": "HTTP responses other than 2xx",
    "truncated": "records cut short (the file ends inside them)",
    "unreadable": "records that could not be parsed (broken headers, bad JSON line)",
    "no_site": "records without a URL or site to group them by",
    "too_large": "payloads over the page size limit",
    "binary": "payloads that are not text (a NUL byte in their first bytes)",
    "failed": "pages the extractor refused (empty, undecodable)",
}
"""Kinds of bad records, counted and reported, never fatal."""

FORMATS = ("parquet", "jsonl")
"""Output formats of the extracted pages."""


@dataclass(frozen=True, slots=True)
class RecordRef:
    """Where one page lies in the input, and what the plan orders it by. The run's client
    holds one per page (about 200 bytes with its URL), the only per-page state it keeps."""

    file: int
    """Index of the input file in the run's list of inputs."""
    offset: int
    length: int
    url: str
    site: str
    date: str
    """`WARC-Date` (or the JSON line's `seen_at`) as written; empty when missing."""


@dataclass(frozen=True)
class Shard:
    """A run of consecutive pages of one site: the unit of work."""

    site: str
    index: int
    count: int
    """Shards of the site; the last one's model is the site's model."""
    records: tuple[RecordRef, ...]
    fingerprint: str
    """Digest of this shard's records and of every record before them in the site."""

    @property
    def last(self) -> bool:
        return self.index == self.count - 1

    @property
    def pages(self) -> int:
        return len(self.records)


def date_key(date: str) -> float:
    """Seconds since the epoch of an ISO 8601 date (`WARC-Date`); -inf when missing or
    unreadable, so undated records come first, in input order."""
    if not date:
        return -math.inf
    try:
        parsed = datetime.fromisoformat(date.strip())
    except ValueError:
        return -math.inf
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def browsing_order(refs: Iterable[RecordRef]) -> list[RecordRef]:
    """A site's records by date, ties in input order (file, then offset)."""
    return sorted(refs, key=lambda r: (date_key(r.date), r.file, r.offset))


def plan_shards(refs: Iterable[RecordRef], inputs: list[str],
                shard_pages: int = SHARD_PAGES) -> list[Shard]:
    """Group records by site, order each site's records by date and cut them into shards of
    at most `shard_pages`; sites by name. `inputs` name the files the refs point into (the
    fingerprint covers their names)."""
    if shard_pages < 1:
        raise ValueError("shard pages must be at least 1")
    by_site: dict[str, list[RecordRef]] = defaultdict(list)
    for ref in refs:
        by_site[ref.site].append(ref)
    shards: list[Shard] = []
    for site in sorted(by_site):
        ordered = browsing_order(by_site[site])
        count = math.ceil(len(ordered) / shard_pages)
        digest = hashlib.blake2b(site.encode(), digest_size=16)
        for index in range(count):
            records = tuple(ordered[index * shard_pages:(index + 1) * shard_pages])
            for ref in records:
                digest.update(f"\n{inputs[ref.file]}\t{ref.offset}\t{ref.length}\t{ref.url}\t"
                              f"{ref.date}".encode())
            shards.append(Shard(site, index, count, records, digest.copy().hexdigest()))
    return shards


def site_slug(site: str) -> str:
    """A site's name as one path component: percent-quoted, so distinct sites never share
    a folder and no name climbs out of it."""
    slug = quote(site, safe="")
    return "%2E" + slug[1:] if slug.startswith(".") else slug


def matches_pattern(site: str, pattern: str | None) -> bool:
    """Whether `--site-pattern` (a shell glob on the site name) keeps the site."""
    return pattern is None or fnmatch.fnmatchcase(site, pattern)


def is_html_type(content_type: str | None) -> bool | None:
    """Whether a record's media type is HTML; None when it has none (then the payload is
    sniffed)."""
    if not content_type or not content_type.strip():
        return None
    return content_type.split(";", 1)[0].strip().lower() in HTML_TYPES


def looks_binary(payload: bytes) -> bool:
    """Whether a payload is binary rather than (possibly mislabelled) HTML."""
    return b"\x00" in payload[:BINARY_PROBE_BYTES]


def describe_bad(bad: dict[str, int]) -> str:
    """Bad record counts as one line, 'none' when there are none."""
    parts = [f"{count} {kind}" for kind, count in sorted(bad.items()) if count]
    return ", ".join(parts) if parts else "none"
