"""React's streamed segments (`<div hidden id="S:1">` after the footer) are put where the
page's scripts would put them: into their boundary or placeholder template."""

from __future__ import annotations

from winnow import extract
from winnow.page import parse_page

STORY = "<p>" + "The index fund tracks the market, and costs little to hold. " * 12 + "</p>"


def _page(scripts: str, boundary: str = "<template id='B:0'></template><div>Loading...</div>"
          ) -> str:
    return ("<html><body><main><article class='article-body'><h1>How to invest</h1>"
            f"{boundary}<p>Short outro, with a comma.</p></article></main>"
            "<footer><p>Copyright, all rights reserved. Terms, privacy.</p></footer>"
            f"<div hidden id='S:0'>{STORY}</div>{scripts}</body></html>")


def test_a_boundary_gets_its_segment_by_the_script_call() -> None:
    page = parse_page(_page("<script>$RC(\"B:0\",\"S:0\")</script>"))
    article = page.root.xpath("//article")[0]
    assert "The index fund tracks the market" in article.text_content()
    assert not page.root.xpath("//*[@hidden]")


def test_a_saved_page_without_scripts_pairs_segments_by_their_id() -> None:
    text = extract(_page("")).article
    assert text is not None
    assert "The index fund tracks the market" in text.text
    assert "Copyright" not in text.text


def test_a_segment_with_no_placeholder_stays_hidden() -> None:
    html = f"<html><body><main>{STORY}</main><div hidden id='S:7'><p>Other.</p></div></body></html>"
    page = parse_page(html)
    assert page.root.xpath("//div[@id='S:7']")[0].get("hidden") is not None
