"""Template text chunks (Ma, Goharian and Chowdhury, 2003), and the chunker both papers share.

A text chunk is the text between two delimiting tags (Definition 3.1). The paper cuts at table
tags; we cut at every block-level tag, exactly as Webstemmer's layoutils.Chunker cuts layout
blocks, because today's templates are built from divs and lists, not tables. Over the pages of
one cluster, a chunk whose document frequency reaches a threshold is template text (Fig. 2).
Chunks are keyed by tag path as well as text, the fix the paper proposes in 4.2: a bar repeated
at two places of the template counts as two template chunks, and the same words inside an
article are not template.

Counting is incremental with bounded memory. Document frequencies are kept by lossy counting
(Manku and Motwani, 2002), which forgets the chunks seen in too few pages (article paragraphs)
at each bucket boundary; after the first pages only a deterministic sample of pages is counted,
the paper's sampling (4.2: 9 of eBay's 41 pages found every template table). The cost of a page
is one pass over its chunks, whatever the number of pages seen. The table holds keys only, keyed
digests of (path, text) (`winnow.keyed`), never the texts. Pure: no I/O, no clock, no
recursion; the sampling is a hash of the page's URL, not a random draw.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import lxml.etree as etree
from lxml.html import HtmlElement

from winnow.keyed import UNKEYED, Keyer
from winnow.page import Page, is_hidden, wn_id

# --- the chunker (Webstemmer's layoutils.Chunker, shared with layout.py) ------------------------

BLOCK_TAGS = frozenset(
    "title p h1 h2 h3 h4 h5 h6 tr td th dt dd li ul ol dl dir menu pre div center blockquote "
    "table address article section header footer nav main aside figure figcaption details "
    "summary dialog hgroup form fieldset legend caption".split())
"""Tags that delimit blocks: layoutils.Chunker.SIG_TAGS without span and font (inline on today's
pages, where they would cut sentences apart), plus the HTML5 block-level tags."""
CHOP_TAGS = frozenset({"br", "hr"})
"""Chunker.CHOP_TAGS: end the current block; the next text starts a block of the same path."""
SKIP_TAGS = frozenset({"noscript", "option"})
"""Chunker.IGNORE_TAGS (scripts and styles are gone since parsing)."""
ROOT_TAGS = frozenset({"html", "head", "body"})
"""Never in a block's ids: labelling the whole document noise or content says nothing."""
KEY_ATTRS = ("align", "class", "colspan", "id", "rowspan", "valign")
"""layoutils.KEY_ATTRS, in the sorted order encode_element writes them."""

# --- Ma et al. ----------------------------------------------------------------------------------

CHUNK_PATH_COMPONENTS = 16
"""The "tag path" of a chunk (4.2): its block-level ancestors, the innermost 16 of them."""
MIN_DF = 2
"""A chunk seen in one page only is never template, however few pages were counted."""
DF_RATIO = 0.3
"""Document frequency threshold as a share of the pages counted (3.2, line 19); 4.2 sets 4 for
Amazon's 13 pages and warns that the total number of pages misses optional template chunks."""
LOSSY_EPSILON = 0.05
"""Lossy counting's error bound: a count is at most 5% of the pages below the true document
frequency, far under DF_RATIO; buckets are 1 / epsilon = 20 pages."""
FULL_PAGES = 20
"""Pages always counted before sampling starts, so a young table learns from every page."""
SAMPLE_RATE = 9 / 41
"""Share of later pages counted (4.2: 9 random pages of eBay's 41 found every template table)."""
TABLE_VERSION = 1
_KIND = "winnow.chunk-table"

_NON_SIG_RE = re.compile(r"\W+")
_DIGITS_RE = re.compile(r"\d+")


def sigchars(text: str) -> str:
    """layoutils.sigchars: the word characters of `text`, lowercased; weights count these."""
    return _NON_SIG_RE.sub("", text).lower()


def encode_element(el: HtmlElement) -> str:
    """layoutils.encode_element: tag plus `:name=value` for the key attributes, lowercased; digit
    runs are dropped so that id="story-1234" reads alike on every page (Webstemmer's -P)."""
    parts = [str(el.tag)]
    for name in KEY_ATTRS:
        value = el.get(name)
        if value is not None:
            parts.append(f":{name}={' '.join(_DIGITS_RE.sub('', value.lower()).split())}")
    return "".join(parts)


class Link(NamedTuple):
    """A link as written on the page: its href (unresolved) and its anchor text."""

    href: str
    text: str


