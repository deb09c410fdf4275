"""The main region of pages that are not one article body (listings, products, services):
which container is the page's main one, what inside it is furniture, and when a page read as
an article is spread over many blocks (`is_spread_out`)."""

from __future__ import annotations

import copy

from winnow import mainregion
from winnow.article import ArticleContent
from winnow.extractor import _prose_region
from winnow.mainregion import (
    SPREAD_BODY_SHARE,
    SPREAD_LEAN,
    SPREAD_TEXT_SHARE,
    body_share,
    is_spread_out,
    main_container,
    main_region,
    rest_is_prose,
    text_share,
)
from winnow.metadata import extract_metadata
from winnow.page import HtmlElement, Page, parse_page
from winnow.pagetype import PageType
from winnow.render import Rendered, render_article

PROSE = ("Our workshop turns, polishes and wires every lamp by hand, so the patina of the brass "
         "varies a little from one lamp to the next. ")


def region_text(html: str, **flags: bool) -> str:
    """The text of the page's main region read with `main_region`'s `flags`."""
    page = parse_page(html, "https://shop.example/lamps")
    main = main_container(page)
    region = main_region(page, page.body if main is None else main, **flags)
    return render_article(region.content, page.url, None, None).text


def test_a_main_holding_the_content_is_the_main_container() -> None:
    page = parse_page("<html><body><header><nav><a href='/'>Home</a></nav></header>"
                      f"<main id='content'><h1>Brass lamps</h1><p>{PROSE * 4}</p></main>"
                      "<footer>© Lumen</footer></body></html>")
    main = main_container(page)
    assert main is not None and main.get("id") == "content"


def test_a_main_holding_a_sliver_of_the_page_is_not_the_main_container() -> None:
    """A shop's slide-out cart marked <main> holds a few words; the content lies outside."""
    html = ("<html><body><div class='drawer'><main class='slideout'>Your cart is empty</main>"
            f"</div><div class='collection'><h1>Wallets</h1><p>{PROSE * 4}</p></div>"
            "</body></html>")
    assert main_container(parse_page(html)) is None
    text = region_text(html)
    assert "Wallets" in text and "patina of the brass" in text


def test_a_noise_named_wrapper_holding_most_of_the_page_is_read_inside() -> None:
    """A layout block named "sidebar-layout" around the whole content is no sidebar: its
    paragraphs stay, its own furniture (a nav) still goes."""
    html = ("<html><body><main><div class='enrollment-sidebar-layout'>"
            f"<h1>Tuition and fees</h1><p>{PROSE * 3}</p><p>{PROSE * 2}</p>"
            "<nav><a href='/a'>Apply now</a> <a href='/b'>Request info</a></nav>"
            "</div><div class='sidebar'><a href='/x'>Related programs</a></div></main>"
            "</body></html>")
    text = region_text(html)
    assert "Tuition and fees" in text and "patina of the brass" in text
    assert "Apply now" not in text and "Related programs" not in text


def test_a_noise_named_block_holding_little_text_still_goes() -> None:
    html = (f"<html><body><main><h1>Tuition and fees</h1><p>{PROSE * 3}</p>"
            "<div class='sidebar'><a href='/x'>Related programs and other links</a></div>"
            "</main></body></html>")
    text = region_text(html)
    assert "patina of the brass" in text and "Related programs" not in text


def test_a_hidden_block_is_no_wrapper_however_large() -> None:
    """A hidden comparison table ("hidden" class) or a display:none block stays out even
    when it holds most of the text: the reader never sees it."""
    for hidden in ("class='compare-section hidden'", "style='display:none'"):
        html = (f"<html><body><main><h1>Headphones</h1><p>Wireless and wired.</p>"
                f"<div {hidden}><p>{PROSE * 6}</p></div></main></body></html>")
        text = region_text(html)
        assert "Headphones" in text and "patina" not in text


def test_a_footer_holding_most_of_a_bare_page_still_goes() -> None:
    """Page furniture by tag (header, nav, footer, aside) is never a wrapper: a script shell
    whose only text is its footer has no main text."""
    html = ("<html><body><div id='app'></div><footer><p>Help center, returns, disputes and "
            "reports, recalls, privacy policy, terms of use, sitemap, careers, press, "
            "investors, affiliates, gift cards and the store finder.</p></footer>"
            "</body></html>")
    assert "Help center" not in region_text(html)


