"""The lead (deck, highlights) a template cluster keeps apart from the article (winnow.leads)."""

from __future__ import annotations

import hashlib

import pytest
from winnow import extract, leads
from winnow.chunks import page_chunks
from winnow.leads import LeadVotes
from winnow.learning import read_page
from winnow.page import parse_page, stamp_ids
from winnow.sitemodel import SiteModel


def _word(n: int, k: int) -> str:
    """A word of its own for page n's k-th word, in letters (Webstemmer reads digits alike)."""
    digest = hashlib.blake2b(repr((n, k)).encode(), digest_size=6).digest()
    return "".join("abcdefghijklmnopqrstuvwxyz"[b % 26] for b in digest)


def _sentence(n: int, k: int) -> str:
    return " ".join(_word(n, k * 12 + i) for i in range(12)) + "."


def _page(n: int, deck: str | None = None, promo: str | None = None) -> str:
    """A news page: nav, a promo box (the story's deck by default) before the page's main
    column, the headline and the story's paragraphs in it, and a footer."""
    if deck is None:
        deck = " ".join(_word(n, k * 5) for k in range(12)) + " sums the story up."
    body = "".join(f"<p>{_sentence(n, k)} {_sentence(n, k + 20)}</p>" for k in range(8))
    box = promo if promo is not None else f"<p class='teaser'>{deck}</p>"
    return (f"<html><head><title>Headline number {n}</title></head><body>"
            f"<div id='nav'><a href='/'>Home</a> <a href='/news'>News</a></div>"
            f"<div id='promo'><p class='byline'>By Someone</p>{box}</div>"
            f"<div id='main'><h1>Headline number {n}</h1><div class='text'>{body}</div></div>"
            f"<div id='footer'>About us. Contact.</div></body></html>")


def _learn(model: SiteModel, pages: list[tuple[int, str]]) -> None:
    for n, html in pages:
        _, seen = read_page(model, html, f"https://example.com/{n}")
        model.add(seen)


def test_a_cluster_learns_its_pages_deck_and_puts_it_before_the_article() -> None:
    model = SiteModel("example.com")
    _learn(model, [(n, _page(n)) for n in range(4)])
    html = _page(9)
    deck = " ".join(_word(9, k * 5) for k in range(12)) + " sums the story up."
    single = extract(html, "https://example.com/9")
    assert single.article is not None and deck not in single.article.text
    learned, seen = read_page(model, html, "https://example.com/9")
    assert learned.article is not None
    assert learned.article.text.startswith(deck + "\n\n" + _sentence(9, 0))
    assert "By Someone" not in learned.article.text and "Headline" not in learned.article.text
    assert seen.leads == {"div:id=promo/p:class=teaser": True}
    assert next(iter(model.clusters.values())).leads.paths()


def test_text_at_the_lead_path_after_the_article_stays_out() -> None:
    model = SiteModel("example.com")
    _learn(model, [(n, _page(n)) for n in range(4)])
    recap = " ".join(_word(9, k * 7 + 1) for k in range(12)) + " recaps the story."
    html = _page(9).replace("<div id='footer'>",
                            f"<div id='promo'><p class='teaser'>{recap}</p></div>"
                            "<div id='footer'>")
    learned, _ = read_page(model, html, "https://example.com/9")
    assert learned.article is not None and learned.article.text.startswith(
        " ".join(_word(9, k * 5) for k in range(12)))
    assert "recaps" not in learned.article.text


def test_text_that_does_not_sum_up_its_article_is_no_lead() -> None:
    model = SiteModel("example.com")
    other = "Another story entirely about gardens, weather, markets, trains and football."
    _learn(model, [(n, _page(n, deck=other)) for n in range(4)])
    assert not any(m.leads.paths() for m in model.clusters.values())
    learned, _ = read_page(model, _page(9, deck=other), "https://example.com/9")
    assert learned.article is not None and "gardens" not in learned.article.text


