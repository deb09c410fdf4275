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
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import lxml.html
from lxml.html import HtmlElement

from winnow.article import is_comments
from winnow.dates import DateMatch, parse_date, parse_datetime_attr
from winnow.mibat import (
    DATE_ATTRS,
    DomTree,
    RecordTemplate,
    Region,
    TreeMatcher,
    lone_comments,
    lone_post,
    mine_regions,
    nesting_depths,
    page_dom,
    ranked_regions,
    same_kind_records,
    template_records,
)
from winnow.page import Page, is_hidden, wn_id
from winnow.render import render_article, safe_url
from winnow.result import Post
from winnow.router import are_posts
from winnow.tree import BLOCK_TAGS, normalize_space

AUTHOR_HINT_RE = re.compile(
    r"author|user|poster|member|nick|owner|profile|byline|commenter|(?:^|[\s_-])(?:name|fn)\b",
    re.I)
"""Class, id or itemprop words of the element that names a post's author (generic vocabulary
of forum and comment markup)."""

PROFILE_HREF_RE = re.compile(
    r"member|user|profile|author|people|account|/u/|/u\d|/@|[?&]u=|[?&]id=|/~", re.I)
"""Link targets of author profiles."""

NOT_AUTHOR_RE = re.compile(
    r"^(?:reply|quote|report|share|link|permalink|edit|delete|like|flag|parent|next|prev|"
    r"profile|message|pm|e-?mail|website|homepage|top|(?:post )?history|posts|"
    r"antworten|zitieren|melden|répondre|citer|responder|citar|ответить|#\d+)$", re.I)
"""Link texts of the template part that are actions, never a name."""

NOT_AUTHOR_HINT_RE = re.compile(
    r"title|rank|role|status|avatar|stat|count|joined|date|time|location|signature|"
    r"reputation|karma|points|badge|online", re.I)
"""Class words of what sits next to a name in a user block (title, rank, post count)."""

MEMBER_SINCE_RE = re.compile(
    r"join|regist|member since|since|seit|dabei|inscri|desde|iscritt|lid sinds|с нами|"
    r"зарегистр|加入|注册|登録", re.I)
"""Labels of a user block's membership date, a date that aligns across records too."""

MAX_DATE_LINE_CHARS = 80
"""A pivot's parent this short may complete its date with a time ("<b>12:15pm</b> On
<b>Apr 24</b>")."""

MAX_AUTHOR_CHARS = 60
"""A name is short; longer link text is a title or a sentence."""

BYLINE_RE = re.compile(r"(?:by|von|par|por|door|di|от)\s", re.I)
"""A name behind a byline label is a journalist's byline: records signed so are stories
(teasers, article blocks), not posts, whose authors are shown bare."""

MAX_NAME_WORDS = 4
"""Words a name before the date in its line may have."""

_LINE_LABEL_RE = re.compile(
    r"(?<![^\W\d_])(?:posted|written|submitted|by|von|par|por|da|door|от|on|am|le|el|il|"
    r"op|at|um|à|said|says|wrote|sagt|schrieb|écrit|escribió|scrive)(?![^\W\d_])|[|—–·•:,@-]",
    re.I)
"""Labels and separators around a name in a date line ("Posted by X on", "X —")."""

_NAME_CHAR_RE = re.compile(r"[^\W_]")

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

TITLE_CLASS_RE = re.compile(r"(?:^|[\s_-])(?:post-?|entry-?|story-?)?title(?:$|[\s_-])", re.I)
"""Class words of an element holding a story's title."""

NAME_TAG = "cite"
"""HTML's element for the name of a work or person; comment templates put the author in it."""

QUOTE_TAGS = frozenset({"blockquote", "q"})

TITLE_PREFIX_CHARS = 6
"""Characters a post's title line may add before the thread title ("Re: ", "AW: ")."""

TITLE_SHARE = 0.6
"""Share of the page title a post's title line must repeat (the page title may add the
site's name)."""

MIN_TITLE_CHARS = 8
"""A title line shorter than this is not recognised (too likely to be a word of the body)."""

WRAPPER_SHARE = 0.9
"""A body's first child holding this share of its text is a wrapper the title is looked
for inside (what follows it is a permalink number or a like bar)."""

BAR_HINT_RE = re.compile(
    r"menu|toolbar|tools|actions?\b|controls?\b|button|share|report|complain|vote|flag",
    re.I)
"""Class and id words of a post's control bars and menus."""

TRAILING_BAR_RE = re.compile(
    r"reply|edit|like|favou?rite|rating|vote|karma|permalink|footer|signature", re.I)
"""Class words of the bars below a post (more are bars at its end than at its start)."""

MEDIA_TAGS = ("img", "picture", "video", "audio", "iframe", "embed", "object")
"""Elements that give a post a body without text."""

