"""The climb's look past a weak step (page-builder modules) and the teaser stop's own-record
exception (article_climb.py)."""

from __future__ import annotations

from winnow import article
from winnow.page import Page, parse_page

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. Residents were pleased, "
            "mostly, though some objected to the plan.")


def page_of(body: str) -> Page:
    return parse_page(f"<html><body>{body}</body></html>")


def article_text(page: Page) -> str:
    """The text of the article ECON finds on `page`."""
    found = article.extract_once(page)
    assert found is not None
    return str(found.content.text_content())


def module(inner: str, n: int) -> str:
    """One page-builder module: a section, a row, a column, a module and its inner box."""
    return (f"<div class='et_pb_section s{n}'><div class='et_pb_row r{n}'>"
            f"<div class='et_pb_column c{n}'><div class='et_pb_module m{n}'>"
            f"<div class='et_pb_text_inner'>{inner}</div></div></div></div></div>")


def builder_page(heading: str) -> str:
    """An article written in three text modules: the first shares its column with a heading
    module, the others sit in rows of their own (a Divi or Elementor layout)."""
    first = "".join(f"<p>{SENTENCE} One {k}.</p>" for k in range(6))
    second = "".join(f"<p>{SENTENCE} Two {k}.</p>" for k in range(3))
    third = "".join(f"<p>{SENTENCE} Three {k}.</p>" for k in range(3))
    return ("<div class='builder'><div class='section'>"
            f"<div class='row'><div class='column'>{module(first, 1)}"
            f"{module(f'<h2>{heading}</h2>', 2)}</div></div>"
            f"<div class='row'><div class='column'>{module(second, 3)}</div></div>"
            f"<div class='row'><div class='column'>{module(third, 4)}</div></div>"
            "</div></div><div class='foot'><p>Made with care, in a small town.</p></div>")


def test_climb_looks_past_a_heading_module_to_the_rest_of_the_article() -> None:
    """A heading module adds a label longer than a step label and no sentence: ECON's stop
    would keep the first module only; the ancestor above adds many more sentences in
    paragraphs like the article's, so the article is all three modules."""
    page = page_of(builder_page("What the second half of the budget meeting decided, in short"))
    text = article_text(page)
    assert "One 0." in text and "Two 2." in text and "Three 2." in text


def test_climb_does_not_look_past_a_stop_to_a_rail_of_blurbs() -> None:
    """The same weak step with a list of short dated blurbs above it: blurbs are no
    paragraphs of the article, and the climb stops where ECON stops."""
    story = "".join(f"<p>{SENTENCE} {SENTENCE} {SENTENCE} Story {k}.</p>" for k in range(3))
    blurbs = "".join(f"<div class='teaser'><div class='body'>Officers said on Friday, at a "
                     f"briefing, that item {k} was over. More, soon.</div>"
                     f"<div class='date'>December 19, 2025</div></div>" for k in range(16))
    page = page_of(f"<div class='column'><div class='wrap'><div class='post'>{story}</div>"
                   "<div class='meta'>Filed in the local section of our site by staff</div>"
                   f"</div>{blurbs}</div>")
    text = article_text(page)
    assert "Story 2." in text
    assert "item 3" not in text


def test_a_short_record_of_a_list_is_no_teaser_stop() -> None:
    """The snippet is one short link-led entry of a list that is the content (a roundup of
    products): the climb goes on past the list to the article around it."""
    items = "".join(f"<li><a href='/p{k}'>The Sound Product {k} earbuds</a>: a pair that "
                    f"stays put, costs little and sounds fine. Good, too.</li>" for k in range(8))
    page = page_of(f"<main><div class='post'><p>{SENTENCE} Intro.</p><ul>{items}</ul>"
                   f"<p>{SENTENCE} Outro.</p></div></main>")
    text = article_text(page)
    assert "Intro." in text and "Product 7" in text and "Outro." in text


def test_a_widget_named_block_of_the_articles_paragraphs_stays() -> None:
    """Page builders name every module a `widget`, a negative class word: a block of the
    article's own headings and paragraphs with few sentence marks each stays; a widget of
    links and labels without prose still goes."""
    lead = "".join(f"<p>{SENTENCE} Lead {k}.</p>" for k in range(4))
    steps = "".join(f"<h3>Step {k}: create and stick to a budget</h3><p>A plan helps you see "
                    f"where your money goes each month and what step {k} costs you over time, "
                    "and why it matters.</p>" for k in range(3))
    links = "".join(f"<a href='/t{k}'>Topic {k}</a> " for k in range(6))
    page = page_of(f"<div class='post'><div class='lead'>{lead}</div>"
                   f"<div class='elementor-widget-wrap'>{steps}</div>"
                   f"<div class='elementor-widget-wrap'><span>Topics</span> {links}</div></div>")
    text = article_text(page)
    assert "Lead 3." in text and "what step 2 costs" in text
    assert "Topic 3" not in text


