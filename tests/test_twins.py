"""Twin copies (twins.py): a section a responsive layout renders twice leaves the article
once; a section repeated under the same names stays."""

from __future__ import annotations

from winnow import article, econ
from winnow.page import parse_page
from winnow.twins import twin_copies

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. Residents were pleased, "
            "mostly, though some objected to the plan.")


def section(title: str) -> str:
    return f"<h2>{title}</h2>" + "".join(f"<p>{SENTENCE} Point {k}.</p>" for k in range(3))


def test_a_section_rendered_for_two_screens_is_read_once() -> None:
    """A site builder's desktop and mobile variants of one section differ only in their
    class: the reader shows one copy."""
    body = (f"<article><p>{SENTENCE} Opening.</p>"
            f"<div class='variant hidden-mobile'>{section('Costs')}</div>"
            f"<div class='variant hidden-desktop'>{section('Costs')}</div></article>")
    found = article.extract_once(parse_page(f"<html><body>{body}</body></html>"))
    assert found is not None
    text = found.content.text_content()
    assert text.count("Point 2.") == 1
    assert "Opening." in text


def test_copies_alike_in_every_name_stay() -> None:
    """The same section twice under the same names is repeated on purpose."""
    body = (f"<article><p>{SENTENCE} Opening.</p><div class='row'>{section('Costs')}</div>"
            f"<div class='row'>{section('Costs')}</div></article>")
    found = article.extract_once(parse_page(f"<html><body>{body}</body></html>"))
    assert found is not None
    assert found.content.text_content().count("Point 2.") == 2


def test_one_paragraph_said_twice_is_no_copy() -> None:
    """A single paragraph repeated (a pull quote) is too few blocks for a section."""
    body = (f"<article><div class='a'><p>{SENTENCE} {SENTENCE}</p></div>"
            f"<div class='b'><p>{SENTENCE} {SENTENCE}</p></div></article>")
    stats = econ.collect_stats(parse_page(f"<html><body>{body}</body></html>").body)
    assert twin_copies(stats, 0, 0) == []


def test_the_copy_holding_the_snippet_stays() -> None:
    body = (f"<div id='one' class='v1'>{section('Costs')}</div>"
            f"<div id='two' class='v2'>{section('Costs')}</div>")
    stats = econ.collect_stats(parse_page(f"<html><body>{body}</body></html>").body)
    one, two = (next(i for i, el in enumerate(stats.elements) if el.get("id") == name)
                for name in ("one", "two"))
    assert twin_copies(stats, 0, two + 2) == [one]
    assert twin_copies(stats, 0, 0) == [two]
