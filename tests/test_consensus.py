"""The content container a template cluster agrees on (winnow.consensus)."""

from __future__ import annotations

import lxml.html
from winnow import consensus
from winnow.consensus import ContentVotes


def _body(html: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(html).body


PAGE = """<html><body>
<div class="nav">Home News Sport</div>
<div id="main-3" class="wrap col-8"><article class="story post-1234"><p>One.</p><p>Two.</p>
</article><article class="story post-99"><p>Other.</p></article></div>
<div class="footer">About us</div></body></html>"""


def test_path_drops_digits_and_counts_same_step_siblings() -> None:
    body = _body(PAGE)
    second = body.xpath("//article")[1]
    path = consensus.path_of(second, body)
    assert path == ("div#main-.col-.wrap[0]", "article.post-.story[1]")
    assert consensus.locate(body, path) is second
    assert consensus.path_of(body, body) == ()


def test_locate_finds_the_same_place_on_another_page_of_the_template() -> None:
    other = _body(PAGE.replace("post-1234", "post-777").replace("main-3", "main-4"))
    body = _body(PAGE)
    path = consensus.path_of(body.xpath("//article")[0], body)
    assert path is not None
    found = consensus.locate(other, path)
    assert found is not None and "post-777" in found.get("class")
    assert consensus.locate(other, ("table[0]",)) is None


def test_consensus_is_the_deepest_container_most_pages_agree_on() -> None:
    votes = ContentVotes()
    article = ("div.wrap[0]", "article[0]")
    for _ in range(2):
        votes.add(article)
    assert votes.consensus() is None  # too few pages voted
    votes.add(article)
    votes.add(("div.wrap[0]", "article[0]", "div.body[0]"))
    assert votes.consensus() == article  # all four lie in the article
    votes.add(("div.sidebar[0]",))
    assert votes.consensus() == article  # 4 of 5 lie in it: CONSENSUS_SHARE holds
    votes.add(("div.sidebar[0]",))
    assert votes.consensus() is None  # 4 of 6: no container but <body>
    for _ in range(4):
        votes.add(article)
    assert votes.consensus() == article  # 8 of 10 again

    assert ContentVotes.from_json(votes.to_json()) == votes


def test_outside_is_every_sibling_along_the_way_up() -> None:
    body = _body(PAGE)
    story = body.xpath("//article")[0]
    names = {el.get("class") for el in consensus.outside(story, body)}
    assert names == {"story post-99", "nav", "footer"}
    share = consensus.text_share(story, body)
    assert 0.1 < share < 0.5


def test_common_ancestor_of_content_elements() -> None:
    body = _body(PAGE)
    paragraphs = body.xpath("//article[1]/p")
    assert consensus.common_ancestor(paragraphs) is body.xpath("//article")[0]
    assert consensus.common_ancestor(body.xpath("//p")) is body.xpath("//div")[1]
    assert consensus.common_ancestor([]) is None
