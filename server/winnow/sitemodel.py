"""A site's learned templates: clusters (RTDM), layout patterns (Webstemmer), template text
chunks (Ma et al.) and ne-patterns (RTDM section 4), learned one page at a time.

`SiteModel.add_page(page)` learns from a page the way browsing shows it: the page joins its
template cluster (or starts one) and that cluster's layout pattern, chunk table and
ne-pattern take it in, and so does the site-wide table of repeated texts.
`SiteModel.template(page)` tells, for a new page, which of its elements the template
explains: static layout blocks, asides the layout pattern places outside the main text,
blocks of link text only, template text chunks, and text repeated across the site's pages
whatever their template. The extractor treats those as noise and runs ECON on what is left.
A page whose cluster is younger than `MIN_CLUSTER_PAGES` (the page and one learned page of
its template tell template text from content) borrows from the cluster of nearest layout
that learned as many: its whole template when that one's layout pattern matches the page,
else its template text (the text the page holds at the same tag path as that cluster's
pages, `chunks.label_with_page`), and the site's repeated text; a page nothing explains
gets single-page extraction. The ne-pattern's fixed text is not used there: measured on the
evaluation sites it removed nothing the other two miss (F1 0.958 with or without it) and
cost an RTDM match per page; `SiteModel.passages` gives the pattern's own extraction
(wildcard passages, title, body).

Every part is bounded (representatives, layout window, lossy chunk counts, patterns
composed from the first `MAX_PATTERN_PAGES` pages, anchor texts), so learning a page costs
the same at the 1,000th page of a site as at the 10th. Models serialize to versioned JSON.
Pure: no I/O, no clock.

Privacy: what `to_json` writes holds no prose of any page. Texts are remembered as keyed
digests (`winnow.keyed`, the model's `keyer`, made from the install's secret): chunk keys,
the text digests in ne-pattern labels, the pages learned (by URL and content). Cluster
representatives are saved as tags, and the layout window and the anchor texts of links
(titles of other pages, with their URLs) stay in memory.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from lxml.html import HtmlElement

from winnow import patterns
from winnow.chunks import Chunk, ChunkLabels, ChunkTable, chunk_key, label_with_page
from winnow.clustering import MIN_PREFILTER_SIMILARITY, Clusterer
from winnow.collector import paused
from winnow.consensus import MIN_CONTAINER_SHARE, ContentVotes, locate, path_of, text_share
from winnow.keyed import UNKEYED, Keyer
from winnow.layout import (
    Layout,
    LayoutPattern,
    WindowMemory,
    outgoing_anchors,
    segment_with_chunks,
    signature_similarity,
)
from winnow.layout import apply as apply_layout
from winnow.leads import LeadVotes, page_votes
from winnow.mibat import main_region, mine_regions
from winnow.mibat_dom import page_dom
from winnow.mibat_records import RecordTemplate, record_template
from winnow.page import Page, stamp_ids
from winnow.tree import Tree, build_tree, from_arrays

FORMAT_VERSION = 3
"""2 added the site-wide chunk table (`SiteModel.site_chunks`); a version 1 model is read
with an empty one. 3 keeps no text: keyed digests, no layout window, no anchor texts, and
the model's `key_id`; versions 1 and 2 are converted on reading (`_keyed_old`)."""
READ_VERSIONS = frozenset({1, 2, FORMAT_VERSION})

MIN_CLUSTER_PAGES = 1
"""Pages a cluster must have learned before its template is used on its own pages: the page
being read and one learned page tell template text (what both hold) from content
(`chunks.label_with_page`)."""

MAX_PATTERN_PAGES = 10
"""Pages composed into a cluster's ne-pattern; later pages only match it (the pattern has
converged by then, and composition is the costly step)."""

PATTERN_TOLERANCE = 10
"""Vertices allowed to break the ne-pattern's rules B/F/H when matching (not in the paper:
strict matching rejects most pages of a cluster learned from few pages)."""

