#!/usr/bin/env python3
"""Loss census: where the gold words Winnow misses on tune article pages sit in the DOM.

    PYTHONPATH=server .venv/bin/python bench/losscensus.py [--sets wcxb,dragnet,fundus,sites]
        [--below 0.9] [--show CAUSE]

For every tune article page whose recall (the set's metric) is below `--below`, each gold
line (paragraph) with less than half of its 3-token shingles in the output is looked up in
the page's body (its first tokens, in a token stream that knows each token's element) and
its words are charged to the stage that lost them:

- `trim:<rule>`: inside the chosen body (`CONTENT_ROOT`) but in a subtree an
  `article.extract_once` rule dropped (pruned, outside, excluded, link_lists, trailing,
  leading, comments, ad_labels, twins: `article.choose_body` names them);
- `render`: inside the body, not dropped by the article stage, still not in the text
  (tidy.py and render.py drops: captions, bylines, datelines, controls, hidden text);
- `names`/`teasers`: outside the body, under a root `noise_roots` excluded by class and id
  names (article_names / article_candidates) or as a teaser list;
- `climb:ancestor-text`, `climb:sibling-N`: outside the body, in an ancestor's own text or
  under the body's ancestor N levels up (N <= CLIMB_REACH: the climb stopped short);
- `elsewhere`: farther away (a different candidate);
- `not-article`: the page came back as no article (routing, `kind` other or thread);
- `title`: the gold line is the title (left out of the text by design);
- `unlocated`: the line's tokens are not found in the body (script data, rewritten text).

Findings (main 7acdaa8; tune article pages of wcxb, dragnet, fundus and sites with recall
below 0.9: words of the lost gold lines, pages):

    trim:excluded    6,946  50   hinted or hidden subtrees inside the body: a long tail
                                 (one page's comment list, one page's accordions, one
                                 page's table rows: three pages hold half; then <aside>
                                 boxes with prose, footnotes, bylines)
    unlocated        4,307  16   gold text not in the page (one WCXB page alone: 2,906)
    not-article      2,013   5   an article read as a thread (a writer's story rail
                                 signed by one name: fixed, Thread.one_voice), a
                                 script-rendered page with an empty body, an empty page
    trim:link_lists  1,833  47   resource lists and city lists the gold keeps
    trim:pruned      1,529  37   Joint-para: list items of one page (508), and headings
                                 alone in a page builder's module (fixed,
                                 article_climb._wrapper_heads_content)
    climb:sibling-1    957  23   FAQ sections beside the body (the fragment stop): WCXB's
                                 golds keep FAQs on some pages and leave them out on others
    title              846  94   dragnet's headline line (not in the text by design)
    render             836  48   datelines and bylines dragnet's gold keeps (WCXB's not)
    climb:sibling-3    793   8   one page's intro section (535 of them)
    names              609  16   a Disqus thread, folded FAQ answers
    climb:sibling-2    264   7
    trim:trailing      223  16   source credits, post footers (dragnet's gold keeps them)
    elsewhere          205   8
    teasers             33   3

No cause is both large and spread over many pages: the big counts come from a handful of
pages each, and the spread ones (link lists, render, trailing) are text the golds of
different sets disagree about.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass

from lxml import etree
from lxml.html import HtmlElement
from winnow import evaluation as ev
from winnow.article import LADDER, PageHints, choose_body, folded_indices, page_stats
from winnow.article_candidates import noise_roots, teaser_lists
from winnow.extractor import CONTENT_ROOT, extract_page
from winnow.metadata import extract_metadata
from winnow.page import PageError, parse_page

CLIMB_REACH = 3
"""Levels above the body within which missing text counts as the climb's (stopped short)."""

LOST_SHARE = 0.5
"""A gold line with less than this share of its shingles in the output is lost."""

PROBE = 5
"""Tokens of a gold line looked up in the body's token stream."""

SKIP = frozenset(("script", "style", "template", "noscript"))


@dataclass
class Stream:
    """The body's tokens in document order and, per token, the element whose text holds it."""

    tokens: list[str]
    owners: list[HtmlElement]
    first: dict[tuple[str, ...], int]


