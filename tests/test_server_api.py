"""The HTTP API (sites, a site's clusters and template, reader view, exports) and the
dashboard in real Chromium, with a screenshot saved under test-artifacts/."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from server_helpers import EXTENSION_ORIGIN, Running, article_page, client, running_server
from winnow.store import Store

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
SITE = "planet.example"
HOSTILE = ("<html><body><article><h1>Hostile page</h1>"
           "<p>The council met on Tuesday, and it voted on the budget after a debate.</p>"
           "<p onclick=\"steal()\">It was a long meeting, and the vote was close in the end."
           "<img src=\"x.png\" onerror=\"steal()\"> <a href=\"javascript:steal()\">link</a></p>"
           "<script>steal()</script><p>The mayor said the city would appeal, and that the "
           "judges had erred.</p></article></body></html>")


async def fill(server: Running, pages: int = 4) -> list[int]:
    """Store `pages` pages of one template and a hostile page; return the page ids."""
    ids = []
    async with client(server) as c:
        for n in range(pages):
            reply = await c.request("page", url=f"https://www.{SITE}/news/{n}.html",
                                    html=article_page(n), collect=True)
            ids.append(reply["page_id"])
        reply = await c.request("page", url="https://other.example/x", html=HOSTILE,
                                collect=True)
        ids.append(reply["page_id"])
    return ids


async def get(server: Running, path: str) -> tuple[int, dict[str, str], str]:
    async with aiohttp.ClientSession() as http, http.get(
            f"{server.http}{path}", headers={"Origin": EXTENSION_ORIGIN}) as response:
        return response.status, dict(response.headers), await response.text()


async def get_json(server: Running, path: str) -> Any:
    status, _, text = await get(server, path)
    assert status == 200, text
    return json.loads(text)


async def test_healthz(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        health = await get_json(server, "/healthz")
        assert health["ok"] is True and health["protocol"] == 1


async def test_sites_and_site_details(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        await fill(server)
        listing = await get_json(server, "/api/sites")
        by_site = {s["site"]: s for s in listing["sites"]}
        assert by_site[SITE]["pages"] == 4 and listing["pages"] == 5
        assert by_site[SITE]["pages_learned"] == 4 and by_site[SITE]["clusters"] == 1
        assert sum(d["pages"] for d in listing["per_day"]) == 5
        detail = await get_json(server, f"/api/sites/www.{SITE}")
        assert detail["site"] == SITE and detail["pages_learned"] == 4
        [cluster] = detail["clusters"]
        assert cluster["pages"] == 4 and cluster["active"] and cluster["pages_stored"] == 4
        assert len(detail["recent"]) == 4 and detail["recent"][0]["url"].endswith("3.html")
        template = await get_json(server, f"/api/sites/{SITE}/template?cluster={cluster['id']}")
        roles = {s["role"] for s in template["sections"]}
        assert "main" in roles
        static = [s["sample"] for s in template["sections"] if s["static"]]
        varying = [s["sample"] for s in template["sections"] if not s["static"]]
        assert any("copyright" in s for s in static), static
        assert len(varying) >= 2, varying
        assert (await get(server, "/api/sites/unknown.example"))[0] == 404
        assert (await get(server, f"/api/sites/{SITE}/template?cluster=999"))[0] == 404
        assert (await get(server, f"/api/sites/{SITE}/template?cluster=x"))[0] == 400


async def test_reader_is_a_sanitized_standalone_page(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        ids = await fill(server, pages=1)
        status, headers, text = await get(server, f"/api/pages/{ids[-1]}/reader")
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        assert "script-src" not in headers["Content-Security-Policy"]
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert "<h1>Hostile page</h1>" in text and "appeal" in text
        lowered = text.lower()
        for bad in ("<script", "onclick", "onerror", "javascript:", "steal()"):
            assert bad not in lowered, bad
        assert (await get(server, "/api/pages/9999/reader"))[0] == 404


async def test_export_downloads(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        ids = await fill(server, pages=1)
        status, headers, text = await get(server, f"/api/pages/{ids[0]}/export?format=markdown")
        assert status == 200 and headers["Content-Type"].startswith("text/markdown")
        assert headers["Content-Disposition"].startswith("attachment; filename=")
        assert "Report number 0" in text
        status, headers, text = await get(server, f"/api/pages/{ids[0]}/export?format=csv")
        assert status == 200 and text.splitlines()[0].startswith("position")
        assert (await get(server, f"/api/pages/{ids[0]}/export?format=pdf"))[0] == 400
        assert (await get(server, "/api/pages/9999/export?format=json"))[0] == 404


HISTORY_DAYS = 6


def seed_history(data_dir: Path) -> None:
    """Pages stored on the days before today, so the chart has a history to draw."""
    day = 86_400
    today = time.time() // day * day
    with Store.open(data_dir) as store:
        for back in range(1, HISTORY_DAYS):
            for site, count in history(back).items():
                for n in range(count):
                    store.add_page(site, f"https://{site}/old/{back}/{n}", article_page(n),
                                   seen_at=today - back * day + n)


def history(back: int) -> dict[str, int]:
    """Pages stored per site `back` days ago."""
    return {SITE: back % 3 + 1, "other.example": 4 - back % 4}


@pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.environ.get("CI"),
                    reason="Debian's chromium is not installed (make chromium)")
async def test_dashboard_in_chromium(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright, expect

    data_dir = tmp_path / "data"
    seed_history(data_dir)
    async with running_server(data_dir) as server:
        await fill(server)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True)
            try:
                page = await browser.new_page(viewport={"width": 1280, "height": 1100})
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                await page.goto(f"{server.http}/")
                await page.wait_for_selector("body[data-ready='true']")
                stored = 5 + sum(sum(history(back).values()) for back in range(1, HISTORY_DAYS))
                assert f"2 sites · {stored} pages stored · 5 pages learned" in \
                    await page.inner_text("#summary")
                assert await page.locator("#per-day polyline").count() == 2
                assert await page.locator("#per-day circle").count() == 2 * HISTORY_DAYS
                await page.click(f"#sites tr[data-site='{SITE}']")
                await expect(page.locator("#site-title")).to_have_text(SITE)
                await page.wait_for_selector("#clusters tbody tr")
                assert await page.locator("#cluster-sizes rect.bar").count() == 1
                await page.click("#clusters button")
                await page.wait_for_selector("#sections li.static")
                assert await page.locator("#sections li.varying").count() >= 1
                ARTIFACTS.mkdir(exist_ok=True)
                await page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)
                assert errors == []
            finally:
                await browser.close()
