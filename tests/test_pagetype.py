"""Page types: the shipped classifier, and what the router and the extraction do with a type
(documentation keeps its whole main container; a product page is "other" with main_text)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from model_reference import model_data, reference_probabilities
from winnow import extract
from winnow.article import extract_article
from winnow.extractor import _whole_document, extract_page
from winnow.metadata import extract_metadata
from winnow.page import parse_page
from winnow.pagefeatures import page_features
from winnow.pagetype import (
    MIN_TYPED_CHARS,
    PAGE_TYPES,
    PageType,
    classify,
    reader_page_type,
)
from winnow.treemodel import ModelError, load_model, parse_model

DOC_URL = "https://example.org/docs/en/latest/api.html"
PRODUCT_URL = "https://lumen.example/products/brass-desk-lamp"
LOADER_MAIN = ("<main><h1>Loaders</h1>" + "".join(
    f"<pre>from parser import load\nsettings = load('config{i}.toml')</pre>"
    "<p>The parser reads a configuration file, checks every key against its schema, and "
    "returns a mapping of settings. This part explains how to call it, which errors it "
    "raises, and how to extend it with your own loaders.</p>" for i in range(1, 4))
    + "<div role='tablist'><a role='tab' aria-controls='tab-rb'>Ruby</a></div>"
    "<div role='tabpanel' id='tab-rb' hidden><pre>settings = Parser.load('app.toml')</pre>"
    "</div></main>")
"""A reference page's main container: three sections of code and the prose about it, and a
folded tab of code in another language."""


def doc_page() -> str:
    """A reference page as Sphinx writes one: three sections, each with code and a table, in
    a `role=main` body, beside a sidebar with the table of contents and the site's guides."""
    toc = "".join(f"<li class='toctree-l1'><a class='reference internal' href='/docs/{n}.html'>"
                  f"{n.title()} guide</a></li>" for n in ("install", "quickstart", "tutorial",
                                                          "api", "config", "deploy", "faq",
                                                          "changes", "license", "testing"))
    local = "".join(f"<li><a class='reference internal' href='#s{i}'>Section {i}</a></li>"
                    for i in range(1, 4))
    sections = "".join(
        f"<section id='s{i}'><h2>Section {i} of the parser API"
        f"<a class='headerlink' href='#s{i}'>¶</a></h2>"
        f"<p>The parser reads a configuration file, checks every key against its schema, "
        f"and returns a mapping of settings. Part {i} explains how to call it, which errors "
        f"it raises, and how to extend it with your own loaders.</p>"
        f"<div class='highlight-python notranslate'><div class='highlight'><pre>"
        f"from parser import load\nsettings = load('config{i}.toml')\nprint(settings['name'])"
        f"</pre></div></div>"
        f"<p>Short note {i}.</p>"
        f"<table class='docutils'><tr><th>Option</th><th>Meaning</th></tr>"
        f"<tr><td>strict_{i}</td><td>Fail on unknown keys</td></tr></table></section>"
        for i in range(1, 4))
    return ("<html><head><title>Parser API — Example 2.1 documentation</title>"
            "<meta name='generator' content='Sphinx'></head><body>"
            "<div class='document'><div class='documentwrapper'><div class='bodywrapper'>"
            f"<div class='body' role='main'><section id='parser-api'><h1>Parser API"
            f"<a class='headerlink' href='#parser-api'>¶</a></h1>{sections}</section></div>"
            "</div></div>"
            "<div class='sphinxsidebar' role='navigation'><div class='sphinxsidebarwrapper'>"
            f"<h3>Table of contents</h3><ul>{local}</ul><h3>Navigation</h3><ul>{toc}</ul>"
            "</div></div></div><div class='footer'>© Example authors. Built with Sphinx."
            "</div></body></html>")


