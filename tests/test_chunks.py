"""Template text chunks (winnow.chunks, Ma et al. 2003): document frequencies keyed by tag path
and text, incremental counting with bounded memory, and a real-data check on the sites corpus."""

from __future__ import annotations

import json
import math
import re
import statistics
from collections import Counter

import pytest
from helpers import ARTICLES, article_html, site_year_groups, slug, stamp
from winnow import chunks
from winnow import evaluation as ev
from winnow import layout as lay
from winnow.chunks import Chunk, ChunkTable
from winnow.page import parse_page

BAR_TEXT = "home | news | sports"


def page_chunks(i: int, body_extra: str = "") -> list[Chunk]:
    html = article_html(i)
    if body_extra:
        html = re.sub(r'(<div class="story"[^>]*>)', lambda m: m.group(1) + body_extra, html)
    return chunks.page_chunks(parse_page(html, slug(i)))


def table_of(n: int) -> ChunkTable:
    table = ChunkTable()
    for i in range(n):
        table.add(page_chunks(i), slug(i))
    return table


def test_chunks_are_keyed_by_path_and_normalised_text() -> None:
    page = parse_page(stamp('<html><body><div id="top"><p>Hello  <b>World</b> &amp; co</p>'
                            '<p>»</p></div><div id="bottom"><p>HELLO world &amp; co</p></div>'
                            '</body></html>'))
    first, arrow, second = chunks.page_chunks(page)
    assert first.text == second.text == "hello world & co"
    assert first.path == "div:id=top/p" and second.path == "div:id=bottom/p"
    assert first.key != second.key and first.key == chunks.chunk_key(first.path, first.text)
    assert arrow.text == "»"  # a lone separator is text of a bar, kept
    assert len(first.ids) == 2


def test_repeated_bar_is_template_at_both_places_and_not_in_the_body() -> None:
    table = table_of(5)
    bar_p = '<p>Home | News | Sports</p>'  # the bar's words, inside one article only
    labelled = chunks.label_chunks(page_chunks(5, bar_p), table)
    bars = [(c.path, template) for c, template in labelled.chunks if c.text == BAR_TEXT]
    assert bars == [("div:id=header/div:class=bar", True),
                    ("div:id=main/div:class=article/div:class=story/p", False),
                    ("div:id=footer/div:class=bar", True)]
    # keyed by text alone, the body's copy would count as seen in every page
    text_df = Counter(t for i in range(5) for t in {c.text for c in page_chunks(i)})
    assert text_df[BAR_TEXT] == 5


def test_template_and_content_chunks_of_an_article() -> None:
    labelled = chunks.label(parse_page(article_html(5), slug(5)), table_of(5))
    template = {c.text for c, t in labelled.chunks if t}
    content = {c.text for c, t in labelled.chunks if not t}
    assert {"the daily planet", "world", "most read today",
            "copyright 2024 daily planet media. all rights reserved."} <= template
    assert {p.casefold() for p in ARTICLES[5][2]} <= content
    assert ARTICLES[5][0].casefold() in content
    assert not set(labelled.template_ids) & set(labelled.content_ids)
    assert len(labelled.template_ids) > 20


def test_threshold_is_a_share_of_the_pages_and_never_one_page() -> None:
    table = ChunkTable()
    once = page_chunks(0)
    table.add(once, "u0")
    assert table.threshold() == chunks.MIN_DF
    assert not any(table.is_template(c) for c in once)
    table = ChunkTable()
    special = Chunk("div/p", "special offer", (), chunks.chunk_key("div/p", "special offer"))
    for i in range(10):
        table.add([special] if i < 3 else [], f"u{i}")
    assert table.threshold() == math.ceil(chunks.DF_RATIO * 10) == 3
    assert table.is_template(special) and table.is_template(special.key)
    table.add([], "u10")
    assert not table.is_template(special)  # 3 of 11 pages is under the ratio
    assert chunks.template_chunks(table) == frozenset()
    assert table.count(special) == table.count(special.key) == 3
    assert table.count(once[0]) == 0


