"""Entry point that parses a page, routes it by type and runs the matching extractor."""

from __future__ import annotations

import time

from winnow.page import parse_page
from winnow.result import Article, Extraction


def extract(html: bytes | str, url: str | None = None) -> Extraction:
    """Extract the reader view of one page (work in progress: whole body text)."""
    start = time.perf_counter()
    page = parse_page(html, url)
    text = " ".join(page.body.text_content().split())
    total = (time.perf_counter() - start) * 1000
    return Extraction(kind="article", article=Article(text=text), method="body",
                      timing_ms={"total": total})