def service_page() -> str:
    """A service page: six sections of equal weight in <main>, each a heading and a paragraph."""
    sections = "".join(f"<section id='s{i}'><h2>Service {i}</h2><p>{PROSE * 2}</p></section>"
                       for i in range(6))
    return (f"<html><body><header><nav><a href='/'>Home</a></nav></header><main>{sections}"
            "</main><footer>© Lumen</footer></body></html>")


def article_page() -> str:
    """An article: one body of six paragraphs in <main>, a short related list beside it."""
    paragraphs = "".join(f"<p>{PROSE * 2}</p>" for _ in range(6))
    return ("<html><body><main><div class='story'><h1>How lamps are made</h1>"
            f"{paragraphs}</div><ul class='more'><li><a href='/a'>More lamps</a></li></ul>"
            "</main></body></html>")


def leaning(readerless: float) -> PageType:
    """A page type giving the readerless types (listing, product, service) `readerless`."""
    return PageType("article", {"article": 1 - readerless, "service": readerless})


def test_one_section_of_a_service_page_holds_a_small_share_of_its_region() -> None:
    page = parse_page(service_page())
    section = page.body.get_element_by_id("s2")
    assert body_share(page, section) < SPREAD_BODY_SHARE
    assert is_spread_out(page, leaning(0.6), section)


def test_an_article_body_holds_most_of_its_region() -> None:
    page = parse_page(article_page())
    story = page.body.find_class("story")[0]
    assert body_share(page, story) > 0.9
    assert not is_spread_out(page, leaning(0.9), story)


def test_a_collection_whose_body_holds_two_thirds_of_its_region_is_checked_for_spread() -> None:
    """A collection page's largest block (its grid of cards) holds two thirds of the main
    region, its intro and its buying guide the rest: leaning to the readerless types, it is
    checked for spread (the quality estimate then judges), an article's body is not."""
    intro = f"<section id='intro'><h2>Brass lamps</h2><p>{PROSE * 2}</p></section>"
    grid = "".join(f"<div class='card'><h3>Lamp {i}</h3><p>{PROSE}</p></div>" for i in range(8))
    guide = f"<section id='guide'><h2>Buying guide</h2><p>{PROSE * 2}</p></section>"
    page = parse_page(f"<html><body><main>{intro}<div id='grid'>{grid}</div>{guide}</main>"
                      "</body></html>")
    body = page.body.get_element_by_id("grid")
    assert 0.5 < body_share(page, body) < SPREAD_BODY_SHARE
    assert is_spread_out(page, leaning(0.6), body)


def test_a_page_the_classifier_takes_for_an_article_is_not_checked_for_spread() -> None:
    page = parse_page(service_page())
    section = page.body.get_element_by_id("s2")
    assert not is_spread_out(page, leaning(SPREAD_LEAN / 2), section)


def test_given_noise_leaves_the_region() -> None:
    """Known noise (a thread's records, a template's noise) counts for nothing in the region:
    the body then holds all the region's text."""
    page = parse_page(service_page())
    sections = page.body.findall(".//section")
    assert body_share(page, sections[0], sections[1:]) == 1.0


def test_a_block_repeating_an_earlier_ones_text_is_left_out_of_the_main_text() -> None:
    """A responsive layout prints a product's description twice (desktop and mobile); the
    main text holds it once. A repeat shorter than MIN_TWIN_CHARS, and the same feature in two
    plans' lists, stay."""
    plan = ("<ul><li>Unlimited projects, unlimited storage and a dedicated account manager for "
            "the whole team</li><li>{}</li></ul>")
    html = ("<html><body><main><h1>Brass lamp</h1>"
            f"<div class='desktop'><p>{PROSE}</p></div><div class='mobile'><p>{PROSE}</p></div>"
            "<p>Add to cart</p><p>Add to cart</p>"
            + plan.format("Basic") + plan.format("Pro") + "</main></body></html>")
    page = parse_page(html, "https://shop.example/lamps/brass")
    main = main_container(page)
    assert main is not None
    for twins, copies in ((False, 2), (True, 1)):
        region = main_region(page, main, drop_twins=twins)
        text = render_article(region.content, page.url, None, None).text
        assert text.count("patina of the brass") == copies
        assert text.count("Add to cart") == 2
        assert text.count("dedicated account manager") == 2


