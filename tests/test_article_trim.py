"""Trimming inside the summary-node (article_trim.py): a class the article's own text wears
weighs nothing against its sibling modules."""

from __future__ import annotations

from winnow import article
from winnow.page import parse_page

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. Residents were pleased, "
            "mostly, though some objected to the plan.")


def page_of(body: str):  # type: ignore[no-untyped-def]
    return parse_page(f"<html><body>{body}</body></html>")


def widget(inner: str) -> str:
    """A page builder's module: every module of the article is a `widget-container`."""
    return f"<div class='widget-container'>{inner}</div>"


def test_modules_named_like_the_articles_own_are_not_pruned_for_their_name() -> None:
    """A list module with one sentence per item has too few marks for a negative-weight
    block, but its class is the class of the module holding the article's paragraphs."""
    prose = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(4))
    items = "".join(f"<li>Pricing tier {k} costs less than the last one</li>" for k in range(4))
    body = ("<article class='post'>" + widget(prose) + widget(f"<ul>{items}</ul>")
            + widget(prose.replace("Part", "Closing")) + "</article>")
    found = article.extract_once(page_of(body))
    assert found is not None
    text = found.content.text_content()
    assert "Pricing tier 3" in text and "Closing 3" in text


def test_a_widget_beside_the_article_is_still_pruned() -> None:
    """The same list in a widget of another class than the article's modules goes."""
    prose = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(6))
    items = "".join(f"<li>Pricing tier {k} costs less than the last one</li>" for k in range(4))
    body = ("<article class='post'><div class='entry-body'>" + prose + "</div>"
            f"<div class='widget-sidebar-box'><ul>{items}</ul></div></article>")
    found = article.extract_once(page_of(body))
    assert found is not None
    assert "Pricing tier" not in found.content.text_content()


def test_an_article_rendered_twice_for_two_screen_sizes_is_read_once() -> None:
    body = "".join(f"<h2>Part {k}</h2><p>{SENTENCE} Part {k}.</p>" for k in range(4))
    page = parse_page("<html><body><article><h1>Budget</h1>"
                      f"<div class='variant-a'>{body}</div><div class='variant-b'>{body}</div>"
                      "</article></body></html>")
    found = article.extract_once(page)
    assert found is not None
    assert found.content.text_content().count("Part 3.") == 1


def test_a_paragraph_the_post_says_twice_stays_twice() -> None:
    page = parse_page(f"<html><body><article><h1>Budget</h1><p>{SENTENCE}</p>"
                      f"<p>Residents spoke, and the council listened.</p><p>{SENTENCE}</p>"
                      "</article></body></html>")
    found = article.extract_once(page)
    assert found is not None
    assert found.content.text_content().count("council met") == 2


SIGNUP = ("<div class='box'><p>Get our weekly letter</p><p>The best stories of the week, "
          "sent to you every Friday morning, free of charge.</p><form>"
          "<input type='{kind}' name='{name}'><button>Send</button></form></div>")


def test_a_signup_box_inside_the_article_goes_with_its_pitch() -> None:
    """The field is dropped at parse time; its parent, remembered, marks the box."""
    prose = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(8))
    for kind, name in (("email", "q"), ("text", "EMAIL")):
        box = SIGNUP.format(kind=kind, name=name)
        found = article.extract_once(page_of(f"<article>{prose}{box}{prose}</article>"))
        assert found is not None
        text = found.content.text_content()
        assert "weekly letter" not in text and "Friday morning" not in text
        assert text.count("Part 7.") == 2


def test_a_search_field_leaves_its_box_alone() -> None:
    prose = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(8))
    box = SIGNUP.format(kind="search", name="q")
    found = article.extract_once(page_of(f"<article>{prose}{box}{prose}</article>"))
    assert found is not None
    assert "Friday morning" in found.content.text_content()


def test_a_short_post_holding_its_comment_form_is_kept() -> None:
    """The box that fits under the size cap is the post itself, a third of the text (the
    longer notes beside it hold the snippet): the share cap keeps it."""
    post = ("<div class='post'><p>Our own short post, and the only thing it says: the "
            "meeting moved to the town hall for good.</p>"
            "<p>Email: <input type='text' name='email'></p></div>")
    noise = "".join(f"<p>{SENTENCE} Note {k}.</p>" for k in range(2))
    found = article.extract_once(page_of(f"<div>{post}<div class='more'>{noise}</div></div>"))
    assert found is not None
    assert "only thing it says" in found.content.text_content()


