"""The plain, JSON-serializable results that `winnow.extract` returns.

Every field is a str, int, float, bool, None, list or dict, so `to_dict()` output goes straight
into `json.dumps`, the CLI's JSONL lines and the WebSocket replies.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

PageKind = Literal["article", "thread", "other"]


@dataclass
class ArticleInfo:
    """What is known about an article besides its body; every field may be missing."""

    title: str | None = None
    byline: str | None = None
    published: str | None = None
    lang: str | None = None
    dir: str | None = None
    site_name: str | None = None
    lead_image: str | None = None


@dataclass
class Post:
    """One record of a thread or comment section: a forum post, a question, an answer or a
    comment.

    `date` is the date as the page shows it ("3 hours ago", "12.03.2019 14:05"); `published`
    is that date parsed to ISO 8601 when it can be. `depth` is the reply nesting (0 for
    top-level posts) where the page's structure shows nesting. `ids` are the `data-wn` ids of
    the record's outermost elements (empty for pages without ids). `signature` is the
    poster's signature under the post, kept apart from its text (empty when none).
    """

    author: str | None = None
    author_url: str | None = None
    date: str | None = None
    published: str | None = None
    text: str = ""
    html: str = ""
    permalink: str | None = None
    depth: int = 0
    ids: list[int] = field(default_factory=list)
    signature: str = ""


@dataclass
class Article(ArticleInfo):
    """A reader view of one article: metadata plus the body as HTML, text and Markdown, and
    the comments below it when the page has a comment section."""

    html: str = ""
    text: str = ""
    markdown: str = ""
    excerpt: str | None = None
    word_count: int = 0
    comments: list[Post] = field(default_factory=list)


@dataclass
class Extraction:
    """What Winnow found on one page.

    `noise_ids` and `content_ids` are the `data-wn` ids the content script stamped; both are
    empty for pages that carry no such ids. `timing_ms` has at least `total`, parse included.
    `method` is "econ" for single-page extraction and "template+econ" when a learned site
    template was used; then `cluster` names the template cluster and `pages_learned` how
    many pages it learned from. For a thread, `posts` holds its records in page order and
    `title`/`url` say which thread it is (`article` is null); an article keeps its comments
    in `article.comments`.

    `main_text` is the main content of a page of kind "other" as plain text (a listing's
    items, a product's description (the one its JSON-LD declares when the page folds it
    away), a service page's sections), for the corpus; it is empty
    for articles and threads, whose text is `article.text` and the posts'. `confidence` is
    the learned estimate of the result's quality (a predicted F1 in [0, 1], see `quality`).
    """

    kind: PageKind
    article: Article | None = None
    posts: list[Post] = field(default_factory=list)
    noise_ids: list[int] = field(default_factory=list)
    content_ids: list[int] = field(default_factory=list)
    method: str = ""
    confidence: float = 0.0
    timing_ms: dict[str, float] = field(default_factory=dict)
    cluster: int | None = None
    pages_learned: int = 0
    title: str | None = None
    url: str | None = None
    main_text: str = ""
    next_page: str | None = None
    """A thread's next page when it has more pages (None otherwise)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the result as plain JSON-ready data."""
        return asdict(self)
