"""Webstemmer (Shinyama, "Webstemmer - How it works"): layout blocks, patterns, static blocks.

A page is a sequence of layout blocks, runs of text delimited by block-level tags, each keyed by
its layout signature: its last block-level ancestors with their key attributes (Step 1). Pages of
one template share most signatures in the same order, so two pages are similar by the weight of
their common block subsequence (Step 2), and a `LayoutPattern` is the signature sequence common to
a cluster's pages (Step 3) whose aligned blocks ("sections") carry a DiffScore, how much their
text varies across pages (Step 4), and a MainScore (Step 5). `apply` labels a new page's blocks
as extract.py does (title, main, sub) and names what it leaves implicit: static (DiffScore under
threshold: banners, navigation) and unknown (no section takes the block). The title is the
section best matching the anchor texts of links to the page (Step 5, arrow 1), else the title
the learned pages voted for, each by its anchors or by the fallback rule (arrow 2). Steps 1-2
(blocks, page similarity, alignment) are in `winnow.layoutblocks`, the anchor texts and the
title measures in `winnow.layouttitles`; this module re-exports them.

Privacy: `to_json` keeps no text. The window of recent pages' section texts that DiffScore
compares a new page with stays in memory (`memory` and `restore` carry it over a model's
eviction from a cache); a pattern read back compares new pages with those learned since.

Adapted, each said where it happens: HTML5 block tags, span and font inline; digits dropped from
attribute values; exact LCS by rapidfuzz; word-level titlability; hidden elements are not text;
learning is incremental over a window of recent pages, so adding a page costs the same at page
10 and at page 10,000, and equals the batch algorithm while the window holds every page.
Pure: no I/O, no clock, no recursion.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rapidfuzz.distance import Indel

from winnow.chunks import Block, Link, sigchars
from winnow.layoutblocks import (
    MIN_CHARS,
    PATH_COMPONENTS,
    Layout,
    align,
    common_pairs,
    segment,
    segment_with_chunks,
    signature_similarity,
    similarity,
    uniq,
)
from winnow.layouttitles import (
    AnchorTexts,
    Titlability,
    anchors_for,
    collect_anchor_texts,
    dice,
    normalize_url,
    outgoing_anchors,
    words_of,
)
from winnow.page import HEADING_TAGS

__all__ = ["AnchorTexts", "Block", "Label", "Layout", "LayoutMatch", "LayoutPattern", "Link",
           "align", "anchors_for", "apply", "collect_anchor_texts", "common_pairs", "dice",
           "normalize_url", "outgoing_anchors", "segment", "sigchars", "signature_similarity",
           "similarity", "uniq", "MIN_CHARS", "PATH_COMPONENTS", "segment_with_chunks"]


CLUSTER_THRESHOLD = 0.97
"""analyze.py -t: Sim(A, B) (Step 2) at which two pages share a layout."""
MATCH_THRESHOLD = 0.8
"""extract.py -t: share of a page's weight a pattern must align for the page to match it."""
DIFFSCORE_THRESHOLD = 0.5
"""extract.py -T: a section whose DiffScore is under this is static (Step 4)."""
MAINSCORE_THRESHOLD = 50.0
"""extract.py -M: a section after the title whose MainScore reaches this is main text."""
TITLE_THRESHOLD = 0.6
"""analyze.py -T: Dice(anchor text, section text) x DiffScore a title must exceed (Step 5)."""
FALLBACK_TITLE_THRESHOLD = 1.0
"""analyze.py LayoutCluster.fixate: titlability x DiffScore the fallback title must exceed."""
MIN_PATTERN_PAGES = 2
"""analyze.py fixate: a cluster of one page has no pattern (every DiffScore would be 0)."""

