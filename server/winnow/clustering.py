"""Incremental template clustering of one site's pages (RTDM section 4.1, made incremental).

The paper clusters a site's pages hierarchically with RTDM and an 80% similarity threshold.
Pages arrive one at a time here, so each new page joins the most similar existing cluster
when RTDM says it is at least 80% similar to one of the cluster's representatives, and
starts a new cluster otherwise. What keeps the cost of a page flat however many pages the
site has:

- a cheap prefilter: Webstemmer's layout signatures compared by common subsequence
  (rapidfuzz), so RTDM runs against at most `MAX_RTDM_CANDIDATES` clusters;
- RTDM's threshold cut-off (Figure 5, lines 15-16): a hopeless comparison stops early;
- at most `MAX_REPRESENTATIVES` trees per cluster and `MAX_CLUSTERS` clusters per site
  (the least recently used cluster is forgotten first).

Clusters that converge (a page that matches two of them) merge, the smaller into the larger.
Pure: no I/O, no clock; "recently used" is a counter of pages seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from winnow import rtdm
from winnow.layout import signature_similarity
from winnow.tree import Tree

CLUSTER_SIMILARITY = rtdm.CLUSTER_SIMILARITY
"""Section 4.1: pages at 80% RTDM similarity or more share a template."""

MIN_PREFILTER_SIMILARITY = 0.5
"""Layout-signature similarity below which RTDM is not even tried (same-template pages of
the evaluation sites score 0.6 and up, different templates of one site mostly under 0.3)."""

MAX_RTDM_CANDIDATES = 3
"""Clusters, best prefilter score first, compared with RTDM for one page."""

MIN_MERGE_PREFILTER = 0.8
"""Once a page has its cluster, further clusters are compared only when their layouts are
this close too: only then can the page show that two clusters converged."""

MAX_REPRESENTATIVES = 3
"""Trees kept per cluster to compare new pages with: the first and the most recent ones."""

MAX_CLUSTERS = 40
"""Clusters kept per site; beyond it the least recently used one is dropped."""

FORMAT_VERSION = 1


@dataclass
class Cluster:
    """One template: its representative trees and layout signature, and its page count."""

    id: int
    pages: int = 0
    representatives: list[Tree] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    last_used: int = 0

    def remember(self, tree: Tree) -> None:
        """Keep the first tree and the most recent ones, at most MAX_REPRESENTATIVES, as their
        structure only (`Tree.structure`: a page's elements would keep its whole DOM alive,
        costing memory and garbage-collector time on every page)."""
        self.representatives.append(tree.structure())
        if len(self.representatives) > MAX_REPRESENTATIVES:
            del self.representatives[1]

    def to_json(self) -> dict[str, Any]:
        """The cluster as JSON data. Representatives are saved as their tags, labels
        included: RTDM compares them by tag (`rtdm.STRUCTURE_COSTS`), and a label's text
        digest would be a digest of the page's own text."""
        return {"id": self.id, "pages": self.pages, "signature": self.signature,
                "last_used": self.last_used,
                "representatives": [{"tags": list(t.tags), "labels": list(t.tags),
                                     "parents": list(t.parents)}
                                    for t in self.representatives]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Cluster:
        return cls(id=int(data["id"]), pages=int(data["pages"]),
                   signature=[str(s) for s in data["signature"]],
                   last_used=int(data["last_used"]),
                   representatives=[Tree.from_json(t) for t in data["representatives"]])


@dataclass(frozen=True)
class Assignment:
    """Where a page belongs: a cluster id (None when no cluster is similar enough)."""

    cluster: int | None
    similarity: float


@dataclass
class Clusterer:
    """The clusters of one site, updated one page at a time."""

    clusters: dict[int, Cluster] = field(default_factory=dict)
    next_id: int = 1
    clock: int = 0

    def assign(self, tree: Tree, signature: list[str]) -> Assignment:
        """The cluster this page belongs to, without learning from it."""
        matches = self.matches(tree, signature)
        if not matches:
            return Assignment(None, 0.0)
        best, score = matches[0]
        return Assignment(best, score)

    def add(self, tree: Tree, signature: list[str],
            matches: list[tuple[int, float]] | None = None) -> Assignment:
        """Put the page in its cluster (or a new one), merging clusters it joins together.
        `matches` are those `matches` found for this page since the clusters last changed."""
        self.clock += 1
        if matches is None:
            matches = self.matches(tree, signature)
        matches = [(cid, score) for cid, score in matches if cid in self.clusters]
        if matches:
            target, score = matches[0]
            for other, _ in matches[1:]:
                self._merge(target, other)
        else:
            target, score = self._new_cluster(signature), 1.0
        cluster = self.clusters[target]
        cluster.pages += 1
        cluster.last_used = self.clock
        cluster.signature = signature
        cluster.remember(tree)
        self._evict()
        return Assignment(target, score)

    def matches(self, tree: Tree, signature: list[str]) -> list[tuple[int, float]]:
        """Clusters at or above CLUSTER_SIMILARITY, most similar first. Representatives are
        tried newest first and the first one similar enough settles a cluster."""
        ranked = sorted(((signature_similarity(signature, c.signature), c.id)
                         for c in self.clusters.values()), reverse=True)
        candidates = [(score, cid) for score, cid in ranked[:MAX_RTDM_CANDIDATES]
                      if score >= MIN_PREFILTER_SIMILARITY]
        found: list[tuple[int, float]] = []
        for prefilter, cid in candidates:
            if found and prefilter < MIN_MERGE_PREFILTER:
                break
            for rep in reversed(self.clusters[cid].representatives):
                score = rtdm.similarity(tree, rep, threshold=CLUSTER_SIMILARITY)
                if score >= CLUSTER_SIMILARITY:
                    found.append((cid, score))
                    break
        return sorted(found, key=lambda item: -item[1])

    def _new_cluster(self, signature: list[str]) -> int:
        cluster = Cluster(id=self.next_id, signature=signature)
        self.clusters[cluster.id] = cluster
        self.next_id += 1
        return cluster.id

    def _merge(self, into: int, other: int) -> None:
        """Fold cluster `other` into `into` (both matched one page: they converged)."""
        source = self.clusters.pop(other)
        target = self.clusters[into]
        target.pages += source.pages
        for tree in source.representatives[:1]:
            target.remember(tree)

    def _evict(self) -> None:
        while len(self.clusters) > MAX_CLUSTERS:
            oldest = min(self.clusters.values(), key=lambda c: c.last_used)
            del self.clusters[oldest.id]

    def to_json(self) -> dict[str, Any]:
        return {"version": FORMAT_VERSION, "next_id": self.next_id, "clock": self.clock,
                "clusters": [c.to_json() for c in self.clusters.values()]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Clusterer:
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"unsupported clusterer format {data.get('version')!r}")
        clusters = [Cluster.from_json(c) for c in data["clusters"]]
        return cls(clusters={c.id: c for c in clusters}, next_id=int(data["next_id"]),
                   clock=int(data["clock"]))
