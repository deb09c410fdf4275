"""Tests for `winnow.metadata`: one small page per source, odd input, and the corpus rates."""

from __future__ import annotations

import json
import re

import pytest
from helpers import require_corpus
from winnow.byline import MAX_SCANNED_ELEMENTS
from winnow.metadata import (
    Metadata,
    clean_byline,
    extract_metadata,
    find_title_heading,
    normalize_date,
    text_similarity,
)
from winnow.page import Page, parse_page

URL = "http://fakehost/test/page.html"
TITLE_EXACT_MIN = 0.90
"""Share of corpus pages whose title must equal Readability's expected title exactly."""
LANG_DIR_MIN = 0.95
"""Share of corpus pages whose `lang` and `dir` must equal the expected values."""
DATE_DAY_MIN = 0.90
"""Share of corpus pages with an expected publishedTime whose date falls on the same day
(32 of 33 when written)."""


def page_of(head: str = "", body: str = "", html_attrs: str = "", url: str | None = URL) -> Page:
    """Build a page from head and body markup."""
    return parse_page(f"<!DOCTYPE html><html {html_attrs}><head>{head}</head>"
                      f"<body>{body}</body></html>", url)


def meta_of(head: str = "", body: str = "", **kwargs: str) -> Metadata:
    """Extract metadata from head and body markup."""
    return extract_metadata(page_of(head, body, **kwargs))


def ld(data: object) -> str:
    """A JSON-LD script block holding `data`."""
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


# --- meta tags --------------------------------------------------------------------------------

def test_open_graph_and_plain_meta_tags() -> None:
    md = meta_of(
        '<title>Ignored | Site</title>'
        '<meta property="og:title" content="The og title">'
        '<meta property="og:site_name" content="Example News">'
        '<meta property="og:description" content="What the story says.">'
        '<meta name="author" content="Jane Doe">'
        '<meta property="article:published_time" content="2021-11-01T10:52:50+0100">')
    assert md.title == "The og title"
    assert md.site_name == "Example News"
    assert md.description == "What the story says."
    assert md.byline == "Jane Doe"
    assert md.published == "2021-11-01T10:52:50+01:00"


def test_dublin_core_beats_open_graph_and_properties_may_be_lists() -> None:
    md = meta_of(
        '<meta property="og:title twitter:title" content="A title">'
        '<meta property="x:title dc:title" content="Preferred title">'
        '<meta property="dc:creator" content="Creator Name">'
        '<meta name="author" content="Other Name">'
        '<meta property="dc:description og:description" content="Preferred description">'
        '<meta name="description" content="Plain description">')
    assert md.title == "Preferred title"
    assert md.byline == "Creator Name"
    assert md.description == "Preferred description"


def test_parsely_and_itemprop_meta() -> None:
    md = meta_of('<meta name="parsely-title" content="Parsely Title">'
                 '<meta name="parsely-author" content="Pat Author">'
                 '<meta name="parsely-pub-date" content="2024-04-20T04:20:00.000Z">')
    assert (md.title, md.byline, md.published) == (
        "Parsely Title", "Pat Author", "2024-04-20T04:20:00+00:00")
    md = meta_of('<meta itemprop="datePublished" content="2019-02-03">')
    assert md.published == "2019-02-03"


def test_article_author_url_is_not_a_byline_and_entities_are_unescaped() -> None:
    md = meta_of('<meta property="article:author" content="https://facebook.com/someone">'
                 '<meta property="og:title" content="Tom &amp;amp; Jerry &#39;s">')
    assert md.byline is None
    assert md.title == "Tom & Jerry 's"


# --- JSON-LD ----------------------------------------------------------------------------------

def test_json_ld_graph_with_id_references() -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "@id": "#site", "name": "The Site"},
            {"@type": "Person", "@id": "#jane", "name": "Jane Doe"},
            {"@type": "Organization", "@id": "#org", "name": "Example Media"},
            {"@type": ["NewsArticle"], "headline": "Graph headline",
             "author": {"@id": "#jane"}, "publisher": {"@id": "#org"},
             "datePublished": "2020-01-02T03:04:05Z", "description": "LD description",
             "image": {"@type": "ImageObject", "url": "/img/lead.jpg"}},
        ],
    }
    md = meta_of(ld(graph) + '<meta property="og:title" content="Meta title">')
    assert md.title == "Graph headline"
    assert md.byline == "Jane Doe"
    assert md.site_name == "Example Media"
    assert md.published == "2020-01-02T03:04:05+00:00"
    assert md.description == "LD description"
    assert md.lead_image == "http://fakehost/img/lead.jpg"


