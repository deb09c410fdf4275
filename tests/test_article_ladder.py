"""The retry ladder and the teaser-record stop (article*.py)."""

from __future__ import annotations

from winnow import article
from winnow.page import parse_page

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. Residents were pleased, "
            "mostly, though some objected.")


def page_of(body: str):  # type: ignore[no-untyped-def]
    return parse_page(f"<html><body>{body}</body></html>")


def test_retry_without_class_hints_recovers_a_body_every_paragraph_of_which_is_hinted() -> None:
    """A class word on every paragraph that matches a noise word (here `byline`, a misnamed
    paywall class) leaves a stray line; the retry without class hints finds the story."""
    story = "".join(f"<p class='byline-paywalled'>{SENTENCE} Paragraph {k}.</p>"
                    for k in range(8))
    page = page_of(f"<div><p>Home, then news.</p></div><div class='story'>{story}</div>")
    first = article.extract_once(page, None, article.LADDER[0])
    assert first is None or first.prose_chars < article.RETRY_PROSE_CHARS
    found = article.extract_article(page)
    assert found is not None and found.attempts >= 2
    assert found.rules == article.Rules(class_hints=False)
    assert "Paragraph 7" in found.content.text_content()
    single = article.extract_article(page, retry=None)
    assert single is None or "Paragraph 7" not in single.content.text_content()


def test_a_short_story_is_not_replaced_by_a_longer_gallery() -> None:
    """A retry must find more of the article, not other text: the gallery's captions are
    hinted noise, and the story, short as it is, has enough sentences not to retry."""
    slides = "".join(f"<li><img src='{n}.jpg'><p>A runner, left, competes in heat {n}, on "
                     "Wednesday. (AP Photo, London.)</p></li>" for n in range(12))
    page = page_of(f"<ul class='hp-slideshow'>{slides}</ul>"
                   f"<div><p>{SENTENCE} {SENTENCE}</p><p>{SENTENCE}</p></div>")
    found = article.extract_article(page)
    assert found is not None and found.attempts == 1
    assert "runner" not in found.content.text_content()


def test_accept_retry_is_strict() -> None:
    page = page_of(f"<div><p>{SENTENCE}</p></div>")
    found = article.extract_once(page)
    assert found is not None
    assert not article.accept_retry(found, found)  # no longer
    assert not article.accept_retry(found, None)
    assert article.accept_retry(None, found) is (found.prose_chars
                                                 >= article.MIN_RETRY_PROSE_CHARS)


def test_climb_stops_at_a_teaser_record_carrying_full_text() -> None:
    """A "most popular" list whose first item carries its story's full text: the item is
    the article, not the list of teasers around it."""
    full = "".join(f"<p>{SENTENCE} Part {k}.</p>" for k in range(6))
    teasers = "".join(f"<li class='pop'><a href='/s{k}'>Story {k}, in brief</a> "
                      f"<span>A line about it.</span></li>" for k in range(5))
    page = page_of(f"<ul class='list'><li class='pop'><a href='/s'>The story</a>{full}</li>"
                   f"{teasers}</ul>")
    found = article.extract_article(page)
    assert found is not None
    text = found.content.text_content()
    assert "Part 5" in text and "Story 3, in brief" not in text


def _counting_passes(monkeypatch):  # type: ignore[no-untyped-def]
    """Count the passes `extract_article` runs (every rung is asked for: retry says yes)."""
    ran: list[article.Rules] = []
    once = article.extract_once

    def counted(page, hints=None, rules=article.LADDER[0], rival=None):  # type: ignore[no-untyped-def]
        ran.append(rules)
        return once(page, hints, rules, rival)
    monkeypatch.setattr(article, "extract_once", counted)
    return ran


def test_the_last_rung_reuses_a_pass_that_never_looked_near_the_heading(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Without the title's heading the short-page rule decides nothing: the ladder's last
    rung, which drops only that rule, would find the body the rung before it found."""
    ran = _counting_passes(monkeypatch)
    page = page_of(f"<div><p>{SENTENCE}</p></div>")
    found = article.extract_article(page, retry=lambda _: True)
    assert found is not None and found.attempts == 3 and not found.near_heading
    assert ran == list(article.LADDER[:2])


def test_the_last_rung_runs_when_the_heading_chose_the_snippet(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """On a short page the snippet is looked for near the title's heading; the last rung,
    without that rule, may find another body and runs."""
    ran = _counting_passes(monkeypatch)
    page = page_of("<div class='about'><p>About me, a longer note on this blog, and on its "
                   "author. It has commas, and periods.</p></div>"
                   "<article><h1>The title</h1><p>A short story, here.</p></article>")
    hints = article.PageHints(title_heading=page.body.find(".//h1"))
    first = article.extract_once(page, hints, article.LADDER[1])
    assert first is not None and first.near_heading
    ran.clear()
    article.extract_article(page, hints, retry=lambda _: True)
    assert ran == list(article.LADDER)


def test_a_retry_that_cannot_replace_its_rival_stops_after_the_climb(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A retry pass must find twice the prose of the body it would replace: when the page's
    prose left after its exclusions, or its snippet, is too short for that, no trimming
    rule runs and the pass answers None, as `accept_retry` would have refused its body."""
    story = "".join(f"<p>{SENTENCE} Paragraph {k}.</p>" for k in range(8))
    page = page_of(f"<div class='story'>{story}</div><div class='more'><p>{SENTENCE}</p></div>")
    found = article.extract_once(page)
    assert found is not None
    full = article.extract_once(page, None, article.LADDER[1])
    assert not article.accept_retry(found, full)
    trimmed: list[int] = []
    drops = article._drops

    def counted(*args):  # type: ignore[no-untyped-def]
        trimmed.append(1)
        return drops(*args)
    monkeypatch.setattr(article, "_drops", counted)
    assert article.extract_once(page, None, article.LADDER[1], rival=found) is None
    assert not trimmed
    short = article.extract_once(page_of(f"<div><p>{SENTENCE}</p></div>"))
    assert short is not None
    assert article.extract_once(page, None, article.LADDER[1], rival=short) is not None
    assert trimmed
