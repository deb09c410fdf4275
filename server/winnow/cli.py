"""The `winnow` command line.

    winnow extract [--url URL] [--format text|html|markdown|json|jsonl] PATH...
    winnow extract --learn --data-dir DIR [--site SITE] [--url URL] [--format ...] PATH...
    winnow learn --data-dir DIR [--site SITE] [--url URL] PATH...
    winnow sites --data-dir DIR
    winnow posts [--format json|csv|markdown|jsonl] [--url URL] PATH...
    winnow batch [--output DIR] [--format parquet|jsonl] [--scheduler ADDRESS] INPUT...

`extract` reads one or many files (`-` is stdin) in one process. With jsonl each input gives
one line, the `Extraction` as JSON plus `path`; an input that can't be read or parsed gives a
line with an `error` and the run goes on. With `--learn`, pages are processed the way
browsing does: each is extracted with what its site learned from the pages before it, then
stored and learned from. `learn` learns without extracting. The exit status is 1 when any
input failed, else 0. `posts` exports the posts of threads (or an article and its comments)
as `winnow.export` writes them; with jsonl, one line per input with its title, URL, kind and
posts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from winnow.export import export_extraction, export_posts
from winnow.extractor import extract
from winnow.learning import MODEL_KIND, Learner
from winnow.page import PageError
from winnow.result import Extraction
from winnow.sitekeys import normalize_site, site_key
from winnow.store import Store, StoreError, default_data_dir

FORMATS = ("text", "html", "markdown", "json", "jsonl")
POST_FORMATS = ("json", "csv", "markdown", "jsonl")

SAVE_EVERY = 50
"""Pages learned between two saves of the site models (a crash loses at most these)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="winnow", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ex = commands.add_parser("extract", help="extract the reader view of saved pages")
    _add_inputs(ex)
    ex.add_argument("--format", choices=FORMATS, default="text", help="output format")
    ex.add_argument("--learn", action="store_true",
                    help="extract with the site's learned templates, then learn from the page")
    _add_store(ex, required=False)
    learn = commands.add_parser("learn", help="learn site templates from saved pages")
    _add_inputs(learn)
    _add_store(learn, required=False)
    sites = commands.add_parser("sites", help="list learned sites, clusters and pages")
    _add_store(sites, required=False)
    posts = commands.add_parser("posts", help="export the posts of saved thread pages")
    _add_inputs(posts)
    posts.add_argument("--format", choices=POST_FORMATS, default="json", help="output format")
    _add_serve(commands.add_parser("serve", help="run the companion server the extension "
                                   "talks to (WebSocket /ws, HTTP API, dashboard at /)"))
    corpus = commands.add_parser("export-corpus", help="export collected pages for research "
                                 "as JSON lines or WARC")
    corpus.add_argument("--format", choices=("jsonl", "warc"), required=True)
    corpus.add_argument("--output", "-o", type=Path,
                        help="file to write (default: standard output)")
    _add_store(corpus, required=False)
    from winnow.batch import add_arguments as add_batch_arguments

    add_batch_arguments(commands.add_parser("batch", help="learn and extract whole crawls "
                                            "(WARC or JSON lines) on Dask; see winnow.batch"))
    return parser


def _add_serve(serve: argparse.ArgumentParser) -> None:
    from winnow.server.state import (
        DEFAULT_HOST,
        DEFAULT_PORT,
        MAX_MESSAGE_BYTES,
        MODELS_PER_WORKER,
        WORKER_MEMORY_MB,
    )

    serve.add_argument("--host", default=DEFAULT_HOST,
                       help=f"address to listen on (default {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT,
                       help=f"port to listen on (default {DEFAULT_PORT})")
    serve.add_argument("--data-dir", type=Path,
                       help=f"where pages and models are kept (default {default_data_dir()})")
    serve.add_argument("--allow-remote", action="store_true",
                       help="allow --host to be a non-loopback address (other machines can "
                            "then connect; they still need the token or an extension origin)")
    serve.add_argument("--extension-id", action="append", default=[], metavar="ID",
                       help="accept only this extension id (repeatable; default: any)")
    serve.add_argument("--workers", type=int, help="worker processes (default: one per core)")
    serve.add_argument("--models-per-worker", type=int, default=MODELS_PER_WORKER,
                       help="site models each worker keeps in memory (default "
                            f"{MODELS_PER_WORKER})")
    serve.add_argument("--worker-memory-mb", type=float, default=WORKER_MEMORY_MB,
                       help="recycle a worker holding more memory than this after a page "
                            f"(default {WORKER_MEMORY_MB:g}; 0 never)")
    serve.add_argument("--max-message-bytes", type=int, default=MAX_MESSAGE_BYTES,
                       help=f"largest WebSocket message (default {MAX_MESSAGE_BYTES:,})")
    serve.add_argument("--quiet", action="store_true",
                       help="log warnings and errors only (no start lines, no line per page)")
    serve.add_argument("--log-format", choices=("text", "json"), default="text",
                       help="log as text lines or as JSON lines (default text)")


