"""Issue 14, privacy: pages read with collection off leave no prose anywhere in the data dir.

Pages go through the real server (aiohttp, worker processes, a `websockets` client) and
through the learning path the workers and the CLI share (`Learner`); then every file of the
data dir is read, SQLite database, WAL, token, secret, anything: raw bytes, every zlib or
gzip stream found in them, and every cell of every table (blobs inflated). No run of eight
words of the pages' own prose may be found. The same scan finds the prose of a page that
was collected (and of a model saved in the old format), so it can fail. Also: file modes,
the conversion of old models, forgetting a site over HTTP and its protections.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import stat
import zlib
from pathlib import Path
from typing import Any

import aiohttp
import lxml.html
import pytest
from helpers import site_year_groups
from server_helpers import EXTENSION_ORIGIN, Running, article_page, client, running_server
from winnow import datadir
from winnow.keyed import Keyer
from winnow.learning import MODEL_KIND, Learner
from winnow.page import parse_page
from winnow.sitemodel import FORMAT_VERSION, SiteModel
from winnow.store import Store

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
SITE = "planet.example"
OTHER = "other.example"
RUN_WORDS = 8
"""The issue's measure: a run of eight consecutive words of a page's prose."""
FIXTURE = Path(__file__).parent / "fixtures" / "site_model_v2.json"
"""A model of article_page(0..4) saved by the previous format (2), which kept their text."""
ZLIB_HEADERS = (b"\x78\x01", b"\x78\x5e", b"\x78\x9c", b"\x78\xda")
GZIP_HEADER = b"\x1f\x8b\x08"
_WORD_RE = re.compile(r"\w+")


def url(n: int, site: str = SITE) -> str:
    return f"https://{site}/news/{n}.html"


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower())


def prose_runs(html: str) -> set[str]:
    """The eight-word runs of the page's own prose: of each heading and paragraph of its
    <article> (a run across two paragraphs is not text the page shows)."""
    runs: set[str] = set()
    blocks = (b for article in lxml.html.fromstring(html).iter("article")
              for b in article.iter("h1", "p"))
    for block in blocks:
        found = words(" ".join(str(t) for t in block.itertext()))
        runs |= {" ".join(found[i:i + RUN_WORDS]) for i in range(len(found) - RUN_WORDS + 1)}
    return runs


def inflated_streams(data: bytes) -> list[bytes]:
    """Every zlib or gzip stream that starts somewhere in `data`, inflated (as far as it
    goes: a stream cut by a database page boundary still yields its start)."""
    out = []
    for header, wbits in [(h, zlib.MAX_WBITS) for h in ZLIB_HEADERS] + [(GZIP_HEADER, 31)]:
        start = data.find(header)
        while start >= 0:
            inflater = zlib.decompressobj(wbits)
            try:
                chunk = inflater.decompress(memoryview(data)[start:], 64 * 1024 * 1024)
            except zlib.error:
                chunk = b""
            if len(chunk) >= 32:
                out.append(chunk)
            start = data.find(header, start + 1)
    return out


def sqlite_cells(path: Path) -> list[bytes]:
    """Every cell of every table of a SQLite file, blobs inflated when they are zlib."""
    cells: list[bytes] = []
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    except sqlite3.Error:
        return cells
    for table in tables:
        for row in conn.execute(f'SELECT * FROM "{table}"'):
            for value in row:
                if isinstance(value, bytes):
                    cells.append(value)
                    try:
                        cells.append(zlib.decompress(value))
                    except zlib.error:
                        pass
                elif isinstance(value, str):
                    cells.append(value.encode())
    conn.close()
    return cells


def data_dir_text(data_dir: Path) -> set[str]:
    """The eight-word runs of everything readable in the data dir (lowercase words)."""
    blobs: list[bytes] = []
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert files, "the data dir is empty"
    for path in files:
        raw = path.read_bytes()
        blobs.append(raw)
        blobs.extend(inflated_streams(raw))
        if raw.startswith(b"SQLite format 3"):
            blobs.extend(sqlite_cells(path))
    return text_runs("\n".join(blob.decode("utf-8", "ignore") for blob in blobs))


def text_runs(text: str) -> set[str]:
    """The eight-word runs of a text, across lines and blocks (a haystack)."""
    found = words(text)
    return {" ".join(found[i:i + RUN_WORDS]) for i in range(len(found) - RUN_WORDS + 1)}


def runs_found(haystack: set[str], runs: set[str]) -> set[str]:
    return runs & haystack


def all_runs(pages: list[str]) -> set[str]:
    runs: set[str] = set()
    for page in pages:
        runs |= prose_runs(page)
    return runs


# --- through the real server ---------------------------------------------------------------------

async def dashboard_json(server: Running, path: str) -> Any:
    async with aiohttp.ClientSession() as http, http.get(
            f"{server.http}{path}", headers={"Origin": EXTENSION_ORIGIN}) as response:
        assert response.status == 200, await response.text()
        return await response.json()


@pytest.mark.asyncio
async def test_server_keeps_no_prose_of_pages_read_with_collection_off(tmp_path: Path) -> None:
    pages = [article_page(n) for n in range(6)]
    collected = article_page(100)
    async with running_server(tmp_path) as server:
        async with client(server) as c:
            for n, page in enumerate(pages):
                reply = await c.request("page", url=url(n), html=page, collect=False)
                assert reply["type"] == "result" and reply["stored"] is False
            reply = await c.request("page", url=url(0, OTHER), html=collected, collect=True)
            assert reply["stored"] is True
            await c.request("stats")  # the last page's learning ran before this
        detail = await dashboard_json(server, f"/api/sites/{SITE}")
        assert detail["pages"] == 0 and detail["pages_learned"] == 6
        shown = json.dumps(detail)
        for cluster in detail["clusters"]:
            shown += json.dumps(await dashboard_json(
                server, f"/api/sites/{SITE}/template?cluster={cluster['id']}"))
        assert not runs_found(text_runs(shown), all_runs(pages))
    with Store.open(tmp_path) as store:
        assert store.load_model_info(SITE, MODEL_KIND).version == FORMAT_VERSION  # type: ignore[union-attr]
        assert store.model_summaries(MODEL_KIND)[SITE][0]["pages"] == 6
    haystack = data_dir_text(tmp_path)
    assert runs_found(haystack, prose_runs(collected)) == prose_runs(collected)  # the scan works
    leaked = runs_found(haystack, all_runs(pages))
    assert not leaked, f"{len(leaked)} runs of prose in the data dir, e.g. {sorted(leaked)[:3]}"


# --- through the learning path (the workers' and the CLI's Learner) -------------------------------

def test_learner_keeps_no_prose_and_still_learns_the_template(tmp_path: Path) -> None:
    pages = [article_page(n) for n in range(8)]
    with Store.open(tmp_path) as store:
        learner = Learner(store)
        methods = []
        for n, page in enumerate(pages):
            visit = learner.visit(SITE, page, url(n), url(n), collect=False)
            methods.append(visit.result.method)
            learner.learn_visit(visit)
        assert methods[-1] == "template+econ"
        assert learner.save() == 1
    assert not runs_found(data_dir_text(tmp_path), all_runs(pages))
    with Store.open(tmp_path) as store:  # a restart: the saved model still explains pages
        result = Learner(store).extract(SITE, article_page(9), url(9))
        assert result.method == "template+econ"


def test_cli_learning_saves_a_model_without_prose(tmp_path: Path) -> None:
    from winnow.cli import main

    files = []
    for n in range(5):
        path = tmp_path / f"page{n}.html"
        path.write_text(article_page(n))
        files.append(str(path))
    data = tmp_path / "data"
    assert main(["learn", "--data-dir", str(data), "--site", SITE, *files]) == 0
    with Store.open(data) as store:
        saved = json.dumps(store.load_model(SITE, MODEL_KIND))
    assert '"pages_seen": 5' in saved.replace('"pages_seen":5', '"pages_seen": 5')
    assert not runs_found(text_runs(saved), all_runs([article_page(n) for n in range(5)]))


def test_real_sites_leave_no_run_of_their_gold_text(tmp_path: Path) -> None:
    """Twelve pages of each real site (the Big9 corpus: headline sidebars, link lists, bylines
    of real templates), read with collection off: no run of their gold text on disk."""
    groups = site_year_groups()
    by_site: dict[str, list[Any]] = {}
    for (site, _), cases in sorted(groups.items()):
        by_site.setdefault(site, []).extend(cases[:3])
    runs: set[str] = set()
    with Store.open(tmp_path) as store:
        learner = Learner(store)
        for site, cases in by_site.items():
            for case in cases:
                page_url = f"https://{site}.example/{case.id}.html"
                learner.learn_visit(learner.visit(site, case.html, page_url, page_url,
                                                  collect=False))
                for line in case.gold.splitlines():
                    found = words(line)
                    runs |= {" ".join(found[i:i + RUN_WORDS])
                             for i in range(len(found) - RUN_WORDS + 1)}
        assert learner.save() == len(by_site)
    assert len(runs) > 5000
    leaked = runs_found(data_dir_text(tmp_path), runs)
    assert not leaked, f"{len(leaked)} runs of gold text on disk, e.g. {sorted(leaked)[:3]}"


# --- file modes -----------------------------------------------------------------------------------

def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.asyncio
async def test_data_dir_and_every_file_in_it_are_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    export = data / "export.jsonl"  # something written there by other means
    export.write_text("{}\n")
    export.chmod(0o644)
    async with running_server(data) as server, client(server) as c:
        await c.request("page", url=url(1), html=article_page(1), collect=True)
        names = {p.name for p in data.iterdir()}
        assert {"winnow.sqlite3", "winnow.sqlite3-wal", "winnow.sqlite3-shm", "token",
                datadir.SECRET_FILENAME} <= names
        assert mode(data) == 0o700
        for path in data.iterdir():
            assert mode(path) == 0o600, f"{path.name} is {oct(mode(path))}"
    assert len((data / datadir.SECRET_FILENAME).read_bytes()) == 32


def test_loose_modes_of_an_older_install_are_tightened(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        store.add_page(SITE, url(1), article_page(1))
    tmp_path.chmod(0o755)
    for path in tmp_path.iterdir():
        path.chmod(0o644)
    with Store.open(tmp_path):
        assert mode(tmp_path) == 0o700
        assert all(mode(p) == 0o600 for p in tmp_path.iterdir())


# --- models saved by the previous format ----------------------------------------------------------

def test_old_model_is_converted_and_its_text_leaves_the_files(tmp_path: Path) -> None:
    old = json.loads(FIXTURE.read_text())
    assert old["version"] == 2
    learned = [article_page(n) for n in range(5)]
    with Store.open(tmp_path) as store:
        store.add_page(SITE, url(0), learned[0])  # a collected page: kept as it is
        store.save_model(SITE, MODEL_KIND, old, 2)
        store.checkpoint()
    assert runs_found(data_dir_text(tmp_path), all_runs(learned[1:]))  # the old model's text
    with Store.open(tmp_path) as store:
        learner = Learner(store)  # converts every old model when it opens the store
        assert store.load_model_info(SITE, MODEL_KIND).version == FORMAT_VERSION  # type: ignore[union-attr]
        assert store.count_pages() == 1
        model = learner.model(SITE)
        assert model.pages_seen == 5
        old_counts = [len(c["chunks"]["counts"]) for c in old["clusters"].values()]
        assert [len(c.chunks.counts) for c in model.clusters.values()] == old_counts
        # the keyed forms are digests of the old ones: a page learned before is still known
        # by its URL, and the template chunks still match new pages
        before = model.pages_seen
        model.add_page(parse_page(learned[2], url(2)))
        assert model.pages_seen == before
        template = model.template(parse_page(article_page(7), url(7)))
        assert template is not None and template.sources.get("chunks", 0) > 0
    assert not runs_found(data_dir_text(tmp_path), all_runs(learned[1:]))


def test_model_saved_under_another_secret_is_relearned(tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    with Store.open(tmp_path) as store:
        learner = Learner(store)
        for n in range(3):
            learner.learn_visit(learner.visit(SITE, article_page(n), url(n), url(n),
                                              collect=False))
        learner.save()
    (tmp_path / datadir.SECRET_FILENAME).unlink()
    with Store.open(tmp_path) as store:
        assert Learner(store).model(SITE).pages_seen == 0
    assert "another secret key" in caplog.text
    data = SiteModel(SITE, keyer=Keyer(b"k" * 32)).to_json()
    with pytest.raises(ValueError, match="another secret"):
        SiteModel.from_json(data, Keyer(b"j" * 32))


# --- forgetting a site ----------------------------------------------------------------------------

async def post(server: Running, path: str, headers: dict[str, str],
               body: str = "{}") -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.post(
            f"{server.http}{path}", data=body, headers=headers) as response:
        return response.status, await response.text()


@pytest.mark.asyncio
async def test_forget_this_site_over_http_deletes_pages_and_model(tmp_path: Path) -> None:
    own = {"Origin": "http://127.0.0.1:{port}", "Content-Type": "application/json",
           "Sec-Fetch-Site": "same-origin"}
    async with running_server(tmp_path) as server:
        origin = {**own, "Origin": own["Origin"].format(port=server.port)}
        async with client(server) as c:
            for n in range(4):
                await c.request("page", url=url(n), html=article_page(n), collect=n < 2)
            await c.request("page", url=url(1, OTHER), html=article_page(50), collect=True)
            await c.request("stats")
        path = f"/api/sites/{SITE}/forget"
        refused = [
            {"Origin": "https://evil.example", "Content-Type": "application/json"},
            {**origin, "Content-Type": "application/x-www-form-urlencoded"},  # a form's post
            {**origin, "Content-Type": "text/plain"},
            {"Content-Type": "application/json"},  # no origin, no token
            {**origin, "Host": "evil.example"},  # DNS rebinding
        ]
        for headers in refused:
            status, _ = await post(server, path, headers)
            assert status == 403, headers
        async with aiohttp.ClientSession() as http, http.get(
                f"{server.http}{path}", headers=origin) as response:
            assert response.status == 405  # a link or an image cannot forget a site
        assert (await dashboard_json(server, f"/api/sites/{SITE}"))["pages_learned"] == 4
        status, text = await post(server, path, origin)
        assert status == 200, text
        assert json.loads(text) == {"site": SITE, "forgotten": True, "pages_deleted": 2}
        async with aiohttp.ClientSession() as http, http.get(
                f"{server.http}/api/sites/{SITE}", headers={"Origin": EXTENSION_ORIGIN}) as r:
            assert r.status == 404
        sites = {s["site"] for s in (await dashboard_json(server, "/api/sites"))["sites"]}
        assert sites == {OTHER}
        status, _ = await post(server, f"/api/sites/{OTHER}/forget",
                               {"X-Winnow-Token": server.token})  # the token alone will do
        assert status == 200
    with Store.open(tmp_path) as store:
        assert store.count_pages() == 0 and store.load_model(SITE, MODEL_KIND) is None
        assert store.sites() == []


@pytest.mark.asyncio
async def test_forget_site_over_the_websocket_deletes_the_saved_model(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        for n in range(3):
            await c.request("page", url=url(n), html=article_page(n), collect=False)
    with Store.open(tmp_path) as store:  # saved when the server stopped
        assert store.load_model(SITE, MODEL_KIND) is not None
    async with running_server(tmp_path) as server, client(server) as c:
        forgotten = await c.request("forget_site", site=SITE)
        assert forgotten["type"] == "forgotten" and forgotten["pages_deleted"] == 0
        with Store.open(tmp_path) as store:
            assert store.load_model(SITE, MODEL_KIND) is None and store.sites() == []
        again = await c.request("page", url=url(5), html=article_page(5), collect=False)
        assert again["model"]["pages"] == 0


@pytest.mark.asyncio
@pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.environ.get("CI"),
                    reason="Debian's chromium is not installed (make chromium)")
async def test_forget_this_site_button_on_the_dashboard_in_chromium(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright, expect

    async with running_server(tmp_path) as server:
        async with client(server) as c:
            for n in range(3):
                await c.request("page", url=url(n), html=article_page(n), collect=n == 0)
            await c.request("page", url=url(1, OTHER), html=article_page(60), collect=True)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True)
            try:
                page = await browser.new_page(viewport={"width": 1280, "height": 900})
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                asked: list[str] = []

                async def accept(dialog: Any) -> None:
                    asked.append(dialog.message)
                    await dialog.accept()

                page.on("dialog", accept)
                await page.goto(f"{server.http}/")
                await page.wait_for_selector("body[data-ready='true']")
                await page.click(f"#sites tr[data-site='{SITE}']")
                await expect(page.locator("#site-title")).to_have_text(SITE)
                await page.click("#forget")
                await expect(page.locator("#summary")).to_contain_text(
                    f"forgot {SITE} (1 pages deleted)")
                assert asked and SITE in asked[0]
                assert await page.locator(f"#sites tr[data-site='{SITE}']").count() == 0
                assert await page.locator(f"#sites tr[data-site='{OTHER}']").count() == 1
                ARTIFACTS.mkdir(exist_ok=True)
                await page.screenshot(path=str(ARTIFACTS / "dashboard_forgot_site.png"),
                                      full_page=True)
                assert errors == []
            finally:
                await browser.close()
        async with aiohttp.ClientSession() as http, http.get(
                f"{server.http}/api/sites/{SITE}", headers={"Origin": EXTENSION_ORIGIN}) as r:
            assert r.status == 404
    with Store.open(tmp_path) as store:
        assert store.load_model(SITE, MODEL_KIND) is None and store.count_pages() == 1
