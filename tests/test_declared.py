"""A product page's declared description (JSON-LD `Product`) restored to its main text when
the main region misses it, and left alone when the text shows it."""

from __future__ import annotations

import json

from winnow.declared import declared_description, with_declared
from winnow.page import parse_page

DESCRIPTION = ("Hand-turned from solid brass, this desk lamp takes any E27 bulb and ages to "
               "a warm patina; the weighted base keeps it steady on any desk.")


def _page(ld: object, body: str = "<main><h1>Brass lamp</h1></main>") -> str:
    return (f"<html><head><script type='application/ld+json'>{json.dumps(ld)}</script>"
            f"</head><body>{body}</body></html>")


def test_a_products_declared_description_is_read() -> None:
    """The description of a Product node (in a graph, its HTML read as text) is declared;
    an Organization's is not, nor is a label of a few words."""
    graph = {"@graph": [{"@type": "Organization", "description": "We make lamps. " * 5},
                        {"@type": ["Product"], "name": "Brass lamp",
                         "description": f"<p>{DESCRIPTION}</p>&amp; more"}]}
    found = declared_description(parse_page(_page(graph)))
    assert found is not None and found.startswith("Hand-turned") and found.endswith("& more")
    short = {"@type": "Product", "description": "Brass, black shade"}
    assert declared_description(parse_page(_page(short))) is None
    assert declared_description(parse_page(_page({"@type": "Organization",
                                                   "description": DESCRIPTION}))) is None


def test_the_declared_description_is_added_only_when_the_text_misses_it() -> None:
    """A main text that misses the description gets it after its own text; one that shows
    it (even reworded a little) keeps one copy."""
    assert with_declared("Brass lamp\n\n$ 80", DESCRIPTION).endswith(DESCRIPTION)
    assert with_declared("", DESCRIPTION) == DESCRIPTION
    shown = "Brass lamp\n\n" + DESCRIPTION.replace("warm", "rich")
    assert with_declared(shown, DESCRIPTION) == shown
    assert with_declared("Brass lamp", None) == "Brass lamp"



def test_odd_declarations_give_no_description() -> None:
    """Declarations of the wrong shape are skipped, never an error: a description that is no
    string, types as numbers, nulls or nested lists, a product without a description, a
    scalar block, and a description of markup only."""
    odd: list[object] = [
        {"@type": "Product", "description": ["a", "list", "of", "words"] * 5},
        {"@type": "Product", "description": {"text": DESCRIPTION}},
        {"@type": 7, "description": DESCRIPTION},
        {"@type": [None, ["Product"], {"x": 1}], "description": DESCRIPTION},
        {"@type": "Product"},
        "just a string",
        {"@type": "Product", "description": "<img src=x><br><b></b>" * 20},
    ]
    for ld in odd:
        assert declared_description(parse_page(_page(ld))) is None, ld
    page = parse_page(_page([{"@type": "Product", "description": None},
                             {"@type": "product", "description": DESCRIPTION}]))
    assert declared_description(page) == DESCRIPTION
