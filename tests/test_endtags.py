"""HTML5 end-tag closing before libxml2 parses: unclosed blocks inside posts no longer nest
each post inside the one before."""

from __future__ import annotations

import pytest
from winnow.endtags import close_blocks
from winnow.page import parse_page


@pytest.mark.parametrize(("html", "closed"), [
    ("<article><div>x</article><article>y</article>",
     "<article><div>x</div></article><article>y</article>"),
    ("<ul><li><div>x</ul><p>after", "<ul><li><div>x</div></ul><p>after"),
    ("<section><div><div>a</section>", "<section><div><div>a</div></div></section>"),
    ("<article><div>x</ul></article>", "<article><div>x</ul></div></article>"),
])
def test_an_end_tag_closes_the_blocks_opened_inside_it(html: str, closed: str) -> None:
    assert close_blocks(html) == closed


@pytest.mark.parametrize("html", [
    "<div><table><tr><td><div>a</td></tr></table>b</div>",  # never across a table cell
    "<script>if (a < b) { x = '</div>' }</script><div>x</div>",  # script text is not markup
    "<!-- <div> --><section>a</section>",  # neither are comments
    "<article><div class='a>b'>x</div></article>",  # a '>' inside a quoted attribute
    "<div><br/><img src='a'></div>",
])
def test_balanced_or_unscoped_markup_is_left_alone(html: str) -> None:
    assert close_blocks(html) == html


def test_unclosed_posts_parse_as_siblings() -> None:
    post = "<article class='post'><div class='body'><p>Post {n} text.</p></article>"
    page = parse_page("<html><body><main>" + "".join(post.format(n=n) for n in range(3))
                      + "</main></body></html>")
    posts = page.root.xpath("//article")
    assert len(posts) == 3
    assert all(post.getparent().tag == "main" for post in posts)


def test_replies_nested_on_purpose_stay_nested() -> None:
    html = ("<html><body><article class='c'><p>Parent</p><article class='c'><p>Reply</p>"
            "</article></article></body></html>")
    reply = parse_page(html).root.xpath("//article//article")
    assert len(reply) == 1 and reply[0].text_content() == "Reply"


def test_a_landmark_that_swallowed_the_page_is_closed_where_its_end_tag_is() -> None:
    story = "<p>" + "A sentence of the story, with words. " * 20 + "</p>"
    html = ("<html><body><header><nav><div><a href='/'>Home</a> <a href='/b'>Blog</a>"
            "</nav></header><main>" + story + "</main></body></html>")
    page = parse_page(html)
    nav = page.root.xpath("//nav")
    assert len(nav) == 1 and nav[0].text_content() == "Home Blog"
    assert not page.root.xpath("//nav//main")


def test_a_landmark_holding_little_of_the_page_is_left_as_parsed() -> None:
    html = ("<html><body><nav><a href='/'>Home</a></nav><main><div><p>"
            + "Words of the story. " * 20 + "</p></div></main></body></html>")
    page = parse_page(html)
    assert page.root.xpath("//main")[0].getparent().tag == "body"
