"""Page-type routing: article or other, and MiBAT's record region: thread, comments or none."""

from __future__ import annotations

import pytest
from winnow import extract, extractor
from winnow.evaluation import content_text
from winnow.page import parse_page, schema_type
from winnow.pagetype import PageType
from winnow.result import Extraction
from winnow.router import (
    MIN_CONTENT_CHARS,
    MIN_POST_CHARS,
    MIN_STORY_CHARS,
    NO_THREAD_PROBABILITY,
    declares_discussion,
    is_front_page,
    readerless_records,
    records_are_items,
    route,
    thread_role,
)


def test_posts_holding_most_of_the_text_are_a_thread() -> None:
    assert thread_role([400, 300, 200], 3, 100, True, False) == "thread"


def test_one_record_is_a_thread_only_with_a_learned_template() -> None:
    assert thread_role([400], 1, 0, False, False) == "none"
    assert thread_role([400], 1, 0, False, False, learned=True) == "thread"


def test_unsigned_records_are_not_posts() -> None:
    assert thread_role([400, 300, 200], 1, 0, False, True) == "none"


def test_records_without_text_are_not_posts() -> None:
    n = 4
    assert thread_role([MIN_POST_CHARS - 1] * n, n, 0, False, True) == "none"


def test_an_article_before_comment_named_records_keeps_them_as_comments() -> None:
    assert thread_role([2000, 2000], 2, 500, True, True) == "comments"
    # the same records in a container not named for comments: most of the text, a thread
    assert thread_role([2000, 2000], 2, 500, True, False) == "thread"


def test_comments_need_an_article_before_them_and_a_comment_container() -> None:
    assert thread_role([50, 60], 2, 3000, True, True) == "comments"
    assert thread_role([50, 60], 2, 3000, False, True) == "none"
    assert thread_role([50, 60], 2, 3000, True, False) == "none"  # no comment container
    assert thread_role([10, 12], 2, MIN_STORY_CHARS - 1, True, True) == "thread"  # no story
    assert thread_role([50, 60], 2, MIN_CONTENT_CHARS - 1, True, True) == "comments"


def test_short_post_under_its_title_heading_is_an_article() -> None:
    nav = "".join(f"<li><a href='/{i}'>Section number {i}</a></li>" for i in range(30))
    post = ("<html><head><title>Creative food sculptures</title></head><body>"
            f"<ul>{nav}</ul><div class='post'><h2>Creative food sculptures</h2>"
            "<img src='a.jpg'><p>Food as art, creatively.</p></div></body></html>")
    result = extract(post)
    assert result.kind == "article" and "Food as art" in result.article.text


def test_short_blurb_away_from_the_title_is_no_article() -> None:
    nav = "".join(f"<li><a href='/{i}'>Section number {i}</a></li>" for i in range(30))
    portal = ("<html><head><title>Portal home</title></head><body><div><div><div>"
              f"<h1>Portal home</h1></div></div></div><ul>{nav}</ul>"
              "<div><div><div><p>Welcome, friend.</p></div></div></div></body></html>")
    assert extract(portal).kind == "other"


def test_forum_comments_are_a_thread_opened_by_the_body() -> None:
    """On a page typed forum, the body before comment-named records is the topic's first
    post (a thread "opened" by it); without the forum type it stays an article's comments,
    and records that are no posts stay none whatever the type."""
    assert thread_role([2000, 2000], 2, 500, True, True, forum=True) == "opened"
    assert thread_role([2000, 2000], 2, 500, True, True) == "comments"
    assert thread_role([50, 60], 2, 3000, False, True, forum=True) == "none"  # body after
    assert thread_role([2000, 2000], 0, 500, True, True, forum=True) == "none"


def test_forum_with_one_reply_under_the_title_is_a_thread() -> None:
    """Two records holding the title heading are an article and a box beside it, unless the
    page is typed forum: then a first post under the topic's title and its one reply."""
    assert thread_role([400, 300], 2, 0, False, False, headed=True) == "none"
    assert thread_role([400, 300], 2, 0, False, False, headed=True, forum=True) == "thread"


