"""The lead before the body: prose between the title's heading and the summary-node."""

from __future__ import annotations

import pytest
from winnow import article
from winnow.page import parse_page

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. Residents were pleased, "
            "mostly, though some objected.")
INTRO = ("Small towns rarely get a say in budgets, they said. This year, for once, the town "
         "hall asked its residents first.")


def _found(intro: str, dek: str = "") -> str:
    body = "".join(f"<p>{SENTENCE} Paragraph {k}.</p>" for k in range(8))
    page = parse_page("<html><body><div class='nav'><a href='/'>Home</a></div><article>"
                      "<div class='hero'><h1>The budget vote</h1><div class='meta'>By Ann Lee</div>"
                      f"{dek}</div>{intro}<div class='share'><a href='/s'>Share</a></div>"
                      f"<div class='content'>{body}</div></article></body></html>")
    hints = article.PageHints(title_heading=page.body.find(".//h1"))
    found = article.extract_article(page, hints)
    assert found is not None
    return found.content.text_content()


def test_an_intro_under_the_title_joins_the_body() -> None:
    """The intro sits in a block of its own between the title's hero block and the body:
    it is the article's opening; the byline and the share bar stay out."""
    text = _found(f"<div class='intro'><p>{INTRO}</p></div>")
    assert "for once" in text and "Paragraph 7" in text
    assert "Share" not in text and "The budget vote" not in text


@pytest.mark.parametrize("box", [
    f"<div class='highlights'><h2>Highlights</h2><p>{INTRO}</p></div>",
    f"<div class='synopsis'><div>Synopsis</div><p>{INTRO}</p></div>",
    "<p class='dek'>Small towns rarely get a say in budgets, for once they did.</p>",
])
def test_a_box_or_a_one_sentence_dek_stays_out(box: str) -> None:
    """A box with a heading or a label of its own, or a standfirst of one sentence, is no
    lead."""
    text = _found(box)
    assert "for once" not in text and "Paragraph 7" in text


def test_a_dek_in_the_title_block_stays_out() -> None:
    """Sentences in the heading's own block are its standfirst, shown with the title."""
    text = _found("", f"<p class='dek'>{INTRO}</p>")
    assert "for once" not in text and "Paragraph 7" in text
