"""Issue 14, the server log: `winnow serve` run as a real subprocess says at start where the
data and the token are, its address and its workers, then one line per page (site, kind,
method, ms, stored or not); `--quiet` keeps it silent, `--log-format json` writes JSON lines.
Pages are sent by a real `websockets` client."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import websockets
from server_helpers import EXTENSION_ORIGIN, article_page
from winnow.learning import MODEL_KIND
from winnow.store import Store

SITE = "planet.example"
START_TIMEOUT_S = 60.0
"""How long the server may take to start on a busy machine (not a timing assertion)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(data_dir: Path, *flags: str) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """`winnow serve` on a free port with one worker; stopped with SIGINT (Ctrl-C)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "winnow.cli", "serve", "--port", str(port), "--data-dir",
         str(data_dir), "--workers", "1", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ})
    try:
        yield port, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(START_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_until_up(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stdout.read() if process.stdout else ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server did not start")


async def send_pages(port: int, collects: list[bool]) -> list[dict[str, object]]:
    replies = []
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", origin=EXTENSION_ORIGIN,  # type: ignore[arg-type]
                                  max_size=None) as ws:
        for n, collect in enumerate(collects):
            await ws.send(json.dumps({"v": 1, "id": f"p{n}", "type": "page",
                                      "url": f"https://{SITE}/news/{n}.html",
                                      "html": article_page(n), "collect": collect}))
            replies.append(json.loads(await ws.recv()))
    return replies


def run_and_log(data_dir: Path, *flags: str, collects: tuple[bool, ...] = (False, True)
                ) -> tuple[list[dict[str, object]], str]:
    """Start the server, send pages, stop it; its replies and everything it printed."""
    with serve(data_dir, *flags) as (port, process):
        wait_until_up(port, process)
        replies = asyncio.run(send_pages(port, list(collects)))
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=START_TIMEOUT_S)
    assert all(r["type"] == "result" for r in replies), replies
    return replies, output


def test_text_log_says_where_things_are_then_one_line_per_page(tmp_path: Path) -> None:
    replies, output = run_and_log(tmp_path)
    lines = output.splitlines()
    assert any(f"data in {tmp_path.resolve()}" in line for line in lines), output
    assert any(f"token in {tmp_path.resolve() / 'token'}" in line for line in lines), output
    assert any("serving on http://127.0.0.1:" in line for line in lines), output
    assert any("1 worker process" in line for line in lines), output
    pages = [line for line in lines if line.startswith("winnow: page ")]
    assert len(pages) == len(replies), output
    for line, reply in zip(pages, replies, strict=True):
        assert f"page {SITE}: {reply['kind']} by {reply['method']} in " in line
        assert line.endswith(" ms, stored" if reply["stored"] else " ms, not stored"), line
    assert "/news/" not in output  # sites, never URLs


def test_json_log_is_one_object_per_line_with_the_fields(tmp_path: Path) -> None:
    replies, output = run_and_log(tmp_path, "--log-format", "json")
    entries = [json.loads(line) for line in output.splitlines() if line.strip()]
    events = {e.get("event"): e for e in entries}
    assert events["data"]["data_dir"] == str(tmp_path.resolve())
    assert events["token"]["token_file"] == str(tmp_path.resolve() / "token")
    assert events["address"]["url"].startswith("http://127.0.0.1:")
    assert events["workers"]["workers"] == 1 and len(events["workers"]["pids"]) == 1
    pages = [e for e in entries if e.get("event") == "page"]
    assert [(p["site"], p["kind"], p["method"], p["stored"]) for p in pages] == \
        [(SITE, r["kind"], r["method"], r["stored"]) for r in replies]
    assert all(isinstance(p["ms"], float) and p["ms"] >= 0 for p in pages)
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)


def test_quiet_prints_nothing_while_all_is_well(tmp_path: Path) -> None:
    replies, output = run_and_log(tmp_path, "--quiet")
    assert [r["stored"] for r in replies] == [False, True]
    assert output.strip() == "", output


@pytest.mark.parametrize("flags", [("--log-format", "xml")])
def test_bad_log_format_is_refused(tmp_path: Path, flags: tuple[str, ...]) -> None:
    done = subprocess.run([sys.executable, "-m", "winnow.cli", "serve", "--data-dir",
                           str(tmp_path), *flags], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--log-format" in done.stderr


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_to_the_group_saves_the_models_before_the_workers_stop(
        tmp_path: Path, stop: signal.Signals) -> None:
    """A terminal's Ctrl-C (SIGINT) and a service manager's SIGTERM reach the whole process
    group: the server, its worker processes and the forkserver. They leave it to the server,
    which saves their site models and then stops them; before, each worker died of its own
    KeyboardInterrupt, or the forkserver of SIGTERM, and the learning since the last save was
    lost ("saving site models at shutdown failed")."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "winnow.cli", "serve", "--port", str(port), "--data-dir",
         str(tmp_path), "--workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ},
        start_new_session=True)
    try:
        wait_until_up(port, process)
        replies = asyncio.run(send_pages(port, [True, True]))
        assert all(r["type"] == "result" for r in replies), replies
        os.killpg(process.pid, stop)
        output, _ = process.communicate(timeout=START_TIMEOUT_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert "failed" not in output, output
    with Store.open(tmp_path) as store:
        assert SITE in store.model_versions(MODEL_KIND), output
