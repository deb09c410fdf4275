"""The persistent store: pages per site, learned site models and settings in one SQLite file.

`Store.open(data_dir)` creates the directory and the database `winnow.sqlite3` in it, private
to the user (`winnow.datadir`: the folder 0700, the database and every other file in the
folder 0600, the `-wal` and `-shm` files too), reads or makes the install's secret
(`Store.secret`, the key of the site models' digests), and brings the schema up to date.
SQLite from the standard library, configured for a server that must never lose a page it
said it stored:

- WAL journal with `synchronous=NORMAL`. A commit appends the transaction to the `-wal` file
  with write(2) before `COMMIT` returns, so once a call here has returned, the transaction
  survives the process being killed (SIGKILL, crash): the bytes are in the OS page cache and
  the next open replays the WAL. Only an OS crash or power loss can drop the last few
  transactions since the previous checkpoint's fsync, and even then the file stays consistent
  (WAL frames are checksummed). `synchronous=FULL` would fsync every commit to cover that too;
  for a page cache that is not worth a disk flush per visited page.
- Foreign keys on, a busy timeout (the CLI may write while the server runs), and every write
  in one `BEGIN IMMEDIATE` transaction, so a writer never fails halfway on a lock upgrade.
- `secure_delete` on, and a WAL checkpoint after `forget_site`, so forgotten pages are
  overwritten in the file rather than left in free pages.
- The schema and its migrations are in `winnow.store_schema`; a file from a newer Winnow is
  refused with `SchemaVersionError` instead of being damaged.

Pages are kept per site (the host without `www.`, see `winnow.sitekeys`) with their HTML
compressed by zlib (`winnow.storedpages`); an identical re-visit (same site, URL and content
hash) updates the stored page instead of adding a copy. Retention is bounded: a template
cluster keeps at most `MAX_PAGES_PER_CLUSTER` pages, and pages not yet assigned to a cluster
at most `MAX_UNCLUSTERED_PAGES` per site; past the bound the least recently seen are deleted.
Models are JSON text, never pickle.

Threads: a `Store` is one connection opened with `check_same_thread=False` and every operation,
read or write, holds the store's lock, so one `Store` may be shared by the event loop thread and
worker threads; calls are serialized. Compression and decompression run outside the lock.
For parallel readers open a second `Store` on the same directory (WAL lets readers and one
writer proceed side by side across connections).
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from winnow import datadir
from winnow.sitekeys import normalize_site
from winnow.store_schema import (
    StoreError,
    configure,
    immediate,
    migrate,
)
from winnow.storedpages import PAGE_COLUMNS, PageBlob, StoredPage, page_from_row

log = logging.getLogger(__name__)

DB_FILENAME = "winnow.sqlite3"
DATA_DIR_MODE = datadir.DIR_MODE
"""The data dir holds browsing history, the server's token and the secret: owner only."""
APP_NAME = "winnow"

MAX_PAGES_PER_CLUSTER = 200
"""Pages kept per template cluster; older ones are deleted on insert. Learning keeps bounded
representatives per cluster anyway, so older pages add nothing but disk use."""
MAX_UNCLUSTERED_PAGES = 1000
"""Pages kept per site that have no cluster yet (stored before the model assigned one)."""

ITER_BATCH = 64
"""Pages fetched per query by `iter_pages`; no cursor stays open between batches."""
DEFAULT_SITE_SETTINGS: dict[str, Any] = {"collect": False}
"""Collecting a site's pages for the research corpus is opt-in per site (DESIGN.md)."""

@dataclass(frozen=True)
class Retention:
    """How many pages are kept: per template cluster, and per site for unclustered pages."""

    per_cluster: int = MAX_PAGES_PER_CLUSTER
    unclustered: int = MAX_UNCLUSTERED_PAGES

    def __post_init__(self) -> None:
        if self.per_cluster < 1 or self.unclustered < 1:
            raise ValueError(f"retention bounds must be at least 1, got {self}")

    def limit(self, cluster: int | None) -> int:
        """Return the bound for the bucket `cluster` (None: not yet clustered)."""
        return self.unclustered if cluster is None else self.per_cluster


@dataclass(frozen=True)
class StoredModel:
    """A site model as saved: its JSON data, the model's own format version, when saved."""

    site: str
    kind: str
    version: int
    data: dict[str, Any]
    updated_at: float


