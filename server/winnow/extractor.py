"""`extract`: parse a page, route it by type, run the matching extractor, label its ids."""

from __future__ import annotations

import time
from dataclasses import fields, replace

from winnow.article import PageHints, extract_article
from winnow.metadata import Metadata, extract_metadata, text_direction
from winnow.page import Page, parse_page
from winnow.render import Rendered, render_article
from winnow.result import Article, ArticleInfo, Extraction
from winnow.router import route
from winnow.sitemodel import SiteModel, Template

EXCERPT_CHARS = 200
"""Length of the excerpt taken from the body when the page has no description."""


def extract(html: bytes | str, url: str | None = None,
            model: SiteModel | None = None) -> Extraction:
    """Extract the reader view of one page.

    With the `model` of the page's site, the template of the page's cluster marks what it
    explains as noise first (method "template+econ"); without one, or while the cluster is
    too young, the page gets single-page extraction (method "econ"). Raises `PageError`
    only for input that is not a page at all (empty, oversized, not text or bytes); any
    markup, however broken, gives a result.
    """
    clock = _Clock()
    page = parse_page(html, url)
    clock.lap("parse")
    template = model.template(page) if model is not None else None
    clock.lap("template")
    return extract_page(page, template, clock)


def extract_page(page: Page, template: Template | None = None,
                 clock: _Clock | None = None) -> Extraction:
    """Extract an already parsed page, with the template of its site's cluster if any."""
    clock = clock or _Clock()
    url = page.url
    meta = extract_metadata(page)
    found = extract_article(page, PageHints(meta.heading, template.noise if template else ()))
    if found is not None:
        meta.dir = text_direction(page, found.source)
    clock.lap("extract")
    rendered = render_article(found.content, url, meta.title, meta.byline) if found else None
    clock.lap("render")
    kind = route(page, rendered.text if rendered else "", found.page_chars if found else 0)
    result = Extraction(kind=kind, method="template+econ" if template else "econ",
                        title=meta.title, url=url)
    if template is not None:
        result.cluster, result.pages_learned = template.cluster, template.pages_learned
    if found is None or rendered is None or kind != "article":
        result.timing_ms = clock.done()
        return result
    return replace(
        result,
        article=_article(meta, rendered),
        noise_ids=found.noise_ids if page.has_ids else [],
        content_ids=found.content_ids if page.has_ids else [],
        confidence=round(found.confidence, 3),
        timing_ms=clock.done(),
    )


def _article(meta: Metadata, rendered: Rendered) -> Article:
    info = {f.name: getattr(meta, f.name) for f in fields(ArticleInfo)}
    info["lead_image"] = meta.lead_image or _first(rendered)
    return Article(**info, html=rendered.html, text=rendered.text, markdown=rendered.markdown,
                   excerpt=meta.description or _excerpt(rendered.text),
                   word_count=rendered.word_count)


def _first(rendered: Rendered) -> str | None:
    return rendered.images[0] if rendered.images else None


def _excerpt(text: str) -> str | None:
    """The first paragraph, cut at a word boundary."""
    first = text.strip().split("\n", 1)[0].strip()
    if len(first) <= EXCERPT_CHARS:
        return first or None
    return first[:EXCERPT_CHARS].rsplit(" ", 1)[0] + "…"


class _Clock:
    """Milliseconds per stage, plus `total`."""

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = round((now - self.last) * 1000, 3)
        self.last = now

    def done(self) -> dict[str, float]:
        self.laps["total"] = round((time.perf_counter() - self.start) * 1000, 3)
        return self.laps

