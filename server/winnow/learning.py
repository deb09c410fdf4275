"""Site models kept in a store: load on first use, learn page by page, save back.

`Learner` is what the CLI (and later the server) uses to process pages the way browsing
does: `extract` a page with what its site has learned so far, then `learn` from it, which
stores the page and updates the site model. Models are saved as versioned JSON in the
store, never pickled; a model saved by an older format is relearned from scratch.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from winnow.extractor import extract, extract_page
from winnow.page import parse_page
from winnow.result import Extraction
from winnow.sitemodel import FORMAT_VERSION, SiteModel
from winnow.store import Store

MODEL_KIND = "site_model"

log = logging.getLogger(__name__)


@dataclass
class Learned:
    """What learning one page did: where it was stored and which cluster it joined."""

    page_id: int
    cluster: int


class Learner:
    """Site models of one store, cached in memory; `save` writes the changed ones back."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.models: dict[str, SiteModel] = {}
        self.dirty: set[str] = set()

    def model(self, site: str) -> SiteModel:
        """The site's model: cached, else loaded from the store, else a new one."""
        if site not in self.models:
            self.models[site] = self._load(site)
        return self.models[site]

    def _load(self, site: str) -> SiteModel:
        data = self.store.load_model(site, MODEL_KIND)
        if data is not None:
            try:
                return SiteModel.from_json(data)
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("site model of %s unreadable, relearning: %s", site, exc)
        return SiteModel(site)

    def extract(self, site: str, html: bytes | str, url: str | None) -> Extraction:
        """Extract with what the site has learned so far."""
        return extract(html, url, self.model(site))

    def learn(self, site: str, html: bytes | str, url: str, title: str | None = None) -> Learned:
        """Store the page, then learn from it."""
        page_id = self.store.add_page(site, url, html, title=title)
        cluster = self.model(site).add_page(parse_page(html, url))
        return self._stored(site, page_id, cluster)

    def browse(self, site: str, html: bytes | str, url: str | None,
               stored_url: str) -> tuple[Extraction, Learned]:
        """What a visit does: extract with what the site learned from earlier pages, then
        store the page and learn from it (the page is parsed and read once for both)."""
        model = self.model(site)
        seen = model.observe(parse_page(html, url))
        result = extract_page(seen.page, model.template(seen))
        page_id = self.store.add_page(site, stored_url, html,
                                      title=result.article.title if result.article else None)
        return result, self._stored(site, page_id, model.add(seen))

    def _stored(self, site: str, page_id: int, cluster: int) -> Learned:
        self.store.set_cluster(page_id, cluster)
        self.dirty.add(site)
        return Learned(page_id, cluster)

    def save(self) -> None:
        """Write every changed model back to the store."""
        for site in sorted(self.dirty):
            self.store.save_model(site, MODEL_KIND, self.models[site].to_json(), FORMAT_VERSION)
        self.dirty.clear()