def test_a_set_of_hidden_panels_inside_the_body_is_shown_but_not_a_lone_notice() -> None:
    """Tabs whose panels a script opens (hidden by an attribute or inline style, no control
    naming them) are the section's content: the body shows the set of them. A lone hidden
    block of prose (a notice shown to old browsers) stays out."""
    prose = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(4))
    answers = ("We audit the ledger of every branch once a quarter and send our findings to "
               "the board in writing. Each owner answers them within a month of the report.")
    panels = "".join(f"<div class='tab-body' style='display: none'><p>{answers} Tab {k}.</p>"
                     "</div>" for k in range(3))
    notice = ("<div class='notice' hidden><p>Your browser is old, and some parts of this site "
              "may not work in it. Please update it, or try another browser instead.</p></div>")
    body = f"<article class='post'>{notice}{prose}<div class='tabs'>{panels}</div></article>"
    found = article.extract_once(page_of(body))
    assert found is not None
    text = found.content.text_content()
    assert "Part 3" in text and all(f"Tab {k}." in text for k in range(3))
    assert "browser is old" not in text


def _post(extra: str) -> str:
    prose = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(6))
    return f"<article><h1>Budget</h1><div class='post-inner'>{prose}{extra}</div></article>"


def test_a_bio_under_the_writers_linked_name_goes_with_its_box() -> None:
    """The box's class names nothing; the bio opens with the linked writer's first name."""
    box = ("<div class='sabox-wrap'><div><a href='/author/jane-doe/'>Jane Doe</a></div>"
           "<div><p>Jane is a city hall reporter who has covered budgets, zoning and "
           "elections for the paper since 2015, and she edits its weekly newsletter.</p>"
           "</div></div>")
    found = article.extract_once(page_of(_post(box)))
    assert found is not None
    text = found.content.text_content()
    assert "Part 5." in text and "city hall reporter" not in text


def test_a_paragraph_that_names_a_linked_person_stays() -> None:
    """A paragraph that opens with the name of someone other than the linked writer, or one
    without such a link, is the article's."""
    quote = ("<div class='aside-note'><a href='/author/jane-doe/'>Jane Doe</a>"
             "<p>Mayor Smith said the vote was close, and that the budget would be revised "
             "again in the spring after the hearings.</p></div>")
    found = article.extract_once(page_of(_post(quote)))
    assert found is not None
    assert "revised again in the spring" in found.content.text_content()



def test_a_box_of_other_posts_under_its_label_goes() -> None:
    """Cards with blurbs and dates say more than their links: the label opens the box."""
    cards = "".join(f"<div class='card-{k}'><a href='/p{k}'>Another story {k}</a>"
                    f"<p>A blurb about story {k}, with a date, and a sentence or two.</p>"
                    "<span>May 3, 2024</span></div>" for k in range(3))
    found = article.extract_once(page_of(_post(f"<h3>You might also like</h3>{cards}")))
    assert found is not None
    text = found.content.text_content()
    assert "Part 5." in text and "A blurb about story" not in text


def test_a_related_lead_in_inside_a_paragraph_is_no_label() -> None:
    """"Related reading:" opening a paragraph introduces a link; the post goes on after it."""
    lead_in = ("<p><strong>Related reading:</strong> <a href='/p1'>Another story</a></p>"
               + "".join(f"<p>{SENTENCE} After {k}.</p>" for k in range(3)))
    found = article.extract_once(page_of(_post(lead_in)))
    assert found is not None
    assert "After 2." in found.content.text_content()


def test_a_box_of_other_posts_set_in_the_middle_takes_nothing_after_it() -> None:
    """The post goes on after a box set among its paragraphs: the box goes, the rest stays."""
    box = ("<h3>Related articles</h3><div class='box'><a href='/p1'>Another story</a> "
           "<a href='/p2'>A third story</a></div>"
           + "".join(f"<p>{SENTENCE} After {k}.</p>" for k in range(3)))
    found = article.extract_once(page_of(_post(box)))
    assert found is not None
    text = found.content.text_content()
    assert "After 2." in text and "A third story" not in text


def test_twins_are_looked_for_among_blocks_of_one_size_only() -> None:
    """A block's size is the non-space characters of its whole text (`TreeStats.text_size`):
    a block repeated with other whitespace is still a twin, one of the same size but other
    words is not, and the texts of blocks whose size no other block has are never read."""
    from winnow.article import page_stats
    from winnow.article_trim import MIN_TWIN_CHARS, twin_blocks

    copy = f"<div class='card'><h3>Plans</h3><p>{SENTENCE}</p></div>"
    spaced = copy.replace(", ", ",\n   ")
    other = copy.replace("budget", "badges")  # as many characters, other words
    lone = f"<div class='lone'><p>{SENTENCE} And once more.</p><p>Signed.</p></div>"
    page = page_of(f"<main>{copy}{lone}{other}{spaced}</main>")
    stats = page_stats(page)
    blocks = {stats.elements[i]: i for i in range(len(stats.elements))}
    cards = [i for el, i in blocks.items() if el.get("class") == "card"]
    assert {stats.text_size(i) for i in cards} == {
        len(stats.elements[cards[0]].text_content().replace(" ", "").replace("\n", ""))}
    main = next(i for el, i in blocks.items() if el.tag == "main")
    assert twin_blocks(stats, main, set(), MIN_TWIN_CHARS) == [cards[2]]
    lone_block = next(i for el, i in blocks.items() if el.get("class") == "lone")
    assert lone_block not in stats.texts and lone_block + 1 not in stats.texts
