#!/usr/bin/env python3
"""Score Winnow and peer extractors side by side on the article sets, in one run.

    .venv/bin/python bench/evaluate.py                       # all engines, all sets
    .venv/bin/python bench/evaluate.py --engines winnow --sets readability --per-page pp.jsonl
    .venv/bin/python bench/evaluate.py --write bench/RESULTS.md
    .venv/bin/python bench/evaluate.py --engines winnow --pin-floors   # re-pin the quality gate

Every extractor is timed per page in its own process (parse included, file reading and the
HTML-to-text rendering of peers that return HTML excluded). The metric and the corpora are in
`winnow.evaluation`.

`--oof-types` makes the tune scores honest about page types: the shipped page-type classifier
learned from every tune page, so Winnow gets their types right far more often than on unseen
sites. With it, the tune pages the classifier learns from (WCXB's and the article sets') are
read with the type of a classifier that did not see their domain (5 folds by domain,
`bench/ooftypes.py`, cached); check pages keep the shipped classifier.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from winnow import evaluation as ev

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
JS_DIR = BENCH_DIR / "readabilityjs"
FLOORS_PATH = REPO_DIR / "tests" / "quality_floors.json"
SECTION = "articles"

Runner = Callable[[bytes, str | None], tuple[str, str | None]]
"""Extract one page: (html, url) -> (text or HTML, title); this call is what gets timed."""


@dataclass
class PageResult:
    """One engine's output on one page."""

    id: str
    text: str
    title: str | None
    ms: float
    error: str | None = None


@dataclass
class SetResult:
    """One engine's results on one set, or why it was skipped."""

    engine: str
    set: str
    pages: list[PageResult]
    note: str | None = None


# --- engines ------------------------------------------------------------------------------------

def run_winnow(html: bytes, url: str | None) -> tuple[str, str | None]:
    """Winnow's article text and title."""
    return ev.extract_text(html, url)


def run_trafilatura(html: bytes, url: str | None) -> tuple[str, str | None]:
    """trafilatura with its default settings, plain-text output."""
    import trafilatura

    return trafilatura.extract(html, url=url) or "", None


def run_trafilatura_precision(html: bytes, url: str | None) -> tuple[str, str | None]:
    """trafilatura with favor_precision=True, plain-text output."""
    import trafilatura

    return trafilatura.extract(html, url=url, favor_precision=True) or "", None


def run_readability_lxml(html: bytes, url: str | None) -> tuple[str, str | None]:
    """readability-lxml's summary() HTML and short_title()."""
    from readability import Document

    doc = Document(html, url=url)
    return doc.summary(), doc.short_title()


PYTHON_ENGINES: dict[str, tuple[Runner, bool]] = {
    "winnow": (run_winnow, False),
    "trafilatura": (run_trafilatura, False),
    "trafilatura-precision": (run_trafilatura_precision, False),
    "readability-lxml": (run_readability_lxml, True),
}
"""Name -> (runner, whether its output is HTML to render as text)."""
JS_ENGINE = "readability.js"
ENGINES = (*PYTHON_ENGINES, JS_ENGINE)


def run_python(engine: str, cases: Sequence[ev.Case],
               overrides: dict[str, Runner] | None = None) -> list[PageResult]:
    """Run a Python engine over the cases, timing each call; the first page is warmed up.
    `overrides` runs the cases it names (by id) with its runner instead (`--oof-types`)."""
    runner, returns_html = PYTHON_ENGINES[engine]
    if cases:
        _call(runner, cases[0])
    results = []
    for case in cases:
        start = time.perf_counter()
        output, title, error = _call((overrides or {}).get(case.id, runner), case)
        ms = (time.perf_counter() - start) * 1000
        text = ev.html_to_text(output) if returns_html else output
        results.append(PageResult(case.id, text, title, ms, error))
    return results


def _call(runner: Runner, case: ev.Case) -> tuple[str, str | None, str | None]:
    """Run one extraction; an exception becomes empty output plus its message."""
    try:
        return (*runner(case.html, case.url), None)
    except Exception as exc:  # noqa: BLE001 - a peer's crash on one page must not stop the run
        return "", None, f"{type(exc).__name__}: {exc}"


