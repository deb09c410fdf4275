"""Where a template cluster keeps its content: the consensus of its pages' content roots.

Single-page extraction sometimes misses catastrophically (a noise-named wrapper, a teaser with
full text, a climb to `<body>`). Pages of one template keep their article in the same place,
so once a few pages of a cluster were learned, the container that holds the content on nearly
all of them is known, and a page whose single-page choice strays outside it is corrected by
treating everything outside that container as template.

A content root is written as its path from `<body>`: one step per element, its tag, its id and
class names with digits dropped (`post-1234` and `post-987` are one step) and its index among
its siblings of the same step. `ContentVotes` counts, for every learned page, each prefix of
its root's path; the consensus is the deepest prefix that at least `CONSENSUS_SHARE` of the
voting pages' roots lie in, once `MIN_VOTES` pages voted. Paths are structure, never text.
A page is corrected only when its own choice `strays`: beside the container, or around it
taking in more text than the container holds; where it agrees, or adds a little around it,
what it found (a standfirst in the header) stays.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lxml.html import HtmlElement

MIN_VOTES = 3
"""Pages of a cluster whose content root must have been seen before the consensus is used:
two pages agreeing can be one page's accident repeated."""

CONSENSUS_SHARE = 0.8
"""Share of a cluster's voting pages whose content root must lie in a container for it to be
the cluster's content container (the rest are the misses it corrects)."""

MIN_CONTAINER_SHARE = 0.1
"""Share of the page's body text the container must hold on the page being corrected: a
container (nearly) empty on this page means the page is of another kind than the cluster's
usual pages (a gallery among stories), and it is left to single-page extraction. Low, since
the pages to correct are those whose own content is outweighed by text around it."""

MIN_AROUND_SHARE = 0.5
"""Share of a page's extracted text the cluster's container must hold when the extraction
climbed around it: below it the climb took in more than the article (a 'most read' item with
its full text); above it what it added is the page's own (a standfirst in the header)."""

MAX_PATHS = 256
"""Distinct prefixes a cluster keeps counts for; the least counted go first (a bounded model:
learning a page costs the same at the 1,000th page as at the 10th)."""

MAX_DEPTH = 40
"""Steps of a path kept; deeper content roots vote for their first MAX_DEPTH steps."""

_DIGITS_RE = re.compile(r"\d+")


def step(el: HtmlElement) -> str:
    """An element's step: tag, `#id` and `.class` names (digits dropped, sorted)."""
    tag = el.tag if isinstance(el.tag, str) else "?"
    ident = _DIGITS_RE.sub("", el.get("id") or "").strip()
    classes = sorted({_DIGITS_RE.sub("", name) for name in (el.get("class") or "").split()})
    return tag + (f"#{ident}" if ident else "") + "".join(f".{name}" for name in classes)


def path_of(el: HtmlElement, body: HtmlElement) -> tuple[str, ...] | None:
    """The path of `el` from `body` (body itself is the empty path); None when `el` is not
    inside `body`."""
    steps: list[str] = []
    node: HtmlElement | None = el
    while node is not None and node is not body:
        parent = node.getparent()
        if parent is None:
            return None
        own = step(node)
        index = sum(1 for sibling in node.itersiblings(preceding=True)
                    if isinstance(sibling.tag, str) and step(sibling) == own)
        steps.append(f"{own}[{index}]")
        node = parent
    if node is None:
        return None
    return tuple(reversed(steps))[:MAX_DEPTH]


def locate(body: HtmlElement, path: Sequence[str]) -> HtmlElement | None:
    """The element at `path` under `body`, or None when the page has no such element."""
    node = body
    for wanted in path:
        own, _, index = wanted.rpartition("[")
        position = int(index.rstrip("]") or 0)
        matching = [child for child in node.iterchildren()
                    if isinstance(child.tag, str) and step(child) == own]
        if position >= len(matching):
            return None
        node = matching[position]
    return node


@dataclass
class ContentVotes:
    """Counts of the content-root path prefixes of a cluster's learned pages."""

    pages: int = 0
    counts: dict[tuple[str, ...], int] = field(default_factory=dict)

    def add(self, path: Sequence[str]) -> None:
        """Count one page whose content root lies at `path`."""
        self.pages += 1
        for depth in range(1, len(path) + 1):
            prefix = tuple(path[:depth])
            self.counts[prefix] = self.counts.get(prefix, 0) + 1
        if len(self.counts) > MAX_PATHS:
            kept = sorted(self.counts.items(), key=lambda item: -item[1])[:MAX_PATHS]
            self.counts = dict(kept)

    def consensus(self) -> tuple[str, ...] | None:
        """The deepest container that CONSENSUS_SHARE of the pages' roots lie in, once
        MIN_VOTES pages voted; None when too few voted or only `<body>` holds that many."""
        if self.pages < MIN_VOTES:
            return None
        needed = CONSENSUS_SHARE * self.pages
        held = [path for path, count in self.counts.items() if count >= needed]
        return max(held, key=len, default=None)

    def to_json(self) -> dict[str, Any]:
        return {"pages": self.pages,
                "counts": [[list(path), count] for path, count in self.counts.items()]}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ContentVotes:
        """The votes `to_json` wrote; none from a model that never voted. Anything else
        raises TypeError or ValueError, which the learner reads as an unreadable model."""
        if not data:
            return cls()
        if not isinstance(data, dict):
            raise TypeError(f"content votes must be an object, not {type(data).__name__}")
        return cls(pages=int(data.get("pages", 0)),
                   counts={tuple(str(s) for s in path): int(count)
                           for path, count in data.get("counts", [])})


def outside(container: HtmlElement, body: HtmlElement) -> list[HtmlElement]:
    """Every element outside `container`: the subtrees of its siblings and of each of its
    ancestors' siblings up to `body` (what the template explains when the content must be in
    the container)."""
    found: list[HtmlElement] = []
    node = container
    while node is not body:
        parent = node.getparent()
        if parent is None:
            break
        for sibling in parent.iterchildren():
            if sibling is not node and isinstance(sibling.tag, str):
                found += [el for el in sibling.iter() if isinstance(el.tag, str)]
        node = parent
    return found


def strays(source: HtmlElement, container: HtmlElement) -> bool:
    """True when an extraction's `source` lies beside the cluster's content container, or
    around it with the container holding under `MIN_AROUND_SHARE` of its text (the climb
    took in a teaser with full text, a rail). A source in the container, or around it adding
    a little (a deck in the header), is left alone."""
    if source is container or container in source.iterancestors():
        return False
    if source in container.iterancestors():
        return text_share(container, source) < MIN_AROUND_SHARE
    return True


def text_share(part: HtmlElement, whole: HtmlElement) -> float:
    """Share of `whole`'s text characters (whitespace aside) inside `part`."""
    total = _chars(whole)
    return _chars(part) / total if total else 0.0


def _chars(el: HtmlElement) -> int:
    return sum(len("".join(text.split())) for text in el.itertext())
