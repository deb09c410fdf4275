"""What counts for nothing before counting (article_candidates.py): a heading's class names
the heading, not a region of the page; a list of records holding most of the page's
sentences is its text, not a rail."""

from __future__ import annotations

from typing import Any

import winnow
from winnow import article, article_candidates, econ
from winnow.article_candidates import is_noise_hint
from winnow.mainregion import main_region
from winnow.page import is_hidden, parse_page

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


def _records(count: int) -> str:
    """Link-led records, each a linked name and a short blurb of one sentence."""
    return "".join(f'<div class="venue"><h3><a href="/v/{k}">Place {k}</a></h3>'
                   f"<p>A small room, warm and loud, serving dumplings.</p></div>"
                   for k in range(count))


def test_records_holding_most_of_the_pages_sentences_are_a_listicle() -> None:
    """Ten places with a blurb each under a one-line lead are the page's text; the same
    three records beside a story of many sentences are a rail of teasers."""
    listicle = econ.collect_stats(parse_page(
        f"<html><body><p>Where to eat now.</p><div>{_records(10)}</div></body></html>").body)
    assert article.teaser_lists(listicle) == []
    story = "".join(f"<p>{SENTENCE}</p>" for _ in range(6))
    rail = econ.collect_stats(parse_page(
        f"<html><body><div>{story}</div><div>{_records(3)}</div></body></html>").body)
    assert len(article.teaser_lists(rail)) == 3


def test_a_block_of_cards_among_the_posts_paragraphs_is_no_rail() -> None:
    """A list plugin's cards (link-led records in a wrapper or two, not a <ul>) standing
    among a post's paragraphs are the projects the post presents; the same cards after the
    post, beside its container, are a rail."""
    story = "".join(f"<p>{SENTENCE}</p>" for _ in range(6))
    cards = (f'<section class="card"><h2>Our picks</h2><div class="grid">{_records(4)}</div>'
             "</section>")
    inside = econ.collect_stats(parse_page(
        f"<html><body><div>{story}{cards}<p>{SENTENCE}</p></div></body></html>").body)
    assert article.teaser_lists(inside) == []
    beside = econ.collect_stats(parse_page(
        f"<html><body><div>{story}</div>{cards}</body></html>").body)
    assert len(article.teaser_lists(beside)) == 4


def test_a_noise_named_body_of_paragraphs_under_the_title_is_the_article() -> None:
    """A newsletter issue's body sits in a block its class names for the newsletter, beside
    the title's header, and holds most of the page: its own paragraphs make it the body,
    where a block holding half the page's sentences in boxes of its own would not be."""
    issue = "".join(f"<p>{SENTENCE} Issue point {k}.</p>" for k in range(4))
    notes = "".join(f"<div class='note'><p>{SENTENCE} Note {k}.</p></div>" for k in range(3))
    page = parse_page("<html><body><main><div class='hero'><h1>Fitness Protocol</h1></div>"
                      f"<div class='rich-text-newsletter'>{issue}</div>{notes}</main>"
                      "</body></html>")
    hints = article.PageHints(title_heading=page.body.find(".//h1"))
    found = article.extract_once(page, hints)  # the first pass, with class-name hints
    assert found is not None
    assert "Issue point 3." in found.content.text_content()


def test_a_custom_element_named_for_furniture_is_noise() -> None:
    page = parse_page("<html><body><docs-content-footer><p>Last updated today.</p>"
                      "</docs-content-footer><site-toc>On this page</site-toc>"
                      "<code-footnote-box>Note</code-footnote-box></body></html>")
    footer, toc, box = page.body
    assert is_noise_hint(footer)  # the last piece names the component, not `content`
    assert is_noise_hint(toc)
    assert not is_noise_hint(box)


def test_a_docs_region_leaves_out_a_custom_footer() -> None:
    from winnow.mainregion import main_region

    page = parse_page(f"<html><body><main><h1>Guide</h1><p>{SENTENCE}</p>"
                      "<docs-content-footer><p>Except as otherwise noted, licensed.</p>"
                      "</docs-content-footer></main></body></html>")
    region = main_region(page, page.body[0])
    text = region.content.text_content()
    assert "council" in text and "otherwise noted" not in text


def test_a_consent_dialog_is_noise() -> None:
    page = parse_page("<html><body><div id='privacy-consent-sdk'><p>We store cookies.</p>"
                      "</div></body></html>")
    assert is_noise_hint(page.body[0])



