"""The SQLite store: round trips, compression, dedupe, retention, forgetting, migrations,
persistence, threads, and a writer killed with SIGKILL that loses nothing it reported."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from winnow import store as store_module
from winnow import store_schema
from winnow.page import MAX_PAGE_BYTES, PageError
from winnow.sitekeys import site_key
from winnow.store import (
    DB_FILENAME,
    MAX_PAGES_PER_CLUSTER,
    Retention,
    Store,
    StoreError,
)
from winnow.store_schema import SCHEMA_VERSION, SchemaVersionError

SITE = "example.com"
URL = "https://www.example.com/news/1.html"
PARAGRAPH = "<p>The council met on Tuesday, and it voted on the new budget.</p>\n"
HTML = f"<html><head><title>Budget</title></head><body>{PARAGRAPH * 400}</body></html>"


def page_html(n: int) -> str:
    return f"<html><body><h1>Page {n}</h1>{PARAGRAPH * 3}</body></html>"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data") as opened:
        yield opened


@contextmanager
def raw_db(data_dir: Path) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection beside the store, committed and closed on exit."""
    conn = sqlite3.connect(data_dir / DB_FILENAME)
    try:
        with conn:
            yield conn
    finally:
        conn.close()


# -- site keys -------------------------------------------------------------------------------

@pytest.mark.parametrize(("url", "key"), [
    ("https://www.Example.COM/a?b#c", "example.com"),
    ("http://example.com:8080/", "example.com"),
    ("http://user:pw@news.example.co.uk./x", "news.example.co.uk"),
    ("https://www2.example.com/", "www2.example.com"),
    ("http://www.com/", "www.com"),
    ("http://[::1]:8765/", "::1"),
    ("  HTTPS://WWW.EXAMPLE.ORG  ", "example.org"),
])
def test_site_key(url: str, key: str) -> None:
    assert site_key(url) == key


@pytest.mark.parametrize("url", ["", "example.com/page", "/news/1.html", "file:///tmp/a.html",
                                 "about:blank", "http://[::1/"])
def test_site_key_refuses_urls_without_host(url: str) -> None:
    with pytest.raises(ValueError, match="host"):
        site_key(url)


# -- opening ---------------------------------------------------------------------------------

def test_open_creates_private_dir_and_configures_sqlite(tmp_path: Path) -> None:
    data_dir = tmp_path / "a" / "b"
    with Store.open(data_dir) as s:
        assert s.path == data_dir / DB_FILENAME
        conn = s._connection()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] > 0
    assert stat.S_IMODE(data_dir.stat().st_mode) & 0o077 == 0
    assert (data_dir / DB_FILENAME).is_file()


def test_migrations_from_empty_db_set_user_version(tmp_path: Path) -> None:
    Store.open(tmp_path).close()
    with raw_db(tmp_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"sites", "pages", "site_models", "settings"} <= tables


