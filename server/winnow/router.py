"""Page-type routing: is this page an article, a thread, or something else?

`looks_like_article` is a cheap check of its own, run before extraction, in the spirit of
Mozilla Readability's `isProbablyReaderable`: enough long, visible paragraphs outside noise
containers. It counts text per writing system, since a Chinese or Japanese character carries
about as much as a short word (readability issues 381 and 429).

`thread_role` places MiBAT's main record region (see `mibat.py`): a thread when its records
hold most of the page's user text and no article dominates, the comments of an article when
an article body comes before them, or nothing (a list of dated teasers, an archive).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain
from typing import Literal, cast
from urllib.parse import urlsplit

from lxml import etree

from winnow.article import is_noise_hint
from winnow.markdown import CJK_RE
from winnow.page import Page, ld_types, schema_type
from winnow.pagetype import PageType, readerless_probability
from winnow.result import PageKind

ThreadRole = Literal["thread", "opened", "comments", "none"]

MIN_PARAGRAPH_CHARS = 140
"""Paragraphs shorter than this add nothing to the article score (Readability: 140)."""

MIN_ARTICLE_SCORE = 20.0
"""Sum of sqrt(chars - 140) over paragraphs a page needs (Readability: 20)."""

CJK_WEIGHT = 3
"""A CJK character counts as this many Latin characters: roughly one word each."""

MIN_CONTENT_CHARS = 80
"""An extracted body shorter than this (weighted chars) is not an article."""

MIN_PAGE_SHARE = 0.5
"""A short body holding this share of the page's text is the page's content."""

_PARAGRAPH_TAGS = ("p", "pre", "blockquote")

DISCUSSION_TYPES = frozenset({"discussionforumposting", "qapage"})
"""schema.org types a page declares for itself when it is a discussion: a forum topic, or a
question with its answers (a comment or a social posting may be an article's)."""

_ITEMTYPES = etree.XPath("//*[@itemtype]/@itemtype")


def declares_discussion(page: Page) -> bool:
    """True when the page's JSON-LD or microdata declares a discussion (DISCUSSION_TYPES):
    the page says it is a forum topic or a question page, whatever its look."""
    itemtypes = cast(list[str], _ITEMTYPES(page.root))
    return any(schema_type(kind) in DISCUSSION_TYPES
               for kind in chain(ld_types(page.json_ld), itemtypes))


def weighted_length(text: str) -> int:
    """Length of stripped text with each CJK character counted CJK_WEIGHT times."""
    stripped = text.strip()
    return len(stripped) + (CJK_WEIGHT - 1) * len(CJK_RE.findall(stripped))


def looks_like_article(page: Page) -> bool:
    """True when the page has enough long visible paragraphs to be worth a reader view."""
    score = 0.0
    for el in page.body.iter(*_PARAGRAPH_TAGS):
        if is_noise_hint(el):
            continue
        length = weighted_length(el.text_content())
        if length < MIN_PARAGRAPH_CHARS:
            continue
        score += math.sqrt(length - MIN_PARAGRAPH_CHARS)
        if score > MIN_ARTICLE_SCORE:
            return True
    return False


READERLESS_TYPES = frozenset({"listing", "product", "service"})
"""Page types (`pagetype`) that get no reader view: a listing, a product or a service page
is not read as prose; its main region still goes to the corpus as `main_text`."""


REVIEWED_TYPES = frozenset({"product", "service"})
"""Readerless types whose signed records (MiBAT's) are what buyers and clients wrote beside
the page's content: a product's reviews, a service's testimonials. A listing's records may be
a thread: a link aggregator's comment page reads as a listing to the classifier."""

NO_THREAD_PROBABILITY = 0.8
"""Probability of one of REVIEWED_TYPES from which a page opens no thread. Taking a thread's
posts away needs a surer type than taking away a reader view (`pagetype`'s 0.7): two Hacker
News item pages of forums/ read as products at 0.72 and 0.74; WCXB's tune product pages whose
reviews were read as a thread are products at 0.85 to 0.98."""


REVIEWS_LEAN = 0.5
"""Probability of the readerless types (listing, product and service together) from which a
page's records named for customer reviews (`posts.Thread.review_hint`) are reviews, not a
thread: WCXB's product pages are often taken for listings (out of fold, a product's
probability is spread over the two), so the product's own probability cannot decide alone.
On WCXB's tune pages, records so named are reviews on products, services and collections;
a forum's page names its records so only in the page's own body classes."""


def readerless_records(role: ThreadRole, page_type: PageType,
                       reviews: bool = False) -> ThreadRole:
    """The record region's role on a page of type `page_type`: a page of one of
    REVIEWED_TYPES at NO_THREAD_PROBABILITY or more, or one leaning to the readerless types
    (REVIEWS_LEAN) whose records are named for `reviews`, opens no thread and carries no
    comments (role "none": its records stay out of its main region as any records that are
    not a thread do)."""
    label = page_type.label
    if label in REVIEWED_TYPES and page_type.probability(label) >= NO_THREAD_PROBABILITY:
        return "none"
    if reviews and readerless_probability(page_type) >= REVIEWS_LEAN:
        return "none"
    return role


ITEM_RECORDS_SHARE = 0.4
"""Share of the page's main region below which the records of a page leaning to the
readerless types are items of a listing (signed teasers, dated entries, attributed quotes)
rather than a thread: a thread's posts are most of its region (0.45 and over on WCXB's and
forums/'s tune forum pages but one whose region is a whole portal), a listing's records a
part of its cards beside their titles, summaries and the page's own text."""


def is_front_page(url: str | None) -> bool:
    """Whether `url` is a site's front page: no path beyond "/" (a query, such as a tracking
    tag, may follow); not a page without an address. A front page lists the site's stories,
    topics or products: its signed records are teasers, never one topic's thread, whatever
    the page type says (WCXB's tune front pages are listings, services and collections but
    for one blog)."""
    parts = urlsplit((url or "").strip())
    return bool(parts.netloc) and not parts.path.strip("/")


def records_are_items(post_chars: Sequence[int], region_chars: int) -> bool:
    """Whether records of these text lengths, on a page leaning to the readerless types, are
    a listing's items: they hold under ITEM_RECORDS_SHARE of the weighted length of its main
    region's text, `region_chars`."""
    return sum(post_chars) < ITEM_RECORDS_SHARE * region_chars


def route(page: Page, content_text: str, page_chars: int, titled: bool = False,
          page_type: str = "article") -> PageKind:
    """Decide the page kind: "other" for a page whose type (`page_type`, see `pagetype`) is
    one of READERLESS_TYPES; else an article when the page passes the cheap check, when ECON
    found a body of real length, when the body sits right under the page's title heading
    (`titled`: a photo post's caption is short but is the post), or when the body is most
    of a tiny page (then it is the page's message, not a fragment of a portal); anything
    else, and a body without text however the page looks, is "other", no reader view."""
    if page_type in READERLESS_TYPES:
        return "other"
    length = weighted_length(content_text)
    if not length:
        return "other"  # a reader view without text: the page passed the cheap check elsewhere
    if looks_like_article(page) or length >= MIN_CONTENT_CHARS:
        return "article"
    if titled or len(content_text.strip()) >= MIN_PAGE_SHARE * page_chars:
        return "article"
    return "other"


MIN_THREAD_POSTS = 2
"""A thread needs two records on a single page (MiBAT section 5: one record is no list)."""

THREAD_SHARE = 0.5
"""Share of the user text (post text plus the article body found outside the records) the
records must hold for the page to be a thread: a forum's posts are its content, while an
article's comments follow a body that stands on its own."""

MIN_POST_CHARS = 10
"""Mean characters of text per record below which a record list is not posts (date links,
archive lists, icon rows)."""


MIN_STORY_CHARS = 10
"""An article before comment-named records needs only a line (a photo post's title and
caption): its comments are still comments, not a thread."""

MIN_AUTHORED_SHARE = 0.5
"""Share of the records that must name an author to be posts (more than half): forum posts
and comments are signed, lists of dated teasers and archive entries are not."""


def are_posts(post_chars: Sequence[int], authored: int) -> bool:
    """Whether records with these text lengths, `authored` of them signed, are posts."""
    n = len(post_chars)
    return bool(n) and sum(post_chars) >= MIN_POST_CHARS * n \
        and authored > MIN_AUTHORED_SHARE * n


def thread_role(post_chars: Sequence[int], authored: int, article_chars: int,
                article_before: bool, comment_hint: bool, learned: bool = False,
                headed: bool = False, forum: bool = False) -> ThreadRole:
    """What the page's record region is: "thread", "opened", "comments" or "none".

    `post_chars` are the text lengths of the records' bodies and `authored` how many name an
    author; `article_chars` is the weighted length of the article body found outside the
    records and `article_before` whether that body precedes them; `comment_hint` says the
    region sits in a container named for comments. With a learned record template
    (`learned`), one record is enough for a thread. Two records one of which holds the
    page's title heading (`headed`) are an article and a box beside it, not a thread: a
    thread's title heads its posts. On a page the page-type classifier is sure is a forum
    (`forum`), what would be an article's comments is a thread "opened" by that body: the
    topic's first post, written in another template than the replies (its date in the topic
    header, the replies in a box named for comments); and two records, the first holding the
    title heading, are a question and its one answer.
    """
    n = len(post_chars)
    if not are_posts(post_chars, authored):
        return "none"
    total = sum(post_chars)
    if article_chars >= MIN_STORY_CHARS and article_before and comment_hint:
        return "opened" if forum else "comments"
    if headed and n <= MIN_THREAD_POSTS and not forum:
        return "none"
    if (n >= MIN_THREAD_POSTS or learned) and total >= THREAD_SHARE * (total + article_chars):
        return "thread"
    return "none"
