"""MDR-style consecutive-record mining: the baseline the forum benchmark compares MiBAT with.

After Liu, Grossman and Zhai, "Mining Data Records in Web Pages" (KDD 2003): under each node,
runs of adjacent generalized nodes (combinations of 1 to `MAX_COMBINATION` consecutive
children) whose tag trees are similar form a data region; each generalized node of a region is
a data record. Similarity is the normalized edit distance between the nodes' tag strings (the
preorder sequence of element tags), as in the paper. The baseline returns the records of the
region holding the most text, each record's text being all its text: MDR knows nothing about
dates, authors or where a post's body starts, which is exactly what MiBAT adds.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from lxml import etree

MAX_COMBINATION = 3
"""K in the paper: a generalized node combines at most this many adjacent children."""
MAX_DISTANCE = 0.3
"""The paper's edit-distance threshold: adjacent generalized nodes at most this far apart are
similar."""
MIN_RECORDS = 2
"""A data region holds at least two generalized nodes."""
MAX_TAGS = 400
"""Tag strings are cut to this length: MDR compares the top of each record's structure."""


@dataclass(frozen=True)
class Record:
    """One mined record: its elements and its whole text."""

    elements: tuple[etree._Element, ...]
    text: str
    author: str | None = None
    published: str | None = None


def mine_records(root: etree._Element) -> list[Record]:
    """The records of the data region with the most text, or [] when there is none."""
    best: list[Record] = []
    best_chars = 0
    for parent in root.iter():
        children = [child for child in parent if isinstance(child.tag, str)]
        if len(children) < MIN_RECORDS:
            continue
        for region in _regions(children):
            records = [Record(group, _text(group)) for group in region]
            chars = sum(len(record.text) for record in records)
            if chars > best_chars:
                best, best_chars = records, chars
    return best


def _regions(children: list[etree._Element]) -> list[list[tuple[etree._Element, ...]]]:
    """Every maximal run of similar adjacent generalized nodes among `children`."""
    tags = [_tag_string(child) for child in children]
    regions: list[list[tuple[etree._Element, ...]]] = []
    for size in range(1, MAX_COMBINATION + 1):
        for offset in range(size):
            groups = [tuple(range(i, i + size))
                      for i in range(offset, len(children) - size + 1, size)]
            run: list[tuple[int, ...]] = []
            for group in groups:
                if run and not _similar(_joined(tags, run[-1]), _joined(tags, group)):
                    _keep(run, children, regions)
                    run = []
                run.append(group)
            _keep(run, children, regions)
    return regions


def _keep(run: list[tuple[int, ...]], children: list[etree._Element],
          regions: list[list[tuple[etree._Element, ...]]]) -> None:
    if len(run) >= MIN_RECORDS:
        regions.append([tuple(children[i] for i in group) for group in run])


def _joined(tags: list[list[str]], group: tuple[int, ...]) -> list[str]:
    return [tag for i in group for tag in tags[i]][:MAX_TAGS]


def _similar(a: list[str], b: list[str]) -> bool:
    """Normalized edit distance at most `MAX_DISTANCE` (1 - SequenceMatcher's ratio, which
    counts matching tags over both lengths, approximates it)."""
    return 1.0 - SequenceMatcher(None, a, b, autojunk=False).ratio() <= MAX_DISTANCE


def _tag_string(element: etree._Element) -> list[str]:
    return [str(node.tag) for node in element.iter() if isinstance(node.tag, str)][:MAX_TAGS]


def _text(group: tuple[etree._Element, ...]) -> str:
    texts = (str(text) for element in group for text in element.itertext())
    return " ".join(" ".join(texts).split())