def test_a_product_or_service_page_opens_no_thread_and_carries_no_comments() -> None:
    """A product's signed reviews are records, but the page is no thread nor an article with
    comments when the classifier is sure enough of its type (NO_THREAD_PROBABILITY); a
    listing's records may be a thread (a link aggregator's comment page)."""
    def typed(label: str, p: float) -> PageType:
        return PageType(label, {label: p, "article": 1 - p}, True)

    sure = NO_THREAD_PROBABILITY
    assert readerless_records("thread", typed("product", sure)) == "none"
    assert readerless_records("comments", typed("service", sure)) == "none"
    assert readerless_records("thread", typed("product", sure - 0.05)) == "thread"
    assert readerless_records("thread", typed("listing", 0.99)) == "thread"
    assert readerless_records("comments", typed("article", 0.99)) == "comments"


def test_records_holding_a_small_part_of_the_region_are_items() -> None:
    assert records_are_items([100, 120, 90], 1000)
    assert not records_are_items([300, 320, 290], 1000)


def guide_cards() -> str:
    """A guide site's page of signed cards (a dated, attributed blurb each) beside its
    titles and its own text: MiBAT's records, read as a thread unless something says
    otherwise."""
    blurbs = ("A weekend of walks along the old canal, with the locks and the mills.",
              "Where the river meets the sea, by bike, in three easy days of riding.",
              "Ten bakeries worth the early train, and what to order at each of them.")
    cards = "".join(
        f'<div class="post"><a class="username" href="/members/{name}.{i}/">{name}</a>'
        f'<time datetime="2025-11-0{i}T10:00:00Z">Nov {i}, 2025</time>'
        f'<div class="content"><p>{text} {text}</p></div></div>'
        for i, (name, text) in enumerate(zip(("ann", "bob", "cy"), blurbs, strict=True), 1))
    titles = "".join(f"<li><a href='/g/{i}'>Guide number {i} to the towns of the coast</a></li>"
                     for i in range(14))
    return ("<html><body><main><h1>Guides</h1><p>Our guides cover the region's towns, "
            "trails and tables, written by people who live there.</p>"
            f"<div class='list'>{cards}</div><ul>{titles}</ul></main></body></html>")


def test_signed_items_of_a_page_leaning_to_listing_are_no_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A listing's signed cards hold a part of its main region beside its titles and its
    own text: read as a thread, their text alone was the page's."""
    html = guide_cards()
    assert extract(html, "https://guides.example/all").kind == "thread"
    listing = PageType("listing", {"listing": 0.9, "article": 0.1}, sure=True)
    monkeypatch.setattr(extractor, "classify", lambda page: listing)
    result = extract(html, "https://guides.example/all")
    assert result.kind == "other" and result.main_text is not None
    assert "towns, trails" in result.main_text and "old canal" in result.main_text


