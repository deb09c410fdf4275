"""Unit tests of the ECON steps (econ.py) and of the article layer built on them (article.py)."""

from __future__ import annotations

import pytest
from lxml.html import HtmlElement
from winnow import article, econ, extract
from winnow.econ import TextPara, TreeStats
from winnow.page import parse_page

SENTENCE = ("The council met on Tuesday, and it voted on the new budget. "
            "Residents were pleased, mostly, though some objected.")


def stats_of(html: str) -> TreeStats:
    """Parse a page and count its <body>."""
    return econ.collect_stats(parse_page(html).body)


def by_id(stats: TreeStats, value: str) -> int:
    """Index of the element whose id attribute is `value`."""
    for i, el in enumerate(stats.elements):
        if el.get("id") == value:
            return i
    raise AssertionError(f"no element with id {value!r}")


def ids_of(stats: TreeStats, indices: list[int] | tuple[int, ...]) -> list[str | None]:
    return [stats.elements[i].get("id") for i in indices]


def article_text(body: str) -> str:
    """The text of the article ECON extracts from a page with this <body>."""
    found = article.extract_article(parse_page(f"<html><body>{body}</body></html>"))
    assert found is not None
    return found.content.text_content()


def element(html: str) -> HtmlElement:
    """The first element inside <body> of a small snippet."""
    body = parse_page(f"<html><body>{html}</body></html>").body
    return body[0]


# --- punc_num ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("", 0),
    ("no marks at all", 0),
    ("Hello, world.", 2),
    ("Really? Yes! Wait; then: go.", 5),
    ("e.g. this", 1),  # the dot inside "e.g" is followed by a letter
    ("end.", 1),
    ("你好。世界，一、二！", 4),
    ("真的？是的；注意：好。", 4),
    ("مرحبا، عالم؛ لماذا؟", 3),
    ("全角．ピリオド｡と､", 3),
])
def test_punc_num_counts_prose_marks(text: str, expected: int) -> None:
    assert econ.punc_num(text) == expected


@pytest.mark.parametrize("text", ["3.5", "4:36:00", "15,303", "v1.2.3", "up 3.5 at 4:36:00"])
def test_punc_num_ignores_marks_inside_numbers(text: str) -> None:
    assert econ.punc_num(text) == 0


def test_punc_num_counts_number_followed_by_full_stop() -> None:
    assert econ.punc_num("It rose 3.5. Then it fell.") == 2


# --- collect_stats ----------------------------------------------------------------------------

def test_collect_stats_counts_subtrees_and_links() -> None:
    stats = stats_of('<html><body><div id="d"><p id="p">One, two. <a id="a" href="/">Link, here.'
                     '</a> Tail!</p></div></body></html>')
    d, p, a = by_id(stats, "d"), by_id(stats, "p"), by_id(stats, "a")
    assert stats.elements[0].tag == "body"
    assert stats.parent[p] == d and stats.parent[a] == p
    assert stats.punc[a] == 2 and stats.is_link[a]
    assert stats.punc[p] == 5 and stats.punc[d] == 5 and stats.punc[0] == 5
    assert stats.link_punc[p] == 2 and stats.content_punc(p) == 3
    assert stats.own_chars[d] == 0 and stats.own_chars[p] > 0
    assert stats.chars[p] == stats.own_chars[p] + stats.chars[a]
    assert stats.link_density(p) == pytest.approx(stats.chars[a] / stats.chars[p])
    assert list(range(p + 1, stats.end[p])) == [a]


def test_collect_stats_is_iterative_on_deep_trees() -> None:
    depth = 1500
    stats = stats_of("<html><body>" + "<div>" * depth + "Deep, deep text." + "</div>" * depth
                     + "</body></html>")
    assert stats.punc[0] == 2
    assert stats.end[0] == len(stats.elements)


# --- is_big_node ------------------------------------------------------------------------------

def test_is_big_node() -> None:
    stats = stats_of('<html><body><div id="wrap"><div id="text">Some words</div>'
                     '<p id="emptyp"></p><span id="span"></span><section id="sec"><img></section>'
                     '</div></body></html>')
    assert not econ.is_big_node(stats, by_id(stats, "wrap"))  # no text node of its own
    assert econ.is_big_node(stats, by_id(stats, "text"))  # father of a text node
    assert econ.is_big_node(stats, by_id(stats, "emptyp"))  # a line-breaking tag
    assert econ.is_big_node(stats, by_id(stats, "span"))  # an inline formatting tag
    assert not econ.is_big_node(stats, by_id(stats, "sec"))


def test_excluded_node_is_not_big() -> None:
    stats = stats_of('<html><body><p id="p">Text, here.</p></body></html>')
    p = by_id(stats, "p")
    assert econ.is_big_node(stats, p)
    econ.exclude_subtrees(stats, [p])
    assert not econ.is_big_node(stats, p)


# --- text_node_sets ---------------------------------------------------------------------------

