"""Put the segments of a streamed React page where its scripts would put them.

React's streaming server renderer (React 18+, the Next.js app router) sends a page's shell
first, with a `<template id="B:1">` (a Suspense boundary, its "Loading..." fallback after
it) or a `<template id="P:1">` (a pending segment) where content is still coming. The content
follows at the end of the body, each part in a `<div hidden id="S:1">`, and a small inline
script moves it into place: `$RC("B:1","S:1")` completes a boundary, `$RS("S:1","P:1")`
fills a segment's placeholder. A browser shows the page with the parts in place; a saved
page parsed without running its scripts shows the fallbacks, and the article itself sits
in hidden divs after the footer, where it counts for nothing.

`resolve_segments` does what those scripts do, on the parsed tree: it pairs each segment
with its placeholder by the script calls, or, where a saved page lost its scripts, by the
id they share (`S:1` with `P:1`, else `B:1`), moves the segment's children in, and drops
the placeholder. A boundary's fallback stays: the comments that bound it (`<!--$?-->` ...
`<!--/$-->`) are gone by then (the parser drops comments), and it is a short "Loading..."
line. The extension sends the browser's DOM, where this has happened already.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

_CALL_RE = re.compile(r'\$R[CS]\(\s*"([BPS]:[0-9A-Za-z]+)"\s*,\s*"([BPS]:[0-9A-Za-z]+)"')
"""A boundary completion `$RC("B:x","S:y")` or a segment fill `$RS("S:y","P:x")`."""


def resolve_segments(root: HtmlElement) -> None:
    """Move every hidden streamed segment (`<div hidden id="S:...">`) of the page into the
    placeholder its script names (see the module docstring); segments without one stay."""
    segments = {el.get("id"): el for el in root.iter("div")
                if el.get("hidden") is not None and (el.get("id") or "").startswith("S:")}
    if not segments:
        return
    slots = {el.get("id"): el for el in root.iter("template")
             if (el.get("id") or "")[:2] in ("B:", "P:")}
    for segment_id, slot_id in _pairs(root, segments, slots):
        segment, slot = segments[segment_id], slots.get(slot_id)
        if slot is not None and slot.getparent() is not None and segment.getparent() is not None \
                and slot not in segment.iterancestors():
            _move_into(segment, slot)


def _pairs(root: HtmlElement, segments: dict[str | None, HtmlElement],
           slots: dict[str | None, HtmlElement]) -> list[tuple[str, str]]:
    """(segment id, placeholder id) pairs: from the page's script calls when it has any,
    else by shared suffix, a pending segment's placeholder (`P:`) before a boundary."""
    pairs: list[tuple[str, str]] = []
    for script in root.iter("script"):
        for first, second in _CALL_RE.findall(script.text or ""):
            segment, slot = (second, first) if first.startswith("B:") else (first, second)
            if segment in segments:
                pairs.append((segment, slot))
    if pairs:
        return pairs
    for segment in segments:
        suffix = str(segment)[2:]
        slot = next((s for s in ("P:" + suffix, "B:" + suffix) if s in slots), None)
        if slot is not None:
            pairs.append((str(segment), slot))
    return pairs


def _move_into(segment: HtmlElement, slot: HtmlElement) -> None:
    """Put the segment's content where the placeholder is, and drop the placeholder and the
    empty segment."""
    parent = slot.getparent()
    assert parent is not None
    at = parent.index(slot)
    if segment.text and segment.text.strip():
        _append_text(parent, at, segment.text)
    for k, child in enumerate(list(segment)):
        parent.insert(at + k, child)
    slot.drop_tree()  # lxml.html's drop_tree keeps the tail
    segment.drop_tree()


def _append_text(parent: HtmlElement, at: int, text: str) -> None:
    """Add `text` where a child inserted at `at` would begin."""
    if at == 0:
        parent.text = (parent.text or "") + text
    else:
        previous = parent[at - 1]
        previous.tail = (previous.tail or "") + text
