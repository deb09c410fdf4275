"""The server side of the worker processes: site affinity, per-site order, restarts.

`Workers` runs `worker` jobs in a small set of single-process executors. A site is hashed to
one of them, so its model lives in one process, and an `asyncio.Lock` per site keeps the
site's jobs in arrival order (asyncio locks wake waiters first in, first out). A page's
`visit` and the `learn` that follows it are submitted under the lock, back to back, so the
site's next page is extracted after the model learned from this one, while the reply to
this one goes out as soon as `visit` returns.

A worker process that dies (killed, out of memory, a crash in C code) breaks its executor:
the job gets `WorkerCrashed`, the executor is replaced, and the new process reloads the
site models from the store (losing at most what the dead one had not saved yet).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import time
import zlib
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from winnow.server import worker
from winnow.store import Retention

log = logging.getLogger(__name__)

T = TypeVar("T")

START_METHOD = "forkserver"
"""New worker processes start from a clean server process, not a fork of the threaded one."""


class WorkerCrashed(RuntimeError):
    """The worker process running a job died; the job's effects are unknown."""


class Workers:
    """Single-process executors, one per worker, with sites hashed onto them."""

    def __init__(self, data_dir: Path, count: int, max_models: int,
                 retention: Retention | None = None) -> None:
        if count < 1 or max_models < 1:
            raise ValueError(f"need at least one worker and one model, got {count} and "
                             f"{max_models}")
        methods = multiprocessing.get_all_start_methods()
        self._context = multiprocessing.get_context(
            START_METHOD if START_METHOD in methods else "spawn")
        if self._context.get_start_method() == "forkserver":
            self._context.set_forkserver_preload([worker.__name__])
        # The workers hold the reading end; only this process holds the writing end, so
        # the workers see end of file when the server exits, however it exits.
        self._alive_r, self._alive_w = self._context.Pipe(duplex=False)
        self._initargs = (str(data_dir), retention, max_models, self._alive_r)
        self._executors = [self._executor() for _ in range(count)]
        self._turns: dict[str, _Turn] = {}

    def _executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(1, mp_context=self._context, initializer=worker.init,
                                   initargs=self._initargs)

    @property
    def count(self) -> int:
        return len(self._executors)

    async def start(self) -> None:
        """Spawn every worker process and wait until each has opened the store."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(ex, worker.ready)
                               for ex in self._executors))

    def index(self, site: str) -> int:
        """The worker a site belongs to (stable across restarts)."""
        return zlib.crc32(site.encode("utf-8")) % len(self._executors)

    @asynccontextmanager
    async def _turn(self, site: str) -> AsyncIterator[None]:
        """Wait for the site's turn (first in, first out); the site's entry is dropped when
        no job of it is running or waiting, so the table does not grow with every site."""
        turn = self._turns.setdefault(site, _Turn())
        turn.users += 1
        try:
            async with turn.lock:
                yield
        finally:
            turn.users -= 1
            if turn.users == 0:
                del self._turns[site]

    async def run(self, site: str, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` in the site's worker, after the site's earlier jobs."""
        async with self._turn(site):
            return await self._call(site, fn, *args)

    async def visit(self, site: str, *args: Any) -> tuple[dict[str, Any], float]:
        """Run `worker.visit(site, *args)`, queue the learning from it right behind, and
        return the reply fields with the milliseconds spent waiting for the site's turn."""
        queued = time.perf_counter()
        async with self._turn(site):
            waited = (time.perf_counter() - queued) * 1000
            reply = await self._call(site, worker.visit, site, *args)
            learning = self._executors[self.index(site)].submit(worker.learn, site)
            learning.add_done_callback(_log_failure(site))
        return reply, waited

    async def _call(self, site: str, fn: Callable[..., T], *args: Any) -> T:
        slot = self.index(site)
        executor = self._executors[slot]
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
        except BrokenProcessPool:
            self._replace(slot, executor)
            raise WorkerCrashed(f"the worker process for {site} died") from None

    def _replace(self, slot: int, broken: ProcessPoolExecutor) -> None:
        if self._executors[slot] is broken:
            log.error("worker %d died; starting a new one", slot)
            broken.shutdown(wait=False, cancel_futures=True)
            self._executors[slot] = self._executor()

    async def broadcast(self, fn: Callable[..., T], *args: Any) -> list[T | BaseException]:
        """Run `fn(*args)` in every worker (saving models, say); failures are returned."""
        loop = asyncio.get_running_loop()
        return await asyncio.gather(*(loop.run_in_executor(ex, fn, *args)
                                      for ex in self._executors), return_exceptions=True)

    async def close(self) -> None:
        """Save every model, then stop the worker processes."""
        for result in await self.broadcast(worker.flush):
            if isinstance(result, BaseException):
                log.warning("saving site models at shutdown failed: %s", result)
        for executor in self._executors:
            executor.shutdown(wait=True, cancel_futures=True)
        self._alive_w.close()
        self._alive_r.close()


@dataclass
class _Turn:
    """A site's queue: the lock its jobs take in turn and how many hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


def _log_failure(site: str) -> Callable[[Future[Any]], None]:
    def check(future: Future[Any]) -> None:
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.error("learning from a page of %s failed: %r", site, error)
    return check