def test_text_node_sets_breaks_runs_at_non_big_nodes() -> None:
    stats = stats_of('<html><body><div id="box"><p id="p1">One, two.</p><p id="p2">Three.</p>'
                     '<div id="gap"><img></div><p id="p3">Four.</p><b id="b">Five</b></div>'
                     '</body></html>')
    box = by_id(stats, "box")
    sets = [s for s in econ.text_node_sets(stats) if stats.parent[s.nodes[0]] == box]
    assert [ids_of(stats, s.nodes) for s in sets] == [["p1", "p2"], ["p3", "b"]]
    first, second = sets
    assert first.punc == 3 and second.punc == 1
    assert first.chars == len("One, two.") + len("Three.")
    # the non-big node forms no set, nor does the <body>/<div> chain above it
    all_nodes = {i for s in econ.text_node_sets(stats) for i in s.nodes}
    assert by_id(stats, "gap") not in all_nodes and box not in all_nodes


def test_text_node_sets_include_tails_between_nodes() -> None:
    stats = stats_of('<html><body><b id="b1">Bold</b> said: yes, <i id="i1">it</i>'
                     '</body></html>')
    (para,) = econ.text_node_sets(stats)
    assert ids_of(stats, para.nodes) == ["b1", "i1"]
    assert para.punc == 2  # ":" and "," in the tail of <b>
    assert para.chars == len("Bold") + len("said: yes,") + len("it")


def test_children_of_a_big_node_are_not_regrouped() -> None:
    """<tt><span>rsync</span></tt> inside a sentence is part of the sentence's text-para,
    not a punctuation-free text-para that Joint-para would prune."""
    stats = stats_of('<html><body><div id="box"><p id="p">Use <tt id="tt"><span id="s">rsync'
                     '</span></tt> (or similar), then.</p></div></body></html>')
    paras = econ.text_node_sets(stats)
    assert [ids_of(stats, para.nodes) for para in paras] == [["p"]]
    kept, pruned = econ.joint_para(paras)
    assert pruned == []


def test_text_node_sets_records_link_chars() -> None:
    stats = stats_of('<html><body><div><a id="a" href="/">Home</a><a href="/x">News</a></div>'
                     '</body></html>')
    (para,) = [s for s in econ.text_node_sets(stats) if stats.elements[s.nodes[0]].tag == "a"]
    assert para.link_chars == para.chars == 8


# --- joint_para -------------------------------------------------------------------------------

def test_joint_para_prunes_paras_without_punctuation() -> None:
    a = TextPara(nodes=(1, 2), chars=20, punc=0)
    b = TextPara(nodes=(3,), chars=30, punc=2)
    c = TextPara(nodes=(4, 5, 6), chars=5, punc=0)
    kept, pruned = econ.joint_para([a, b, c])
    assert kept == [b]
    assert pruned == [1, 2, 4, 5, 6]


def test_joint_para_on_real_page() -> None:
    stats = stats_of('<html><body><div><a id="h" href="/">Home</a><a id="n" href="/n">News</a>'
                     '</div><div><p id="p">A sentence, with marks.</p></div></body></html>')
    kept, pruned = econ.joint_para(econ.text_node_sets(stats))
    assert [ids_of(stats, k.nodes) for k in kept] == [["p"]]
    assert sorted(ids_of(stats, pruned)) == ["h", "n"]  # type: ignore[type-var]


# --- snippet_node -----------------------------------------------------------------------------

def test_snippet_node_is_first_node_of_longest_para() -> None:
    paras = [TextPara((1,), 10, 1), TextPara((5, 6), 50, 1, link_chars=45),
             TextPara((3, 4), 40, 2)]
    assert econ.snippet_node(paras) == 5
    assert econ.snippet_node(paras, size=lambda p: p.chars - p.link_chars) == 3
    assert econ.snippet_node([]) is None


# --- backtrack --------------------------------------------------------------------------------

def test_backtrack_stops_at_first_zero_distance() -> None:
    # p (2) -> story (4, adds) -> main (4, distance 0: stop) -> body (6)
    stats = stats_of('<html><body><div id="main"><h1>Title</h1><div id="story">'
                     '<p id="p">One, two.</p><p>Three, four.</p></div></div>'
                     '<div id="foot">Copyright, 2024.</div></body></html>')
    assert econ.backtrack(stats, by_id(stats, "p")) == by_id(stats, "story")


def test_backtrack_zero_at_first_step_returns_snippet() -> None:
    stats = stats_of('<html><body><div id="outer"><p id="p">Only, one.</p><p>words</p></div>'
                     '</body></html>')
    p = by_id(stats, "p")
    assert econ.backtrack(stats, p) == p


def test_backtrack_reaches_root_when_distance_never_zero() -> None:
    stats = stats_of('<html><body>Body, text. <div id="d">Div, text. <p id="p">Para, text.</p>'
                     '</div></body></html>')
    assert econ.backtrack(stats, by_id(stats, "p")) == 0


