"""The text blocks and features of bench/blockfeatures.py (the block-filter analysis)."""

from __future__ import annotations

import sys
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from blockfeatures import (  # noqa: E402
    block_features,
    gold_share,
    region_blocks,
    region_units,
)
from winnow.pagetype import PageType  # noqa: E402

REGION = """<div><h2>Our plans</h2>
<p>Every plan includes support. Pick the one that fits you best.</p>
<ul class="related-links"><li><a href="/a">Pricing</a></li><li><a href="/b">Pricing</a></li></ul>
<div class="card">Loose text <span>inline</span><p>Nested paragraph.</p> tail text</div>
<script>var x = 1;</script></div>"""


def _blocks() -> list:
    return region_blocks(lxml.html.fromstring(REGION))


def test_blocks_partition_the_text_by_nearest_block() -> None:
    texts = [b.text for b in _blocks()]
    assert texts == ["Our plans",
                     "Every plan includes support. Pick the one that fits you best.",
                     "Pricing", "Pricing", "Loose text inline tail text", "Nested paragraph."]


def test_leaf_blocks_hold_no_text_holding_block() -> None:
    leaves = {b.text: b.leaf for b in _blocks()}
    assert leaves["Loose text inline tail text"] is False
    assert leaves["Nested paragraph."] is True


def test_features_read_links_lists_names_and_repeats() -> None:
    blocks = _blocks()
    rows = block_features(blocks, PageType("service", {"service": 0.9, "article": 0.1}))
    link = rows[2]
    assert link["links"] == 1.0 and link["in_list"] == 1.0 and link["tag_li"] == 1.0
    assert link["noise_named"] == 1.0  # "related" is a noise word
    assert rows[1]["marks"] == 2 and rows[1]["links"] == 0.0 and rows[1]["noise_named"] == 0.0
    assert rows[0]["tag_heading"] == 1.0 and rows[0]["type_service"] == 0.9
    assert abs(sum(r["share"] for r in rows) - 1.0) < 1e-9


def test_units_are_the_outermost_small_elements() -> None:
    root = lxml.html.fromstring(REGION)
    units = region_units(root, 0.3)
    assert [u.tag for u in units] == ["h2", "p", "ul", "span", "p"]


def test_gold_share_counts_words_in_the_gold() -> None:
    assert gold_share("Pick the plan", {"pick", "the"}) == 2 / 3
    assert gold_share("", set()) == 1.0
