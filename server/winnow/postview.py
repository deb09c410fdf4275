"""The page's tree as one post record sees it (`RecordView`): the records nested in it (the
replies of a threaded comment section) count for nothing, and a record in a collapsed branch
is read as if shown. `posts`, `postbody` and `postfields` read records through it.

Pure: no I/O.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TypeVar

from winnow.mibat_dom import DomTree
from winnow.page import is_hidden

T = TypeVar("T")


class RecordView:
    """The page's tree as one record sees it: records nested inside it count for nothing
    (they are hidden, and their text is not part of their ancestors' text), and a record in
    a collapsed branch (hidden by an ancestor outside it) is read as if shown."""

    def __init__(self, dom: DomTree, nested: frozenset[int],
                 record: Sequence[int] = ()) -> None:
        self.dom = dom
        self.tree = dom.tree
        self.elements = dom.elements
        self.local_hidden: dict[int, bool] = {}
        self.local_len: dict[int, int] = {}
        if record and dom.hidden[record[0]]:
            self._unfold(record)
        outer = sorted(nested)
        kept: list[int] = []
        for r in outer:
            if not kept or r >= kept[-1] + dom.tree.sizes[kept[-1]]:
                kept.append(r)
        self.nested = frozenset(kept)
        self.starts = kept
        self.ends = [r + dom.tree.sizes[r] for r in kept]
        adjust: dict[int, int] = {}
        for r in kept:
            a = dom.tree.parents[r]
            while a >= 0:
                adjust[a] = adjust.get(a, 0) - self.base_len(r)
                a = dom.tree.parents[a]
        self.adjust = adjust
        self.hidden = _Masked(dom.hidden, self.local_hidden, kept, self.ends)
        self.text_len = _NestedLength(dom.text_len, self.local_len, adjust, kept, self.ends)

    def _unfold(self, record: Sequence[int]) -> None:
        """Visibility and text lengths inside a collapsed record, as if it were shown."""
        tree = self.tree
        for root in record:
            span = tree.subtree(root)
            for v in span:
                parent = tree.parents[v]
                self.local_hidden[v] = v != root and (
                    is_hidden(self.elements[v]) or self.local_hidden.get(parent, False))
            for v in reversed(span):
                length = 0 if self.local_hidden[v] else len(tree.texts[v])
                if not self.local_hidden[v]:
                    length += sum(self.local_len[c] + len(tree.tails[c])
                                  for c in tree.children[v] if not self.local_hidden[c])
                self.local_len[v] = length

    def base_len(self, v: int) -> int:
        return _overlaid(self.dom.text_len, self.local_len, v)

    def in_nested(self, v: int) -> bool:
        return _in_nested(self.starts, self.ends, v)


def _overlaid(base: Sequence[T], local: dict[int, T], v: int) -> T:
    """Node `v`'s value in the view: the record's own where it was unfolded, else the page's."""
    value = local.get(v)
    return base[v] if value is None else value


def _in_nested(starts: Sequence[int], ends: Sequence[int], v: int) -> bool:
    """Whether node `v` lies in one of the nested records spanning `starts[i]:ends[i]`."""
    i = bisect_right(starts, v) - 1
    return i >= 0 and v < ends[i]


class _Masked:
    """`RecordView.hidden`. It holds the view's parts, not the view: a mask pointing back at
    its view made every view a reference cycle, which kept the page's whole tree (the DOM
    arrays and the lxml document) alive until the cyclic garbage collector ran."""

    def __init__(self, hidden: Sequence[bool], local: dict[int, bool], starts: Sequence[int],
                 ends: Sequence[int]) -> None:
        self.hidden, self.local, self.starts, self.ends = hidden, local, starts, ends

    def __getitem__(self, v: int) -> bool:
        if _overlaid(self.hidden, self.local, v):
            return True
        return bool(self.starts) and _in_nested(self.starts, self.ends, v)


class _NestedLength:
    """`RecordView.text_len`; like `_Masked`, it holds the view's parts, not the view."""

    def __init__(self, text_len: Sequence[int], local: dict[int, int], adjust: dict[int, int],
                 starts: Sequence[int], ends: Sequence[int]) -> None:
        self.text_len, self.local, self.adjust = text_len, local, adjust
        self.starts, self.ends = starts, ends

    def __getitem__(self, v: int) -> int:
        if self.starts and _in_nested(self.starts, self.ends, v):
            return 0
        return _overlaid(self.text_len, self.local, v) + self.adjust.get(v, 0)
