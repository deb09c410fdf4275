"""Site models kept in a store: load on first use, learn page by page, save back.

`Learner` is what the CLI and the server's workers use to process pages the way browsing
does. A visit is two steps, so the server can reply between them: `visit` extracts a page
with what its site has learned so far and, when the page is collected, stores it (one small
transaction); `learn_visit` then updates the site model from the page already parsed and read
for the extraction. `browse` does both at once (the CLI). Models are saved as versioned JSON
in the store, never pickled, keyed by the store's secret (`Store.secret`, see
`winnow.keyed`); a model saved by an older format that held page text is converted and saved
back when a `Learner` opens the store (`upgrade_models`), and one that cannot be read is
relearned from scratch.

Memory stays bounded however many sites are browsed: at most `MAX_CACHED_MODELS` models are
kept in memory, and the least recently used one is saved (when changed) and dropped.

Not thread-safe: a `SiteModel` is mutated in place, so one `Learner` belongs to one thread
(the server gives each worker process its own and sends every page of a site to the same
worker).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from winnow.collector import paused
from winnow.extractor import BODY_TEXT, CONTENT_ROOT, extract, extract_page
from winnow.keyed import Keyer
from winnow.page import parse_page
from winnow.result import Extraction
from winnow.sitemodel import FORMAT_VERSION, Observation, SiteMemory, SiteModel
from winnow.store import Store

MODEL_KIND = "site_model"

MAX_CACHED_MODELS = 64
"""Site models kept in memory; a site model is a few hundred KB to a few MB (bounded cluster
representatives, layout windows and chunk tables), so this bounds a learner's memory."""
MAX_CACHED_MEMORIES = 8
"""Evicted site models whose in-memory part (`SiteModel.memory`: layout windows, anchor
texts; page text that is never saved) is kept to give back when they are loaded again, so
eviction does not cost learning. A window is some 8 pages' text per cluster: 1.2-1.4 MB
pickled for the 40 pages of bbc or cnn, so this adds at most some 15 MB to a worker. A site
whose memory was dropped learns on as after a restart."""

log = logging.getLogger(__name__)


@dataclass
class Learned:
    """What learning one page did: where it was stored and which cluster it joined."""

    page_id: int | None
    cluster: int


@dataclass
class Visit:
    """One page extracted (and stored when collected), ready to be learned from."""

    site: str
    result: Extraction
    page_id: int | None
    seen: Observation

    def model_state(self, model: SiteModel) -> dict[str, Any]:
        """The site model's state this page was extracted with: clusters, pages learned,
        the page's cluster (its best match, None for a new template) and what that cluster
        has learned."""
        matches = self.seen.matches
        cluster = matches[0][0] if matches else None
        learned = model.clusterer.clusters[cluster].pages if cluster in model.clusterer.clusters \
            else 0
        return {"clusters": len(model.clusterer.clusters), "pages": model.pages_seen,
                "cluster": cluster, "pages_learned": learned}


