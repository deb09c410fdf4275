"""A thread's opening post written in another template than its replies.

Many forums show the topic's first post in a box of its own above the list of replies: a
question above its answers (Stack Exchange's question and answer blocks), a topic card above
the reply cards (XenForo themes, Hivebrite), so MiBAT's record list, a run of sibling
subtrees, starts with the first reply. The opening post's body is still written by the same
code as the replies' bodies: the same tag with the same class names. An element before the
first record that is such a twin of the records' bodies is the opening post's body.

Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from winnow.mibat import Region, candidates_in
from winnow.mibat_dom import DomTree
from winnow.tree import normalize_space

MIN_TWIN_BODIES = 2
"""Records whose bodies must share their tag and class names for the name to be the body
template's (and at least half of the records: one odd body names nothing)."""


def body_key(dom: DomTree, v: int) -> tuple[str, str] | None:
    """A body element's tag and class names; None when it has no class (a bare <div> or <p>
    is any block of the page, not the body template's)."""
    key = _tag_and_class(dom, v)
    return key if key[1] else None


def body_template(dom: DomTree, bodies: Sequence[int]) -> tuple[str, str] | None:
    """The tag and class names most records' bodies share (`bodies`: the body node of each
    record whose body is one element), when MIN_TWIN_BODIES and over half of them do."""
    keys = Counter(key for key in (body_key(dom, v) for v in bodies) if key is not None)
    if not keys:
        return None
    key, count = keys.most_common(1)[0]
    return key if count >= MIN_TWIN_BODIES and count * 2 > len(bodies) else None


def opening_body(dom: DomTree, region: Region, bodies: Sequence[int]) -> int | None:
    """The last shown element before the region's first record that is a twin of the
    records' bodies (`body_template`) and no ancestor of the records: the opening post's
    body; None when there is none."""
    key = body_template(dom, bodies)
    if key is None:
        return None
    first = region.records[0][0]
    sizes = dom.tree.sizes
    found = None
    v = 0
    while v < first:
        if dom.hidden[v]:
            v += sizes[v]  # nothing hidden is shown as the post
        elif v + sizes[v] > first:
            v += 1  # an ancestor of the records: look inside it
        elif dom.text_len[v] and body_key(dom, v) == key:
            found = v
            v += sizes[v]
        else:
            v += 1
    return found


def opening_box(dom: DomTree, region: Region, body: int) -> int:
    """The box of the opening post around its `body`: its ancestor right below the element
    it shares with the records (the topic card, the question block), where its author and
    date are."""
    first = region.records[0][0]
    sizes = dom.tree.sizes
    box = body
    parent = dom.tree.parents[box]
    while parent >= 0 and not parent < first < parent + sizes[parent]:
        box, parent = parent, dom.tree.parents[parent]
    return box


def opening_pivot(dom: DomTree, region: Region, box: int, body: int) -> int | None:
    """The opening post's date among the candidate dates of its box outside its body: those
    written like the records' dates (tag and class names) when any are, and of them the last
    before the body (a card's header line), else the first after it (a question's footer);
    None when the box shows no date."""
    inside = range(body, body + dom.tree.sizes[body])
    found = [v for v in candidates_in(dom, box) if v not in inside]
    keys = {_tag_and_class(dom, v) for pivots in region.pivots for v in pivots}
    alike = [v for v in found if _tag_and_class(dom, v) in keys]
    found = alike or found
    before = [v for v in found if v < body]
    return before[-1] if before else found[0] if found else None


def _tag_and_class(dom: DomTree, v: int) -> tuple[str, str]:
    """An element's tag and class names, spaces normalised: how a template writes it."""
    return dom.tree.tags[v], normalize_space(dom.elements[v].get("class"))