def test_an_articles_folded_panels_are_in_its_body() -> None:
    """An accordion's answers are the article's until clicked: one hidden by the collapse
    around its panel (the panel a button names by id), one a labelled region whose button
    names no id on the page. A hidden cart, a dialog a button opens and a hidden modal
    around a tab panel stay out."""
    story = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(4))
    html = ("<html><body><article><h1>The budget, explained</h1>" + story +
            "<h2>FAQ</h2>"
            "<div><h3><button aria-expanded='false' aria-controls='a1'>Who pays?</button></h3>"
            "<div class='collapse' style='display:none;height:0'><div role='region' id='a1'>"
            "<p>Every household pays a share, weighted by income.</p></div></div></div>"
            "<div><button aria-expanded='false' aria-controls='a2'>When?</button>"
            "<div role='region' aria-labelledby='b2' aria-hidden='true'>"
            "<p>The levy starts next spring, after the vote.</p></div></div>"
            "<div class='cart' hidden><p>Your cart is empty, so fill it today.</p></div>"
            "<button aria-expanded='false' aria-controls='signup'>Sign up</button>"
            "<div id='signup' role='dialog' hidden><p>Get our newsletter, free.</p></div>"
            "<div class='reader-modal' style='display:none'><div role='tabpanel'>"
            "<p>Sign in to keep reading, it is free.</p></div></div>"
            "</article></body></html>")
    found = winnow.extract(html).article
    assert found is not None
    text = found.text
    assert "weighted by income" in text and "after the vote" in text
    assert "cart is empty" not in text and "newsletter" not in text
    assert "keep reading" not in text


def test_the_pages_counts_know_its_hidden_elements_as_is_hidden_does(monkeypatch: Any) -> None:
    """ECON's counts of a page carry the elements `is_hidden` holds for (their own attribute
    or style hides them; a child of a hidden element is not one), found in the reading of the
    body, and `hidden_prose` asks them instead of every element's attributes."""
    answer = "The levy starts next spring after the final vote of the council in the hall. " * 4
    page = parse_page(f"<html><body><article><p>{SENTENCE}</p>"
                      f"<div style='display: none'><p>{answer}</p></div>"
                      f"<div hidden><p>{answer}</p></div><span aria-hidden='true'>x</span>"
                      "<img aria-hidden='true' src='a.png'><div style='color: red'>Red</div>"
                      "<div data-wn-hidden='1'>Gone</div></article></body></html>")
    stats = article.page_stats(page)
    assert stats.hidden is not None
    assert stats.hidden == {i for i, el in enumerate(stats.elements) if is_hidden(el)}
    assert len(stats.hidden) == 4

    def unread(el: Any) -> bool:
        raise AssertionError("read the attributes of an element")

    monkeypatch.setattr(article_candidates, "is_hidden", unread)
    panels = article_candidates.hidden_prose(stats, 0)
    assert {el.get("style") for el in panels} == {"display: none", None}


def test_the_passes_and_the_main_region_ask_each_element_once(monkeypatch: Any) -> None:
    """The retry ladder's passes (`noise_roots`) and the main region's furniture read one
    memo of the page's noise hints: each element is judged once with the default flags."""
    asked: list[object] = []
    judge = article_candidates._tagged_noise_hint

    def counted(el: Any, tag: str, class_hints: bool, shown: bool) -> bool:
        asked.append((el, class_hints, shown))
        return judge(el, tag, class_hints, shown)

    monkeypatch.setattr(article_candidates, "_tagged_noise_hint", counted)
    page = parse_page(f"<html><body><nav class='menu'>Home</nav><article><p>{SENTENCE}</p>"
                      f"<div class='share-box'>Share</div><p>{SENTENCE}</p></article>"
                      "<footer>About</footer></body></html>")
    for _ in range(2):
        article_candidates.noise_roots(article.page_stats(page))
    main_region(page, page.body, [])
    assert asked and len(asked) == len(set(asked))