MAX_BAR_CHARS = 40
"""Text of a control bar ahead of a post's body at most ("Report", "Quote · Reply")."""

MAX_REGION_TRIES = 3
"""Regions read as posts, best score first, before the page is said to have no posts."""

MIN_AGREEING = 2
"""Records that must share where their body lies before the others follow them."""

HEADER_SHARE = 0.5
"""A child holding a landmark (pivot, author) and more than this share of the record's text
besides the landmarks' own (control bars and a post's comments not counted) holds the body
too: the descent enters it."""


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


@dataclass
class PageContext:
    """What posts read from the page besides the record: its URL (for links), its title
    (a post's own title line repeats it), its language (for numeric dates) and the time
    relative dates count back from."""

    base_url: str | None = None
    title: str | None = None
    lang: str | None = None
    now: datetime | None = None
    with_ids: bool = True


@dataclass
class Thread:
    """The posts of a page's main record region, and the elements the records span (what
    the article extractor must not count)."""

    region: Region
    posts: list[Post]
    elements: list[HtmlElement]
    dom: DomTree
    learned: bool = False
    """True when the records come from a site's learned record template."""

    def post_chars(self) -> list[int]:
        """The text length of each post."""
        return [len(post.text) for post in self.posts]

    def authored(self) -> int:
        """How many posts name an author."""
        return sum(1 for post in self.posts if post.author)

    def are_posts(self) -> bool:
        """Whether the records read as posts (see `router.are_posts`)."""
        return are_posts(self.post_chars(), self.authored())

    def comment_hint(self) -> bool:
        """True when a record or an ancestor of the region is named for comments."""
        return in_comments(self.dom, self.region)

    def holds(self, el: HtmlElement) -> bool:
        """True when `el` is inside one of the records."""
        return any(el is e for e in self.elements)

    def starts_after(self, el: HtmlElement) -> bool:
        """True when `el` (an element of the page) starts before the first record."""
        first = self.region.records[0][0]
        for v in range(first - 1, -1, -1):
            if self.dom.elements[v] is el:
                return True
        return False


def in_comments(dom: DomTree, region: Region) -> bool:
    """True when the region's first record or one of its ancestors is named for comments."""
    first = dom.elements[region.records[0][0]]
    return any(is_comments(el) for el in (first, *first.iterancestors()))


def is_story_list(dom: DomTree, region: Region) -> bool:
    """True when most records carry a title (a heading, or an element named as a title)
    linking to another page: a list of stories (a blog's latest posts), not of posts, whose
    titles never link away."""
    stories = sum(1 for record in region.records
                  if any(_titled_link_away(el) for v in record for el in dom.elements[v].iter()
                         if isinstance(el.tag, str)))
    return stories * 2 > len(region.records)


def _titled_link_away(el: HtmlElement) -> bool:
    """True for a title element inside or around a link to another page."""
    if el.tag not in HEADING_TAGS and not TITLE_CLASS_RE.search(el.get("class") or ""):
        return False
    links = [*el.iter("a"), *el.iterancestors("a")]
    return any(_away(a.get("href") or "") and not _hinted(a) and not _hinted(el)
               for a in links)


def _away(href: str) -> bool:
    """A link to another page that is not a member's profile."""
    href = href.strip()
    return bool(href) and "#" not in href and not PROFILE_HREF_RE.search(href) \
        and not href.lower().startswith("javascript:")


def find_thread(page: Page, context: PageContext,
                records: RecordTemplate | None = None) -> Thread | None:
    """MiBAT's main region of the page with the records of its kind elsewhere, read as
    posts; without a region, the records a site's learned record template finds (a lone
    first post); None when there are none.

    The main region is the best-scored region (MiBAT's Heuristic 2) whose records read as
    posts (signed, with text): the paper names main region selection as an error source
    that more domain features would fix, and an archive list or a sidebar of dated
    teasers can outscore a page's comments. At most MAX_REGION_TRIES regions are read.
    Without posts among them, a comment section of one comment is looked for."""
    dom = page_dom(page)
    matcher = TreeMatcher(dom.tree)
    ranked = ranked_regions(dom, mine_regions(dom, matcher))
    if not ranked and records is not None:
        region = template_records(dom, records)
        if region is not None:
            return _thread(dom, region, context, learned=True)
    listed = False
    for main in ranked[:MAX_REGION_TRIES]:
        region = same_kind_records(matcher, dom, main)
        if is_story_list(dom, region):
            continue
        listed = True
        if not _signed(dom, region):
            continue  # unsigned records are no posts: not worth reading (rendering) them
        thread = _thread(dom, region, context)
        if thread.are_posts():
            return thread
    lone = lone_comments(dom)
    if lone is not None:
        return _thread(dom, lone, context)
    if not listed:
        single = lone_post(dom)
        if single is not None:
            return _thread(dom, single, context, learned=True)
    return None


