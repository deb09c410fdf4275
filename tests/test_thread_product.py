"""Threads in the product: signatures apart from the post text, code kept as code."""

from __future__ import annotations

from datetime import UTC, datetime

import winnow

NOW = datetime(2025, 11, 10, 12, 0, tzinfo=UTC)


def record(i: int, name: str, text: str) -> str:
    return (f'<div class="post"><a class="username" href="/members/{name}.{i}/">{name}</a>'
            f'<time datetime="2025-11-0{i}T10:00:00Z">Nov {i}, 2025</time>'
            f'<div class="content"><p>{text}</p><pre><code>$ make test-{i}</code></pre>'
            f'<div class="post-signature">{name} rides a 1972 Raleigh, restored by hand.</div>'
            f'</div></div>')


def test_a_signature_in_the_body_box_is_kept_apart_and_code_stays_code() -> None:
    texts = ["The build fails on a clean checkout since yesterday, log below.",
             "Same here; pinning the compiler to the previous release fixes it.",
             "Thanks, pinning worked for me too, the build passes again now."]
    names = ["ann", "bob", "ann"]
    html = ("<html><body><h1>Build fails</h1>" + "".join(
        record(i, n, t) for i, (n, t) in enumerate(zip(names, texts, strict=True), 1))
        + "</body></html>")
    result = winnow.extract(html, "https://forum.example/t/9", now=NOW)
    assert result.kind == "thread"
    for post, name, text in zip(result.posts, names, texts, strict=True):
        assert post.signature == f"{name} rides a 1972 Raleigh, restored by hand."
        assert "Raleigh" not in post.text and "Raleigh" not in post.html
        assert post.text.startswith(text)
        assert "<pre" in post.html and "<code" in post.html


def stamped(html: str) -> str:
    """The page with a data-wn id on every element, as the content script stamps it."""
    import lxml.html

    root = lxml.html.fromstring(html)
    for n, el in enumerate(root.iter()):
        if isinstance(el.tag, str):
            el.set("data-wn", str(n))
    return lxml.html.tostring(root, encoding="unicode")


THREAD_TEXTS = ["The build fails on a clean checkout since yesterday, log below.",
                "Same here; pinning the compiler to the previous release fixes it.",
                "Thanks, pinning worked for me too, the build passes again now."]


def thread_page(pager: str = "") -> str:
    posts = "".join(record(i, n, t) for i, (n, t) in enumerate(
        zip(["ann", "bob", "ann"], THREAD_TEXTS, strict=True), 1))
    return (f"<html><head><title>Build fails (View topic) • Makers Community Forum</title>"
            f"</head><body><nav><a href='/'>Forum index</a></nav><h1>Build fails</h1>"
            f"<div id='posts'>{posts}</div>{pager}<footer>Powered by a board</footer>"
            f"</body></html>")


def test_a_thread_title_loses_the_sites_suffix() -> None:
    result = winnow.extract(thread_page(), "https://forum.example/t/9", now=NOW)
    assert result.kind == "thread"
    assert result.title == "Build fails"


def test_the_next_page_is_read_from_rel_next_or_the_pagination_row() -> None:
    pager = '<div class="nav"><a rel="next" href="/t/9?page=2">Next</a></div>'
    result = winnow.extract(thread_page(pager=pager), "https://forum.example/t/9", now=NOW)
    assert result.next_page == "https://forum.example/t/9?page=2"
    pager = ("<div class='pages'><a href='/t/9?page=1'>1</a> <strong>2</strong> "
             "<a href='/t/9?page=3'>3</a> <a href='/t/9?page=4'>4</a></div>")
    result = winnow.extract(thread_page(pager=pager), "https://forum.example/t/9?page=2",
                            now=NOW)
    assert result.next_page == "https://forum.example/t/9?page=3"
    last = ("<div class='pages'><a href='/t/9?page=1'>1</a> <a href='/t/9?page=2'>2</a> "
            "<span>3</span></div>")
    result = winnow.extract(thread_page(pager=last), "https://forum.example/t/9?page=3",
                            now=NOW)
    assert result.next_page is None


def test_the_noise_map_of_a_thread_outlines_posts_and_the_rest() -> None:
    html = stamped(thread_page())
    result = winnow.extract(html, "https://forum.example/t/9", now=NOW)
    assert result.kind == "thread"
    assert result.content_ids == sorted(i for post in result.posts for i in post.ids)
    assert len(result.content_ids) == 3
    import lxml.html

    root = lxml.html.fromstring(html)
    tags = {int(el.get("data-wn")): el.tag for el in root.iter() if el.get("data-wn")}
    assert {tags[i] for i in result.noise_ids} >= {"nav", "footer"}
    assert not set(result.noise_ids) & set(result.content_ids)


def below_record(i: int, name: str, text: str) -> str:
    """The post's text first, its date line below it, then a short likes line."""
    return (f'<div class="c"><div class="who"><a class="username" href="/u/{name}">{name}</a>'
            f'</div><div class="txt"><p>{text}</p></div><div class="d">November {i}, 2025'
            f' · <a href="#r{i}">Reply</a></div><div class="l">{i} people like this</div></div>')


def test_the_body_is_the_side_of_the_date_line_with_more_text() -> None:
    html = ("<html><body><h1>Build fails</h1><div class='list'>" + "".join(
        below_record(i, n, t) for i, (n, t) in enumerate(
            zip(["ann", "bob", "ann"], THREAD_TEXTS, strict=True), 1)) + "</div></body></html>")
    result = winnow.extract(html, "https://forum.example/t/10", now=NOW)
    assert result.kind == "thread"
    assert [post.text for post in result.posts] == THREAD_TEXTS


def br_record(i: int, name: str, lines: list[str]) -> str:
    """A post written without paragraphs: its lines are loose text between <br>s."""
    return (f'<div class="p"><a class="username" href="/u/{name}">{name}</a> '
            f'<span class="d">November {i}, 2025 10:0{i}</span><br>'
            + "<br>".join(lines) + "</div>")


def test_loose_text_after_br_is_kept() -> None:
    posts = [["First line of the first post, written plainly.", "And its second line."],
             ["The reply starts here, also without any paragraphs.", "Its last line."],
             ["A third post, one line of it here.", "Then its closing line."]]
    html = ("<html><body><h1>Plain posts</h1><div class='list'>" + "".join(
        br_record(i, n, lines) for i, (n, lines) in enumerate(
            zip(["ann", "bob", "cy"], posts, strict=True), 1)) + "</div></body></html>")
    result = winnow.extract(html, "https://forum.example/t/11", now=NOW)
    assert result.kind == "thread"
    for post, lines in zip(result.posts, posts, strict=True):
        assert lines[0] in post.text and lines[1] in post.text
