"""Entry point that parses a page, routes it by type and runs the matching extractor."""

from __future__ import annotations

import time

from winnow.article import extract_article
from winnow.page import parse_page
from winnow.result import Article, Extraction

_BLOCK = {"p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "br", "tr", "td", "th", "pre",
          "blockquote", "figcaption", "section", "article", "dt", "dd", "table", "ul", "ol"}


def _text(el) -> str:  # temporary until render lands
    for e in el.iter():
        if isinstance(e.tag, str) and e.tag in _BLOCK:
            e.tail = ("\n" + e.tail) if e.tail else "\n"
    return el.text_content()


def extract(html: bytes | str, url: str | None = None) -> Extraction:
    """Extract the reader view of one page."""
    start = time.perf_counter()
    page = parse_page(html, url)
    found = extract_article(page)
    text = _text(found.content) if found else ""
    total = (time.perf_counter() - start) * 1000
    return Extraction(kind="article", article=Article(text=text), method="econ",
                      timing_ms={"total": total})
