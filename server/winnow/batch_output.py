"""What `winnow batch` writes under its output folder, always atomically.

    DIR/pages/SITE/part-00000.parquet   extracted pages of one shard (or .jsonl)
    DIR/models/SITE.json                the site's model after its last page (versioned JSON,
                                        `SiteModel.to_json`, readable by `SiteModel.from_json`)
    DIR/state/SITE/model-00000.json     the model after a shard that is not the site's last,
                                        where the next shard starts from on a rerun
    DIR/state/SITE/done-00000.json      completion marker: the shard's fingerprint and counts
    DIR/report.json                     the run's totals

SITE is `batch_plan.site_slug`. Every file is written to a temporary name in its folder and
renamed into place (atomic on POSIX), and a shard's marker is written last: a shard is complete
exactly when its marker names the fingerprint and format the run asks for, and a job killed
at any point leaves either a complete shard or one a rerun redoes from scratch, never half a
part.

A page row is `Extraction.to_dict()` with `url` (the record's), `site` and `warc_date`. In
Parquet the columns keep their structure (`article` a struct, `posts` a list of structs,
`timing_ms` a map), with one schema derived from the result dataclasses, so every part of
every site reads as one dataset.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import types
import typing
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from winnow.batch_plan import Shard, site_slug
from winnow.result import Extraction

ROW_GROUP_ROWS = 64
"""Page rows buffered before a Parquet row group is written: bounds a worker's memory for
output to this many extracted pages (a page's row is tens of KB: HTML, text, Markdown)."""

EXTRA_COLUMNS = (("site", str), ("warc_date", str))
"""Columns a page row has besides `Extraction`'s fields (its `url` is the record's URL)."""

_PART_RE = re.compile(r"part-(\d+)\.")


@dataclass(frozen=True)
class OutputLayout:
    """Where each output of a run lies under its folder."""

    root: Path

    def part(self, shard: Shard, fmt: str) -> Path:
        return self.root / "pages" / site_slug(shard.site) / f"part-{shard.index:05d}.{fmt}"

    def model(self, site: str, index: int, last: bool) -> Path:
        if last:
            return self.root / "models" / f"{site_slug(site)}.json"
        return self.root / "state" / site_slug(site) / f"model-{index:05d}.json"

    def marker(self, site: str, index: int) -> Path:
        return self.root / "state" / site_slug(site) / f"done-{index:05d}.json"

    @property
    def report(self) -> Path:
        return self.root / "report.json"


# --- atomic files -------------------------------------------------------------------------------

def _temp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")


def write_json(path: Path, data: Any) -> None:
    """Write JSON to `path` atomically (temporary file, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = _temp_path(path)
    try:
        with open(temp, "wb") as out:
            out.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def read_json(path: Path) -> Any:
    """JSON of a file, None when it is missing or unreadable (a marker not written)."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def drop_parts_after(layout: OutputLayout, shard: Shard, fmt: str) -> None:
    """Remove parts of the site numbered past its last shard (a site planned in more shards
    by an earlier run), so the site's folder holds exactly its pages."""
    folder = layout.part(shard, fmt).parent
    for path in folder.glob("part-*"):
        found = _PART_RE.match(path.name)
        if found and int(found.group(1)) >= shard.count:
            path.unlink(missing_ok=True)


# --- page parts ---------------------------------------------------------------------------------

class PartWriter:
    """Streams page rows into a temporary file, renamed into place by `commit`."""

    def __init__(self, path: Path, fmt: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.fmt, self.temp = path, fmt, _temp_path(path)
        self.rows: list[dict[str, Any]] = []
        self.count = 0
        self.handle: BinaryIO = open(self.temp, "wb")  # noqa: SIM115 - closed by commit/abort
        self.parquet: Any = None

    def __enter__(self) -> PartWriter:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is not None or self.handle is not None:
            self.abort()

    def write(self, row: dict[str, Any]) -> None:
        self.count += 1
        if self.fmt == "jsonl":
            self.handle.write(json.dumps(row, ensure_ascii=False).encode() + b"\n")
            return
        self.rows.append(row)
        if len(self.rows) >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = page_schema()
        if self.parquet is None:
            self.parquet = pq.ParquetWriter(self.handle, schema)
        self.parquet.write_table(pa.Table.from_pylist(self.rows, schema=schema))
        self.rows = []

    def commit(self) -> None:
        """Finish the part and rename it into place."""
        if self.fmt == "parquet" and (self.rows or self.parquet is None):
            self._flush()
        if self.parquet is not None:
            self.parquet.close()
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        os.replace(self.temp, self.path)
        self.handle = None  # type: ignore[assignment]

    def abort(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None  # type: ignore[assignment]
        self.temp.unlink(missing_ok=True)


def page_row(result: Extraction, url: str, site: str, warc_date: str) -> dict[str, Any]:
    """One output row: the extraction's fields with the record's URL, site and date."""
    return {**result.to_dict(), "url": url, "site": site, "warc_date": warc_date}


@functools.cache
def page_schema() -> Any:
    """The Arrow schema of a page row, derived from `Extraction`'s dataclass fields."""
    import pyarrow as pa

    columns = [(f.name, _arrow_type(hint)) for f, hint in _fields(Extraction)]
    columns += [(name, _arrow_type(kind)) for name, kind in EXTRA_COLUMNS]
    return pa.schema(columns)


def _fields(cls: type) -> list[tuple[dataclasses.Field[Any], Any]]:
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls)]


def _arrow_type(hint: Any) -> Any:
    """The Arrow type of a result field's type hint (nullable by default)."""
    import pyarrow as pa

    scalars = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}
    if hint in scalars:
        return scalars[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return pa.string()
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return _arrow_type(inner)
    if origin is list:
        return pa.list_(_arrow_type(args[0]))
    if origin is dict:
        return pa.map_(_arrow_type(args[0]), _arrow_type(args[1]))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return pa.struct([(f.name, _arrow_type(h)) for f, h in _fields(hint)])
    raise TypeError(f"no Arrow type for {hint!r}")


def read_pages(root: Path) -> list[dict[str, Any]]:
    """Every page row under an output folder (Parquet and JSON lines parts), sites in name
    order, parts and rows in order: for tests, benches and small crawls."""
    rows: list[dict[str, Any]] = []
    for path in sorted((root / "pages").glob("*/part-*")):
        if path.suffix == ".jsonl":
            rows += [json.loads(line) for line in path.read_bytes().splitlines() if line]
        else:
            import pyarrow.parquet as pq

            rows += pq.read_table(path).to_pylist(maps_as_pydicts="strict")
    return rows
