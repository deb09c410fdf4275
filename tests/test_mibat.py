"""MiBAT: simple tree matching, pivot similarity, anchor trees, boundaries, main region."""

from __future__ import annotations

import lxml.html
import pytest
from winnow.mibat import (
    PS_THRESHOLD,
    TreeMatcher,
    determine_boundary,
    find_anchor_trees,
    main_region,
    mine_regions,
    pivot_similarity,
    stm,
)
from winnow.mibat_dom import dom_tree, page_dom
from winnow.mibat_records import same_kind_records
from winnow.page import parse_page, stamp_ids

POST = ('<div class="post"><div class="meta"><a href="/members/{name}">{name}</a>'
        '<span class="date">{date}</span></div><div class="body"><p>{text}</p>{extra}</div>'
        '</div>')
AD = '<div class="post"><div class="ad"><p>Buy now, cheap offers, only today!</p></div></div>'


def post(name: str, day: int, text: str, extra: str = "") -> str:
    return POST.format(name=name, date=f"{day} March 2012 14:05", text=text, extra=extra)


def dom_of(body: str):
    return dom_tree(lxml.html.document_fromstring(f"<html><body>{body}</body></html>")
                    .find("body"))


def node(dom, tag: str, cls: str, n: int = 0) -> int:
    found = [v for v, el in enumerate(dom.elements)
             if el.tag == tag and (el.get("class") or "") == cls]
    return found[n]


def test_stm_counts_the_top_down_mapping() -> None:
    dom = dom_of("<div><p>a</p><ul><li>x</li><li>y</li></ul></div>"
                 "<div><p>b</p><ul><li>z</li></ul><span>q</span></div><p>c</p>")
    divs = [v for v, el in enumerate(dom.elements) if el.tag == "div"]
    # div, p, ul, one li: 4 pairs; the span has no partner
    assert stm(dom.tree, divs[0], divs[1]) == 4
    p = [v for v, el in enumerate(dom.elements) if el.tag == "p"][-1]
    assert stm(dom.tree, divs[0], p) == 0


def test_pivots_are_the_lowest_nodes_holding_a_date() -> None:
    dom = dom_of(post("ann", 12, "I think 3 is right."))
    pivots = [dom.elements[v] for v, c in enumerate(dom.cand) if c]
    assert [el.get("class") for el in pivots] == ["date"]


def test_a_date_with_whitespace_around_it_is_a_pivot_once() -> None:
    """The date test reads the stripped text: the padded span and the bare one inside the
    same markup are both pivots, and the wrapper around a pivot is none."""
    dom = dom_of('<div class="a"><span class="padded">\n   12 March 2012 14:05\n  </span></div>'
                 '<div class="b"><span class="bare">12 March 2012 14:05</span></div>')
    pivots = [dom.elements[v].get("class") for v, c in enumerate(dom.cand) if c]
    assert pivots == ["padded", "bare"]


def test_a_short_line_over_a_long_hidden_menu_is_no_pivot() -> None:
    """Its text, hidden parts included, is over MAX_PIVOT_HIDDEN_TEXT: a folded menu."""
    menu = "".join(f"<li>Archive {day} March 2012</li>" for day in range(1, 29)) * 4
    dom = dom_of(f'<div class="menu">12 March 2012 <ul hidden>{menu}</ul></div>'
                 f'<div class="line">12 March 2012 <ul hidden><li>Archive</li></ul></div>')
    pivots = [dom.elements[v].get("class") for v, c in enumerate(dom.cand) if c]
    assert pivots == ["line"]


def test_pivot_and_siblings_separates_template_from_ugc_dates() -> None:
    dom = dom_of(post("ann", 12, "Hello there, long text.")
                 + post("bob", 13, "Short.", extra="<p>Moved on 4 May 2011.</p>"))
    matcher = TreeMatcher(dom.tree)
    a, b = node(dom, "div", "post", 0), node(dom, "div", "post", 1)
    pa, pb = node(dom, "span", "date", 0), node(dom, "span", "date", 1)
    assert pivot_similarity(matcher, a, b, pa, pb) > PS_THRESHOLD
    assert pivot_similarity(matcher, a, b, pa, pb, "PM") == 1.0
    ugc = [v for v, el in enumerate(dom.elements) if el.text == "Moved on 4 May 2011."][0]
    assert pivot_similarity(matcher, a, b, pa, ugc) == 0.0