def test_signed_cards_of_a_front_page_are_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same cards on the site's front page are its teasers whatever the type: a page
    the classifier is sure is an article (front pages are often taken for one) opens no
    thread there, and ECON reads the page again with the records in it."""
    article = PageType("article", {"article": 0.97, "listing": 0.03}, sure=True)
    monkeypatch.setattr(extractor, "classify", lambda page: article)
    assert extract(guide_cards(), "https://guides.example/all").kind == "thread"
    result = extract(guide_cards(), "https://guides.example/?ref=home")
    assert result.kind != "thread" and "old canal" in content_text(result)


def test_a_front_page_has_no_path() -> None:
    assert is_front_page("https://guides.example")
    assert is_front_page("https://guides.example/?utm_source=feed")
    assert not is_front_page("https://guides.example/all")
    assert not is_front_page("https://forum.example/t/1234/")
    assert not is_front_page(None) and not is_front_page("")  # no address: nothing to tell


LAMP_INTRO = ("Our workshop turns, polishes and wires every lamp by hand, so the patina of the "
              "brass varies a little from one lamp to the next. This page lists the lamps we make "
              "now, with their sizes, finishes and the shop that makes each of them.")


def lamp_grid(cards: int) -> str:
    """A shop's grid page: an intro paragraph, then `cards` cards in its <main>."""
    grid = "".join(
        f"<div class='card'><h3><a href='/lamp/{i}'>Lamp model {i} in brushed brass</a></h3>"
        f"<p>A {20 + i} cm lamp made in the {('north', 'south', 'east')[i % 3]} shop, with a "
        f"linen shade and a dimmer.</p><span class='price'>{100 + i} EUR</span></div>"
        for i in range(cards))
    return ("<html><head><title>Lamps</title></head><body><header><nav><a href='/'>Home</a>"
            f"</nav></header><main><div class='intro'><h1>Lamps</h1><p>{LAMP_INTRO}</p></div>"
            f"<div class='grid'>{grid}</div></main><footer>© Lumen</footer></body></html>")


