"""The page's tree as one post record sees it (`RecordView`): the records nested in it (the
replies of a threaded comment section) count for nothing, and a record in a collapsed branch
is read as if shown. `posts`, `postbody` and `postfields` read records through it.

Pure: no I/O.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from winnow.mibat_dom import DomTree
from winnow.page import is_hidden


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
        self.hidden = _Masked(self)
        self.text_len = _NestedLength(self)

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

    def base_hidden(self, v: int) -> bool:
        local = self.local_hidden.get(v)
        return self.dom.hidden[v] if local is None else local

    def base_len(self, v: int) -> int:
        local = self.local_len.get(v)
        return self.dom.text_len[v] if local is None else local

    def in_nested(self, v: int) -> bool:
        i = bisect_right(self.starts, v) - 1
        return i >= 0 and v < self.ends[i]


class _Masked:
    def __init__(self, view: RecordView) -> None:
        self.view = view

    def __getitem__(self, v: int) -> bool:
        return self.view.base_hidden(v) or (bool(self.view.starts) and self.view.in_nested(v))


class _NestedLength:
    def __init__(self, view: RecordView) -> None:
        self.view = view

    def __getitem__(self, v: int) -> int:
        view = self.view
        if view.starts and view.in_nested(v):
            return 0
        return view.base_len(v) + view.adjust.get(v, 0)
