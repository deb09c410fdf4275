"""The server side of the worker processes: site affinity, per-site order, recycling.

`Workers` runs `worker` jobs in a small set of single-process executors ("slots"). A site is
hashed to one slot, so its model lives in one process, and an `asyncio.Lock` per site keeps
the site's jobs in arrival order (asyncio locks wake waiters first in, first out). A page's
`visit` and the `learn` that follows it are submitted under the lock, back to back, so the
site's next page is extracted after the model learned from this one, while the reply to
this one goes out as soon as `visit` returns.

A worker's memory only grows: CPython and libxml2 keep the heap a big page needed, so one
20 MB page leaves a worker holding hundreds of MB for good. A worker whose resident memory
passes `memory_limit_mb` after a page is therefore recycled (at most every
`RECYCLE_INTERVAL_S`): new jobs of its slot wait, the jobs already running finish, the old
process saves its models and exits, and a fresh one takes the slot (it loads models from the
store as their sites come back).

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
"""New worker processes start from a clean server process, not a fork of the threaded one;
the forkserver preloads `winnow.server.worker`, so a new worker starts in milliseconds and
shares the imported modules' memory with the others."""
FORKSERVER_MODULE = "winnow.server.forkserver"
"""Preloaded by the forkserver, which it makes leave the stop signals to the server (named,
not imported: importing it here would make the server ignore them)."""
RECYCLE_INTERVAL_S = 60.0
"""A slot is recycled at most this often, however much memory its worker holds."""


@dataclass
class _Slot:
    """One worker: its executor, its jobs running now, and the gate new jobs wait at while
    the worker is being recycled."""

    executor: ProcessPoolExecutor
    running: int = 0
    idle: asyncio.Event = field(default_factory=lambda: _set(asyncio.Event()))
    gate: asyncio.Event | None = None
    recycled_at: float = float("-inf")


@dataclass
class _Turn:
    """A site's queue: the lock its jobs take in turn and how many hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class WorkerCrashed(RuntimeError):
    """The worker process running a job died; the job's effects are unknown."""