def test_a_short_text_a_card_repeats_is_left_out_of_the_shown_main_text() -> None:
    """A card shows its title on its picture's link and in its heading, and lays out its
    date once per screen size: the shown main text holds each once per card. The price every
    card has (the same field of sibling records) and a comparison table's repeated values
    stay (a wrapper and its only child are one block), and without `drop_card_twins` (the
    routing's reading) nothing is left out, but the region counts what it kept (so the shown
    text is built again only when it differs)."""
    card = ("<li class='card'><a class='cover' href='/e/{n}'>{title}</a>"
            "<h3 class='card-title'>{title}</h3>"
            "<div class='when-mobile'>Tue, Mar {n}</div>"
            "<div class='when-desktop'>Tue, Mar {n}</div>"
            "<p class='price'><span>Free</span></p></li>")
    cards = "".join(card.format(n=n, title=f"Workshop number {n} on lamps") for n in (3, 4, 5))
    table = ("<table><tr><th>Plan</th><th>Basic</th><th>Pro</th></tr>"
             "<tr><td>Support</td><td>By e-mail</td><td>By e-mail</td></tr></table>")
    html = ("<html><body><main><h1>Events</h1><ul class='cards'>" + cards + "</ul>"
            + table + "</main></body></html>")
    page = parse_page(html, "https://events.example/lamps")
    main = main_container(page)
    assert main is not None
    for drop, copies in ((False, 2), (True, 1)):
        region = main_region(page, main, drop_twins=True, drop_card_twins=drop)
        text = render_article(region.content, page.url, None, None).text
        assert text.count("Workshop number 4 on lamps") == copies
        assert text.count("Tue, Mar 4") == copies
        assert text.count("Free") == 3
        assert text.count("By e-mail") == 2
        assert region.card_twins == (0 if drop else 6)  # counted where kept: 3 titles, 3 dates


def test_folded_panels_are_in_the_main_region() -> None:
    """A tab panel, an accordion body a button with aria-expanded controls and a Bootstrap
    collapse are content hidden until clicked; a hidden cart, and a dialog a button opens,
    are not."""
    html = ("<html><body><main><h1>Send a message</h1>"
            "<div role='tablist'><button role='tab' aria-controls='py'>Python</button>"
            "<button role='tab' aria-controls='go'>Go</button></div>"
            "<div role='tabpanel' id='py'><p>Install the Python helper library first.</p></div>"
            "<div role='tabpanel' id='go' hidden><p>Install the Go helper module first.</p></div>"
            "<button aria-expanded='false' aria-controls='faq1'>Is there a free plan?</button>"
            "<div id='faq1' style='display: none'><p>Yes, for up to three users.</p></div>"
            "<a data-toggle='collapse' href='#more'>More</a>"
            "<div id='more' class='collapse hidden'><p>It ships worldwide in two days.</p></div>"
            f"<p>{PROSE}</p>"
            "<div class='cart' hidden><p>Your cart is empty.</p></div>"
            "<button aria-expanded='false' aria-controls='signup'>Sign up</button>"
            "<div id='signup' role='dialog' hidden><p>Get our newsletter.</p></div>"
            "</main></body></html>")
    text = region_text(html)
    for shown in ("Python helper", "Go helper", "three users", "two days", "patina"):
        assert shown in text
    assert "cart is empty" not in text and "newsletter" not in text


def test_the_text_econ_kept_of_a_large_body_is_its_share() -> None:
    """ECON's body may be the whole page of which its pruning kept one paragraph: what it
    kept, not the element, is measured against the region's text."""
    assert text_share("One short paragraph.", "One short paragraph. " * 4) < SPREAD_TEXT_SHARE
    assert text_share("Most of the text. " * 9, "Most of the text. " * 10) > SPREAD_TEXT_SHARE
    assert text_share("Anything", "") == 1.0
    assert text_share("一段很短的话。", "一段很短的话。" + "Some more words. " * 2) > 0.3


