"""Posts from records: body, author, date, permalink, depth; threads and comments end to end."""

from __future__ import annotations

import gc
from datetime import UTC, datetime

import lxml.html
import winnow
from winnow.result import Extraction, Post

NOW = datetime(2024, 5, 10, 12, 0, tzinfo=UTC)


def forum(posts: list[tuple[str, str, str]], between: str = "") -> str:
    records = [
        f'<div class="message"><div class="user"><a class="username" href="/members/{n}.1/">'
        f'{n}</a><span class="title">Member</span></div><div class="main">'
        f'<div class="attribution"><a href="/posts/{i}/"><time datetime="{d}">{d[:10]}</time>'
        f'</a></div><h3>Re: Which pump?</h3><div class="content"><p>{t}</p>'
        f'<p>Second paragraph of post {i}, with more words in it.</p></div>'
        f'<div class="actions"><a href="/reply">Reply</a></div></div></div>'
        for i, (n, d, t) in enumerate(posts, 1)]
    if between:
        records.insert(2, between)
    return ("<html><head><title>Which pump?</title></head><body><nav><a href='/'>Home</a>"
            "</nav><h1>Which pump?</h1>" + "".join(records) + "<footer>Forum software, "
            "all rights reserved, 2024.</footer></body></html>")


POSTS = [("ann", "2024-05-01T10:00:00Z", "My pond pump died. Which one should I buy?"),
         ("bob", "2024-05-01T11:30:00Z", "Get a bigger one than you think you need."),
         ("cy", "2024-05-02T08:15:00Z", "Agreed, and check the warranty first.")]


def test_a_thread_gives_posts_with_author_date_body_and_permalink() -> None:
    result = winnow.extract(forum(POSTS), "https://forum.example/t/1", now=NOW)
    assert result.kind == "thread"
    assert result.article is None
    assert [p.author for p in result.posts] == ["ann", "bob", "cy"]
    assert [p.published for p in result.posts] == [
        "2024-05-01T10:00:00+00:00", "2024-05-01T11:30:00+00:00", "2024-05-02T08:15:00+00:00"]
    first = result.posts[0]
    assert first.text.startswith("My pond pump died.")  # not the title line "Re: ..."
    assert "Reply" not in first.text.split("\n")[0]
    assert first.author_url == "https://forum.example/members/ann.1/"
    assert first.permalink == "https://forum.example/posts/1/"
    assert "<p>" in first.html and "<script" not in first.html
    assert first.depth == 0


def test_an_ad_between_posts_is_not_a_post() -> None:
    ad = '<div class="message"><div class="promo"><p>Cheap pumps, buy today!</p></div></div>'
    result = winnow.extract(forum(POSTS, between=ad), now=NOW)
    assert result.kind == "thread"
    assert len(result.posts) == 3
    assert all("Cheap pumps" not in p.text for p in result.posts)


def test_relative_dates_count_back_from_now() -> None:
    rows = "".join(
        f'<tr class="c"><td><a href="user?id={n}">{n}</a> <span>{h} hours ago</span></td>'
        f'<td><p>Comment {n} says something sensible here.</p></td></tr>'
        for n, h in (("ann", 3), ("bob", 2), ("cy", 1)))
    result = winnow.extract(f"<html><body><table>{rows}</table></body></html>", now=NOW)
    assert result.kind == "thread"
    assert [p.published for p in result.posts][0] == "2024-05-10T09:00+00:00"
    assert [p.date for p in result.posts] == ["3 hours ago", "2 hours ago", "1 hours ago"]


def test_nested_replies_get_depth_and_stay_out_of_their_parent() -> None:
    def comment(n: str, day: int, text: str, replies: str = "") -> str:
        return (f'<li class="comment"><div class="comment-meta"><a href="/author/{n}">{n}</a>'
                f'<span>{day} May 2024 at 10:00</span></div><div class="comment-content">'
                f"<p>{text}</p></div>{replies}</li>")
    inner = f'<ul class="children">{comment("bob", 2, "A reply to ann, quite long.")}</ul>'
    items = comment("ann", 1, "First comment, top level.", inner) + comment(
        "cy", 3, "Another top-level comment.")
    html = (f"<html><body><article><h1>Story</h1><p>{'Story text. ' * 80}</p></article>"
            f'<section id="comments"><ol class="comment-list">{items}</ol></section>'
            "</body></html>")
    result = winnow.extract(html, now=NOW)
    assert result.kind == "article"
    assert result.article is not None
    comments = result.article.comments
    assert [c.author for c in comments] == ["ann", "bob", "cy"]
    assert [c.depth for c in comments] == [0, 1, 0]
    assert "A reply to ann" not in comments[0].text
    assert "First comment" not in result.article.text


