"""Posts from MiBAT records: the thread a page holds, read record by record.

A record (`mibat.Region`) is a run of sibling subtrees holding one post. What it holds is
read from its structure, with the record's real pivots (the post dates MiBAT aligned across
records) as the landmark of its template part:

- **Body** (`postbody`): the part of the record beside its landmarks that holds the text,
  so the post text starts with what the user wrote.
- **Author, date, permalink** (`postfields`): read from the template part.
- **Depth.** How many other records of the thread contain the record (nested replies).
- **Consensus.** Where most records' bodies lie, the others' are looked for too.

Records nested in a record are read through `postview.RecordView`, which leaves them out.

Pure: no I/O, no clock (`now` is passed in).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

import lxml.html
from lxml.html import HtmlElement

from winnow.article import is_comments
from winnow.article_candidates import names_reviews
from winnow.mibat import Region, TreeMatcher, mine_regions, ranked_regions
from winnow.mibat_dom import DomTree, page_dom
from winnow.mibat_records import (
    RecordTemplate,
    declared_posts,
    lone_comments,
    lone_post,
    nesting_depths,
    same_kind_records,
    template_records,
    with_sibling_lists,
)
from winnow.page import HEADING_TAGS, Page, wn_id
from winnow.postauthors import place_authors
from winnow.postbody import (
    MAX_BAR_CHARS,
    Body,
    body_element,
    copied_bodies,
    copy_box,
    drop_title_line,
    locate_body,
    node_ranges,
    take_signature,
    tidy_body,
    title_lines,
    trim_title,
)
from winnow.postconsensus import Reading, agree_on_body
from winnow.postfields import (
    NAME_CHAR_RE,
    PROFILE_HREF_RE,
    author_fields,
    author_hinted,
    find_author,
    find_permalink,
    line_author,
    line_link_author,
    pick_pivot,
    read_date,
)
from winnow.postopening import opening_body, opening_box, opening_pivot
from winnow.postview import RecordView
from winnow.render import render_article
from winnow.result import Post
from winnow.router import MIN_THREAD_POSTS, are_posts
from winnow.tree import normalize_space

TITLE_CLASS_RE = re.compile(r"(?:^|[\s_-])(?:post-?|entry-?|story-?)?title(?:$|[\s_-])", re.I)
"""Class words of an element holding a story's title."""

MAX_REGION_TRIES = 3
"""Regions read as posts, best score first, before the page is said to have no posts."""

MIN_FREE_TEXT_CHARS = 40
"""Characters a record of an unsigned region needs to count as someone's writing."""

MIN_UNSIGNED_RECORDS = 4
"""Records an unsigned region needs to be read as posts: an article's few dated sections
(live updates, photos with dated captions) are no thread."""

PROSE_TAGS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "b", "em", "i", "a",
                        "span", "br", "blockquote", "ul", "ol", "figure", "img"})
"""Tags of an article's own flow: a record made only of these is a run of its paragraphs."""

MAX_FREE_LINK_SHARE = 0.5
"""Share of an unsigned region's text that may be link text: more is teasers or links."""

NAMED, PLACED, UNSIGNED = 2, 1, 0
"""How a region's records are signed: by markup (class words, profile links), by the
place of a name (`postauthors`), or not at all."""


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