def test_backtrack_uses_given_punctuation_measure() -> None:
    stats = stats_of('<html><body><div id="d"><p id="p">Plain, text.</p>'
                     '<a href="/">Link, text.</a></div></body></html>')
    p, d = by_id(stats, "p"), by_id(stats, "d")
    # raw punctuation: the link adds marks, so the climb passes <p> and stops at <div>
    assert econ.backtrack(stats, p) == d
    # link-free punctuation: <div> adds nothing, so the climb stops at <p>
    assert econ.backtrack(stats, p, punc=stats.content_punc) == p


# --- extract_news -----------------------------------------------------------------------------

NEWS_PAGE = f"""<html><head><title>T</title></head><body>
<div id="nav"><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></div>
<div id="main"><h1>Headline here</h1>
<div id="story"><div id="meta"><span>By Jane</span><span>Tuesday</span></div>
<p id="first">{SENTENCE}</p><p>{SENTENCE}</p><p>Another paragraph, with more words. Fine.</p></div>
</div>
<div id="footer">Copyright 2024, Example Inc. All rights reserved.</div>
</body></html>"""


def test_extract_news_end_to_end() -> None:
    page = parse_page(NEWS_PAGE)
    result = econ.extract_news(page.body)
    assert result is not None
    stats = econ.collect_stats(page.body)
    assert stats.elements[result.summary].get("id") == "story"
    assert stats.elements[result.snippet].get("id") == "first"
    # the byline spans (punc 0) are pruned; nav links (also pruned) lie outside the summary
    assert [stats.elements[i].tag for i in result.pruned] == ["span", "span"]
    assert all(econ.is_descendant(stats, i, result.summary) for i in result.pruned)


def test_extract_news_none_without_punctuation() -> None:
    page = parse_page('<html><body><div><a href="/">Home</a></div><p>no marks</p></body></html>')
    assert econ.extract_news(page.body) is None


# --- exclude_subtrees / is_descendant ---------------------------------------------------------

def test_exclude_subtrees_zeroes_counts_and_reaggregates() -> None:
    stats = stats_of('<html><body><div id="keep"><p>Kept, text.</p></div>'
                     '<div id="drop"><p id="inner">Dropped, text. More!</p></div></body></html>')
    keep, drop, inner = by_id(stats, "keep"), by_id(stats, "drop"), by_id(stats, "inner")
    assert stats.punc[0] == 5
    econ.exclude_subtrees(stats, [drop])
    assert stats.excluded[drop] and stats.excluded[inner] and not stats.excluded[keep]
    assert stats.punc[drop] == stats.chars[drop] == stats.punc[inner] == 0
    assert stats.punc[0] == 2 == stats.punc[keep]
    assert stats.chars[0] == stats.chars[keep]
    assert stats.end[drop] == inner + 1  # structure is kept
    all_nodes = {i for s in econ.text_node_sets(stats) for i in s.nodes}
    assert inner not in all_nodes and drop not in all_nodes


def test_is_descendant() -> None:
    stats = stats_of('<html><body><div id="a"><p id="b"><i id="c">x</i></p></div>'
                     '<div id="d">y</div></body></html>')
    a, b, c, d = (by_id(stats, x) for x in "abcd")
    assert econ.is_descendant(stats, c, a)
    assert econ.is_descendant(stats, b, a)
    assert econ.is_descendant(stats, a, a)
    assert not econ.is_descendant(stats, a, b)
    assert not econ.is_descendant(stats, d, a)
    assert all(econ.is_descendant(stats, i, 0) for i in range(len(stats.elements)))


# --- article.is_noise_hint --------------------------------------------------------------------

@pytest.mark.parametrize("html", [
    '<div class="sidebar">x</div>',
    '<div role="navigation">x</div>',
    '<div role="Navigation">x</div>',
    "<nav>x</nav>",
    "<aside>x</aside>",
    "<footer>x</footer>",
    "<div hidden>x</div>",
    '<div style="display: none">x</div>',
    '<div aria-hidden="true">x</div>',
    '<div data-wn-hidden="">x</div>',
    '<div id="comments">x</div>',
    '<div class="post-comments">x</div>',  # comments win over the maybe-content "post"
    '<div class="share-buttons">x</div>',
    '<div id="foot">x</div>',  # the page's foot, as "footer" is
    '<div class="el-carousel__wrapper">x</div>',  # a gallery or story carousel widget
    '<div class="foot-text-dark" id="blq-foot">x</div>',  # "text" is styling, not content
    '<div class="newsletter-wrapper text-18">x</div>',  # a Tailwind text size
    '<div class="trackbacks">x</div>',  # TypePad's "Listed below are links to weblogs ..."
    '<div id="login-box">x</div>',
    '<div class="lightbox-overlay">x</div>',
    '<div class="textwidget">x</div>',  # WordPress's text widget, in a sidebar
    '<div class="module-typelist">x</div>',  # TypePad's list widget, in a sidebar
    '<div id="secondary" class="widget-area">x</div>',  # WordPress themes' sidebar
])
def test_is_noise_hint_true(html: str) -> None:
    assert article.is_noise_hint(element(html))


