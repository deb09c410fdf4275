"""The `winnow` command line: `winnow extract` (more commands join as issues land).

`winnow extract [--url URL] [--format text|html|markdown|json|jsonl] PATH...` reads one or
many files (`-` is stdin) in one process. With jsonl each input gives one line, the
`Extraction` as JSON plus `path`; an input that can't be read or parsed gives a line with an
`error` and the run goes on. The exit status is 1 when any input failed, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from winnow.extractor import extract
from winnow.page import PageError
from winnow.result import Extraction

FORMATS = ("text", "html", "markdown", "json", "jsonl")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="winnow", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ex = commands.add_parser("extract", help="extract the reader view of saved pages")
    ex.add_argument("paths", nargs="+", metavar="PATH", help="HTML files, or - for stdin")
    ex.add_argument("--url", help="the page's URL, to resolve links and images")
    ex.add_argument("--format", choices=FORMATS, default="text", help="output format")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "extract":
        return run_extract(args.paths, args.url, args.format, sys.stdout)
    return 2


def run_extract(paths: Sequence[str], url: str | None, fmt: str, out: TextIO) -> int:
    """Extract every path in order; return 1 when any of them failed."""
    failed = False
    for n, path in enumerate(paths):
        try:
            result = extract(_read(path), url)
        except (OSError, PageError) as exc:
            failed = True
            _report_error(path, exc, fmt, out)
            continue
        _write(path, result, fmt, out, first=n == 0)
    return 1 if failed else 0


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def _report_error(path: str, exc: Exception, fmt: str, out: TextIO) -> None:
    message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    if fmt in ("json", "jsonl"):
        line: dict[str, Any] = {"path": path, "error": message}
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    else:
        print(f"winnow: {path}: {message}", file=sys.stderr)


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


if __name__ == "__main__":
    sys.exit(main())