def test_a_pass_without_class_hints_reads_only_the_elements_hinted_with_them(
        monkeypatch: Any) -> None:
    """Without class hints an element is hinted only where it is with them: once the first
    pass judged the page, a retry pass judges again only its hinted elements, and finds the
    roots a pass without that memo finds."""
    html = (f"<html><body><nav class='menu'>Home</nav><div class='comments-area'><p>{SENTENCE}"
            f"</p></div><article><p>{SENTENCE}</p><div class='share-box'>Share, like.</div>"
            f"<p>{SENTENCE}</p></article><footer>About</footer></body></html>")
    fresh = article.page_stats(parse_page(html))
    expected = article_candidates.noise_roots(fresh, class_hints=False)
    page = parse_page(html)
    first = article_candidates.noise_roots(article.page_stats(page))
    asked: list[object] = []
    judge = article_candidates._tagged_noise_hint

    def counted(el: Any, tag: str, class_hints: bool, shown: bool) -> bool:
        asked.append(el)
        return judge(el, tag, class_hints, shown)

    monkeypatch.setattr(article_candidates, "_tagged_noise_hint", counted)
    stats = article.page_stats(page)
    assert article_candidates.noise_roots(stats, class_hints=False) == expected
    assert 0 < len(asked) <= len(first) < len(stats.elements)


def test_the_passes_and_the_main_region_read_each_elements_text_once(monkeypatch: Any) -> None:
    """The trimming rules of every pass (labels, notices, twins) and the main region's twins
    read one memo of the page's element texts (`TreeStats.texts`)."""
    read: list[Any] = []

    def collapsed(text: str | None) -> str:
        read.append(text)
        return " ".join(text.split()) if text else ""

    monkeypatch.setattr(article_candidates, "normalize_space", collapsed)
    twin = f"<div><p>{SENTENCE}</p><p>{SENTENCE} Again.</p></div>"
    page = parse_page(f"<html><body><article><p>{SENTENCE}</p><p>Advertisement</p>{twin}"
                      f"<p>{SENTENCE}</p>{twin}<h3>Related posts</h3><p>{SENTENCE}</p>"
                      "</article></body></html>")
    for rules in article.LADDER:
        article.choose_body(page, article.PageHints(), rules)
    main_region(page, page.body, [], drop_twins=True)
    texts = article.page_stats(page).texts
    assert read and len(read) == len(texts)


def test_the_passes_of_the_ladder_find_the_teaser_lists_once(monkeypatch: Any) -> None:
    """Every pass of the retry ladder excludes the same teaser lists, found once a page."""
    found: list[object] = []
    teasers = article.teaser_lists

    def counted(stats: econ.TreeStats, by_record: bool = False) -> list[int]:
        found.append(stats)
        return teasers(stats, by_record)

    monkeypatch.setattr(article, "teaser_lists", counted)
    rail = "".join(f"<li class='story'><a href='/s/{k}'>Story {k}</a></li>" for k in range(4))
    page = parse_page(f"<html><body><article><p>{SENTENCE}</p><p>{SENTENCE}</p></article>"
                      f"<ul>{rail}</ul></body></html>")
    chosen = [article.choose_body(page, article.PageHints(), rules) for rules in article.LADDER]
    assert all(chosen) and len(found) == 1
    assert len(article.page_teasers(page, article.page_stats(page))) == 4


def _blog_cards() -> str:
    """Post cards whose classes name each post (WordPress's `post_class`: id, categories)."""
    cats = ("news", "research", "alumni")
    return "".join(
        f"<article class='card post-{k} category-{cats[k]} hentry'>"
        f"<h3><a href='/post-{k}'>Another story number {k}</a></h3>"
        f"<p>A blurb about story {k}, which tells what it is about, who is in it, and why "
        f"the reader should care about it now.</p></article>" for k in range(3))


def _cards_page() -> Any:
    prose = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(6))
    return parse_page(f"<html><body><article><h1>Budget</h1><div class='body'>{prose}</div>"
                      f"<div class='grid'>{_blog_cards()}</div></article></body></html>")


def test_blog_cards_naming_their_own_post_are_one_teaser_list_on_an_article() -> None:
    found = article.extract_once(_cards_page(), article.PageHints(cards_by_record=True))
    assert found is not None
    text = found.content.text_content()
    assert "Part 5." in text and "A blurb about story" not in text


def test_cards_naming_their_own_record_are_split_by_class_off_an_article() -> None:
    """A listing's records are its content: they keep the grouping by whole class string."""
    stats = article.page_stats(_cards_page())
    assert article_candidates.teaser_lists(stats) == []
    assert len(article_candidates.teaser_lists(stats, by_record=True)) == 3