def test_a_chain_of_one_reply_per_level_keeps_every_reply() -> None:
    """One top-level comment, one reply to it and one reply to that: no two records are
    siblings (MiBAT sees no list), and each reply is still a comment at its own depth."""
    def comment(n: str, day: int, text: str, replies: str = "") -> str:
        return (f'<li class="comment"><div class="comment-meta"><a href="/author/{n}">{n}</a>'
                f'<span>{day} May 2024 at 10:00</span></div><div class="comment-content">'
                f"<p>{text}</p></div>{replies}</li>")
    third = f'<ul class="children">{comment("cy", 3, "A reply to bob, the last one.")}</ul>'
    second = f'<ul class="children">{comment("bob", 2, "A reply to ann, quite long.", third)}</ul>'
    items = comment("ann", 1, "First comment, top level.", second)
    html = (f"<html><body><article><h1>Story</h1><p>{'Story text. ' * 80}</p></article>"
            f'<section id="comments"><ol class="comment-list">{items}</ol></section>'
            "</body></html>")
    result = winnow.extract(html, now=NOW)
    assert result.kind == "article" and result.article is not None
    comments = result.article.comments
    assert [c.author for c in comments] == ["ann", "bob", "cy"]
    assert [c.depth for c in comments] == [0, 1, 2]
    assert [c.text for c in comments] == ["First comment, top level.",
                                          "A reply to ann, quite long.",
                                          "A reply to bob, the last one."]


def test_an_article_without_comments_is_not_a_thread() -> None:
    teasers = "".join(f'<li><a href="/s/{d}">Story {d}</a> <span>{d} May 2024</span></li>'
                      for d in range(1, 6))
    html = (f"<html><body><article><h1>Story</h1><p>{'Plain news text, told well. ' * 60}"
            f"</p></article><ul class='more'>{teasers}</ul></body></html>")
    result = winnow.extract(html, now=NOW)
    assert result.kind == "article"
    assert result.article is not None and result.article.comments == []


def test_posts_serialize_as_the_schema_wants() -> None:
    result = winnow.extract(forum(POSTS), now=NOW)
    data = result.to_dict()
    assert set(data["posts"][0]) == set(Post.__dataclass_fields__)
    assert all(isinstance(p["ids"], list) for p in data["posts"])


def test_a_learned_record_template_reads_a_single_post_page() -> None:
    from winnow.page import parse_page
    from winnow.sitemodel import SiteModel

    chrome = "".join(f'<li><a href="/f/{n}">Forum section {n}</a></li>' for n in range(30))

    def page(posts: list[tuple[str, str, str]]) -> str:
        html = forum(posts)
        return html.replace("<nav>", f"<nav><ul>{chrome}</ul>")

    model = SiteModel("forum.example")
    for shift in (0, 1):
        model.add_page(parse_page(page(POSTS[shift:] + POSTS[:shift]),
                                  f"https://forum.example/t/{shift}"))
    single = page(POSTS[:1])
    alone = winnow.extract(single, "https://forum.example/t/9", now=NOW)
    assert alone.kind != "thread"  # one record: nothing to compare it with
    learned = winnow.extract(single, "https://forum.example/t/9", model, now=NOW)
    assert learned.kind == "thread"
    assert learned.method == "template+mibat"
    assert [p.author for p in learned.posts] == ["ann"]
    assert learned.posts[0].text.startswith("My pond pump died.")
    assert SiteModel.from_json(model.to_json()).to_json() == model.to_json()


def test_threads_and_comments_match_the_schema() -> None:
    import json
    from pathlib import Path

    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[1] / "shared" /
                         "extraction.schema.json").read_text("utf-8"))
    stamped = forum(POSTS).replace("<div", "<div data-wn='1'")
    result = winnow.extract(stamped, "https://forum.example/t/1", now=NOW)
    assert result.kind == "thread" and result.method == "mibat"
    data = json.loads(json.dumps(result.to_dict()))
    jsonschema.validate(data, schema)
    assert all(post["ids"] for post in data["posts"])


