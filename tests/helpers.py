"""Helpers shared by the test modules: the corpus guard, the tree mini-syntax, the sites
corpus by site/year, and the hand-written article pages of one template."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import lxml.html
import pytest
from winnow import evaluation as ev
from winnow.tree import Tree, from_arrays


def require_corpus(*parts: str) -> Path:
    """The evaluation data directory, once `parts` (a path relative to it) exists there.

    Skips the test when it is missing, except under CI (env CI set), where the test fails."""
    root = ev.data_dir()
    if not root.joinpath(*parts).exists():
        message = (f"evaluation data not found: {root.joinpath(*parts)} is missing "
                   f"(set WINNOW_DATA to the shared data directory)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return root


def site_year_groups() -> dict[tuple[str, str], list[ev.Case]]:
    """The Big9 sites corpus by (site, year), in manifest order; guarded by `require_corpus`."""
    root = require_corpus("articles", "sites", "manifest.json")
    groups: dict[tuple[str, str], list[ev.Case]] = {}
    for case in ev.sites_cases(root):
        key = (str(case.metadata["site"]), str(case.metadata["year"]))
        groups.setdefault(key, []).append(case)
    return groups


def tree_of(spec: str, labels: Mapping[str, str] | None = None) -> Tree:
    """A tree from 'a(b c(d))': a label, then its children in parentheses. Tokens found in
    `labels` are replaced by their mapping (the wildcard kinds of a pattern, say)."""
    names: list[str] = []
    parents: list[int] = []
    open_nodes = [-1]
    for token in spec.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            open_nodes.append(len(names) - 1)
        elif token == ")":
            open_nodes.pop()
        else:
            names.append(labels.get(token, token) if labels else token)
            parents.append(open_nodes[-1])
    return from_arrays(names, names, parents)


# --- hand-written article pages of one template (test_layout, test_chunks) ----------------------

SITE = "https://planet.example"
NAV = "".join(f'<li><a href="/{s.lower()}">{s}</a></li>'
              for s in ("World", "Politics", "Business", "Science", "Culture"))
BAR = ('<div class="bar"><a href="/">Home</a> | <a href="/news">News</a> | '
       '<a href="/sports">Sports</a></div>')

ARTICLES = [
    ("City council approves the new harbor bridge after a decade of debate", "Maria Lopez", [
        "The city council approves the new harbor bridge after a decade of debate, ending one "
        "of the longest planning fights in the history of the port district.",
        "Construction is expected to start next spring, and the first lanes could open to "
        "traffic within four years if the federal grant arrives on time.",
        "Residents of the east bank, who have waited years for a faster route downtown, "
        "cheered as the final vote was read aloud in the packed chamber.",
        "Critics warned that the budget leaves no room for cost overruns.",
    ]),
    ("Drought forces farmers in the valley to switch to hardier crops", "Tom Becker", [
        "A third summer of drought forces farmers in the valley to switch to hardier crops, "
        "with sorghum and chickpeas replacing the thirsty corn of past decades.",
        "Agronomists at the state university say yields have held up better than feared, "
        "although prices for the new crops remain volatile.",
        "Several growers have joined a cooperative to share irrigation equipment and to "
        "negotiate with the regional water authority.",
        "The ministry promised emergency aid before the autumn harvest.",
    ]),
    ("Museum returns looted bronze statues to their temple of origin", "Aiko Tanaka", [
        "The national museum returns looted bronze statues to their temple of origin, closing "
        "a dispute that lasted almost forty years and involved three governments.",
        "Curators documented every scratch on the figures before they were packed in custom "
        "crates and flown home under armed escort.",
        "Monks at the temple held a ceremony at dawn to welcome the statues back, and "
        "pilgrims travelled from distant provinces to attend.",
        "Scholars hope the case becomes a model for other restitution claims.",
    ]),
    ("Local robotics team wins the national championship with a climbing robot", "Sam Okafor", [
        "A local robotics team wins the national championship with a climbing robot that "
        "scaled the final wall in under nine seconds, a new tournament record.",
        "The students, most of them in their first year of high school, built the machine "
        "from salvaged parts and a secondhand motor controller.",
        "Their coach, a retired engineer, said the real prize was watching them debug late "
        "into the night without ever giving up on the design.",
        "The team will represent the country at the world finals in June.",
    ]),
    ("Night trains return to the northern line after twenty years of absence", "Lena Fischer", [
        "Night trains return to the northern line after twenty years of absence, offering "
        "sleeper cabins between the capital and the mountain towns.",
        "The operator expects most passengers to be hikers and skiers, but business travellers "
        "have already booked many of the first departures.",
        "Tickets went on sale at midnight and the opening weekend sold out within hours, "
        "according to a spokesperson for the railway.",
        "Environmental groups welcomed the return of the service.",
    ]),
    ("Scientists map the deepest cave system ever found beneath the desert", "Omar Haddad", [
        "Scientists map the deepest cave system ever found beneath the desert, descending more "
        "than two kilometres through flooded shafts and narrow crawlways.",
        "The expedition used underwater drones to chart passages too tight for divers and "
        "collected samples of microbes that live without sunlight.",
        "Geologists believe the caves formed when an ancient river carved through limestone "
        "millions of years before the desert existed.",
        "A documentary about the expedition will air later this year.",
    ]),
]


def stamp(html: str) -> str:
    """Number every element in document order, as the content script does (data-wn)."""
    root = lxml.html.document_fromstring(html)
    for i, el in enumerate(root.iter()):
        el.set("data-wn", str(i))
    return str(lxml.html.tostring(root, encoding="unicode"))


def slug(i: int) -> str:
    return f"{SITE}/2024/story-{i}.html"


def article_html(i: int, sidebar: bool = True) -> str:
    headline, byline, paragraphs = ARTICLES[i % len(ARTICLES)]
    side = ('<div class="sidebar"><h3>Most read today</h3><ul>'
            '<li><a href="/a">Storm closes the coastal highway</a></li>'
            '<li><a href="/b">Mayor unveils the winter budget</a></li></ul></div>')
    side = side if sidebar else ""
    story = "".join(f"<p>{p}</p>" for p in paragraphs)
    return stamp(f"""<html><head><title>{headline} - The Daily Planet</title></head><body>
<div id="header"><div class="logo">The Daily Planet</div><ul class="nav">{NAV}</ul>{BAR}</div>
<div id="main"><div class="article"><h1>{headline}</h1>
<p class="byline">By {byline}, staff writer</p><div class="story">{story}</div></div>{side}</div>
<div id="footer">{BAR}<p class="legal">Copyright 2024 Daily Planet Media. All rights
reserved.</p></div></body></html>""")
