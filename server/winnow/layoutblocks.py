"""Webstemmer's Steps 1 and 2 (Shinyama, "Webstemmer - How it works"): a page as layout blocks,
and how alike two pages' layouts are.

A page is a sequence of layout blocks, runs of text delimited by block-level tags, each keyed by
its layout signature: its last block-level ancestors with their key attributes (Step 1, the
chunker of `winnow.chunks`). Pages of one template share most signatures in the same order, so
two pages are similar by the weight of their common block subsequence (Step 2); `align` maps a
page's blocks onto a pattern's sections. `winnow.layout` builds the patterns (Steps 3-5) on
these and re-exports every name. Pure: no I/O, no clock, no recursion.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from winnow.chunks import Block, Chunk, Link, chunks_of, walk
from winnow.keyed import UNKEYED, Keyer
from winnow.page import Page

PATH_COMPONENTS = 3
"""Chunker.PATH_COMPS: a layout signature is the last three block-level elements of the path."""
MIN_CHARS = 5
"""Chunker.MIN_CHARS: blocks with fewer significant (\\w) characters are not layout blocks."""


@dataclass(frozen=True)
class Layout:
    """A page as layout blocks, with every link of the page and the page's URL."""

    blocks: tuple[Block, ...]
    links: tuple[Link, ...] = ()
    url: str | None = None

    @property
    def paths(self) -> list[str]:
        return [b.path for b in self.blocks]

    @property
    def weight(self) -> int:
        return sum(len(b.sig) for b in self.blocks)

    @property
    def signature(self) -> list[str]:
        """The block signatures with repeats collapsed (analyze.py uniq_path)."""
        return uniq(self.paths)


def segment(page: Page) -> Layout:
    """Step 1: the page's layout blocks in document order (the shared chunker of `chunks.py`
    with Webstemmer's path length and minimum size), its links and its URL."""
    blocks, links = walk(page, PATH_COMPONENTS, MIN_CHARS)
    return Layout(tuple(blocks), tuple(links), page.url)


def segment_with_chunks(page: Page, keyer: Keyer = UNKEYED) -> tuple[Layout, list[Chunk]]:
    """`segment` and `chunks.page_chunks` (keyed by `keyer`) from one walk of the page (the
    site model needs both for every page, and the walk is the costly part)."""
    blocks, links = walk(page, PATH_COMPONENTS, 0)
    kept = tuple(b for b in blocks if len(b.sig) >= MIN_CHARS)
    return Layout(kept, tuple(links), page.url), chunks_of(blocks, keyer)


# --- sequences and texts -------------------------------------------------------------------------

def uniq(paths: Sequence[str]) -> list[str]:
    """analyze.py uniq_path: the paths with consecutive repeats collapsed."""
    return [p for i, p in enumerate(paths) if i == 0 or paths[i - 1] != p]


def common_pairs(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence (analyze.py find_lcs; exact, by rapidfuzz's
    Indel alignment, where Webstemmer took difflib's matching blocks)."""
    pairs: list[tuple[int, int]] = []
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            pairs.extend(zip(range(op.src_start, op.src_end),
                             range(op.dest_start, op.dest_end), strict=True))
    return pairs


def align(pattern: Sequence[str], paths: Sequence[str]) -> list[int]:
    """layoutils.cluster_seq: map each block to a pattern position of the same path, positions
    never decreasing, as many blocks as possible (one position takes a whole run of paragraphs,
    even across blocks it skips); -1 for blocks left out. Solved as a longest non-decreasing
    subsequence of candidate positions, each block's listed high to low: O(n log n)."""
    where: dict[str, list[int]] = {}
    for i, p in enumerate(pattern):
        where.setdefault(p, []).append(i)
    tails: list[int] = []
    tail_at: list[int] = []
    cands: list[tuple[int, int, int]] = []  # (position, block, previous candidate)
    for j, p in enumerate(paths):
        for pos in reversed(where.get(p, ())):
            k = bisect.bisect_right(tails, pos)
            cands.append((pos, j, tail_at[k - 1] if k else -1))
            if k == len(tails):
                tails.append(pos)
                tail_at.append(len(cands) - 1)
            else:
                tails[k], tail_at[k] = pos, len(cands) - 1
    out = [-1] * len(paths)
    c = tail_at[-1] if tail_at else -1
    while c >= 0:
        pos, j, c = cands[c]
        out[j] = pos
    return out


def similarity(a: Layout, b: Layout) -> float:
    """Step 2's Sim(A, B): weight of the blocks both pages align to their common signature
    sequence over the weight of both pages (analyze.py find_clusters of two pages); 0 if empty."""
    sig_a = a.signature
    common = [sig_a[i] for i, _ in common_pairs(sig_a, b.signature)]
    in_a, in_b = align(common, a.paths), align(common, b.paths)
    shared = (set(in_a) & set(in_b)) - {-1}
    matched = sum(len(blk.sig) for blk, s in zip(a.blocks, in_a, strict=True) if s in shared)
    matched += sum(len(blk.sig) for blk, s in zip(b.blocks, in_b, strict=True) if s in shared)
    total = a.weight + b.weight
    return matched / total if total else 0.0


def signature_similarity(a: Layout | Sequence[str], b: Layout | Sequence[str]) -> float:
    """Indel similarity of two signature sequences (`Layout.signature`, storable as is): the
    cheap prefilter before `similarity` or tree edit distance. Unweighted, so the length of the
    article does not count; 1.0 for identical sequences."""
    sa = a.signature if isinstance(a, Layout) else a
    sb = b.signature if isinstance(b, Layout) else b
    return float(Indel.normalized_similarity(sa, sb))
