"""Helpers for the server tests: a real server on a free port, a `websockets` client, the
protocol schema, and small article pages of one site template."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import websockets
from aiohttp import web
from aiohttp.test_utils import TestServer
from winnow.server import protocol
from winnow.server.app import create_app
from winnow.server.state import ServerConfig

EXTENSION_ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"


def validate(message: dict[str, Any], side: str = "server_message") -> None:
    """Check a message against the protocol schema (`server_message` or `client_message`),
    with the server's compiled validator of that definition (shared/protocol.schema.json,
    linked into the package)."""
    protocol.validator(side).validate(message)


@dataclass
class Running:
    """A running server: its port, data dir, token and application."""

    port: int
    data_dir: Path
    app: web.Application

    @property
    def token(self) -> str:
        return (self.data_dir / "token").read_text("ascii").strip()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@asynccontextmanager
async def running_server(data_dir: Path, **options: Any) -> AsyncIterator[Running]:
    """Start the real app on a free loopback port (one worker unless told) and stop it."""
    options.setdefault("workers", 1)
    options.setdefault("heartbeat_s", None)
    config = ServerConfig(data_dir=data_dir, port=0, **options)
    server = TestServer(create_app(config), host="127.0.0.1")
    await server.start_server()
    try:
        yield Running(server.port or 0, data_dir, server.app)
    finally:
        await server.close()


class Client:
    """A `websockets` connection speaking the protocol, checking every reply's schema."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.counter = 0

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send one request with a fresh id and return its reply."""
        self.counter += 1
        message = {"v": 1, "id": f"r{self.counter}", "type": kind, **fields}
        validate(message, "client_message")
        await self.ws.send(json.dumps(message))
        return await self.reply(message["id"])

    async def reply(self, request_id: Any = None) -> dict[str, Any]:
        """The next reply (checked against the schema, and its id when given)."""
        data = json.loads(await self.ws.recv())
        validate(data)
        if request_id is not None:
            assert data["id"] == request_id, data
        return data

    async def raw(self, frame: str | bytes) -> dict[str, Any]:
        """Send a frame as is and return the next reply."""
        await self.ws.send(frame)
        return await self.reply()


@asynccontextmanager
async def client(server: Running, origin: str | None = EXTENSION_ORIGIN,
                 **headers: str) -> AsyncIterator[Client]:
    """A connected client with the extension's Origin (or the given headers)."""
    async with websockets.connect(server.url, origin=origin, max_size=None,  # type: ignore[arg-type]
                                  additional_headers=headers or None) as ws:
        yield Client(ws)


WORDS = ("harbor bridge council budget river school museum statue farmer valley drought "
         "orchestra ferry library nurse hospital market festival winter spring audit mayor "
         "vote debate grant report robot team prize trees volunteers ministry station "
         "railway tunnel garden bakery bread climate storm flood coast island village "
         "mountain glacier forest wolf salmon harvest wheat barley vineyard copper mine "
         "factory workers union strike wages pension court judge appeal verdict senator "
         "election ballot census theater painter novel poet archive letter stamp coin").split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(9, 16))]
    words.insert(rng.randint(3, 6), "and,")
    return " ".join(words).capitalize() + "."


def article_page(n: int) -> str:
    """A news page of one template: navigation, a story of its own, a footer."""
    rng = random.Random(n)
    story = "".join(f"<p>{' '.join(_sentence(rng) for _ in range(3))}</p>" for _ in range(4))
    nav = "".join(f"<li><a href='/{s}'>{s.title()}</a></li>"
                  for s in ("world", "politics", "business", "science"))
    return (f"<html><head><title>Report {n}</title></head><body><header><ul>{nav}</ul>"
            f"</header><main><article><h1>Report number {n}: {_sentence(rng)}</h1>{story}"
            f"</article></main><footer><p>Copyright Planet News, all rights reserved.</p>"
            f"</footer></body></html>")
