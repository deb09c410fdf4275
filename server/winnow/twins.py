"""Twin copies: a section a page carries twice, word for word.

Responsive layouts render one section once per screen size (a site builder's desktop,
tablet and mobile variants, a pricing table beside its folded mobile twin) and let
stylesheets show one of them; a saved page or a reader without those stylesheets sees all
of them. A container repeated whole is such a copy, where a single paragraph said twice (a
pull quote, a repeated call to action) is the text's own. A stylesheet can show one copy
and hide the other only when their names tell them apart (`desktop-only`, `hidden-mobile`,
a builder's variant hash) somewhere below their common ancestor; copies alike in every name
(a comparison row said twice, a carousel's loop of clones) are repeated on purpose, and stay.
"""

from __future__ import annotations

from winnow.econ import TreeStats, is_descendant
from winnow.page import HEADING_TAGS
from winnow.tree import normalize_space

MIN_TWIN_CHARS = 200
"""A copy holds at least this many characters: shorter repeats are labels and buttons."""


MIN_TWIN_BLOCKS = 3
"""A copy holds at least this many blocks with text (paragraphs, items, headings, rows): a
section, not one paragraph said twice."""


BLOCK_TAGS = frozenset({"p", "li", "blockquote", "pre", "tr", "dd", "dt", "figcaption",
                        *HEADING_TAGS})


def twin_copies(stats: TreeStats, root: int, keep: int) -> list[int]:
    """Elements in `root`'s subtree whose whole text repeats another element's there, word
    for word, each of MIN_TWIN_CHARS and MIN_TWIN_BLOCKS at least: all copies but one. The
    copy that holds `keep` (the snippet-node) stays, else the first. Outer copies are judged
    first; a copy inside one already dropped is no more a copy; copies alike in every name
    up to their common ancestor (`_styled_apart`) stay."""
    groups = _same_text(stats, root)
    dropped: list[int] = []
    for members in sorted(groups, key=lambda m: -stats.chars[m[0]]):
        alive = [i for i in members if not any(is_descendant(stats, i, d) for d in dropped)]
        if len(alive) < 2 or not _styled_apart(stats, alive):
            continue
        kept = next((i for i in alive if is_descendant(stats, keep, i)), alive[0])
        dropped.extend(i for i in alive if i != kept)
    return dropped


def _same_text(stats: TreeStats, root: int) -> list[list[int]]:
    """Groups of two or more elements, none inside another, with the same text (the
    outermost element of a chain of wrappers around one text). Only elements of the same
    size are read: most sizes are unique."""
    by_size: dict[int, list[int]] = {}
    for i in range(root + 1, stats.end[root]):
        if stats.chars[i] >= MIN_TWIN_CHARS and stats.chars[stats.parent[i]] > stats.chars[i]:
            by_size.setdefault(stats.chars[i], []).append(i)
    by_text: dict[str, list[int]] = {}
    for same_size in by_size.values():
        for i in same_size if len(same_size) >= 2 else ():
            by_text.setdefault(normalize_space(stats.elements[i].text_content()), []).append(i)
    groups = []
    for members in by_text.values():
        outer = [i for k, i in enumerate(members)
                 if not any(is_descendant(stats, i, j) for j in members[:k])]
        if len(outer) >= 2 and _blocks(stats, outer[0]) >= MIN_TWIN_BLOCKS:
            groups.append(outer)
    return groups


def _styled_apart(stats: TreeStats, members: list[int]) -> bool:
    """True when the tags and classes from the copies up to their lowest common ancestor
    are not the same for all of them: what a stylesheet can tell apart."""
    top = members[0]
    for i in members[1:]:
        while not is_descendant(stats, i, top):
            top = stats.parent[top]
    return len({tuple(_names_up_to(stats, i, top)) for i in members}) > 1


def _names_up_to(stats: TreeStats, i: int, top: int) -> list[tuple[str, str]]:
    names = []
    while i != top:
        el = stats.elements[i]
        names.append((el.tag, el.get("class") or ""))
        i = stats.parent[i]
    return names


def _blocks(stats: TreeStats, i: int) -> int:
    return sum(1 for j in range(i, stats.end[i])
               if stats.elements[j].tag in BLOCK_TAGS and stats.chars[j] > 0)