def test_a_page_whose_lead_slot_says_something_else_keeps_its_own_text() -> None:
    model = SiteModel("example.com")
    _learn(model, [(n, _page(n)) for n in range(4)])
    promo = ("<p class='teaser'>Subscribe today for daily news about gardens, weather and "
             "markets.</p>")
    learned, seen = read_page(model, _page(9, promo=promo), "https://example.com/9")
    assert learned.article is not None and "Subscribe" not in learned.article.text
    assert seen.leads == {"div:id=promo/p:class=teaser": False}


def test_votes_need_enough_agreeing_pages() -> None:
    votes = LeadVotes()
    votes.add({"div/p:class=deck": True, "div/ul/li": False})
    assert votes.paths() == {"div/p:class=deck"}  # one page, and the page read, agree
    votes.add({"div/p:class=deck": False})
    assert not votes.paths()  # 1 of 2 pages: under CONSENSUS_SHARE
    for _ in range(3):
        votes.add({"div/p:class=deck": True})
    assert votes.paths() == {"div/p:class=deck"}  # 4 of 5 pages
    assert LeadVotes.from_json(votes.to_json()) == votes
    assert LeadVotes.from_json(None) == LeadVotes()


def test_a_path_few_pages_fill_is_no_lead_slot() -> None:
    votes = LeadVotes()
    votes.add({"div/p:class=caption": True})
    for _ in range(2):
        votes.add({})
    assert votes.paths() == set()  # a sentence there on 1 of 3 voting pages: no slot
    votes.add({"div/p:class=caption": True})
    assert votes.paths() == {"div/p:class=caption"}  # 2 of 4: MIN_SLOT_SHARE
    old = {"counts": [["div/p:class=caption", 2, 2]]}  # saved before pages were counted
    assert LeadVotes.from_json(old).paths() == {"div/p:class=caption"}


def test_unreadable_lead_votes_raise_the_error_a_site_model_load_catches() -> None:
    with pytest.raises(ValueError):  # learning.Learner._load relearns on it
        LeadVotes.from_json({"counts": [], "pages": "many"})
    with pytest.raises(TypeError):
        LeadVotes.from_json({"counts": [], "pages": [3]})


def test_a_slot_under_two_wrappers_is_one_place() -> None:
    votes = LeadVotes()
    wrapped = "div:id=main/div:class=box/div:id=side/ul/li"
    bare = "div:id=main/div:id=side/ul/li"
    assert leads.place(wrapped) == leads.place(bare) == "div:id=side/ul/li"
    for n in range(10):
        votes.add({wrapped if n % 3 else bare: True})
    assert votes.paths() == {wrapped, bare}  # 3 and 7 of 10 pages fill one place


def test_one_learned_page_shows_the_deck_to_the_next() -> None:
    model = SiteModel("example.com")
    _learn(model, [(n, _page(n)) for n in range(2)])
    html = _page(9)
    deck = " ".join(_word(9, k * 5) for k in range(12)) + " sums the story up."
    learned, _ = read_page(model, html, "https://example.com/9")
    assert learned.article is not None and learned.article.text.startswith(deck)


def test_the_heads_title_is_no_lead() -> None:
    """A document title worded apart from the headline sums up the article as a deck does,
    but the page does not show it: only the body's text can be a lead."""
    named = " ".join(_word(9, k * 3) for k in range(10))
    page = parse_page(_page(9).replace("<title>Headline number 9</title>",
                                       f"<title>{named}</title>"))
    stamp_ids(page)
    root = page.root.xpath("//div[@class='text']")[0]
    found = leads.before(page_chunks(page), root, "Headline number 9")
    assert "title" not in found and "div:id=promo/p:class=teaser" in found


def test_words_titles_and_sentences() -> None:
    assert leads.words("The cat sat, then LEAPT away") == {"then", "leapt", "away"}
    title = leads.words("Storm hits the coast overnight")
    assert leads.is_title("Storm hits coast overnight", title)
    assert not leads.is_title("Residents of the coast were told to leave by noon", title)