def run_readability_js(cases: Sequence[ev.Case]) -> list[PageResult]:
    """Run Readability.js (jsdom) over the cases in one node process; raise RuntimeError if
    node or its packages are unavailable."""
    _ensure_node_modules()
    jobs = "".join(json.dumps({"id": c.id, "path": str(c.path), "url": c.url}) + "\n"
                   for c in cases)
    proc = subprocess.run(["node", str(JS_DIR / "run.mjs")], input=jobs, capture_output=True,
                          text=True, cwd=JS_DIR, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"node run.mjs failed: {proc.stderr.strip()[-500:]}")
    # split on "\n" only: JSON.stringify leaves U+2028 and friends, which splitlines() splits on
    rows = [json.loads(line) for line in proc.stdout.split("\n") if line.strip()]
    if len(rows) != len(cases):
        raise RuntimeError(f"node run.mjs returned {len(rows)} of {len(cases)} pages")
    return [PageResult(row["id"], ev.html_to_text(row["html"]), row["title"], row["ms"],
                       row["error"]) for row in rows]


def _ensure_node_modules() -> None:
    """Install the node packages on first use; raise RuntimeError when node/npm are missing."""
    if shutil.which("node") is None:
        raise RuntimeError("node is not installed")
    if (JS_DIR / "node_modules" / "@mozilla" / "readability").is_dir():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed")
    command = "ci" if (JS_DIR / "package-lock.json").is_file() else "install"
    proc = subprocess.run([npm, command, "--no-audit", "--no-fund"], cwd=JS_DIR,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"npm {command} failed: {proc.stderr.strip()[-500:]}")


def run_engine(engine: str, set_name: str, cases: Sequence[ev.Case],
               oof_types: bool = False, true_types: bool = False) -> SetResult:
    """Run one engine on one set; an unavailable engine yields a SetResult with a note.
    With `oof_types`, Winnow reads the tune pages the page-type classifier learns from with
    their out-of-fold types (`bench/ooftypes.py`); with `true_types`, WCXB's tune pages with
    their labelled types (`ooftypes.true_runners`)."""
    try:
        overrides = None
        if (oof_types or true_types) and engine == "winnow":
            import ooftypes

            overrides = ooftypes.true_runners(cases) if true_types else ooftypes.runners(cases)
        pages = (run_readability_js(cases) if engine == JS_ENGINE
                 else run_python(engine, cases, overrides))
    except (ImportError, RuntimeError, OSError) as exc:
        return SetResult(engine, set_name, [], note=f"{engine} skipped: {exc}")
    return SetResult(engine, set_name, pages)


# --- scoring and reporting ----------------------------------------------------------------------

PARTS = (*ev.SPLITS, "all")
"""The parts every set is reported on: tune, check (by a stable hash of each page's domain, see
`winnow.evaluation.split_of`) and both together."""


@dataclass
class PartScore:
    """One engine on one part of one set: both metrics, WCXB's snippet rates, timing."""

    shingle: ev.Score
    word: ev.Score
    found: float | None
    leaked: float | None
    ms: list[float]
    errors: int

    @property
    def pages(self) -> int:
        return self.shingle.pages


def in_part(case: ev.Case, part: str) -> bool:
    """True when the case belongs to `part` ("tune", "check" or "all")."""
    return part == "all" or case.split == part


def score_part(result: SetResult, cases: Sequence[ev.Case], part: str,
               page_type: str | None = None) -> PartScore:
    """Score an engine's pages that fall in `part` (and are of `page_type`, when given)."""
    by_id = {case.id: case for case in cases}
    pages = [page for page in result.pages if in_part(by_id[page.id], part)
             and (page_type is None or by_id[page.id].page_type == page_type)]
    pairs = [(by_id[page.id].gold, page.text) for page in pages]
    rates = [ev.snippet_rates(page.text, by_id[page.id].metadata.get("with") or [],
                              by_id[page.id].metadata.get("without") or []) for page in pages]
    return PartScore(
        shingle=ev.aggregate(ev.page_counts(gold, text) for gold, text in pairs),
        word=ev.word_aggregate(ev.word_f1(gold, text) for gold, text in pairs),
        found=_mean_known(rate[0] for rate in rates),
        leaked=_mean_known(rate[1] for rate in rates),
        ms=[page.ms for page in pages], errors=sum(1 for page in pages if page.error))