def test_later_migration_applies_once_on_open(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with Store.open(tmp_path) as s:
        s.add_page(SITE, URL, HTML)
    extra = ("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
             "INSERT INTO notes (text) VALUES ('migrated')")
    monkeypatch.setattr(store_schema, "MIGRATIONS", (*store_schema.MIGRATIONS, extra))
    for _ in range(2):  # the second open finds nothing to do
        with Store.open(tmp_path) as s:
            assert s.count_pages() == 1
    with raw_db(tmp_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert conn.execute("SELECT text FROM notes").fetchall() == [("migrated",)]


def test_failed_migration_rolls_back_entirely(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    Store.open(tmp_path).close()
    broken = ("CREATE TABLE half (id INTEGER)", "THIS IS NOT SQL")
    monkeypatch.setattr(store_schema, "MIGRATIONS", (*store_schema.MIGRATIONS, broken))
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1} failed"):
        Store.open(tmp_path)
    with raw_db(tmp_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'half'").fetchall() == []


def test_newer_schema_is_refused_with_clear_error(tmp_path: Path) -> None:
    with Store.open(tmp_path) as s:
        s.add_page(SITE, URL, HTML)
    with raw_db(tmp_path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    with pytest.raises(SchemaVersionError) as info:
        Store.open(tmp_path)
    message = str(info.value)
    assert f"schema version {SCHEMA_VERSION + 5}" in message
    assert f"up to version {SCHEMA_VERSION}" in message and "upgrade Winnow" in message
    with raw_db(tmp_path) as conn:  # left untouched
        assert conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 1


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    (tmp_path / DB_FILENAME).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a database"):
        Store.open(tmp_path)


def test_closed_store_raises_and_close_twice_is_harmless(tmp_path: Path) -> None:
    s = Store.open(tmp_path)
    s.close()
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.count_pages()


# -- pages -----------------------------------------------------------------------------------

def test_page_round_trip(store: Store) -> None:
    page_id = store.add_page("www.Example.com", URL, HTML, title="Budget", cluster=3,
                             seen_at=1_700_000_000.5)
    page = store.get_page(page_id)
    assert page is not None
    assert (page.id, page.site, page.url, page.title) == (page_id, SITE, URL, "Budget")
    assert (page.cluster, page.seen_at, page.corrupt) == (3, 1_700_000_000.5, False)
    assert page.html == HTML
    assert page.html_size == len(HTML.encode())
    assert store.get_page(page_id + 1000) is None


def test_bytes_round_trip_keeps_original_bytes(store: Store) -> None:
    legacy = '<meta charset="windows-1252"><p>Caf\xe9 cr\xe8me</p>'.encode("cp1252")
    page = store.get_page(store.add_page(SITE, URL, legacy))
    assert page is not None
    assert page.raw == legacy
    assert "Café crème" in page.html


def test_lone_surrogates_are_stored_replaced(store: Store) -> None:
    page = store.get_page(store.add_page(SITE, URL, "<p>bad \ud800 half</p>"))
    assert page is not None and page.html.startswith("<p>bad ")


def test_compression_shrinks_stored_html(store: Store, tmp_path: Path) -> None:
    page_id = store.add_page(SITE, URL, HTML)
    with raw_db(tmp_path / "data") as conn:
        stored, size = conn.execute("SELECT length(html), html_size FROM pages WHERE id = ?",
                                    (page_id,)).fetchone()
    assert size == len(HTML.encode())
    assert stored * 10 < size


def test_oversized_and_non_html_input_refused(store: Store) -> None:
    with pytest.raises(PageError, match="limit"):
        store.add_page(SITE, URL, b" " * (MAX_PAGE_BYTES + 1))
    with pytest.raises(TypeError, match="bytes or str"):
        store.add_page(SITE, URL, 42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        store.add_page("  ", URL, HTML)
    with pytest.raises(ValueError, match="finite"):
        store.add_page(SITE, URL, HTML, seen_at=float("nan"))
    assert store.count_pages() == 0


def test_identical_revisit_is_deduplicated(store: Store) -> None:
    first = store.add_page(SITE, URL, HTML, seen_at=100.0)
    again = store.add_page(SITE, URL, HTML.encode(), title="Later title", cluster=2,
                           seen_at=200.0)
    assert again == first
    assert store.count_pages(SITE) == 1
    page = store.get_page(first)
    assert page is not None
    assert (page.seen_at, page.title, page.cluster) == (200.0, "Later title", 2)
    store.add_page(SITE, URL, HTML, seen_at=150.0)  # an older visit keeps the newer time
    assert store.get_page(first).seen_at == 200.0  # type: ignore[union-attr]
    changed = store.add_page(SITE, URL, HTML + "<!-- updated -->")
    elsewhere = store.add_page(SITE, URL + "?page=2", HTML)
    assert len({first, changed, elsewhere}) == 3
    assert store.count_pages(SITE) == 3


def test_iter_pages_in_insertion_order_by_cluster_and_limit(store: Store) -> None:
    ids = [store.add_page(SITE, f"https://example.com/{n}", page_html(n), cluster=n % 2,
                          seen_at=1000.0 - n) for n in range(150)]
    store.add_page("other.org", "https://other.org/", page_html(0))
    assert [p.id for p in store.iter_pages(SITE)] == ids
    assert [p.id for p in store.iter_pages(SITE, cluster=1)] == ids[1::2]
    assert [p.id for p in store.iter_pages(SITE, limit=70)] == ids[:70]
    assert list(store.iter_pages(SITE, limit=0)) == []
    listed = list(store.iter_pages(SITE, limit=3, with_html=False))
    assert [p.raw for p in listed] == [b""] * 3 and not any(p.corrupt for p in listed)
    assert store.count_pages() == 151 and store.count_pages("other.org") == 1
    assert store.cluster_sizes(SITE) == {0: 75, 1: 75}


def test_iter_pages_allows_writes_between_yields(store: Store) -> None:
    for n in range(store_module.ITER_BATCH + 5):
        store.add_page(SITE, f"https://example.com/{n}", page_html(n))
    seen = 0
    for page in store.iter_pages(SITE):
        store.set_cluster(page.id, 7)
        seen += 1
    assert seen == store_module.ITER_BATCH + 5
    assert store.cluster_sizes(SITE) == {7: seen}


def test_corrupt_html_does_not_break_listing(store: Store, tmp_path: Path) -> None:
    good = store.add_page(SITE, "https://example.com/good", HTML)
    bad = store.add_page(SITE, "https://example.com/bad", HTML)
    short = store.add_page(SITE, "https://example.com/short", HTML)
    with raw_db(tmp_path / "data") as conn:
        conn.execute("UPDATE pages SET html = x'00ff10' WHERE id = ?", (bad,))
        conn.execute("UPDATE pages SET html_size = 5 WHERE id = ?", (short,))
    pages = {p.id: p for p in store.iter_pages(SITE)}
    assert not pages[good].corrupt and pages[good].html == HTML
    for page_id in (bad, short):
        assert pages[page_id].corrupt and pages[page_id].html == ""
    assert store.get_page(bad).corrupt  # type: ignore[union-attr]
    assert store.sites()[0].pages == 3


def test_set_cluster(store: Store) -> None:
    page_id = store.add_page(SITE, URL, HTML)
    assert store.get_page(page_id).cluster is None  # type: ignore[union-attr]
    assert store.set_cluster(page_id, 4) is True
    assert store.get_page(page_id).cluster == 4  # type: ignore[union-attr]
    assert store.set_cluster(page_id + 99, 4) is False


# -- retention -------------------------------------------------------------------------------

def test_default_retention_bounds_a_cluster(store: Store) -> None:
    assert store.retention.per_cluster == MAX_PAGES_PER_CLUSTER
    ids = [store.add_page(SITE, f"https://example.com/{n}", page_html(n), cluster=1,
                          seen_at=float(n)) for n in range(MAX_PAGES_PER_CLUSTER + 5)]
    kept = [p.id for p in store.iter_pages(SITE, with_html=False)]
    assert kept == ids[5:]


def test_retention_deletes_least_recently_seen_of_that_cluster_only(tmp_path: Path) -> None:
    with Store.open(tmp_path, retention=Retention(per_cluster=3, unclustered=2)) as s:
        a = [s.add_page(SITE, f"https://example.com/a{n}", page_html(n), cluster=1,
                        seen_at=10.0 + n) for n in range(3)]
        b = s.add_page(SITE, "https://example.com/b", page_html(9), cluster=2, seen_at=1.0)
        other = s.add_page("other.org", "https://other.org/", page_html(0), cluster=1,
                           seen_at=0.0)
        s.add_page(SITE, "https://example.com/a0", page_html(0), seen_at=50.0)  # re-visit a0
        newest = s.add_page(SITE, "https://example.com/a3", page_html(3), cluster=1,
                            seen_at=20.0)
        assert [p.id for p in s.iter_pages(SITE, cluster=1)] == [a[0], a[2], newest]
        assert s.get_page(b) is not None and s.get_page(other) is not None
        # a page stored with an old time is kept itself; the oldest others go
        old = s.add_page(SITE, "https://example.com/old", page_html(5), cluster=1, seen_at=0.0)
        assert [p.id for p in s.iter_pages(SITE, cluster=1)] == [a[0], newest, old]
        loose = [s.add_page(SITE, f"https://example.com/u{n}", page_html(n), seen_at=float(n))
                 for n in range(3)]
        assert s.cluster_sizes(SITE)[None] == 2 and s.get_page(loose[0]) is None
        assert s.set_cluster(loose[1], 2) and s.set_cluster(loose[2], 2)
        assert [p.id for p in s.iter_pages(SITE, cluster=2)] == [b, loose[1], loose[2]]


def test_retention_bounds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Retention(per_cluster=0)


# -- models, sites, settings -----------------------------------------------------------------

def test_models_are_json_text(store: Store, tmp_path: Path) -> None:
    model = {"clusters": [{"id": 1, "pattern": ["div", {"kleene": True}], "df": 0.5}],
             "name": "Ünïcode"}
    store.save_model(SITE, "site_model", model, version=2)
    assert store.load_model("www.example.com", "site_model") == model
    info = store.load_model_info(SITE, "site_model")
    assert info is not None and info.version == 2 and info.updated_at > 0
    assert store.load_model(SITE, "other_kind") is None
    store.save_model(SITE, "site_model", {"replaced": True}, version=3)
    assert store.load_model(SITE, "site_model") == {"replaced": True}
    with raw_db(tmp_path / "data") as conn:
        kind, = conn.execute("SELECT typeof(data) FROM site_models").fetchone()
    assert kind == "text"
    with pytest.raises(ValueError):
        store.save_model(SITE, "site_model", {"x": float("nan")}, version=1)
    with pytest.raises(TypeError):
        store.save_model(SITE, "site_model", {"x": object()}, version=1)
    assert store.load_model(SITE, "site_model") == {"replaced": True}


def test_unreadable_model_loads_as_none(store: Store, tmp_path: Path) -> None:
    store.save_model(SITE, "site_model", {"a": 1}, version=1)
    with raw_db(tmp_path / "data") as conn:
        conn.execute("UPDATE site_models SET data = '{truncated'")
    assert store.load_model(SITE, "site_model") is None


def test_sites_summary(store: Store) -> None:
    store.add_page(SITE, URL, page_html(1), cluster=1, seen_at=10.0)
    store.add_page(SITE, URL + "2", page_html(2), cluster=2, seen_at=30.0)
    store.add_page(SITE, URL + "3", page_html(3), seen_at=20.0)
    store.set_site_settings("quiet.net", collect=True)
    infos = {info.site: info for info in store.sites()}
    assert set(infos) == {SITE, "quiet.net"}
    assert (infos[SITE].pages, infos[SITE].clusters, infos[SITE].last_seen) == (3, 2, 30.0)
    assert (infos["quiet.net"].pages, infos["quiet.net"].last_seen) == (0, None)


def test_site_and_global_settings(store: Store) -> None:
    assert store.site_settings(SITE) == {"collect": False}
    assert store.set_site_settings(SITE, collect=True) == {"collect": True}
    assert store.set_site_settings(SITE, highlight="noise") == {"collect": True,
                                                                 "highlight": "noise"}
    assert store.site_settings("www.example.com") == {"collect": True, "highlight": "noise"}
    with pytest.raises(TypeError):
        store.set_site_settings(SITE, bad=object())
    assert store.get_setting("theme", "light") == "light"
    store.set_setting("theme", {"name": "dark", "size": 2})
    assert store.get_setting("theme") == {"name": "dark", "size": 2}


def test_forget_site_removes_everything_of_that_site(store: Store, tmp_path: Path) -> None:
    marker = "forget-me-marker-" * 50
    for n in range(5):
        store.add_page(SITE, f"https://example.com/{n}", page_html(n) + marker, cluster=n)
    kept = store.add_page("other.org", "https://other.org/", page_html(0))
    store.save_model(SITE, "site_model", {"a": 1}, version=1)
    store.set_site_settings(SITE, collect=True)
    assert store.forget_site("www.example.com") == 5
    assert store.count_pages(SITE) == 0 and store.load_model(SITE, "site_model") is None
    assert store.site_settings(SITE) == {"collect": False}
    assert [info.site for info in store.sites()] == ["other.org"]
    assert store.get_page(kept) is not None
    assert store.forget_site("never.seen") == 0
    store.close()
    files = [tmp_path / "data" / name for name in (DB_FILENAME, DB_FILENAME + "-wal")]
    for path in files:  # secure_delete and the checkpoint leave no plain copy behind
        if path.exists():
            assert b"example.com/3" not in path.read_bytes()


# -- persistence, threads, crashes -----------------------------------------------------------

def test_everything_persists_across_close_and_reopen(tmp_path: Path) -> None:
    with Store.open(tmp_path) as s:
        page_id = s.add_page(SITE, URL, HTML, title="Budget", cluster=1)
        s.save_model(SITE, "site_model", {"clusters": 1}, version=1)
        s.set_site_settings(SITE, collect=True)
        s.set_setting("token_created", 123)
    with Store.open(tmp_path) as s:
        page = s.get_page(page_id)
        assert page is not None and page.html == HTML and page.title == "Budget"
        assert s.load_model(SITE, "site_model") == {"clusters": 1}
        assert s.site_settings(SITE)["collect"] is True
        assert s.get_setting("token_created") == 123
        assert s.add_page(SITE, URL + "?new", HTML) > page_id


def test_one_store_shared_by_threads(store: Store) -> None:
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        try:
            for n in range(40):
                store.add_page(f"site{worker}.org", f"https://x/{n}", page_html(n))
                list(store.iter_pages(f"site{worker}.org", limit=5))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.count_pages() == 160


def test_two_stores_on_one_directory(tmp_path: Path) -> None:
    with Store.open(tmp_path) as server, Store.open(tmp_path) as cli:
        first = server.add_page(SITE, URL, HTML)
        second = cli.add_page(SITE, URL + "2", HTML)
        assert server.count_pages() == cli.count_pages() == 2
        assert first != second


CRASH_WRITER = textwrap.dedent("""
    import sys
    from winnow.store import Retention, Store

    store = Store.open(sys.argv[1], retention=Retention(10**9, 10**9))
    n = 0
    while True:
        html = "<html><body>" + ("<p>page %d, more text.</p>" % n) * (1 + n % 200) + "</body>"
        page_id = store.add_page("crash.example", "https://crash.example/%d" % n, html,
                                 cluster=n % 3)
        print(page_id, flush=True)
        n += 1
""")
CRASH_AFTER_IDS = 300


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_write_loses_no_reported_page(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, "-c", CRASH_WRITER, str(data_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        while len(lines) < CRASH_AFTER_IDS:
            line = proc.stdout.readline()
            assert line, f"writer exited early: {proc.stderr.read() if proc.stderr else ''}"
            lines.append(line)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    lines += proc.stdout.readlines()  # everything the writer printed before it died
    proc.stdout.close()
    if proc.stderr is not None:
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    reported = [int(line) for line in lines if line.endswith("\n")]
    assert len(reported) >= CRASH_AFTER_IDS
    wal = data_dir / (DB_FILENAME + "-wal")
    assert wal.stat().st_size > 0  # the reopen below has to recover from the WAL
    with Store.open(data_dir) as s:
        assert s._connection().execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        stored = {p.id for p in s.iter_pages("crash.example", with_html=False)}
        assert set(reported) <= stored
        for page_id in reported[-5:]:
            page = s.get_page(page_id)
            assert page is not None and not page.corrupt and "more text" in page.html
        s.add_page("crash.example", "https://crash.example/after", "<p>after</p>")


# -- schema version 2, listings for the server -------------------------------------------------


def test_version_1_file_gains_model_summaries(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A file written before summaries existed is migrated; its models read as empty
    summaries until saved again."""
    monkeypatch.setattr(store_schema, "MIGRATIONS", store_schema.MIGRATIONS[:1])
    Store.open(tmp_path).close()
    monkeypatch.undo()
    with raw_db(tmp_path) as conn:
        conn.execute("INSERT INTO sites (site, created_at) VALUES (?, 0)", (SITE,))
        conn.execute("INSERT INTO site_models (site, kind, version, data, updated_at) "
                     "VALUES (?, 'site_model', 1, '{\"version\": 1}', 0)", (SITE,))
    with Store.open(tmp_path) as s:
        assert s.load_model(SITE, "site_model") == {"version": 1}
        [(site, (summary, _))] = s.model_summaries("site_model").items()
        assert (site, summary) == (SITE, {})
        s.save_model(SITE, "site_model", {"version": 1}, 1, summary={"pages": 3})
        assert s.model_summaries("site_model")[SITE][0] == {"pages": 3}
    with raw_db(tmp_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2


def test_pages_per_day_recent_pages_and_page_site(store: Store) -> None:
    day = 86_400.0
    ids = [store.add_page(SITE, f"https://example.com/{n}", page_html(n),
                          seen_at=1_700_000_000 + n * day / 2) for n in range(4)]
    store.add_page("other.example", "https://other.example/", page_html(9),
                   seen_at=1_700_000_000)
    assert store.pages_per_day(SITE) == [(SITE, "2023-11-14", 1), (SITE, "2023-11-15", 2),
                                         (SITE, "2023-11-16", 1)]
    assert len(store.pages_per_day()) == 4
    assert [p.id for p in store.recent_pages(SITE, 2)] == ids[:1:-1]
    assert store.recent_pages(SITE, 2)[0].raw == b""  # listings carry no HTML
    assert store.page_site(ids[0]) == SITE and store.page_site(99_999) is None


def test_sites_carry_their_settings(store: Store) -> None:
    store.add_page(SITE, URL, HTML)
    store.set_site_settings("other.example", collect=True)
    settings = {info.site: info.settings for info in store.sites()}
    assert settings == {SITE: {"collect": False}, "other.example": {"collect": True}}