def test_a_product_pages_reviews_leave_its_main_region() -> None:
    """On a product page the block named for customer reviews is furniture beside the
    product's own text; elsewhere (a service page's testimonials) it stays."""
    html = ("<html><body><main><h1>Brass lamp</h1>"
            f"<div class='product-description'><p>{PROSE}</p></div>"
            "<section class='product-reviews'><h2>Reviews</h2><p>Lovely lamp, arrived well "
            "packed and works with any bulb I tried.</p></section></main></body></html>")
    page = parse_page(html, "https://shop.example/lamps/brass")
    main = main_container(page)
    assert main is not None
    for drop_reviews, kept in ((False, True), (True, False)):
        region = main_region(page, main, drop_reviews=drop_reviews)
        text = render_article(region.content, page.url, None, None).text
        assert "patina" in text and ("arrived well packed" in text) == kept


def test_a_product_pages_teaser_lists_leave_its_main_region() -> None:
    """On a product page the rail of other products (link-led cards, `page_teasers`) is not
    the product's text, whatever its block is named; cards holding RAIL_SHARE of the region
    or more are the page's own (a collection taken for a product page) and stay."""
    cards = "".join(f"<div class='card'><a href='/lamps/{name}'>{name.title()} lamp</a>"
                    f"<span>$ {price}</span></div>"
                    for name, price in (("copper", 80), ("steel", 60), ("glass", 95)))
    html = ("<html><body><main><h1>Brass lamp</h1>"
            "<div class='product-description'><p>{}</p></div>"
            f"<div class='grid'>{cards}</div></main></body></html>")
    for prose, drop_teasers, kept in ((PROSE * 3, False, True), (PROSE * 3, True, False),
                                      (PROSE, True, True)):
        page = parse_page(html.format(prose), "https://shop.example/lamps/brass")
        main = main_container(page)
        assert main is not None
        region = main_region(page, main, drop_teasers=drop_teasers)
        text = render_article(region.content, page.url, None, None).text
        assert "patina" in text and ("Copper lamp" in text) == kept


def test_an_element_with_the_id_main_is_a_main_container() -> None:
    """Without <main> or role="main", the element whose id is "main" (a docs generator's,
    many themes') is the page's main container."""
    page = parse_page("<html><body><div id='nav'><a href='/'>Home</a></div>"
                      f"<div id='main'><h1>git-commit</h1><p>{PROSE * 4}</p></div>"
                      "<div id='footer'>© Lumen</div></body></html>")
    main = main_container(page)
    assert main is not None and main.get("id") == "main"


def test_the_prose_of_a_carousel_or_banner_stays_in_the_main_text() -> None:
    """A landing page's feature carousel and hero banner hold its pitch: named only for how
    they are shown, with sentences of prose, they stay in the main text; a carousel of
    product cards (a mark every few words), a link row named so, and a footer named so
    still go; and without `shown_prose` (a document's region) all of them go."""
    features = "".join(f"<div class='slide'><p>{PROSE}</p></div>" for _ in range(2))
    cards = "".join(f"<div class='card'>Lamp {i}: €{90 + i}.00. Quick view. Add to basket."
                    "</div>" for i in range(6))
    links = "".join(f"<a href='/l/{i}'>Lamp number {i}, in brass.</a> " for i in range(8))
    html = ("<html><body><main><h1>Lumen lamps</h1>"
            f"<div class='hero-banner'><p>{PROSE}</p></div>"
            f"<div class='feature-carousel'>{features}</div>"
            f"<div class='product-carousel'>{cards}</div>"
            f"<div class='carousel-links'>{links}</div>"
            f"<div class='site-footer'><p>{PROSE.replace('workshop', 'company')}</p></div>"
            f"<p>{PROSE.replace('lamp', 'shade')}</p></main></body></html>")
    text = region_text(html, shown_prose=True)
    assert text.count("patina of the brass") == 4
    assert "Quick view" not in text and "Lamp number" not in text and "company" not in text
    text = region_text(html)
    assert text.count("patina of the brass") == 1 and "shade" in text