@pytest.mark.parametrize(("author", "expected"), [
    ("Plain String", "Plain String"),
    ({"@type": "Person", "name": " Object Name "}, "Object Name"),
    ([{"name": "Stella Kim"}, {"name": "Jennifer Jett"}, {"url": "x"}],
     "Stella Kim, Jennifer Jett"),
    ([{"name": "https://example.com/me"}], None),
])
def test_json_ld_author_shapes(author: object, expected: str | None) -> None:
    data = {"@context": "http://schema.org", "@type": "BlogPosting", "headline": "H",
            "author": author}
    assert meta_of(ld(data)).byline == expected


def test_json_ld_name_versus_headline_follows_the_page_title() -> None:
    data = {"@context": "http://schema.org", "@type": "NewsArticle", "name": "Site Name",
            "headline": "West Ham threaten the giants this season"}
    md = meta_of("<title>West Ham threaten the giants this season - Site Name</title>" + ld(data))
    assert md.title == "West Ham threaten the giants this season"


def test_bad_json_ld_is_ignored() -> None:
    head = ('<script type="application/ld+json">{not json</script>'
            + ld([1, "two", None, [3]])
            + ld({"@context": "http://example.org/vocab", "@type": "Article", "headline": "No"})
            + ld({"@type": "Recipe", "name": "Not an article"})
            + ld({"@type": "Article", "headline": 42, "author": {"name": ["x"]}})
            + '<meta property="og:title" content="Meta title">')
    md = meta_of(head)
    assert md.title == "Meta title"
    assert md.byline is None


def test_non_dict_json_ld_in_page_object_does_not_raise() -> None:
    page = page_of("<title>Plain enough title here</title>")
    page.json_ld = [None, 3, "x", {"@graph": "nope"}, {"@type": 5}, [[[[[{"@type": "Article"}]]]]]]
    assert extract_metadata(page).title == "Plain enough title here"


# --- <title> cleaning ---------------------------------------------------------------------------

@pytest.mark.parametrize(("title", "expected"), [
    ("Get your Frontend JavaScript Code Covered | Code | Nicolas Perriault",
     "Get your Frontend JavaScript Code Covered | Code"),
    ("Lorem ipsum dolor sit amet – My website", "Lorem ipsum dolor sit amet"),
    ("Lorem ipsum dolor sit amet — My website", "Lorem ipsum dolor sit amet"),
    ("Site » A much longer article headline", "A much longer article headline"),
    ("Short one | Site", "Short one | Site"),
    ("Hello | World", "Hello | World"),
    ("Site: The real headline of the day", "The real headline of the day"),
    ("This is a long title with many words: Hello there",
     "This is a long title with many words: Hello there"),
    ("  Spaced \n   out   title text here  ", "Spaced out title text here"),
])
def test_title_separators(title: str, expected: str) -> None:
    assert meta_of(f"<title>{title}</title>").title == expected


def test_colon_title_kept_when_a_heading_repeats_it() -> None:
    md = meta_of("<title>Deep dive: what the data shows</title>",
                 "<h1>Deep dive: what the data shows</h1><p>text</p>")
    assert md.title == "Deep dive: what the data shows"


def test_short_title_replaced_by_the_only_h1() -> None:
    md = meta_of("<title>Home</title>", "<h1>An article heading that says more</h1>")
    assert md.title == "An article heading that says more"


def test_headline_meta_gives_the_title_without_the_site_prefix() -> None:
    md = meta_of('<title>NEWS | Technology | Apple sets sights on video</title>'
                 '<meta name="Headline" content="Apple sets sights on video">')
    assert md.title == "Apple sets sights on video"


def test_title_of_site_and_section_parts_is_the_heading_showing_one_part() -> None:
    md = meta_of("<title>NEWS.com - Victim May Be Blind - Local News | National News</title>",
                 "<h1>Victim May Be Blind</h1><p>text</p>")
    assert md.title == "Victim May Be Blind"
    assert md.heading is not None and md.heading.tag == "h1"
    other = meta_of("<title>NEWS.com - Victim May Be Blind - Local News | National News</title>",
                    "<h1>Something else entirely here</h1><p>text</p>")
    assert other.heading is None and "Victim May Be Blind" in (other.title or "")


def test_site_colon_headline_title_finds_the_heading_showing_the_headline() -> None:
    """Blogger titles read "Blog Name: Post Title"; the post's h3 shows the headline."""
    md = meta_of("<title>10Q Detective: Research in Backward's Motion?</title>",
                 "<h1>10Q Detective</h1><h3>Research in Backward's Motion?</h3><p>text</p>")
    assert md.title == "Research in Backward's Motion?"
    assert md.heading is not None and md.heading.tag == "h3"


