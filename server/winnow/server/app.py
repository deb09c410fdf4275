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
import os
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from aiohttp import web

from winnow.keyed import Keyer
from winnow.learning import upgrade_models
from winnow.server import api, logs, worker, ws
from winnow.server.security import TOKEN_FILENAME, Policy, is_loopback, load_token, middleware
from winnow.server.state import IO_THREADS, STATE, ServerConfig, ServerState
from winnow.server.workers import Workers
from winnow.store import Store

log = logging.getLogger(__name__)

PRIVATE_UMASK = 0o077
"""The server's files (and its workers') are created for the user alone."""
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
        web.post("/api/sites/{site}/forget", api.forget),
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
    """Create the data dir (0700, its files 0600), migrate the store and convert site models
    saved in an older format (`learning.upgrade_models`), so the token can go in it and the
    worker processes find the schema and the models up to date."""
    with Store.open(config.data_dir) as store:
        upgrade_models(store, Keyer(store.secret))
    return config.data_dir


def _lifetime(config: ServerConfig,
              policy: Policy) -> Callable[[web.Application], AsyncIterator[None]]:
    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        store = Store.open(config.data_dir)
        workers = Workers(config.data_dir, config.workers, config.models_per_worker,
                          config.worker_memory_mb, log_format=config.log_format,
                          quiet=config.quiet)
        threads = ThreadPoolExecutor(IO_THREADS, thread_name_prefix="winnow-io")
        state = ServerState(config, policy, store, workers, threads)
        app[STATE] = state
        flusher: asyncio.Task[None] | None = None
        try:
            pids = await workers.start()
            _log_start(config, pids)
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


def _log_start(config: ServerConfig, pids: list[int]) -> None:
    """Where the data and the token are, and the workers (the address: `serve`)."""
    data_dir = config.data_dir.resolve()
    logs.event("data", "data in %s (private to you: folder 0700, files 0600)", data_dir,
               data_dir=str(data_dir))
    logs.event("token", "token in %s", data_dir / TOKEN_FILENAME,
               token_file=str(data_dir / TOKEN_FILENAME))
    logs.event("workers", "%d worker process(es) (pid %s), %d site models each in memory",
               len(pids), ", ".join(map(str, pids)), config.models_per_worker,
               workers=len(pids), pids=pids, models_per_worker=config.models_per_worker)


async def _flush_models(workers: Workers, every: float) -> None:
    """Every `every` seconds, have the workers save the models unsaved for too long."""
    while True:
        await asyncio.sleep(every)
        for result in await workers.broadcast(worker.flush, worker.SAVE_INTERVAL_S):
            if isinstance(result, BaseException):
                log.warning("saving site models failed: %s", result)


def serve(config: ServerConfig) -> None:
    """Run the server until interrupted (the `winnow serve` command), logging as
    `config.log_format` says (`logs`): a few lines at start, then one per page."""
    logs.configure(config.log_format, config.quiet)
    os.umask(PRIVATE_UMASK)
    if not is_loopback(config.host):
        if not config.allow_remote:
            raise ValueError(f"refusing to listen on {config.host}, which is not a loopback "
                             "address: pass --allow-remote to mean it")
        log.warning("listening on %s: other machines can reach this server; only the token "
                    "or an extension origin lets them in", config.host)
    app = create_app(config)
    url = f"http://{_url_host(config.host)}:{config.port}/"
    logs.event("address", "serving on %s (dashboard; WebSocket %sws)", url, url, url=url,
               host=config.host, port=config.port)
    web.run_app(app, host=config.host, port=config.port, print=None,
                handle_signals=True)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
