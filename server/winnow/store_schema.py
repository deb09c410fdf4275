"""The store's SQLite schema, its migrations and how a connection is configured.

The schema version is `PRAGMA user_version`; `MIGRATIONS` are applied in order, each in its
own transaction together with the version bump. A file from a newer Winnow is refused with
`SchemaVersionError` instead of being damaged. `winnow.store` uses these; nothing else should.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
"""How long a writer waits for another connection's write lock before failing."""
WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024
"""The `-wal` file is truncated back to this after a checkpoint (one huge page can grow it)."""

Migration = tuple[str, ...]
"""SQL statements that take the schema from one version to the next, run in one transaction."""

MIGRATIONS: tuple[Migration, ...] = (
    (  # 1: sites, pages, site models, settings
        """CREATE TABLE sites (
            site TEXT PRIMARY KEY,
            settings TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL
        )""",
        # AUTOINCREMENT: a page id handed to a client never comes to name another page.
        """CREATE TABLE pages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            site TEXT NOT NULL REFERENCES sites(site) ON DELETE CASCADE,
            url TEXT NOT NULL,
            title TEXT,
            seen_at REAL NOT NULL,
            html BLOB NOT NULL,
            html_size INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            cluster INTEGER
        )""",
        "CREATE INDEX pages_by_site ON pages(site, id)",
        "CREATE INDEX pages_by_cluster ON pages(site, cluster, seen_at)",
        "CREATE UNIQUE INDEX pages_dedupe ON pages(site, url, content_hash)",
        """CREATE TABLE site_models (
            site TEXT NOT NULL REFERENCES sites(site) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            version INTEGER NOT NULL,
            data TEXT NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (site, kind)
        )""",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    (  # 2: a model's summary (pages learned, cluster sizes) readable without loading it
        "ALTER TABLE site_models ADD COLUMN summary TEXT NOT NULL DEFAULT '{}'",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(Exception):
    """The store cannot be opened or used; the message says which file and why."""


class SchemaVersionError(StoreError):
    """The database was written by a newer Winnow whose schema this version does not know."""


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block in one `BEGIN IMMEDIATE` transaction: committed when the block returns,
    rolled back when it raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def configure(conn: sqlite3.Connection, path: Path) -> None:
    """Set the connection's pragmas (busy timeout first: switching to WAL takes a lock)."""
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        log.warning("%s: WAL is not available here (journal mode %s); commits stay atomic "
                    "but readers and the writer block each other", path, mode)
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT_BYTES}")


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Apply the migrations past the file's `user_version`, each in its own transaction with
    its version bump. The version is read again inside each transaction, so two processes
    opening the same new file do not both migrate it."""
    start = _schema_version(conn, path)
    for version, statements in enumerate(MIGRATIONS[start:], start=start + 1):
        with immediate(conn):
            if _schema_version(conn, path) < version:
                _apply(conn, statements, version)


def _apply(conn: sqlite3.Connection, statements: Sequence[str], version: int) -> None:
    """Run one migration's statements and set `user_version` to `version`."""
    try:
        for statement in statements:
            conn.execute(statement)
    except sqlite3.Error as exc:
        raise StoreError(f"migration to schema version {version} failed: {exc}") from exc
    conn.execute(f"PRAGMA user_version = {int(version)}")
    log.info("store schema migrated to version %d", version)


def _schema_version(conn: sqlite3.Connection, path: Path) -> int:
    """Return the file's `user_version`; raise `SchemaVersionError` when it is newer than
    the migrations this Winnow knows."""
    current = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if current > len(MIGRATIONS):
        raise SchemaVersionError(
            f"{path} has schema version {current}, but this Winnow supports up to version "
            f"{len(MIGRATIONS)}: upgrade Winnow, or use another data directory")
    return current
