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
import shlex
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
from evaluate import _git_state, _nproc, percentile, write_section
from winnow import evaluation as ev

SECTION = "server"
VISITS = itertools.count()
"""Every page sent gets a URL of its own, so each is stored as a new page (the store keeps
one copy of an identical re-visit)."""
CLIENTS = 50
DURATION_S = 60.0
THINK_S = (1.0, 3.0)
"""A browsing client's pause between two pages: a person reads for a while (uniform, s)."""
FILL_PAGES = 10_000
FILL_SITES = 100
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
        self.process = subprocess.Popen(
            [sys.executable, "-m", "winnow.cli", "serve", "--port", str(self.port),
             "--data-dir", str(data_dir), "--workers", str(workers)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)

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

    def rss_mb(self) -> dict[str, float]:
        """Resident memory of the server and every process in its group, in MB."""
        sizes: dict[str, float] = {}
        for pid in _group_pids(self.process.pid):
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                rss = next((int(line.split()[1]) for line in status.splitlines()
                            if line.startswith("VmRSS:")), 0)
                role = _role(pid, self.process.pid, cmdline.decode(errors="replace"))
            except (OSError, IndexError, ValueError):
                continue
            sizes[f"{role} (pid {pid})"] = rss / 1024
        return sizes

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        if self.process.stderr is not None:
            self.process.stderr.close()


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
        return json.dumps({"v": 1, "id": self.sent, "type": "page", "url": url,
                           "html": page.html, "collect": True}, ensure_ascii=False)


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


async def sequential(server: Server, pages: list[Page]) -> tuple[list[float], list[float],
                                                                   list[float]]:
    """One page at a time: socket round trip, the server's own time, and `winnow.extract`
    called directly on the same page (no site model, as on a first visit)."""
    ws = await server.connect()
    socket_ms, server_ms, direct_ms = [], [], []
    rng = random.Random(7)
    chosen = rng.sample(pages, min(SEQUENTIAL_PAGES, len(pages)))
    for n, page in enumerate(chosen):
        message = json.dumps({"v": 1, "id": n, "type": "page", "html": page.html,
                              "url": f"https://first-visit-{n}.example/{page.name}",
                              "collect": True}, ensure_ascii=False)
        start = time.perf_counter()
        await ws.send(message)
        reply = json.loads(await ws.recv())
        socket_ms.append((time.perf_counter() - start) * 1000)
        server_ms.append(reply["timing_ms"]["server"])
        start = time.perf_counter()
        winnow.extract(page.html, f"https://first-visit-{n}.example/{page.name}")
        direct_ms.append((time.perf_counter() - start) * 1000)
    await ws.close()
    return socket_ms, server_ms, direct_ms


async def fill(server: Server, pages: list[Page], target: int, sites: int) -> tuple[int, float]:
    """Send pages until the store holds `target` pages across `sites` site names; return the
    stored count and the seconds it took."""
    copies = -(-sites // len({p.site for p in pages}))
    run = Run("fill", 0)
    ws = await server.connect()
    await ws.send(json.dumps({"v": 1, "id": "s", "type": "stats"}))
    stored = json.loads(await ws.recv())["pages"]
    clients = [Client(n, pages, copies) for n in range(CLIENTS)]
    sockets = [await server.connect() for _ in clients]
    started = time.perf_counter()
    remaining = max(0, target - stored)

    async def send(client: Client, ws_: websockets.ClientConnection) -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            await request(ws_, client.next_message(), run)

    await asyncio.gather(*(send(c, s) for c, s in zip(clients, sockets, strict=True)))
    for s in sockets:
        await s.close()
    await ws.send(json.dumps({"v": 1, "id": "s2", "type": "stats"}))
    stats = json.loads(await ws.recv())
    await ws.close()
    if run.errors:
        raise RuntimeError(f"fill failed: {run.errors[:3]}")
    return stats["pages"], time.perf_counter() - started


def describe(run: Run) -> str:
    lat = sorted(run.latencies_ms)
    return (f"| {run.name} | {run.pages} | {run.pages / run.seconds:.1f} | "
            f"{percentile(lat, 50):.1f} | {percentile(lat, 95):.1f} | "
            f"{percentile(lat, 99):.1f} | {max(lat):.1f} | "
            f"{statistics.median(run.server_ms):.1f} | {len(run.errors)} |")


async def bench(args: argparse.Namespace) -> str:
    pages = load_pages()
    with tempfile.TemporaryDirectory(prefix="winnow-load-") as tmp:
        server = Server(Path(tmp) / "data", args.workers)
        try:
            await (await server.connect()).close()
            socket_ms, server_ms, direct_ms = await sequential(server, pages)
            copies = max(1, args.load_sites // len({p.site for p in pages}))
            browsing = await load_run(server, pages, f"browsing, think {THINK_S[0]:g}-"
                                      f"{THINK_S[1]:g} s", args.duration, THINK_S, copies)
            rss_browsing = server.rss_mb()
            saturated = await load_run(server, pages, "saturation, no think time",
                                       args.duration, None, copies)
            rss_saturated = server.rss_mb()
            stored, fill_s = await fill(server, pages, args.fill, args.fill_sites)
            rss_filled = server.rss_mb()
        finally:
            server.stop()
    return report(args, pages, (socket_ms, server_ms, direct_ms), [browsing, saturated],
                  (rss_browsing, rss_saturated, rss_filled), stored, fill_s)


def report(args: argparse.Namespace, pages: list[Page],
           single: tuple[list[float], list[float], list[float]], runs: list[Run],
           rss: tuple[dict[str, float], ...], stored: int, fill_s: float) -> str:
    socket_ms, server_ms, direct_ms = (sorted(x) for x in single)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = shlex.join([".venv/bin/python", "bench/load.py", *sys.argv[1:]])
    total = [sum(r.values()) for r in rss]
    median_kb = statistics.median(len(p.html) for p in pages) / 1024
    lines = [
        "## Server",
        "",
        f"Command: `{command}`  ",
        f"Date: {now}; machine: {_nproc()} cores, {platform.machine()}, Python "
        f"{platform.python_version()}; winnow {winnow.__version__}; commit {_git_state()}.",
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
        f"| `winnow.extract` called directly (parse + extract) | "
        f"{percentile(direct_ms, 50):.1f} | {percentile(direct_ms, 95):.1f} |",
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
        "errors |",
        "|---|---|---|---|---|---|---|---|---|",
        *(describe(run) for run in runs),
        "",
        f"- **browsing** is the acceptance run: {CLIENTS} clients each send a page, wait for "
        f"the reply, then read for {THINK_S[0]:g}-{THINK_S[1]:g} s (uniform) before the next "
        "page, which is already far busier than one person's browser (one page every two "
        "seconds per client, 25 pages/s in all).",
        "- **saturation** sends the next page the moment the reply comes: it measures "
        "throughput, and its latency is mostly queueing (50 pages waiting on two worker "
        "processes), so it is reported, not held to the 100 ms target.",
        f"- Resident memory of the server, its {args.workers} workers and the forkserver: "
        f"{total[0]:.0f} MB after browsing, {total[1]:.0f} MB after saturation.",
        "",
        "### Memory with a full store",
        "",
        f"Filled to {stored:,} stored pages across {args.fill_sites} sites through the "
        f"socket ({fill_s:.0f} s, {CLIENTS} clients); resident memory then:",
        "",
        "| process | RSS MB |",
        "|---|---|",
        *(f"| {name} | {mb:.0f} |" for name, mb in rss[2].items()),
        f"| **total** | **{total[2]:.0f}** |",
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
    text = asyncio.run(bench(args))
    print(text)
    if args.write:
        write_section(args.write, text, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
