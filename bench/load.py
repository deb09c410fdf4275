#!/usr/bin/env python3
"""Load-test `winnow serve` over real WebSockets (issue 5, item 8), in one run.

    .venv/bin/python bench/load.py                          # about 4 minutes
    .venv/bin/python bench/load.py --duration 10 --fill 2000   # a quick look
    .venv/bin/python bench/load.py --write bench/RESULTS.md

The server runs as its own process (`winnow serve --workers 2`, a fresh data dir) and the
clients are `websockets` connections from this process. Pages are the Big9 news pages of
../shared/data/articles/sites, read in place; each page is sent with `collect: true`, so every
reply includes storing the page (SQLite commit) and the model learns from it after the reply.
A client's host is `<site>-<n>.example`, spreading the pages over many site models (and so
over both worker processes) as a browser visiting many sites would.

Runs, one after the other on the same server:

1. one page at a time, idle server: reply latency over the socket against calling
   `winnow.extract` directly in this process on the same pages;
2. browsing: 50 clients, each sends a page, waits for the reply, then pauses for a think
   time drawn uniformly from THINK_S (a person reading), for `--duration` seconds;
3. saturation: the same 50 clients with no pause at all, for `--duration` seconds, which
   measures the most pages per second the server takes and what queueing then does to
   latency;
4. memory: the server is filled to `--fill` stored pages across `--fill-sites` sites, and
   the resident memory of the server and its worker processes is summed.

Latency is from sending a page to receiving its reply, at the client. Errors are error
replies, missing replies and broken connections; any error fails the run.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import itertools
import json
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import websockets
import winnow
from evaluate import _git_state, _nproc, command_line, percentile, publish
from winnow import evaluation as ev
from winnow.server.state import MODELS_PER_WORKER, WORKER_MEMORY_MB
from winnow.sitemodel import SiteModel

SECTION = "server"
VISITS = itertools.count()
"""Every page sent gets a URL of its own, so each is stored as a new page (the store keeps
one copy of an identical re-visit)."""
CLIENTS = 50
DURATION_S = 60.0
THINK_S = (5.0, 15.0)
"""A browsing client's pause between two pages, uniform in seconds: a person reads a page
for a while (ten seconds on average is short for an article) before the next one."""
BUSY_THINK_S = (1.0, 3.0)
"""The busy run: a page every two seconds per client, five times the browsing pace."""
FILL_PAGES = 10_000
FILL_SITES = 100
FILL_CLIENTS = 8
"""Clients filling the store, each browsing its share of the sites one site at a time."""
SEQUENTIAL_PAGES = 120
"""Pages timed one at a time, over the socket and in-process."""
ORIGIN = "chrome-extension://winnowbenchclientaaaaaaaaaaaaaaa"
START_TIMEOUT_S = 60.0
PAGE_TIMEOUT_S = 120.0


@dataclass
class Page:
    """A corpus page to send: its real site, its name and its HTML as text."""

    site: str
    name: str
    html: str


@dataclass
class Run:
    """What one load run measured."""

    name: str
    seconds: float
    latencies_ms: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    recycled: int = 0

    @property
    def pages(self) -> int:
        return len(self.latencies_ms)


def load_pages() -> list[Page]:
    pages = []
    for case in ev.sites_cases():
        site = str(case.metadata["site"])
        html = case.html.decode("utf-8", errors="replace")
        pages.append(Page(site, f"{case.metadata['year']}/{case.path.stem}", html))
    return pages


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """`winnow serve` in its own process group, with its data dir."""

    def __init__(self, data_dir: Path, workers: int) -> None:
        self.port = free_port()
        self.data_dir = data_dir
        self.log = data_dir.parent / "server.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "winnow.cli", "serve", "--port", str(self.port),
                 "--data-dir", str(data_dir), "--workers", str(workers)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def recycled(self) -> int:
        """Worker recycles the server logged so far."""
        return self.log.read_text(errors="replace").count("recycled")

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def connect(self) -> websockets.ClientConnection:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                return await websockets.connect(self.url, origin=ORIGIN,  # type: ignore[arg-type]
                                                max_size=None, compression=None)
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                await asyncio.sleep(0.1)

    def memory_mb(self) -> dict[str, tuple[float, float]]:
        """(RSS, PSS) in MB of the server and every process in its group. RSS counts the
        pages the processes share (the forkserver's preloaded modules) once per process;
        PSS splits them among the sharers, so the PSS total is the group's real footprint."""
        sizes: dict[str, tuple[float, float]] = {}
        for pid in _group_pids(self.process.pid):
            try:
                rss = _kb(Path(f"/proc/{pid}/status"), "VmRSS:")
                pss = _kb(Path(f"/proc/{pid}/smaps_rollup"), "Pss:")
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                role = _role(pid, self.process.pid, cmdline.decode(errors="replace"))
            except (OSError, IndexError, ValueError):
                continue
            sizes[f"{role} (pid {pid})"] = (rss / 1024, pss / 1024)
        return sizes

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


def _kb(path: Path, key: str) -> int:
    """The kB value of the line starting with `key` in a /proc file."""
    return next(int(line.split()[1]) for line in path.read_text().splitlines()
                if line.startswith(key))


def _group_pids(pgid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getpgid(int(entry.name)) == pgid:
                    pids.append(int(entry.name))
            except OSError:
                continue
    return sorted(pids)


def _role(pid: int, main: int, cmdline: str) -> str:
    """server; its own children are helpers (forkserver, resource tracker); the workers are
    the forkserver's children."""
    if pid == main:
        return "server"
    parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    if parent != main:
        return "worker"
    return "forkserver" if "forkserver" in cmdline else "resource tracker"


class Client:
    """One extension: a socket, its pages in a shuffled order and its site names."""

    def __init__(self, number: int, pages: list[Page], sites_per_real_site: int) -> None:
        self.number = number
        self.rng = random.Random(number)
        self.pages = pages[:]
        self.rng.shuffle(self.pages)
        self.copy = number % sites_per_real_site
        self.sent = 0

    def next_message(self) -> str:
        page = self.pages[self.sent % len(self.pages)]
        self.sent += 1
        url = f"https://{page.site}-{self.copy}.example/{page.name}?visit={next(VISITS)}"
        return page_message(self.sent, url, page.html)


def page_message(request_id: int, url: str, html: str) -> str:
    """A `page` request that collects the page."""
    return json.dumps({"v": 1, "id": request_id, "type": "page", "url": url, "html": html,
                       "collect": True}, ensure_ascii=False)


async def request(ws: websockets.ClientConnection, message: str, run: Run) -> None:
    """Send a page, wait for its reply, and record the latency or the error."""
    start = time.perf_counter()
    try:
        await ws.send(message)
        reply = json.loads(await asyncio.wait_for(ws.recv(), PAGE_TIMEOUT_S))
    except (OSError, TimeoutError, websockets.ConnectionClosed) as exc:
        run.errors.append(f"{type(exc).__name__}: {exc}")
        return
    if reply.get("type") != "result" or not reply.get("stored"):
        run.errors.append(f"{reply.get('code')}: {reply.get('message')}")
        return
    run.latencies_ms.append((time.perf_counter() - start) * 1000)
    run.server_ms.append(reply["timing_ms"]["server"])


async def load_run(server: Server, pages: list[Page], name: str, duration: float,
                   think: tuple[float, float] | None, copies: int) -> Run:
    """`CLIENTS` clients sending pages for `duration` seconds, pausing `think` in between."""
    run = Run(name, duration)
    clients = [Client(n, pages, copies) for n in range(CLIENTS)]
    sockets = [await server.connect() for _ in clients]
    deadline = time.perf_counter() + duration

    async def browse(client: Client, ws: websockets.ClientConnection) -> None:
        if think is not None:
            await asyncio.sleep(client.rng.uniform(0, think[1]))  # do not start in step
        while time.perf_counter() < deadline:
            await request(ws, client.next_message(), run)
            if think is not None:
                await asyncio.sleep(client.rng.uniform(*think))

    started = time.perf_counter()
    await asyncio.gather(*(browse(c, ws) for c, ws in zip(clients, sockets, strict=True)))
    run.seconds = time.perf_counter() - started
    for ws in sockets:
        await ws.close()
    return run


async def sequential(server: Server, pages: list[Page]) -> tuple[list[float], ...]:
    """One page at a time: socket round trip, the server's own time, and `winnow.extract`
    called directly on the same page, without a site model and with a new one (which reads
    the page for template matching, as the server does on a first visit)."""
    ws = await server.connect()
    socket_ms: list[float] = []
    server_ms: list[float] = []
    direct_ms: list[float] = []
    model_ms: list[float] = []
    rng = random.Random(7)
    chosen = rng.sample(pages, min(SEQUENTIAL_PAGES, len(pages)))
    for n, page in enumerate(chosen):
        url = f"https://first-visit-{n}.example/{page.name}"
        message = page_message(n, url, page.html)
        start = time.perf_counter()
        await ws.send(message)
        reply = json.loads(await ws.recv())
        socket_ms.append((time.perf_counter() - start) * 1000)
        server_ms.append(reply["timing_ms"]["server"])
        start = time.perf_counter()
        winnow.extract(page.html, url)
        direct_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        winnow.extract(page.html, url, SiteModel(f"first-visit-{n}.example"))
        model_ms.append((time.perf_counter() - start) * 1000)
    await ws.close()
    return socket_ms, server_ms, direct_ms, model_ms


async def fill(server: Server, pages: list[Page], target: int,
               sites: int) -> tuple[int, int, float]:
    """Browse until the store holds `target` pages across `sites` site names, in sessions:
    `FILL_CLIENTS` clients each visit their share of the sites one after the other, sending
    the site's pages in a row, as a person reads several pages of a site before moving on.
    Return the pages stored, the site count and the seconds it took."""
    by_site: dict[str, list[Page]] = {}
    for page in pages:
        by_site.setdefault(page.site, []).append(page)
    names = [(site, copy) for copy in range(-(-sites // len(by_site))) for site in by_site]
    names = names[:sites]
    ws = await server.connect()
    stored = await stored_pages(ws)
    per_site = -(-max(0, target - stored) // len(names))
    run = Run("fill", 0)
    started = time.perf_counter()

    async def session(share: list[tuple[str, int]]) -> None:
        conn = await server.connect()
        for site, copy in share:
            for n in range(per_site):
                page = by_site[site][n % len(by_site[site])]
                url = f"https://{site}-fill{copy}.example/{page.name}?visit={next(VISITS)}"
                await request(conn, page_message(n, url, page.html), run)
        await conn.close()

    await asyncio.gather(*(session(names[k::FILL_CLIENTS]) for k in range(FILL_CLIENTS)))
    total = await stored_pages(ws)
    await ws.close()
    if run.errors:
        raise RuntimeError(f"fill failed: {run.errors[:3]}")
    return total, len(names), time.perf_counter() - started


async def stored_pages(ws: websockets.ClientConnection) -> int:
    await ws.send(json.dumps({"v": 1, "id": "stats", "type": "stats"}))
    return int(json.loads(await ws.recv())["pages"])


def describe(run: Run) -> str:
    lat = sorted(run.latencies_ms)
    return (f"| {run.name} | {run.pages} | {run.pages / run.seconds:.1f} | "
            f"{percentile(lat, 50):.1f} | {percentile(lat, 95):.1f} | "
            f"{percentile(lat, 99):.1f} | {max(lat):.1f} | "
            f"{statistics.median(run.server_ms):.1f} | {run.recycled} | {len(run.errors)} |")


async def bench(args: argparse.Namespace) -> str:
    pages = load_pages()
    with tempfile.TemporaryDirectory(prefix="winnow-load-") as tmp:
        server = Server(Path(tmp) / "data", args.workers)
        try:
            await (await server.connect()).close()
            socket_ms, server_ms, direct_ms, model_ms = await sequential(server, pages)
            copies = max(1, args.load_sites // len({p.site for p in pages}))
            runs, memory = [], []
            for name, think in ((f"browsing, think {THINK_S[0]:g}-{THINK_S[1]:g} s", THINK_S),
                                (f"busy, think {BUSY_THINK_S[0]:g}-{BUSY_THINK_S[1]:g} s",
                                 BUSY_THINK_S),
                                ("saturation, no think time", None)):
                before = server.recycled()
                runs.append(await load_run(server, pages, name, args.duration, think, copies))
                runs[-1].recycled = server.recycled() - before
                memory.append(server.memory_mb())
            stored, fill_sites, fill_s = await fill(server, pages, args.fill, args.fill_sites)
            memory.append(server.memory_mb())
        finally:
            server.stop()
    return report(args, pages, (socket_ms, server_ms, direct_ms, model_ms), runs, memory, stored,
                  fill_sites, fill_s)


def report(args: argparse.Namespace, pages: list[Page], single: tuple[list[float], ...],
           runs: list[Run], memory: list[dict[str, tuple[float, float]]], stored: int,
           fill_sites: int,
           fill_s: float) -> str:
    socket_ms, server_ms, direct_ms, model_ms = (sorted(x) for x in single)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = command_line("load.py", None)
    rss_total = [sum(r for r, _ in m.values()) for m in memory]
    pss_total = [sum(p for _, p in m.values()) for m in memory]
    median_kb = statistics.median(len(p.html) for p in pages) / 1024
    lines = [
        "## Server",
        "",
        f"Command: `{command}`  ",
        f"Date: {now}; machine: {_nproc()} cores, {platform.machine()}, Python "
        f"{platform.python_version()}; winnow {winnow.__version__}; {_git_state()}; "
        f"load average at the start {args.load_before:.1f}, at the end "
        f"{os.getloadavg()[0]:.1f} (other work shares these cores).",
        "",
        f"`winnow serve --workers {args.workers}` in its own process, a fresh data dir; "
        f"{len(pages)} Big9 news pages (median {median_kb:.0f} KB) "
        "sent over real WebSockets by `websockets` clients with `collect: true`, so each reply "
        "follows an SQLite commit of the page; the site model learns from each page after "
        "its reply. Latency is measured at the client, from sending the page to its reply.",
        "",
        "### One page at a time (idle server)",
        "",
        "| path | median ms | p95 ms |",
        "|---|---|---|",
        f"| `winnow.extract(html, url)` in-process, no site model | "
        f"{percentile(direct_ms, 50):.1f} | {percentile(direct_ms, 95):.1f} |",
        f"| `winnow.extract(html, url, SiteModel(site))` in-process, a new site's model | "
        f"{percentile(model_ms, 50):.1f} | {percentile(model_ms, 95):.1f} |",
        f"| server's own time (`timing_ms.server`: JSON, extract with the site model, store) | "
        f"{percentile(server_ms, 50):.1f} | {percentile(server_ms, 95):.1f} |",
        f"| over the socket, end to end | {percentile(socket_ms, 50):.1f} | "
        f"{percentile(socket_ms, 95):.1f} |",
        "",
        f"{len(socket_ms)} pages, each of a new site (no learned template), sent one after "
        "another on one connection.",
        "",
        f"### {CLIENTS} concurrent clients, {args.duration:g} s each",
        "",
        "| run | replies | pages/s | p50 ms | p95 ms | p99 ms | max ms | server median ms | "
        "workers recycled | errors |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *(describe(run) for run in runs),
        "",
        f"- **browsing** is the acceptance run: {CLIENTS} clients each send a page, wait for "
        f"the reply, then read for {THINK_S[0]:g}-{THINK_S[1]:g} s (uniform) before the next "
        f"page: {CLIENTS} people browsing at once through one server, where the extension "
        "serves one.",
        f"- **busy** is five times that pace ({BUSY_THINK_S[0]:g}-{BUSY_THINK_S[1]:g} s "
        "between pages); **saturation** sends the next page the moment the reply comes. "
        "They measure throughput and what queueing does to latency once the two worker "
        "processes are busy; they are reported, not held to the 100 ms target.",
        f"- The {args.load_sites} sites are hashed onto the {args.workers} workers; a "
        "site's pages are processed in order, each after the model learned from the one "
        "before. The bench's own clients run on the same two cores.",
        "- Memory of the server, its workers and helpers after each run (PSS total, RSS "
        "total): " + ", ".join(f"{p:.0f} MB ({r:.0f} MB)" for p, r in
                               zip(pss_total[:len(runs)], rss_total, strict=False)) + ".",
        "",
        "### Memory with a full store",
        "",
        f"Filled to {stored:,} stored pages (besides those of the runs above, "
        f"{fill_sites} more sites) through the socket: {FILL_CLIENTS} clients each browse "
        f"their share of the sites one site at a time ({fill_s:.0f} s). Each worker keeps "
        f"at most {MODELS_PER_WORKER} site models in memory (`--models-per-worker`); the "
        "others are saved and loaded back when their site is visited again, and a worker "
        f"holding more than {WORKER_MEMORY_MB:g} MB after a page is recycled. Memory then:",
        "",
        "| process | RSS MB | PSS MB |",
        "|---|---|---|",
        *(f"| {name} | {r:.0f} | {p:.0f} |" for name, (r, p) in memory[-1].items()),
        f"| **total** | {rss_total[-1]:.0f} | **{pss_total[-1]:.0f}** |",
        "",
    ]
    errors = sum(len(r.errors) for r in runs)
    if errors:
        lines += ["Errors seen:", "", *(f"- {e}" for r in runs for e in r.errors[:5]), ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=DURATION_S,
                        help="seconds per load run")
    parser.add_argument("--fill", type=int, default=FILL_PAGES,
                        help="stored pages for the memory measurement")
    parser.add_argument("--fill-sites", type=int, default=FILL_SITES)
    parser.add_argument("--load-sites", type=int, default=6,
                        help="sites the load runs spread over (the corpus has six; more "
                             "makes copies of them under other names)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--write", type=Path, help="replace the Server section of this file")
    args = parser.parse_args()
    args.load_before = os.getloadavg()[0]
    publish(asyncio.run(bench(args)), args.write, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
