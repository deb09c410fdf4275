"""What counts for nothing before counting (article_candidates.py): a heading's class names
the heading, not a region of the page."""

from __future__ import annotations

from winnow import article
from winnow.article_candidates import is_noise_hint
from winnow.page import parse_page

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. Residents were pleased, "
            "mostly, though some objected to the plan.")


def test_a_heading_named_header_is_not_noise_but_a_box_named_header_is() -> None:
    page = parse_page("<html><body><h2 class='et_pb_module_header'>Budget</h2>"
                      "<div class='site-header-box'>Menu</div>"
                      "<h3 class='comments-title'>3 comments</h3></body></html>")
    h2, box, h3 = page.body
    assert not is_noise_hint(h2)
    assert is_noise_hint(box)
    assert is_noise_hint(h3)  # a comment name still counts


def test_subheadings_named_header_stay_in_the_article() -> None:
    parts = "".join(f"<h2 class='module_header'>Section {k}</h2><p>{SENTENCE} Part {k}.</p>"
                    for k in range(4))
    found = article.extract_once(parse_page(f"<html><body><article>{parts}</article>"
                                            "</body></html>"))
    assert found is not None
    assert "Section 3" in found.content.text_content()
