"""A thread's text counts a quoted post once: quotes of the page's other posts go, quotes of
posts not on the page stay."""

from __future__ import annotations

from winnow.result import Post
from winnow.threadtext import posts_text

FIRST = "My pump stopped working after the storm last night and the pond is green already"
REPLY = "Check the fuse in the outdoor socket first, storms trip them all the time"
ELSEWHERE = "Words of a post on an earlier page that nobody on this page wrote at all"


def _post(author: str, html: str, text: str) -> Post:
    return Post(author=author, date="Mar 3, 2024", html=html, text=text)


def test_quote_of_a_post_on_the_page_is_left_out() -> None:
    first = _post("ann", f"<p>{FIRST}</p>", FIRST)
    reply = _post("bob", f"<blockquote>ann said: {FIRST}</blockquote><p>{REPLY}</p>",
                  f"ann said: {FIRST}\n\n{REPLY}")
    text = posts_text([first, reply])
    assert text.count("pond is green") == 1
    assert text == f"ann\nMar 3, 2024\n{FIRST}\n\nbob\nMar 3, 2024\n{REPLY}"


def test_quote_of_a_post_not_on_the_page_stays() -> None:
    first = _post("ann", f"<p>{FIRST}</p>", FIRST)
    reply = _post("bob", f"<blockquote>{ELSEWHERE}</blockquote><p>{REPLY}</p>",
                  f"{ELSEWHERE}\n\n{REPLY}")
    assert ELSEWHERE in posts_text([first, reply])


def test_two_replies_quoting_the_same_absent_post_keep_it() -> None:
    """Each reply's quote is in the other reply only as a quote: the quoted words are
    nowhere else, so neither reply loses them."""
    quote = f"<blockquote>{ELSEWHERE}</blockquote>"
    one = _post("bob", f"{quote}<p>{REPLY}</p>", f"{ELSEWHERE}\n\n{REPLY}")
    two = _post("cy", f"{quote}<p>{FIRST}</p>", f"{ELSEWHERE}\n\n{FIRST}")
    assert posts_text([one, two]).count(ELSEWHERE) == 2


def test_body_box_that_is_a_blockquote_is_entered() -> None:
    """A post whose whole body is a blockquote (XenForo 1) is its own words; a quote inside
    it of another post on the page goes."""
    first = _post("ann", f"<blockquote><p>{FIRST}</p></blockquote>", FIRST)
    reply = _post("bob", f"<blockquote><blockquote>{FIRST}</blockquote><p>{REPLY}</p>"
                         "</blockquote>", f"{FIRST}\n\n{REPLY}")
    text = posts_text([first, reply])
    assert text.count("pond is green") == 1
    assert REPLY in text


def test_a_relative_date_line_is_left_out_and_a_full_date_stays() -> None:
    """"2 years ago" told the time when the page was saved, not when it is read: the
    thread's text keeps a post's full date line and drops a relative one."""
    dated = Post(author="ann", date="Mar 3, 2024", text=FIRST)
    relative = Post(author="bob", date="2 years ago", text=REPLY)
    weekday = Post(author="cy", date="Tuesday at 4:27 AM", text=ELSEWHERE)
    assert posts_text([dated, relative, weekday]) == (
        f"ann\nMar 3, 2024\n{FIRST}\n\nbob\n{REPLY}\n\ncy\n{ELSEWHERE}")
