"""Export one extraction, a thread or an article with its comments, as JSON, CSV or Markdown.

One document model serves the three formats: the page's title and URL, the article body when
there is one, and the posts (a thread's posts, or an article's comments). The CLI's `winnow
posts`, the server's `export` message and its `/api/pages/{id}/export` all go through
`export_extraction`, so a user gets the same file whichever way they ask.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import lxml.html
from lxml import etree

from winnow.markdown import escape, to_markdown
from winnow.result import Extraction, Post

FORMATS: dict[str, tuple[str, str]] = {
    "json": ("application/json", "json"),
    "csv": ("text/csv; charset=utf-8", "csv"),
    "markdown": ("text/markdown; charset=utf-8", "md"),
}
"""Export format -> (media type, file extension)."""

CSV_COLUMNS = ("position", "role", "author", "date", "published", "depth", "permalink", "text",
               "signature")
FILENAME_CHARS = 80
"""Longest file name stem; titles are cut at a word boundary before it."""
DEFAULT_STEM = "winnow-export"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""Cells starting like this run as formulas in spreadsheets (CSV injection); they get a `'`."""
POST_FIELDS = ("author", "author_url", "date", "published", "permalink", "depth", "text",
               "signature")


class ExportError(ValueError):
    """An export request that cannot be served, such as an unknown format."""


@dataclass(frozen=True)
class Exported:
    """An exported file: its text, its media type and a safe file name for it."""

    content: str
    media_type: str
    filename: str


def export_extraction(extraction: Extraction, fmt: str) -> Exported:
    """Export `extraction` in `fmt` ("json", "csv" or "markdown")."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    media_type, extension = FORMATS[fmt]
    writers = {"json": _json, "csv": _csv, "markdown": _markdown}
    return Exported(writers[fmt](extraction), media_type,
                    f"{filename_stem(_title(extraction))}.{extension}")


def export_posts(extraction: Extraction) -> list[Post]:
    """The posts an export lists: a thread's posts, or an article's comments."""
    if extraction.article is not None and not extraction.posts:
        return extraction.article.comments
    return extraction.posts


def filename_stem(title: str | None) -> str:
    """A file name stem from a title: ASCII letters, digits and hyphens, never empty."""
    ascii_title = unicodedata.normalize("NFKD", title or "").encode("ascii", "ignore").decode()
    stem = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    if len(stem) > FILENAME_CHARS:
        stem = stem[:FILENAME_CHARS].rsplit("-", 1)[0]
    return stem or DEFAULT_STEM


def _title(extraction: Extraction) -> str | None:
    if extraction.article is not None and extraction.article.title:
        return extraction.article.title
    return extraction.title


def _post_record(post: Post) -> dict[str, Any]:
    return {name: getattr(post, name) for name in POST_FIELDS}


def _json(extraction: Extraction) -> str:
    article = extraction.article
    document: dict[str, Any] = {"title": _title(extraction), "url": extraction.url,
                                "kind": extraction.kind}
    if article is not None:
        document["article"] = {"byline": article.byline, "published": article.published,
                               "text": article.text}
    document["posts"] = [_post_record(post) for post in export_posts(extraction)]
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _csv(extraction: Extraction) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    article = extraction.article
    if article is not None:
        writer.writerow(_cells([0, "article", article.byline, article.published,
                                article.published, 0, extraction.url, article.text, ""]))
    role = "comment" if article is not None else "post"
    for position, post in enumerate(export_posts(extraction), start=1):
        writer.writerow(_cells([position, role, post.author, post.date, post.published,
                                post.depth, post.permalink, post.text, post.signature]))
    return out.getvalue()


def _cells(values: list[Any]) -> list[str]:
    return [_cell(value) for value in values]


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def _markdown(extraction: Extraction) -> str:
    parts = [f"# {escape(_title(extraction) or 'Untitled')}"]
    if extraction.url:
        parts.append(f"<{extraction.url}>")
    article = extraction.article
    if article is not None:
        byline = " · ".join(value for value in (article.byline, article.published) if value)
        if byline:
            parts.append(f"*{escape(byline)}*")
        parts.append(article.markdown.strip())
    posts = export_posts(extraction)
    if posts and article is not None:
        parts.append("## Comments")
    parts.extend(_markdown_post(post, level=3 if article is not None else 2) for post in posts)
    return "\n\n".join(part for part in parts if part) + "\n"


def _markdown_post(post: Post, level: int) -> str:
    heading = " · ".join(escape(value) for value in (post.author or "Anonymous", post.date)
                         if value)
    if post.permalink:
        heading += f" ([link](<{post.permalink}>))"
    body = _post_markdown(post)
    if post.signature:
        body += "\n\n---\n\n" + "\n\n".join(
            f"*{escape(line)}*" for line in _paragraphs(post.signature))
    block = f"{'#' * level} {heading}\n\n{body}".rstrip()
    quote = "> " * post.depth
    return "\n".join((quote + line).rstrip() for line in block.split("\n")) if quote else block


def _post_markdown(post: Post) -> str:
    """A post's body as Markdown from its sanitized html, so quotes stay `>` blockquotes and
    code stays fenced; from its text when it has no html."""
    if post.html.strip():
        try:
            root = lxml.html.fragment_fromstring(post.html, create_parent="div")
        except (etree.ParserError, ValueError):
            root = None
        if root is not None:
            markdown = to_markdown(root).strip()
            if markdown:
                return markdown
    return "\n\n".join(escape(paragraph) for paragraph in _paragraphs(post.text))


def _paragraphs(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"\n\s*\n", text) if part.strip()]