def token_stream(body: HtmlElement) -> Stream:
    """Tokens of the body's text and tails, each owned by the element whose text it is."""
    tokens: list[str] = []
    owners: list[HtmlElement] = []
    skipped = 0
    for event, el in etree.iterwalk(body, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            if tag in SKIP:
                skipped += 1
            elif not skipped and tag and el.text:
                for t in ev.tokenize(el.text.lower()):
                    tokens.append(t)
                    owners.append(el)
        else:
            if tag in SKIP:
                skipped -= 1
            parent = el.getparent()
            if not skipped and el.tail and parent is not None and el is not body:
                for t in ev.tokenize(el.tail.lower()):
                    tokens.append(t)
                    owners.append(parent)
    first: dict[tuple[str, ...], int] = {}
    for n in range(1, PROBE + 1):
        for i in range(len(tokens) - n + 1):
            first.setdefault(tuple(tokens[i:i + n]), i)
    return Stream(tokens, owners, first)


DETAIL = False
"""Name the dropping element's tag and names in the cause (`--detail`)."""


def _names(el: HtmlElement) -> str:
    return " ".join(f"{k}={v[:60]!r}" for k, v in el.attrib.items()
                    if k in ("class", "id", "role", "hidden", "style", "aria-hidden"))


def classify(el: HtmlElement, source: HtmlElement | None, drops: dict[HtmlElement, str],
             noise: dict[HtmlElement, str]) -> str:
    """The stage that lost the text owned by `el` (see the module docstring)."""
    chain = [el, *el.iterancestors()]
    if source is not None and source in chain:
        for a in chain[:chain.index(source) + 1]:
            if a in drops:
                return "trim:" + drops[a] + (f" <{a.tag} {_names(a)}>" if DETAIL else "")
        return "render"
    for a in chain:
        if a in noise:
            return noise[a] + (f" <{a.tag} {_names(a)}>" if DETAIL else "")
    if source is None:
        return "elsewhere"
    up = [source, *source.iterancestors()]
    if el in up:
        return "climb:ancestor-text"
    for level, a in enumerate(up[1:CLIMB_REACH + 1], 1):
        if a in chain:
            return f"climb:sibling-{level}"
    return "elsewhere"


def census_page(case: ev.Case, below: float) -> list[tuple[str, int, str]] | None:
    """(cause, words, line) for each lost gold line of a page below `below` recall."""
    try:
        page = parse_page(case.html, case.url)
    except PageError:
        return None
    result = extract_page(page)
    out = ev.content_text(result)
    if case.set == "wcxb":
        r = ev.word_f1(case.gold, out)[1]
    else:
        r = ev.recall(ev.page_counts(case.gold, out))
    if r >= below:
        return None
    found = set(ev.shingles(out.lower(), 3))
    flat = f" {' '.join(ev.tokenize(out.lower()))} "
    title = ev.tokenize(((result.article.title if result.article else result.title) or "").lower())
    source = page.derived.get(CONTENT_ROOT) if result.article is not None else None
    meta = extract_metadata(page)
    drops: dict[HtmlElement, str] = {}
    noise: dict[HtmlElement, str] = {}
    if source is not None:
        for rules in LADDER:
            chosen = choose_body(page, PageHints(meta.heading), rules)
            if chosen is not None and chosen.stats.elements[chosen.summary] is source:
                drops = {chosen.stats.elements[i]: name for i, name in chosen.drops.items()}
                break
        stats = page_stats(page)
        heading = stats.index.get(meta.heading) if meta.heading is not None else None
        for i in noise_roots(stats, heading, True, folded_indices(page, stats)):
            noise[stats.elements[i]] = "names"
        for i in teaser_lists(stats):
            noise[stats.elements[i]] = "teasers"
    stream = token_stream(page.body)
    rows = []
    for line in case.gold.splitlines():
        tokens = ev.tokenize(line.lower())
        if not tokens:
            continue
        if len(tokens) < 3:
            if f" {' '.join(tokens)} " in flat:
                continue
        else:
            sh = ev.shingles(line.lower(), 3)
            if sum(c for s, c in sh.items() if s in found) >= LOST_SHARE * sum(sh.values()):
                continue
        if tokens == title:
            cause = "title"
        elif result.article is None:
            cause = "not-article"
        else:
            at = stream.first.get(tuple(tokens[:PROBE]))
            cause = "unlocated" if at is None else \
                classify(stream.owners[at], source, drops, noise)
        rows.append((cause, len(tokens), line))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="wcxb,dragnet,fundus,sites")
    parser.add_argument("--below", type=float, default=0.9)
    parser.add_argument("--show", default=None, help="print the lines lost to this cause")
    parser.add_argument("--detail", action="store_true", help="name the dropping element")
    args = parser.parse_args()
    global DETAIL
    DETAIL = args.detail
    words: Counter[str] = Counter()
    pages: dict[str, set[str]] = defaultdict(set)
    per_set: dict[str, Counter[str]] = defaultdict(Counter)
    for name in args.sets.split(","):
        for case in ev.load_cases(name, split="tune"):
            if case.split != "tune" or case.page_type != "article" \
                    or (name, case.id) in ev.BAD_GOLD:
                continue
            rows = census_page(case, args.below)
            for cause, n, line in rows or []:
                words[cause] += n
                per_set[name][cause] += n
                pages[cause].add(f"{name}/{case.id}")
                if args.show is not None and cause.startswith(args.show):
                    print(f"  {name}/{case.id} {cause} {n}: {line[:120]}", file=sys.stderr)
    print("| cause | words lost | pages | " + " | ".join(per_set) + " |")
    print("|---|---:|---:|" + "---:|" * len(per_set))
    for cause, n in words.most_common():
        cols = " | ".join(str(per_set[s][cause]) for s in per_set)
        print(f"| {cause} | {n} | {len(pages[cause])} | {cols} |")


if __name__ == "__main__":
    main()