MIN_ONE_VOICE_POSTS = 4
"""Records that all name one author, from this many on, are that author's list of stories
(`Thread.one_voice`); fewer may be a post and its writer's replies."""


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
    unsigned: bool = False
    """True when no region was signed and this one, named for comments, was taken for its
    free text (most of its posts dated): its posts stand without authors."""
    opening: Post | None = None
    """The topic's first post in a box of its own above the records (`postopening`): a
    thread's first post, which the page's role decides on (see `extractor`)."""

    def post_chars(self) -> list[int]:
        """The text length of each post."""
        return [len(post.text) for post in self.posts]

    def authored(self) -> int:
        """How many posts name an author; every post of an unsigned thread of free text
        (records need no author to be posts when nothing on the page signs records)."""
        if self.unsigned:
            return len(self.posts)
        return sum(1 for post in self.posts if post.author)

    def are_posts(self) -> bool:
        """Whether the records read as posts (see `router.are_posts`), two of them at least
        with words of their own (unless a learned template vouches for one): two records,
        one of them empty or only share buttons, are an article's byline and its echo."""
        if not self.learned and len(self.posts) >= MIN_THREAD_POSTS \
                and sum(1 for post in self.posts if _has_words(post)) < MIN_THREAD_POSTS:
            return False
        return are_posts(self.post_chars(), self.authored())

    def one_voice(self) -> bool:
        """True when MIN_ONE_VOICE_POSTS records or more all name one and the same author:
        a list of that author's stories (the "more from this writer" rail under an
        article), not a discussion, where several people write."""
        authors = {" ".join((post.author or "").casefold().split()) for post in self.posts}
        return len(self.posts) >= MIN_ONE_VOICE_POSTS and len(authors) == 1 and "" not in authors

    def comment_hint(self) -> bool:
        """True when a record or an ancestor of the region is named for comments."""
        return in_comments(self.dom, self.region)

    def review_hint(self) -> bool:
        """True when a record or an ancestor of the region (below the page's body) is named
        for customer reviews."""
        return in_reviews(self.dom, self.region)

    def holds(self, el: HtmlElement) -> bool:
        """True when `el` is inside one of the records."""
        return any(el is e for e in self.elements)

    def repeat_title(self, heading: HtmlElement) -> bool:
        """True when every record, MIN_THREAD_POSTS at least, holds a heading whose text
        holds the `heading`'s: the thread's title line each post repeats ("Re: <title>"),
        not an article's title in the one record that is the article."""
        title = normalize_space(heading.text_content()).casefold()
        if not title or len(self.region.records) < MIN_THREAD_POSTS:
            return False
        return all(any(title in normalize_space(h.text_content()).casefold()
                       for v in record for h in self.dom.elements[v].iter(*HEADING_TAGS))
                   for record in self.region.records)

    def starts_after(self, el: HtmlElement) -> bool:
        """True when `el` (an element of the page) starts before the first record."""
        first = self.region.records[0][0]
        for v in range(first - 1, -1, -1):
            if self.dom.elements[v] is el:
                return True
        return False


def opening_post(text: str, html: str, author: str | None, published: str | None) -> Post:
    """The first post of a thread "opened" by a body outside its records (see
    `router.thread_role`): the body found before the replies, signed with the page's byline
    and dated with its publication date."""
    return Post(author=author, published=published, text=text, html=html)


def _has_words(post: Post) -> bool:
    """True when a post holds text beyond a short row of links (share buttons, "Reply")."""
    if not post.text:
        return False
    if len(post.text) > MAX_BAR_CHARS or "<a" not in post.html:
        return True
    root = lxml.html.fragment_fromstring(post.html, create_parent="div")
    for link in list(root.iter("a")):
        link.drop_tree()
    return bool(NAME_CHAR_RE.search(root.text_content()))


def in_comments(dom: DomTree, region: Region) -> bool:
    """True when the region's first record or one of its ancestors is named for comments."""
    first = dom.elements[region.records[0][0]]
    return any(is_comments(el) for el in (first, *first.iterancestors()))


PAGE_TAGS = frozenset({"html", "body"})
"""Elements whose class words describe the whole page, not the records in it."""