@dataclass(frozen=True)
class SiteInfo:
    """A site's summary: pages stored, distinct clusters among them, last visit (unix time),
    and its settings over `DEFAULT_SITE_SETTINGS`."""

    site: str
    pages: int
    clusters: int
    last_seen: float | None
    created_at: float
    settings: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_SITE_SETTINGS))


def default_data_dir() -> Path:
    """Return the user's data directory for Winnow (platformdirs), not creating it."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


class Store:
    """Pages, site models and settings in `<data_dir>/winnow.sqlite3`. Thread-safe: see the
    module docstring. Use as a context manager or call `close()`."""

    def __init__(self, conn: sqlite3.Connection, path: Path, retention: Retention,
                 secret: bytes = b"") -> None:
        """Wrap an open, migrated connection; use `Store.open`."""
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self.retention = retention
        self.secret = secret
        """The install's secret (`datadir.load_secret`): site models key their digests
        with it."""
        self._lock = threading.RLock()

    @classmethod
    def open(cls, data_dir: Path | str, *, retention: Retention | None = None) -> Store:
        """Open (creating as needed) the store in `data_dir` and migrate it to
        `SCHEMA_VERSION`. Raise `SchemaVersionError` for a file from a newer Winnow and
        `StoreError` for a file that is not a usable database or a data directory that
        cannot be made."""
        directory = Path(data_dir)
        try:
            directory.mkdir(mode=DATA_DIR_MODE, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot use {directory} as the data directory: "
                             f"{exc.strerror or exc}") from exc
        path = directory / DB_FILENAME
        conn: sqlite3.Connection | None = None
        try:
            datadir.make_private(directory)
            datadir.create_private(path)
            secret = datadir.load_secret(directory)
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot use {directory} as the data directory: {exc}") from exc
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            configure(conn, path)
            migrate(conn, path)
        except BaseException as exc:
            if conn is not None:
                conn.close()
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"cannot open the Winnow database {path}: {exc}") from exc
            raise
        return cls(conn, path, retention or Retention(), secret)

    def close(self) -> None:
        """Close the connection; further calls raise StoreError. Closing twice is harmless."""
        with self._lock:
            if self._conn is None:
                return
            try:
                self._conn.execute("PRAGMA optimize")
            except sqlite3.Error as exc:
                log.debug("PRAGMA optimize failed on close: %s", exc)
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- pages ---------------------------------------------------------------------------

    def add_page(self, site: str, url: str, html: bytes | str, title: str | None = None,
                 cluster: int | None = None, seen_at: float | None = None) -> int:
        """Store one page in one small transaction and return its id; once this returns the
        page survives a killed process.

        An identical re-visit (same site, URL and content hash) returns the existing id and
        updates its visit time, and its title and cluster when given. Bounded retention: if
        the page's cluster (or the site's unclustered pages) now exceeds its bound, the least
        recently seen pages of that cluster are deleted, never the page just stored.
        """
        key = normalize_site(site)
        if not isinstance(url, str):
            raise TypeError(f"url must be a str, got {type(url).__name__}")
        seen = _check_time(seen_at)
        blob = PageBlob.of(html)  # CPU work outside the lock
        with self._transaction() as conn:
            _ensure_site(conn, key, time.time())
            found = _revisit(conn, key, url, blob.digest, title, cluster, seen)
            if found is None:
                page_id, bucket = _insert_page(conn, key, url, blob, title, cluster, seen), cluster
            else:
                page_id, bucket = found
            self._trim(conn, key, bucket, page_id)
        return page_id

    def get_page(self, page_id: int) -> StoredPage | None:
        """Return the page with its HTML, or None when there is no such page."""
        with self._reading() as conn:
            row = conn.execute(f"SELECT {PAGE_COLUMNS}, html FROM pages WHERE id = ?",
                               (page_id,)).fetchone()
        return None if row is None else page_from_row(row, with_html=True)

    def page_site(self, page_id: int) -> str | None:
        """Return the site of a stored page, or None when there is no such page."""
        with self._reading() as conn:
            row = conn.execute("SELECT site FROM pages WHERE id = ?", (page_id,)).fetchone()
        return None if row is None else str(row[0])

    def recent_pages(self, site: str, limit: int) -> list[StoredPage]:
        """Return the site's `limit` most recently seen pages, newest first, without HTML."""
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {PAGE_COLUMNS} FROM pages WHERE site = ? "
                                "ORDER BY seen_at DESC, id DESC LIMIT ?",
                                (normalize_site(site), limit)).fetchall()
        return [page_from_row(row, with_html=False) for row in rows]

    def iter_pages(self, site: str, cluster: int | None = None, limit: int | None = None, *,
                   with_html: bool = True) -> Iterator[StoredPage]:
        """Yield a site's pages in insertion order: all of them, or those of `cluster`, at
        most `limit`. Pages are fetched in batches, so the store may be written between
        yields. Corrupt stored HTML yields the page with `corrupt=True` instead of raising;
        `with_html=False` skips decompression for listings."""
        key = normalize_site(site)
        if limit is not None and limit < 0:
            raise ValueError(f"limit must not be negative, got {limit}")
        return self._iter_pages(key, cluster, limit, with_html)

    def _iter_pages(self, site: str, cluster: int | None, limit: int | None,
                    with_html: bool) -> Iterator[StoredPage]:
        after, remaining = 0, limit
        while remaining is None or remaining > 0:
            size = ITER_BATCH if remaining is None else min(ITER_BATCH, remaining)
            rows = self._page_batch(site, cluster, after, size, with_html)
            for row in rows:
                yield page_from_row(row, with_html)
            if len(rows) < size:
                return
            after = rows[-1][0]
            remaining = None if remaining is None else remaining - len(rows)

    def _page_batch(self, site: str, cluster: int | None, after: int, size: int,
                    with_html: bool) -> list[tuple[Any, ...]]:
        """Return up to `size` rows of `site` with ids above `after`, in id order."""
        columns = PAGE_COLUMNS + (", html" if with_html else "")
        sql = f"SELECT {columns} FROM pages WHERE site = ? AND id > ?"
        params: tuple[Any, ...] = (site, after)
        if cluster is not None:
            sql += " AND cluster = ?"
            params += (cluster,)
        with self._reading() as conn:
            return conn.execute(sql + " ORDER BY id LIMIT ?", params + (size,)).fetchall()

    def count_pages(self, site: str | None = None) -> int:
        """Return the number of stored pages, of one site or of all."""
        with self._reading() as conn:
            if site is None:
                row = conn.execute("SELECT COUNT(*) FROM pages").fetchone()
            else:
                row = conn.execute("SELECT COUNT(*) FROM pages WHERE site = ?",
                                   (normalize_site(site),)).fetchone()
        return int(row[0])

    def set_cluster(self, page_id: int, cluster: int | None) -> bool:
        """Assign a page to a cluster; return False when the page no longer exists (it may
        have been trimmed or forgotten meanwhile). The target cluster is trimmed to its
        bound as on insert, keeping this page."""
        with self._transaction() as conn:
            row = conn.execute("SELECT site FROM pages WHERE id = ?", (page_id,)).fetchone()
            if row is None:
                return False
            conn.execute("UPDATE pages SET cluster = ? WHERE id = ?", (cluster, page_id))
            self._trim(conn, row[0], cluster, page_id)
        return True

    def cluster_sizes(self, site: str) -> dict[int | None, int]:
        """Return the number of pages per cluster of a site (None: not yet clustered)."""
        with self._reading() as conn:
            rows = conn.execute("SELECT cluster, COUNT(*) FROM pages WHERE site = ? "
                                "GROUP BY cluster", (normalize_site(site),)).fetchall()
        return {cluster: int(n) for cluster, n in rows}

    def _trim(self, conn: sqlite3.Connection, site: str, cluster: int | None,
              keep_id: int) -> int:
        """Delete the least recently seen pages of one cluster beyond its bound, never
        `keep_id`; return how many went."""
        cursor = conn.execute(
            "DELETE FROM pages WHERE id IN (SELECT id FROM pages WHERE site = ? AND cluster IS ?"
            " AND id != ? ORDER BY seen_at DESC, id DESC LIMIT -1 OFFSET ?)",
            (site, cluster, keep_id, self.retention.limit(cluster) - 1))
        if cursor.rowcount > 0:
            log.debug("retention removed %d pages of %s cluster %s", cursor.rowcount, site,
                      cluster)
        return max(cursor.rowcount, 0)

    # -- site models ---------------------------------------------------------------------

    def save_model(self, site: str, kind: str, data: dict[str, Any], version: int,
                   summary: dict[str, Any] | None = None) -> None:
        """Save a site model as JSON text, replacing the previous one of that kind.
        `version` is the model's own format version; `summary` is what listings show of
        it (see `model_summaries`). Raise ValueError for NaN or infinity and TypeError for
        data JSON cannot hold."""
        key = normalize_site(site)
        if not isinstance(data, dict):
            raise TypeError(f"a model must be a dict, got {type(data).__name__}")
        text = json.dumps(data, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
        brief = json.dumps(summary or {}, allow_nan=False, ensure_ascii=False)
        now = time.time()
        with self._transaction() as conn:
            _ensure_site(conn, key, now)
            conn.execute(
                "INSERT INTO site_models (site, kind, version, data, updated_at, summary) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (site, kind) DO UPDATE SET "
                "version = excluded.version, data = excluded.data, "
                "updated_at = excluded.updated_at, summary = excluded.summary",
                (key, kind, int(version), text, now, brief))

    def delete_model(self, site: str, kind: str) -> bool:
        """Delete a site's saved model of `kind` (its pages stay); True when there was one."""
        with self._transaction() as conn:
            cursor = conn.execute("DELETE FROM site_models WHERE site = ? AND kind = ?",
                                  (normalize_site(site), kind))
        return cursor.rowcount > 0

    def model_versions(self, kind: str) -> dict[str, int]:
        """Return the format version of every site's saved model of `kind`, by site."""
        with self._reading() as conn:
            rows = conn.execute("SELECT site, version FROM site_models WHERE kind = ?",
                                (kind,)).fetchall()
        return {site: int(version) for site, version in rows}

    def model_summaries(self, kind: str) -> dict[str, tuple[dict[str, Any], float]]:
        """Return every site's saved model summary of `kind` with its save time, by site,
        without reading the models themselves."""
        with self._reading() as conn:
            rows = conn.execute("SELECT site, summary, updated_at FROM site_models "
                                "WHERE kind = ?", (kind,)).fetchall()
        return {site: (_load_json_object(text, f"summary of {site}") or {}, float(updated))
                for site, text, updated in rows}

    def pages_per_day(self, site: str | None = None) -> list[tuple[str, str, int]]:
        """Return (site, UTC day as YYYY-MM-DD, pages stored that were last seen that day),
        of one site or all, ordered by day then site."""
        sql = ("SELECT site, date(seen_at, 'unixepoch') AS day, COUNT(*) FROM pages {where}"
               "GROUP BY site, day ORDER BY day, site")
        with self._reading() as conn:
            if site is None:
                rows = conn.execute(sql.format(where="")).fetchall()
            else:
                rows = conn.execute(sql.format(where="WHERE site = ? "),
                                    (normalize_site(site),)).fetchall()
        return [(name, day, int(n)) for name, day, n in rows]

    def load_model(self, site: str, kind: str) -> dict[str, Any] | None:
        """Return the saved model data, or None when there is none or it is unreadable."""
        model = self.load_model_info(site, kind)
        return None if model is None else model.data

    def load_model_info(self, site: str, kind: str) -> StoredModel | None:
        """Return the saved model with its version and time, or None when there is none or
        its JSON is unreadable (logged: the model is then relearned, not fatal)."""
        key = normalize_site(site)
        with self._reading() as conn:
            row = conn.execute("SELECT version, data, updated_at FROM site_models "
                               "WHERE site = ? AND kind = ?", (key, kind)).fetchone()
        if row is None:
            return None
        data = _load_json_object(row[1], f"model {kind!r} of {key}")
        return None if data is None else StoredModel(key, kind, int(row[0]), data, row[2])

    # -- sites and settings --------------------------------------------------------------

    def sites(self) -> list[SiteInfo]:
        """Return every known site with its page count, cluster count and last visit."""
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT s.site, COUNT(p.id), COUNT(DISTINCT p.cluster), MAX(p.seen_at), "
                "s.created_at, s.settings FROM sites s LEFT JOIN pages p ON p.site = s.site "
                "GROUP BY s.site ORDER BY s.site").fetchall()
        return [SiteInfo(site, int(pages), int(clusters), last, created,
                         {**DEFAULT_SITE_SETTINGS,
                          **(_load_json_object(settings, f"settings of {site}") or {})})
                for site, pages, clusters, last, created, settings in rows]

    def site_settings(self, site: str) -> dict[str, Any]:
        """Return a site's settings over `DEFAULT_SITE_SETTINGS` (defaults for unknown
        sites or unreadable stored settings)."""
        key = normalize_site(site)
        with self._reading() as conn:
            row = conn.execute("SELECT settings FROM sites WHERE site = ?", (key,)).fetchone()
        stored = None if row is None else _load_json_object(row[0], f"settings of {key}")
        return {**DEFAULT_SITE_SETTINGS, **(stored or {})}

    def set_site_settings(self, site: str, **values: Any) -> dict[str, Any]:
        """Merge `values` into a site's settings (creating the site) and return them all."""
        key = normalize_site(site)
        json.dumps(values, allow_nan=False)  # refuse what JSON cannot hold before writing
        with self._transaction() as conn:
            _ensure_site(conn, key, time.time())
            row = conn.execute("SELECT settings FROM sites WHERE site = ?", (key,)).fetchone()
            merged = {**(_load_json_object(row[0], f"settings of {key}") or {}), **values}
            conn.execute("UPDATE sites SET settings = ? WHERE site = ?",
                         (json.dumps(merged, ensure_ascii=False), key))
        return {**DEFAULT_SITE_SETTINGS, **merged}

    def forget_site(self, site: str) -> int:
        """Remove a site's pages, models and settings in one transaction; return the number
        of pages removed (0 for an unknown site). Deleted content is overwritten
        (`secure_delete`) and the WAL is checkpointed, best effort, so it leaves the file."""
        key = normalize_site(site)
        with self._transaction() as conn:
            removed = conn.execute("DELETE FROM pages WHERE site = ?", (key,)).rowcount
            conn.execute("DELETE FROM site_models WHERE site = ?", (key,))
            conn.execute("DELETE FROM sites WHERE site = ?", (key,))
        self.checkpoint()
        return max(removed, 0)

    def checkpoint(self) -> None:
        """Copy the WAL into the database file and truncate it; best effort, since other
        connections' open reads can hold it back (SQLite retries on later checkpoints)."""
        try:
            with self._reading() as conn:
                busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        except sqlite3.Error as exc:
            busy = exc
        if busy:
            log.info("WAL checkpoint of %s deferred (readers active or %s)", self.path, busy)

    def get_setting(self, key: str, default: Any = None) -> Any:
        """Return a global setting's JSON value, or `default` when unset or unreadable."""
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        if row is None:
            return default
        try:
            return json.loads(row[0])
        except (TypeError, ValueError):
            log.warning("unreadable setting %r in %s; using the default", key, self.path)
            return default

    def set_setting(self, key: str, value: Any) -> None:
        """Set a global setting to a JSON value."""
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
        with self._transaction() as conn:
            conn.execute("INSERT INTO settings (key, value) VALUES (?, ?) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, text))

    # -- connection ----------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"the store {self.path} is closed")
        return self._conn

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock for statements outside a write transaction (autocommit reads)."""
        with self._lock:
            yield self._connection()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and run the block in one `immediate` transaction."""
        with self._lock, immediate(self._connection()) as conn:
            yield conn


def _check_time(seen_at: float | None) -> float:
    """Return `seen_at` (unix seconds) or now; refuse NaN and infinities."""
    if seen_at is None:
        return time.time()
    value = float(seen_at)
    if not math.isfinite(value):
        raise ValueError(f"seen_at must be a finite unix time, got {seen_at!r}")
    return value


def _ensure_site(conn: sqlite3.Connection, site: str, now: float) -> None:
    conn.execute("INSERT OR IGNORE INTO sites (site, created_at) VALUES (?, ?)", (site, now))


def _revisit(conn: sqlite3.Connection, site: str, url: str, digest: str, title: str | None,
             cluster: int | None, seen: float) -> tuple[int, int | None] | None:
    """Update the stored copy of an identical re-visit; return its (id, cluster), or None
    when this page content is new for this URL."""
    row = conn.execute("SELECT id, cluster FROM pages WHERE site = ? AND url = ? AND "
                       "content_hash = ?", (site, url, digest)).fetchone()
    if row is None:
        return None
    page_id, stored_cluster = row
    bucket = stored_cluster if cluster is None else cluster
    conn.execute("UPDATE pages SET seen_at = MAX(seen_at, ?), title = COALESCE(?, title), "
                 "cluster = ? WHERE id = ?", (seen, title, bucket, page_id))
    return int(page_id), bucket


def _insert_page(conn: sqlite3.Connection, site: str, url: str, blob: PageBlob, title: str | None,
                 cluster: int | None, seen: float) -> int:
    cursor = conn.execute(
        "INSERT INTO pages (site, url, title, seen_at, html, html_size, content_hash, cluster) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (site, url, title, seen, blob.data, blob.size, blob.digest, cluster))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _load_json_object(text: Any, what: str) -> dict[str, Any] | None:
    """Parse stored JSON that must be an object; None (logged) when it is not."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, dict):
        log.warning("unreadable stored %s; ignoring it", what)
        return None
    return value
