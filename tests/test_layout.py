"""Webstemmer layout blocks and patterns (winnow.layout): hand-written pages of one template,
and a real-data check on the Big9 sites corpus (skipped when absent, failing under CI)."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from helpers import ARTICLES, SITE, article_html, site_year_groups, slug, stamp
from winnow import evaluation as ev
from winnow import layout as lay
from winnow.layout import Label, LayoutPattern
from winnow.page import parse_page


def other_template_html(i: int) -> str:
    """A gallery page of the same site: a table layout with other classes."""
    cells = "".join(f'<td class="thumb"><span>Photo {i}-{k}: {ARTICLES[k][0]}</span></td>'
                    for k in range(3))
    return stamp(f"""<html><head><title>Gallery {i}</title></head><body>
<table class="gallery"><tr>{cells}</tr></table>
<div class="credits"><p>Photographs by the picture desk, gallery number {i}.</p></div>
</body></html>""")


def article(i: int, sidebar: bool = True) -> lay.Layout:
    return lay.segment(parse_page(article_html(i, sidebar), slug(i)))


def learned(n: int = 5) -> LayoutPattern:
    pattern = LayoutPattern()
    for i in range(n):
        pattern.add(article(i))
    return pattern


def labels_by_text(match: lay.LayoutMatch) -> dict[str, Label]:
    return {block.text: label for block, label, _ in match.blocks}


# --- segmentation --------------------------------------------------------------------------------

def test_segment_cuts_at_block_tags_and_keeps_inline_text_together() -> None:
    page = parse_page(stamp(
        '<html><body><div id="wrap"><div class="post-123 body">'
        '<p>First <b>bold</b> and <a href="/x">a link</a> here.</p>'
        'Loose text<br>after break<div>inner block</div>tail text'
        '<p hidden>hidden words</p><p>x</p></div></div></body></html>'), "https://e.example/")
    blocks = lay.segment(page).blocks
    assert [b.text for b in blocks] == [
        "First bold and a link here.", "Loose text", "after break", "inner block", "tail text"]
    assert blocks[0].path == "div:id=wrap/div:class=post- body/p"  # digits mangled away
    assert blocks[1].path == blocks[2].path == "div:id=wrap/div:class=post- body"
    assert blocks[3].path == "div:id=wrap/div:class=post- body/div"
    assert blocks[0].sig == "firstboldandalinkhere"
    assert blocks[0].weight_noanchor == len("firstboldandhere")
    assert blocks[0].links == (lay.Link("/x", "a link"),)
    assert len(blocks[0].ids) == 3  # the <p>, the <b> and the <a>


def test_segment_walks_a_2000_deep_page_without_recursion() -> None:
    html = "<html><body>" + "<div>" * 2000 + "deep text here" + "</div>" * 2000 + "</body></html>"
    assert [b.text for b in lay.segment(parse_page(html)).blocks] == ["deep text here"]


def test_align_gives_a_run_of_blocks_to_one_position() -> None:
    assert lay.align(["a", "b", "a"], ["a", "a", "b", "c", "a", "a"]) == [0, 0, 1, -1, 2, 2]
    assert lay.align(["p"], ["p", "h2", "p", "h2", "p"]) == [0, -1, 0, -1, 0]
    assert lay.align([], ["p"]) == [-1]
    assert lay.common_pairs(["a", "b", "c", "d"], ["a", "c", "d", "e"]) == [(0, 0), (2, 1),
                                                                            (3, 2)]


# --- similarity ----------------------------------------------------------------------------------

def test_similarity_ranks_same_template_above_another_template() -> None:
    a0, a1, a2 = article(0), article(1), article(2, sidebar=False)
    g0, g1 = (lay.segment(parse_page(other_template_html(i))) for i in (0, 1))
    for measure in (lay.signature_similarity, lay.similarity):
        same = min(measure(a0, a1), measure(a0, a2), measure(g0, g1))
        across = max(measure(a0, g0), measure(a1, g1), measure(g0, a2))
        assert same > across, measure.__name__
    assert lay.signature_similarity(a0, a1) == 1.0
    assert lay.similarity(a0, a1) >= lay.CLUSTER_THRESHOLD
    assert lay.signature_similarity(a0.signature, a0.signature) == 1.0


# --- patterns ------------------------------------------------------------------------------------

def test_static_template_blocks_are_static_and_the_story_is_main() -> None:
    match = lay.apply(learned(5), article(5))
    labels = labels_by_text(match)
    for static in ("The Daily Planet", "World", "Home | News | Sports", "Most read today",
                   "Storm closes the coastal highway",
                   "Copyright 2024 Daily Planet Media. All rights reserved."):
        assert labels[static] is Label.STATIC, static
    for paragraph in ARTICLES[5][2]:
        assert labels[paragraph] is Label.MAIN
    assert match.title == ARTICLES[5][0]
    assert match.matched and match.coverage > 0.95


def test_noise_and_content_ids_point_back_to_elements() -> None:
    page = parse_page(article_html(5), slug(5))
    match = lay.apply(learned(5), lay.segment(page))
    by_id = {int(el.get("data-wn")): el for el in page.root.iter() if el.get("data-wn")}
    noise_tags = Counter(by_id[i].tag for i in match.noise_ids)
    assert noise_tags["a"] >= 5 and noise_tags["li"] >= 5  # the nav links and their items
    content_text = " ".join(by_id[i].text_content() for i in match.content_ids)
    assert ARTICLES[5][2][0] in content_text
    assert not set(match.noise_ids) & set(match.content_ids)


def test_pattern_needs_two_pages() -> None:
    pattern = learned(1)
    assert not pattern.ready
    match = lay.apply(pattern, article(1))
    assert {label for _, label, _ in match.blocks} == {Label.UNKNOWN}


def test_incremental_learning_equals_batch() -> None:
    pages = [article(0), article(1), article(2, sidebar=False), article(3), article(4)]
    pattern = LayoutPattern()
    for page in pages:
        pattern.add(page)
    assert pattern.to_json() == LayoutPattern.learn(pages).to_json()
    assert "div:class=sidebar/ul/li" not in pattern.paths  # page 2 has no sidebar: dropped


def test_learning_cost_is_bounded_past_the_window() -> None:
    pattern = LayoutPattern()
    sizes = []
    for i in range(30):
        pattern.add(article(i))
        sizes.append(len(json.dumps(pattern.to_json())))
    assert len(pattern.window) == lay.WINDOW_PAGES and pattern.pages == 30
    assert sizes[-1] <= 1.2 * sizes[lay.WINDOW_PAGES + 5]
    batch = LayoutPattern.learn([article(i) for i in range(30)])
    held_out = article(31)
    assert labels_by_text(lay.apply(pattern, held_out)) == \
        labels_by_text(lay.apply(batch, held_out))


def test_json_round_trip() -> None:
    pattern = learned(5)
    data = json.loads(json.dumps(pattern.to_json()))
    assert data["version"] == lay.PATTERN_VERSION
    copy = LayoutPattern.from_json(data)
    assert copy.to_json() == pattern.to_json()
    assert lay.apply(copy, article(5)) == lay.apply(pattern, article(5))
    for n in (5, 6):
        copy.add(article(n))
        pattern.add(article(n))
    # The window stays in memory: the copy compared its new pages with each other only, so
    # its DiffScore sums grew less, but it learned the same sections and labels alike.
    assert copy.pages == pattern.pages == 7 and copy.paths == pattern.paths
    assert all(c <= p for c, p in zip(copy.diff_max, pattern.diff_max, strict=True))
    assert sum(copy.diff_max) < sum(pattern.diff_max)
    assert labels_by_text(lay.apply(copy, article(7))) == \
        labels_by_text(lay.apply(pattern, article(7)))


def test_saved_pattern_holds_no_text_and_template_text_stays_in_memory() -> None:
    """No words of the pages are saved; in memory, the sidebar and footer every page shows are
    template text (the dashboard shows them) once TEMPLATE_TEXT_PAGES pages with their own
    main text did, and a page's own text never is."""
    pattern = learned(5)
    saved = json.dumps(pattern.to_json())
    assert "window" not in pattern.to_json()
    own_runs = 0
    for i in range(5):
        for block in article(i).blocks:
            words = re.findall(r"\w+", block.text.lower())
            if len(words) >= 3:
                assert " ".join(words[:3]) not in saved
            if len(words) >= 8 and not any(block.text == b.text for b in article(i + 1).blocks):
                own_runs += 1
                assert " ".join(words[:8]) not in " ".join(pattern.template_texts())
    template = [t for t in pattern.template_texts() if t]
    assert own_runs and template
    later = " ".join(" ".join(re.findall(r"\w+", b.text.lower())) for b in article(9).blocks)
    assert all(t in later for t in template)  # what a later page shows too: template
    assert not any(learned(lay.TEMPLATE_TEXT_PAGES - 1).template_texts())
    assert not any(LayoutPattern.from_json(pattern.to_json()).template_texts())