def _signed(dom: DomTree, region: Region) -> bool:
    """Whether more than half the records name an author, as `region_posts` reads them;
    checked before the records' bodies are rendered."""
    comments = in_comments(dom, region)
    signed = 0
    for record, pivots in zip(region.records, region.pivots, strict=True):
        view = _View(dom, frozenset(), record)
        if find_author(view, record) is not None:
            signed += 1
        elif comments:
            pivot = pick_pivot(dom, pivots)
            signed += _line_link_author(view, pivot) is not None \
                or _line_author(dom, pivot) is not None
    return signed * 2 > len(region.records)


def _thread(dom: DomTree, region: Region, context: PageContext,
            learned: bool = False) -> Thread:
    posts = region_posts(dom, region, context, nesting_depths(dom, region),
                         line_authors=in_comments(dom, region))
    elements = [el for record in region.records for v in record
                for el in dom.elements[v].iter()]
    return Thread(region, posts, elements, dom, learned)


def region_posts(dom: DomTree, region: Region, context: PageContext,
                 depths: Sequence[int] | None = None, line_authors: bool = False) -> list[Post]:
    """A `Post` per record of `region`, in page order. A record nested in another (a reply
    inside its parent comment) is left out of the outer record's body. Where a record's body
    lies is decided per record, then the place most records agree on is applied to the
    others (a one-word post must not pull its body into the header). With `line_authors`
    (comments), a name in the date's line is the author when nothing names one."""
    roots = [record[0] for record in region.records]
    readings = []
    for record, pivots in zip(region.records, region.pivots, strict=True):
        spans = [dom.tree.subtree(v) for v in record]
        nested = frozenset(r for r in roots if r not in record and any(r in s for s in spans))
        readings.append(_read_record(_View(dom, nested, record), record, pivots, context,
                                     line_authors))
    _agree_on_body(readings, context.title)
    posts = []
    for n, reading in enumerate(readings):
        post = _post(reading, context, line_authors)
        if depths is not None:
            post.depth = depths[n]
        posts.append(post)
    return _without_fillers(posts)


def _without_fillers(posts: list[Post]) -> list[Post]:
    """Posts without the ad blocks dressed as posts: no text, no image and no link to a
    member, where most posts have text."""
    with_text = sum(1 for post in posts if post.text)
    if with_text * 2 < len(posts):
        return posts
    return [post for post in posts if post.text or post.author_url or "<img" in post.html]


@dataclass
class _Reading:
    """A record as read before its post is made: its body and its author's node."""

    view: _View
    record: Sequence[int]
    pivots: Sequence[int]
    author: int | None
    body: Body


def _read_record(view: _View, record: Sequence[int], pivots: Sequence[int],
                 context: PageContext, line_authors: bool = False) -> _Reading:
    author_v = find_author(view, record)
    if author_v is None and line_authors:
        author_v = _line_link_author(view, pick_pivot(view.dom, pivots))
    landmarks = [*pivots, *(() if author_v is None else (author_v,)),
                 *_title_lines(view, record, context.title)]
    body = _trim_title(view, locate_body(view, record, landmarks, context.title),
                       context.title)
    return _Reading(view, record, pivots, author_v, body)


def _post(reading: _Reading, context: PageContext, line_authors: bool = False) -> Post:
    view, record, body = reading.view, reading.record, reading.body
    dom = view.dom
    pivot = pick_pivot(dom, reading.pivots)
    date, published = read_date(dom, pivot, context)
    element = _body_element(view, body)
    _drop_title_line(element, context.title)
    _drop_trailing_bars(element)
    rendered = render_article(element, context.base_url)
    author, author_url = _author_fields(view, reading.author, context.base_url)
    if author is None and line_authors:
        author = _line_author(dom, pivot)
    ids = [i for i in (wn_id(dom.elements[v]) for v in record) if i is not None] \
        if context.with_ids else []
    inside = _ranges(dom, body.nodes())
    return Post(author=author, author_url=author_url, date=date, published=published,
                text=rendered.text.strip(), html=rendered.html,
                permalink=find_permalink(dom, record, pivot, inside, context.base_url),
                ids=ids)


# --- body consensus ------------------------------------------------------------------------

Signature = tuple[tuple[tuple[int, str], ...], str, int]
"""Where a body lies in its record: the (child position, tag) steps from the record to the
body's node, the form ("whole" node, or the children "after" / "before" a position) and that
position (-1 for a whole node)."""


def _signature(view: _View, reading: _Reading) -> Signature | None:
    body = reading.body
    if body.node is None:
        return None
    steps = _steps(reading, body.node)
    if steps is None:
        return None
    if body.keep is None:
        return steps, "whole", -1
    if body.text_after is not None:
        return steps, "after", view.tree.children[body.node].index(body.text_after)
    return None