def product_page() -> str:
    """A shop's product page: JSON-LD Product, og:type product, a price and a cart form, the
    description and reviews in <main>, related products, header navigation and a footer."""
    nav = "".join(f"<li><a href='/collections/{n}'>{n.title()}</a></li>"
                  for n in ("lamps", "chairs", "tables", "rugs", "sale"))
    related = "".join(f"<li class='product-card'><a href='/products/lamp-{i}'>Lamp {i}</a>"
                      f"<span class='price'>${i}9.00</span></li>" for i in range(2, 8))
    ld = ('{"@context": "https://schema.org", "@type": "Product", "name": "Brass desk lamp", '
          '"offers": {"@type": "Offer", "price": "89.00", "priceCurrency": "USD"}}')
    return ("<html><head><title>Brass desk lamp – Lumen Store</title>"
            "<meta property='og:type' content='product'>"
            f"<script type='application/ld+json'>{ld}</script></head><body>"
            f"<header class='site-header'><nav><ul>{nav}</ul></nav></header>"
            "<main id='MainContent'><div class='product'><div class='product__info'>"
            "<h1 class='product__title'>Brass desk lamp</h1>"
            "<div class='price'><span class='price-item'>$89.00</span></div>"
            "<form class='product-form' action='/cart/add'><label>Quantity</label>"
            "<button>Add to cart</button></form>"
            "<div class='product__description'><p>A solid brass lamp with a linen shade, "
            "hand finished in our workshop. The arm turns a full circle, and the warm bulb "
            "is included.</p><p>Each lamp is turned, polished and wired by hand, so the patina "
            "of the brass varies a little from one to the next. Over the years it darkens to a "
            "soft bronze; a little polish brings back the shine if you prefer it.</p>"
            "<p>The weighted base keeps the lamp steady on a desk or a bedside table, and the "
            "two metre cable in braided cotton ends in a switch you can reach without looking."
            "</p><h2>Care and delivery</h2><p>Wipe the shade with a dry cloth. We ship within "
            "three working days in recycled packaging, and you can return the lamp within "
            "thirty days if it does not suit your room.</p><ul>"
            "<li>Height: 45 cm</li><li>Bulb: E27, 40 W</li></ul></div>"
            "</div></div>"
            "<section class='reviews'><h2>Reviews</h2>"
            "<div class='review'><p>Beautiful lamp, heavier than I expected and very well "
            "made. The light is warm and even. — Ana</p></div>"
            "<div class='review'><p>Arrived quickly and well packed; it looks great on my "
            "desk next to the window. — Tom</p></div></section>"
            f"<section class='related-products'><h2>You may also like</h2><ul>{related}</ul>"
            "</section></main>"
            "<footer class='site-footer'><p>Lumen Store, 12 Harbour Road. Free shipping over "
            "$100.</p></footer></body></html>")


def test_shipped_classifier_tells_the_six_types() -> None:
    model = load_model("pagetype")
    assert model.kind == "classifier" and sorted(model.classes) == sorted(PAGE_TYPES)
    assert model.trees and all(len(stage) == len(PAGE_TYPES) for stage in model.trees)


@pytest.mark.parametrize("html,url", [(doc_page(), DOC_URL), (product_page(), PRODUCT_URL)])
def test_classifier_evaluates_as_a_second_reading_of_its_json(html: str, url: str) -> None:
    features = page_features(parse_page(html, url))
    got = load_model("pagetype").probabilities(features)
    want = reference_probabilities(model_data("pagetype"), features)
    assert got.keys() == want.keys()
    for label in want:
        assert got[label] == pytest.approx(want[label], abs=1e-12)
    assert sum(got.values()) == pytest.approx(1.0)


def test_documentation_keeps_every_section_with_its_code_and_tables() -> None:
    page = parse_page(doc_page(), DOC_URL)
    assert classify(page).label == "documentation" and reader_page_type(classify(page)) \
        == "documentation"
    result = extract(doc_page(), DOC_URL)
    assert result.kind == "article" and result.article is not None
    text = result.article.text
    for i in range(1, 4):
        assert f"Section {i} of the parser API" in text
        assert f"settings = load('config{i}.toml')" in text
        assert f"strict_{i}" in text
    assert "<pre>" in result.article.html and "<table>" in result.article.html
    assert "Quickstart guide" not in text and "Table of contents" not in text  # the sidebar
    assert "Built with Sphinx" not in text


def test_product_page_is_other_with_its_main_text() -> None:
    page = parse_page(product_page(), PRODUCT_URL)
    assert classify(page).label == "product" and classify(page).sure
    result = extract(product_page(), PRODUCT_URL)
    assert result.kind == "other" and result.article is None
    assert "A solid brass lamp with a linen shade" in result.main_text
    assert "Arrived quickly and well packed" not in result.main_text  # its reviews
    assert "Chairs" not in result.main_text and "Harbour Road" not in result.main_text
    assert result.to_dict()["main_text"] == result.main_text
    assert 0.0 <= result.confidence <= 1.0


def test_articles_and_threads_leave_main_text_empty() -> None:
    paragraphs = "".join(f"<p>{'This is a sentence of the story, with a comma. ' * 8}</p>"
                         for _ in range(6))
    html = f"<html><body><article><h1>Story</h1>{paragraphs}</article></body></html>"
    result = extract(html, "https://news.example/2024/05/a-story")
    assert result.kind == "article" and result.main_text == ""


def test_a_small_page_is_not_typed() -> None:
    links = "".join(f"<li><a href='/p/{i}'>Item {i}</a></li>" for i in range(20))
    page = parse_page(f"<html><body><ul>{links}</ul></body></html>", "https://x.example/")
    assert math.expm1(page_features(page)["log_chars"]) < MIN_TYPED_CHARS
    assert not classify(page).sure and reader_page_type(classify(page)) == "article"