@pytest.mark.parametrize("html", [
    '<div class="main-header">x</div>',  # spared by "main"
    '<div class="sidebar-content">x</div>',  # spared by "content"
    '<div class="story">x</div>',
    "<div>x</div>",
    '<article class="sidebar">x</article>',  # never-noise tag
    '<main role="navigation">x</main>',
    '<a class="footer" href="/">x</a>',
    '<div class="football">x</div>',  # "foot" as a word only
    '<p class="lead text-secondary">x</p>',  # a utility class's "secondary"
    '<div class="bloginfo">x</div>',  # no "login" in it
])
def test_is_noise_hint_false(html: str) -> None:
    assert not article.is_noise_hint(element(html))


# --- article.teaser_lists ---------------------------------------------------------------------

def test_teaser_lists_finds_link_led_records() -> None:
    stats = stats_of('<html><body><p>Intro, here.</p><ul id="rel">'
                     '<li id="t1"><a href="/a">First story</a> A short blurb.</li>'
                     '<li id="t2"><a href="/b">Second story</a> Another blurb.</li>'
                     '<li id="t3"><a href="/c">Third story</a> Yet one more.</li>'
                     '</ul></body></html>')
    assert ids_of(stats, article.teaser_lists(stats)) == ["t1", "t2", "t3"]


def test_teaser_lists_ignores_two_records_and_prose() -> None:
    two = stats_of('<html><body><ul><li><a href="/a">First</a> blurb.</li>'
                   '<li><a href="/b">Second</a> blurb.</li></ul></body></html>')
    assert article.teaser_lists(two) == []
    prose = stats_of('<html><body><ul><li>A plain item, with <a href="/">a link</a>.</li>'
                     '<li>Another plain item.</li><li>A third item, plain.</li></ul>'
                     '</body></html>')
    assert article.teaser_lists(prose) == []  # records not led by a link
    long_items = "".join(f'<li><a href="/{n}">Link</a> {"word " * 100}</li>' for n in range(3))
    assert article.teaser_lists(stats_of(f"<html><body><ul>{long_items}</ul></body></html>")) == []


def test_teaser_lists_spares_a_list_among_paragraphs_of_prose() -> None:
    """A blog carnival's links stand among the post's paragraphs; the same list in a rail
    of its own is a list of teasers."""
    items = "".join(f'<li><a href="/{n}">Post number {n}</a> by Jo, on lean work.</li>'
                    for n in range(3))
    prose = f"<p>{SENTENCE} {SENTENCE}</p>"
    in_post = stats_of(f"<html><body><div>{prose}<ul>{items}</ul></div></body></html>")
    assert article.teaser_lists(in_post) == []
    in_rail = stats_of(f"<html><body><div>{prose}</div><div><ul>{items}</ul></div></body></html>")
    assert len(article.teaser_lists(in_rail)) == 3


# --- article.extract_article and label_regions ------------------------------------------------

COMMENT = ("<div class='c'><p>I disagree, strongly. This is wrong, and here is why: taxes. "
           "Bad idea, honestly! Really, truly, badly.</p></div>")
ARTICLE_PAGE = f"""<html><body>
<nav data-wn="3"><ul data-wn="4"><li data-wn="5"><a data-wn="6" href="/">Home</a></li>
<li data-wn="7"><a data-wn="8" href="/n">News</a></li></ul></nav>
<article data-wn="10"><h1 data-wn="11">Budget passes</h1>
<p data-wn="12">{SENTENCE}</p>
<p data-wn="13">The mayor said the plan, which took months, was fair. Critics said it was not.</p>
<p data-wn="14">Further votes are expected next month, officials said. Details remain unclear.</p>
</article>
<ul class="related" data-wn="20">
<li data-wn="21"><a data-wn="22" href="/a">Story one, about things.</a></li>
<li data-wn="23"><a data-wn="24" href="/b">Story two, about stuff.</a></li>
<li data-wn="25"><a data-wn="26" href="/c">Story three. Yes.</a></li></ul>
<div id="comments" data-wn="30">{COMMENT * 5}</div>
<footer data-wn="40"><p data-wn="41">Copyright 2024, Example. All rights reserved.</p></footer>
</body></html>"""


def test_extract_article_prefers_article_over_comments_and_related() -> None:
    page = parse_page(ARTICLE_PAGE)
    stats = econ.collect_stats(page.body)
    comments = next(i for i, el in enumerate(stats.elements) if el.get("id") == "comments")
    assert stats.punc[comments] > stats.punc[by_data_wn(stats, 10)]  # the comments are longer
    found = article.extract_article(page)
    assert found is not None
    assert found.source.tag == "article"
    assert found.method == "econ"
    assert 0 < found.confidence <= 1
    text = found.content.text_content()
    assert "Budget passes" in text and "Further votes" in text
    assert "disagree" not in text and "Story one" not in text and "Copyright" not in text
    assert found.content is not found.source  # a cleaned copy, page tree untouched
    assert found.content_ids == [10]
    assert found.noise_ids == [3, 20, 30, 40]


def by_data_wn(stats: TreeStats, value: int) -> int:
    return next(i for i, el in enumerate(stats.elements) if el.get("data-wn") == str(value))