def _steps(reading: _Reading, v: int) -> tuple[tuple[int, str], ...] | None:
    """The (child position, tag) steps from the record down to node v (None when v lies
    outside the record)."""
    tree = reading.view.tree
    steps: list[tuple[int, str]] = []
    while v not in reading.record:
        parent = tree.parents[v]
        if parent < 0:
            return None
        steps.append((tree.children[parent].index(v), tree.tags[v]))
        v = parent
    steps.append((list(reading.record).index(v), tree.tags[v]))
    return tuple(reversed(steps))


def _follow(view: _View, record: Sequence[int],
            steps: tuple[tuple[int, str], ...]) -> tuple[int | None, int] | None:
    """The node `steps` lead to in another record, with its parent on the way (None for
    the record's own node); None when the record's structure differs."""
    first, tag = steps[0]
    if first >= len(record) or view.tree.tags[record[first]] != tag:
        return None
    v = record[first]
    parent: int | None = None
    for index, tag in steps[1:]:
        kids = view.tree.children[v]
        if index >= len(kids) or view.tree.tags[kids[index]] != tag:
            return None
        parent, v = v, kids[index]
    return parent, v


def _resolve(view: _View, reading: _Reading, signature: Signature,
             title: str | None) -> Body | None:
    """The body at `signature` in another record, or None when its structure differs."""
    steps, form, position = signature
    found = _follow(view, reading.record, steps)
    if found is None:
        return None
    v = found[1]
    if form == "whole":
        return _trim_title(view, Body(v), title)
    kids = view.tree.children[v]
    if position >= len(kids):
        return None
    shown = [k for k in kids[position + 1:] if _shown(view, k)]
    return _trim_title(view, _cut(v, _strip_leading(view, shown, title), kids[position]), title)


def _agree_on_body(readings: list[_Reading], title: str | None) -> None:
    """Give every record the body place most records share (at least half of them): the
    same node, or the same children after the same header. Failing that, places are
    compared by where the body starts, so "this node" and "the children after its header"
    vote together when they start at the same node."""
    if len(readings) < MIN_AGREEING:
        return
    signatures = [_signature(r.view, r) for r in readings]
    voted = Counter(sig for sig in signatures if sig is not None).most_common(1)
    if voted and voted[0][1] * 2 >= len(readings) and voted[0][1] >= MIN_AGREEING:
        for reading, signature in zip(readings, signatures, strict=True):
            if signature != voted[0][0]:
                body = _resolve(reading.view, reading, voted[0][0], title)
                if body is not None and body.nodes():
                    reading.body = body
        return
    starts = [_start(r) for r in readings]
    counts = Counter(start for start in starts if start is not None)
    if not counts:
        return
    best, votes = counts.most_common(1)[0]
    if votes * 2 < len(readings) or votes < MIN_AGREEING:
        return
    forms = Counter(sig for sig, start in zip(signatures, starts, strict=True)
                    if sig is not None and start == best).most_common(1)
    if not forms:
        return
    form = forms[0][0]
    for reading, start in zip(readings, starts, strict=True):
        if start != best:
            body = _resolve_start(reading.view, reading, best, form[1] == "whole", title)
            if body is not None:
                reading.body = body


def _resolve_start(view: _View, reading: _Reading, start: tuple[tuple[int, str], ...],
                   whole: bool, title: str | None) -> Body | None:
    """The body starting at `start` in another record: that node (`whole`), or it and the
    siblings after it; None when the record's structure differs. The node may be empty
    (a post whose only picture the saved page lost)."""
    found = _follow(view, reading.record, start)
    if found is None:
        return None
    parent, v = found
    if whole or parent is None:
        return _trim_title(view, Body(v), title)
    kids = view.tree.children[parent]
    at = kids.index(v)
    run = [v, *(k for k in kids[at + 1:] if _shown(view, k))]
    return _trim_title(view, Body(parent, run, kids[at - 1] if at else None), title)


def _start(reading: _Reading) -> tuple[tuple[int, str], ...] | None:
    """The (child position, tag) steps from the record to the body's first node."""
    nodes = reading.body.nodes()
    return _steps(reading, nodes[0]) if nodes else None


