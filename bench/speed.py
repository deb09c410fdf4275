#!/usr/bin/env python3
"""Speed work on `winnow.extract`: profile it, prove a change keeps the output, time A/B.

    # where the time goes (cProfile over the tune pages of a set, parse included)
    .venv/bin/python bench/speed.py profile --sets wcxb --limit 300
    # every page's full result (all fields but timing_ms) of the winnow on PYTHONPATH
    PYTHONPATH=/tmp/wt-before/server .venv/bin/python bench/speed.py dump /tmp/speed/before.jsonl
    .venv/bin/python bench/speed.py compare /tmp/speed/before.jsonl /tmp/speed/after.jsonl
    # interleaved timing: one worker process per engine, fed the same page in turn
    .venv/bin/python bench/speed.py ab --a /tmp/wt-before/server --b server --trafilatura
    # the same, timing each call's process CPU time instead of the wall clock
    .venv/bin/python bench/speed.py ab --a /tmp/wt-before/server --b server --trafilatura --cpu

`ab` keeps one long-lived worker per engine (winnow from each source tree, trafilatura) and
sends every page to each of them in turn, rotating who goes first, so a noisy shared machine
slows them alike; each worker times only its extraction call (parse included, like
bench/evaluate.py). With `--cpu` a worker times its process's CPU time instead
(`time.process_time`): on a host other jobs load, wall-clock medians of one run moved by half
between runs minutes apart (the time a worker waits for a core counts), CPU-time medians by
a tenth. `compare` takes confidences equal within `CONFIDENCE_TOLERANCE`.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from winnow import evaluation as ev

BENCH_DIR = Path(__file__).resolve().parent
FIXED_NOW = datetime(2026, 1, 1, tzinfo=UTC)
"""The `now` every dump extracts with: relative post dates count back from it, so two dumps
made at different times agree."""
CONFIDENCE_TOLERANCE = 1e-9
"""Largest difference between two confidences that `compare` calls equal."""
TRAFILATURA = "trafilatura"


def _cases(sets: Sequence[str], split: str | None, limit: int | None) -> list[ev.Case]:
    return [case for name in sets for case in ev.load_cases(name, split=split, limit=limit,
                                                              scored=False)]


def _result_record(case: ev.Case) -> dict[str, Any]:
    from winnow.extractor import extract
    from winnow.page import PageError

    try:
        result = extract(case.html, case.url, now=FIXED_NOW)
    except PageError as exc:
        return {"set": case.set, "id": case.id, "part": case.split, "error": str(exc)}
    record = dataclasses.asdict(result)
    record.pop("timing_ms")
    return {"set": case.set, "id": case.id, "part": case.split, "result": record}


def dump(path: Path, sets: Sequence[str], split: str | None, limit: int | None) -> int:
    """Write every page's result as one JSON line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for case in _cases(sets, split, limit):
            out.write(json.dumps(_result_record(case), ensure_ascii=False, sort_keys=True) + "\n")
    return 0


