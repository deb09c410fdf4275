"""Class and id names as tokens (article_names.py), and the wrapper rule built on them."""

from __future__ import annotations

import pytest
from winnow import article, article_names, econ
from winnow.page import parse_page


@pytest.mark.parametrize(("names", "tokens"), [
    ("l-sidebar-fixed", ("l", "sidebar", "fixed")),
    ("relatedArticles", ("related", "articles", "relatedarticles")),
    ("sidebar2", ("sidebar",)),
    ("jXK9ad-SmKAyb", ("jxkad", "ayb", "smkayb")),  # a hash's "ad" is no token
    ("ai2html-graphic", ("html", "aihtml", "graphic")),
    ("text-secondary main", ("main",)),  # a utility class says nothing of a role
    ("lg:first:has-[>[data-slot=banner]]:pt-0 hero", ("hero",)),  # a variant: styling
    ("md:hidden sidebar", ("sidebar",)),
])
def test_name_tokens(names: str, tokens: tuple[str, ...]) -> None:
    assert tuple(t for t in article_names.name_tokens(names) if t) == tokens


@pytest.mark.parametrize("names", [
    "pageRow",  # not "pager"
    "subscriber-only",  # not "subscribe"
    "bloginfo",  # not "login"
    "football",  # not "foot"
    "elementor-element-4a79d52",  # a hash's letters
    "main-header",  # a content word of its own overrules
    "has-sidebar",  # a layout modifier
    "isolate overflow-x-scroll",  # a CSS property set to a value: a scrolling table box
    "leading-extra-tight",  # a line height, not an "extra"
    "my-8 scroll-mt-20",  # a scroll margin along an axis, on a section
])
def test_names_that_do_not_say_noise(names: str) -> None:
    assert not article_names.says_noise(names)


@pytest.mark.parametrize("names", [
    "l-sidebar-fixed",
    "jp-relatedposts",  # "posts" is part of the noise name
    "contentsFooter",  # "contents" is part of the noise name
    "recentcomments",
    "fbpopup",
    "submenu",
    "sr-only",
    "ad-slot",
    "sidebar2",
    "scroll-to-top",  # no axis code: a scroll name
    "et_pb_social_media_follow",  # a short namespace, not a property, before "pb"
])
def test_names_that_say_noise(names: str) -> None:
    assert article_names.says_noise(names)


def test_comment_words_are_whole_tokens() -> None:
    assert article_names.says_comments("tone-comment")
    assert article_names.says_comments("commentlist")
    assert not article_names.says_comments("commentator-photo")


SENTENCE = ("The council met on Tuesday, and it voted on the new budget. Residents were pleased, "
            "mostly, though some objected.")


def test_a_container_holding_most_prose_is_spared_whatever_its_class() -> None:
    """`l-sidebar-fixed` names the layout of the page, and it holds the whole story; the
    title's heading stands outside it."""
    body = "".join(f"<p>{SENTENCE}</p>" for _ in range(6))
    html = (f"<html><body><h1>Budget passes</h1><div class='l-sidebar-fixed'>{body}</div>"
            "<div class='footer'><p>About us, contact.</p></div></body></html>")
    page = parse_page(html)
    stats = econ.collect_stats(page.body)
    heading = next(i for i, el in enumerate(stats.elements) if el.tag == "h1")
    wrapper = next(i for i, el in enumerate(stats.elements) if el.get("class") == "l-sidebar-fixed")
    assert article.is_noise_hint(stats.elements[wrapper])
    assert wrapper not in article.noise_roots(stats, heading)
    found = article.extract_article(page, article.PageHints(page.body.find(".//h1")))
    assert found is not None and "Residents were pleased" in found.content.text_content()


def test_a_comment_section_holding_most_prose_is_not_spared() -> None:
    comments = "".join(f"<p>{SENTENCE} I agree, number {k}.</p>" for k in range(8))
    html = (f"<html><body><h1>Budget passes</h1><p>{SENTENCE}</p>"
            f"<div id='comments'>{comments}</div></body></html>")
    stats = econ.collect_stats(parse_page(html).body)
    box = next(i for i, el in enumerate(stats.elements) if el.get("id") == "comments")
    assert box in article.noise_roots(stats, None)