class _View:
    """The page's tree as one record sees it: records nested inside it count for nothing
    (they are hidden, and their text is not part of their ancestors' text), and a record in
    a collapsed branch (hidden by an ancestor outside it) is read as if shown."""

    def __init__(self, dom: DomTree, nested: frozenset[int],
                 record: Sequence[int] = ()) -> None:
        self.dom = dom
        self.tree = dom.tree
        self.elements = dom.elements
        self.local_hidden: dict[int, bool] = {}
        self.local_len: dict[int, int] = {}
        if record and dom.hidden[record[0]]:
            self._unfold(record)
        outer = sorted(nested)
        kept: list[int] = []
        for r in outer:
            if not kept or r >= kept[-1] + dom.tree.sizes[kept[-1]]:
                kept.append(r)
        self.nested = frozenset(kept)
        self.starts = kept
        self.ends = [r + dom.tree.sizes[r] for r in kept]
        adjust: dict[int, int] = {}
        for r in kept:
            a = dom.tree.parents[r]
            while a >= 0:
                adjust[a] = adjust.get(a, 0) - self.base_len(r)
                a = dom.tree.parents[a]
        self.adjust = adjust
        self.hidden = _Masked(self)
        self.text_len = _NestedLength(self)

    def _unfold(self, record: Sequence[int]) -> None:
        """Visibility and text lengths inside a collapsed record, as if it were shown."""
        tree = self.tree
        for root in record:
            span = tree.subtree(root)
            for v in span:
                parent = tree.parents[v]
                self.local_hidden[v] = v != root and (
                    is_hidden(self.elements[v]) or self.local_hidden.get(parent, False))
            for v in reversed(span):
                length = 0 if self.local_hidden[v] else len(tree.texts[v])
                if not self.local_hidden[v]:
                    length += sum(self.local_len[c] + len(tree.tails[c])
                                  for c in tree.children[v] if not self.local_hidden[c])
                self.local_len[v] = length

    def base_hidden(self, v: int) -> bool:
        local = self.local_hidden.get(v)
        return self.dom.hidden[v] if local is None else local

    def base_len(self, v: int) -> int:
        local = self.local_len.get(v)
        return self.dom.text_len[v] if local is None else local

    def in_nested(self, v: int) -> bool:
        i = bisect_right(self.starts, v) - 1
        return i >= 0 and v < self.ends[i]


class _Masked:
    def __init__(self, view: _View) -> None:
        self.view = view

    def __getitem__(self, v: int) -> bool:
        return self.view.base_hidden(v) or (bool(self.view.starts) and self.view.in_nested(v))


class _NestedLength:
    def __init__(self, view: _View) -> None:
        self.view = view

    def __getitem__(self, v: int) -> int:
        view = self.view
        if view.starts and view.in_nested(v):
            return 0
        return view.base_len(v) + view.adjust.get(v, 0)


# --- body -----------------------------------------------------------------------------------


def locate_body(dom: _View, record: Sequence[int], landmarks: Sequence[int],
                title: str | None = None) -> Body:
    """The body of a record (see the module docstring); `landmarks` are the template nodes
    (pivots, the author) the body lies beside."""
    tree = dom.tree
    node: int | None = None
    kids: Sequence[int] = record
    while True:
        shown = [k for k in kids if _shown(dom, k)]
        heads = [k for k in shown if any(_contains(dom, k, p) for p in landmarks)]
        total = sum(dom.text_len[k] for k in shown) if node is None else dom.text_len[node]
        if not heads:
            return Body(node) if node is not None else Body(None, list(shown))
        big = max(heads, key=lambda k: dom.text_len[k])
        free = dom.text_len[big] - sum(dom.text_len[p] for p in landmarks
                                       if _contains(dom, big, p))
        aside = sum(dom.text_len[k] for k in shown
                    if k not in heads and (_comment_list(dom, k) or _is_bar(dom, k)))
        rest = total - dom.text_len[big] - aside
        if tree.children[big] and free > HEADER_SHARE * (rest + free):
            node, kids = big, tree.children[big]
            continue
        first, last = shown.index(heads[0]), shown.index(heads[-1])
        after = _strip_leading(dom, [k for k in shown[last + 1:]
                                     if not _comment_list(dom, k)], title)
        if after or (node is not None and tree.tails[heads[-1]]):
            return _cut(node, after, heads[-1])
        return _cut(node, _strip_leading(dom, shown[:first], title), None)


def _shown(dom: _View, v: int) -> bool:
    """A visible child with text or an image (an image-only post has a body too)."""
    if dom.hidden[v]:
        return False
    el = dom.elements[v]
    return bool(dom.text_len[v]) or el.tag in MEDIA_TAGS or next(
        el.iter(*MEDIA_TAGS), None) is not None


def _comment_list(dom: _View, v: int) -> bool:
    """Comments on a post (dated, in a container named for comments) are not its body."""
    return dom.dom.cands_below[v] > 0 and is_comments(dom.elements[v])


def _cut(node: int | None, keep: list[int], text_after: int | None) -> Body:
    if len(keep) == 1 and text_after is None:
        return Body(keep[0])
    return Body(node, keep, text_after)


def _strip_leading(dom: _View, kids: list[int], title: str | None) -> list[int]:
    """`kids` without leading control bars (link rows, menus) or lines repeating the thread's
    title ("Re: <title>"); a bar stays when only bars follow it (then it is the body), and
    the last kid is kept whatever it is."""
    start = 0
    while start < len(kids) - 1 and (_is_title_line(dom, kids[start], title) or (
            _is_bar(dom, kids[start])
            and not all(_is_bar(dom, k) for k in kids[start + 1:]))):
        start += 1
    return kids[start:]