def test_the_prose_of_sections_laid_out_as_strips_or_panels_stays_with_laid_out() -> None:
    """A landing page lays out its sections in a sideways-scrolling strip and in panels of
    secondary rank: named only for how they are laid out, with sentences of prose, they stay
    in the main text with `laid_out` (not a product page's); a footer holding prose and a
    scrolling strip of links still go; and without `laid_out` (a product page's galleries)
    the laid-out sections go too."""
    strip = "".join(f"<div class='card'><p>{PROSE}</p></div>" for _ in range(2))
    links = "".join(f"<a href='/l/{i}'>Lamp number {i}, in brass.</a> " for i in range(8))
    html = ("<html><body><main><h1>Lumen lamps</h1>"
            f"<p>{PROSE.replace('lamp', 'shade')}</p>"
            f"<div class='ScrollableList_grid__x1'>{strip}</div>"
            f"<div class='element__secondary'><p>{PROSE}</p></div>"
            f"<div class='scroll-links'>{links}</div>"
            f"<div class='site-footer'><p>{PROSE.replace('workshop', 'company')}</p></div>"
            "</main></body></html>")
    text = region_text(html, shown_prose=True, laid_out=True)
    assert text.count("patina of the brass") == 4
    assert "Lamp number" not in text and "company" not in text
    text = region_text(html, shown_prose=True)
    assert text.count("patina of the brass") == 1 and "shade" in text


def test_hidden_prose_stays_in_the_main_text_but_not_an_overlay_or_a_menu() -> None:
    """An FAQ answer hidden by an inline style, opened by a script no control names, is
    folded content of the main text; a hidden overlay named as a modal and a hidden link
    menu are not; and in a document's region (no `shown_prose`) the answer stays hidden."""
    links = "".join(f"<a href='/l/{i}'>Lamp number {i}, in brass.</a> " for i in range(8))
    html = ("<html><body><main><h1>Questions</h1>"
            "<div class='faq'><h3>How is a lamp made?</h3>"
            f"<div class='faq-answer' style='display: none'><p>{PROSE}</p></div></div>"
            "<div class='signup-modal' aria-hidden='true'><p>"
            f"{PROSE.replace('workshop', 'newsletter')}</p></div>"
            f"<div class='menu-links' hidden>{links}</div>"
            f"<p>{PROSE.replace('lamp', 'shade')}</p></main></body></html>")
    page = parse_page(html, "https://shop.example/faq")
    main = main_container(page)
    assert main is not None
    text = render_article(main_region(page, main, shown_prose=True).content, page.url, None,
                          None).text
    assert "every lamp by hand" in text and "shade" in text
    assert "newsletter" not in text and "Lamp number" not in text
    text = render_article(main_region(page, main).content, page.url, None, None).text
    assert "every lamp by hand" not in text and "shade" in text


def test_prose_hidden_by_a_hiding_class_stays_unless_shown_responsively_or_large() -> None:
    """FAQ answers hidden by a utility class ("hidden"), opened by a script, are folded
    content of the main text; a block whose own class shows it from a screen width on
    (`hidden lg:block`) is a responsive layout's other copy and stays hidden, and so does a
    hidden block holding most of the region (another view of the page). Without
    `folded_classes` (a product page's region) such blocks all stay hidden."""
    answers = "".join(
        f"<div class='faq-item'><h3>Question {n}?</h3>"
        f"<div class='text-sm hidden'><p>{PROSE.replace('lamp', word)}</p></div></div>"
        for n, word in enumerate(("sconce", "pendant", "chandelier")))
    html = ("<html><body><main><h1>Questions</h1>"
            f"<p>{PROSE}</p><p>{PROSE.replace('workshop', 'studio')}</p>{answers}"
            f"<div class='hidden lg:block'><p>{PROSE.replace('lamp', 'torch')}</p></div>"
            "</main></body></html>")
    text = region_text(html, shown_prose=True, folded_classes=True)
    assert all(word in text for word in ("sconce", "pendant", "chandelier"))
    assert "torch" not in text
    large = html.replace("</main>", f"<div class='hide'><p>{PROSE.replace('lamp', 'fan') * 12}"
                                    "</p></div></main>")
    text = region_text(large, shown_prose=True, folded_classes=True)
    assert "sconce" in text and "every fan" not in text
    text = region_text(large, shown_prose=True)
    assert "sconce" not in text


