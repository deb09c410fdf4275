"""A thread's next page announced in the head (`<link rel="next">`), which the page model
reads before it drops `<link>` elements, resolved against the document's base URL."""

from __future__ import annotations

from datetime import UTC, datetime

import winnow
from winnow.evaluation import forum_cases
from winnow.page import document_url, parse_page

NOW = datetime(2025, 11, 10, 12, 0, tzinfo=UTC)

TEXTS = ["The build fails on a clean checkout since yesterday, log below.",
         "Same here; pinning the compiler to the previous release fixes it.",
         "Thanks, pinning worked for me too, the build passes again now."]


def thread(head: str) -> str:
    posts = "".join(
        f'<div class="post"><a class="username" href="/members/{name}.{i}/">{name}</a>'
        f'<time datetime="2025-11-0{i}T10:00:00Z">Nov {i}, 2025</time>'
        f'<div class="content"><p>{text}</p></div></div>'
        for i, (name, text) in enumerate(zip(["ann", "bob", "ann"], TEXTS, strict=True), 1))
    return (f"<html><head><title>Build fails</title>{head}</head><body><h1>Build fails</h1>"
            f"<div id='posts'>{posts}</div><footer>Powered by a board</footer></body></html>")


def test_rel_links_are_read_before_link_elements_are_dropped() -> None:
    page = parse_page('<html><head><link rel="stylesheet" href="/a.css">'
                      '<link rel="Prev Start" href="/t/9?page=1"><link rel="next" href=" ">'
                      '<link rel="next" href="/t/9?page=3"><link rel="next" href="/other">'
                      '</head><body><p>x</p></body></html>', "https://forum.example/t/9?page=2")
    assert page.rel_links == {"stylesheet": "/a.css", "prev": "/t/9?page=1",
                              "start": "/t/9?page=1", "next": "/t/9?page=3"}
    assert page.root.find(".//link") is None


def test_the_head_link_gives_the_next_page_relative_to_the_page_url() -> None:
    html = thread('<link rel="next" href="?page=2">')
    result = winnow.extract(html, "https://forum.example/t/9", now=NOW)
    assert result.kind == "thread"
    assert result.next_page == "https://forum.example/t/9?page=2"


def test_the_head_link_resolves_against_base_href() -> None:
    html = thread('<base href="https://forum.example/board/">'
                  '<link rel="next" href="threads/build-fails.9/page-2">')
    result = winnow.extract(html, "https://forum.example/board/threads/build-fails.9/", now=NOW)
    assert result.next_page == "https://forum.example/board/threads/build-fails.9/page-2"


def test_no_next_link_and_unsafe_links_give_none() -> None:
    assert winnow.extract(thread(""), "https://forum.example/t/9", now=NOW).next_page is None
    html = thread('<link rel="next" href="javascript:alert(1)">')
    assert winnow.extract(html, "https://forum.example/t/9", now=NOW).next_page is None


def test_document_url_without_base_or_url() -> None:
    assert document_url(parse_page("<p>x</p>", "https://a.example/x")) == "https://a.example/x"
    assert document_url(parse_page("<p>x</p>")) is None
    page = parse_page("<head><base href='/forum/'></head><p>x</p>", "https://a.example/x/y")
    assert document_url(page) == "https://a.example/forum/"


def test_real_threads_with_a_head_link_name_their_second_page() -> None:
    """Threads of forums/ whose head carries `rel="next"` (XenForo, Discourse, Vanilla
    pages among them): each read as a thread names a second page on its own site."""
    checked = 0
    for case in forum_cases():
        page = parse_page(case.html, case.url)
        if "next" not in page.rel_links or not case.url:
            continue
        result = winnow.extract(case.html, case.url, now=NOW)
        if result.kind != "thread":
            continue
        checked += 1
        assert result.next_page, case.id
        assert result.next_page.startswith(("http://", "https://")), case.id
        assert result.next_page.rstrip("/") != case.url.rstrip("/"), case.id
    assert checked >= 5