def _trim_title(dom: _View, body: Body, title: str | None) -> Body:
    """A body that opens with the post's title line ("AW: <thread title>") inside its
    wrappers loses it: the post text starts with what the user wrote."""
    if body.keep is not None and len(body.keep) == 1:
        body = Body(body.keep[0])
    if body.keep is not None or body.node is None:
        return body
    node = body.node
    while True:
        shown = [k for k in dom.tree.children[node] if _shown(dom, k)]
        if dom.tree.texts[node]:
            return body  # the body opens with its own words
        if shown and dom.tree.children[shown[0]] \
                and dom.text_len[shown[0]] >= WRAPPER_SHARE * dom.text_len[node]:
            node = shown[0]
            continue
        if len(shown) > 1 and _is_title_line(dom, shown[0], title):
            return Body(node, _strip_leading(dom, shown, title), shown[0])
        return body


def _is_title_line(dom: _View, v: int, title: str | None) -> bool:
    """A post's title line: the thread title again, or a heading of its own above the body
    ("Bug d'affichage de TeX"); posts and comments do not open with a heading."""
    return dom.tree.tags[v] in HEADING_TAGS or (_is_title(dom, v, title) and _own_line(dom, v))


def _title_lines(dom: _View, record: Sequence[int], title: str | None) -> list[int]:
    """Nodes of the record that repeat the thread title (a post's "Re: <title>" line)."""
    if not title:
        return []
    limit = len(title) + TITLE_PREFIX_CHARS
    return [v for root in record for v in dom.tree.subtree(root)
            if 0 < dom.text_len[v] <= limit and not dom.tree.children[v]
            and _is_title(dom, v, title) and _own_line(dom, v)]


def _own_line(dom: _View, v: int) -> bool:
    """True when v heads its block: the nearest block ancestor holds little text besides it
    (an author and a date at most); a title in the first words of a body is the body's."""
    u = v
    while dom.tree.parents[u] >= 0 and dom.tree.tags[u] not in BLOCK_TAGS:
        u = dom.tree.parents[u]
    return dom.text_len[u] <= dom.text_len[v] + MAX_DATE_LINE_CHARS


def _is_title(dom: _View, v: int, title: str | None) -> bool:
    """True when v's text is the thread title, possibly behind a short reply prefix."""
    if not title or not 0 < dom.text_len[v] <= len(title) + TITLE_PREFIX_CHARS:
        return False
    return _is_title_text(dom.elements[v].text_content(), title)


def _is_title_text(raw: str, title: str) -> bool:
    """True when `raw` is `title` again, possibly behind a short reply prefix."""
    text = _key(raw)
    want = _key(title)
    if len(text) < MIN_TITLE_CHARS:
        return False
    least = max(MIN_TITLE_CHARS, TITLE_SHARE * len(want))
    return any(len(text) - k >= least and text[k:] in want
               for k in range(min(TITLE_PREFIX_CHARS, len(text)) + 1))


def _key(text: str) -> str:
    """Letters and digits only, case-folded: titles differ in punctuation and decoration."""
    return "".join(_NAME_CHAR_RE.findall(text)).casefold()


def _is_bar(dom: _View, v: int) -> bool:
    """A control bar, not writing: only link text, an element named as a menu, toolbar or
    share box, or a short text with such an element inside (a "Report" item)."""
    if _all_links(dom, v) or _bar_named(dom.elements[v]):
        return True
    return dom.text_len[v] <= MAX_BAR_CHARS and any(
        _bar_named(el) for el in dom.elements[v].iter() if isinstance(el.tag, str))


def _bar_named(el: HtmlElement) -> bool:
    return bool(BAR_HINT_RE.search(_names(el)))


def _names(el: HtmlElement) -> str:
    """An element's class and id words."""
    return f"{el.get('class') or ''} {el.get('id') or ''}"


def _all_links(dom: _View, v: int) -> bool:
    el = dom.elements[v]
    links = [len(normalize_space(a.text_content())) for a in el.iter("a")]
    return sum(links) >= dom.text_len[v] > 0 and max(links) <= MAX_BAR_CHARS


def _contains(dom: _View, v: int, u: int) -> bool:
    return v <= u < v + dom.tree.sizes[v]


def _ranges(dom: DomTree, nodes: Sequence[int]) -> list[range]:
    return [dom.tree.subtree(v) for v in nodes]


def _body_element(view: _View, body: Body) -> HtmlElement:
    """A detached copy of the body for rendering, without the records nested in it."""
    if body.keep is None:
        assert body.node is not None
        clone = _copy(view, body.node)
        clone.tail = None
        return clone
    wrapper = lxml.html.Element("div")
    if body.text_after is not None:
        wrapper.text = view.elements[body.text_after].tail
    for v in body.keep:
        wrapper.append(_copy(view, v))
    if len(wrapper):
        wrapper[-1].tail = None
    return wrapper