def test_read_back_pattern_waits_for_a_compared_pair_and_takes_its_window_back() -> None:
    one = LayoutPattern.from_json(json.loads(json.dumps(learned(1).to_json())))
    one.add(article(1))  # two pages, but none compared with another: no DiffScore yet
    assert one.pages == 2 and not one.ready
    assert all(label is Label.UNKNOWN for _, label, _ in lay.apply(one, article(7)).blocks)
    one.add(article(2))
    assert one.ready and one.pairs == 1
    pattern = learned(5)
    copy = LayoutPattern.from_json(json.loads(json.dumps(pattern.to_json())))
    assert copy.restore(pattern.memory())
    for n in (5, 6):
        copy.add(article(n))
        pattern.add(article(n))
    assert copy.to_json() == pattern.to_json()  # as if it had never left memory
    assert not learned(4).restore(pattern.memory())  # another pattern's window is refused


def test_version_1_pattern_is_read_with_its_window_in_memory() -> None:
    pattern = learned(5)
    old = {**pattern.to_json(), "version": 1,
           "votes": pattern.votes, "none_votes": pattern.none_votes,
           "window": [{"blocks": [list(b) for b in s.blocks], "anchors": s.anchors}
                      for s in pattern.window]}
    copy = LayoutPattern.from_json(json.loads(json.dumps(old)))
    assert len(copy.window) == len(pattern.window)
    assert copy.to_json() == pattern.to_json()


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(version=99),
    lambda d: d.update(kind="something else"),
    lambda d: d.update(diff=d["diff"][:-1]),
    lambda d: d.update(votes=[True] * len(d["votes"])),
    lambda d: d.update(pages="5"),
    lambda d: d.update(weight_noanchor=["text"] * len(d["paths"])),
    lambda d: d.pop("paths"),
])
def test_bad_json_raises_value_error(mutate: Callable[[dict[str, Any]], object]) -> None:
    data = learned(3).to_json()
    mutate(data)
    with pytest.raises(ValueError, match="bad layout pattern"):
        LayoutPattern.from_json(data)


