"""The server's configuration and its typed application state (`app[STATE]`)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from winnow.learning import MODEL_KIND
from winnow.page import MAX_PAGE_BYTES
from winnow.server import worker
from winnow.server.protocol import ProtocolError
from winnow.server.security import Policy
from winnow.server.workers import Workers
from winnow.store import Store

T = TypeVar("T")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MAX_MESSAGE_BYTES = MAX_PAGE_BYTES
"""32 MB: the largest page the extractor takes, so a page that fits a message can be read."""
IO_THREADS = 2
"""Threads for the server's own store reads and writes (stats, settings, listings), apart
from the worker processes, so a listing never waits behind a page being extracted."""
HEARTBEAT_S = 30.0
"""WebSocket pings from the server, so dead connections are noticed and closed."""
MODEL_FLUSH_S = 30.0
"""How often the workers are asked to save the site models that have gone unsaved for
`worker.SAVE_INTERVAL_S` (all of them at shutdown)."""
MODELS_PER_WORKER = 3
"""Site models each worker keeps in memory (least recently used ones are saved and dropped;
loading one back takes about 25 ms). A model learned from 40 pages of a news site takes
10-15 MB of a worker's memory, so this bounds memory however many sites are browsed."""
WORKER_MEMORY_MB = 120.0
"""A worker holding more resident memory than this after a page is recycled (see
`workers.Workers`): with the server process and the forkserver, the whole server then stays
under 300 MB, and one huge page does not leave a worker holding its heap for good."""


def default_workers() -> int:
    """One worker process per core, at least one."""
    return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class ServerConfig:
    """Everything `winnow serve` can be told. `extension_ids` pins the extensions allowed
    (empty: any); `allowed_hosts` are extra Host names accepted with `allow_remote`."""

    data_dir: Path
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    max_message_bytes: int = MAX_MESSAGE_BYTES
    workers: int = field(default_factory=default_workers)
    models_per_worker: int = MODELS_PER_WORKER
    worker_memory_mb: float | None = WORKER_MEMORY_MB
    extension_ids: tuple[str, ...] = ()
    allow_remote: bool = False
    allowed_hosts: tuple[str, ...] = ()
    heartbeat_s: float | None = HEARTBEAT_S
    model_flush_s: float = MODEL_FLUSH_S
    log_format: str = "text"
    """`logs.FORMATS`: text lines, or JSON lines (`--log-format json`)."""
    quiet: bool = False
    """Log warnings and errors only (`--quiet`)."""


@dataclass
class ServerState:
    """What the handlers share: config, security policy, the server's store connection,
    its I/O threads and the worker processes."""

    config: ServerConfig
    policy: Policy
    store: Store
    workers: Workers
    threads: ThreadPoolExecutor

    async def io(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a store call in the I/O threads (SQLite blocks)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.threads, partial(fn, *args, **kwargs))

    async def site_of_page(self, page_id: int) -> str:
        """The site of a stored page; `not_found` when there is none."""
        site = await self.io(self.store.page_site, page_id)
        if site is None:
            raise ProtocolError("not_found", f"no stored page {page_id}")
        return site

    async def forget_site(self, site: str) -> int:
        """Delete everything of a site (already normalized): its pages, model and settings in
        the store and its model in memory, in its worker, after the site's queued jobs (so no
        learning queued before brings it back); return the pages deleted."""
        return await self.workers.run(site, worker.forget, site)

    async def live_summaries(self) -> dict[str, dict[str, Any]]:
        """The summaries of the models the workers hold in memory, by site (the saved ones
        lag by up to `model_flush_s`); a worker that fails to answer is left out."""
        live: dict[str, dict[str, Any]] = {}
        for answer in await self.workers.broadcast(worker.summaries):
            if isinstance(answer, dict):
                live.update(answer)
        return live

    async def site_stats(self, site: str | None = None) -> list[dict[str, Any]]:
        """Per site (or only `site`, already normalized): pages stored and learned, clusters
        learned, collect, last seen."""
        live = await self.live_summaries()
        return await self.io(self._site_stats, site, live)

    def _site_stats(self, site: str | None,
                    live: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        saved = self.store.model_summaries(MODEL_KIND)
        rows = []
        for info in self.store.sites():
            if site is not None and info.site != site:
                continue
            brief, saved_at = saved.get(info.site, ({}, None))
            brief = live.get(info.site, brief)
            seen = [t for t in (info.last_seen, saved_at) if t is not None]
            rows.append({"site": info.site, "pages": info.pages,
                         "pages_learned": int(brief.get("pages", 0)),
                         "clusters": len(brief.get("clusters", {})),
                         "collect": bool(info.settings.get("collect")),
                         "last_seen": max(seen) if seen else None})
        if site is not None and not rows:
            rows.append({"site": site, "pages": 0, "pages_learned": 0, "clusters": 0,
                         "collect": False, "last_seen": None})
        return rows


STATE = web.AppKey("state", ServerState)