def test_extract_article_none_without_text() -> None:
    assert article.extract_article(parse_page("<html><body><div><img></div></body></html>")) is None


LABEL_PAGE = f"""<html data-wn="0"><body data-wn="1">
<div id="nav" data-wn="2"><a data-wn="3" href="/">Home</a> <a data-wn="4" href="/n">News</a></div>
<div class="story" data-wn="10">
<p data-wn="12">{SENTENCE}</p>
<div class="share-tools" data-wn="13"><a data-wn="14" href="/fb">Facebook</a>
<a data-wn="15" href="/tw">Twitter</a></div>
<p data-wn="16">The mayor said the plan, which took months, was fair. Critics said it was not.</p>
<p data-wn="17">Further votes are expected next month, officials said. Details remain unclear.</p>
</div>
<div id="footer" data-wn="40">
<p data-wn="41">Copyright 2024, Example. All rights reserved.</p></div>
</body></html>"""


def test_extract_ids_are_outermost_content_and_noise() -> None:
    result = extract(LABEL_PAGE)
    assert result.kind == "article"
    # the summary-node holds a dropped share bar, so content is its clean children
    assert result.content_ids == [12, 16, 17]
    # nav, the share bar and the footer, without their descendants (3, 4, 14, 15, 41)
    assert result.noise_ids == [2, 13, 40]
    assert result.article is not None
    assert "Facebook" not in result.article.text
    assert "Further votes" in result.article.text


def test_extract_ids_empty_without_data_wn() -> None:
    result = extract(LABEL_PAGE.replace("data-wn=", "data-x="))
    assert result.kind == "article"
    assert result.content_ids == [] and result.noise_ids == []


def test_label_regions_directly() -> None:
    stats = stats_of('<html><body><div id="side">Side, bar.</div><div id="s">'
                     '<p id="a">One, two.</p><div id="x"><p id="y">Drop.</p></div>'
                     '<p id="b">Three, four.</p></div></body></html>')
    s, x = by_id(stats, "s"), by_id(stats, "x")
    content, noise = article.label_regions(stats, s, {x})
    assert ids_of(stats, content) == ["a", "b"]
    assert ids_of(stats, noise) == ["x", "side"]
    content, noise = article.label_regions(stats, s, set())
    assert ids_of(stats, content) == ["s"]
    assert ids_of(stats, noise) == ["side"]


def test_inline_words_inside_paragraph_survive() -> None:
    """Text nodes belong to the text-node-set: an inline link inside a sentence is not a
    text-para of its own, so Joint-para must not prune it."""
    html = (f"<html><body><article><p>{SENTENCE} {SENTENCE}</p>"
            '<p>The report was published by <a href="/moh">the Ministry of Health</a> on '
            "Tuesday, and it was welcomed.</p><p>It was <em>very</em> good, they said.</p>"
            f"<p>{SENTENCE}</p></article></body></html>")
    result = extract(html)
    assert result.article is not None
    assert "published by the Ministry of Health on Tuesday" in result.article.text
    assert "It was very good" in result.article.text


def test_flat_comment_section_after_its_heading_is_not_article() -> None:
    """Blogs that put comments in the article's own container, separated only by a
    "N Comments" heading: the heading and what follows are not the article."""
    comments = "".join(f"<p>Great post, really. I agree with point {k}, mostly.</p>"
                       for k in range(8))
    html = (f"<html><body><div class='content'><h1>Title</h1><p>{SENTENCE} {SENTENCE}</p>"
            f"<p>{SENTENCE}</p><h2>8 Comments</h2>{comments}</div></body></html>")
    result = extract(html)
    assert result.article is not None
    assert SENTENCE.split(",")[0] in result.article.text
    assert "Great post" not in result.article.text
    section = extract(html.replace("8 Comments", "Response"))
    assert section.article is not None and "Great post" in section.article.text


def test_heading_anchor_id_spelling_its_text_is_no_role() -> None:
    """A section heading with id="Community" is an anchor, not a community widget."""
    assert not article.is_noise_hint(element('<span id="Community">Community</span>'))
    assert article.is_noise_hint(element('<div id="community">Join us today</div>'))


def test_table_row_with_linked_title_cell_is_kept_whole() -> None:
    rows = "".join(f"<tr><th><a href='/f{i}'>Film {i}</a></th><td>{1990 + i}</td>"
                   f"<td>{SENTENCE}</td></tr>" for i in range(3))
    rows += "<tr><th><a href='/x'>Journey to the Center</a></th><td>1967</td>" \
            "<td><a href='/y'>Remake of The Travelers</a></td></tr>"
    text = article_text(f"<h1>Films</h1><p>{SENTENCE}</p><table>{rows}</table>")
    assert "Journey to the Center" in text and "Remake of The Travelers" in text


