"""A Firefox smoke test: the same extension folder, run by Firefox (web-ext, headless), loads
its background module, connects to the server address of its config over plain ws:// (the
manifest's CSP keeps Firefox from upgrading it to TLS), says hello as Firefox and keeps the
connection alive with pings.

A recording WebSocket server stands in for `winnow serve`, so the test sees the Origin header
and the messages themselves. Runs where Firefox and npx are installed (`make test` installs
them); skipped otherwise, except under CI, where a missing Firefox fails the test."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import EXTENSION, WEB_EXT, free_port, wait_for

FIREFOX = next((Path(p) for p in ("/usr/bin/firefox-esr", "/usr/bin/firefox") if Path(p).exists()),
               None)

pytestmark = pytest.mark.skipif(
    (FIREFOX is None or shutil.which("npx") is None) and not os.environ.get("CI"),
    reason="Firefox or npx is not installed")


class Recorder:
    """A WebSocket endpoint that answers hello and ping like the server and records what it
    got, with the Origin of each connection."""

    def __init__(self) -> None:
        self.port = free_port()
        self.origins: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    async def handle(self, request: Any) -> Any:
        from aiohttp import web

        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.origins.append(request.headers.get("Origin", ""))
        async for frame in ws:
            message = json.loads(frame.data)
            self.messages.append(message)
            reply = {"hello": {"server": {"name": "recorder", "version": "0"}, "protocol": 1},
                     "ping": {}}.get(message.get("type"))
            if reply is not None:
                await ws.send_json({"v": 1, "id": message.get("id"), "type":
                                    "pong" if message["type"] == "ping" else "hello", **reply})
        return ws

    def start(self) -> None:
        from aiohttp import web

        app = web.Application()
        app.add_routes([web.get("/ws", self.handle)])
        self.runner = web.AppRunner(app)

        async def run() -> None:
            await self.runner.setup()
            await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

        self.thread.start()
        asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout=10)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)

    def types(self) -> list[str]:
        return [message.get("type", "") for message in self.messages]


def test_firefox_loads_the_extension_and_connects(tmp_path: Path) -> None:
    if FIREFOX is None or shutil.which("npx") is None:
        pytest.fail("Firefox or npx is missing and CI is set: scripts/install-browser-deps "
                    "installs them")
    recorder = Recorder()
    recorder.start()
    ext = tmp_path / "extension"
    shutil.copytree(EXTENSION, ext)
    config = json.loads((ext / "config.json").read_text())
    config.update(server=f"ws://127.0.0.1:{recorder.port}/ws", keepaliveMs=500)
    (ext / "config.json").write_text(json.dumps(config))
    run = subprocess.Popen(
        [str(shutil.which("npx")), "--yes", WEB_EXT, "run", "--source-dir", str(ext),
         f"--firefox={FIREFOX}", "--no-input", "--no-reload",
         f"--firefox-profile={tmp_path / 'profile'}", "--profile-create-if-missing"],
        env={**os.environ, "MOZ_HEADLESS": "1"}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: "ping" in recorder.types(), timeout=90, what="hello and a ping")
        assert recorder.origins[0].startswith("moz-extension://")
        hello = recorder.messages[0]
        assert hello["type"] == "hello" and hello["client"]["browser"] == "firefox"
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        try:
            run.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
        recorder.stop()