SITE_MIN_DF = 3
"""Learned pages of the site, of any cluster, in which a chunk's text (wherever it stands)
must be seen to be template text site-wide: Ma et al.'s document frequency (3.2) over the
site instead of one cluster, as an absolute count because a site's templates split its pages
(the disclaimer under every story, "Story continues below"). Kept by the same lossy counting,
so text repeated only across far-apart pages is forgotten."""

MAX_ANCHOR_URLS = 5000
"""Link targets whose anchor texts are remembered (Webstemmer's title source)."""

MAX_LEARNED_PAGES = 10000
"""Pages remembered as learned (by URL and by content), so a revisit or a copy under another
URL is not learned again: the same page seen twice would make its own content look like
template (static blocks, repeated chunks) and leave nothing to extract."""


@dataclass
class ClusterModel:
    """What one template cluster learned."""

    layout: LayoutPattern = field(default_factory=LayoutPattern)
    chunks: ChunkTable = field(default_factory=ChunkTable)
    pattern: patterns.Pattern | None = None
    pattern_pages: int = 0
    records: RecordTemplate | None = None
    """The post record template of the cluster's thread pages (MiBAT+MP), if any."""
    content: ContentVotes = field(default_factory=ContentVotes)
    """Where the cluster's pages keep their content (`winnow.consensus`)."""
    leads: LeadVotes = field(default_factory=LeadVotes)
    """Where the cluster's pages keep their article's lead (`winnow.leads`)."""

    def learn(self, seen: Observation, anchors: dict[str, list[str]], key: str,
              keyer: Keyer) -> None:
        if seen.content is not None:
            self.content.add(seen.content)
        if seen.leads is not None:
            self.leads.add(seen.leads)
        self.layout.add(seen.layout, anchors)
        self.chunks.add(seen.chunks, sample_key=key)
        self._learn_records(seen.page)
        if self.pattern_pages < MAX_PATTERN_PAGES:
            tree = keyed_tree(seen.tree, keyer)
            self.pattern = (patterns.pattern_of(tree) if self.pattern is None
                            else patterns.compose(self.pattern, tree))
            self.pattern_pages += 1

    def _learn_records(self, page: Page) -> None:
        """Keep the record template of the best main region seen: the largest Heuristic 2
        score, as MiBAT+MP picks the page it generates its template from."""
        dom = page_dom(page)
        main = main_region(dom, mine_regions(dom))
        if main is not None and (self.records is None or main.score > self.records.score):
            self.records = record_template(dom, main)

    def to_json(self) -> dict[str, Any]:
        return {"layout": self.layout.to_json(), "chunks": self.chunks.to_json(),
                "pattern": self.pattern.to_json() if self.pattern else None,
                "pattern_pages": self.pattern_pages,
                "records": self.records.to_json() if self.records else None,
                "content": self.content.to_json(), "leads": self.leads.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClusterModel:
        pattern = data.get("pattern")
        records = data.get("records")
        return cls(layout=LayoutPattern.from_json(data["layout"]),
                   chunks=ChunkTable.from_json(data["chunks"]),
                   pattern=patterns.Pattern.from_json(pattern) if pattern else None,
                   pattern_pages=int(data.get("pattern_pages", 0)),
                   records=RecordTemplate.from_json(records) if records else None,
                   content=ContentVotes.from_json(data.get("content")),
                   leads=LeadVotes.from_json(data.get("leads")))


@dataclass
class Observation:
    """A page as the site model reads it, and the clusters it matched (best first)."""

    page: Page
    tree: Tree
    layout: Layout
    chunks: list[Chunk]
    matches: list[tuple[int, float]] | None
    texts: list[Chunk]
    """The chunks keyed by text alone (`text_chunks`), for the site-wide table."""
    content: tuple[str, ...] | None = None
    """The path of the element the page's article was found in (`note_content`): its vote
    for where its cluster keeps the content, counted when the page is learned."""
    leads: dict[str, bool] | None = None
    """Per chunk path before the article with a sentence there, whether it sums up the article
    (`leads.page_votes`): the page's votes for where its cluster keeps the article's lead."""

    def note_content(self, root: HtmlElement) -> None:
        """Record where the extraction found the content: `root`'s path from `<body>`."""
        self.content = path_of(root, self.page.body)

    def note_leads(self, root: HtmlElement, title: str | None, body: str) -> None:
        """Record which text before the article found in `root` sums up its `body` text."""
        self.leads = page_votes(self.chunks, root, title, body)


@dataclass
class Template:
    """How a learned cluster (or, for a page without one, the site) explains one page."""

    cluster: int | None
    pages_learned: int
    noise: list[HtmlElement]
    sources: dict[str, int]
    records: RecordTemplate | None = None
    """The cluster's post record template, for pages MiBAT alone cannot read."""
    container: HtmlElement | None = None
    """Where the page's own cluster keeps its content on this page (`content_container`):
    an extraction that strays from it is redone with everything outside it as noise."""
    leads: tuple[Chunk, ...] = ()
    """The page's chunks, template text aside, where its own cluster keeps the article's
    lead (`winnow.leads`): those before the article are put before its text."""


def text_chunks(chunks: list[Chunk], keyer: Keyer = UNKEYED) -> list[Chunk]:
    """The chunks keyed by text alone, for the site-wide table: the same words under another
    template's tag path are the same template text."""
    return [Chunk(c.path, c.text, c.ids, chunk_key("", c.text, keyer)) for c in chunks]


def keyed_tree(tree: Tree, keyer: Keyer) -> Tree:
    """The tree with the text digests of its labels keyed (`Keyer.label`): what ne-patterns
    are composed from and matched against, so a saved pattern holds keyed digests only."""
    return from_arrays(tree.tags, [keyer.label(label) for label in tree.labels], tree.parents,
                       tree.texts, tree.tails, tree.wn_ids, tree.elements)


def _page_keys(seen: Observation, keyer: Keyer) -> list[str]:
    """What identifies a page as already learned, as keyed digests: its URL, and a digest of
    its text chunks (the same content under another URL, such as tracking parameters, is the
    same page)."""
    digest = hashlib.blake2b(digest_size=8)
    for chunk in seen.chunks:
        digest.update(chunk.key.encode())
    keys = [f"text:{digest.hexdigest()}"]
    if seen.page.url:
        keys.insert(0, f"url:{seen.page.url}")
    return [keyer.digest(key) for key in keys]


def content_container(seen: Observation, votes: ContentVotes) -> HtmlElement | None:
    """The element the page's cluster keeps its content in, when the cluster agrees on one
    and it holds enough of this page's text (`consensus.MIN_CONTAINER_SHARE`); else None."""
    path = votes.consensus()
    if not path:
        return None
    body = seen.page.body
    container = locate(body, path)
    if container is None or text_share(container, body) < MIN_CONTAINER_SHARE:
        return None
    return container


@dataclass
class SiteMemory:
    """What a site model keeps in memory only (`SiteModel.memory`): the anchor texts of links
    and each cluster's layout window."""

    anchors: OrderedDict[str, list[str]]
    windows: dict[int, WindowMemory]


@dataclass
class SiteModel:
    """The templates of one site."""

    site: str
    clusterer: Clusterer = field(default_factory=Clusterer)
    clusters: dict[int, ClusterModel] = field(default_factory=dict)
    anchors: OrderedDict[str, list[str]] = field(default_factory=OrderedDict)
    pages_seen: int = 0
    learned: OrderedDict[str, int] = field(default_factory=OrderedDict)
    """Keys of the pages learned, their URL and their content digest (most recent last) ->
    the cluster they joined."""
    site_chunks: ChunkTable = field(default_factory=ChunkTable)
    """Document frequencies of chunk texts over all the site's learned pages."""
    keyer: Keyer = UNKEYED
    """Keys every digest of text the model keeps: the install's secret (`Learner`)."""

    def observe(self, page: Page) -> Observation:
        """Read what learning and template matching need from a page, once, and find the
        cluster it belongs to."""
        stamp_ids(page)
        tree = build_tree(page.body)
        page_layout, chunks = segment_with_chunks(page, self.keyer)
        matches = self.clusterer.matches(tree, page_layout.signature)
        return Observation(page, tree, page_layout, chunks, matches,
                           text_chunks(chunks, self.keyer))

    @paused
    def add(self, seen: Observation) -> int:
        """Learn from an observed page; return the id of the cluster it joined. A page whose
        URL was learned before is not learned again (its cluster's id is returned)."""
        keys = _page_keys(seen, self.keyer)
        revisit = self._revisited(keys)
        if revisit is not None:
            return revisit
        assignment = self.clusterer.add(seen.tree, seen.layout.signature, seen.matches)
        cluster = assignment.cluster
        assert cluster is not None
        self.clusters = {cid: m for cid, m in self.clusters.items()
                         if cid in self.clusterer.clusters}
        model = self.clusters.setdefault(cluster, ClusterModel())
        key = seen.page.url or str(self.pages_seen)
        model.learn(seen, self.anchors, key, self.keyer)
        self.site_chunks.add(seen.texts, sample_key=key)
        self._remember_anchors(seen.layout)
        self._remember_learned(keys, cluster)
        self.pages_seen += 1
        seen.matches = None  # the clusters changed: a second add must look again
        return cluster

    def _revisited(self, keys: list[str], touch: bool = True) -> int | None:
        """The cluster this page joined when it was learned before, if that still exists;
        `touch` marks the page recently seen (a visit, not a look at the model)."""
        for key in keys:
            cluster = self.learned.get(key)
            if cluster is not None and cluster in self.clusterer.clusters:
                if touch:
                    self.learned.move_to_end(key)
                return cluster
        return None

    def _remember_learned(self, keys: list[str], cluster: int) -> None:
        for key in keys:
            self.learned[key] = cluster
            self.learned.move_to_end(key)
        while len(self.learned) > MAX_LEARNED_PAGES:
            self.learned.popitem(last=False)

    def add_page(self, page: Page) -> int:
        """Learn from a page; return the id of the cluster it joined."""
        return self.add(self.observe(page))

    def template(self, page: Page | Observation) -> Template | None:
        """How the page's template explains it: its mature cluster's, else the nearest
        mature cluster's (all of it when that one's layout pattern matches the page, else
        its template text), else the site's repeated text; None when nothing explains
        anything. `cluster` and `pages_learned` name the cluster whose template was used
        (None and the site's pages for the site's repeated text alone)."""
        seen = page if isinstance(page, Observation) else self.observe(page)
        cluster, own, sources = self._sources(seen)
        noise_ids = set().union(*sources.values())
        if cluster is None and not noise_ids:
            return None
        elements = seen.tree.elements or ()
        by_id = {i: el for el, i in zip(elements, seen.tree.wn_ids, strict=True)
                 if i is not None}
        return Template(
            cluster=cluster,
            pages_learned=(self.clusterer.clusters[cluster].pages if cluster is not None
                           else self.pages_seen),
            noise=[by_id[i] for i in sorted(noise_ids) if i in by_id],
            sources={name: len(ids) for name, ids in sources.items()},
            records=self.clusters[cluster].records if own and cluster is not None else None,
            container=(content_container(seen, self.clusters[cluster].content)
                       if own and cluster is not None else None),
            leads=self._leads(seen, cluster) if own and cluster is not None else ())

    def _leads(self, seen: Observation, cluster: int) -> tuple[Chunk, ...]:
        """The page's chunks at the cluster's lead paths that are not its template text."""
        model = self.clusters[cluster]
        paths = model.leads.paths()
        if not paths:
            return ()
        return tuple(c for c in seen.chunks if c.path in paths and not model.chunks.is_template(c))

    def noise_sources(self, seen: Observation) -> dict[str, set[int]]:
        """Ids of the elements each template source explains on an observed page: static
        layout blocks, layout asides, link blocks and template chunks of its mature cluster,
        and text repeated across the site. A page without a mature cluster takes the first
        four from the nearest mature one when that one's layout pattern matches the page,
        else its template chunks only (`_lent`)."""
        return self._sources(seen)[2]

    def _sources(self, seen: Observation) -> tuple[int | None, bool, dict[str, set[int]]]:
        """`noise_sources`, the cluster whose template gave them (None: the site's), and
        whether that is the page's own mature cluster."""
        texts = seen.texts
        site = set(ChunkLabels(tuple((c, self.site_chunks.count(c) >= SITE_MIN_DF)
                                     for c in texts)).template_ids)
        before = self._learned_before(seen)
        own = self._mature(seen, before)
        cluster = own if own is not None else self._nearest_mature(seen)
        if cluster is None:
            return None, False, {"site": site}
        model = self.clusters[cluster]
        matched = apply_layout(model.layout, seen.layout, find_title=False)
        chunks = set(label_with_page(seen.chunks, model.chunks, counted=before == cluster)
                     .template_ids)
        if own is None and not matched.matched:
            return self._lent(cluster, chunks, site)
        return cluster, own is not None, {
            "layout": set(matched.noise_ids),
            "aside": set(matched.aside_ids) if matched.matched else set(),
            "links": set(matched.link_ids) if model.layout.ready else set(),
            "chunks": chunks,
            "site": site}

    @staticmethod
    def _lent(cluster: int, chunks: set[int], site: set[int]
              ) -> tuple[int | None, bool, dict[str, set[int]]]:
        """What the nearest mature cluster lends a page its layout pattern does not match:
        the page's chunks it holds as template text, the same words at the same tag path (a
        page that RTDM and the layout pattern set apart from a cluster of near layout, a
        variant of its template, still carries its promotion boxes and notices), with the
        site's repeated text; the site's alone when the cluster holds none of the page's."""
        if not chunks:
            return None, False, {"site": site}
        return cluster, False, {"chunks": chunks, "site": site}

    def _mature(self, seen: Observation, before: int | None) -> int | None:
        """The page's cluster if it has learned MIN_CLUSTER_PAGES pages besides this one (a
        page visited again was one of them: `before` is the cluster it joined then,
        `_learned_before`), else None."""
        cluster = seen.matches[0][0] if seen.matches else None
        if cluster is None or cluster not in self.clusters:
            return None
        others = self.clusterer.clusters[cluster].pages - (before == cluster)
        return cluster if others >= MIN_CLUSTER_PAGES else None

    def _learned_before(self, seen: Observation) -> int | None:
        """The cluster an observed page joined when it was learned before, if it was."""
        return self._revisited(_page_keys(seen, self.keyer), touch=False)

    def _nearest_mature(self, seen: Observation) -> int | None:
        """The mature cluster (`MIN_CLUSTER_PAGES`) whose layout signature is closest to the
        page's, if close enough for RTDM to be tried (`MIN_PREFILTER_SIMILARITY`): a page of
        a young cluster borrows its template when the layout pattern matches the page, else
        its template text."""
        scored = [(signature_similarity(seen.layout.signature, c.signature), c.id)
                  for c in self.clusterer.clusters.values()
                  if c.id in self.clusters and c.pages >= MIN_CLUSTER_PAGES]
        best = max(scored, default=None)
        return best[1] if best is not None and best[0] >= MIN_PREFILTER_SIMILARITY else None

    def passages(self, page: Page | Observation) -> patterns.Extraction | None:
        """The text passages the page's cluster ne-pattern extracts (RTDM section 4.3-4.4),
        with the paper's title and body labels; None without a matching pattern."""
        seen = page if isinstance(page, Observation) else self.observe(page)
        if not seen.matches or seen.matches[0][0] not in self.clusters:
            return None
        pattern = self.clusters[seen.matches[0][0]].pattern
        if pattern is None:
            return None
        return patterns.extract(pattern, keyed_tree(seen.tree, self.keyer),
                                tolerance=PATTERN_TOLERANCE)

    def _remember_anchors(self, page_layout: Layout) -> None:
        for url, text in outgoing_anchors(page_layout):
            texts = self.anchors.setdefault(url, [])
            if text not in texts:
                texts.append(text)
            self.anchors.move_to_end(url)
        while len(self.anchors) > MAX_ANCHOR_URLS:
            self.anchors.popitem(last=False)

    def memory(self) -> SiteMemory:
        """The page text the model holds in memory only, for `restore` after the model is
        saved, dropped and read back (a learner's cache evicting it): learning then goes on
        exactly as if the model had stayed in memory."""
        return SiteMemory(self.anchors, {cid: m.layout.memory()
                                         for cid, m in self.clusters.items()})

    def restore(self, memory: SiteMemory) -> None:
        """Take back `memory()` of this model as it was saved; a cluster that learned since
        (another process saved the model meanwhile) keeps what it has."""
        self.anchors = memory.anchors
        for cid, window in memory.windows.items():
            if cid in self.clusters:
                self.clusters[cid].layout.restore(window)

    def to_json(self) -> dict[str, Any]:
        """The model as JSON data, without text (see the module docstring): anchor texts
        are left out, every key is a keyed digest."""
        return {"version": FORMAT_VERSION, "site": self.site, "key_id": self.keyer.key_id,
                "pages_seen": self.pages_seen,
                "clusterer": self.clusterer.to_json(),
                "clusters": {str(cid): m.to_json() for cid, m in self.clusters.items()},
                "learned": list(self.learned.items()),
                "site_chunks": self.site_chunks.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any], keyer: Keyer = UNKEYED) -> SiteModel:
        """Read `to_json` data saved under `keyer` (ValueError when it was saved under
        another key: its digests would match nothing). Versions 1 and 2 held plain text and
        unkeyed digests; they are converted (`_keyed_old`)."""
        version = data.get("version")
        if version not in READ_VERSIONS:
            raise ValueError(f"unsupported site model format {version!r}")
        if version == FORMAT_VERSION and data.get("key_id") != keyer.key_id:
            raise ValueError("the site model was learned under another secret key")
        site_chunks = data.get("site_chunks")
        model = cls(site=str(data["site"]), pages_seen=int(data["pages_seen"]),
                    clusterer=Clusterer.from_json(data["clusterer"]),
                    clusters={int(k): ClusterModel.from_json(v)
                              for k, v in data["clusters"].items()},
                    learned=OrderedDict((str(u), int(c)) for u, c in data.get("learned", [])),
                    site_chunks=(ChunkTable.from_json(site_chunks) if site_chunks is not None
                                 else ChunkTable()),
                    keyer=keyer)
        return model if version == FORMAT_VERSION else _keyed_old(model)


def _keyed_old(model: SiteModel) -> SiteModel:
    """A version 1 or 2 model under its keyer: chunk keys, pattern labels and learned-page
    keys were unkeyed digests or plain text, and each keyed form is a digest of the old one
    (`winnow.keyed`), so all of them carry over exactly. The anchor texts are not read, and
    the layout windows are read into memory only (`LayoutPattern.to_json`)."""
    keyer = model.keyer
    model.site_chunks = model.site_chunks.rekeyed(keyer)
    model.learned = OrderedDict((keyer.digest(k), c) for k, c in model.learned.items())
    for cluster in model.clusters.values():
        cluster.chunks = cluster.chunks.rekeyed(keyer)
        if cluster.pattern is not None:
            cluster.pattern = dataclasses.replace(
                cluster.pattern, tree=keyed_tree(cluster.pattern.tree, keyer))
    return model