WINDOW_PAGES = 8
"""Adaptation: DiffScore pairs and title votes use the last pages only, so the cost of adding a
page stays flat; with at most this many pages learning equals the batch algorithm."""
MAX_SECTION_CHARS = 4000
"""Adaptation: a section's text is compared on its first 4,000 significant characters."""
TEMPLATE_TEXT_PAGES = 3
"""Privacy: pages of the window, each with a main text of its own, on which a section must
show the very same text before the dashboard shows that text as the section's template text
(`template_texts`). It is never saved: on real sites a section proven so can still be a list
of headlines of pages the user read."""
PATTERN_VERSION = 2
"""2: no text is saved: the window (the recent pages' section texts) stays in memory and its
title votes are counted in; version 1 (with the window) is read."""
READ_VERSIONS = frozenset({1, PATTERN_VERSION})
_KIND = "winnow.layout-pattern"


# --- learning ------------------------------------------------------------------------------------

@dataclass
class _Sample:
    """A learned page as the pattern keeps it: blocks (path, words, non-anchor weight) whose path
    is in the pattern, the anchor texts pointing to it (significant characters), and per section
    its text (significant characters), words and non-anchor weight."""

    blocks: list[tuple[str, str, int]]
    anchors: list[str]
    texts: list[str] = field(default_factory=list)
    words: list[list[str]] = field(default_factory=list)
    weights: list[int] = field(default_factory=list)

    def map(self, paths: list[str]) -> None:
        keep = set(paths)
        self.blocks = [b for b in self.blocks if b[0] in keep]
        self.words = [[] for _ in paths]
        self.weights = [0] * len(paths)
        for (_, words, wna), s in zip(self.blocks, align(paths, [b[0] for b in self.blocks]),
                                      strict=True):
            if s >= 0:
                self.words[s].extend(words.split())
                self.weights[s] += wna
        self.texts = ["".join(w)[:MAX_SECTION_CHARS] for w in self.words]


def _sample(layout: Layout, anchor_texts: AnchorTexts | None) -> _Sample:
    blocks = [(b.path, " ".join(words_of(b.text))[:MAX_SECTION_CHARS], b.weight_noanchor)
              for b in layout.blocks]
    return _Sample(blocks, anchors_for(layout, anchor_texts))


@dataclass
class WindowMemory:
    """A pattern's in-memory part (`LayoutPattern.memory`): its window, its votes without the
    window's, and the pages and sections it belongs to."""

    window: deque[_Sample]
    votes: list[int]
    none_votes: int
    pages: int
    paths: list[str]