def test_a_list_of_stories_titled_with_links_is_not_a_thread() -> None:
    stories = "".join(
        f'<div class="post"><h2><a href="/2012/{d}/story-{d}">Story {d}</a></h2>'
        f'<p>An excerpt of story {d}, a sentence or two long, with words.</p>'
        f'<div class="meta"><a href="/author/{n}" class="author">{n}</a> <span>{d} May 2012'
        f'</span></div></div>'
        for d, n in ((1, "ann"), (2, "bob"), (3, "cy")))
    html = (f"<html><body><article><h1>Main</h1><p>{'The story itself, told. ' * 40}</p>"
            f"</article><div class='latest'>{stories}</div></body></html>")
    result = winnow.extract(html, now=NOW)
    assert result.kind == "article"
    assert result.article is not None and result.article.comments == []


def test_comment_authors_from_the_date_line() -> None:
    def comment(name: str, day: int) -> str:
        return (f'<li class="comment"><p class="meta">by <a href="http://{name}.example" '
                f'class="url">{name}</a> on January {day}, 2011 at 10:12 am.</p>'
                f"<p>I liked this post, number {day}, very much.</p></li>")
    html = (f"<html><body><article><h1>Post</h1><p>{'A blog post, long enough. ' * 40}</p>"
            f"</article><ol id='comments'>{comment('damien', 3)}{comment('alan', 4)}</ol>"
            "</body></html>")
    result = winnow.extract(html, now=NOW)
    assert result.article is not None
    assert [c.author for c in result.article.comments] == ["damien", "alan"]
    assert result.article.comments[0].text.startswith("I liked this post")


def test_collapsed_replies_are_posts_and_sidebar_copies_are_not() -> None:
    def comment(n: str, d: int, text: str, inner: str = "") -> str:
        return (f'<div class="c"><div class="h"><a href="/@{n}">{n}</a> '
                f'<time datetime="2024-05-0{d}T10:00:00Z">{d} May</time></div>'
                f'<div class="t"><p>{text}</p></div>{inner}</div>')
    reply = comment("cy", 3, "A hidden reply, collapsed.")
    hidden = f'<div class="kids" style="display: none">{reply}</div>'
    thread = comment("ann", 1, "The first comment of all.", hidden) + comment(
        "bob", 2, "The second comment here.")
    best = comment("bob", 2, "The second comment here.")
    side = f'<aside class="sidebar"><div class="best">{best}</div></aside>'
    html = f"<html><body><div class='thread'>{thread}</div>{side}</body></html>"
    result = winnow.extract(html, now=NOW)
    assert result.kind == "thread"
    assert [(p.author, p.depth) for p in result.posts] == [("ann", 0), ("cy", 1), ("bob", 0)]
    assert result.posts[1].text == "A hidden reply, collapsed."


def test_a_comment_section_of_one_comment() -> None:
    comment = ('<li class="comment" id="comment-1"><div class="comment-body"><div class="meta">'
               '<cite>Jeremy</cite> <span>says:</span> <a href="#comment-1">January 20, 2020 '
               'at 11:27 am</a></div><div class="text"><p>This is the kind of content I love.'
               '</p></div><div class="reply"><a href="#respond">Reply</a></div></div></li>')
    html = (f"<html><body><article><h1>Rust</h1><p>{'Rust is a language, and popular. ' * 40}"
            f"</p></article><div id='comments'><ol class='comment-list'>{comment}</ol></div>"
            "</body></html>")
    result = winnow.extract(html, "https://blog.example/rust", now=NOW)
    assert result.kind == "article" and result.article is not None
    [only] = result.article.comments
    assert (only.author, only.text) == ("Jeremy", "This is the kind of content I love.")
    assert only.permalink == "https://blog.example/rust#comment-1"
    assert "content I love" not in result.article.text


def test_a_forum_thread_of_one_post() -> None:
    post = ('<div class="post" id="p1"><dl class="profile"><dt><a class="username" '
            'href="./memberlist.php?mode=viewprofile&amp;u=5">r23</a></dt></dl>'
            '<div class="postbody"><p class="author">by r23 » 21.01.2009, 05:42</p>'
            f'<div class="content">{"Free software respects your freedom. " * 20}</div>'
            "</div></div>")
    result = winnow.extract(f"<html><body><h1>Free software</h1>{post}</body></html>",
                            now=NOW)
    assert result.kind == "thread"
    [only] = result.posts
    assert only.author == "r23" and only.published == "2009-01-21T05:42"
    assert only.text.startswith("Free software respects")