class Learner:
    """Site models of one store, cached in memory (LRU); `save` writes changed ones back."""

    def __init__(self, store: Store, max_models: int = MAX_CACHED_MODELS) -> None:
        self.store = store
        self.keyer = Keyer(store.secret)
        self.models: OrderedDict[str, SiteModel] = OrderedDict()
        self.memories: OrderedDict[str, SiteMemory] = OrderedDict()
        """The in-memory part of evicted models, by site (`MAX_CACHED_MEMORIES`)."""
        self.dirty: set[str] = set()
        self.max_models = max_models
        upgrade_models(store, self.keyer)

    def model(self, site: str) -> SiteModel:
        """The site's model: cached, else loaded from the store, else a new one."""
        if site in self.models:
            self.models.move_to_end(site)
            return self.models[site]
        model = self.models[site] = self._load(site)
        memory = self.memories.pop(site, None)
        if memory is not None:
            model.restore(memory)
        self._evict()
        return model

    def _load(self, site: str) -> SiteModel:
        data = self.store.load_model(site, MODEL_KIND)
        if data is not None:
            try:
                return SiteModel.from_json(data, self.keyer)
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("site model of %s unreadable, relearning: %s", site, exc)
        return SiteModel(site, keyer=self.keyer)

    def _evict(self) -> None:
        """Save and drop the least recently used models beyond `max_models`."""
        while len(self.models) > self.max_models:
            site = next(iter(self.models))
            self.save(site)
            self.memories[site] = self.models.pop(site).memory()
            while len(self.memories) > MAX_CACHED_MEMORIES:
                self.memories.popitem(last=False)

    def extract(self, site: str, html: bytes | str, url: str | None) -> Extraction:
        """Extract with what the site has learned so far."""
        return extract(html, url, self.model(site))

    def learn(self, site: str, html: bytes | str, url: str, title: str | None = None) -> Learned:
        """Store the page, then learn from it."""
        page_id = self.store.add_page(site, url, html, title=title)
        cluster = self.model(site).add_page(parse_page(html, url))
        return self._stored(site, page_id, cluster)

    def visit(self, site: str, html: bytes | str, url: str | None, stored_url: str, *,
              title: str | None = None, collect: bool = True) -> Visit:
        """Extract a page with what the site learned from earlier pages and, when `collect`,
        store it; the page is parsed and read once, for this and for `learn_visit`.
        `timing_ms` gains `parse` and `template` (the model's reading of the page) and its
        `total` covers them."""
        result, seen = read_page(self.model(site), html, url)
        page_id = None
        if collect:
            page_id = self.store.add_page(site, stored_url, html,
                                          title=title or _title(result))
        return Visit(site, result, page_id, seen)

    def learn_visit(self, visit: Visit) -> Learned:
        """Learn from a visited page (after the reply, in the server)."""
        cluster = self.model(visit.site).add(visit.seen)
        if visit.page_id is None:
            self.dirty.add(visit.site)
            return Learned(None, cluster)
        return self._stored(visit.site, visit.page_id, cluster)

    def browse(self, site: str, html: bytes | str, url: str | None,
               stored_url: str) -> tuple[Extraction, Learned]:
        """What a visit does: extract with what the site learned from earlier pages, then
        store the page and learn from it."""
        visit = self.visit(site, html, url, stored_url)
        return visit.result, self.learn_visit(visit)

    def _stored(self, site: str, page_id: int, cluster: int) -> Learned:
        self.store.set_cluster(page_id, cluster)
        self.dirty.add(site)
        return Learned(page_id, cluster)

    def forget(self, site: str) -> int:
        """Drop the site's model from memory and everything of the site from the store;
        return the number of pages deleted."""
        self.models.pop(site, None)
        self.memories.pop(site, None)
        self.dirty.discard(site)
        return self.store.forget_site(site)

    def save(self, site: str | None = None) -> int:
        """Write the changed model of `site`, or every changed model, back to the store;
        return how many were written."""
        sites = sorted(self.dirty) if site is None else [site] if site in self.dirty else []
        for name in sites:
            model = self.models[name]
            self.store.save_model(name, MODEL_KIND, model.to_json(), FORMAT_VERSION,
                                  summary=summary(model))
            self.dirty.discard(name)
        return len(sites)


@paused
def read_page(model: SiteModel, html: bytes | str, url: str | None) -> tuple[Extraction,
                                                                            Observation]:
    """Extract a page with what `model` learned from earlier pages, parsing and reading it
    once; the observation is what `SiteModel.add` learns from next (a visit's two steps, kept
    here so the CLI, the server and `winnow batch` do exactly the same). `timing_ms` gains
    `parse` and `template` (the model's reading of the page) and its `total` covers them."""
    start = time.perf_counter()
    page = parse_page(html, url)
    parsed = time.perf_counter()
    seen = model.observe(page)
    template = model.template(seen)
    matched = time.perf_counter()
    result = extract_page(seen.page, template)
    root = seen.page.derived.get(CONTENT_ROOT)
    if result.kind == "article" and root is not None:
        seen.note_content(root)
        seen.note_leads(root, result.title, seen.page.derived.get(BODY_TEXT, ""))
    result.timing_ms = {"parse": _ms(parsed - start), "template": _ms(matched - parsed),
                        **result.timing_ms, "total": _ms(time.perf_counter() - start)}
    return result, seen


def upgrade_models(store: Store, keyer: Keyer) -> int:
    """Convert every saved model of an older format (which kept page text and unkeyed
    digests) to the current one and save it back, then checkpoint the WAL, so the old text
    leaves the files now (the store overwrites deleted content: `secure_delete`). A model
    that cannot be read is deleted: it would be relearned anyway, and it holds plain text.
    Return how many models were converted."""
    old = [site for site, version in store.model_versions(MODEL_KIND).items()
           if version < FORMAT_VERSION]
    converted = 0
    for site in old:
        data = store.load_model(site, MODEL_KIND)
        try:
            model = SiteModel.from_json(data or {}, keyer)
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("site model of %s unreadable, dropped (relearned): %s", site, exc)
            store.delete_model(site, MODEL_KIND)
            continue
        store.save_model(site, MODEL_KIND, model.to_json(), FORMAT_VERSION,
                         summary=summary(model))
        converted += 1
    if old:
        store.checkpoint()
        log.info("converted %d site model(s) to format %d: no page text kept", converted,
                 FORMAT_VERSION)
    return converted


def summary(model: SiteModel) -> dict[str, Any]:
    """What listings show of a model without loading it: pages learned and cluster sizes."""
    return {"pages": model.pages_seen,
            "clusters": {str(c.id): c.pages for c in model.clusterer.clusters.values()}}


def _title(result: Extraction) -> str | None:
    return result.article.title if result.article else None


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)
