"""What a site model has learned, as plain data for the dashboard. Pure and read-only.

Per cluster: its pages, and its Webstemmer layout pattern section by section (Shinyama,
Step 4-5): the section's layout path, DiffScore (how much its text varies across the
cluster's pages), whether it is static (DiffScore under `layout.DIFFSCORE_THRESHOLD`: the
template text a page's template explains as noise), whether it is the main or the title
section, and the section's template text when it has proved to be template
(`LayoutPattern.template_texts`): never a page's own text. Also the Ma et al. chunk table:
pages counted and chunks past the template threshold.
"""

from __future__ import annotations

from typing import Any

from winnow import layout
from winnow.sitemodel import MIN_CLUSTER_PAGES, ClusterModel, SiteModel

SAMPLE_CHARS = 160
"""Characters of a section's template text shown on the dashboard."""
MAX_SECTIONS = 200
"""Sections listed per cluster (a pattern of a long page has a few hundred at most)."""


def describe_model(model: SiteModel, sections: bool = True) -> dict[str, Any]:
    """The site's clusters, largest first, each with its learned template (its `sections`
    left out when not wanted: the site listing shows none)."""
    clusters = sorted(model.clusterer.clusters.values(), key=lambda c: (-c.pages, c.id))
    return {"site": model.site, "pages_learned": model.pages_seen,
            "min_cluster_pages": MIN_CLUSTER_PAGES,
            "clusters": [_cluster(c.id, c.pages, model.clusters.get(c.id), sections)
                         for c in clusters]}


def _cluster(cid: int, pages: int, learned: ClusterModel | None,
             sections: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": cid, "pages": pages, "active": pages >= MIN_CLUSTER_PAGES,
                             "chunks": None, "pattern_pages": 0}
    if sections:
        entry["sections"] = _sections(learned.layout) \
            if learned is not None and learned.layout.ready else []
    if learned is None:
        return entry
    entry["pattern_pages"] = learned.pattern_pages
    table = learned.chunks
    entry["chunks"] = {"pages": table.pages, "tracked": len(table.counts),
                       "template": sum(1 for key in table.counts if table.is_template(key)),
                       "threshold": table.threshold()}
    return entry


def _sections(pattern: layout.LayoutPattern) -> list[dict[str, Any]]:
    """The pattern's sections in page order with their scores and labels."""
    main, title = pattern.main_section(), pattern.title_section()
    template = pattern.template_texts()
    sections = []
    for i, path in enumerate(pattern.paths[:MAX_SECTIONS]):
        diff = pattern.diffscore(i)
        text = template[i]
        sections.append({
            "path": path, "diffscore": round(diff, 3),
            "static": diff < layout.DIFFSCORE_THRESHOLD,
            "role": "title" if i == title else "main" if i == main else None,
            "sample": text[:SAMPLE_CHARS]})
    return sections
