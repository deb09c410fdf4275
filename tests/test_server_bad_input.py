"""Bad input over the WebSocket: every case gets a clear error and the connection stays
usable (a ping right after is answered); pages already stored are untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from server_helpers import Client, article_page, client, running_server

pytestmark = pytest.mark.asyncio

LIMIT = 256 * 1024
"""A small message limit for these tests, so oversize messages are quick to send."""
URL = "https://news.example/a"


async def still_usable(c: Client) -> None:
    assert (await c.request("ping"))["type"] == "pong"


def page(html: str, request_id: object = "pg", ascii_only: bool = True) -> str:
    """A page message; `ascii_only=False` sends non-ASCII characters as UTF-8, not escapes."""
    return json.dumps({"v": 1, "id": request_id, "type": "page", "url": URL, "html": html},
                      ensure_ascii=ascii_only)


# (frame sent, expected code, expected id, words the message must contain)
CASES = [
    ("{", "bad_json", None, "not valid JSON"),
    ('{"v": 1, "id": "t1", "type": "ping"', "bad_json", "t1", "not valid JSON"),
    ("[1, 2]", "invalid", None, "JSON object"),
    ('"ping"', "invalid", None, "JSON object"),
    ('{"v": 2, "id": 3, "type": "ping"}', "unsupported_version", 3, "version 2"),
    ('{"v": 1, "id": 4, "type": "teleport"}', "unknown_type", 4, "'teleport'"),
    ('{"v": 1, "id": 5}', "unknown_type", 5, "no type"),
    ('{"id": 6, "type": "ping"}', "invalid", 6, "'v' is a required property"),
    ('{"v": 1, "id": 7, "type": "page", "url": "https://a.example/"}', "invalid", 7,
     "'html' is a required property"),
    ('{"v": 1, "id": 8, "type": "page", "url": 5, "html": "<p>x</p>"}', "invalid", 8,
     "field 'url' must be of type string"),
    ('{"v": 1, "id": 9, "type": "ping", "colect": true}', "invalid", 9, "'colect'"),
    ('{"v": 1, "id": 10, "type": "page", "url": "about:blank", "html": "<p>x</p>"}',
     "invalid", 10, "no host"),
    ('{"v": 1, "id": 11, "type": "site_settings", "site": "a.example", "collect": "yes"}',
     "invalid", 11, "field 'collect' must be of type boolean"),
    ('{"v": 1, "id": 12, "type": "export", "format": "pdf", "page_id": 1}', "invalid", 12,
     "format"),
    ('{"v": 1, "id": 13, "type": "export", "format": "csv"}', "invalid", 13, ""),
    ('{"v": 1, "id": 14, "type": "export", "format": "csv", "page_id": 424242}', "not_found",
     14, "424242"),
    (page(""), "bad_page", "pg", "empty"),
    ('{"v": 1, "id": 15, "type": "stats", "site": "   "}', "invalid", 15, "site"),
    ('{"v": 1, "id": 16, "type": "forget_site", "site": "."}', "invalid", 16, "site"),
    ("[" * 100_000 + "]" * 100_000, "bad_json", None, "nested too deeply"),
    ('{"v": 1, "id": ' + '"' + "x" * 100 + '", "type": "ping"}', "invalid", None, "longer"),
]


async def test_every_bad_message_gets_a_clear_error_and_the_socket_stays_open(
        tmp_path: Path) -> None:
    async with running_server(tmp_path, max_message_bytes=LIMIT) as server, \
            client(server) as c:
        stored = await c.request("page", url=URL, html=article_page(1), collect=True)
        for frame, code, request_id, words in CASES:
            reply = await c.raw(frame)
            assert (reply["code"], reply["id"]) == (code, request_id), (frame[:80], reply)
            assert words in reply["message"], reply
            assert len(reply["message"]) < 500
            await still_usable(c)
        exported = await c.request("export", format="json", page_id=stored["page_id"])
        assert "Report number 1" in exported["content"]


async def test_binary_frames_are_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        for frame in (b"\x00\xff\xfe", json.dumps({"v": 1, "type": "ping"}).encode()):
            reply = await c.raw(frame)
            assert reply["code"] == "binary_frame" and "JSON text" in reply["message"]
        await still_usable(c)


async def test_oversize_messages_get_too_large_with_their_id(tmp_path: Path) -> None:
    async with running_server(tmp_path, max_message_bytes=LIMIT) as server, \
            client(server) as c:
        reply = await c.raw(page("<p>" + "a" * LIMIT + "</p>", request_id="big"))
        assert (reply["code"], reply["id"]) == ("too_large", "big")
        assert f"{LIMIT:,}" in reply["message"]
        # Characters under the limit, UTF-8 bytes over it.
        reply = await c.raw(page("é" * (LIMIT // 2 + 10), "utf8", ascii_only=False))
        assert (reply["code"], reply["id"]) == ("too_large", "utf8")
        await still_usable(c)


@pytest.mark.parametrize("html", [
    "<div>" * 10_000 + "deep" + "</div>" * 10_000,
    "<ul>" + "<li>item, one of many</li>" * 100_000 + "</ul>",
    "<html><body><p>unclosed <b>bold <i>italic <table><tr><td>cell</p></body>",
    "\x00\x01\x02 binary \ufffd garbage \udcff",
    "plain text, no markup at all.",
], ids=["deep", "siblings", "malformed", "binary", "text"])
async def test_broken_html_gets_a_result(tmp_path: Path, html: str) -> None:
    async with running_server(tmp_path) as server, client(server) as c:
        reply = await c.raw(page(html))
        assert reply["type"] == "result" and reply["kind"] in ("article", "thread", "other")
        await still_usable(c)