def test_malformed_models_are_refused() -> None:
    good = {"kind": "regressor", "features": ["a"], "base": [0.5], "learning_rate": 0.1,
            "trees": [[{"feature": [0, -1, -1], "threshold": [1.0, 0, 0], "left": [1, -1, -1],
                        "right": [2, -1, -1], "value": [0.0, -1.0, 1.0]}]]}
    model = parse_model(good)
    assert model.predict({"a": 0.0}) == pytest.approx(0.4)
    assert model.predict({"a": 2.0}) == pytest.approx(0.6)
    with pytest.raises(ModelError):
        model.predict({"b": 1.0})
    broken_link = {**good, "trees": [[{**good["trees"][0][0], "left": [5, -1, -1]}]]}
    wide = {**good, "trees": [[{**good["trees"][0][0], "feature": [3, -1, -1]}]]}
    for bad in (broken_link, wide, {**good, "base": [0.1, 0.2]}, {"kind": "regressor"}):
        with pytest.raises(ModelError):
            parse_model(bad)


def test_documentation_keeps_the_code_of_its_folded_tabs() -> None:
    """A reference page shows one language's code and folds the others into hidden tab
    panels; the reader view of the document holds every tab."""
    tabs = ("<div class='tabs' role='tablist'><a role='tab' aria-controls='tab-py'>Python</a>"
            "<a role='tab' aria-controls='tab-rb'>Ruby</a></div>"
            "<div role='tabpanel' id='tab-py'><pre>settings = load('app.toml')</pre></div>"
            "<div role='tabpanel' id='tab-rb' hidden><pre>settings = Parser.load('app.toml')"
            "</pre></div>")
    html = doc_page().replace("</section></div>", f"{tabs}</section></div>", 1)
    page = parse_page(html, DOC_URL)
    assert reader_page_type(classify(page)) == "documentation"
    result = extract(html, DOC_URL)
    assert result.article is not None
    assert "Parser.load('app.toml')" in result.article.text
    assert "Section 2 of the parser API" in result.article.text


def test_documentation_whose_body_is_its_main_container_is_read_as_a_region() -> None:
    """When ECON's body is the main container itself (paragraphs right in <main>), the reader
    view is still that container read as a region: its folded tabs shown."""
    html = ("<html><head><title>Loaders — Example 2.1 documentation</title>"
            "<meta name='generator' content='Sphinx'></head><body>"
            "<div class='sphinxsidebar' role='navigation'><h3>Navigation</h3><ul>"
            + "".join(f"<li><a href='/docs/{n}.html'>{n} guide</a></li>" for n in range(9))
            + f"</ul></div>{LOADER_MAIN}"
            "<div class='footer'>© Example authors. Built with Sphinx.</div></body></html>")
    page = parse_page(html, DOC_URL)
    meta = extract_metadata(page)
    found = extract_article(page)
    assert found is not None and found.source.tag == "main"
    region, rendered = _whole_document(page, meta, found, None, [])
    assert rendered is not None and "Parser.load('app.toml')" in rendered.text
    assert "guide" not in rendered.text and "Built with Sphinx" not in rendered.text


def test_documentation_whose_body_holds_its_main_container_is_read_as_that_region() -> None:
    """When ECON's body is larger than the main container (a layout wrapper holding <main>
    and a rail beside it), the reader view is the main container read as a region, as when
    the body lies inside it: the folded tabs shown, the rail beside <main> left out."""
    html = ("<html><head><title>Loaders — Example 2.1 documentation</title></head><body>"
            f"<div class='wrap'>{LOADER_MAIN}<div class='rail'><p>Join "
            "our corporate members program today.</p></div></div></body></html>")
    page = parse_page(html, DOC_URL)
    meta = extract_metadata(page)
    found = extract_article(page)
    assert found is not None
    wrapper = replace(found, source=page.body[0])
    region, rendered = _whole_document(page, meta, wrapper, None, [])
    assert rendered is not None and "Parser.load('app.toml')" in rendered.text
    assert "corporate members" not in rendered.text


def test_page_leaning_to_documentation_keeps_its_guide_index() -> None:
    """A page read as an article that leans to documentation (CODE_LEAN) is read on the
    documentation route: the linked task items of its guide's sections stay, which ECON's
    candidates drop as a teaser list."""
    prose = ("<p>The warehouse stores your tables, runs your queries and shares the results "
             "with your team. This overview explains how it works, what it costs, and where "
             "to start when you load your first data.</p>")
    tasks = "".join(f"<li><a href='/docs/{n}'>Create a {n}</a> for your tables</li>"
                    for n in ("dataset", "view", "schedule", "snapshot"))
    html = ("<html><head><title>Overview</title></head><body>"
            "<nav><ul>" + "".join(f"<li><a href='/docs/{n}'>Guide {n}</a></li>"
                                  for n in range(9)) + "</ul></nav>"
            f"<main><h1>Overview</h1>{prose}{prose}<section><h2>Tasks</h2><ul>{tasks}</ul>"
            f"</section>{prose}</main><footer>© Example authors.</footer></body></html>")
    page = parse_page(html, DOC_URL)
    probabilities = dict.fromkeys(PAGE_TYPES, 0.0) | {"article": 0.6, "documentation": 0.4}
    page.derived["page_type"] = PageType("article", probabilities, False)
    result = extract_page(page)
    assert result.article is not None
    assert "Create a snapshot for your tables" in result.article.text
    assert "Guide 3" not in result.article.text