class LayoutPattern:
    """The layout pattern of one cluster, learned one page at a time (Steps 3-5).

    `paths` is the signature sequence common to every learned page. Per section, `diff` and
    `diff_max` sum Step 4's numerator and denominator over compared page pairs, and
    `weight_noanchor` sums the non-anchor weight over pages. A page is compared with the pages of
    the window; `pairs` counts the page pairs compared; `votes` keeps the title votes of the
    pages that have left it.
    """

    def __init__(self) -> None:
        self._init([])

    def _init(self, paths: list[str]) -> None:
        n = len(paths)
        self.paths = paths
        self.diff, self.diff_max = [0.0] * n, [0.0] * n
        self.weight_noanchor = [0] * n
        self.votes, self.none_votes = [0] * n, 0
        self.window: deque[_Sample] = deque()
        self.pages = self.pairs = 0
        self._title: int | None = None

    @classmethod
    def learn(cls, layouts: Sequence[Layout],
              anchor_texts: AnchorTexts | None = None) -> LayoutPattern:
        """The batch algorithm (analyze.py): the sequence common to all pages, all page pairs."""
        samples = [_sample(lay, anchor_texts) for lay in layouts]
        common = uniq(layouts[0].paths) if layouts else []
        for lay in layouts[1:]:
            common = [common[i] for i, _ in common_pairs(common, uniq(lay.paths))]
        pattern = cls()
        pattern._rebuild(common, samples, all_pairs=True)
        return pattern

    def add(self, layout: Layout, anchor_texts: AnchorTexts | None = None) -> None:
        """Learn one page. `anchor_texts` maps URLs to the anchor texts of the links pointing to
        them from the site's other pages (`collect_anchor_texts`); only this page's are read."""
        sample = _sample(layout, anchor_texts)
        self._title = None
        if self.pages == 0:
            self._rebuild(uniq(layout.paths), [sample])
            return
        keep = [i for i, _ in common_pairs(self.paths, uniq(layout.paths))]
        if len(keep) < len(self.paths):
            if len(self.window) == self.pages:  # the window holds every page: redo exactly
                self._rebuild([self.paths[i] for i in keep], [*self.window, sample])
                return
            self._shrink(keep)
        sample.map(self.paths)
        self._count(sample, self.window)
        self.window.append(sample)
        if len(self.window) > WINDOW_PAGES:
            self._carry_vote(self.window.popleft())

    def _rebuild(self, paths: list[str], samples: list[_Sample], all_pairs: bool = False) -> None:
        self._init(paths)
        for k, sample in enumerate(samples):
            sample.map(paths)
            self._count(sample, samples[0 if all_pairs else max(0, k - WINDOW_PAGES):k])
        self.window = deque(samples[-WINDOW_PAGES:])
        for sample in samples[:-WINDOW_PAGES]:
            self._carry_vote(sample)

    def _count(self, sample: _Sample, prior: Iterable[_Sample]) -> None:
        """Step 4: add the text differences of `sample` against each prior page, per section."""
        prior = list(prior)
        for i, text in enumerate(sample.texts):
            self.weight_noanchor[i] += sample.weights[i]
            for other in prior if text else ():
                if other.texts[i]:
                    self.diff[i] += Indel.distance(text, other.texts[i])
                    self.diff_max[i] += len(text) + len(other.texts[i])
        self.pages += 1
        self.pairs += len(prior)

    def _shrink(self, keep: list[int]) -> None:
        """Drop the sections a new page lacks, past the window: the rest keep their sums."""
        self.paths = [self.paths[i] for i in keep]
        self.diff, self.diff_max = [self.diff[i] for i in keep], [self.diff_max[i] for i in keep]
        self.weight_noanchor = [self.weight_noanchor[i] for i in keep]
        self.votes = [self.votes[i] for i in keep]
        for sample in self.window:
            sample.map(self.paths)

    def _carry_vote(self, sample: _Sample) -> None:
        section = self.vote(sample)
        if section >= 0:
            self.votes[section] += 1
        else:
            self.none_votes += 1

    @property
    def ready(self) -> bool:
        """Learned from MIN_PATTERN_PAGES pages, of which two at least were compared: a
        pattern read back (without its window) that has learned one page since has no
        DiffScore yet, and would call every section static."""
        return self.pages >= MIN_PATTERN_PAGES and self.pairs > 0 and bool(self.paths)

    def memory(self) -> WindowMemory:
        """What `to_json` leaves out (the window, and the votes not counted in with it), for
        `restore` to give back to this pattern read back (a site model evicted from memory
        and loaded again)."""
        return WindowMemory(deque(copy.copy(sample) for sample in self.window),
                            list(self.votes), self.none_votes, self.pages, list(self.paths))

    def restore(self, memory: WindowMemory) -> bool:
        """Take back the window of `memory()` when this pattern has learned nothing since
        (same pages and sections); return whether it did."""
        if memory.pages != self.pages or memory.paths != self.paths:
            return False
        self.window, self.votes, self.none_votes = memory.window, memory.votes, memory.none_votes
        self._title = None
        return True

    def diffscore(self, i: int) -> float:
        """Step 4's DiffScore of section i: 0 when its texts are all equal, 1 when disjoint."""
        return self.diff[i] / self.diff_max[i] if self.diff_max[i] else 0.0

    def mainscore(self, i: int) -> float:
        """Step 5's MainScore: DiffScore x average non-anchor weight per page."""
        return self.diffscore(i) * self.weight_noanchor[i] / max(self.pages, 1)

    def main_section(self) -> int:
        """The section of largest MainScore (analyze.py `largest`); titles come before it."""
        scores = [self.mainscore(i) for i in range(len(self.paths))]
        return scores.index(max(scores)) if scores else -1

    def by_anchors(self, texts: Sequence[str], anchors: Sequence[str]) -> int:
        """Step 5, arrow 1: the section before the main one whose text best matches an anchor
        text, times its DiffScore, over TITLE_THRESHOLD; -1 when none does."""
        best, best_score = -1, TITLE_THRESHOLD
        for i in range(max(self.main_section(), 0)):
            if texts[i] and anchors:
                score = max(dice(a, texts[i]) for a in anchors) * self.diffscore(i)
                if score > best_score:
                    best, best_score = i, score
        return best

    def by_body(self, words: Sequence[list[str]]) -> int:
        """Step 5, arrow 2 (the fallback): the section before the main one most similar to the
        main text by titlability x DiffScore, over FALLBACK_TITLE_THRESHOLD; -1 when none is."""
        main = self.main_section()
        if main <= 0 or not words[main]:
            return -1
        score_of = Titlability(words[main])
        best, best_score = -1, FALLBACK_TITLE_THRESHOLD
        for i in range(main):
            score = score_of(words[i]) * self.diffscore(i)
            if score > best_score:
                best, best_score = i, score
        return best

    def vote(self, sample: _Sample) -> int:
        """analyze.py fixate, one page: its title section by anchors, else by the fallback."""
        section = self.by_anchors(sample.texts, sample.anchors) if sample.anchors else -1
        return section if section >= 0 else self.by_body(sample.words)

    def _tally(self) -> tuple[list[int], int]:
        """Title votes per section and for "no title": the carried ones plus the window's."""
        tally, none = list(self.votes), self.none_votes
        for sample in self.window:
            section = self.vote(sample)
            if section >= 0:
                tally[section] += 1
            else:
                none += 1
        return tally, none

    def title_section(self) -> int:
        """The section most learned pages vote the title (ties to the earlier one); -1 when
        "no title" has more votes. Cached until the next page is learned."""
        if self._title is None:
            tally, none = self._tally()
            top = max(tally, default=0)
            self._title = tally.index(top) if top and top >= none else -1
        return self._title

    def template_texts(self) -> list[str]:
        """Per section, its template text: the words `TEMPLATE_TEXT_PAGES` window pages with
        different main texts all show there, else "" (also for every section after the
        pattern was read back, until the window holds that many pages). The main section
        never qualifies (its pages would need equal main texts). In memory only."""
        texts = [""] * len(self.paths)
        main = self.main_section()
        if main < 0 or len(self.window) < TEMPLATE_TEXT_PAGES:
            return texts
        mains = [" ".join(sample.words[main]) for sample in self.window]
        for i in range(len(self.paths)):
            seen: dict[str, set[str]] = {}
            for sample, main_text in zip(self.window, mains, strict=True):
                if sample.words[i]:
                    seen.setdefault(" ".join(sample.words[i]), set()).add(main_text)
            proven = [t for t, owners in seen.items() if len(owners) >= TEMPLATE_TEXT_PAGES]
            if proven:
                texts[i] = proven[0][:MAX_SECTION_CHARS]
        return texts

    def to_json(self) -> dict[str, Any]:
        """A JSON-compatible dict with a "version" field; `from_json` reads it back.

        No text is in it: the window's samples (what DiffScore compares a new page with)
        stay in memory and their title votes are counted in `votes`. A pattern read back
        therefore labels pages as this one does; its next pages are compared with the pages
        learned after the read."""
        votes, none_votes = self._tally()
        return {"kind": _KIND, "version": PATTERN_VERSION, "pages": self.pages,
                "pairs": self.pairs,
                "none_votes": none_votes, "paths": self.paths, "diff": self.diff,
                "diff_max": self.diff_max, "weight_noanchor": self.weight_noanchor,
                "votes": votes}

    @classmethod
    def from_json(cls, data: Any) -> LayoutPattern:
        """Rebuild a pattern from `to_json` output; raise ValueError saying what is wrong.
        Version 1 kept the window: it is read into memory (a caller converting an old
        model saves it back without)."""
        _check(isinstance(data, dict) and data.get("kind") == _KIND, "not a layout pattern")
        _check(data.get("version") in READ_VERSIONS, f"unknown version {data.get('version')!r}")
        pattern = cls()
        pattern._init(_items(data, "paths", str))
        n = len(pattern.paths)
        pattern.diff = [float(x) for x in _items(data, "diff", (int, float), n)]
        pattern.diff_max = [float(x) for x in _items(data, "diff_max", (int, float), n)]
        pattern.weight_noanchor = _items(data, "weight_noanchor", int, n)
        pattern.votes = _items(data, "votes", int, n)
        pattern.pages, pattern.none_votes = data.get("pages"), data.get("none_votes")
        _check(type(pattern.pages) is int and type(pattern.none_votes) is int, "counts")
        pattern.pairs = data.get("pairs", max(pattern.pages - 1, 0))  # each page met one
        _check(type(pattern.pairs) is int and pattern.pairs >= 0, "pairs")
        if data["version"] == PATTERN_VERSION:
            return pattern
        window = _items(data, "window", dict)
        _check(len(window) <= min(pattern.pages, WINDOW_PAGES), "window larger than pages")
        for entry in window:
            blocks = _items(entry, "blocks", list)
            _check(all(len(b) == 3 and isinstance(b[0], str) and isinstance(b[1], str)
                       and type(b[2]) is int for b in blocks), "window blocks")
            pattern.window.append(_Sample([(p, w, k) for p, w, k in blocks],
                                          _items(entry, "anchors", str)))
            pattern.window[-1].map(pattern.paths)
        return pattern


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(f"bad layout pattern: {what}")