def test_incremental_counts_equal_exact_document_frequencies() -> None:
    pages = [page_chunks(i) for i in range(6)] * 3  # 18 pages, under one bucket
    table = ChunkTable()
    for i, page in enumerate(pages):
        assert table.add(page, f"u{i}")
    exact = Counter(key for page in pages for key in {c.key for c in page})
    assert {k: e[0] for k, e in table.counts.items()} == dict(exact)
    reverse = ChunkTable()
    for i, page in reversed(list(enumerate(pages))):
        reverse.add(page, f"u{i}")
    assert chunks.template_chunks(reverse) == chunks.template_chunks(table)


def test_lossy_counting_forgets_rare_chunks_and_keeps_template() -> None:
    table = ChunkTable()
    sizes = []
    for i in range(200):
        unique = Chunk("div/p", f"paragraph {i}", (), chunks.chunk_key("div/p", f"paragraph {i}"))
        footer = Chunk("div/p", "footer", (), chunks.chunk_key("div/p", "footer"))
        table.add([unique, footer], f"u{i}")
        sizes.append(len(table.counts))
    assert max(sizes) <= table.bucket_width + 1
    assert table.is_template(chunks.chunk_key("div/p", "footer"))
    assert table.pages < 200  # sampling started after FULL_PAGES


def test_sampling_is_deterministic_and_at_the_papers_rate() -> None:
    table = ChunkTable()
    for i in range(chunks.FULL_PAGES):
        assert table.add([], f"https://x.example/{i}")
    decisions = [table.wants(f"https://x.example/page-{i}") for i in range(4000)]
    assert decisions == [table.wants(f"https://x.example/page-{i}") for i in range(4000)]
    assert abs(sum(decisions) / len(decisions) - chunks.SAMPLE_RATE) < 0.03
    counted_before = table.pages
    results = [table.add([], f"https://x.example/more-{i}") for i in range(100)]
    assert table.pages == counted_before + sum(results) and table.seen == chunks.FULL_PAGES + 100


def test_json_round_trip_and_bad_input() -> None:
    table = table_of(5)
    copy = ChunkTable.from_json(json.loads(json.dumps(table.to_json())))
    assert copy.to_json() == table.to_json() and copy.to_json()["version"] == 1
    assert chunks.template_chunks(copy) == chunks.template_chunks(table)
    for bad in ({}, {**table.to_json(), "version": 2}, {**table.to_json(), "pages": -1},
                {**table.to_json(), "counts": {"k": [1]}},
                {**table.to_json(), "counts": {"k": [True, 0]}}, [1, 2]):
        with pytest.raises(ValueError, match="bad chunk table"):
            ChunkTable.from_json(bad)


def test_layout_blocks_come_from_the_same_chunker() -> None:
    page = parse_page(article_html(0), slug(0))
    blocks = lay.segment(page).blocks
    long_texts = [c.text for c in chunks.page_chunks(page) if len(chunks.sigchars(c.text)) >= 5]
    assert [b.text.casefold() for b in blocks] == long_texts


# --- real pages ----------------------------------------------------------------------------------

def test_real_sites_template_text_misses_the_gold_text() -> None:
    """Per site/year, learn a table from five pages and label the other five: template chunks
    hold almost none of the gold text, and do hold part of each page."""
    gold_in_template, template_share = [], []
    for cases in site_year_groups().values():
        table = ChunkTable()
        for case in cases[:5]:
            table.add(chunks.page_chunks(parse_page(case.html)), case.id)
        for case in cases[5:]:
            labelled = chunks.label(parse_page(case.html), table)
            gold = ev.shingles(case.gold.casefold())
            found = ev.shingles(labelled.text(True))
            total = sum(gold.values()) or 1
            gold_in_template.append(sum(min(n, found[s]) for s, n in gold.items()) / total)
            words = len(ev.tokenize(labelled.text(True)))
            template_share.append(words / max(words + len(ev.tokenize(labelled.text(False))), 1))
    assert statistics.mean(gold_in_template) <= 0.02 and max(gold_in_template) <= 0.1
    assert statistics.mean(template_share) >= 0.1
