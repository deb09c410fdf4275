"""The HTTP API and the dashboard's files. Read-only but for forgetting a site, which the
dashboard does here (the extension does it over the WebSocket).

    GET /healthz                          liveness and versions
    GET /                                 the dashboard (static/dashboard.html)
    GET /static/{name}                    its script and style sheet
    GET /api/sites                        sites: pages stored, learned, clusters, per day
    GET /api/sites/{site}                 one site: clusters and learning state, recent pages
    GET /api/sites/{site}/template?cluster=ID   a cluster's learned template, section by section
    GET /api/pages/{id}/reader            the reader view as a standalone HTML page
    GET /api/pages/{id}/export?format=json|csv|markdown   the page exported, as a download
    POST /api/sites/{site}/forget         delete the site's pages and model (JSON request)

The one state-changing route passes `security.Policy`'s rules for writes: the token, or an
allowed Origin (the dashboard's own, the extension's) on a JSON request; a web page can
neither send such a request to another origin without a CORS preflight nor forge its Origin.

Static files are read from the package once, into `STATIC`, by fixed names: no part of a
request path is ever used to open a file.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar

from aiohttp import web

from winnow import __version__
from winnow.export import FORMATS
from winnow.server import protocol, worker
from winnow.server.protocol import ProtocolError
from winnow.server.reader import CSP
from winnow.server.state import STATE, ServerState
from winnow.sitekeys import normalize_site

T = TypeVar("T")

STATIC_FILES = {
    "dashboard.html": "text/html",
    "dashboard.js": "text/javascript",
    "dashboard.css": "text/css",
}
"""The dashboard's files, by name, with their media types."""
RECENT_PAGES = 50
"""Most recent stored pages listed per site."""
DASHBOARD_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                 "img-src 'self' data:; base-uri 'none'; form-action 'none'; "
                 "frame-ancestors 'none'")


def _load_static() -> dict[str, bytes]:
    folder = resources.files("winnow.server").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name in STATIC_FILES}


STATIC = _load_static()


def _json(data: Any, status: int = 200) -> web.Response:
    return web.Response(text=json.dumps(data, ensure_ascii=False), status=status,
                        content_type="application/json", headers={"Cache-Control": "no-store"})


async def healthz(request: web.Request) -> web.Response:
    state = request.app[STATE]
    return _json({"ok": True, "name": "winnow", "version": __version__,
                  "protocol": protocol.PROTOCOL_VERSION, "workers": state.workers.count})


async def dashboard(request: web.Request) -> web.Response:
    return _static("dashboard.html")


async def static(request: web.Request) -> web.Response:
    return _static(request.match_info["name"])


def _static(name: str) -> web.Response:
    if name not in STATIC:
        raise web.HTTPNotFound(text="no such file\n")
    return web.Response(body=STATIC[name], content_type=STATIC_FILES[name], charset="utf-8",
                        headers={"Content-Security-Policy": DASHBOARD_CSP,
                                 "Cache-Control": "no-cache"})


async def sites(request: web.Request) -> web.Response:
    state = request.app[STATE]
    rows, days = await asyncio.gather(state.site_stats(), state.io(state.store.pages_per_day))
    per_day = [{"site": s, "day": d, "pages": n} for s, d, n in days]
    return _json({"sites": rows, "pages": sum(r["pages"] for r in rows), "per_day": per_day})


def _site_param(request: web.Request) -> str:
    try:
        return normalize_site(request.match_info["site"])
    except ValueError as exc:
        raise web.HTTPBadRequest(text=f"{exc}\n") from None


async def site(request: web.Request) -> web.Response:
    state = request.app[STATE]
    key = _site_param(request)
    [stats], stored, model = await asyncio.gather(
        state.site_stats(key), state.io(_site_pages, state, key),
        state.workers.run(key, worker.describe, key, False))
    if stats["last_seen"] is None and model["pages_learned"] == 0:
        raise web.HTTPNotFound(text=f"no site {key}\n")
    clusters = model["clusters"]
    for cluster in clusters:
        cluster["pages_stored"] = stored["sizes"].get(cluster["id"], 0)
    return _json({**stats, "pages_learned": model["pages_learned"],
                  "min_cluster_pages": model["min_cluster_pages"], "clusters": clusters,
                  "unclustered_pages": stored["sizes"].get(None, 0),
                  "recent": stored["recent"], "per_day": stored["per_day"]})


def _site_pages(state: ServerState, key: str) -> dict[str, Any]:
    recent = [{"id": p.id, "url": p.url, "title": p.title, "seen_at": p.seen_at,
               "cluster": p.cluster, "bytes": p.html_size}
              for p in state.store.recent_pages(key, RECENT_PAGES)]
    return {"recent": recent,
            "sizes": state.store.cluster_sizes(key),
            "per_day": [{"day": d, "pages": n} for _, d, n in state.store.pages_per_day(key)]}


async def template(request: web.Request) -> web.Response:
    state = request.app[STATE]
    key = _site_param(request)
    try:
        wanted = int(request.query.get("cluster", ""))
    except ValueError:
        raise web.HTTPBadRequest(text="give ?cluster=ID (an integer)\n") from None
    model = await state.workers.run(key, worker.describe, key)
    for cluster in model["clusters"]:
        if cluster["id"] == wanted:
            return _json({"site": key, **cluster})
    raise web.HTTPNotFound(text=f"no cluster {wanted} for {key}\n")


async def forget(request: web.Request) -> web.Response:
    """Delete everything of a site: pages, model (stored and in memory), settings."""
    state = request.app[STATE]
    key = _site_param(request)
    deleted = await state.forget_site(key)
    return _json({"site": key, "forgotten": True, "pages_deleted": deleted})


async def _on_page(state: ServerState, page_id: int, fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(page_id, *args)` in the worker of the stored page's site; 404 when there is
    no such page (or it is corrupt)."""
    try:
        site = await state.site_of_page(page_id)
        return await state.workers.run(site, fn, page_id, *args)
    except (ProtocolError, worker.NotFound):
        raise web.HTTPNotFound(text=f"no stored page {page_id}\n") from None


async def reader(request: web.Request) -> web.Response:
    state = request.app[STATE]
    page_id = int(request.match_info["page_id"])
    document = await _on_page(state, page_id, worker.reader)
    return web.Response(text=document, content_type="text/html", charset="utf-8",
                        headers={"Content-Security-Policy": CSP, "Cache-Control": "no-store"})


async def export(request: web.Request) -> web.Response:
    state = request.app[STATE]
    page_id = int(request.match_info["page_id"])
    fmt = request.query.get("format", "json")
    if fmt not in FORMATS:
        raise web.HTTPBadRequest(text=f"format must be one of {', '.join(FORMATS)}\n")
    exported = await _on_page(state, page_id, worker.export_stored, fmt)
    media, _, _ = exported.media_type.partition(";")
    return web.Response(text=exported.content, content_type=media, charset="utf-8",
                        headers={"Content-Disposition":
                                 f'attachment; filename="{exported.filename}"',
                                 "Cache-Control": "no-store"})