# --- titles --------------------------------------------------------------------------------------

def index_page() -> lay.Layout:
    links = "".join(f'<li><a href="/2024/story-{i}.html#top">{ARTICLES[i][0]}</a></li>'
                    for i in range(len(ARTICLES)))
    html = f"<html><body><ul class='latest'>{links}</ul><a href='/'>Home</a></body></html>"
    return lay.segment(parse_page(html, f"{SITE}/index.html"))


def test_anchor_texts_are_collected_per_target_url() -> None:
    mapping = lay.collect_anchor_texts([index_page()])
    assert mapping[slug(3)] == [ARTICLES[3][0]]
    assert mapping[f"{SITE}/"] == ["Home"]
    own = lay.segment(parse_page('<p><a href="#x">me</a><a href="page">me too</a></p>',
                                 f"{SITE}/page"))
    assert lay.outgoing_anchors(own) == []


def test_title_from_anchor_texts_of_links_to_the_page() -> None:
    mapping = lay.collect_anchor_texts([index_page()])
    pattern = LayoutPattern()
    for i in range(5):
        pattern.add(article(i), mapping)
    match = lay.apply(pattern, article(5), mapping)
    assert match.title_method == "anchors"
    assert match.title == ARTICLES[5][0]
    assert labels_by_text(match)[f"{ARTICLES[5][0]} - The Daily Planet"] is not Label.TITLE


