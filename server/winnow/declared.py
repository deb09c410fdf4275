"""A product page's declared description: the text the page gives in its structured data
(a JSON-LD `Product` or `ProductGroup` node's `description`) as the product's own.

A product page's main region can miss its description when the page folds it into a block
that reads as furniture (an off-canvas sheet, a drawer); the page still declares it, and
the declared text is the product's own text whatever the page's layout. It is added to the
main text only when the text misses most of it, so a page that shows it keeps one copy.
Pure: no I/O.
"""

from __future__ import annotations

import re

from winnow.byline import tidy_text
from winnow.page import Page, ld_nodes, node_types, schema_type

PRODUCT_TYPES = frozenset({"product", "productgroup"})
"""schema.org types whose `description` is the product's own text."""

MIN_DECLARED_WORDS = 12
"""Words a declared description holds at least to be the product's text: a line of a few
words ("Black, size M") is a label, and its words are in the page's text anyway."""

MISSED_SHARE = 0.5
"""Share of the declared description's words under which the main text misses it: a
description shown in the region has nearly all its words there (WCXB's tune product pages
that show it: 0.6 to 1; a rewording or a shortened copy keeps most)."""

_TAG_RE = re.compile(r"<[^>]+>")
_WORD_RE = re.compile(r"\w+")


def declared_description(page: Page) -> str | None:
    """The first product node's `description` (tags dropped, entities read, spaces
    collapsed) of MIN_DECLARED_WORDS words or more; None when the page declares none."""
    for node in ld_nodes(page.json_ld):
        if not any(schema_type(kind) in PRODUCT_TYPES for kind in node_types(node)):
            continue
        value = node.get("description")
        if isinstance(value, str):
            text = tidy_text(_TAG_RE.sub(" ", value))
            if len(_WORD_RE.findall(text)) >= MIN_DECLARED_WORDS:
                return text
    return None


def with_declared(text: str, description: str | None) -> str:
    """The main `text` with the declared `description` after it when the text holds under
    MISSED_SHARE of the description's words; else the text as it is."""
    if description is None:
        return text
    words = _WORD_RE.findall(description.lower())
    have = set(_WORD_RE.findall(text.lower()))
    if sum(word in have for word in words) >= MISSED_SHARE * len(words):
        return text
    return f"{text}\n\n{description}" if text.strip() else description
