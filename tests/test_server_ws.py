"""The WebSocket protocol against a real server on a free port: hello, ping, pages stored and
learned from, stats, settings, forgetting, exports, restart persistence."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from server_helpers import Client, article_page, client, running_server
from winnow.server.protocol import PROTOCOL_VERSION

pytestmark = pytest.mark.asyncio

URL = "https://www.planet.example/news/{n}.html"


async def send_page(c: Client, n: int, collect: bool = True) -> dict[str, object]:
    return await c.request("page", url=URL.format(n=n), html=article_page(n),
                           title=f"Report {n}", collect=collect)


async def test_hello_and_ping(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        hello = await c.request("hello", client={"name": "test", "version": "1",
                                                 "browser": "none"})
        assert hello["protocol"] == PROTOCOL_VERSION
        assert hello["server"]["name"] == "winnow"
        assert hello["settings"]["max_message_bytes"] == 32 * 1024 * 1024
        assert (await c.request("ping"))["type"] == "pong"


async def test_pages_are_stored_before_the_reply_and_learned_after(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        replies = [await send_page(c, n) for n in range(4)]
        assert [r["stored"] for r in replies] == [True] * 4
        assert len({r["page_id"] for r in replies}) == 4
        assert {r["site"] for r in replies} == {"planet.example"}
        # Each page is extracted with what the pages before it taught: the second page of
        # the template is the first one its learned cluster explains.
        assert [r["model"]["pages"] for r in replies] == [0, 1, 2, 3]
        assert [r["method"] for r in replies] == ["econ", "template+econ", "template+econ",
                                                  "template+econ"]
        assert replies[3]["model"]["cluster"] == replies[2]["cluster"]
        assert replies[0]["article"]["title"].startswith("Report number 0")
        assert {"server", "queue", "total"} <= set(replies[0]["timing_ms"])


async def test_uncollected_pages_are_learned_not_stored(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        replies = [await send_page(c, n, collect=False) for n in range(3)]
        assert [(r["stored"], r["page_id"]) for r in replies] == [(False, None)] * 3
        assert replies[2]["method"] == "template+econ"
        stats = await c.request("stats")
        assert stats["pages"] == 0


async def test_site_settings_collect_turns_storing_on(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        read = await c.request("site_settings", site="www.planet.example")
        assert read["site"] == "planet.example" and read["settings"] == {"collect": False}
        written = await c.request("site_settings", site="planet.example", collect=True)
        assert written["settings"] == {"collect": True}
        unsaid = await c.request("page", url=URL.format(n=1), html=article_page(1))
        assert unsaid["stored"] is True
        assert (await send_page(c, 2, collect=False))["stored"] is False
        stats = await c.request("stats", site="planet.example")
        assert stats["sites"][0]["collect"] is True and stats["pages"] == 1


async def test_forget_site_removes_pages_and_model(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        for n in range(3):
            await send_page(c, n)
        forgotten = await c.request("forget_site", site="planet.example")
        assert forgotten == {"v": 1, "id": forgotten["id"], "type": "forgotten",
                             "site": "planet.example", "pages_deleted": 3}
        assert (await c.request("stats"))["sites"] == []
        again = await send_page(c, 7)
        assert again["model"]["pages"] == 0 and again["method"] == "econ"


async def test_export_stored_and_sent_pages(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        stored = await send_page(c, 3)
        markdown = await c.request("export", format="markdown", page_id=stored["page_id"])
        assert markdown["filename"].endswith(".md")
        assert "Report number 3" in markdown["content"]
        sent = await c.request("export", format="json", url=URL.format(n=5),
                               html=article_page(5))
        assert json.loads(sent["content"])["title"]
        missing = await c.request("export", format="csv", page_id=999)
        assert missing["code"] == "not_found"


async def test_replies_to_concurrent_requests_echo_their_ids(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        messages = [{"v": 1, "id": n, "type": "page", "url": URL.format(n=n),
                     "html": article_page(n)} for n in range(6)]
        messages.append({"v": 1, "id": "p", "type": "ping"})
        await asyncio.gather(*(c.ws.send(json.dumps(m)) for m in messages))
        replies = [await c.reply() for _ in messages]
        assert sorted(str(r["id"]) for r in replies) == sorted(str(m["id"]) for m in messages)
        assert all(r["type"] in ("result", "pong") for r in replies)


async def test_pages_and_models_survive_a_restart(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        ids = [(await send_page(c, n))["page_id"] for n in range(3)]
    async with running_server(tmp_path) as server, client(server) as c:
        stats = await c.request("stats")
        assert stats["pages"] == 3 and stats["sites"][0]["clusters"] == 1
        after = await send_page(c, 4)
        assert after["model"]["pages"] == 3 and after["method"] == "template+econ"
        assert after["page_id"] not in ids
        exported = await c.request("export", format="csv", page_id=ids[0])
        assert exported["media_type"].startswith("text/csv")