def test_a_blog_post_with_an_author_page_is_not_a_thread_of_one() -> None:
    post = ('<article class="post"><h1>Rust</h1><p class="byline">by <a href="/author/ann">'
            f'Ann</a> on 21.01.2009</p><p>{"Rust is fast, and safe. " * 30}</p></article>')
    result = winnow.extract(f"<html><body>{post}</body></html>", now=NOW)
    assert result.kind == "article"


def test_body_consensus_weighs_body_text_not_records() -> None:
    """Three short bodies read in one place (a likes line) do not outvote two long bodies
    read in another; a place needs half the text and two records."""
    from winnow.postconsensus import _vote
    assert _vote(["bar", "bar", "bar", "body", "body"], [5, 5, 5, 400, 300]) == "body"
    assert _vote(["bar", "bar", "bar", "body", "body"], [300, 300, 300, 40, 30]) == "bar"
    assert _vote(["bar", "bar", "body"], [5, 5, 900]) is None  # one record is no consensus
    assert _vote([None, "body", "body"], [900, 100, 100]) is None  # under half the text


def _forum_page(before: str, after: str = "", wrap: bool = False) -> str:
    """A forum thread (typed forum by the page-type classifier) whose replies sit in a box
    named for comments, with `before` between the title and the replies (`wrap`: title and
    `before` in a topic box) and `after` below them."""
    long = [(n, d, f"{t} {'More words about pumps and ponds and filters. ' * 8}")
            for n, d, t in POSTS * 2]
    head = "<h1>Which pump?</h1>"
    opening = f'<main><div class="topic">{head}{before}</div>' if wrap else f"{before}{head}"
    closing = "</div></main>" if wrap else "</div>"
    return forum(long).replace(head, f'{opening}<div class="comments">') \
        .replace("<footer>", f"{closing}{after}<footer>")


def test_a_forum_first_post_outside_the_replies_opens_the_thread() -> None:
    """A topic's first post written in its own box above replies named as comments is the
    thread's first post, not an article with comments."""
    first = ('<div class="topic-start"><p>I keep koi in a small pond and the old pump finally '
             "gave up after nine years, so I am looking for advice on a replacement that is "
             "quiet and cheap to run. What do you all use?</p></div>")
    result = winnow.extract(_forum_page(first, wrap=True), "https://forum.example/t/1", now=NOW)
    assert result.kind == "thread"
    assert result.posts[0].text.startswith("I keep koi in a small pond")
    assert [p.author for p in result.posts[1:]] == ["ann", "bob", "cy"] * 2


def test_the_whole_pages_leftovers_open_no_thread() -> None:
    """When what is left of the page outside the replies is only banners and notices (the
    body found is the page's <body>), they are no first post."""
    banner = ('<div class="app-banner"><p>Get the app. A better way to browse, with push '
              "notifications and badges on your home screen.</p></div>")
    cookie = ('<div class="notice"><p>We have placed cookies on your device to help make this '
              "website better. You can adjust your cookie settings.</p></div>")
    result = winnow.extract(_forum_page(banner, cookie), "https://forum.example/t/1", now=NOW)
    assert result.kind == "thread"
    assert [p.author for p in result.posts] == ["ann", "bob", "cy"] * 2
    assert not any("cookies" in p.text or "the app" in p.text for p in result.posts)


def vbulletin(posts: list[tuple[str, str]]) -> str:
    rows = "".join(
        f'<div class="postbit"><div class="userinfo"><a class="username" href="/members/{n}">'
        f'{n}</a></div><div class="postdate"><span class="date">0{i} March 2024, 10:0{i}</span>'
        f'</div><div class="content"><div class="postbody">{t}</div></div></div>'
        for i, (n, t) in enumerate(posts, 1))
    return (f"<html><head><title>Pumps</title></head><body><div class='posts'>{rows}</div>"
            "</body></html>")


QUOTED = "My pond pump died after the storm and the water is already turning green"