def test_anchor_trees_skip_an_ad_between_posts() -> None:
    body = post("ann", 1, "One.") + post("bob", 2, "Two.") + AD + post("cy", 3, "Three.")
    dom = dom_of(body)
    matcher = TreeMatcher(dom.tree)
    parent = 0  # <body>
    lists = find_anchor_trees(matcher, dom, parent)
    assert len(lists) == 1
    assert lists[0].positions == [0, 1, 3]
    region = main_region(dom, mine_regions(dom))
    assert region is not None and len(region.records) == 3


def test_boundary_case_1_adjacent_anchors_are_records() -> None:
    dom = dom_of(post("ann", 1, "One.") + post("bob", 2, "Two."))
    kids = dom.tree.children[0]
    assert determine_boundary(TreeMatcher(dom.tree), kids, [0, 1]) == (0, 1)


def test_boundary_case_2_records_of_two_rows() -> None:
    rows = "".join(f'<tr><td><a href="/u/{n}">{n}</a> {d} Jan 2020 10:0{d}</td></tr>'
                   f"<tr><td>Body text number {d}, long enough.</td></tr>"
                   for d, n in ((1, "ann"), (2, "bob"), (3, "cy")))
    dom = dom_of(f"<table>{rows}</table>")
    region = main_region(dom, mine_regions(dom))
    assert region is not None
    assert [len(r) for r in region.records] == [2, 2, 2]
    assert all(dom.elements[r[1]].text_content().startswith("Body") for r in region.records)


def test_boundary_case_3_picks_the_most_similar_offset() -> None:
    # t1 t2 A t1 t2 A t1 t2 A: the expansion (5 wide) overlaps; length 3 from offset -2
    unit = ('<h4>Title</h4><p class="x">Some words here.</p>'
            '<div><span>{d} Jan 2020</span><i>n</i></div>')
    dom = dom_of("".join(unit.format(d=d) for d in (1, 2, 3)))
    kids = dom.tree.children[0]
    offset, length = determine_boundary(TreeMatcher(dom.tree), kids, [2, 5, 8])
    assert (offset, length) == (-2, 3)


def test_archive_lists_of_bare_dates_are_not_the_main_region() -> None:
    archive = "".join(f'<li><a href="/{m}">{m} 2012</a></li>' for m in ("March", "April", "May"))
    dom = dom_of(f"<ul>{archive}</ul>")
    assert main_region(dom, mine_regions(dom)) is None


def test_same_kind_records_finds_a_first_post_under_another_parent() -> None:
    first = f'<section class="first">{post("op", 1, "The question, in full.")}</section>'
    answers = post("ann", 2, "An answer.") + post("bob", 3, "Another answer.")
    dom = dom_of(first + f'<div class="list">{answers}</div>')
    matcher = TreeMatcher(dom.tree)
    main = main_region(dom, mine_regions(dom, matcher))
    assert main is not None and len(main.records) == 2
    full = same_kind_records(matcher, dom, main)
    assert len(full.records) == 3
    assert dom.elements[full.records[0][0]].text_content().startswith("op")


@pytest.mark.parametrize("html", ["<p>no dates at all</p>", "<div>12 March 2012</div>"])
def test_pages_without_a_record_list_have_no_region(html: str) -> None:
    dom = dom_of(html)
    assert main_region(dom, mine_regions(dom)) is None


def test_a_first_post_whose_root_tag_differs_is_compared_one_level_down() -> None:
    def item(tag: str, name: str, day: int, text: str) -> str:
        return (f'<{tag} class="item"><div class="c"><div class="head"><a href="/u/{name}">'
                f'{name}</a><span class="meta"><time>{day} May 2020</time></span></div>'
                f'<div class="msg"><p>{text}</p></div></div></{tag}>')
    first = item("div", "op", 1, "The opening post, written at length.")
    stats = '<div class="box"><span>4 replies</span> <time>1 May 2020</time></div>'
    replies = "".join(item("li", n, d, f"Reply {d}.") for n, d in (("ann", 2), ("bob", 3)))
    dom = dom_of(f"{stats}{first}<ul>{replies}</ul>")
    matcher = TreeMatcher(dom.tree)
    main = main_region(dom, mine_regions(dom, matcher))
    assert main is not None and len(main.records) == 2
    full = same_kind_records(matcher, dom, main)
    assert [dom.elements[r[0]].tag for r in full.records] == ["div", "li", "li"]
    assert dom.elements[full.records[0][0]].text_content().startswith("op")


def test_a_file_in_a_users_folder_is_no_member_link() -> None:
    from lxml.html import fragment_fromstring
    from winnow.mibat_records import _member_link

    profile = fragment_fromstring("<a href='https://forum.example/u/123'>ann</a>")
    song = fragment_fromstring("<a href='https://dl.example/u/27966975/06%20Landline.mp3'>x</a>")
    assert _member_link(profile)
    assert not _member_link(song)