def test_missing_title() -> None:
    assert meta_of("", "<p>No title anywhere.</p>").title is None


# --- byline -------------------------------------------------------------------------------------

def test_body_byline_from_class_rel_and_itemprop() -> None:
    assert meta_of("", '<div class="byline">By   Jane\n Doe</div><p>x</p>').byline == "Jane Doe"
    assert meta_of("", '<p>Words <a rel="author" href="/a">Ann Lee</a></p>').byline == "Ann Lee"
    body = ('<div itemprop="author" itemscope><span itemprop="name">Bo Chen</span>'
            '<span>Staff writer</span></div>')
    assert meta_of("", body).byline == "Bo Chen"


def test_body_byline_skips_comments_hidden_and_long_elements() -> None:
    body = ('<div class="author-bio">' + "Long biography text. " * 10 + '</div>'
            '<div class="byline" style="display:none">Hidden Person</div>'
            '<ol class="comment-list"><li><cite class="author">Commenter</cite></li></ol>'
            '<span class="byline">Real Author</span>')
    assert meta_of("", body).byline == "Real Author"


def test_body_byline_is_searched_in_the_first_elements_only() -> None:
    """The body's own element and the MAX_SCANNED_ELEMENTS after it are searched (the
    page's DomTree elements, in document order): a byline just past them is not found."""
    def body(fillers: int) -> str:
        return "<p>x</p>" * fillers + '<span class="byline">Ann Lee</span>'

    assert meta_of("", body(MAX_SCANNED_ELEMENTS - 1)).byline == "Ann Lee"
    assert meta_of("", body(MAX_SCANNED_ELEMENTS)).byline is None


def test_meta_author_beats_body_byline() -> None:
    md = meta_of('<meta name="author" content="Meta Person">', '<p class="byline">Body</p>')
    assert md.byline == "Meta Person"


@pytest.mark.parametrize(("author", "site", "url", "shown"), [
    ("BBC News", "BBC News", URL, False),
    ("GitHub", "GitHub Resources", URL, False),
    ("LTO", "Legal Tribune Online", URL, False),
    ("Rapid7", None, "https://www.rapid7.com/blog/post", False),
    ("paperium.net", None, "https://paperium.net/article/1", False),
    ("Jane Doe", "BBC News", URL, True),
    ("Jane Doe, The Commercial Appeal", "The Commercial Appeal", URL, True),
    ("Ann Example", None, "https://annexample.com/post", True),
])
def test_byline_that_only_repeats_the_site_is_not_shown(author: str, site: str | None, url: str,
                                                        shown: bool) -> None:
    head = f'<meta name="author" content="{author}">'
    if site:
        head += f'<meta property="og:site_name" content="{site}">'
    md = meta_of(head, '<p class="byline">By Someone Else</p>', url=url)
    assert md.byline == (author if shown else None)
    assert md.site_name == site


@pytest.mark.parametrize(("raw", "expected"), [
    ("By Jane Doe", "Jane Doe"),
    ("by:\n\t\tLaurie Oakes", "Laurie Oakes"),
    ("Par Sébastien Farcis", "Sébastien Farcis"),
    ("Nathan Willis March 25, 2015", "Nathan Willis"),
    ("GILLIAN MOHNEY March 11, 2015 3:46 PM", "GILLIAN MOHNEY"),
    ("Author: Kim", "Kim"),
    ("By", None),
    ("Last Updated: January 7, 2025", None),
    ("By David Chartier | Last updated March 12, 2009 10:42 AM CT", "David Chartier"),
    ("By Jo Smith, Updated 3:49 PM EST, Fri January 4, 2013", "Jo Smith"),
    ("Jo Smith-Jones", "Jo Smith-Jones"),
    ("  ", None),
    (None, None),
])
def test_clean_byline(raw: str | None, expected: str | None) -> None:
    assert clean_byline(raw) == expected


# --- lang, dir, dates -------------------------------------------------------------------------

def test_lang_and_dir() -> None:
    md = meta_of("<title>t</title>", "<p>x</p>", html_attrs='lang="ar" dir="rtl"')
    assert (md.lang, md.dir) == ("ar", "rtl")
    page = parse_page('<html dir="ltr"><body dir="rtl"><p>x</p></body></html>')
    assert extract_metadata(page).dir == "rtl"
    page = parse_page('<html><body><div><article dir="rtl"><p>x</p></article></div></body></html>')
    assert extract_metadata(page).dir == "rtl"
    assert meta_of("", "<p>x</p>").dir is None and meta_of("", "<p>x</p>").lang is None