def run_export_corpus(args: argparse.Namespace) -> int:
    """Write the collected pages of `--site` (or all sites) as JSONL or WARC."""
    from winnow.corpus import export_corpus

    site = normalize_site(args.site) if args.site else None
    with Store.open(args.data_dir or default_data_dir()) as store:
        if args.output is None:
            written = export_corpus(store, args.format, sys.stdout.buffer, site)
        else:
            with open(args.output, "wb") as out:
                written = export_corpus(store, args.format, out, site)
    skipped = f", {written.skipped} corrupt pages skipped" if written.skipped else ""
    print(f"winnow: exported {written.pages} pages{skipped}", file=sys.stderr)
    return 0


def run_serve(args: argparse.Namespace) -> int:
    """Run `winnow serve` until interrupted."""
    from winnow.server.app import serve
    from winnow.server.state import ServerConfig, default_workers

    if args.workers is not None and args.workers < 1:
        raise ValueError("--workers must be at least 1")
    if args.models_per_worker < 1:
        raise ValueError("--models-per-worker must be at least 1")
    serve(ServerConfig(data_dir=args.data_dir or default_data_dir(), host=args.host,
                       port=args.port, max_message_bytes=args.max_message_bytes,
                       workers=args.workers or default_workers(),
                       models_per_worker=args.models_per_worker,
                       worker_memory_mb=args.worker_memory_mb or None,
                       extension_ids=tuple(args.extension_id),
                       allow_remote=args.allow_remote, log_format=args.log_format,
                       quiet=args.quiet))
    return 0


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="HTML files, or - for stdin")
    parser.add_argument("--url", help="the page's URL, to resolve links and name its site")