class Workers:
    """Single-process executors, one per worker, with sites hashed onto them."""

    def __init__(self, data_dir: Path, count: int, max_models: int,
                 memory_limit_mb: float | None = None,
                 retention: Retention | None = None, log_format: str = "text",
                 quiet: bool = False) -> None:
        if count < 1 or max_models < 1:
            raise ValueError(f"need at least one worker and one model, got {count} and "
                             f"{max_models}")
        methods = multiprocessing.get_all_start_methods()
        self._context = multiprocessing.get_context(
            START_METHOD if START_METHOD in methods else "spawn")
        if self._context.get_start_method() == "forkserver":
            self._context.set_forkserver_preload([FORKSERVER_MODULE, worker.__name__])
        # The workers hold the reading end; only this process holds the writing end, so
        # the workers see end of file when the server exits, however it exits.
        self._alive_r, self._alive_w = self._context.Pipe(duplex=False)
        self._initargs = (str(data_dir), retention, max_models, self._alive_r, log_format,
                          quiet)
        self.memory_limit_mb = memory_limit_mb
        self.recycled = 0
        self._slots = [_Slot(self._executor()) for _ in range(count)]
        self._turns: dict[str, _Turn] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def _executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(1, mp_context=self._context, initializer=worker.init,
                                   initargs=self._initargs)

    @property
    def count(self) -> int:
        return len(self._slots)

    async def start(self) -> list[int]:
        """Spawn every worker process and wait until each has opened the store; return
        their process ids."""
        loop = asyncio.get_running_loop()
        return await asyncio.gather(*(loop.run_in_executor(slot.executor, worker.ready)
                                      for slot in self._slots))

    def index(self, site: str) -> int:
        """The worker a site belongs to (stable across restarts)."""
        return zlib.crc32(site.encode("utf-8")) % len(self._slots)

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

    @asynccontextmanager
    async def _running(self, site: str) -> AsyncIterator[ProcessPoolExecutor]:
        """The site's executor, once its slot is not being recycled, counted as running a
        job until the block ends. A dead worker process becomes `WorkerCrashed`."""
        slot = self._slots[self.index(site)]
        while slot.gate is not None:
            await slot.gate.wait()
        executor = slot.executor
        slot.running += 1
        slot.idle.clear()
        try:
            yield executor
        except BrokenProcessPool:
            self._replace(slot, executor)
            raise WorkerCrashed(f"the worker process for {site} died") from None
        finally:
            slot.running -= 1
            if slot.running == 0:
                slot.idle.set()

    async def run(self, site: str, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` in the site's worker, after the site's earlier jobs."""
        async with self._turn(site), self._running(site) as executor:
            return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    async def visit(self, site: str, *args: Any) -> tuple[dict[str, Any], float]:
        """Run `worker.visit(site, *args)`, queue the learning from it right behind, and
        return the reply fields with the milliseconds spent waiting for the site's turn."""
        queued = time.perf_counter()
        async with self._turn(site), self._running(site) as executor:
            waited = (time.perf_counter() - queued) * 1000
            loop = asyncio.get_running_loop()
            reply = await loop.run_in_executor(executor, worker.visit, site, *args)
            learning = executor.submit(worker.learn, site)
            learning.add_done_callback(_log_failure(site))
        memory = reply.pop(worker.MEMORY_FIELD, None)
        if self.memory_limit_mb is not None and memory is not None \
                and memory > self.memory_limit_mb:
            self._spawn(self._recycle(self._slots[self.index(site)], memory))
        return reply, waited

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _recycle(self, slot: _Slot, memory: float) -> None:
        """Replace the slot's worker with a fresh process once its running jobs are done
        and it has saved its models (jobs queued behind run first: the executor is FIFO)."""
        if slot.gate is not None or time.monotonic() - slot.recycled_at < RECYCLE_INTERVAL_S:
            return
        slot.gate = gate = asyncio.Event()
        old = slot.executor
        try:
            await slot.idle.wait()
            await asyncio.get_running_loop().run_in_executor(old, worker.flush)
            log.info("worker holds %.0f MB, over %.0f MB: recycled", memory,
                     self.memory_limit_mb)
        except BrokenProcessPool:
            log.warning("a worker died while being recycled")
        finally:
            if slot.executor is old:
                slot.executor = self._executor()
            old.shutdown(wait=False)
            slot.recycled_at = time.monotonic()
            self.recycled += 1
            slot.gate = None
            gate.set()

    def _replace(self, slot: _Slot, broken: ProcessPoolExecutor) -> None:
        if slot.executor is broken:
            log.error("a worker died; starting a new one")
            broken.shutdown(wait=False, cancel_futures=True)
            slot.executor = self._executor()

    async def broadcast(self, fn: Callable[..., T], *args: Any) -> list[T | BaseException]:
        """Run `fn(*args)` in every worker (saving models, say); failures are returned."""
        loop = asyncio.get_running_loop()
        return await asyncio.gather(*(loop.run_in_executor(slot.executor, fn, *args)
                                      for slot in self._slots), return_exceptions=True)

    async def close(self) -> None:
        """Save every model, then stop the worker processes."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for result in await self.broadcast(worker.flush):
            if isinstance(result, BaseException):
                log.warning("saving site models at shutdown failed: %s", result)
        for slot in self._slots:
            slot.executor.shutdown(wait=True, cancel_futures=True)
        self._alive_w.close()
        self._alive_r.close()


def _set(event: asyncio.Event) -> asyncio.Event:
    event.set()
    return event


def _log_failure(site: str) -> Callable[[Future[Any]], None]:
    def check(future: Future[Any]) -> None:
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.error("learning from a page of %s failed: %r", site, error)
    return check
