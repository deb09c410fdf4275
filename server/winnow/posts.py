"""Posts from MiBAT records: author, date, body, permalink, depth and ids of each record.

A record (`mibat.Region`) is a run of sibling subtrees holding one post. What it holds is
read from its structure, with the record's real pivots (the post dates MiBAT aligned across
records) as the landmark of its template part:

- **Body.** From the record down, a child holding the pivot and most of the text is entered
  (the date sits inside the post's own box); otherwise the body is the children after the
  last child holding a pivot (or before the first, when the date comes last), without
  leading link-only bars. Text before that cut (author line, title, date) is left out, so the
  post text starts with what the user wrote.
- **Author.** The first short link to a profile (or an element whose class, id or itemprop
  says author, user, poster...) in the template part, outside the body and outside quotes.
- **Date.** The pivot whose date is most complete; ISO 8601 from its `datetime` or `title`
  attribute when it has one, else from its text (relative dates against `now`).
- **Permalink.** The link the date sits in, or the template part's first link to a fragment.
- **Depth.** How many other records of the thread contain the record (nested replies).

Pure: no I/O, no clock (`now` is passed in).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from lxml import etree
from lxml.html import HtmlElement

from winnow.dates import DateMatch, parse_date, parse_datetime_attr
from winnow.mibat import DATE_ATTRS, DomTree, Region
from winnow.page import wn_id
from winnow.render import render_article, safe_url
from winnow.result import Post

AUTHOR_HINT_RE = re.compile(
    r"author|user|poster|member|nick|owner|profile|byline|commenter|(?:^|[\s_-])(?:name|fn)\b",
    re.I)
"""Class, id or itemprop words of the element that names a post's author (generic vocabulary
of forum and comment markup)."""

PROFILE_HREF_RE = re.compile(
    r"member|user|profile|author|people|account|/u/|[?&]u=|[?&]id=|/~", re.I)
"""Link targets of author profiles."""

NOT_AUTHOR_RE = re.compile(
    r"^(?:reply|quote|report|share|link|permalink|edit|delete|like|flag|parent|next|prev|"
    r"antworten|zitieren|melden|répondre|citer|responder|citar|ответить|#\d+)$", re.I)
"""Link texts of the template part that are actions, never a name."""

MAX_AUTHOR_CHARS = 60
"""A name is short; longer link text is a title or a sentence."""

QUOTE_TAGS = frozenset({"blockquote", "q"})

HEADER_SHARE = 0.5
"""A child holding a pivot and more than this share of the record's text holds the body too:
the descent enters it."""


@dataclass
class Body:
    """Where a post's body lies: the whole of `node`, or (when `keep` is set) only those
    children of `node`, with the text that follows child `text_after` (when set)."""

    node: int | None
    keep: list[int] | None = None
    text_after: int | None = None

    def nodes(self) -> list[int]:
        """The outermost body elements."""
        if self.keep is not None:
            return self.keep
        return [] if self.node is None else [self.node]


def region_posts(dom: DomTree, region: Region, base_url: str | None, now: datetime | None,
                 depths: Sequence[int] | None = None, with_ids: bool = True) -> list[Post]:
    """A `Post` per record of `region`, in page order."""
    posts = []
    for n, record in enumerate(region.records):
        post = record_post(dom, record, region.pivots[n], base_url, now, with_ids)
        if depths is not None:
            post.depth = depths[n]
        posts.append(post)
    return posts


def record_post(dom: DomTree, record: Sequence[int], pivots: Sequence[int],
                base_url: str | None, now: datetime | None, with_ids: bool = True) -> Post:
    """Read one record as a post."""
    body = locate_body(dom, record, pivots)
    inside = _ranges(dom, body.nodes())
    author_el = find_author(dom, record, inside)
    pivot = pick_pivot(dom, pivots)
    date, published = read_date(dom, record, pivot, now)
    rendered = render_article(_body_element(dom, body), base_url)
    author = author_url = None
    if author_el is not None:
        author = " ".join(author_el.text_content().split()) or None
        if author_el.tag == "a":
            author_url = safe_url(author_el.get("href"), base_url)
    ids = [i for i in (wn_id(dom.elements[v]) for v in record) if i is not None] \
        if with_ids else []
    return Post(author=author, author_url=author_url, date=date, published=published,
                text=rendered.text.strip(), html=rendered.html,
                permalink=find_permalink(dom, record, pivot, inside, base_url), ids=ids)


# --- body -----------------------------------------------------------------------------------


def locate_body(dom: DomTree, record: Sequence[int], pivots: Sequence[int]) -> Body:
    """The body of a record (see the module docstring)."""
    tree = dom.tree
    node: int | None = None
    kids: Sequence[int] = record
    while True:
        shown = [k for k in kids if dom.text_len[k] and not dom.hidden[k]]
        heads = [k for k in shown if any(_contains(dom, k, p) for p in pivots)]
        total = sum(dom.text_len[k] for k in shown) if node is None else dom.text_len[node]
        if not heads:
            return Body(node) if node is not None else Body(None, list(shown))
        big = max(heads, key=lambda k: dom.text_len[k])
        if dom.text_len[big] > HEADER_SHARE * total and tree.children[big]:
            node, kids = big, tree.children[big]
            continue
        first, last = shown.index(heads[0]), shown.index(heads[-1])
        after = _strip_bars(dom, shown[last + 1:])
        if after or (node is not None and tree.tails[heads[-1]]):
            return _cut(node, after, heads[-1])
        return _cut(node, _strip_bars(dom, shown[:first]), None)


def _cut(node: int | None, keep: list[int], text_after: int | None) -> Body:
    if len(keep) == 1 and text_after is None:
        return Body(keep[0])
    return Body(node, keep, text_after)


def _strip_bars(dom: DomTree, kids: list[int]) -> list[int]:
    """`kids` without leading elements made only of link text (quote and reply bars)."""
    start = 0
    while start < len(kids) and _all_links(dom, kids[start]):
        start += 1
    return kids[start:]


def _all_links(dom: DomTree, v: int) -> bool:
    el = dom.elements[v]
    if el.tag == "a":
        return True
    link_text = sum(len(" ".join(a.text_content().split())) for a in el.iter("a"))
    return link_text >= dom.text_len[v] > 0


def _contains(dom: DomTree, v: int, u: int) -> bool:
    return v <= u < v + dom.tree.sizes[v]


def _ranges(dom: DomTree, nodes: Sequence[int]) -> list[range]:
    return [dom.tree.subtree(v) for v in nodes]


def _body_element(dom: DomTree, body: Body) -> HtmlElement:
    """A detached copy of the body for rendering."""
    if body.keep is None:
        assert body.node is not None
        clone = copy.deepcopy(dom.elements[body.node])
        clone.tail = None
        return clone
    wrapper = etree.Element("div")
    if body.text_after is not None:
        wrapper.text = dom.elements[body.text_after].tail
    for v in body.keep:
        wrapper.append(copy.deepcopy(dom.elements[v]))
    if len(wrapper):
        wrapper[-1].tail = None
    return wrapper  # type: ignore[return-value]


# --- author, date, permalink --------------------------------------------------------------


def find_author(dom: DomTree, record: Sequence[int], body: Sequence[range]) -> HtmlElement | None:
    """The element naming the record's author: a profile link or an author-hinted element
    in the template part (outside the body and quotes); a hinted profile link wins."""
    best: tuple[int, int] | None = None
    for root in record:
        for v in dom.tree.subtree(root):
            if any(v in r for r in body) or dom.hidden[v]:
                continue
            score = _author_score(dom, v)
            if score and (best is None or score > best[0]):
                best = (score, v)
    return None if best is None else dom.elements[best[1]]


def _author_score(dom: DomTree, v: int) -> int:
    """2 for a profile link, +1 for an author hint on it or its parent; 1 for a hinted
    element that directly holds a short name; 0 otherwise."""
    el = dom.elements[v]
    length = dom.text_len[v]
    if not 0 < length <= MAX_AUTHOR_CHARS:
        return 0
    text = " ".join(el.text_content().split())
    if NOT_AUTHOR_RE.match(text) or parse_date(text) is not None or _in_quote(el):
        return 0
    hinted = _hinted(el) or _hinted(el.getparent())
    if el.tag == "a":
        profile = bool(PROFILE_HREF_RE.search(el.get("href") or ""))
        return 2 * profile + hinted if profile or hinted else 0
    return 1 if hinted and dom.tree.texts[v] and not dom.tree.children[v] else 0


def _hinted(el: HtmlElement | None) -> bool:
    if el is None:
        return False
    names = f"{el.get('class') or ''} {el.get('id') or ''} {el.get('itemprop') or ''}"
    return bool(AUTHOR_HINT_RE.search(names))


def _in_quote(el: HtmlElement) -> bool:
    return any(a.tag in QUOTE_TAGS for a in el.iterancestors())


def pick_pivot(dom: DomTree, pivots: Sequence[int]) -> int:
    """The pivot most likely to be the post date: a machine-readable date first, then the
    most complete date (a time, a full date)."""
    def rank(v: int) -> tuple[int, int, int]:
        match = parse_date(dom.elements[v].text_content())
        return (int(_attr_date(dom.elements[v]) is not None),
                int(match is not None and match.has_time),
                int(match is not None and (match.iso or "").count("-") == 2))
    return max(pivots, key=rank) if len(pivots) > 1 else pivots[0]


def read_date(dom: DomTree, record: Sequence[int], pivot: int,
              now: datetime | None) -> tuple[str | None, str | None]:
    """The date text the page shows and its ISO 8601 form."""
    el = dom.elements[pivot]
    text = " ".join(el.text_content().split())
    match: DateMatch | None = parse_date(text, now)
    shown = match.text if match is not None else (text or None)
    iso = _attr_date(el)
    if iso is None:
        iso = match.iso if match is not None else None
    return shown, iso


def _attr_date(el: HtmlElement) -> str | None:
    """ISO date of a date attribute on the pivot, its descendants or its parent."""
    parent = el.getparent()
    for node in (el, *el.iterdescendants(), *(() if parent is None else (parent,))):
        if not isinstance(node.tag, str):
            continue
        for name in DATE_ATTRS:
            value = node.get(name)
            if value and any(ch.isdigit() for ch in value):
                iso = parse_datetime_attr(value)
                if iso is not None:
                    return iso
    return None


def find_permalink(dom: DomTree, record: Sequence[int], pivot: int, body: Sequence[range],
                   base_url: str | None) -> str | None:
    """The link the date sits in (or holds), else the template part's first fragment link."""
    el = dom.elements[pivot]
    link = el if el.tag == "a" else next(el.iterancestors("a"), None)
    if link is None:
        link = next(el.iter("a"), None)
    if link is None:
        for root in record:
            for v in dom.tree.subtree(root):
                cand = dom.elements[v]
                if cand.tag == "a" and "#" in (cand.get("href") or "") and \
                        not any(v in r for r in body):
                    link = cand
                    break
            if link is not None:
                break
    return None if link is None else safe_url(link.get("href"), base_url)