def test_a_quote_box_that_is_no_blockquote_is_read_as_a_quote() -> None:
    """vBulletin writes quotes as a `<div>` named for a quote: the reply shows it as a
    quote, and the thread's text counts the quoted post once."""
    from winnow.threadtext import posts_text
    quote = (f'<div class="bbcode_quote"><div class="quote_container">Originally Posted by '
             f'ann<div class="message">{QUOTED}</div></div></div>')
    result = winnow.extract(vbulletin([
        ("ann", QUOTED), ("bob", "Check the fuse in the outdoor socket first."),
        ("cy", f"{quote}Or buy a new one, they are cheap these days.")]), now=NOW)
    assert result.kind == "thread" and len(result.posts) == 3
    assert "<blockquote>" in result.posts[2].html
    assert posts_text(result.posts).count("turning green") == 1


def test_a_quote_button_stays_as_it_is() -> None:
    button = '<div class="quote-button"><a href="/reply?quote=1">Quote</a></div>'
    result = winnow.extract(vbulletin([
        ("ann", QUOTED), ("bob", f"Check the fuse in the outdoor socket first.{button}"),
        ("cy", "Or buy a new one, they are cheap these days.")]), now=NOW)
    assert "<blockquote>" not in result.posts[1].html


def nodebb(posts: list[tuple[str, str, str]]) -> str:
    """NodeBB's thread: a reply shows the post it answers (`parent`) above its own header."""
    items = []
    for i, (name, text, parent) in enumerate(posts, 1):
        preview = (f'<a href="/user/x">x</a><div class="muted">{parent}</div>'
                   if parent else "")
        preview = f'<div class="parent-preview">{preview}</div>'
        items.append(
            f'<li class="post">{preview}<div class="post-header"><a class="name" '
            f'href="/user/{name}">{name}</a> <span class="time">0{i} March 2024, 10:0{i}</span>'
            f'</div><div class="content"><p>{text}</p></div></li>')
    return (f"<html><head><title>Pumps</title></head><body><ul class='posts'>{''.join(items)}"
            "</ul></body></html>")


LONG = ("My pond pump died after the storm and the water is already turning green, the fish "
        "are fine so far but I need a replacement that can run all summer without a break.")


def test_a_reply_showing_the_post_it_answers_keeps_its_own_words() -> None:
    """Parent previews hold more text than the replies: the bodies read there repeat an
    earlier post, and those records are read again without them."""
    result = winnow.extract(nodebb([
        ("ann", LONG, ""), ("bob", "Check the fuse first.", LONG),
        ("cy", "Or buy a new one, they are cheap these days.", LONG),
        ("dee", "Mine runs since 2019 without trouble.", "")]), now=NOW)
    assert result.kind == "thread"
    assert [p.text[:12] for p in result.posts] == [
        "My pond pump", "Check the fu", "Or buy a new", "Mine runs si"]
    assert [p.author for p in result.posts] == ["ann", "bob", "cy", "dee"]


def test_a_reply_quoting_a_whole_post_is_no_copy() -> None:
    quote = f"<blockquote>{LONG}</blockquote>"
    result = winnow.extract(nodebb([
        ("ann", LONG, ""), ("bob", f"{quote}+1", ""),
        ("cy", "Or buy a new one, they are cheap these days.", "")]), now=NOW)
    assert "+1" in result.posts[1].text and "storm" in result.posts[1].text


def mention_thread(mention: str) -> Extraction:
    """A three-post thread whose second post, by bob, holds `mention`, each post's author
    linked in its header."""
    def item(i: int, name: str, text: str) -> str:
        return (f'<li class="post"><div class="head"><a href="/u/{name}">{name}</a> '
                f'<span class="time">0{i} March 2024, 10:0{i}</span></div>'
                f'<div class="content"><p>{text}</p></div></li>')
    page = ("<html><head><title>Pumps</title></head><body><ul class='posts'>"
            + item(1, "ann", LONG) + item(2, "bob", mention)
            + item(3, "cy", "Or buy a new one, they are cheap these days.")
            + "</ul></body></html>")
    return winnow.extract(page, now=NOW)


def test_a_name_linked_in_a_paragraph_is_a_mention_not_the_author() -> None:
    """A mention ("@ann") in a post's paragraph is a profile link named for a user, but a
    paragraph is writing: the author is the name in the post's header."""
    result = mention_thread('Thanks <a class="user-mention" href="/user/ann">@ann</a>, that '
                            'helped a lot: ' + LONG)
    assert [p.author for p in result.posts] == ["ann", "bob", "cy"]