@dataclass(frozen=True, slots=True)
class Block:
    """A run of text between block-level tags: its path, text (whitespace collapsed),
    significant characters (`sig`, whose length is Webstemmer's Weight), non-anchor weight, the
    links that end in it, and the `data-wn` ids of the elements whose own text makes it up and of
    the inline elements opened inside it, led by the block-level element it fills whole."""

    path: str
    text: str
    sig: str
    weight_noanchor: int
    links: tuple[Link, ...] = ()
    ids: tuple[int, ...] = ()
    chunk_path: str = ""
    """The longer path Ma et al.'s chunks are keyed by (`CHUNK_PATH_COMPONENTS` ancestors)."""


class _Chunker:
    """layoutils.Chunker over lxml start/end events: a buffer of text pieces that each
    block-level start or end, and each <br>/<hr>, turns into a block."""

    def __init__(self, path_components: int, min_chars: int) -> None:
        self.depth, self.min_chars = path_components, min_chars
        self.chunk_depth = max(path_components, CHUNK_PATH_COMPONENTS)
        self.stack: list[str] = []
        self.blocks: list[Block] = []
        self.links: list[Link] = []
        self.open_links: list[tuple[str, list[str]]] = []
        self.owners: list[int | None] = [None]
        """Per open element (the innermost last), the id its children's tails are text of:
        None for html, head, body and elements without an id."""
        self._reset()

    def _reset(self) -> None:
        self.parts: list[str] = []
        self.plain: list[str] = []
        self.ids: dict[int, None] = {}
        self.block_links: list[Link] = []
        self.whole: int | None = None
        """Id of the block-level element whose whole content the buffer holds so far."""

    def flush(self) -> None:
        """Chunker.chop: emit the buffer as a block under the current path, if long enough."""
        if not (self.parts or self.ids or self.block_links or self.whole is not None):
            return
        if self.parts:
            text = " ".join("".join(self.parts).split())
            sig = sigchars(text)
            if text and len(sig) >= self.min_chars:
                plain = sig if len(self.plain) == len(self.parts) else sigchars("".join(self.plain))
                self.blocks.append(Block("/".join(self.stack[-self.depth:]), text, sig,
                                         len(plain), tuple(self.block_links), tuple(self.ids),
                                         "/".join(self.stack[-self.chunk_depth:])))
        self._reset()

    def add(self, text: str, owner: int | None) -> None:
        self.parts.append(text)
        if self.open_links:
            self.open_links[-1][1].append(text)
        else:
            self.plain.append(text)
        if owner is not None:
            self.ids[owner] = None

    def start(self, el: HtmlElement) -> None:
        tag = el.tag
        ident = None if tag in ROOT_TAGS else wn_id(el)
        self.owners.append(ident)
        if tag in BLOCK_TAGS:
            self.flush()
            self.stack.append(encode_element(el))
            self.whole = ident
        elif tag in CHOP_TAGS:
            self.flush()
        else:
            if ident is not None:
                self.ids[ident] = None
            if tag == "a":
                self.open_links.append((el.get("href") or "", []))
            elif tag == "img" and not self.parts and len(el.get("alt") or "") == 1:
                self.add(el.get("alt") or "", ident)  # layoutils' drop-cap kludge
        if el.text:
            self.add(el.text, ident)

    def end(self, el: HtmlElement) -> None:
        ident = self.owners.pop()
        if el.tag in BLOCK_TAGS:
            if self.whole is not None and self.whole == ident:
                self.ids = {self.whole: None, **self.ids}
            self.flush()
            self.stack.pop()
        elif el.tag == "a" and self.open_links:
            href, parts = self.open_links.pop()
            link = Link(href, " ".join("".join(parts).split()))
            self.links.append(link)
            self.block_links.append(link)
        self.tail(el)

    def tail(self, el: HtmlElement) -> None:
        """The element's tail, text of its parent (the innermost open element; `el` itself
        is closed or was skipped)."""
        if el.tail:
            self.add(el.tail, self.owners[-1])


