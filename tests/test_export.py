"""Thread and article exports: the three formats carry the same posts, safely."""

from __future__ import annotations

import csv
import io
import json

import pytest
from winnow.export import ExportError, export_extraction, filename_stem
from winnow.result import Article, Extraction, Post

POSTS = [
    Post(author="alice", date="3 hours ago", published="2026-11-22T06:00:00", text="First post.",
         permalink="https://forum.example/t/1#p1"),
    Post(author="=cmd|' /C calc'!A0", date="yesterday", text="Line one.\n\nLine two, a reply.",
         depth=1),
]


def thread() -> Extraction:
    return Extraction(kind="thread", posts=list(POSTS), title="Why does my café's bike squeak?",
                      url="https://forum.example/t/1")


def article_with_comments() -> Extraction:
    article = Article(title="Budget passes", byline="Jo Reporter", published="2026-01-02",
                      text="The council voted.", markdown="The council voted.",
                      comments=list(POSTS))
    return Extraction(kind="article", article=article, url="https://news.example/budget")


def test_json_lists_every_post_in_order() -> None:
    exported = export_extraction(thread(), "json")
    document = json.loads(exported.content)
    assert exported.media_type == "application/json"
    assert exported.filename == "why-does-my-cafe-s-bike-squeak.json"
    assert document["title"] == "Why does my café's bike squeak?"
    assert [post["author"] for post in document["posts"]] == ["alice", "=cmd|' /C calc'!A0"]
    assert document["posts"][1]["depth"] == 1


def test_csv_rows_parse_back_and_formulas_are_defused() -> None:
    rows = list(csv.DictReader(io.StringIO(export_extraction(thread(), "csv").content)))
    assert [row["text"] for row in rows] == ["First post.", "Line one.\n\nLine two, a reply."]
    assert rows[0]["permalink"] == "https://forum.example/t/1#p1"
    assert rows[1]["author"].startswith("'=")


def test_article_export_puts_the_article_before_its_comments() -> None:
    rows = list(csv.DictReader(io.StringIO(export_extraction(article_with_comments(), "csv")
                                           .content)))
    assert [row["role"] for row in rows] == ["article", "comment", "comment"]
    markdown = export_extraction(article_with_comments(), "markdown").content
    assert markdown.index("The council voted.") < markdown.index("## Comments")
    assert markdown.index("## Comments") < markdown.index("alice")


def test_markdown_quotes_replies_by_depth() -> None:
    markdown = export_extraction(thread(), "markdown").content
    assert markdown.startswith("# Why does my café's bike squeak?\n")
    assert "## alice · 3 hours ago ([link](<https://forum.example/t/1#p1>))" in markdown
    assert "> Line two, a reply." in markdown


def test_unknown_format_is_a_clear_error() -> None:
    with pytest.raises(ExportError, match="unknown export format 'pdf'"):
        export_extraction(thread(), "pdf")


@pytest.mark.parametrize(("title", "stem"), [
    (None, "winnow-export"), ("", "winnow-export"), ("../../etc/passwd", "etc-passwd"),
    ("日本語のタイトル", "winnow-export"), ("a " * 100, "-".join(["a"] * 40)),
])
def test_file_names_are_safe(title: str | None, stem: str) -> None:
    assert filename_stem(title) == stem


def quoted_thread() -> Extraction:
    html = ("<blockquote><p>alice said: First post.</p></blockquote><p>I agree with that.</p>"
            "<pre><code>$ make build</code></pre>")
    post = Post(author="bob", date="today", text="alice said: First post.\n\nI agree with that."
                "\n\n$ make build", html=html, signature="Bob's bikes since 1999")
    return Extraction(kind="thread", posts=[post], title="Squeaks", url="https://f.example/t/2")


def test_markdown_keeps_quotes_as_blockquotes_and_signatures_apart() -> None:
    markdown = export_extraction(quoted_thread(), "markdown").content
    assert "> alice said: First post." in markdown
    assert "\nI agree with that." in markdown and "> I agree" not in markdown
    assert "```" in markdown and "$ make build" in markdown
    body, signature = markdown.split("\n---\n", 1)
    assert "Bob's bikes since 1999" not in body
    assert "*Bob's bikes since 1999*" in signature


def test_json_and_csv_carry_the_signature_field() -> None:
    document = json.loads(export_extraction(quoted_thread(), "json").content)
    assert document["posts"][0]["signature"] == "Bob's bikes since 1999"
    rows = list(csv.DictReader(io.StringIO(export_extraction(quoted_thread(), "csv").content)))
    assert rows[0]["signature"] == "Bob's bikes since 1999"
    assert "Bob's bikes" not in rows[0]["text"]