def test_title_falls_back_to_the_vote_of_learned_pages() -> None:
    pattern = learned(5)  # no anchor texts: every page votes by similarity to the body
    assert pattern.paths[pattern.title_section()] == "div:id=main/div:class=article/h1"
    match = lay.apply(pattern, article(5), {slug(5): ["Unrelated words about sailing boats"]})
    assert match.title_method == "pattern" and match.title == ARTICLES[5][0]


# --- real pages ----------------------------------------------------------------------------------

def _shingle_cover(gold: str, text: str) -> float:
    """Share of the gold text's 4-token shingles found in `text`."""
    want, have = ev.shingles(gold), ev.shingles(text)
    total = sum(want.values())
    return sum(min(n, have[s]) for s, n in want.items()) / total if total else 0.0


def test_real_sites_main_blocks_cover_the_gold_text() -> None:
    """Per site/year: the largest group of same-template pages (Sim >= 0.8), learn from five,
    label the held-out ones. Main and title text must cover the gold, static text must not."""
    rows = []
    for name, cases in sorted(site_year_groups().items()):
        layouts = [lay.segment(parse_page(c.html)) for c in cases]
        clusters: list[list[int]] = []
        for i, layout in enumerate(layouts):
            home = next((c for c in clusters if lay.similarity(layouts[c[0]], layout) >= 0.8),
                        None)
            home.append(i) if home is not None else clusters.append([i])
        group = max(clusters, key=len)
        train, test = group[:min(5, len(group) - 1)], group[min(5, len(group) - 1):]
        pattern = LayoutPattern()
        for i in train:
            pattern.add(layouts[i])
        for i in test:
            match = lay.apply(pattern, layouts[i])
            main = _shingle_cover(cases[i].gold, match.text(Label.MAIN, Label.TITLE))
            static = _shingle_cover(cases[i].gold, match.text(Label.STATIC))
            rows.append((name, main, static))
    by_group = {name: statistics.mean(m for n, m, _ in rows if n == name) for name, _, _ in rows}
    assert len(by_group) == 24
    assert statistics.mean(m for _, m, _ in rows) >= 0.9, by_group
    assert min(by_group.values()) >= 0.7, by_group
    assert statistics.mean(s for _, _, s in rows) <= 0.02
    assert max(s for _, _, s in rows) <= 0.1


def test_asides_are_unplaced_blocks_outside_the_main_text() -> None:
    headline, _, paragraphs = ARTICLES[5]
    html = re.sub(r' data-wn="\d+"', "", article_html(5)).replace(
        '<div class="story">',
        '<div class="slide"><p class="caption">Rescuers at the scene on Monday, seen from the '
        'bridge.</p></div><h2>Crosshead of this page</h2><div class="story">').replace(
        f"<p>{paragraphs[0]}</p>",
        f"<p>{paragraphs[0]}</p><blockquote><p>A pull quote only this page has.</p>"
        "</blockquote>")
    page = parse_page(stamp(html), slug(5))
    match = lay.apply(learned(5), lay.segment(page))
    assert match.matched
    by_id = {int(el.get("data-wn")): el for el in page.root.iter() if el.get("data-wn")}
    aside = " ".join(by_id[i].text_content() for i in match.aside_ids)
    assert "Rescuers at the scene" in aside
    assert "pull quote" not in aside and "Crosshead" not in aside
    assert not any(p in aside for p in paragraphs) and headline not in aside
    assert not set(match.aside_ids) & set(match.content_ids)


def test_link_blocks_are_blocks_of_anchor_text_only() -> None:
    _, _, paragraphs = ARTICLES[5]
    html = re.sub(r' data-wn="\d+"', "", article_html(5)).replace(
        f"<p>{paragraphs[0]}</p>",
        f'<p>{paragraphs[0]}</p><p><a href="/more"><b>READ MORE ABOUT THE STORM</b></a></p>'
        '<h2><a href="/live">Live coverage</a></h2>')
    page = parse_page(stamp(html), slug(5))
    match = lay.apply(learned(5), lay.segment(page))
    by_id = {int(el.get("data-wn")): el for el in page.root.iter() if el.get("data-wn")}
    links = " ".join(by_id[i].text_content() for i in match.link_ids)
    assert "READ MORE ABOUT THE STORM" in links
    assert "Live coverage" not in links and not any(p in links for p in paragraphs)