def test_dir_from_the_content_element() -> None:
    page = parse_page('<html dir="ltr"><body><nav>m</nav><div dir="rtl"><section id="c">'
                      '<p>x</p></section></div></body></html>')
    content = page.root.get_element_by_id("c")
    assert extract_metadata(page, content).dir == "rtl"


def test_published_from_time_element() -> None:
    body = ('<time datetime="2001-01-01">comment</time>'
            '<time class="entry-published" datetime="2015-07-10T09:53:00-04:00">Jul 10</time>')
    assert meta_of("", body).published == "2015-07-10T09:53:00-04:00"


def test_date_sources_in_their_order_of_trust() -> None:
    marked = '<time class="published" datetime="2020-03-01">1 March</time>'
    span = '<span itemprop="datePublished" content="2020-03-02">2 March</span>'
    json_ld = ld({"@type": "NewsArticle", "datePublished": "2020-03-03"})
    meta = '<meta property="article:published_time" content="2020-03-04">'
    plain = '<time datetime="2020-03-05">5 March</time>'
    assert meta_of(json_ld + meta, plain + span + marked).published == "2020-03-01"
    assert meta_of(json_ld + meta, plain + span).published == "2020-03-02"
    assert meta_of(json_ld + meta, plain).published == "2020-03-03"
    assert meta_of(meta, plain).published == "2020-03-04"
    assert meta_of("", plain).published == "2020-03-05"


def test_dates_of_other_schema_nodes_and_meta_names() -> None:
    web_page = ld({"@type": "WebPage", "datePublished": "2022-10-05T08:00:00Z"})
    assert meta_of(web_page).published == "2022-10-05T08:00:00+00:00"
    for name in ("pubdate", "publish-date", "DC.date.issued", "sailthru.date", "date"):
        head = f'<meta name="{name}" content="2021-09-09">'
        assert meta_of(head).published == "2021-09-09", name
    modified = '<meta property="article:modified_time" content="2025-01-01">'
    assert meta_of(modified).published is None
    assert meta_of(modified + '<meta property="og:published_time" content="2024-10-08">'
                   ).published == "2024-10-08"


def test_time_of_an_update_or_in_furniture_is_not_the_publication_date() -> None:
    body = ('<nav><time datetime="2001-01-01">today</time></nav>'
            '<p>Updated <time datetime="2018-07-24">Jul 24</time></p>'
            '<span class="date-modified"><time datetime="2018-07-25">x</time></span>'
            '<p>Posted <time datetime="2017-12-15">Dec 15</time></p>')
    assert meta_of("", body).published == "2017-12-15"


def test_date_shown_as_text_near_the_title() -> None:
    head = "<title>A story worth reading today</title>"
    body = ('<p>Other news, 1 May 2020</p><h1>A story worth reading today</h1>'
            '<div class="meta"><span>By Ann Lee</span><span>December 17, 2025</span></div>'
            '<p>The story begins here and goes on for a while, as stories do.</p>')
    assert meta_of(head, body).published == "2025-12-17"
    relative = body.replace("December 17, 2025", "3 weeks ago").replace(", 1 May 2020", "")
    assert meta_of(head, relative).published is None


@pytest.mark.parametrize(("raw", "expected"), [
    ("2017-11-03 03:01:00.000000", "2017-11-03T03:01:00"),
    ("2023-06-07T20:54:26.829Z", "2023-06-07T20:54:26+00:00"),
    ("2021-11-01T10:52:50+0100", "2021-11-01T10:52:50+01:00"),
    ("2017-11-24T18:42:20.314667123", "2017-11-24T18:42:20"),
    ("2024-06-25", "2024-06-25"),
    ("Fri, 24 Jul 2015 05:36:09 +0100", "2015-07-24T05:36:09+01:00"),
    ("July 10, 2015", "2015-07-10"),
    ("yesterday", None),
    ("", None),
])
def test_normalize_date(raw: str, expected: str | None) -> None:
    assert normalize_date(raw) == expected


# --- lead image -------------------------------------------------------------------------------

def test_lead_image_is_made_absolute() -> None:
    head = '<meta property="og:image" content="/images/lead.jpg">'
    assert meta_of(head).lead_image == "http://fakehost/images/lead.jpg"
    head = ('<base href="http://cdn.example/assets/">'
            '<meta property="og:image" content="pic.png">'
            '<meta property="og:image" content="second.png">')
    assert meta_of(head).lead_image == "http://cdn.example/assets/pic.png"
    head = '<meta name="twitter:image" content="//img.example/x.jpg">'
    assert meta_of(head).lead_image == "http://img.example/x.jpg"
    assert meta_of('<meta property="og:image" content="data:image/gif;base64,R0">').lead_image \
        is None
    assert meta_of(head, url=None).lead_image == "//img.example/x.jpg"


