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


def test_a_stray_link_beside_the_blocks_does_not_make_a_line() -> None:
    """A "Back to top" link among the container's blocks leaves it a stack of blocks: the
    version switcher above the document still goes; a paragraph's own links stay."""
    main = ("<div class='switcher'><ul><li><a href='/en/'>en</a></li><li><a href='/fr/'>fr</a>"
            "</li></ul><ul><li><a href='/5.0/'>5.0</a></li><li><a href='/4.2/'>4.2</a></li></ul>"
            f"</div><article><h1>Budget</h1><p>{SENTENCE}</p><p>See <a href='/x'>the plan</a>"
            " too.</p></article><a href='#top'>Back to top</a>")
    kept = _region_text(main)
    assert "council" in kept and "the plan" in kept and "Budget" in kept
    for gone in ("5.0", "fr", "Back to top"):
        assert gone not in kept


def test_an_unclosed_named_anchor_is_the_text_it_wraps() -> None:
    """An `<a name>` left open wraps the document's last sections: its text counts as links,
    yet it is no link line."""
    paragraphs = f"<p>{SENTENCE}</p>" * 4
    main = (f"<div class='doc'>{paragraphs}<a name='more'><h2>More</h2><p>"
            "Closing words.</p></a></div><a href='#top'>Back to top</a>")
    kept = _region_text(main)
    assert "Closing words" in kept and "More" in kept


def test_a_list_of_links_under_its_own_heading_at_the_end_stays() -> None:
    """A wiki page's last section is a list of links under its heading: the heading labels
    it as the document's text; the link line after it still goes."""
    main = (f"<div class='doc'><p>{SENTENCE}</p><h2>Further reading</h2><ul>"
            "<li><a href='/a'>Tuning guide</a></li><li><a href='/b'>Planner notes</a></li></ul>"
            "<div><a href='/prev'>Previous</a> | <a href='/next'>Next</a></div></div>")
    kept = _region_text(main)
    assert "Tuning guide" in kept and "Further reading" in kept
    assert "Previous" not in kept