def test_the_card_of_a_ranked_list_entry_does_not_end_the_article() -> None:
    """Each entry of a ranked list is a card: a long unpunctuated name line with its
    buttons, then the entry's paragraph. The card adds a label longer than a step label and
    no sentence; it is one of many cards that hold prose, so the climb goes on to the list,
    where a sparse run of short entries would have stopped it."""
    def card(k: int, sentences: int) -> str:
        return (f"<div><div><span>Mover Number {k} of Many Best Movers in Town</span>"
                f"<a href='/site/{k}'>Website</a> <a href='/call/{k}'>Call</a></div>"
                f"<div><p>{' '.join([SENTENCE] * sentences)} Entry {k}.</p></div></div>")
    cards = "".join(card(k, 1) for k in range(8)) + card(8, 4)
    found = article.extract_once(page_of(f"<div class='post-content'>{cards}</div>"))
    assert found is not None
    text = found.content.text_content()
    assert "Entry 0." in text and "Entry 8." in text


def test_the_fields_of_a_prose_entry_stay_with_it() -> None:
    """A list's entries each show a name, an area and a price band above their paragraph:
    lines without punctuation that belong to the entry, as a title cell to its row."""
    def entry(k: int) -> str:
        return (f"<article class='venue'><div class='head'><h3><a href='/v/{k}'>Place {k}</a>"
                f"</h3><p class='where'>Lower East Side {k}</p><p class='price'>Korean</p>"
                f"</div><div class='text'><p>{SENTENCE} Entry {k}.</p></div></article>")
    found = article.extract_once(page_of(f"<div class='venues'>"
                                         f"{''.join(entry(k) for k in range(5))}</div>"))
    assert found is not None
    text = found.content.text_content()
    assert "Lower East Side 3" in text and "Entry 3." in text


def test_a_heading_alone_in_its_wrappers_labels_the_block_after_them() -> None:
    """A page builder's heading module (the heading the only text of two wrappers) above a
    text module with sentences is a subheading of the article, not a label Joint-para
    prunes for its lack of punctuation; one above an empty block still goes."""
    first = "".join(f"<p>{SENTENCE} One {k}.</p>" for k in range(4))
    second = "".join(f"<p>{SENTENCE} Two {k}.</p>" for k in range(4))
    page = page_of("<div class='post'>"
                   f"<div class='text'>{first}</div>"
                   "<div class='heading'><div class='inner'><h2>Where the money goes</h2>"
                   f"</div></div><div class='text'>{second}</div>"
                   "<div class='heading'><div class='inner'><h2>Share this story</h2>"
                   "</div></div><div class='buttons'><a href='/s'>Mail</a></div></div>")
    text = article_text(page)
    assert "Where the money goes" in text and "Two 3." in text
    assert "Share this story" not in text


def test_a_heading_labels_the_paragraphs_past_a_figure_without_text() -> None:
    """A subheading, then a photo without a caption, then the section's paragraphs: the
    heading labels them (a block with no text between is no end of the section)."""
    first = "".join(f"<p>{SENTENCE} One {k}.</p>" for k in range(4))
    second = "".join(f"<p>{SENTENCE} Two {k}.</p>" for k in range(4))
    page = page_of(f"<div class='post'>{first}<figure><img src='/hall.png'></figure>"
                   "<h2>Where the money goes</h2>"
                   "<figure><img src='/budget.png'></figure>"
                   f"<div class='section'>{second}</div></div>")
    text = article_text(page)
    assert "Where the money goes" in text and "Two 3." in text


def test_wrapped_lines_of_the_text_stay_and_a_lone_label_goes() -> None:
    """Lines each set in a span alone in its block (a list written as lines), a bold line
    over a paragraph and a long line without its full stop are the article's, though each
    is a text-para without punctuation; a lone short wrapped line is a label and goes."""
    first = "".join(f"<p>{SENTENCE} One {k}.</p>" for k in range(4))
    items = "".join(f"<div class='line'><span>{k} cups of white beans</span></div>"
                    for k in range(2, 6))
    long_line = ("Of course the council will present the new budget for the coming year at "
                 "the meeting in the town hall on the first day of September")
    page = page_of("<div class='post'>"
                   f"{first}<div><span>Subscribe to our letter</span></div>"
                   f"<p>{SENTENCE} Two.</p>{items}"
                   f"<div><strong>Where the money goes</strong></div><p>{SENTENCE} Three.</p>"
                   f"<div><span>{long_line}</span></div><p>{SENTENCE} Four.</p></div>")
    text = article_text(page)
    assert "4 cups of white beans" in text and "Where the money goes" in text
    assert long_line in text and "Four." in text
    assert "Subscribe to our letter" not in text
