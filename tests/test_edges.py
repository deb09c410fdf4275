"""The edges of a document's region (edges.py): furniture lines that open or close its text
go, by structure and text statistics; the text, its headings and its own links stay."""

from __future__ import annotations

from winnow.mainregion import main_region
from winnow.page import parse_page

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. Residents were pleased, "
            "mostly, though some objected to the plan.")


def _region_text(main: str, trim: bool = True) -> str:
    page = parse_page(f"<html><body><main>{main}</main></body></html>")
    return main_region(page, page.body[0], trim_edges=trim).content.text_content()


def test_furniture_lines_at_both_ends_of_a_document_go() -> None:
    main = ("<div><a href='/'>Home</a> / <a href='/docs'>Docs</a></div>"
            "<div class='doc'><h1>Budget</h1>"
            f"<div class='body'><p>{SENTENCE}</p><p>See <a href='/x'>the plan</a> too.</p></div>"
            "<div><a href='/prev'>Previous</a> | <a href='/next'>Next</a></div>"
            "<p>Last updated on March 5, 2025</p>"
            "<p>© 2025 The Budget Project. All rights reserved.</p></div>")
    kept = _region_text(main)
    assert "Budget" in kept and "council" in kept and "the plan" in kept
    for gone in ("Home", "Previous", "Last updated", "rights reserved"):
        assert gone not in kept
    untrimmed = _region_text(main, trim=False)
    assert "Previous" in untrimmed and "rights reserved" in untrimmed


def test_a_documents_own_link_list_between_its_paragraphs_stays() -> None:
    main = (f"<div><p>{SENTENCE}</p><ul><li><a href='/a'>Alpha</a></li>"
            f"<li><a href='/b'>Beta</a></li></ul><p>{SENTENCE}</p></div>")
    assert "Alpha" in _region_text(main)