def test_a_body_keeping_a_sliver_of_the_main_container_is_no_article(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A page the classifier is unsure of, read as an article: ECON's body is the grid's
    intro, under a tenth of the <main> around it; the page is "other", its main text the
    whole grid."""
    unsure = PageType("article", {"article": 0.6, "listing": 0.3}, sure=False)
    monkeypatch.setattr(extractor, "classify", lambda page: unsure)
    result = extract(lamp_grid(40), "https://lamps.example/all")
    assert result.kind == "other" and result.main_text is not None
    assert "patina of the brass" in result.main_text and "Lamp model 39" in result.main_text


def test_a_body_keeping_much_of_the_main_container_stays_an_article(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With two cards beside it, the intro is most of its <main>: an article still."""
    unsure = PageType("article", {"article": 0.6, "listing": 0.3}, sure=False)
    monkeypatch.setattr(extractor, "classify", lambda page: unsure)
    result = extract(lamp_grid(1), "https://lamps.example/all")
    assert result.kind == "article"
    assert result.article is not None and "patina of the brass" in result.article.text


def test_records_named_for_reviews_on_a_page_leaning_readerless_are_no_thread() -> None:
    """A product page the classifier splits between product and listing: its records named
    for reviews are reviews (REVIEWS_LEAN), wherever the classifier puts the rest; on a page
    taken for an article, or records not so named, the roles stand."""
    split = PageType("listing", {"listing": 0.4, "product": 0.35, "article": 0.25}, False)
    article = PageType("article", {"article": 0.8, "product": 0.2}, True)
    assert readerless_records("thread", split, reviews=True) == "none"
    assert readerless_records("thread", split, reviews=False) == "thread"
    assert readerless_records("comments", article, reviews=True) == "comments"


def test_a_thread_is_named_for_reviews_by_its_records_not_by_the_page(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Records in a block named "reviews" on a page leaning to the readerless types are left
    out of its main text; the same records under a body whose class says review (a travel
    forum's page) are a thread."""
    texts = ("The lamp arrived well packed and the brass looks even better than in the photos.",
             "Bright enough to read by, and the dimmer is smooth all the way down to a glow.",
             "The shade was creased on arrival, but the shop sent a new one within the week.")
    records = "".join(
        f'<div class="entry"><a class="username" href="/members/{name}.{i}/">{name}</a>'
        f'<time datetime="2025-11-0{i}T10:00:00Z">Nov {i}, 2025</time>'
        f'<div class="content"><p>{text} {text} {text}</p></div></div>'
        for i, (name, text) in enumerate(zip(("ann", "bob", "cy"), texts, strict=True), 1))
    product = f"<h1>Brass lamp</h1><p>{LAMP_INTRO}</p>"
    split = PageType("listing", {"listing": 0.4, "product": 0.35, "article": 0.25}, False)
    monkeypatch.setattr(extractor, "classify", lambda page: split)
    html = f"<html><body><main>{product}<div class='reviews'>{records}</div></main></body></html>"
    result = extract(html, "https://lamps.example/brass")
    assert result.kind != "thread" and not result.posts
    text = result.main_text or (result.article.text if result.article else "")
    assert "patina of the brass" in text and "well packed" not in text
    html = (f"<html><body class='pin_user_review'><main>{product}<div class='list'>{records}"
            "</div></main></body></html>")
    assert extract(html, "https://lamps.example/brass").kind == "thread"


def test_a_body_without_text_is_no_article_however_the_page_looks() -> None:
    """The cheap check passes on a page of long paragraphs; a body the extraction found
    without text still gives no reader view."""
    from winnow.page import parse_page

    page = parse_page(f"<html><body><main><p>{LAMP_INTRO * 4}</p><p>{LAMP_INTRO * 4}</p>"
                      "</main></body></html>")
    assert route(page, "Our workshop turns every lamp by hand.", 1000) == "article"
    assert route(page, "  ", 1000) == "other"


def _titled_post(i: int, name: str, title: str, text: str) -> str:
    """A post whose title line is a heading: the topic's title, "Re: " it on replies."""
    return (f'<div class="blockpost"><h2><a href="viewtopic.php?pid={i}#p{i}">'
            f'2025-11-0{i} 15:14:37</a></h2><div class="postleft"><a href="/profile.php?id={i}">'
            f'{name}</a></div><div class="postright"><h3>{title}</h3><div class="postmsg">'
            f'<p>{text}</p></div></div></div>')


def test_two_posts_repeating_the_title_line_are_a_thread_on_an_article_page() -> None:
    """The title heading in the first of two records is an article's only when the other
    record does not repeat it: posts whose title lines all hold it ("Re: <title>") are a
    first post and its one reply, whatever the page's type."""
    from winnow.extractor import extract_page
    from winnow.page import parse_page

    title = "What happened with the ISO image this year"
    html = (f"<html><head><title>{title} / Board</title></head><body><h1>Board</h1>"
            + _titled_post(1, "chunix", title, "Why did the image grow so much between the "
                           "two releases this year? It doubled in size.")
            + _titled_post(2, "nl6720", f"Re: {title}", "The boot loader changed, so the "
                           "kernel is stored twice on the image now.")
            + "<footer>Board footer</footer></body></html>")
    page = parse_page(html, "https://bbs.example/viewtopic.php?id=1")
    page.derived["page_type"] = PageType("article", {"article": 0.9, "forum": 0.1}, True)
    result = extract_page(page)
    assert result.kind == "thread"
    assert [p.author for p in result.posts] == ["chunix", "nl6720"]


def _signed_cards(authors: list[str]) -> str:
    """Dated cards with a blurb each, signed by `authors` in turn."""
    blurbs = ("The harbour wall was rebuilt after the winter storms broke it in two places.",
              "A new ferry line links the islands twice a day from the spring onwards.",
              "The old lighthouse opens to visitors again after ten years of repairs.",
              "Fishermen sell their catch on the quay each morning before the market.",
              "The town council votes on the plan for the seafront promenade next week.")
    return "".join(
        f'<div class="post"><a class="username" href="/members/{name}.{i}/">{name}</a>'
        f'<time datetime="2025-11-0{i}T10:00:00Z">Nov {i}, 2025</time>'
        f'<div class="content"><p>{text} {text} {text}</p></div></div>'
        for i, (name, text) in enumerate(zip(authors, blurbs, strict=True), 1))


def test_records_all_by_one_author_on_an_article_page_are_no_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An article page's rail of its writer's other stories, each signed with the same name,
    is no discussion: the page stays an article (with different names, a thread)."""
    story = ("The harbour master said the new moorings would be ready by the summer. "
             "Boats have waited for a berth since the storms, and owners are pleased.")
    article = PageType("article", {"article": 0.95, "forum": 0.05}, sure=True)
    monkeypatch.setattr(extractor, "classify", lambda page: article)

    def page(authors: list[str]) -> str:
        return ("<html><head><title>Moorings ready by summer</title></head><body><article>"
                f"<h1>Moorings ready by summer</h1><p>{story}</p></article>"
                f"<div class='more'>{_signed_cards(authors)}</div></body></html>")

    assert extract(page(["ann", "bob", "cy", "dee", "eve"]),
                   "https://harbour.example/news/1").kind == "thread"
    result = extract(page(["ann"] * 5), "https://harbour.example/news/1")
    assert result.kind == "article" and result.article is not None
    assert "new moorings" in result.article.text


def _topic_page(head: str) -> str:
    """A topic's first post in a box of its own, then its replies in a list named for
    comments: an article with comments by look alone."""
    def reply(name: str, day: int) -> str:
        return (f'<li class="comment"><div class="comment-meta"><a href="/u/{name}">{name}</a>'
                f'<span>{day} May 2024 at 10:00</span></div><div class="comment-content">'
                f"<p>{'A reply of some length, with its reasons given. ' * 4}</p></div></li>")
    replies = "".join(reply(name, day) for day, name in enumerate(("ann", "bob", "cy"), 2))
    return (f"<html><head>{head}</head><body><article><h1>Which pump for a small pond?</h1>"
            f"<p>{'My old pump died and I need a quiet one for a small pond. ' * 12}</p>"
            f'</article><section id="comments"><ol class="comment-list">{replies}</ol>'
            "</section></body></html>")


@pytest.mark.parametrize("head", [
    '<script type="application/ld+json">{"@context": "https://schema.org", '
    '"@type": "DiscussionForumPosting", "headline": "Which pump"}</script>',
    '<meta itemtype="http://schema.org/QAPage">',
])
def test_a_page_declaring_a_discussion_is_a_thread_opened_by_its_body(head: str) -> None:
    """The body before comment-named records is the topic's first post when the page
    declares itself a discussion (schema.org DiscussionForumPosting or QAPage), whatever the
    page-type classifier says; without the declaration they stay an article's comments."""
    def read(html: str) -> Extraction:
        page = parse_page(html, "https://pond.example/t/1")
        page.derived["page_type"] = PageType("article", {"article": 0.9, "forum": 0.1}, True)
        return extractor.extract_page(page)

    article = read(_topic_page(""))
    assert article.kind == "article" and article.article is not None
    assert len(article.article.comments) == 3
    topic = read(_topic_page(head))
    assert topic.kind == "thread"
    assert len(topic.posts) == 4 and "My old pump died" in topic.posts[0].text


@pytest.mark.parametrize("ld", [
    '{"@type": 7}', '{"@type": ["x", null, {"a": 1}]}', '[[[]]]', '"text"', 'null',
    '{"@graph": [' + ",".join(['{"@type": "Thing"}'] * 500) + ',{"@type": "QAPage"}]}',
])
def test_odd_json_ld_declares_no_discussion_and_does_not_fail(ld: str) -> None:
    """Types that are not strings, empty or scalar blocks, and a graph whose declaration lies
    past MAX_LD_NODES nodes: no discussion is declared, and nothing raises."""
    html = (f'<html><head><script type="application/ld+json">{ld}</script></head>'
            "<body><p>Some text.</p></body></html>")
    assert not declares_discussion(parse_page(html, "https://x.example/"))


def test_schema_type_names_strip_the_vocabulary() -> None:
    """A type's name is compared without its vocabulary's URL, prefix or case."""
    assert [schema_type(kind) for kind in ("https://schema.org/QAPage", "schema:Answer",
                                           " DiscussionForumPosting ", "http://schema.org/")] \
        == ["qapage", "answer", "discussionforumposting", ""]