def _items(obj: dict[str, Any], name: str, kind: type | tuple[type, ...],
           size: int | None = None) -> Any:
    """obj[name], checked to be a list (of `size` items when given) of `kind`, bools refused."""
    value = obj.get(name)
    _check(isinstance(value, list) and (size is None or len(value) == size)
           and all(isinstance(v, kind) and not isinstance(v, bool) for v in value),
           f"field {name!r}")
    return value


# --- applying ------------------------------------------------------------------------------------

class Label(StrEnum):
    STATIC = "static"
    TITLE = "title"
    MAIN = "main"
    SUB = "sub"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class LayoutMatch:
    """A page labelled by a pattern: per block its label and section (-1: none), the share of
    the page's weight the pattern aligned, and how the title was found."""

    blocks: tuple[tuple[Block, Label, int], ...]
    coverage: float
    title_method: str

    @property
    def matched(self) -> bool:
        """extract.py identify_layout: the pattern explains enough of the page."""
        return self.coverage >= MATCH_THRESHOLD

    def text(self, *labels: Label) -> str:
        return "\n".join(b.text for b, label, _ in self.blocks if label in labels)

    @property
    def title(self) -> str:
        return self.text(Label.TITLE).replace("\n", " ")

    def ids(self, *labels: Label) -> list[int]:
        """Ids of the elements of the blocks with these labels, in document order."""
        found: dict[int, None] = {}
        for block, label, _ in self.blocks:
            if label in labels:
                found.update(dict.fromkeys(block.ids))
        return list(found)

    @property
    def content_ids(self) -> list[int]:
        return self.ids(Label.TITLE, Label.MAIN)

    @property
    def noise_ids(self) -> list[int]:
        """Ids of static blocks' elements; an element also in a content block is content."""
        content = set(self.content_ids)
        return [i for i in self.ids(Label.STATIC) if i not in content]

    @property
    def aside_ids(self) -> list[int]:
        """Ids of the elements of asides: blocks no section takes (UNKNOWN) that stand before
        the first or after the last MAIN block, headings excepted; an element also in a
        content block is content. Webstemmer extracts the main sections only, so what the
        pattern cannot place outside the main text is not article text (slideshow captions,
        optional link boxes, embeds); unplaced blocks between main blocks are kept, as
        optional parts of the article are (pull quotes, lists, crossheads), and so is a block
        laid out like a main block."""
        main = [k for k, (_, label, _) in enumerate(self.blocks) if label is Label.MAIN]
        if not main:
            return []
        main_paths = {self.blocks[k][0].path for k in main}
        content = set(self.content_ids)
        found: dict[int, None] = {}
        for k, (block, label, _) in enumerate(self.blocks):
            if (label is Label.UNKNOWN and not main[0] < k < main[-1]
                    and block.path not in main_paths and _tag(block.path) not in HEADING_TAGS):
                found.update(dict.fromkeys(i for i in block.ids if i not in content))
        return list(found)


    @property
    def link_ids(self) -> list[int]:
        """Ids of the elements of link blocks: blocks, headings excepted, whose text is all
        anchor text. Step 5 weighs main text by its non-anchor characters only, so a block
        without any (a "read more" link between paragraphs, a list of related stories the
        pattern cannot place) is never main text; an element also in a block with text of
        its own is kept."""
        links = [b for b, label, _ in self.blocks if label is not Label.STATIC
                 and b.links and not b.weight_noanchor and _tag(b.path) not in HEADING_TAGS]
        kept = {i for b, _, _ in self.blocks if b.weight_noanchor for i in b.ids}
        return list(dict.fromkeys(i for b in links for i in b.ids if i not in kept))


