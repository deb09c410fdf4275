"""The `/ws` endpoint: one WebSocket per extension, many requests in flight on it.

Each text frame is checked (`protocol.parse_request`) and answered; `hello` and `ping` are
answered at once, in the reading loop, and the other types run as tasks, so a slow page does
not hold up a ping and replies may come out of order (each echoes its request's `id`). At
most `MAX_IN_FLIGHT` requests of one connection run at once; past that the server stops
reading the socket until one finishes (TCP back-pressure instead of unbounded memory).

Every failure is an `error` reply and the connection stays open: binary frames, invalid
JSON, oversize messages (checked here against `max_message_bytes`; aiohttp's own limit is set
higher so the client gets `too_large` instead of a closed socket), unknown types, schema
violations, pages that are not pages, crashed workers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from aiohttp import WSMsgType, web

from winnow import __version__
from winnow.page import PageError
from winnow.server import logs, protocol, worker
from winnow.server.protocol import ProtocolError, Request, envelope, error_message
from winnow.server.state import STATE, ServerState
from winnow.server.workers import WorkerCrashed
from winnow.sitekeys import normalize_site, site_key

log = logging.getLogger(__name__)

STATS_FIELDS = ("site", "pages", "clusters", "collect", "last_seen")
"""What `stats` reports per site (docs/protocol.md)."""
MAX_IN_FLIGHT = 16
"""Requests of one connection processed at once; more wait, unread, in the socket."""
FRAME_SLACK = 2
"""aiohttp's frame limit is this many times `max_message_bytes`: messages between the two
get the `too_large` error, beyond it aiohttp closes the socket with code 1009."""


async def websocket(request: web.Request) -> web.WebSocketResponse:
    """Upgrade (security was checked by the middleware) and serve messages until close."""
    state = request.app[STATE]
    ws = web.WebSocketResponse(max_msg_size=state.config.max_message_bytes * FRAME_SLACK,
                               heartbeat=state.config.heartbeat_s)
    await ws.prepare(request)
    session = Session(ws, state)
    async for message in ws:
        received = time.perf_counter()
        if message.type == WSMsgType.TEXT:
            await session.receive(message.data, received)
        elif message.type == WSMsgType.BINARY:
            await session.send(error_message(
                "binary_frame", "binary frames are not part of the protocol: send each "
                "message as JSON text", None))
        elif message.type == WSMsgType.ERROR:
            log.info("websocket closed with an error: %s", ws.exception())
    await session.finish()
    return ws


class Session:
    """One connection: its in-flight requests and a lock that keeps frames whole."""

    def __init__(self, ws: web.WebSocketResponse, state: ServerState) -> None:
        self.ws = ws
        self.state = state
        self.slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self.tasks: set[asyncio.Task[None]] = set()
        self.sending = asyncio.Lock()

    async def receive(self, text: str, received: float) -> None:
        """Answer one text frame: at once for hello/ping and errors, else in a task."""
        try:
            self._check_size(text)
            req = protocol.parse_request(text)
        except ProtocolError as exc:
            await self.send(error_message(exc.code, exc.message, exc.request_id))
            return
        if req.type == "hello":
            await self.send(self._hello(req))
        elif req.type == "ping":
            await self.send(envelope("pong", req.id))
        else:
            await self.slots.acquire()
            task = asyncio.create_task(self._answer(req, received))
            self.tasks.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        self.slots.release()

    def _check_size(self, text: str) -> None:
        """Refuse messages over the limit in UTF-8 bytes (encoded only when the character
        count alone cannot tell)."""
        limit = self.state.config.max_message_bytes
        size = len(text)
        if size * 4 > limit and (size > limit or len(text.encode("utf-8", "surrogatepass"))
                                 > limit):
            raise ProtocolError("too_large", f"the message is over the limit of {limit:,} "
                                "bytes", protocol.peek_id(text))

    def _hello(self, req: Request) -> dict[str, Any]:
        return envelope("hello", req.id, server={"name": "winnow", "version": __version__},
                        protocol=protocol.PROTOCOL_VERSION,
                        settings={"max_message_bytes": self.state.config.max_message_bytes},
                        schema=protocol.SCHEMA_NAME)

    async def _answer(self, req: Request, received: float) -> None:
        """Run a request's handler and send its reply or the error it raised."""
        try:
            reply = await HANDLERS[req.type](self.state, req, received)
        except ProtocolError as exc:
            reply = error_message(exc.code, exc.message, req.id)
        except PageError as exc:
            reply = error_message("bad_page", f"not a page: {exc}", req.id)
        except worker.NotFound as exc:
            reply = error_message("not_found", str(exc), req.id)
        except WorkerCrashed as exc:
            reply = error_message("internal", f"{exc}; the page was not processed, the "
                                  "server goes on", req.id)
        except Exception:
            log.exception("request %s (%s) failed", req.id, req.type)
            reply = error_message("internal", f"the server failed to process this {req.type} "
                                  "request; see the server log", req.id)
        await self.send(reply)

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message; a peer that already went away is not an error. A reply JSON
        cannot hold (NaN, say) becomes an `internal` error, so no request goes unanswered."""
        if self.ws.closed:
            return
        try:
            text = json.dumps(message, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            log.error("reply %s (%s) is not JSON: %s", message.get("id"), message.get("type"),
                      exc)
            text = json.dumps(error_message("internal", "the server built a reply it could "
                                            "not send; see the server log", message.get("id")))
        async with self.sending:
            try:
                await self.ws.send_str(text)
            except ConnectionError as exc:
                log.debug("reply not sent, the client went away: %s", exc)

    async def finish(self) -> None:
        """Let in-flight requests finish (a page being stored is stored) before returning."""
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)


def _site_of(url: str) -> str:
    try:
        return site_key(url)
    except ValueError as exc:
        raise ProtocolError("invalid", f"page: field 'url' {exc}") from None


async def page(state: ServerState, req: Request, received: float) -> dict[str, Any]:
    """Extract (and store when collected) a page in its site's worker; learn after."""
    data = req.data
    site = _site_of(data["url"])
    fields, queued = await state.workers.visit(site, data["url"], data["html"],
                                               data.get("title"), data.get("collect"))
    reply = envelope("result", req.id, **fields)
    reply["timing_ms"] = {**reply["timing_ms"], "queue": round(queued, 3),
                          "server": round((time.perf_counter() - received) * 1000, 3)}
    logs.page_line(reply)
    return reply