# --- title heading ----------------------------------------------------------------------------

def test_find_title_heading() -> None:
    page = page_of("", "<h2>The  Story Title</h2><h1>Site name</h1><h1>The story title</h1>"
                       "<p>text</p>")
    heading = find_title_heading(page, "The story title")
    assert heading is not None and heading.tag == "h1" and heading.text == "The story title"
    near = page_of("", "<h2>“The story title.”</h2>")
    assert find_title_heading(near, "The story title") is not None
    assert find_title_heading(page_of("", "<h1>A long story title</h1>"),
                              "A long story title | Code") is not None
    assert find_title_heading(page_of("", "<h1>Something else</h1>"), "The story title") is None
    assert find_title_heading(page, None) is None


def test_blog_post_title_in_h3_is_the_title_heading() -> None:
    page = page_of("", "<h1>My blog</h1><h3>The story title</h3><h4>The story title</h4>")
    heading = find_title_heading(page, "The story title")
    assert heading is not None and heading.tag == "h3"
    both = page_of("", "<h3>The story title</h3><h2>The story title</h2>")
    assert find_title_heading(both, "The story title").tag == "h2"


def test_text_similarity() -> None:
    assert text_similarity("a b c", "a b c") == 1.0
    assert text_similarity("", "a") == 0.0
    assert text_similarity("alpha beta", "alpha gamma") < 0.75


# --- odd input --------------------------------------------------------------------------------

@pytest.mark.parametrize("markup", [
    "<p>just a paragraph</p>",
    "plain text only",
    "<html><body></body></html>",
    "<html><head><meta><meta content='x'><meta name='author'><title></title></head></html>",
    "<title>日本語のタイトル｜サイト</title><p>本文</p>",
    "<html lang='  '><body dir='sideways'><h1></h1><time datetime=''>x</time></body></html>",
    "<meta property='og:image' content='http://[bad'><meta name='author' content='&bogus;'>",
])
def test_odd_pages_do_not_raise(markup: str) -> None:
    md = extract_metadata(parse_page(markup, URL))
    assert isinstance(md, Metadata)
    assert md.dir in (None, "ltr", "rtl")


# --- corpus -----------------------------------------------------------------------------------

def _ws(text: object) -> str:
    return re.sub(r"\s+", " ", text).strip() if isinstance(text, str) else ""


def test_readability_corpus_rates() -> None:
    base = require_corpus("articles", "readability") / "articles" / "readability"
    cases = sorted(base.glob("*/expected-metadata.json"))
    assert cases, f"no readability cases under {base}"
    hits = {"title": 0, "lang": 0, "dir": 0}
    dated = dated_right = 0
    misses: list[str] = []
    for case in cases:
        expected = json.loads(case.read_text(encoding="utf-8"))
        page = parse_page((case.parent / "source.html").read_bytes(), URL)
        md = extract_metadata(page)
        if expected.get("publishedTime"):
            dated += 1
            dated_right += (md.published or "")[:10] == \
                (normalize_date(expected["publishedTime"]) or "")[:10]
        if _ws(md.title) == _ws(expected.get("title")):
            hits["title"] += 1
        else:
            misses.append(f"{case.parent.name}: {md.title!r} != {expected.get('title')!r}")
        hits["lang"] += (md.lang or None) == (expected.get("lang") or None)
        hits["dir"] += (md.dir or None) == (expected.get("dir") or None)
    rates = {field: count / len(cases) for field, count in hits.items()}
    assert rates["title"] >= TITLE_EXACT_MIN, f"{rates}\n" + "\n".join(misses)
    assert rates["lang"] >= LANG_DIR_MIN and rates["dir"] >= LANG_DIR_MIN, rates
    assert dated and dated_right / dated >= DATE_DAY_MIN, (dated_right, dated)


def test_title_with_unknown_site_suffix_finds_its_heading() -> None:
    page = page_of("", "<h1>Honey Boo Boo hates pop</h1><p>text</p>")
    assert find_title_heading(page, "Honey Boo Boo hates pop « Celeb Laundry") is not None
    site_first = page_of("", "<h1>Inside Google Desktop</h1>")
    assert find_title_heading(site_first, "Inside Google Desktop: Featured gadget") is None
