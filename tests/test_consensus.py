"""The content container a template cluster agrees on (winnow.consensus)."""

from __future__ import annotations

import hashlib

import lxml.html
from winnow import consensus, extract
from winnow.consensus import ContentVotes
from winnow.learning import read_page
from winnow.sitemodel import SiteModel, content_container


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
    found = consensus.outside(story, body)
    assert {el.get("class") for el in found} - {None} == {"story post-99", "nav", "footer"}
    assert body.xpath("//article[2]/p")[0] in found  # whole subtrees
    assert not set(story.iter()) & set(found) and body not in found
    assert consensus.strays(body.xpath("//article")[1], story)
    assert consensus.strays(body, story)  # around it, taking in more than it holds
    story_text = "A long story sentence, told in full. " * 20
    decked = _body("<html><body><div id='s'><p>A short deck.</p><div class='c'><p>"
                   f"{story_text}</p></div></div></body></html>")
    assert not consensus.strays(decked[0], decked[0][1])  # around it, adding a deck
    assert not consensus.strays(story.xpath("p")[0], story) and not consensus.strays(story, story)
    share = consensus.text_share(story, body)
    assert 0.1 < share < 0.5


# --- the consensus in a site model --------------------------------------------------------------

def _sentence(n: int, k: int) -> str:
    digests = (hashlib.blake2b(repr((n, k, i)).encode(), digest_size=5).hexdigest()
               for i in range(12))
    words = [digest.strip("0123456789") or "word" for digest in digests]
    return f"{' '.join(words[:4])}, {' '.join(words[4:8])}, {' '.join(words[8:])}."


def _page(n: int, story: int, rail: int) -> str:
    """A news page: nav, the story in `div.story`, and a rail of headline links whose first
    item carries `rail` paragraphs of its article's full text (a 'most read' teaser)."""
    body = "".join(f"<p>{_sentence(n, k)} {_sentence(n, k + 50)}</p>" for k in range(story))
    links = "".join(f"<li><a href='/read/{n}/{k}'>Headline {k}</a></li>" for k in range(6))
    teaser = "".join(f"<p>{_sentence(n, 100 + k)} {_sentence(n, 150 + k)}</p>"
                     for k in range(rail)) + f"<ul>{links}</ul>"
    return (f"<html><head><title>Story {n}</title></head><body><div id='nav'><a href='/'>Home"
            f"</a></div><div id='page'><div class='story-{n}'><h1>Story {n}</h1>"
            f"<div class='text'>{body}</div></div><div class='rail'><h2>Most read</h2>"
            f"<div class='item'>{teaser}</div></div></div></body></html>")


def test_a_cluster_corrects_the_page_whose_single_page_choice_strays() -> None:
    model = SiteModel("example.com")
    for n in range(4):
        result, seen = read_page(model, _page(n, story=6, rail=0), f"https://example.com/{n}")
        assert seen.content is not None
        model.add(seen)
    stray = _page(9, story=2, rail=8)
    single = extract(stray, "https://example.com/9")
    assert single.article is not None and _sentence(9, 100) in single.article.text
    learned, seen = read_page(model, stray, "https://example.com/9")
    assert learned.article is not None
    assert _sentence(9, 0) in learned.article.text
    assert _sentence(9, 100) not in learned.article.text
    template = model.template(seen)
    assert template is not None and template.container is not None


def test_a_page_whose_container_is_nearly_empty_is_left_to_single_page_extraction() -> None:
    model = SiteModel("example.com")
    for n in range(4):
        _, seen = read_page(model, _page(n, story=6, rail=0), f"https://example.com/{n}")
        model.add(seen)
    votes = next(iter(model.clusters.values())).content
    _, seen = read_page(model, _page(7, story=6, rail=8), "https://example.com/7")
    assert votes.consensus() is not None and content_container(seen, votes) is not None
    _, seen = read_page(model, _page(8, story=0, rail=8), "https://example.com/8")
    assert content_container(seen, votes) is None