def blog_page() -> str:
    """An article beside a long list of links to other posts (a blogroll no name gives away),
    in a page without a main container."""
    paragraphs = "".join(f"<p>{PROSE * 2}</p>" for _ in range(3))
    links = "".join(f"<li><a href='/p{i}'>Another story about brass lamps, part {i}</a></li>"
                    for i in range(40))
    return (f"<html><body><div class='story'>{paragraphs}</div><ul class='roll'>{links}</ul>"
            "</body></html>")


def test_what_a_service_pages_region_holds_beside_one_section_is_prose() -> None:
    page = parse_page(service_page())
    assert rest_is_prose(page, page.body.get_element_by_id("s2"))


def test_what_an_articles_region_holds_beside_its_body_is_links() -> None:
    page = parse_page(blog_page())
    assert not rest_is_prose(page, page.body.find_class("story")[0])


def test_a_body_that_is_the_whole_region_leaves_no_rest() -> None:
    page = parse_page(service_page())
    assert not rest_is_prose(page, page.body.find("main"))


def body_of(page: Page, source: HtmlElement) -> tuple[ArticleContent, Rendered]:
    """`source` as ECON's body (a copy of it) and its rendering."""
    found = ArticleContent(copy.deepcopy(source), source, [], [], "econ", 0.0, 0)
    return found, render_article(found.content, page.url, None, None)


def landing_page() -> str:
    """A service page without a main container: six sections, each its own pitch."""
    sections = "".join(f"<section id='s{i}'><h2>Service {i}</h2><p>Lamp {i}: {PROSE * 2}</p>"
                       "</section>" for i in range(6))
    return f"<html><body><div class='page'>{sections}</div></body></html>"


def test_one_section_beside_prose_sections_gives_the_whole_region() -> None:
    page = parse_page(landing_page(), "https://lumen.example/")
    found, rendered = body_of(page, page.body.get_element_by_id("s2"))
    region = _prose_region(page, extract_metadata(page), found, rendered, [], True)
    assert region is not None and all(f"Service {i}" in region[1] for i in range(6))


def test_an_article_beside_a_link_list_keeps_its_body() -> None:
    page = parse_page(blog_page(), "https://lumen.example/")
    found, rendered = body_of(page, page.body.find_class("story")[0])
    assert _prose_region(page, extract_metadata(page), found, rendered, [], True) is None


def feed_page() -> str:
    """A topic page without a main container: one list of teaser cards (a linked heading and
    a blurb each), the whole of its text."""
    cards = "".join(f"<li class='card'><h3><a href='/news/{i}'>Lamp news number {i}</a></h3>"
                    f"<p>Lamp {i}: {PROSE}</p></li>" for i in range(12))
    return f"<html><body><div class='page'><ul id='feed'>{cards}</ul></div></body></html>"


def pruned_body(page: Page, source: HtmlElement, keep: int) -> tuple[ArticleContent, Rendered]:
    """`source` as ECON's body of which its pruning kept the first `keep` children."""
    found, _ = body_of(page, source)
    for child in list(found.content)[keep:]:
        found.content.remove(child)
    return found, render_article(found.content, page.url, None, None)


def test_a_body_pruned_to_a_few_cards_of_the_whole_region_gives_the_region() -> None:
    """ECON's body element is the whole feed (no rest beside it to judge) but its pruning
    kept two of its twelve cards: on a page the classifier is not sure of, the page's text
    is the region's. A body that kept most of the feed stays the body, and so does a sure
    type's (a sure article keeps what ECON kept of its own element)."""
    page = parse_page(feed_page(), "https://lumen.example/topic/lamps/")
    meta = extract_metadata(page)
    feed = page.body.get_element_by_id("feed")
    assert body_share(page, feed) == 1.0 and not rest_is_prose(page, feed)
    found, rendered = pruned_body(page, feed, 2)
    region = _prose_region(page, meta, found, rendered, [], False)
    assert region is not None and all(f"Lamp news number {i}" in region[1] for i in range(12))
    assert _prose_region(page, meta, found, rendered, [], True) is None
    found, rendered = pruned_body(page, feed, 10)
    assert _prose_region(page, meta, found, rendered, [], False) is None


