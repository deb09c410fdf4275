"""What a thread page says about itself besides its posts: its title without the site's
suffix, the page that continues it, and which of its elements are content and which noise.

- **Title.** A forum's `<title>` adds the site's words to the thread's ("How to pump (View
  topic) • Pond Keepers Community Forum"). The thread's own title is the part of `<title>` the
  page's heading repeats; without such a heading, the first part before a separator.
- **Next page.** A thread of several pages links its next one: `rel="next"`, or, by
  structure, a pagination row (links numbered in sequence) in which the link numbered one
  more than the current page's number continues the thread.
- **Noise map.** Each post's outermost elements are content; every other element outside
  the posts is noise (what the popup's highlighting outlines).

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from lxml.html import HtmlElement

from winnow.page import Page, document_url, wn_id
from winnow.render import safe_url
from winnow.result import Post
from winnow.tree import normalize_space

TITLE_SEPARATOR_RE = re.compile(r"\s+(?:[|•·—–»«›:]|-{1,2}|::)\s+")
"""What sites put between a thread's title and their own words in `<title>`."""

HEADING_XPATH = "//h1 | //h2 | //h3"
"""Headings that may repeat the thread's title, in document order."""

MIN_TITLE_CHARS = 3
"""A heading shorter than this repeats no title."""

CURRENT_RE = re.compile(r"(?:^|[\s_-])(?:current|active|selected|is-active|on)(?:$|[\s_-])",
                        re.I)
"""Class words marking the current page in a pagination row."""

MIN_PAGE_LINKS = 2
"""Numbered links a pagination row has at least."""


def thread_title(page: Page, title: str | None) -> str | None:
    """The thread's title: the heading `<title>` repeats first (the longest of those starting
    at one place), else `<title>`'s first
    part before a separator ("Topic | Forum | Site" -> "Topic"), else `title`."""
    raw = normalize_space(page.root.findtext(".//title") or "") or (title or "")
    if not raw:
        return title
    folded = raw.casefold()
    repeated = [text for text in _headings(page) if text.casefold() in folded]
    if repeated:  # the thread's title comes first, the site's name after it
        return min(repeated, key=lambda text: (folded.index(text.casefold()), -len(text)))
    parts = [part for part in TITLE_SEPARATOR_RE.split(raw) if part.strip()]
    if len(parts) > 1:
        return re.sub(r"\s*\([^()]*\)$", "", parts[0]).strip() or parts[0]
    return title or raw


def _headings(page: Page) -> list[str]:
    texts = (normalize_space(h.text_content()) for h in page.root.xpath(HEADING_XPATH))
    return [text for text in texts if len(text) >= MIN_TITLE_CHARS]


def next_page(page: Page) -> str | None:
    """The URL of the thread's next page, resolved against the document's base URL: the
    head's `<link rel="next">` (read before the tree dropped it), else a `rel="next"` link in
    the body, else the link numbered one past the current page in a pagination row; None on
    a thread's last (or only) page."""
    base = document_url(page)
    head = page.rel_links.get("next")
    url = safe_url(head, base) if head else None
    if url:
        return url
    for el in page.root.iter("a"):
        if "next" in (el.get("rel") or "").lower().split() and el.get("href"):
            url = safe_url(el.get("href"), base)
            if url:
                return url
    for row in _pagination_rows(page.body):
        following = _after_current(row)
        url = safe_url(following.get("href"), base) if following is not None else None
        if url and _same_path(url, page.url):
            return url
    return None


def _same_path(url: str, page_url: str | None) -> bool:
    """True when a numbered link stays on the thread: its host and path are the page's, or
    one path extends the other ("/t/9" and "/t/9/p2"); a profile's numbered links leave it."""
    if not page_url:
        return True
    there, here = urlsplit(url), urlsplit(page_url)
    a, b = there.path.rstrip("/"), here.path.rstrip("/")
    return there.netloc == here.netloc and (a.startswith(b) or b.startswith(a)) \
        and bool(a or b)


def _pagination_rows(body: HtmlElement) -> Iterable[HtmlElement]:
    """Elements whose links include MIN_PAGE_LINKS or more numbered links."""
    for el in body.iter("div", "nav", "ul", "ol", "span", "p", "td"):
        numbered = [a for a in el.iter("a") if _number(a) is not None]
        if len(numbered) >= MIN_PAGE_LINKS and all(
                not _is_row(child) for child in el if child.tag in ("div", "nav", "ul", "ol")):
            yield el


def _is_row(el: HtmlElement) -> bool:
    return sum(1 for a in el.iter("a") if _number(a) is not None) >= MIN_PAGE_LINKS


def _after_current(row: HtmlElement) -> HtmlElement | None:
    """The link numbered current + 1 in a pagination row, where the current page is a
    number that is not a link (or is marked current)."""
    current = None
    for el in row.iter():
        if not isinstance(el.tag, str):
            continue
        number = _own_number(el)
        if number is None:
            continue
        linked = el.tag == "a" or any(a.tag == "a" for a in el.iterancestors())
        marked = bool(CURRENT_RE.search(el.get("class") or "")) or \
            el.get("aria-current") == "page"
        if not linked or marked:
            current = number
            break
    if current is None:
        return None
    return next((a for a in row.iter("a") if _number(a) == current + 1 and a.get("href")),
                None)


def _number(a: HtmlElement) -> int | None:
    text = normalize_space(a.text_content())
    return int(text) if text.isdigit() and len(text) <= 5 else None


def _own_number(el: HtmlElement) -> int | None:
    text = normalize_space(el.text or "") if len(el) else normalize_space(el.text_content())
    return int(text) if text.isdigit() and len(text) <= 5 else None


def thread_noise_map(page: Page, posts: list[Post]) -> tuple[list[int], list[int]]:
    """(noise ids, content ids) of a thread: the posts' outermost elements are content; the
    outermost elements beside them (holding no post) are noise."""
    content = {i for post in posts for i in post.ids}
    holding: set[HtmlElement] = set()
    for el in page.body.iter():
        if isinstance(el.tag, str) and wn_id(el) in content:
            holding.update(el.iterancestors())
    noise: list[int] = []
    stack = [page.body]
    while stack:
        for child in stack.pop():
            if not isinstance(child.tag, str) or wn_id(child) in content:
                continue
            i = wn_id(child)
            if child in holding or i is None:
                stack.append(child)
            else:
                noise.append(i)
    return sorted(noise), sorted(content)