async def stats(state: ServerState, req: Request, received: float) -> dict[str, Any]:
    """Sites with their pages stored, clusters learned and collect setting."""
    site = req.data.get("site")
    rows = await state.site_stats(None if site is None else _normalized(site))
    sites = [{k: row[k] for k in STATS_FIELDS} for row in rows]
    return envelope("stats", req.id, sites=sites, pages=sum(s["pages"] for s in sites))


async def site_settings(state: ServerState, req: Request, received: float) -> dict[str, Any]:
    """Read, or with `collect` write, a site's settings."""
    site = _normalized(req.data["site"])
    if "collect" in req.data:
        settings = await state.io(state.store.set_site_settings, site,
                                  collect=req.data["collect"])
    else:
        settings = await state.io(state.store.site_settings, site)
    return envelope("site_settings", req.id, site=site,
                    settings={"collect": bool(settings.get("collect"))})


async def forget_site(state: ServerState, req: Request, received: float) -> dict[str, Any]:
    """Delete everything of a site, in its worker so no queued learning brings it back."""
    site = _normalized(req.data["site"])
    deleted = await state.forget_site(site)
    return envelope("forgotten", req.id, site=site, pages_deleted=deleted)


async def export(state: ServerState, req: Request, received: float) -> dict[str, Any]:
    """Export a stored page, or a page sent with the request, as JSON, CSV or Markdown."""
    data = req.data
    fmt = data["format"]
    if "page_id" in data:
        site = await state.site_of_page(data["page_id"])
        exported = await state.workers.run(site, worker.export_stored, data["page_id"], fmt)
    else:
        site = _site_of(data["url"])
        exported = await state.workers.run(site, worker.export_page, site, data["url"],
                                           data["html"], fmt)
    return envelope("export", req.id, format=fmt, filename=exported.filename,
                    media_type=exported.media_type, content=exported.content)


def _normalized(site: str) -> str:
    try:
        return normalize_site(site)
    except ValueError as exc:
        raise ProtocolError("invalid", f"field 'site': {exc}") from None


HANDLERS = {"page": page, "stats": stats, "site_settings": site_settings,
            "forget_site": forget_site, "export": export}