def test_a_wall_of_words_beside_the_body_is_no_prose() -> None:
    filler = "lorem ipsum dolor sit amet " * 200
    page = parse_page(f"<html><body><div class='story'><p>{PROSE * 3}</p></div>"
                      f"<div>{filler}</div></body></html>")
    story = page.body.find_class("story")[0]
    assert not rest_is_prose(page, story)  # no links, but no sentence marks either
    landing = parse_page(landing_page())
    assert rest_is_prose(landing, landing.body.get_element_by_id("s2"))


def test_the_main_elements_are_the_main_xpath_answer_in_document_order() -> None:
    """`_mains` reads the ECON arrays for what MAIN_XPATH selects: `<main>`, role and id
    "main", the body itself never, nested ones in document order."""
    page = parse_page("<html><body role='main'><div id='main'><p>One.</p>"
                      "<main><section role='main'>Two.</section></main></div>"
                      "<div id='mainly' role='navigation'>Three.</div></body></html>")
    expected = page.body.xpath(mainregion.MAIN_XPATH)
    assert [el.tag for el in expected] == ["div", "main", "section"]
    assert mainregion._mains(page) == expected


def test_a_panel_of_checkbox_filters_leaves_the_main_region() -> None:
    """A shop's filter panel is options of choices (checkboxes, radio buttons, each with a
    short label): furniture, whatever its block is named; a grid of cards with a compare
    box each is the page's content, its options a sliver of the cards' text."""
    options = "".join(f"<li><label><input type='checkbox' name='brand'> {name} ({n})</label></li>"
                      for name, n in (("Lumen", 12), ("Brasswork", 4), ("Lampada", 7)))
    sort = "".join(f"<label><input type='radio' name='sort'> {order}</label>"
                   for order in ("Newest", "Price: low to high", "Price: high to low"))
    cards = "".join(f"<div class='card'><h3>{name} lamp</h3><p>{PROSE}</p>"
                    "<label><input type='checkbox'> Compare</label></div>"
                    for name in ("Copper", "Steel", "Glass"))
    html = (f"<html><body><main><h1>Lamps</h1><div class='refine'><h4>Brand</h4><ul>{options}"
            f"</ul><div>{sort}</div></div><div class='grid'>{cards}</div></main></body></html>")
    text = region_text(html)
    assert "Copper lamp" in text and "patina" in text and "Compare" in text
    assert "Brasswork" not in text and "Price: low to high" not in text


def test_a_service_pages_menu_repeated_in_its_main_region_leaves_it() -> None:
    """A service page repeats its site's menu inside its main region (a row of "explore
    options" links to the services its header lists too): a block of short links alone, most
    of them to targets other links of the page point to. Prose with a few links, a list of
    titled cards and a list of links to the page's own items (each pointed to once) stay."""
    menu = "".join(f"<a href='/s{i}'>Service {i}</a> " for i in range(8))
    items = "".join(f"<a href='/i{i}'>Item {i}</a> " for i in range(8))
    cards = "".join(f"<a href='/c{i}'>How our team moved a whole hospital wing in one "
                    f"weekend, part {i}</a> " for i in range(8))
    html = (f"<html><body><header><nav>{menu}</nav></header><main><h1>Movers</h1>"
            f"<p>{PROSE * 3}</p><div class='options'>{menu}</div><div>{items}</div>"
            f"<p>{PROSE} See <a href='/a'>our rates</a>.</p><div class='stories'>{cards}</div>"
            "</main></body></html>")
    for drop_menus in (False, True):
        text = region_text(html, shown_prose=True, drop_menus=drop_menus)
        assert ("Service 3" in text) is not drop_menus
        assert "Item 3" in text and "our rates" in text
        assert "hospital wing in one weekend, part 3" in text