def _mean_known(values: Iterable[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return statistics.fmean(known) if known else None


def headline(score: PartScore, set_name: str) -> ev.Score:
    """The score a set is judged by: word F1 for WCXB, shingle F1 for the others."""
    return score.word if ev.set_metric(set_name) == "word" else score.shingle


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def title_match(result: SetResult, cases: Sequence[ev.Case]) -> tuple[int, int] | None:
    """(exact title matches, pages with an expected title), whitespace-normalised; None when
    the engine gives no titles."""
    if not any(page.title for page in result.pages):
        return None
    expected = {c.id: _norm(c.metadata.get("title")) for c in cases if c.metadata.get("title")}
    hits = sum(1 for page in result.pages
               if page.id in expected and _norm(page.title) == expected[page.id])
    return hits, len(expected)


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def table_rows(results: list[SetResult], cases: dict[str, list[ev.Case]]) -> list[str]:
    """Markdown table: one row per set, part and engine, with both metrics."""
    rows = ["| set | part | engine | shingle F1 | P | R | word F1 | ms median | ms p95 | pages "
            "| errors |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for set_name in dict.fromkeys(result.set for result in results):
        for part in PARTS:
            for result in results:
                if result.set != set_name or result.note or not result.pages:
                    continue
                score = score_part(result, cases[set_name], part)
                judged = "**" if ev.set_metric(set_name) == "word" else ""
                shingle_b = "" if judged else "**"
                rows.append(
                    f"| {set_name} | {part} | {result.engine} "
                    f"| {shingle_b}{score.shingle.f1:.3f}{shingle_b} "
                    f"| {score.shingle.precision:.3f} | {score.shingle.recall:.3f} "
                    f"| {judged}{score.word.f1:.3f}{judged} | {_ms(score.ms, 50)} "
                    f"| {_ms(score.ms, 95)} | {score.pages} | {score.errors} |")
    return rows


def _ms(values: Sequence[float], q: float) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values) if q == 50 else percentile(values, q):.1f}"


def page_type_rows(results: list[SetResult], cases: dict[str, list[ev.Case]]) -> list[str]:
    """WCXB per page type and part: each engine's word F1 (share of `with` snippets found /
    of `without` snippets leaked)."""
    wcxb = [r for r in results if r.set == "wcxb" and not r.note and r.pages]
    if not wcxb:
        return []
    types = sorted({case.page_type for case in cases["wcxb"]})
    rows = ["| page type | part | pages | " + " | ".join(r.engine for r in wcxb) + " |",
            "|---|---|---|" + "---|" * len(wcxb)]
    for page_type in types:
        for part in PARTS:
            scores = [score_part(r, cases["wcxb"], part, page_type) for r in wcxb]
            cells = [f"{s.word.f1:.3f} ({_rate(s.found)} / {_rate(s.leaked)})" for s in scores]
            rows.append(f"| {page_type} | {part} | {scores[0].pages} | " + " | ".join(cells)
                        + " |")
    return rows


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def title_lines(results: list[SetResult], cases: dict[str, list[ev.Case]]) -> list[str]:
    """Title exact-match rates on the readability set."""
    lines = []
    for result in results:
        match = (title_match(result, cases[result.set])
                 if result.set == "readability" and not result.note else None)
        if match:
            hits, total = match
            lines.append(f"- {result.engine}: {hits}/{total} = {hits / max(total, 1):.3f}")
    return lines


def report(results: list[SetResult], cases: dict[str, list[ev.Case]], command: str) -> str:
    """The markdown section: command, date, machine, tables, title matches, notes."""
    lines = [
        "## Article extraction",
        "",
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; machine: "
        f"{os.cpu_count()} cores (nproc {_nproc()}), {platform.machine()}, "
        f"Python {platform.python_version()}{_node_version()}; {_versions()}; {_git_state()}.",
        "",
        "Metrics: the shingle F1 of the ScrapingHub article-extraction-benchmark (4-token "
        "shingles of `\\w+` tokens, P and R averaged over pages, F1 of the averages) and WCXB's "
        "word F1 (lower-cased `\\w+` bags of words, F1 per page averaged over pages, an empty "
        "output scoring 0). The score in bold is the one each set is judged and gated by: "
        "word F1 on wcxb, shingle F1 elsewhere. Parts: each set is split by a stable hash of "
        "the page's domain into tune (2/3, where Winnow is developed) and check (1/3, looked "
        "at only as these aggregates); `all` is both. Winnow's text is its article's text, a "
        "thread's posts (author, date and text of each) or a page's main text. Gold of "
        "readability/ is expected.html rendered one block per line without its figcaptions "
        "(Winnow's text leaves captions out; its html keeps them), of dragnet/ the text "
        "before the COMMENTS line; sites/ leaves out latimes/2017/trump_4, whose gold is a "
        "different article than its page. trafilatura runs twice, default and "
        "favor_precision (`trafilatura-precision`). Times are per page, in-process, parse "
        "included, rendering of peers' HTML output to text excluded. Readability.js gets "
        "pages that are valid UTF-8 declared as UTF-8 (jsdom would otherwise fall back to "
        "windows-1252 without a <meta charset>).",
        "",
        *table_rows(results, cases),
    ]
    types = page_type_rows(results, cases)
    if types:
        lines += ["", "WCXB by page type: word F1 (share of the page's `with` snippets found / "
                  "of its `without` boilerplate snippets leaked).", "", *types]
    titles = title_lines(results, cases)
    if titles:
        lines += ["", "Title exact match on readability/ vs expected-metadata.json "
                  "(whitespace-normalised):", "", *titles]
    notes = sorted({result.note for result in results if result.note})
    if notes:
        lines += ["", "Notes:", "", *(f"- {note}" for note in notes)]
    return "\n".join(lines) + "\n"


def _nproc() -> str:
    return str(len(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else "?"


def _node_version() -> str:
    if shutil.which("node") is None:
        return ""
    proc = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    return f", node {proc.stdout.strip()}"


def _git_state() -> str:
    """The commit measured, flagged when the working tree has uncommitted changes."""
    def git(*args: str) -> str:
        proc = subprocess.run(["git", *args], cwd=REPO_DIR, capture_output=True, text=True,
                              check=False)
        return proc.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"commit {commit}{dirty}"


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for package in ("winnow", "trafilatura", "readability-lxml"):
        try:
            parts.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            continue
    deps = json.loads((JS_DIR / "package.json").read_text("utf-8"))["dependencies"]
    parts += [f"{name} {spec}" for name, spec in deps.items()]
    return ", ".join(parts)


def command_line(script: str, argv: Sequence[str] | None) -> str:
    """How a bench was run, for its report: `.venv/bin/python bench/SCRIPT ARGS`."""
    return shlex.join([".venv/bin/python", f"bench/{script}",
                       *(argv if argv is not None else sys.argv[1:])])


def publish(text: str, path: Path | None, section: str) -> None:
    """Print a bench's report and, given a path, replace its section of that file."""
    print(text)
    if path is not None:
        write_section(path, text, section)


def write_section(path: Path, body: str, section: str = SECTION) -> None:
    """Replace the text between this section's markers in `path`, or append the section."""
    start, end = f"<!-- {section}:start -->", f"<!-- {section}:end -->"
    block = f"{start}\n{body}{end}\n"
    old = path.read_text("utf-8") if path.is_file() else "# Benchmark results\n"
    if start in old and end in old:
        head, rest = old.split(start, 1)
        new = head + block + rest.split(end, 1)[1].lstrip("\n")
    else:
        new = old.rstrip("\n") + "\n\n" + block
    path.write_text(new, "utf-8")


def write_per_page(path: Path, results: list[SetResult], cases: dict[str, list[ev.Case]]) -> None:
    """One JSON line per page: set, id, part, page type and each engine's shingle p, r, f1,
    word F1, ms (and error)."""
    rows: dict[tuple[str, str], dict[str, object]] = {}
    for result in results:
        by_id = {case.id: case for case in cases[result.set]}
        for page in result.pages:
            case = by_id[page.id]
            row = rows.setdefault((result.set, page.id), {
                "set": result.set, "id": page.id, "part": case.split,
                "page_type": case.page_type})
            counts = ev.page_counts(case.gold, page.text)
            p, r = ev.precision(counts), ev.recall(counts)
            row[result.engine] = {"p": round(p, 4), "r": round(r, 4),
                                  "f1": round(ev.f1(p, r), 4),
                                  "word_f1": round(ev.word_f1(case.gold, page.text)[2], 4),
                                  "ms": round(page.ms, 2), "error": page.error}
    with path.open("w", encoding="utf-8") as out:
        for row in rows.values():
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def misrouted_ceilings(cases: dict[str, list[ev.Case]]) -> dict[str, dict[str, int]]:
    """Per set and part, how many article pages Winnow reads as threads today: the gate's
    ceiling (it fails when more do)."""
    return {name: {part: len(ev.misrouted(c for c in set_cases if c.split == part))
                   for part in ev.SPLITS}
            for name, set_cases in cases.items()}


def pin_floors(results: list[SetResult], cases: dict[str, list[ev.Case]], margin: float,
               path: Path = FLOORS_PATH) -> dict[str, dict[str, float]]:
    """Rewrite the quality-gate floors: per set and part (tune, check), Winnow's score by the
    set's own metric minus `margin`, rounded down."""
    floors: dict[str, dict[str, float]] = {}
    for result in results:
        if result.engine != "winnow":
            continue
        floors[result.set] = {
            part: math.floor((headline(score_part(result, cases[result.set], part),
                                       result.set).f1 - margin) * 1000) / 1000
            for part in ev.SPLITS}
    data = {"corpus_sha256": ev.corpus_fingerprint(), "margin": margin,
            "pinned": datetime.date.today().isoformat(),
            "metrics": {name: ev.set_metric(name) for name in floors}, "floors": floors,
            "misrouted": misrouted_ceilings(cases)}
    path.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    return floors


# --- command line -------------------------------------------------------------------------------

def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse and check the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(ev.SETS), help="comma-separated sets")
    parser.add_argument("--engines", default=",".join(ENGINES),
                        help=f"comma-separated, from {', '.join(ENGINES)}")
    parser.add_argument("--limit", type=int, help="only the first N pages of each set")
    parser.add_argument("--split", choices=(*ev.SPLITS, "all"), default="all",
                        help="run on one part of every set only (default: all, reported by part)")
    parser.add_argument("--write", type=Path, help="write/replace the section in this markdown")
    parser.add_argument("--per-page", type=Path, help="write per-page scores as JSON lines")
    parser.add_argument("--pin-floors", action="store_true",
                        help=f"rewrite {FLOORS_PATH.relative_to(REPO_DIR)} from Winnow's F1")
    parser.add_argument("--oof-types", action="store_true",
                        help="Winnow reads the tune pages the page-type classifier learns from "
                             "with out-of-fold types (bench/ooftypes.py; needs the train extra "
                             "on a cache miss)")
    parser.add_argument("--true-types", action="store_true",
                        help="Winnow reads WCXB's tune pages with their labelled types (the "
                             "bound for --oof-types; check pages keep the shipped classifier)")
    parser.add_argument("--margin", type=float, default=0.005,
                        help="floor = measured F1 minus this (with --pin-floors)")
    args = parser.parse_args(argv)
    args.sets = _choices(parser, "--sets", args.sets, ev.SETS)
    args.engines = _choices(parser, "--engines", args.engines, ENGINES)
    if args.pin_floors and ("winnow" not in args.engines or args.limit or args.split != "all"
                            or set(args.sets) != set(ev.SETS) or args.oof_types
                            or args.true_types):
        parser.error("--pin-floors needs engine winnow, all sets, all parts, no --limit "
                     "and no --oof-types or --true-types")
    if args.oof_types and args.true_types:
        parser.error("--oof-types and --true-types exclude each other")
    return args


def _choices(parser: argparse.ArgumentParser, flag: str, value: str,
             allowed: Sequence[str]) -> list[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in allowed]
    if unknown or not names:
        parser.error(f"{flag}: unknown {unknown or value!r}; choose from {', '.join(allowed)}")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print (and optionally write) the results."""
    args = parse_args(argv)
    if not (ev.data_dir() / "articles").is_dir():
        print(f"no data at {ev.data_dir()} (set WINNOW_DATA)", file=sys.stderr)
        return 2
    split = None if args.split == "all" else args.split
    cases = {name: ev.load_cases(name, limit=args.limit, split=split) for name in args.sets}
    results = []
    for set_name in args.sets:
        for engine in args.engines:
            print(f"{set_name}: {engine} ...", file=sys.stderr, flush=True)
            results.append(run_engine(engine, set_name, cases[set_name], args.oof_types,
                                      args.true_types))
    publish(report(results, cases, command_line("evaluate.py", argv)), args.write, SECTION)
    if args.per_page:
        write_per_page(args.per_page, results, cases)
    if args.pin_floors:
        print(f"pinned floors: {pin_floors(results, cases, args.margin)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