def _drop_title_line(root: HtmlElement, title: str | None) -> None:
    """Remove the body copy's first line when it is a title line (a heading, or the thread
    title again) and more text follows it."""
    if (root.text or "").strip():
        return
    first = next((el for el in root.iter() if isinstance(el.tag, str) and el is not root
                  and (el.text or "").strip()), None)
    if first is None:
        return
    line = first
    parent = line.getparent()
    while parent is not None and parent is not root and not (parent.text or "").strip() \
            and len(parent) == 1 and not (line.tail or "").strip():
        line, parent = parent, parent.getparent()
    text = normalize_space("".join(line.itertext()))
    heading = (line.tag in HEADING_TAGS or first.tag in HEADING_TAGS) \
        and not text.endswith(":")  # "AgentF posted:" heads a quote, it is no title
    repeats = bool(title) and _is_title_text(text, title or "") and _is_block_line(line)
    rest = len(normalize_space("".join(root.itertext()))) - len(text)
    if (heading or repeats) and rest > 0 and parent is not None:
        tail = line.tail
        previous = line.getprevious()
        parent.remove(line)
        if tail:
            if previous is not None:
                previous.tail = (previous.tail or "") + tail
            else:
                parent.text = (parent.text or "") + tail


def _drop_trailing_bars(root: HtmlElement) -> None:
    """Remove the control bars that close a post (reply, edit, vote, like lines)."""
    while len(root) > 1:
        last = root[-1]
        if not isinstance(last.tag, str) or (last.tail or "").strip():
            return
        names = " ".join(_names(el) for el in last.iter() if isinstance(el.tag, str))
        text = normalize_space("".join(last.itertext()))
        if not (TRAILING_BAR_RE.search(names) or BAR_HINT_RE.search(names)) \
                or len(text) > MAX_BAR_CHARS or next(last.iter(*MEDIA_TAGS), None) is not None:
            return
        root.remove(last)


def _is_block_line(line: HtmlElement) -> bool:
    """True when a line element is a block of its own, or the only text of its block."""
    block = line
    while block.tag not in BLOCK_TAGS and block.getparent() is not None:
        block = block.getparent()
    return len(normalize_space("".join(block.itertext()))) <= \
        len(normalize_space("".join(line.itertext()))) + TITLE_PREFIX_CHARS


def _copy(view: _View, v: int) -> HtmlElement:
    """A deep copy of node v without the nested records inside it (copy and original pair up
    in document order, the page holding no comments)."""
    clone = copy.deepcopy(view.elements[v])
    doomed = [r for r in view.nested if r in view.tree.subtree(v)]
    if doomed:
        twins = [el for el in clone.iter() if isinstance(el.tag, str)]
        for r in doomed:
            twin = twins[r - v]
            if twin.getparent() is not None:
                twin.drop_tree()
    return clone


# --- author, date, permalink --------------------------------------------------------------


def find_author(dom: _View, record: Sequence[int]) -> int | None:
    """The node naming the record's author: the first of the best candidates in document
    order, a hinted profile link before a profile link before an author-hinted name; never
    inside a quote."""
    best: tuple[int, int] | None = None
    for root in record:
        v, end = root, root + dom.tree.sizes[root]
        while v < end:
            if dom.hidden[v]:
                v += dom.tree.sizes[v]
                continue
            score = _author_score(dom, v)
            if score and (best is None or score > best[0]):
                best = (score, v)
            v += 1
    return None if best is None else best[1]


def _author_score(dom: _View, v: int) -> int:
    """4 for a profile link with an author hint on it or its parent (5 with one on its
    grandparent too), 3 for a hinted element that directly holds a short name, 2 for a
    profile link or a hinted link, 1 for a link with a hint two levels up or a `<cite>`
    (HTML's element for a name) outside quotes, else 0."""
    el = dom.elements[v]
    if not 0 < dom.text_len[v] <= MAX_AUTHOR_CHARS:
        return 0
    if el.tag != "a" and el.tag != NAME_TAG and not dom.tree.texts[v] and not _hinted(el):
        return 0  # no name of its own, no link, no hint: nothing to score
    parent = el.getparent()
    hinted = _hinted(el) or _hinted(parent)
    near = el.tag == "a" and parent is not None and _hinted(parent.getparent())
    named = el.tag == NAME_TAG and dom.tree.texts[v] != ""
    if el.tag != "a" and not named and not (hinted and (dom.tree.texts[v] or _wraps_name(el))):
        return 0
    text = _author_text(dom, v)
    if BYLINE_RE.match(text) or not _may_be_name(text) or _in_quote(el):
        return 0
    if el.tag == "a":
        profile = bool(PROFILE_HREF_RE.search(el.get("href") or ""))
        return 2 * profile + 2 * hinted + near
    return 3 if hinted else 1


