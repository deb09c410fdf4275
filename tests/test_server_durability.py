"""The server under stress: pings stay fast while a 20 MB page is processed, and a server
killed with SIGKILL while storing pages loses none it reported stored and starts again."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from server_helpers import EXTENSION_ORIGIN, article_page, client, running_server
from winnow.server.state import STATE
from winnow.store import Store

PING_BUDGET_S = 0.1
"""Issue 5: a ping answers within 100 ms while a 20 MB page is being processed."""
BIG_PAGE_BYTES = 20 * 1024 * 1024
MIN_PINGS = 5
"""Pings that must be answered while the big page is in the worker, for the proof to count."""
ON_TIME_SHARE = 0.9
"""Share of those pings that must answer within the budget. A blocked event loop delays every
ping for as long as it is blocked (a thread-pool server stalled 260 ms at a time on this
page), so this catches it, while a neighbour process taking the CPU for a moment on this
shared 2-core machine cannot fail the test. Unloaded, every ping answers in under 10 ms."""


def big_page() -> str:
    """A 20 MB article: long paragraphs, so it is heavy to parse and read but not slow to
    extract (about a second)."""
    paragraph = ("<p>" + "The committee heard evidence, and it adjourned until the spring. "
                 * 150 + "</p>\n")
    count = BIG_PAGE_BYTES // len(paragraph) + 1
    return f"<html><body><article><h1>A long report</h1>{paragraph * count}</article></body></html>"


@pytest.mark.asyncio
async def test_ping_answers_within_100_ms_while_a_20_mb_page_is_processed(
        tmp_path: Path) -> None:
    html = big_page()
    assert len(html) >= BIG_PAGE_BYTES
    message = json.dumps({"v": 1, "id": "big", "type": "page", "url": "https://big.example/",
                          "html": html})
    async with running_server(tmp_path) as server, client(server) as c:
        await c.request("ping")  # warm
        await c.ws.send(message)
        result: dict[str, object] = {}
        rtts: list[float] = []
        waiting = asyncio.ensure_future(c.ws.recv())
        # The first ping shares the socket with the page's 20 MB frame; time the ones after
        # the server has read the page, while the worker extracts it.
        n = 0
        while not result:
            n += 1
            sent = time.perf_counter()
            await c.ws.send(json.dumps({"v": 1, "id": f"p{n}", "type": "ping"}))
            while True:
                reply = json.loads(await waiting)
                waiting = asyncio.ensure_future(c.ws.recv())
                if reply["id"] == "big":
                    result = reply
                    break
                assert reply == {"v": 1, "id": f"p{n}", "type": "pong"}
                if n > 1:
                    rtts.append(time.perf_counter() - sent)
                break
            await asyncio.sleep(0.02)
        waiting.cancel()
        assert result["type"] == "result" and result["kind"] == "article"
        assert len(rtts) >= MIN_PINGS, f"the page took only {len(rtts)} pings"
        fast = sum(1 for rtt in rtts if rtt < PING_BUDGET_S)
        assert fast >= ON_TIME_SHARE * len(rtts), sorted(rtts)[-5:]
        # The worker's heap grew for the big page: it is recycled, not kept at that size.
        workers = server.app[STATE].workers
        assert (await c.request("ping"))["type"] == "pong"
        for _ in range(100):
            if workers.recycled:
                break
            await asyncio.sleep(0.05)
        assert workers.recycled == 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    """`winnow serve` in its own process group (the server, its workers, the forkserver)."""
    return subprocess.Popen(
        [sys.executable, "-m", "winnow.cli", "serve", "--port", str(port), "--data-dir",
         str(data_dir), "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)


async def connect(port: int):  # type: ignore[no-untyped-def]
    """Connect once the server listens (it takes a moment to start its workers)."""
    import websockets

    deadline = time.monotonic() + 30
    while True:
        try:
            return await websockets.connect(f"ws://127.0.0.1:{port}/ws", origin=EXTENSION_ORIGIN)
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def group_gone(pgid: int, timeout: float = 15.0) -> bool:
    """Wait until no process of the group is left (the workers exit with the server)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.1)
    return False


@pytest.mark.asyncio
async def test_sigkill_while_storing_loses_no_page_reported_stored(tmp_path: Path) -> None:
    port = free_port()
    process = start_server(tmp_path, port)
    stored: dict[int, str] = {}
    try:
        ws = await connect(port)
        sites = ("one.example", "two.example", "three.example")
        for n in range(12):
            await ws.send(json.dumps({
                "v": 1, "id": n, "type": "page", "url": f"https://{sites[n % 3]}/{n}",
                "html": article_page(n), "collect": True}))
        replies = 0
        while replies < 6:
            reply = json.loads(await ws.recv())
            replies += 1
            if reply.get("stored"):
                stored[reply["page_id"]] = reply["site"]
        os.kill(process.pid, signal.SIGKILL)  # mid-stream: 6 more pages are in flight
        process.wait(10)
        await ws.close()
        assert await group_gone(process.pid), "worker processes outlived the killed server"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()
    assert len(stored) >= 6
    with Store.open(tmp_path) as store:
        for page_id, site in stored.items():
            page = store.get_page(page_id)
            assert page is not None and page.site == site and not page.corrupt
    process = start_server(tmp_path, port)
    try:
        ws = await connect(port)
        await ws.send(json.dumps({"v": 1, "id": "s", "type": "stats"}))
        stats = json.loads(await ws.recv())
        assert stats["pages"] >= len(stored)
        await ws.send(json.dumps({"v": 1, "id": "after", "type": "page",
                                  "url": "https://one.example/new", "html": article_page(99),
                                  "collect": True}))
        assert json.loads(await ws.recv())["stored"] is True
        await ws.close()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.mark.asyncio
async def test_a_crashed_worker_is_replaced(tmp_path: Path) -> None:
    site = "a.example"
    async with running_server(tmp_path) as server, client(server) as c:
        first = await c.request("page", url=f"https://{site}/1", html=article_page(1),
                                collect=True)
        assert first["stored"]
        workers = server.app[STATE].workers
        os.kill(await workers.run(site, os.getpid), signal.SIGKILL)
        crashed = await c.request("page", url=f"https://{site}/2", html=article_page(2))
        assert crashed["code"] == "internal" and "died" in crashed["message"]
        after = await c.request("page", url=f"https://{site}/3", html=article_page(3))
        assert after["type"] == "result" and after["model"]["pages"] >= 0
        assert (await c.request("stats"))["pages"] == 1


@pytest.mark.asyncio
async def test_a_worker_over_its_memory_limit_is_recycled_without_losing_learning(
        tmp_path: Path) -> None:
    site = "planet.example"
    async with running_server(tmp_path, worker_memory_mb=1) as server, client(server) as c:
        workers = server.app[STATE].workers
        before = await workers.run(site, os.getpid)
        replies = [await c.request("page", url=f"https://{site}/{n}", html=article_page(n),
                                   collect=True) for n in range(4)]
        after = await workers.run(site, os.getpid)
        assert workers.recycled == 1 and after != before
        assert [r["model"]["pages"] for r in replies] == [0, 1, 2, 3]
        assert replies[3]["method"] == "template+econ"