def test_a_short_paragraph_opening_with_a_mention_is_not_the_author() -> None:
    """A short reply ("@ann can you post the model?") is shorter than a header line, but a
    name written as a mention with words after it in a paragraph is addressed, not the
    author, also where the name sits in an element of its own inside the mention's link;
    the header's name is."""
    result = mention_thread('<a class="plugin-mentions-user" href="/user/ann">@<bdi>ann</bdi>'
                            '</a> can you post the model of the pump?')
    assert [p.author for p in result.posts] == ["ann", "bob", "cy"]
    assert result.posts[1].text.startswith("@ann can you post")


def closing(footer: str) -> str:
    """A thread whose posts end with `footer` after their content (and an empty box)."""
    def item(i: int, name: str, text: str) -> str:
        return (f'<article class="message"><div class="user"><a class="username" '
                f'href="/members/{name}">{name}</a></div><div class="main"><time datetime='
                f'"2024-03-0{i}T10:00:00Z">0{i} March 2024</time><div class="content"><p>{text}'
                f'</p></div>{footer}<div class="history"></div></div></article>')
    return ("<html><head><title>Pumps</title></head><body><div class='posts'>"
            + item(1, "ann", LONG) + item(2, "bob", "Check the fuse in the socket first.")
            + item(3, "cy", "Or buy a new one, they are cheap these days.")
            + "</div></body></html>")


def test_a_reactions_bar_closing_a_post_is_no_text_of_it() -> None:
    """XenForo's footer: a reply link and the names of those who reacted, longer than a
    bar's text but mostly links; an empty box after it hides it from no one."""
    footer = ('<footer class="message-footer"><a class="actionBar-action" href="/r">Reply'
              '</a><div class="reactionsBar">Reactions: <a href="/p/1/reactions">ann, bob, '
              'Clix Pix and 19 others</a></div></footer>')
    result = winnow.extract(closing(footer), now=NOW)
    assert [p.text.split("\n")[-1] for p in result.posts] == [
        LONG, "Check the fuse in the socket first.",
        "Or buy a new one, they are cheap these days."]


def test_a_like_icon_closes_a_post_and_a_picture_does_not() -> None:
    footer = ('<div class="reactions"><img src="/r/like.png" alt="Like"> 2</div>')
    result = winnow.extract(closing(footer), now=NOW)
    assert all("Like" not in p.html for p in result.posts)
    picture = '<div class="like-box"><img src="/u/pump.jpg" alt="pump.jpg"> 2</div>'
    result = winnow.extract(closing(picture), now=NOW)
    assert all("pump.jpg" in p.html for p in result.posts)


def test_a_closing_bar_inside_the_bodys_wrapper_goes_too() -> None:
    """XenForo wraps the content and its footer in one box: the bar is looked for inside
    wrappers that hold no text of their own."""
    def item(i: int, name: str, text: str) -> str:
        return (f'<article class="message"><div class="cell-user"><a class="username" '
                f'href="/members/{name}">{name}</a><time datetime="2024-03-0{i}T10:00:00Z">'
                f'0{i} March 2024</time></div><div class="cell-main"><div class="main">'
                f'<div class="content"><p>{text}</p></div><footer class="message-footer">'
                f'<a href="/share">Share</a> <a href="/r">Reply</a></footer></div></div>'
                '</article>')
    page = ("<html><head><title>Pumps</title></head><body><div class='posts'>"
            + item(1, "ann", LONG) + item(2, "bob", "Check the fuse in the socket first.")
            + item(3, "cy", "Or buy a new one, they are cheap these days.")
            + "</div></body></html>")
    result = winnow.extract(page, now=NOW)
    assert [p.text for p in result.posts] == [
        LONG, "Check the fuse in the socket first.",
        "Or buy a new one, they are cheap these days."]


def test_a_link_preview_card_is_no_text_of_the_post() -> None:
    """Discourse's onebox shows the linked page's title and summary, fetched from that
    site; an inline link named so is the poster's words."""
    card = ('<aside class="onebox allowlistedgeneric"><header><a href="https://news.example/">'
            'news.example</a></header><article class="onebox-body"><h3>Easy News</h3><p>Read '
            'the news every day in easy words, with audio and a dictionary.</p></article>'
            '</aside>')
    inline = '<a class="inline-onebox" href="https://pumps.example/">Pump Guide</a>'
    result = winnow.extract(vbulletin([
        ("ann", QUOTED), ("bob", f"<p>Try this site:</p>{card}<p>It helped me.</p>"),
        ("cy", f"Or read the {inline} first.")]), now=NOW)
    assert result.posts[1].text == "Try this site:\n\nIt helped me."
    assert result.posts[2].text == "Or read the Pump Guide first."