def _result_of(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """A dump's row less its part, which older dumps lack."""
    return None if row is None else {key: value for key, value in row.items() if key != "part"}


def _differences(a: Any, b: Any, where: str = "") -> list[str]:
    """Paths at which two JSON values differ (confidences within the tolerance agree)."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in sorted(set(a) | set(b)):
            found += _differences(a.get(key), b.get(key), f"{where}.{key}")
        return found
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where} (length {len(a)} vs {len(b)})"]
        return [diff for i, (x, y) in enumerate(zip(a, b, strict=True))
                for diff in _differences(x, y, f"{where}[{i}]")]
    if where.endswith("confidence") and isinstance(a, float) and isinstance(b, float):
        return [] if abs(a - b) <= CONFIDENCE_TOLERANCE else [where]
    return [] if a == b else [where]


def compare(before: Path, after: Path) -> int:
    """Print the tune pages whose results differ, and how many differ in all; exit status 1
    when any does. Pages of the check part (or of a dump without parts) are counted, never
    named: the check part is read as aggregates only."""
    def load(path: Path) -> dict[tuple[str, str], Any]:
        with path.open(encoding="utf-8") as lines:
            return {(row["set"], row["id"]): row for row in map(json.loads, lines)}
    old, new = load(before), load(after)
    changed = withheld = 0
    for key in sorted(set(old) | set(new)):
        diffs = _differences(_result_of(old.get(key)), _result_of(new.get(key)))
        if diffs:
            changed += 1
            if (new.get(key) or old[key]).get("part") == "tune":
                print(f"{key[0]}/{key[1]}: {', '.join(diffs[:5])}")
            else:
                withheld += 1
    print(f"{len(old)} vs {len(new)} pages, {changed} differ"
          + (f" ({withheld} of them check pages or pages of unknown part, not named)"
             if withheld else ""))
    return 1 if changed else 0


def profile(sets: Sequence[str], split: str | None, limit: int | None, top: int,
            sort: str) -> int:
    """cProfile `extract` over the pages (parse included), after one warm-up page."""
    from winnow.extractor import extract

    cases = _cases(sets, split, limit)
    if cases:
        extract(cases[0].html, cases[0].url, now=FIXED_NOW)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for case in cases:
        extract(case.html, case.url, now=FIXED_NOW)
    profiler.disable()
    seconds = time.perf_counter() - start
    print(f"{len(cases)} pages, {seconds * 1000 / max(len(cases), 1):.1f} ms per page "
          "under the profiler")
    pstats.Stats(profiler).sort_stats(sort).print_stats(top)
    return 0


# --- interleaved A/B timing ---------------------------------------------------------------------

def worker(engine: str, sets: Sequence[str], split: str | None, limit: int | None,
           cpu: bool = False) -> int:
    """Serve timing requests: read a page index per line, extract it, answer its milliseconds
    (of the wall clock, or of the process's CPU time with `cpu`)."""
    cases = _cases(sets, split, limit)
    run = _runner(engine)
    clock = time.process_time if cpu else time.perf_counter
    run(cases[0])  # warm up: models, lazy imports
    print("ready", flush=True)
    for line in sys.stdin:
        case = cases[int(line)]
        start = clock()
        run(case)
        print(f"{(clock() - start) * 1000:.3f}", flush=True)
    return 0


def _runner(engine: str) -> Any:
    if engine == TRAFILATURA:
        import trafilatura

        return lambda case: trafilatura.extract(case.html, url=case.url)
    from winnow.extractor import extract
    from winnow.page import PageError

    def run(case: ev.Case) -> None:
        try:
            extract(case.html, case.url, now=FIXED_NOW)
        except PageError:
            pass
    return run


def _spawn(engine: str, pythonpath: str | None, args: argparse.Namespace) -> subprocess.Popen[str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(Path(pythonpath).resolve())
    command = [sys.executable, str(Path(__file__).resolve()), "worker", engine,
               "--sets", ",".join(args.sets), "--split", args.split or "all"]
    if args.cpu:
        command.append("--cpu")
    if args.limit:
        command += ["--limit", str(args.limit)]
    proc = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError(f"worker {engine} failed to start")
    return proc


def ab(args: argparse.Namespace) -> int:
    """Time the engines page by page in turn; print medians and p95 per set."""
    engines: list[tuple[str, str | None]] = [("A", args.a), ("B", args.b)]
    if args.trafilatura:
        engines.append((TRAFILATURA, None))
    cases = _cases(args.sets, _split(args.split), args.limit)
    procs = {name: _spawn(TRAFILATURA if name == TRAFILATURA else "winnow", path, args)
             for name, path in engines}
    times: dict[str, dict[str, list[float]]] = {name: {} for name in procs}
    try:
        for index, case in enumerate(cases):
            order = list(procs)[index % len(procs):] + list(procs)[:index % len(procs)]
            for name in order:
                proc = procs[name]
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(f"{index}\n")
                proc.stdin.flush()
                times[name].setdefault(case.set, []).append(float(proc.stdout.readline()))
    finally:
        for proc in procs.values():
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait()
    print(f"{'set':<12} {'engine':<12} {'median ms':>10} {'p95 ms':>8} {'mean ms':>8} pages")
    for name in args.sets:
        for engine, by_set in times.items():
            values = by_set.get(name, [])
            if values:
                print(f"{name:<12} {engine:<12} {statistics.median(values):>10.2f} "
                      f"{_p95(values):>8.2f} {statistics.fmean(values):>8.2f} {len(values)}")
    return 0


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _split(value: str | None) -> str | None:
    return None if value in (None, "all") else value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub: argparse.ArgumentParser, sets: str, split: str) -> None:
        sub.add_argument("--sets", default=sets, type=lambda value: value.split(","))
        sub.add_argument("--split", default=split, choices=("tune", "check", "all"))
        sub.add_argument("--limit", type=int, default=None, help="pages per set")

    sub = commands.add_parser("dump", help="every page's result as JSON lines")
    sub.add_argument("out", type=Path)
    common(sub, ",".join(ev.SETS), "all")
    sub = commands.add_parser("compare", help="pages whose results differ between two dumps")
    sub.add_argument("before", type=Path)
    sub.add_argument("after", type=Path)
    sub = commands.add_parser("profile", help="cProfile extract over a set's pages")
    common(sub, "wcxb", "tune")
    sub.add_argument("--top", type=int, default=40)
    sub.add_argument("--sort", default="cumulative")
    sub = commands.add_parser("ab", help="interleaved timing of two source trees")
    sub.add_argument("--a", required=True, help="PYTHONPATH of engine A (a server/ directory)")
    sub.add_argument("--b", required=True, help="PYTHONPATH of engine B")
    sub.add_argument("--trafilatura", action="store_true", help="time trafilatura beside")
    sub.add_argument("--cpu", action="store_true",
                     help="time each call's process CPU time, not the wall clock")
    common(sub, "wcxb,sites", "all")
    sub = commands.add_parser("worker", help=argparse.SUPPRESS)
    sub.add_argument("engine")
    sub.add_argument("--cpu", action="store_true")
    common(sub, "wcxb", "all")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.command == "dump":
        return dump(args.out, args.sets, _split(args.split), args.limit)
    if args.command == "compare":
        return compare(args.before, args.after)
    if args.command == "profile":
        return profile(args.sets, _split(args.split), args.limit, args.top, args.sort)
    if args.command == "worker":
        return worker(args.engine, args.sets, _split(args.split), args.limit, args.cpu)
    return ab(args)


if __name__ == "__main__":
    sys.exit(main())
