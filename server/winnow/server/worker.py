"""What runs in the server's worker processes: extraction, storing, learning, rendering.

Every page is parsed, extracted and learned from here, never in the server process: lxml
holds the GIL for long stretches (a 20 MB page stalled a thread-pool server's event loop by
a quarter of a second), and two processes use both cores where threads would share one.

Each worker process owns the site models of the sites hashed to it (`Learner`, with its own
connection to the store: SQLite in WAL mode takes one writer at a time across processes), so
a model is only ever touched by one thread, and the server sends all work on one site to the
same worker in order. The functions below are the jobs; `init` runs once per process.

`visit` stores a collected page (committed before it returns, so the server's reply may say
`stored: true`) and keeps the parsed page as the site's pending visit; `learn` then learns
from it, after the reply has gone out and before the site's next page is extracted.

This module imports no aiohttp: worker processes stay small.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from winnow.export import Exported, export_extraction
from winnow.extractor import extract
from winnow.learning import Learner, Visit, summary
from winnow.result import Extraction
from winnow.server import logs
from winnow.server.describe import describe_model
from winnow.server.reader import reader_document
from winnow.store import Retention, Store

log = logging.getLogger(__name__)

SAVE_INTERVAL_S = 60.0
"""A changed site model is saved once it has gone unsaved this long: at its site's next
learning, or by the server's periodic `flush` when the site has gone quiet. Saving a
40-page model takes about 15 ms; a killed server loses at most this much learning (never a
stored page)."""
MEMORY_FIELD = "worker_memory_mb"
"""The field of `visit`'s answer that reports the worker's resident memory."""


class NotFound(LookupError):
    """No stored page with that id."""


@dataclass
class _State:
    """The worker's store and models, each site's visit waiting to be learned from, and
    since when each changed model has gone unsaved (monotonic seconds)."""

    learner: Learner
    pending: dict[str, Visit] = field(default_factory=dict)
    unsaved_since: dict[str, float] = field(default_factory=dict)


_state: _State | None = None


def init(data_dir: str, retention: Retention | None, max_models: int,
         server_alive: Connection, log_format: str = "text", quiet: bool = False) -> None:
    """Open this process's store (the executor's initializer); keep at most `max_models`
    site models in memory; log as the server does (`logs.configure`); exit when the server
    process is gone (see `_exit_with_server`). The stop signals are the server's to handle:
    a terminal's Ctrl-C (SIGINT) and a service manager's SIGTERM reach the whole process
    group, and a worker that died of them could not save its models when the server asks it
    to on shutdown (`Workers.close`); the server stops the workers after that."""
    global _state
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.SIG_IGN)
    logs.configure(log_format, quiet, worker=True)
    _state = _State(Learner(Store.open(Path(data_dir), retention=retention), max_models))
    threading.Thread(target=_exit_with_server, args=(server_alive,), daemon=True,
                     name="winnow-server-watch").start()


def _exit_with_server(server_alive: Connection) -> None:
    """Block on a pipe whose only writer is the server; when it reads end of file the
    server has exited, even by SIGKILL, and this worker exits too. Without this a worker
    outlives a killed server forever: it waits on a task queue it holds an end of itself.
    A transaction in progress is rolled back by SQLite; nothing committed is lost."""
    try:
        server_alive.recv()
    except (EOFError, OSError):
        pass
    log.info("the server is gone; worker exits")
    os._exit(0)


def _worker() -> _State:
    if _state is None:
        raise RuntimeError("worker not initialized")
    return _state


def _learner() -> Learner:
    return _worker().learner


def ready() -> int:
    """The server submits this at start so the process is spawned and warm; return the
    process id (for the server's log)."""
    _worker()
    return os.getpid()


def visit(site: str, url: str, html: str, title: str | None,
          collect: bool | None) -> dict[str, Any]:
    """Extract a page with the site's model and store it when the message says collect, or,
    when the message does not say, when the site's settings do (an explicit false wins: the
    extension sends it for paused, denied and private visits). Return the reply's fields
    (result, page_id, stored, model) and, under MEMORY_FIELD, this worker's memory (the
    server takes it out)."""
    state = _worker()
    learner = state.learner
    if collect is None:
        collect = bool(learner.store.site_settings(site).get("collect"))
    done = learner.visit(site, html, url, url, title=title, collect=collect)
    state.pending[site] = done
    return {**done.result.to_dict(), "page_id": done.page_id,
            "stored": done.page_id is not None, "site": site,
            "model": done.model_state(learner.model(site)), MEMORY_FIELD: resident_mb()}


def resident_mb() -> float | None:
    """This process's resident memory in MB (Linux /proc), or None where unknown."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def learn(site: str) -> int | None:
    """Learn from the site's pending visit; return the cluster it joined (None when there
    was none). Saves the model when it has gone unsaved for SAVE_INTERVAL_S."""
    state = _worker()
    pending = state.pending.pop(site, None)
    if pending is None:
        return None
    learned = state.learner.learn_visit(pending)
    now = time.monotonic()
    if now - state.unsaved_since.setdefault(site, now) >= SAVE_INTERVAL_S:
        _save(state, site)
    return learned.cluster


def _save(state: _State, site: str) -> None:
    state.learner.save(site)
    state.unsaved_since.pop(site, None)


def flush(max_age_s: float | None = None) -> int:
    """Save the changed models (those unsaved for `max_age_s` or more; None: all of them);
    return how many were saved."""
    state = _worker()
    now = time.monotonic()
    due = [site for site in sorted(state.learner.dirty)
           if max_age_s is None or now - state.unsaved_since.get(site, now) >= max_age_s]
    for site in due:
        _save(state, site)
    return len(due)


def summaries() -> dict[str, dict[str, Any]]:
    """The summaries of the models in memory, by site: fresher than the saved ones."""
    return {site: summary(model) for site, model in _learner().models.items()}


def forget(site: str) -> int:
    """Forget the site: its model in memory and its pages, model and settings in the store."""
    state = _worker()
    state.pending.pop(site, None)
    state.unsaved_since.pop(site, None)
    return state.learner.forget(site)


def extract_stored(page_id: int) -> Extraction:
    """Extract a stored page with its site's current model (for the reader and exports)."""
    learner = _learner()
    page = learner.store.get_page(page_id)
    if page is None or page.corrupt:
        raise NotFound(f"no stored page {page_id}")
    return extract(page.raw, page.url, learner.model(page.site))


def export_stored(page_id: int, fmt: str) -> Exported:
    """Export a stored page as `fmt` (json, csv, markdown)."""
    return export_extraction(extract_stored(page_id), fmt)


def export_page(site: str, url: str, html: str, fmt: str) -> Exported:
    """Export a page that is not stored, extracted with its site's model (not learned)."""
    return export_extraction(extract(html, url, _learner().model(site)), fmt)


def reader(page_id: int) -> str:
    """The stored page's reader view as a standalone HTML document."""
    return reader_document(extract_stored(page_id))


def describe(site: str, sections: bool = True) -> dict[str, Any]:
    """The site model's clusters and learned templates (with `sections`), for the
    dashboard."""
    return describe_model(_learner().model(site), sections)