def _question_page(question: str) -> str:
    """A Q&A page: the question in a box of its own above the list of answers, its body
    written like theirs (a <div class="post-text">)."""
    answers = "".join(
        f'<div class="answer"><div class="post-text"><p>{t}</p></div><div class="signed">'
        f'answered <span class="when">0{i} March 2024, 10:0{i}</span> by '
        f'<a class="user" href="/users/{n}">{n}</a></div></div>'
        for i, (n, t) in enumerate([
            ("bob", "Check the fuse in the socket first, then the impeller for sand."),
            ("cy", "Or buy a new one, they are cheap these days and quieter too."),
            ("dee", "Mine lasted twelve years after I cleaned the filter every month.")], 2))
    return ("<html><head><title>Pump stopped</title></head><body><h1>Pump stopped</h1>"
            '<section class="question"><header><ul class="meta"><li><a class="user" '
            'href="/users/ann">ann</a></li><li><b><em>01 March 2024, 09:00</em></b></li></ul>'
            f'</header><table><tr><td class="votes">12</td><td><div class="post-text"><p>'
            f'{question}</p></div><ul class="tags"><li><a href="/t/pumps">pumps</a></li>'
            '</ul></td></tr></table></section>'
            f'<div id="answers"><h2>3 Answers</h2>{answers}</div></body></html>')


def test_an_opening_post_in_a_box_of_its_own_heads_the_thread() -> None:
    """A question above its answers, its body written like theirs, is the thread's first
    post, with its author and date read from its own box."""
    question = ("My pond pump stopped overnight and the water is turning green. It hums but "
                "nothing moves. What should I check first?")
    result = winnow.extract(_question_page(question), "https://qa.example/q/1", now=NOW)
    assert result.kind == "thread"
    assert [p.author for p in result.posts] == ["ann", "bob", "cy", "dee"]
    assert result.posts[0].text == question
    assert result.posts[0].date == "01 March 2024, 09:00"
    assert result.posts[1].text.startswith("Check the fuse")


def _fragment(html: str) -> lxml.html.HtmlElement:
    return lxml.html.fragment_fromstring(html, create_parent="div")


def test_a_signature_class_glued_to_a_prefix_is_a_signature() -> None:
    """FluxBB names its signature box "postsignature": a class word ending in "signature"."""
    from winnow.postbody import take_signature

    root = _fragment('<div class="postmsg"><p>Use the LTS kernel.</p></div>'
                     '<div class="postsignature postmsg"><hr><p>Keep it simple</p></div>')
    signature = take_signature(root)
    assert signature is not None and signature.text_content().strip() == "Keep it simple"
    assert root.text_content().strip() == "Use the LTS kernel."


def test_an_edit_stamp_closing_a_post_is_no_text_of_it() -> None:
    """A forum's "Last edited" line at the end of the post (or of the wrapper of its text)
    goes; a poster's own last line ending in a date stays."""
    from winnow.postbody import drop_edit_stamp

    xen = _fragment('<div class="content"><article><p>Switched it off today.</p></article>'
                    '<div class="message-lastEdit">Last edited: <time datetime="2022-07-09">'
                    'Jul 9, 2022</time></div></div>')
    drop_edit_stamp(xen)
    assert xen.text_content().strip() == "Switched it off today."
    flux = _fragment('<p>Try the other driver.</p><p class="postedit"><em>Last edited by bob '
                     '(2024-08-03 11:02:20)</em></p>')
    drop_edit_stamp(flux)
    assert flux.text_content().strip() == "Try the other driver."
    ips = _fragment('<p>Cancel the order.</p><span class="light"><strong>Edited <time '
                    'datetime="2025-10-30">October 30, 2025</time> by El Patron</strong></span>')
    drop_edit_stamp(ips)
    assert ips.text_content().strip() == "Cancel the order."
    own = _fragment('<p>The meetup is settled.</p><p>See you on <time datetime="2024-05-05">'
                    'May 5</time></p>')
    drop_edit_stamp(own)
    assert "See you on May 5" in own.text_content()
    unnamed = _fragment('<p>The meetup is settled.</p><p>Sunday, May 5, 2024</p>')
    drop_edit_stamp(unnamed)
    assert "May 5, 2024" in unnamed.text_content()


