"""The aiohttp application: `create_app(config)` (factory), the route table, and `serve`.

The app's state (`app[STATE]`) is made and torn down in a `cleanup_ctx`: the store is opened
(migrated) and the token created before the worker processes start, and at shutdown every
worker saves its changed site models before it stops. A background task in the same context
saves changed models every `model_flush_s`, so a killed server loses at most that much
learning (never a page it said it stored).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from aiohttp import web

from winnow.server import api, worker, ws
from winnow.server.security import Policy, is_loopback, load_token, middleware
from winnow.server.state import IO_THREADS, STATE, ServerConfig, ServerState
from winnow.server.workers import Workers
from winnow.store import Store

log = logging.getLogger(__name__)

CLIENT_MAX_SIZE = 1024 * 1024
"""Largest HTTP request body; the API takes no uploads (pages come over the WebSocket)."""


def routes() -> list[web.RouteDef]:
    """The route table: every URL the server answers."""
    return [
        web.get("/ws", ws.websocket),
        web.get("/healthz", api.healthz),
        web.get("/", api.dashboard),
        web.get("/static/{name}", api.static),
        web.get("/api/sites", api.sites),
        web.get("/api/sites/{site}", api.site),
        web.get("/api/sites/{site}/template", api.template),
        web.get("/api/pages/{page_id:\\d+}/reader", api.reader),
        web.get("/api/pages/{page_id:\\d+}/export", api.export),
    ]


def create_app(config: ServerConfig) -> web.Application:
    """Build the application for `config`; the store and workers open when it starts."""
    token = load_token(_data_dir(config))
    policy = Policy.create(token, config.extension_ids,
                           config.allowed_hosts + ((config.host,) if config.allow_remote else ()))
    app = web.Application(middlewares=[middleware(policy)], client_max_size=CLIENT_MAX_SIZE)
    app.add_routes(routes())
    app.cleanup_ctx.append(_lifetime(config, policy))
    return app


def _data_dir(config: ServerConfig) -> Path:
    """Create the data dir (0700) and migrate the store, so the token can go in it and the
    worker processes find the schema up to date."""
    Store.open(config.data_dir).close()
    return config.data_dir


def _lifetime(config: ServerConfig,
              policy: Policy) -> Callable[[web.Application], AsyncIterator[None]]:
    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        store = Store.open(config.data_dir)
        workers = Workers(config.data_dir, config.workers, config.models_per_worker,
                          config.worker_memory_mb)
        threads = ThreadPoolExecutor(IO_THREADS, thread_name_prefix="winnow-io")
        state = ServerState(config, policy, store, workers, threads)
        app[STATE] = state
        flusher: asyncio.Task[None] | None = None
        try:
            await workers.start()
            flusher = asyncio.create_task(_flush_models(workers, config.model_flush_s))
            yield
        finally:
            if flusher is not None:
                flusher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await flusher
            await workers.close()
            threads.shutdown(wait=True)
            store.close()
    return lifetime


async def _flush_models(workers: Workers, every: float) -> None:
    """Every `every` seconds, have the workers save the models unsaved for too long."""
    while True:
        await asyncio.sleep(every)
        for result in await workers.broadcast(worker.flush, worker.SAVE_INTERVAL_S):
            if isinstance(result, BaseException):
                log.warning("saving site models failed: %s", result)


def serve(config: ServerConfig) -> None:
    """Run the server until interrupted (the `winnow serve` command)."""
    logging.basicConfig(level=logging.INFO, format="winnow: %(message)s")
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    if not is_loopback(config.host):
        if not config.allow_remote:
            raise ValueError(f"refusing to listen on {config.host}, which is not a loopback "
                             "address: pass --allow-remote to mean it")
        log.warning("listening on %s: other machines can reach this server; only the token "
                    "or an extension origin lets them in", config.host)
    app = create_app(config)
    print(f"winnow: serving on http://{_url_host(config.host)}:{config.port}/ "
          f"(WebSocket /ws, data in {config.data_dir})", flush=True)
    web.run_app(app, host=config.host, port=config.port, print=None,
                handle_signals=True)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