def _add_store(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument("--data-dir", type=Path, required=required,
                        help=f"where pages and models are kept (default {default_data_dir()})")
    parser.add_argument("--site", help="the site of pages given without a URL")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            return run_serve(args)
        if args.command == "export-corpus":
            return run_export_corpus(args)
        if args.command == "batch":
            from winnow.batch import main_batch

            return main_batch(args)
        if args.command == "posts":
            return run_posts(args.paths, args.url, args.format, sys.stdout)
        if args.command == "extract" and not args.learn:
            return run_extract(args.paths, args.url, args.format, sys.stdout)
        with Store.open(args.data_dir or default_data_dir()) as store:
            learner = Learner(store)
            if args.command == "sites":
                return run_sites(learner, sys.stdout)
            site_of = _site_namer(args.site, args.url)
            if args.command == "learn":
                return run_learn(learner, args.paths, args.url, site_of, sys.stderr)
            return run_extract(args.paths, args.url, args.format, sys.stdout,
                               learner=learner, site_of=site_of)
    except (StoreError, ValueError) as exc:
        print(f"winnow: {exc}", file=sys.stderr)
        return 2


def run_extract(paths: Sequence[str], url: str | None, fmt: str, out: TextIO,
                learner: Learner | None = None,
                site_of: Callable[[str], str] | None = None) -> int:
    """Extract every path in order (learning after each when a learner is given); return 1
    when any of them failed."""
    failed = False
    for n, path in enumerate(paths):
        try:
            html = _read(path)
            if learner is None or site_of is None:
                result = extract(html, url)
            else:
                result, _ = learner.browse(site_of(path), html, url, url or _pseudo_url(path))
                if (n + 1) % SAVE_EVERY == 0:
                    learner.save()
        except (OSError, PageError, ValueError) as exc:
            failed = True
            _report_error(path, exc, fmt, out)
            continue
        _write(path, result, fmt, out, first=n == 0)
    if learner is not None:
        learner.save()
    return 1 if failed else 0


def run_learn(learner: Learner, paths: Sequence[str], url: str | None,
              site_of: Callable[[str], str], progress: TextIO) -> int:
    """Learn from every path in order, with a progress bar; return 1 when any failed."""
    failed = False
    for n, path in enumerate(paths, 1):
        try:
            learner.learn(site_of(path), _read(path), url or _pseudo_url(path))
        except (OSError, PageError, ValueError) as exc:
            failed = True
            print(f"\nwinnow: {path}: {_message(exc)}", file=progress)
        if n % SAVE_EVERY == 0:
            learner.save()
        _progress(n, len(paths), progress)
    learner.save()
    print(file=progress)
    return 1 if failed else 0


def run_sites(learner: Learner, out: TextIO) -> int:
    """List sites with their pages, template clusters and cluster sizes, from the store's
    model summaries (the models themselves are not loaded)."""
    infos = learner.store.sites()
    if not infos:
        out.write("no sites learned yet\n")
    saved = learner.store.model_summaries(MODEL_KIND)
    for info in infos:
        brief = saved.get(info.site, ({}, 0.0))[0]
        sizes = sorted((int(n) for n in brief.get("clusters", {}).values()), reverse=True)
        out.write(f"{info.site}\t{info.pages} pages stored\t{len(sizes)} clusters\t"
                  f"learned {int(brief.get('pages', 0))} pages\tcluster sizes {sizes}\n")
    return 0


def _site_namer(site: str | None, url: str | None) -> Callable[[str], str]:
    """The site of an input: --site, else the host of --url, else an error for that input."""
    def name(path: str) -> str:
        if site:
            return normalize_site(site)
        if url:
            return site_key(url)
        raise ValueError("no site for this page: give --site or --url")
    return name


def _pseudo_url(path: str) -> str:
    return "stdin:" if path == "-" else Path(path).resolve().as_uri()


def _progress(done: int, total: int, out: TextIO, width: int = 30) -> None:
    """A bar redrawn in place on a terminal; elsewhere (logs, pipes) only the last state."""
    if not out.isatty() and done < total:
        return
    filled = width * done // max(total, 1)
    out.write(f"\rlearning [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    out.flush()


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def _message(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _report_error(path: str, exc: Exception, fmt: str, out: TextIO) -> None:
    if fmt in ("json", "jsonl"):
        line: dict[str, Any] = {"path": path, "error": _message(exc)}
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    else:
        print(f"winnow: {path}: {_message(exc)}", file=sys.stderr)


def _write(path: str, result: Extraction, fmt: str, out: TextIO, first: bool) -> None:
    if fmt in ("json", "jsonl"):
        record = {"path": path, **result.to_dict()}
        indent = 2 if fmt == "json" else None
        out.write(json.dumps(record, ensure_ascii=False, indent=indent) + "\n")
        return
    article = result.article
    if article is None:
        print(f"winnow: {path}: not an article ({result.kind})", file=sys.stderr)
        return
    body = {"text": article.text, "html": article.html, "markdown": article.markdown}[fmt]
    if not first:
        out.write("\n")
    out.write(body.rstrip("\n") + "\n")


def run_posts(paths: Sequence[str], url: str | None, fmt: str, out: TextIO) -> int:
    """Export the posts of every path (JSON, CSV, Markdown or one JSON line per input);
    return 1 when any input failed."""
    failed = False
    for n, path in enumerate(paths):
        try:
            result = extract(_read(path), url)
        except (OSError, PageError, ValueError) as exc:
            failed = True
            _report_error(path, exc, fmt, out)
            continue
        if fmt == "jsonl":
            line = {"path": path, "title": result.title, "url": result.url, "kind": result.kind,
                    "posts": [asdict(post) for post in export_posts(result)]}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            continue
        if n:
            out.write("\n")
        out.write(export_extraction(result, fmt).content.rstrip("\n") + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