def apply(pattern: LayoutPattern, layout: Layout, anchor_texts: AnchorTexts | None = None,
          find_title: bool = True) -> LayoutMatch:
    """extract.py: align the page to the pattern and label every block (all unknown until the
    pattern has MIN_PATTERN_PAGES pages); `anchor_texts` as for `LayoutPattern.add`. Without
    `find_title` no block is labelled TITLE, which spares recounting the title votes (the
    costly part of `apply` when the pattern has just learned a page)."""
    if not pattern.ready:
        return LayoutMatch(tuple((b, Label.UNKNOWN, -1) for b in layout.blocks), 0.0, "none")
    sections = align(pattern.paths, layout.paths)
    texts: list[list[str]] = [[] for _ in pattern.paths]
    for block, s in zip(layout.blocks, sections, strict=True):
        if s >= 0:
            texts[s].append(block.sig)
    joined = ["".join(t)[:MAX_SECTION_CHARS] for t in texts]
    wanted = anchors_for(layout, anchor_texts) if find_title else []
    title, method = (pattern.by_anchors(joined, wanted), "anchors") if wanted else (-1, "")
    if title < 0 and find_title:
        title, method = pattern.title_section(), "pattern"
    if title < 0 or not joined[title]:
        title, method = -1, "none"
    labelled = tuple((b, _label(pattern, s, title), s)
                     for b, s in zip(layout.blocks, sections, strict=True))
    weight = layout.weight
    aligned = sum(len(b.sig) for b, s in zip(layout.blocks, sections, strict=True) if s >= 0)
    return LayoutMatch(labelled, aligned / weight if weight else 0.0, method)


def _tag(path: str) -> str:
    """The tag of a block's innermost block-level element (its path's last component)."""
    return path.rsplit("/", 1)[-1].split(":", 1)[0]


def _label(pattern: LayoutPattern, section: int, title: int) -> Label:
    """extract.py dump_text: TITLE; static under the DiffScore threshold; MAIN after the title
    at the MainScore threshold; else SUB."""
    if section < 0:
        return Label.UNKNOWN
    if section == title:
        return Label.TITLE
    if pattern.diffscore(section) < DIFFSCORE_THRESHOLD:
        return Label.STATIC
    if title < section and pattern.mainscore(section) >= MAINSCORE_THRESHOLD:
        return Label.MAIN
    return Label.SUB
