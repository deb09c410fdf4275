"""`posts.find_thread`'s shortcuts give what the full run gives: a page without a candidate
pivot returns at once, ranked regions are prepared only as far as they are read, and a
signed region's authors are found once."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from winnow import posts
from winnow.mibat import mine_regions
from winnow.mibat_dom import page_dom
from winnow.mibat_records import declared_posts, lone_comments, lone_post
from winnow.page import parse_page
from winnow.postfields import find_author

NOW = datetime(2024, 5, 10, 12, 0, tzinfo=UTC)

SIDEBAR = ('<aside><h2>Latest news</h2><ul>'
           + "".join(f'<li><a href="/news/{n}">Story number {n} of the week</a>'
                     f'<span class="when">{n} April 2024</span></li>' for n in range(1, 5))
           + "</ul></aside>")


def thread_page() -> str:
    """A forum thread of signed posts beside a sidebar of dated teasers (a second region)."""
    records = "".join(
        f'<div class="message"><div class="user"><a class="username" href="/members/{n}.1/">'
        f'{n}</a></div><div class="attribution"><a href="/posts/{i}/">{i} May 2024 10:0{i}'
        f'</a></div><div class="content"><p>{text}</p></div></div>'
        for i, (n, text) in enumerate([("ann", "My pond pump died. Which one to buy?"),
                                       ("bob", "Get a bigger one than you think you need."),
                                       ("cy", "Agreed, and check the warranty first.")], 1))
    return f"<html><body><main><h1>Which pump?</h1>{records}</main>{SIDEBAR}</body></html>"


def article_with_comments() -> str:
    """An article with two dated comments."""
    comments = "".join(
        f'<li class="comment"><div class="comment-meta"><a class="url" href="/u/{n}">{n}</a>'
        f'<span class="date">{d} May 2024</span></div><p>{text}</p></li>'
        for n, d, text in [("dee", 3, "Thanks, this helped a lot with my garden."),
                           ("eve", 4, "I tried it and the results were fine.")])
    return ("<html><body><article><h1>Pond care</h1>"
            + "<p>Keep the water moving and clean the filter every month, "
              "more often in summer when the algae grow fast.</p>" * 4
            + f'</article><div id="comments"><ol class="comment-list">{comments}</ol></div>'
              "</body></html>")


def date_list_page() -> str:
    """An article beside a blog archive: a list of bare dates."""
    archive = "".join(f'<li><a href="/2024/{m:02d}/">{name} 2024</a></li>'
                      for m, name in enumerate(["January", "February", "March"], 1))
    return ("<html><body><article><h1>Pond care</h1><p>Keep the water moving and clean the "
            f"filter every month.</p></article><ul class='archive'>{archive}</ul></body></html>")


def undated_page() -> str:
    return ("<html><body><article><h1>Pond care</h1><p>Keep the water moving.</p></article>"
            "<ul><li><a href='/a'>Pumps</a></li><li><a href='/b'>Filters</a></li></ul>"
            "</body></html>")


class _EagerRegions(posts._TriedRegions):
    """The full run: every tried region prepared before any is read."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        list(self)


def _summary(thread: posts.Thread | None) -> Any:
    if thread is None:
        return None
    return (thread.region.records, [(p.author, p.published, p.text) for p in thread.posts])


@pytest.mark.parametrize("html", [thread_page(), article_with_comments(), date_list_page(),
                                  undated_page()])
def test_the_shortcuts_agree_with_the_full_run(html: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    context = posts.PageContext(now=NOW)
    quick = _summary(posts.find_thread(parse_page(html), context))
    monkeypatch.setattr(posts, "_TriedRegions", _EagerRegions)
    assert quick == _summary(posts.find_thread(parse_page(html), context))


def test_a_thread_leaves_the_regions_after_it_unprepared(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    made: list[posts._TriedRegions] = []

    class Recorded(posts._TriedRegions):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(posts, "_TriedRegions", Recorded)
    thread = posts.find_thread(parse_page(thread_page()), posts.PageContext(now=NOW))
    assert thread is not None and [p.author for p in thread.posts] == ["ann", "bob", "cy"]
    assert len(made[0].ranked) == 2  # the posts and the sidebar's teasers
    assert len(made[0].prepared) == 1


def test_a_page_without_a_candidate_pivot_has_no_way_to_posts() -> None:
    """What the early exit skips finds nothing on such a page."""
    page = parse_page(undated_page())
    dom = page_dom(page)
    assert dom.cands_below[0] == 0
    assert posts.find_thread(page, posts.PageContext(now=NOW)) is None
    assert mine_regions(dom) == []
    assert lone_comments(dom) is None and lone_post(dom) is None
    assert declared_posts(dom) is None


def test_an_article_with_comments_is_read_as_a_thread_of_them() -> None:
    """The second synthetic page does take the shortcut's other way: its comments are posts."""
    thread = posts.find_thread(parse_page(article_with_comments()), posts.PageContext(now=NOW))
    assert thread is not None and [p.author for p in thread.posts] == ["dee", "eve"]


def test_a_signed_region_finds_its_authors_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading the region `_signing` signed reuses the authors it found: one look per record."""
    looks: list[int] = []

    def counted(view: Any, record: Any) -> Any:
        looks.append(record[0])
        return find_author(view, record)

    monkeypatch.setattr(posts, "find_author", counted)
    thread = posts.find_thread(parse_page(thread_page()), posts.PageContext(now=NOW))
    assert thread is not None and [p.author for p in thread.posts] == ["ann", "bob", "cy"]
    assert sorted(looks) == sorted(record[0] for record in thread.region.records)


def _comment(name: str, day: int, text: str, hinted: bool, replies: str = "") -> str:
    link = f'<a{" class=author" if hinted else ""} href="/members/{name}/">{name}</a>'
    return (f'<li class="comment"><div class="comment-meta">{link}'
            f'<span class="date">{day} May 2024</span></div><p>{text}</p>{replies}</li>')


def test_records_with_nested_replies_find_their_authors_again() -> None:
    """Signing reads a comment with its replies; reading it leaves them out: the outer
    comment's bare profile link, not its reply's hinted one, names its author."""
    reply = _comment("eve", 4, "I tried it and the results were fine for me too.", True)
    items = (_comment("dee", 3, "Thanks, this helped a lot with my garden pond.", False,
                      f'<ol class="children">{reply}</ol>')
             + _comment("fay", 5, "Where do you buy the filters you mention here?", True)
             + _comment("gus", 6, "My pump is quiet now, many thanks for the tip.", True))
    html = ("<html><body><article><h1>Pond care</h1>"
            + "<p>Keep the water moving and clean the filter every month.</p>" * 4
            + f'</article><div id="comments"><ol>{items}</ol></div></body></html>')
    thread = posts.find_thread(parse_page(html), posts.PageContext(now=NOW))
    assert thread is not None
    assert [(p.author, p.depth) for p in thread.posts] == [("dee", 0), ("eve", 1), ("fay", 0),
                                                           ("gus", 0)]