def walk(page: Page, path_components: int, min_chars: int) -> tuple[list[Block], list[Link]]:
    """The page's blocks in document order and all its links, by one iterative walk.

    Hidden elements (as the browser reported them) are skipped with their subtrees; their tails
    are text of the parent. A block's path is its innermost `path_components` block-level
    ancestors; blocks with fewer than `min_chars` significant characters are dropped.
    """
    chunker = _Chunker(path_components, min_chars)
    walker = etree.iterwalk(page.root, events=("start", "end"))
    skipped: set[HtmlElement] = set()
    for event, el in walker:
        if not isinstance(el.tag, str):
            continue
        if event == "start":
            if el.tag in SKIP_TAGS or is_hidden(el):
                skipped.add(el)
                walker.skip_subtree()
            else:
                chunker.start(el)
        elif el in skipped:
            chunker.tail(el)
        else:
            chunker.end(el)
    chunker.flush()
    return chunker.blocks, chunker.links


# --- template text chunks -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Chunk:
    """A text chunk: tag path, normalised text (entities decoded by the parser, whitespace
    collapsed, case folded: 3.3), the ids of its elements, and its key in the table."""

    path: str
    text: str
    ids: tuple[int, ...]
    key: str
    shown: str = ""
    """The text as the page shows it (case kept), for a chunk extracted as content."""


def plain_key(path: str, text: str) -> str:
    """The (tag path, text) pair as an unkeyed 64-bit hex digest (what `chunk_key` keys, and
    what tables saved before keys existed hold)."""
    data = f"{path}\x1f{text}".encode("utf-8", "replace")
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def chunk_key(path: str, text: str, keyer: Keyer = UNKEYED) -> str:
    """The (tag path, text) key: a keyed digest (`winnow.keyed`) of `plain_key`, so the table
    holds neither the texts nor digests anyone without the install's secret could match."""
    return keyer.digest(plain_key(path, text))


def page_chunks(page: Page, keyer: Keyer = UNKEYED) -> list[Chunk]:
    """The text chunks of a page, in document order; every non-empty text counts (a lone "|" or
    "»" of a navigation bar is template text too)."""
    blocks, _ = walk(page, CHUNK_PATH_COMPONENTS, 0)
    return chunks_of(blocks, keyer)


def chunks_of(blocks: Iterable[Block], keyer: Keyer = UNKEYED) -> list[Chunk]:
    """Text chunks from blocks walked with min_chars 0 (see `layout.segment_with_chunks`)."""
    chunks: list[Chunk] = []
    for block in blocks:
        text = block.text.casefold()
        chunks.append(Chunk(block.chunk_path, text, block.ids,
                            chunk_key(block.chunk_path, text, keyer), block.text))
    return chunks