def test_footnotes_led_by_back_links_are_no_teaser_list() -> None:
    notes = "".join(f"<li><a href='#r{i}'>^</a> <a href='/s{i}'>Source number {i}</a>. "
                    f"Publisher {i}.</li>" for i in range(5))
    teasers = "".join(f"<li><a href='/s{i}'>Story number {i}</a> teaser</li>" for i in range(5))
    stats = stats_of(f"<html><body><ol>{notes}</ol><ul>{teasers}</ul></body></html>")
    found = {stats.elements[stats.parent[i]].tag for i in article.teaser_lists(stats)}
    assert found == {"ul"}


def test_mathml_formula_is_content_without_punctuation() -> None:
    formula = "<math><mi>x</mi><mo>=</mo><mn>42</mn></math>"
    assert "x=42" in article_text(f"<div><p>{SENTENCE}</p>{formula}<p>{SENTENCE}</p></div>")


def test_short_code_block_is_content_on_a_page_leaning_to_documentation() -> None:
    """On a page leaning to documentation (`PageHints.keep_code`), a one-line command in a
    preformatted block has no punctuation, yet it is the article's content; a link-heavy one
    stays navigation. Elsewhere Joint-para prunes it as before."""
    code = "<pre><code><span>pip</span><span> install</span><span> widget</span></code></pre>"
    links = "<pre><a href='/a'>home</a> <a href='/b'>about</a></pre>"
    body = f"<div><p>{SENTENCE}</p>{code}<p>{SENTENCE}</p>{links}</div>"
    found = article.extract_article(parse_page(f"<html><body>{body}</body></html>"),
                                    article.PageHints(keep_code=True))
    assert found is not None
    text = found.content.text_content()
    assert "pip install widget" in text
    assert "about" not in text
    assert "pip install widget" not in article_text(body)


def test_body_split_around_a_wrapper_is_one_article() -> None:
    """A "read all" wrapper holding most paragraphs does not cut off the ones before it."""
    para = f"<div class='para'>{SENTENCE}</div>"
    lead = "<div class='para'>The story begins with a long lead that runs on, with one mark</div>"
    rail = "<div class='rail'><a href='/a'>More from our newsroom every day</a></div>"
    page = parse_page(f"<html><body><div id='body'>{lead}<div class='read-all'>{para * 8}"
                      f"</div></div>{rail}</body></html>")
    found = article.extract_article(page)
    assert found.source.get("id") == "body"


def test_sidebar_longer_than_a_photo_post_is_still_noise() -> None:
    """The layout-wrapper exception (a noise-named element holding most sentences) needs the
    title's heading inside it."""
    html = ("<html><body><div id='post'><h1>Logos for the apocalypse</h1><p>Some logos, "
            "redrawn.</p><img src='a.png'></div>"
            f"<div id='sidebar'><p>{SENTENCE} {SENTENCE}</p></div></body></html>")
    page = parse_page(html)
    heading = page.body.find(".//h1")
    found = article.extract_article(page, article.PageHints(heading))
    assert "redrawn" in found.content.text_content()
    assert "council" not in found.content.text_content()
    wrapper = parse_page("<html><body><div class='page no-sidebars'><h1>Title</h1>"
                         f"<p>{SENTENCE}</p></div></body></html>")
    found = article.extract_article(wrapper, article.PageHints(wrapper.body.find(".//h1")))
    assert "council" in found.content.text_content()


@pytest.mark.parametrize(("html", "noise"), [
    ('<div class="jp-relatedposts">x</div>', True),
    ('<div class="main-header">x</div>', False),
    ('<div class="post-sidebar">x</div>', False),
])
def test_content_word_overrules_noise_only_as_a_word_of_its_own(html: str, noise: bool) -> None:
    assert article.is_noise_hint(element(html)) is noise


def test_copyright_footer_after_the_article_is_dropped() -> None:
    text = article_text(f"<div><p>{SENTENCE}</p><p>{SENTENCE}</p>"
                        "<p>Copyright © 1998-2005 Example News, LLC</p></div>")
    assert "council" in text and "Copyright" not in text
    quoted = article_text(f"<div><p>{SENTENCE}</p><p>Copyright law, the judge said, "
                          f"is not the point.</p><p>{SENTENCE}</p></div>")
    assert "Copyright law" in quoted


def test_author_box_after_the_article_is_dropped_even_when_named_for_it() -> None:
    """After the text, a block whose names say noise is a tail even when a content word
    ("article") would overrule that inside the article; inline elements are left alone."""
    bio = ("<section class='article-author'><p><a href='/author/jo'>Jo Smith</a> / Jo is the "
           "editor, and has been since 2012.</p></section>")
    text = article_text(f"<div><p>{SENTENCE}</p><p>{SENTENCE}</p>{bio}</div>")
    assert "council" in text and "Jo is the editor" not in text
    inline = article_text(f"<div><p>{SENTENCE}</p><p>{SENTENCE}</p><span class='article-author'>"
                          "Jo is the editor, and has been since 2012.</span></div>")
    assert "Jo is the editor" in inline