EDITED = ('<div class="post"><div class="meta"><a href="/members/{name}">{name}</a>'
          '<span class="dates"><span class="date">{date}</span><span class="edit" hidden>'
          'Modified 9 May 2012</span></span></div><div class="body"><p>{text}</p></div></div>')


def edited(name: str, day: int, text: str) -> str:
    return EDITED.format(name=name, date=f"{day} March 2012 14:05", text=text)


def test_posts_whose_date_markup_varies_are_one_list() -> None:
    """Edited posts wrap their date in a box of its own: MiBAT finds two anchor lists under
    one parent, interleaved, and the thread is both."""
    from winnow.mibat import ranked_regions
    from winnow.mibat_records import with_sibling_lists
    dom = dom_of("<div class='thread'>" + post("ann", 1, "First post of the thread here.")
                 + edited("bob", 2, "An edited reply, its date in a box.")
                 + post("cy", 3, "A plain reply to both of them.")
                 + edited("dee", 4, "Another edited reply to the thread.")
                 + post("eve", 5, "The last plain reply on the page.") + "</div>")
    ranked = ranked_regions(dom, mine_regions(dom))
    assert len(ranked) == 2 and len(ranked[0].records) + len(ranked[1].records) == 5
    merged = with_sibling_lists(dom, ranked[0], ranked)
    assert [dom.elements[r[0]].text_content()[:2] for r in merged.records] == \
        ["an", "bo", "cy", "de", "ev"]


def test_a_list_after_the_thread_under_another_parent_stays_apart() -> None:
    from winnow.mibat import ranked_regions
    from winnow.mibat_records import with_sibling_lists
    dom = dom_of("<div class='thread'>" + post("ann", 1, "First post of the thread here.")
                 + post("cy", 3, "A plain reply to both of them.") + "</div><div class='x'>"
                 + edited("bob", 2, "Another thread's teaser.")
                 + edited("dee", 4, "Yet another thread's teaser.") + "</div>")
    ranked = ranked_regions(dom, mine_regions(dom))
    main = next(r for r in ranked if dom.elements[r.records[0][0]].text_content()[:3] == "ann")
    assert with_sibling_lists(dom, main, ranked) is main


def test_page_dom_reads_the_ids_a_page_has():
    """The tree skips reading ids only on a page none of whose elements carries one: the
    content script's ids and Winnow's own stamped ids are both read."""
    page = parse_page("<html><body><div><p>Text.</p></div></body></html>")
    assert set(page_dom(page).tree.wn_ids) == {None}
    stamp_ids(page)
    assert None not in page_dom(page).tree.wn_ids
    marked = parse_page('<html><body><div data-wn="7"><p>Text.</p></div></body></html>')
    assert page_dom(marked).tree.wn_ids[1] == 7


def test_subtree_hashes_wait_for_a_comparison_and_see_the_date_tags() -> None:
    """A tree's subtree hashes are computed on first use, from its labels then: the DOM
    tree's dates written in <span> and in <abbr> are both <time>, so the two posts hash
    alike, and a tree no comparison reads never hashes."""
    from winnow.tree import _subtree_hashes
    dom = dom_of('<div><div class="p"><span>3 March 2012 14:05</span><p>One</p></div>'
                 '<div class="p"><abbr>4 March 2012 09:30</abbr><p>Two</p></div></div>')
    tree = dom.tree
    assert "hashes" not in tree.__dict__
    posts = [v for v, el in enumerate(dom.elements) if el.get("class") == "p"]
    assert tree.hashes[posts[0]] == tree.hashes[posts[1]]
    assert tree.hashes == _subtree_hashes(tree.labels, tree.children)


def test_a_page_with_nothing_hidden_counts_its_text_lengths_once(monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """Without a hidden element the visible text lengths are all the text lengths: one count
    serves both; a hidden element takes its subtree out of the visible ones."""
    import winnow.mibat_dom as mibat_dom

    counts: list[int] = []
    lengths = mibat_dom._text_lengths

    def counted(tree: object, left_out: list[bool]) -> list[int]:
        counts.append(1)
        return lengths(tree, left_out)  # type: ignore[arg-type]

    monkeypatch.setattr(mibat_dom, "_text_lengths", counted)
    shown = dom_tree(lxml.html.fromstring("<div><p>One line</p><p>Two</p></div>"))
    assert len(counts) == 1 and shown.text_len == shown.all_len
    hidden = dom_tree(lxml.html.fromstring("<div><p>One line</p><p hidden>Two</p></div>"))
    assert len(counts) == 3 and hidden.text_len[0] == len("One line")
    assert hidden.all_len[0] == len("One lineTwo")
