"""Body consensus: where most of a thread's records keep their body, the others' is looked for.

A record's body is first located on its own (`postbody.locate_body`); a one-word post may pull
its body into the header, so the place that holds most of the thread's body text is given to
the records whose structure has it (`agree_on_body`).

Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from winnow.postbody import Body, cut_body, is_shown, strip_leading, trim_title
from winnow.postview import RecordView

MIN_AGREEING = 2
"""Records that must share where their body lies before the others follow them."""


@dataclass
class Reading:
    """A record as read before its post is made: its body and its author's node."""

    view: RecordView
    record: Sequence[int]
    pivots: Sequence[int]
    author: int | None
    body: Body


Signature = tuple[tuple[tuple[int, str], ...], str, int]
"""Where a body lies in its record: the (child position, tag) steps from the record to the
body's node, the form ("whole" node, or the children "after" / "before" a position) and that
position (-1 for a whole node)."""

_Place = TypeVar("_Place", bound=Hashable)
"""A place a body may lie in its record (a `Signature`, or the steps to its first node)."""


def _signature(view: RecordView, reading: Reading) -> Signature | None:
    body = reading.body
    if body.node is None:
        return None
    steps = _steps(reading, body.node)
    if steps is None:
        return None
    if body.keep is None:
        return steps, "whole", -1
    if body.text_after is not None:
        return steps, "after", view.tree.children[body.node].index(body.text_after)
    return None


def _steps(reading: Reading, v: int) -> tuple[tuple[int, str], ...] | None:
    """The (child position, tag) steps from the record down to node v (None when v lies
    outside the record)."""
    tree = reading.view.tree
    steps: list[tuple[int, str]] = []
    while v not in reading.record:
        parent = tree.parents[v]
        if parent < 0:
            return None
        steps.append((tree.children[parent].index(v), tree.tags[v]))
        v = parent
    steps.append((list(reading.record).index(v), tree.tags[v]))
    return tuple(reversed(steps))


def _follow(view: RecordView, record: Sequence[int],
            steps: tuple[tuple[int, str], ...]) -> tuple[int | None, int] | None:
    """The node `steps` lead to in another record, with its parent on the way (None for
    the record's own node); None when the record's structure differs."""
    first, tag = steps[0]
    if first >= len(record) or view.tree.tags[record[first]] != tag:
        return None
    v = record[first]
    parent: int | None = None
    for index, tag in steps[1:]:
        kids = view.tree.children[v]
        if index >= len(kids) or view.tree.tags[kids[index]] != tag:
            return None
        parent, v = v, kids[index]
    return parent, v


def _resolve(view: RecordView, reading: Reading, signature: Signature,
             title: str | None) -> Body | None:
    """The body at `signature` in another record, or None when its structure differs."""
    steps, form, position = signature
    found = _follow(view, reading.record, steps)
    if found is None:
        return None
    v = found[1]
    if form == "whole":
        return trim_title(view, Body(v), title)
    kids = view.tree.children[v]
    if position >= len(kids):
        return None
    shown = [k for k in kids[position + 1:] if is_shown(view, k)]
    return trim_title(view, cut_body(v, strip_leading(view, shown, title), kids[position]), title)


def agree_on_body(readings: list[Reading], title: str | None) -> None:
    """Give every record the body place that holds most of the thread's body text (at least
    half of it), shared by MIN_AGREEING records: the same node, or the same children after
    the same header. Failing that, places are compared by where the body starts, so "this
    node" and "the children after its header" vote together when they start at the same
    node. Votes weigh body text, not records: many short posts whose body was read in the
    wrong place (a profile column, a likes line) do not outvote the long posts read right."""
    if len(readings) < MIN_AGREEING:
        return
    weights = [_body_chars(r) for r in readings]
    signatures = [_signature(r.view, r) for r in readings]
    voted = _vote(signatures, weights)
    if voted is not None:
        for reading, signature in zip(readings, signatures, strict=True):
            if signature != voted:
                body = _resolve(reading.view, reading, voted, title)
                if body is not None and body.nodes():
                    reading.body = body
        return
    starts = [_start(r) for r in readings]
    best = _vote(starts, weights)
    if best is None:
        return
    forms = Counter(sig for sig, start in zip(signatures, starts, strict=True)
                    if sig is not None and start == best).most_common(1)
    if not forms:
        return
    form = forms[0][0]
    for reading, start in zip(readings, starts, strict=True):
        if start != best:
            body = _resolve_start(reading.view, reading, best, form[1] == "whole", title)
            if body is not None:
                reading.body = body


def _body_chars(reading: Reading) -> int:
    """The body's text length (at least 1, so an empty body still counts as a record)."""
    return max(1, sum(reading.view.dom.text_len[v] for v in reading.body.nodes()))


def _vote(places: Sequence[_Place | None], weights: Sequence[int]) -> _Place | None:
    """The place holding the most body text, when it holds at least half of all of it and
    MIN_AGREEING records share it; None otherwise."""
    text: Counter[_Place] = Counter()
    records: Counter[_Place] = Counter()
    for place, weight in zip(places, weights, strict=True):
        if place is not None:
            text[place] += weight
            records[place] += 1
    if not text:
        return None
    best, held = text.most_common(1)[0]
    if held * 2 < sum(weights) or records[best] < MIN_AGREEING:
        return None
    return best


def _resolve_start(view: RecordView, reading: Reading, start: tuple[tuple[int, str], ...],
                   whole: bool, title: str | None) -> Body | None:
    """The body starting at `start` in another record: that node (`whole`), or it and the
    siblings after it; None when the record's structure differs. The node may be empty
    (a post whose only picture the saved page lost)."""
    found = _follow(view, reading.record, start)
    if found is None:
        return None
    parent, v = found
    if whole or parent is None:
        return trim_title(view, Body(v), title)
    kids = view.tree.children[parent]
    at = kids.index(v)
    run = [v, *(k for k in kids[at + 1:] if is_shown(view, k))]
    return trim_title(view, Body(parent, run, kids[at - 1] if at else None), title)


def _start(reading: Reading) -> tuple[tuple[int, str], ...] | None:
    """The (child position, tag) steps from the record to the body's first node."""
    nodes = reading.body.nodes()
    return _steps(reading, nodes[0]) if nodes else None