def test_a_button_naming_the_author_is_no_author() -> None:
    """MyBB's "Find" button (all posts by this user) sits in a bar named "author_buttons"
    and links to the user's id: a button, not the poster's name."""
    rows = "".join(
        f'<div class="post"><div class="post_author"><strong><span class="big">'
        f'<a href="/user-{i}.html">{n}</a></span></strong></div><div class="post_content">'
        f'<div class="post_head"><span class="post_date">0{i}-03-2024, 10:0{i} AM</span></div>'
        f'<div class="post_body">{t}</div></div><div class="post_controls"><div class="'
        f'postbit_buttons author_buttons"><a href="search.php?action=finduser&amp;uid={i}">'
        f'<span>Find</span></a></div></div></div>'
        for i, (n, t) in enumerate([("ann", QUOTED), ("bob", "Check the fuse first."),
                                    ("cy", "Or buy a new one, they are cheap.")], 1))
    page = (f"<html><head><title>Pumps</title></head><body><div id='posts'>{rows}</div>"
            "</body></html>")
    result = winnow.extract(page, now=NOW)
    assert [p.author for p in result.posts] == ["ann", "bob", "cy"]


def test_an_unsigned_record_holding_only_a_counter_is_no_post() -> None:
    """A collapsed replies label ("0 replies", its word a button) read as a record of its
    own has no words and no author: it is no post."""
    counter = ('<div class="message"><div class="main"><div class="attribution"><a href="/p/9">'
               '<time datetime="2024-05-01T12:00:00Z">2024-05-01</time></a></div>'
               '<div class="content"><p>0</p></div></div></div>')
    result = winnow.extract(forum(POSTS, between=counter), now=NOW)
    assert [p.author for p in result.posts] == ["ann", "bob", "cy"]


def test_a_thread_extraction_leaves_no_reference_cycles() -> None:
    """A page's objects are freed by refcounting when its extraction returns: a cycle (a post
    record's view pointing back at itself) kept the whole tree alive until the cyclic
    collector ran, growing a long-lived process's oldest generation."""
    html = forum(POSTS)
    gc.collect()
    gc.disable()
    try:
        result = winnow.extract(html, "https://forum.example/t/1", now=NOW)
        del result
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0


def test_a_question_and_its_one_answer_declared_by_microdata() -> None:
    """A question and its only answer sit under different parents (MiBAT sees no list of
    two), but the page's microdata declares each (schema.org Question and Answer) with its
    text and author: they are the thread's two posts, the question's box read as the part
    of the item that holds its text and author, not the whole column the item wraps."""
    def signed(name: str, day: int) -> str:
        return (f'<div class="sig"><span>asked {day} May 2024 at 10:00</span>'
                f'<div itemprop="author" itemscope itemtype="https://schema.org/Person">'
                f'<a href="/users/{day}/{name}">{name}</a></div></div>')
    question = ("<p>My old pump died and I need a quiet one for a small pond, under "
                "fifty euros if I can. Which would you buy, and why that one?</p>")
    answer = ("<p>Take a small fountain pump with a sponge filter: it runs quietly, "
              "costs little and is easy to clean every couple of weeks.</p>")
    related = "".join(f"<li><a href='/q/{n}'>Another question about ponds {n}</a></li>"
                      for n in range(8))
    html = ("<html><head><title>Which pump for a small pond?</title></head><body>"
            '<div id="main" itemscope itemtype="https://schema.org/Question">'
            "<h1>Which pump for a small pond?</h1>"
            f'<div class="q"><div class="cell"><div itemprop="text">{question}</div>'
            f"{signed('ann', 2)}</div></div>"
            '<div id="answers"><h2>1 Answer</h2>'
            '<div class="a" itemprop="acceptedAnswer" itemscope '
            'itemtype="https://schema.org/Answer">'
            f'<div class="cell"><div itemprop="text">{answer}</div>{signed("bob", 3)}</div>'
            f"</div></div><aside><ul>{related}</ul></aside></div></body></html>")
    result = winnow.extract(html, "https://pond.example/q/1", now=NOW)
    assert result.kind == "thread"
    assert [p.author for p in result.posts] == ["ann", "bob"]
    assert result.posts[0].text.startswith("My old pump died")
    assert result.posts[1].text.startswith("Take a small fountain pump")