def test_blog_engine_lines_under_a_post_are_dropped() -> None:
    """WordPress's 'This entry was posted ... filed under' and tag lines trail the post."""
    footer = ("<p>This entry was posted on Saturday, August 25th, 2012 at 12:23 am and is filed "
              "under <a href='/c/art'>Art</a>. You can follow any responses to this entry.</p>"
              "<p>Tags: <a href='/t/a'>robots</a>, <a href='/t/b'>art</a>, painting</p>")
    post = f"<div class='post'><p>{SENTENCE}</p><p>{SENTENCE}</p></div>"
    text = article_text(f"<div>{post}{footer}</div>")
    assert "council" in text and "This entry was posted" not in text and "Tags" not in text
    filed = ("<p>This post was written by Jo. Posted in <a href='/c'>C++</a>, Talks &amp; Events "
             "| <a href='#respond'>Leave a Comment</a></p>")
    assert "Posted in" not in article_text(f"<div>{post}{filed}</div>")
    told = "<p>Posted in 1998, the letter was never answered, the family said.</p>"
    assert "Posted in 1998" in article_text(f"<div>{post}{told}</div>")
    told = article_text(f"<div>{post}<p>Tags matter, the editor said: they help readers find "
                        "more.</p></div>")
    assert "Tags matter" in told


def test_calls_to_subscribe_closing_a_post_are_dropped() -> None:
    post = f"<div class='post'><p>{SENTENCE}</p><p>{SENTENCE}</p></div>"
    calls = ("<p>Sign up for our free newsletter, and get the ebook free.</p>"
             "<p>Follow me on Twitter. Subscribe to new posts via RSS or email.</p>")
    text = article_text(f"<div>{post}{calls}</div>")
    assert "council" in text and "newsletter" not in text and "Twitter" not in text
    for last in ("Subscribers, the mayor said, will pay less next year.",
                 "Join our reporters at the town hall on Friday, when the mayor takes questions.",
                 "Follow us, the protesters chanted, as they marched to the square."):
        assert last[:12] in article_text(f"<div>{post}<p>{last}</p></div>")


def test_link_lines_before_the_article_text_are_dropped() -> None:
    """A post's 'previous | Main | next' line before its text goes; a linked sentence stays."""
    nav = ("<p><a href='/p1'>« Fixes for 5.1 are out, finally.</a> | <a href='/'>Main</a> | "
           "<a href='/p3'>A webcast on Sept 27th, with slides and a recording</a> »</p>")
    story = (f"<div class='post'><p>{SENTENCE} {SENTENCE}</p><p>{SENTENCE}</p></div>"
             f"<div class='more'><p>{SENTENCE}</p><p>{SENTENCE}</p></div>")
    page = parse_page(f"<html><body><div id='story'>{nav}{story}</div></body></html>")
    found = article.extract_article(page)
    assert found.source.get("id") == "story"
    assert "council" in found.content.text_content()
    assert "Fixes for 5.1" not in found.content.text_content()
    note = ("<p><a href='/who'>Jo Smith</a> is a professor of economics. She wrote "
            "<a href='/book'>The Book of Numbers and Other Things</a>.</p>")
    assert "professor" in article_text(f"<div id='story'>{note}{story}</div>")


def test_annotated_link_list_in_the_text_is_kept_and_bare_links_go() -> None:
    """A roundup whose items say more than their links is the post; a list of bare story
    links between its paragraphs is a related-stories box."""
    roundup = ("<ul><li>Storm forces <a href='/a'>hospital evacuation</a>.</li>"
               "<li><a href='/b'>Skepticism about pay for performance</a>.</li>"
               "<li>The causes of <a href='/c'>debt after a health event</a>.</li></ul>")
    related = ("<ul><li><a href='/d'>Why the town is in uproar over it.</a></li>"
               "<li><a href='/e'>A man describes the night of the flood.</a></li></ul>")
    text = article_text(f"<div><p>{SENTENCE} {SENTENCE}</p>{roundup}{related}"
                        f"<p>{SENTENCE}</p></div>")
    assert "Storm forces hospital evacuation" in text and "The causes of" in text
    assert "uproar" not in text
    meta = ("<ul class='meta'><li>March 3, 2009</li><li>Jo Smith</li><li>Politics</li></ul>")
    assert "Politics" not in article_text(f"<div>{meta}<p>{SENTENCE} {SENTENCE}</p>"
                                          f"<p>{SENTENCE}</p><p>{SENTENCE}</p></div>")


def test_slideshow_list_with_more_sentences_than_the_story_is_noise() -> None:
    """A gallery's captions can outnumber the story's sentences; a list named a slideshow is
    still noise, not a layout wrapper."""
    slides = "".join(f"<li><img src='{n}.jpg'><p>A runner, left, competes in heat {n}, on "
                     "Wednesday. (AP Photo, London.)</p></li>" for n in range(12))
    text = article_text(f"<ul class='hp-slideshow'>{slides}</ul>"
                        f"<div><p>{SENTENCE} {SENTENCE}</p><p>{SENTENCE}</p></div>")
    assert "council" in text and "runner" not in text