def in_reviews(dom: DomTree, region: Region) -> bool:
    """True when the region's first record or one of its ancestors below the page's body is
    named for customer reviews (`article_candidates.names_reviews`)."""
    first = dom.elements[region.records[0][0]]
    return any(names_reviews(el) for el in (first, *first.iterancestors())
               if el.tag not in PAGE_TAGS)


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
    return any(_away(a.get("href") or "") and not author_hinted(a) and not author_hinted(el)
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
    if not dom.cands_below[0]:
        return None  # every way to posts below starts from a candidate pivot (a post date)
    matcher = TreeMatcher(dom.tree)
    ranked = ranked_regions(dom, mine_regions(dom, matcher))
    if not ranked and records is not None:
        region = template_records(dom, records)
        if region is not None:
            return _thread(dom, region, context, learned=True)
    tried = _TriedRegions(matcher, dom, ranked)
    for level in (NAMED, PLACED):  # signed regions first, names by markup before by place
        for region, signing, authors in tried:
            if signing == level:
                thread = _thread(dom, region, context, authors=authors)
                if thread.are_posts():
                    return thread
    lone = lone_comments(dom)
    if lone is not None:
        return _thread(dom, lone, context)
    for region, signing, authors in tried:
        if signing == UNSIGNED and len(region.records) >= MIN_UNSIGNED_RECORDS \
                and in_comments(dom, region) and _free_text(dom, region):
            thread = _thread(dom, region, context, unsigned=True, authors=authors)
            dated = sum(1 for post in thread.posts if post.date)
            if dated * 2 > len(thread.posts) and thread.are_posts():
                return thread
    if next(iter(tried), None) is None:
        declared = declared_posts(dom)
        if declared is not None:
            return _thread(dom, declared, context)
        single = lone_post(dom)
        if single is not None:
            return _thread(dom, single, context, learned=True)
    return None


class _TriedRegions:
    """The regions `find_thread` reads as posts, each with its signing and its records'
    authors (`_signing`): the first MAX_REGION_TRIES ranked regions with the records of their
    kind elsewhere (`same_kind_records`), story lists left out. Each is prepared when the
    iteration first reaches it: the best region is mostly a thread of signed posts by itself,
    and the ones after it are then never prepared (all steps are pure, so the order changes
    nothing)."""

    def __init__(self, matcher: TreeMatcher, dom: DomTree, ranked: Sequence[Region]) -> None:
        self.matcher, self.dom, self.ranked = matcher, dom, ranked
        self.prepared: list[tuple[Region, int, RecordAuthors]] = []
        self._next = 0
        """The position in `ranked` of the next region to prepare."""

    def __iter__(self) -> Iterator[tuple[Region, int, RecordAuthors]]:
        n = 0
        while n < len(self.prepared) or self._prepare_next():
            if n < len(self.prepared):
                yield self.prepared[n]
                n += 1

    def _prepare_next(self) -> bool:
        """Prepare the next ranked region (none when it is a story list); False when none
        is left."""
        if self._next >= min(len(self.ranked), MAX_REGION_TRIES):
            return False
        main = self.ranked[self._next]
        self._next += 1
        region = same_kind_records(self.matcher, self.dom,
                                   with_sibling_lists(self.dom, main, self.ranked))
        if not is_story_list(self.dom, region):
            self.prepared.append((region, *_signing(self.dom, region)))
        return True


def _signing(dom: DomTree, region: Region) -> tuple[int, RecordAuthors]:
    """How more than half the records name an author, as `region_posts` reads them: NAMED
    (class words, a profile link, a name in a comment's date line), PLACED (with names found
    by structure too) or UNSIGNED; checked before the records' bodies are rendered. With the
    records' authors it found (`RecordAuthors`), which reading the region reuses."""
    comments = in_comments(dom, region)
    views = [RecordView(dom, frozenset(), record) for record in region.records]
    authors = RecordAuthors.of(views, region.records)
    named = authors.named
    signed = 0
    for view, pivots, author in zip(views, region.pivots, named,
                                    strict=True):
        if author is not None:
            signed += 1
        elif comments:
            pivot = pick_pivot(dom, pivots)
            signed += line_link_author(view, pivot) is not None \
                or line_author(dom, pivot) is not None
    if signed * 2 > len(region.records):
        return NAMED, authors
    placed = authors.placed()
    signed += sum(1 for v, p in zip(named, placed, strict=True) if v is None and p is not None)
    return (PLACED if signed * 2 > len(region.records) else UNSIGNED), authors


def _free_text(dom: DomTree, region: Region) -> bool:
    """Whether unsigned records hold what people write: most records are boxes (not runs
    of paragraphs), have a line of text (MIN_FREE_TEXT_CHARS), and most of their text is
    not link text (teasers, link lists)."""
    texts = links = with_text = 0
    boxed = sum(1 for record in region.records
                if any(dom.tree.tags[v] not in PROSE_TAGS for v in record))
    if boxed * 2 <= len(region.records):
        return False  # runs of paragraphs: an article's sections, not posts in boxes
    for record in region.records:
        chars = sum(dom.text_len[v] for v in record)
        texts += chars
        links += sum(_link_chars(dom, v) for v in record)
        with_text += chars >= MIN_FREE_TEXT_CHARS
    return with_text * 2 > len(region.records) and links < MAX_FREE_LINK_SHARE * texts


def _link_chars(dom: DomTree, root: int) -> int:
    """The text length of the links in root's subtree."""
    chars, v, end = 0, root, root + dom.tree.sizes[root]
    while v < end:
        if dom.tree.tags[v] == "a":
            chars += dom.text_len[v]
            v += dom.tree.sizes[v]
        else:
            v += 1
    return chars


def _thread(dom: DomTree, region: Region, context: PageContext, learned: bool = False,
            unsigned: bool = False, authors: RecordAuthors | None = None) -> Thread:
    line_authors = in_comments(dom, region)
    readings = _readings(dom, region, context, line_authors, authors)
    posts = []
    for reading, depth in zip(readings, nesting_depths(dom, region), strict=True):
        post = _post(reading, context, line_authors)
        post.depth = depth
        posts.append(post)
    elements = [el for record in region.records for v in record
                for el in dom.elements[v].iter()]
    return Thread(region, _without_fillers(posts), elements, dom, learned, unsigned,
                  _opening(dom, region, readings, context, posts))


def _readings(dom: DomTree, region: Region, context: PageContext,
              line_authors: bool = False, authors: RecordAuthors | None = None
              ) -> list[Reading]:
    """Each record of `region` read, in page order. A record nested in another (a reply
    inside its parent comment) is left out of the outer record's body. Where a record's body
    lies is decided per record, then the place most records agree on is applied to the
    others (a one-word post must not pull its body into the header). With `line_authors`
    (comments), a name in the date's line is the author when nothing names one. The
    records' `authors` found while signing the region are theirs when no record nests
    another (their views read the tree alike); else they are found again."""
    roots = [record[0] for record in region.records]
    views = []
    for record in region.records:
        spans = [dom.tree.subtree(v) for v in record]
        nested = frozenset(r for r in roots if r not in record and any(r in s for s in spans))
        views.append(RecordView(dom, nested, record))
    if authors is None or any(view.nested for view in views):
        authors = RecordAuthors.of(views, region.records)
    readings = [_read_record(view, record, pivots, context, author, line_authors)
                for view, record, pivots, author in zip(
                    views, region.records, region.pivots, authors.merged(), strict=True)]
    _reread_copies(readings, context, line_authors)
    agree_on_body(readings, context.title)
    return readings


def _opening(dom: DomTree, region: Region, readings: Sequence[Reading],
             context: PageContext, posts: Sequence[Post]) -> Post | None:
    """The thread's opening post in a box of its own before the records (`postopening`),
    read from that box; None when there is none or it repeats the first record's post."""
    body = opening_body(dom, region, [r.body.node for r in readings
                                      if r.body.keep is None and r.body.node is not None])
    if body is None:
        return None
    box = opening_box(dom, region, body)
    view = RecordView(dom, frozenset(), [box])
    pivot = opening_pivot(dom, region, box, body)
    post = _post(Reading(view, [box], () if pivot is None else (pivot,),
                         find_author(view, [box]), Body(body)), context)
    if not post.text or posts and normalize_space(posts[0].text) == normalize_space(post.text):
        return None
    return post


LETTER_RE = re.compile(r"[^\W\d_]")
"""A letter: a post's words have some; a counter ("0" replies) has none."""


def _without_fillers(posts: list[Post]) -> list[Post]:
    """Posts without the ad blocks dressed as posts: no words (no text, or only a counter
    such as a collapsed replies label's "0"), no image and no link to a member, and
    unsigned, where most posts have text."""
    with_text = sum(1 for post in posts if post.text)
    if with_text * 2 < len(posts):
        return posts
    return [post for post in posts if post.author_url or "<img" in post.html
            or post.text and (post.author or LETTER_RE.search(post.text))]


@dataclass
class RecordAuthors:
    """Each record's author node: named by class words or a profile link
    (`postfields.find_author`), else found by structure (`postauthors.place_authors`, only
    when asked). A region's signing (`_signing`) and its reading (`_readings`) share one: on
    thread pages the authors were found twice."""

    views: Sequence[RecordView]
    records: Sequence[Sequence[int]]
    named: list[int | None]
    _placed: list[int | None] | None = None

    @classmethod
    def of(cls, views: Sequence[RecordView], records: Sequence[Sequence[int]]
           ) -> RecordAuthors:
        return cls(views, records, [find_author(view, record)
                                    for view, record in zip(views, records, strict=True)])

    def placed(self) -> list[int | None]:
        """Each record's author node found by structure (the place most named ones lie at)."""
        if self._placed is None:
            self._placed = place_authors(self.views, self.records, self.named)
        return self._placed

    def merged(self) -> list[int | None]:
        """Each record's author: its named node, else its placed one."""
        if all(v is not None for v in self.named):
            return self.named
        return [v if v is not None else p for v, p in zip(self.named, self.placed(),
                                                          strict=True)]


def _read_record(view: RecordView, record: Sequence[int], pivots: Sequence[int],
                 context: PageContext, author_v: int | None,
                 line_authors: bool = False) -> Reading:
    if author_v is None and line_authors:
        author_v = line_link_author(view, pick_pivot(view.dom, pivots))
    landmarks = [*pivots, *(() if author_v is None else (author_v,)),
                 *title_lines(view, record, context.title)]
    body = trim_title(view, locate_body(view, record, landmarks, context.title),
                       context.title)
    return Reading(view, record, pivots, author_v, body)


def _reread_copies(readings: list[Reading], context: PageContext, line_authors: bool) -> None:
    """Read again, without the copy, a record whose body copies an earlier one (a preview)."""
    copies = copied_bodies(readings[0].view, [r.body for r in readings]) if readings else []
    for n in copies:
        old = readings[n]
        boxes = frozenset(copy_box(old.view, v, old.record) for v in old.body.nodes())
        view = RecordView(old.view.dom, old.view.nested | boxes, old.record)
        author = find_author(view, old.record)
        if author is None and old.author is not None and not view.in_nested(old.author):
            author = old.author
        again = _read_record(view, old.record, old.pivots, context, author, line_authors)
        if any(view.text_len[v] for v in again.body.nodes()):
            readings[n] = again


def _post(reading: Reading, context: PageContext, line_authors: bool = False) -> Post:
    view, record, body = reading.view, reading.record, reading.body
    dom = view.dom
    pivot = pick_pivot(dom, reading.pivots) if reading.pivots else None
    date, published = read_date(dom, pivot, context.now, context.lang) \
        if pivot is not None else (None, None)
    element = body_element(view, body)
    drop_title_line(element, context.title)
    signature = take_signature(element)
    tidy_body(element)
    rendered = render_article(element, context.base_url)
    author, author_url = author_fields(view, reading.author, context.base_url)
    if author is None and line_authors and pivot is not None:
        author = line_author(dom, pivot)
    ids = [i for i in (wn_id(dom.elements[v]) for v in record) if i is not None] \
        if context.with_ids else []
    inside = node_ranges(dom, body.nodes())
    return Post(author=author, author_url=author_url, date=date, published=published,
                text=rendered.text.strip(), html=rendered.html,
                permalink=None if pivot is None
                else find_permalink(dom, record, pivot, inside, context.base_url),
                ids=ids, signature=_signature_text(signature, context.base_url))


def _signature_text(signature: HtmlElement | None, base_url: str | None) -> str:
    """A signature box's text as the reader renders it; empty for none."""
    if signature is None:
        return ""
    return render_article(signature, base_url).text.strip()