class ChunkTable:
    """Document frequencies of the chunks of one cluster, by lossy counting.

    `counts[key] = [count, delta]`: `count` pages counted since the key was (re)inserted, and
    `delta` the most it may have missed before, so count <= df <= count + delta.
    """

    def __init__(self) -> None:
        self.pages = 0
        """Pages counted (N)."""
        self.seen = 0
        """Pages offered to `add`, counted or not."""
        self.counts: dict[str, list[int]] = {}

    @property
    def bucket_width(self) -> int:
        return math.ceil(1 / LOSSY_EPSILON)

    def wants(self, sample_key: str) -> bool:
        """The paper's sampling: all pages while the table is young, then a fixed share of them
        chosen by a hash of `sample_key` (the page's URL), so the choice is reproducible."""
        if self.pages < FULL_PAGES:
            return True
        digest = hashlib.blake2b(sample_key.encode("utf-8", "replace"), digest_size=8).digest()
        return int.from_bytes(digest, "big") < SAMPLE_RATE * 2 ** 64

    def add(self, chunks: Iterable[Chunk], sample_key: str | None = None) -> bool:
        """Count one page's chunks once each (document frequency); return False when sampling
        skipped the page. Without a key the page's own chunks choose."""
        keys = {c.key for c in chunks}
        self.seen += 1
        if not self.wants(sample_key if sample_key is not None else "".join(sorted(keys))):
            return False
        self.pages += 1
        bucket = math.ceil(self.pages / self.bucket_width)
        for key in keys:
            entry = self.counts.get(key)
            if entry is None:
                self.counts[key] = [1, bucket - 1]
            else:
                entry[0] += 1
        if self.pages % self.bucket_width == 0:
            self.counts = {k: e for k, e in self.counts.items() if e[0] + e[1] > bucket}
        return True

    def threshold(self, extra: int = 0) -> int:
        """Fig. 2 line 19's document frequency threshold for the pages counted so far and
        `extra` pages more."""
        return max(MIN_DF, math.ceil(DF_RATIO * (self.pages + extra)))

    def count(self, chunk: Chunk | str) -> int:
        """Pages the chunk (or key) was counted in since the table last (re)inserted it."""
        entry = self.counts.get(chunk if isinstance(chunk, str) else chunk.key)
        return entry[0] if entry is not None else 0

    def is_template(self, chunk: Chunk | str) -> bool:
        """True when the chunk (or key) was seen in at least `threshold()` pages."""
        entry = self.counts.get(chunk if isinstance(chunk, str) else chunk.key)
        return entry is not None and entry[0] >= self.threshold()

    def rekeyed(self, keyer: Keyer) -> ChunkTable:
        """The table with every key replaced by its keyed digest: a table saved before keys
        existed (keys were `plain_key`s) counts on under `keyer` exactly."""
        table = ChunkTable()
        table.pages, table.seen = self.pages, self.seen
        table.counts = {keyer.digest(key): list(entry) for key, entry in self.counts.items()}
        return table

    def to_json(self) -> dict[str, Any]:
        """A JSON-compatible dict with a "version" field; `from_json` reads it back. Keys are
        digests (`chunk_key`): the table holds no text."""
        return {"kind": _KIND, "version": TABLE_VERSION, "pages": self.pages,
                "seen": self.seen, "counts": self.counts}

    @classmethod
    def from_json(cls, data: Any) -> ChunkTable:
        """Rebuild a table from `to_json` output; raise ValueError saying what is wrong."""
        if not isinstance(data, dict) or data.get("kind") != _KIND:
            raise ValueError("bad chunk table: not a chunk table")
        if data.get("version") != TABLE_VERSION:
            raise ValueError(f"bad chunk table: unknown version {data.get('version')!r}")
        table = cls()
        table.pages, table.seen = _count(data, "pages"), _count(data, "seen")
        counts = data.get("counts")
        if not isinstance(counts, dict):
            raise ValueError("bad chunk table: counts is not an object")
        for key, entry in counts.items():
            if not (isinstance(entry, list) and len(entry) == 2
                    and all(type(v) is int and v >= 0 for v in entry)):
                raise ValueError(f"bad chunk table: entry {key!r}")
            table.counts[str(key)] = [entry[0], entry[1]]
        return table


def _count(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if type(value) is not int or value < 0:
        raise ValueError(f"bad chunk table: {name!r} is not a count")
    return value


def template_chunks(table: ChunkTable) -> frozenset[str]:
    """Fig. 2 lines 17-21: the keys of the chunks whose document frequency passes the
    threshold (the discovered template text)."""
    limit = table.threshold()
    return frozenset(k for k, (count, _) in table.counts.items() if count >= limit)


@dataclass(frozen=True)
class ChunkLabels:
    """A page's chunks, each with whether it is template text."""

    chunks: tuple[tuple[Chunk, bool], ...]

    @property
    def template_ids(self) -> list[int]:
        """Ids of elements all of whose chunks are template (one content chunk makes content)."""
        content = set(self.content_ids)
        ids = (i for c, t in self.chunks if t for i in c.ids if i not in content)
        return list(dict.fromkeys(ids))

    @property
    def content_ids(self) -> list[int]:
        return list(dict.fromkeys(i for c, t in self.chunks if not t for i in c.ids))

    def text(self, template: bool) -> str:
        return "\n".join(c.text for c, t in self.chunks if t is template)


def label_chunks(chunks: Sequence[Chunk], table: ChunkTable) -> ChunkLabels:
    """The paper's second pass (3.3): each chunk looked up in the template table (the pages
    already counted, `label_with_page` of a page the table counted)."""
    return label_with_page(chunks, table, counted=True)


def label_with_page(chunks: Sequence[Chunk], table: ChunkTable,
                    counted: bool = False) -> ChunkLabels:
    """`label_chunks` with the page being labelled counted among the pages, as Ma et al.
    count the pages they label (3.2): a chunk is template when the pages it is on, this one
    included, reach the threshold over the table's pages and this one. With one page learned,
    the text the page shares with it is template. `counted`: the table counted this page
    when it was learned (a second visit), so it is not counted again."""
    extra = 0 if counted else 1
    limit = table.threshold(extra)
    return ChunkLabels(tuple((c, table.count(c) + extra >= limit) for c in chunks))


def label(page: Page, table: ChunkTable, keyer: Keyer = UNKEYED) -> ChunkLabels:
    """Which of the page's elements are template text and which are not (`keyer`: the one
    the table counted with)."""
    return label_chunks(page_chunks(page, keyer), table)