def test_parts_are_joined_through_a_plain_wrapper_and_an_extra_class() -> None:
    """The parts named for content wrap a plain `<article>` each, and the first carries one
    class more (`article_body entry-content`); a column of unpunctuated teasers between them
    stops the climb at the second part: both parts are the article all the same."""
    lead = ("<div class='article_body entry-content'><article>"
            f"<p>{SENTENCE} Lead paragraph, first.</p></article></div>")
    teasers = "".join(f"<div class='module'><h2>Other story number {n} of the week in review"
                      f"</h2><div>Max Fisher wrote on the world and its many ways today {n}"
                      "</div></div>" for n in range(6))
    rest = "".join(f"<p>{SENTENCE} {SENTENCE}</p>" for _ in range(8))
    page = parse_page(f"<html><body><div id='body'>{lead}<div class='column'>{teasers}</div>"
                      f"<div class='article_body'><article>{rest}</article></div></div>"
                      "</body></html>")
    text = article.extract_article(page).content.text_content()
    assert "Lead paragraph" in text and text.count("council") == 17


def test_article_split_in_sibling_parts_is_joined() -> None:
    """A lead paragraph in its own part before a photo, then the rest of the story in a
    second part of the same class: both parts are the article, the header before is not."""
    lead = f"<div class='articleBody'><p>{SENTENCE} Lead paragraph, first.</p></div>"
    photo = "<div class='inline'><img src='a.jpg'><p>A photo</p></div>"
    rest = "".join(f"<p>{SENTENCE} {SENTENCE}</p>" for _ in range(4))
    labels = " ".join(["Share this story with friends and family"] * 8)  # long, unpunctuated
    page = parse_page(f"<html><body><div id='col'><div class='tools'>{labels}</div>"
                      f"{lead}{photo}<div class='articleBody'>{rest}</div>"
                      "<div class='more'><a href='/x'>More news</a></div></div></body></html>")
    found = article.extract_article(page)
    text = found.content.text_content()
    assert found.source.get("id") == "col"
    assert "Lead paragraph" in text and text.count("council") == 9
    assert "Share this" not in text and "More news" not in text
    bio = ("<p>Jo Smith has written about housing, schools and the council since she moved "
           "back home, in the spring; she also hosts our weekly podcast.</p>")
    rows = parse_page(f"<html><body><div id='page'><div class='tools'>{labels}</div><div "
                      f"class='row'>{rest}</div><div class='row'>{bio}</div></div></body></html>")
    assert "podcast" not in article.extract_article(rows).content.text_content()


def test_rail_of_blurbs_after_a_post_does_not_join_it() -> None:
    """A short post beside a box of punctuated blurbs: the climb stops below their parent."""
    post = "".join(f"<p>{SENTENCE} {SENTENCE} Part {i}, in full.</p><img src='{i}.png'>"
                   for i in range(3))
    blurbs = "".join(f"<div class='box'><h4>Recent {i}</h4><p>A blurb, short.</p></div>"
                     for i in range(6))
    page = parse_page(f"<html><body><div id='wrap'><div id='post'>{post}</div>"
                      f"<div id='rail'>{blurbs}</div></div></body></html>")
    assert article.extract_article(page).source.get("id") == "post"


def test_aside_holding_the_title_and_the_story_is_the_article() -> None:
    html = (f"<html><body><aside class='blogPost'><h1>Story</h1><p>{SENTENCE}</p>"
            f"<p>{SENTENCE}</p></aside><aside class='rail'><p>Other, news.</p></aside>"
            "</body></html>")
    page = parse_page(html)
    found = article.extract_article(page, article.PageHints(page.body.find(".//h1")))
    assert found is not None and "council" in found.content.text_content()
    without_heading = article.extract_article(parse_page(html))
    assert without_heading is None or "council" not in without_heading.content.text_content()


def test_ad_slot_labels_inside_the_body_are_dropped() -> None:
    text = article_text(f"<div><p>{SENTENCE}</p><div>ADVERTISEMENT</div>"
                        f"<p>(Story continues below)</p><p>{SENTENCE}</p><p>Advertisers, "
                        "we are told, were unhappy.</p></div>")
    assert "ADVERTISEMENT" not in text and "continues below" not in text
    assert "Advertisers, we are told" in text


@pytest.mark.parametrize(("html", "noise"), [
    ('<div class="vcrArticleTab hidden">x</div>', True),
    ('<div class="d-none main-content">x</div>', True),
    ('<div class="overflow-hidden article">x</div>', False),
    ('<div id="copyright">NHL.com is the official web site</div>', True),
])
def test_hiding_classes_and_copyright_blocks_are_noise(html: str, noise: bool) -> None:
    assert article.is_noise_hint(element(html)) is noise


def test_the_page_counts_keep_the_tags_the_dom_tree_read() -> None:
    """ECON's counts take each element's tag from MiBAT's reading of the body (lxml makes a
    new string on every read of `.tag`)."""
    from winnow.mibat_dom import page_dom

    page = parse_page("<html><body><div><p>One. <a href='/a'>Two</a></p></div></body></html>")
    read = page_dom(page).read
    assert read is not None and read.raw_tags == ["body", "div", "p", "a"]
    assert article.page_stats(page).tags == read.raw_tags
