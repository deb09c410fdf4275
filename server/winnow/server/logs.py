"""The server's log: what it runs with, then one line per page, as text or JSON lines.

`winnow serve` logs through the `logging` module to standard error, in the server process
and in every worker process (`configure` runs in both). At start it says where the data and
the token are, the address and the workers; then one line per page read: site, kind,
method, milliseconds and whether the page was stored. Never a URL, a title or any text of a
page: the log says what the server did, not what the user read.

`--quiet` keeps warnings and errors only; `--log-format json` writes one JSON object per
line with the fields of each event (`event`, and for pages `site`, `kind`, `method`, `ms`,
`stored`) besides `time`, `level`, `logger` and `message`.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

FORMATS = ("text", "json")
"""Values of `--log-format`."""
TEXT_FORMAT = "winnow: %(message)s"
WORKER_TEXT_FORMAT = "winnow worker: %(message)s"
FIELDS_ATTR = "fields"
"""The `extra` key under which an event's structured fields travel (`event`)."""
QUIET_LOGGERS = ("aiohttp.access",)
"""Loggers kept at WARNING whatever the level: aiohttp's access log repeats every request,
including the URLs the dashboard asks for."""

log = logging.getLogger("winnow.server")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message, the event's
    fields and, for an exception, its traceback as text."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(), "logger": record.name,
            "message": record.getMessage()}
        entry.update(getattr(record, FIELDS_ATTR, None) or {})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure(fmt: str = "text", quiet: bool = False, worker: bool = False) -> None:
    """Set up the process's root logger: INFO (WARNING when `quiet`) to standard error, as
    text or JSON lines; replaces any handlers set before (a worker inherits none)."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else
                         logging.Formatter(WORKER_TEXT_FORMAT if worker else TEXT_FORMAT))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING if quiet else logging.INFO)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def event(name: str, message: str, *args: Any, level: int = logging.INFO,
          **fields: Any) -> None:
    """Log `message % args`, carrying `fields` (with `event=name`) for the JSON format."""
    log.log(level, message, *args, extra={FIELDS_ATTR: {"event": name, **fields}})


def page_line(reply: dict[str, Any]) -> None:
    """The line for one page read: site, kind, method, server milliseconds, stored or not."""
    timing = reply.get("timing_ms") or {}
    ms = float(timing.get("server", timing.get("total", 0.0)))
    stored = bool(reply.get("stored"))
    event("page", "page %s: %s by %s in %.0f ms, %s", reply.get("site"), reply.get("kind"),
          reply.get("method"), ms, "stored" if stored else "not stored",
          site=reply.get("site"), kind=reply.get("kind"), method=reply.get("method"),
          ms=round(ms, 1), stored=stored)