def _wraps_name(el: HtmlElement) -> bool:
    """An author-named element whose name sits in formatting inside it, without a link
    (`<span class="username"><b><span>Futura</span></b></span>`)."""
    return _hinted(el) and next(el.iter("a"), None) is None and all(
        len(node) <= 1 for node in el.iter() if isinstance(node.tag, str))


def _may_be_name(text: str) -> bool:
    """Text with letters or digits that is neither an action ("Reply") nor a date."""
    return bool(_NAME_CHAR_RE.search(text)) and not NOT_AUTHOR_RE.match(text) \
        and parse_date(text) is None


def _author_text(dom: _View, v: int) -> str:
    """A link's text, or the name an element holds directly (before a title or a badge),
    without a trailing "says:" label ("тамара пишет:"); a lone label is no name."""
    if dom.elements[v].tag == "a" or not dom.tree.texts[v]:
        text = normalize_space(dom.elements[v].text_content())
    else:
        text = dom.tree.texts[v]
    if text.endswith(":"):
        words = text.split()
        text = " ".join(words[:-1]) if len(words) > 1 else ""
    return text


def _date_line(dom: DomTree | _View, pivot: int) -> int:
    """The line the date sits in: the pivot, or its parent when that is short."""
    parent = dom.tree.parents[pivot]
    if parent >= 0 and dom.text_len[parent] <= MAX_DATE_LINE_CHARS \
            and dom.text_len[parent] > dom.text_len[pivot]:
        return parent
    return pivot


def _line_link_author(dom: _View, pivot: int) -> int | None:
    """A link naming someone in the date's line ("by <a>Damien</a> on January 31, 2011"),
    for records whose author is neither hinted nor a profile link."""
    line = _date_line(dom, pivot)
    for v in dom.tree.subtree(line):
        el = dom.elements[v]
        if el.tag != "a" or not 0 < dom.text_len[v] <= MAX_AUTHOR_CHARS:
            continue
        text = normalize_space(el.text_content())
        if _may_be_name(text):
            return v
    return None


def _line_author(dom: DomTree, pivot: int) -> str | None:
    """The name before the date in its line, without labels ("Graham — July 11th, 2012",
    "by Damien on ..."), when it is a few words."""
    line = normalize_space(dom.elements[_date_line(dom, pivot)].text_content())
    match = parse_date(line)
    if match is None:
        return None
    words = _LINE_LABEL_RE.sub(" ", line[:match.start]).split()
    if 0 < len(words) <= MAX_NAME_WORDS and _NAME_CHAR_RE.search(" ".join(words)):
        return " ".join(words)
    return None


def _author_fields(dom: _View, v: int | None,
                   base_url: str | None) -> tuple[str | None, str | None]:
    if v is None:
        return None, None
    el = dom.elements[v]
    link = el if el.tag == "a" else None
    return _author_text(dom, v) or None, safe_url(link.get("href"), base_url) if link is not None \
        else None


def _hinted(el: HtmlElement | None) -> bool:
    if el is None:
        return False
    names = f"{_names(el)} {el.get('itemprop') or ''}"
    return bool(AUTHOR_HINT_RE.search(names)) and not NOT_AUTHOR_HINT_RE.search(names)


def _in_quote(el: HtmlElement) -> bool:
    return any(a.tag in QUOTE_TAGS for a in el.iterancestors())


def pick_pivot(dom: DomTree, pivots: Sequence[int]) -> int:
    """The pivot most likely to be the post date: not a "joined" date, then a
    machine-readable date, then the most complete date (a time, a full date)."""
    def rank(v: int) -> tuple[int, int, int, int]:
        text = dom.elements[v].text_content()
        match = parse_date(text)
        return (int(not MEMBER_SINCE_RE.search(text)),
                int(_attr_date(dom.elements[v]) is not None),
                int(match is not None and match.has_time),
                int(match is not None and (match.iso or "").count("-") == 2))
    return max(pivots, key=rank) if len(pivots) > 1 else pivots[0]


def read_date(dom: DomTree, pivot: int, context: PageContext) -> tuple[str | None, str | None]:
    """The date text the page shows and its ISO 8601 form."""
    el = dom.elements[pivot]
    text = normalize_space(el.text_content())
    match: DateMatch | None = parse_date(text, context.now, context.lang)
    parent = dom.tree.parents[pivot]
    if match is not None and not match.has_time and parent >= 0 \
            and dom.text_len[parent] <= MAX_DATE_LINE_CHARS:
        line = normalize_space(dom.elements[parent].text_content())
        wider = parse_date(line, context.now, context.lang)
        if wider is not None and wider.has_time and match.text in wider.text:
            match = wider
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
