#!/usr/bin/env python3
"""Headroom and out-of-fold value of a learned trim of the article body's blocks.

    .venv/bin/python bench/articletrim.py --oracle     # what a perfect block trim would gain
    .venv/bin/python bench/articletrim.py --cv         # a learned block trim, out of fold

Reads the tune pages of every article set (readability, sites, dragnet, fundus, and WCXB with
the shipped page types; needs the `train` extra). Each page is extracted as `bench/evaluate.py`
does; the pages whose result is an article are kept, with the body the article was rendered
from (the clean copy of the summary-node, `article.ArticleContent.content`, or the region the
documentation route read), the snippet-node marked in it. The body is split into text blocks
(`blockfeatures.region_blocks`: every piece of text to its nearest block-level ancestor); only
leaf blocks may be dropped. A block is content when at least LABEL_SHARE of its words are in
the gold. A choice of blocks is scored exactly: the body without the dropped blocks is
rendered again (`render.render_article`, with the page's title and byline) and scored by the
set's own metric (`train_models.page_score`: WCXB's word F1, shingle F1 elsewhere).

`--cv` trains a gradient-boosted classifier on four fifths of the domains (`ooftypes.fold_of`)
and drops the held fifth's blocks whose probability of content is below each threshold, never
a block on the snippet-node's path nor one holding MAX_DROP_SHARE of the body's text or more.

Options of `--cv`: `--weighted` weighs each block by its log word count, `--train-sets` learns
from some sets only, `--edge S` drops only blocks within S of the body's text from its start or
end, `--noise-below L` learns as noise only blocks with fewer than L of their words in the gold.

Findings at 50f3264 (1,645 tune pages read as articles: WCXB 569 of which 451 WCXB articles,
fundus 174, dragnet 699, readability 83, sites 120; 67,458 droppable blocks, 3.3% labelled
noise; rendering the stored body again reproduces Winnow's score on 1,644 of 1,645 pages):
- Oracle (drop every droppable block labelled noise): WCXB articles 0.9594 -> 0.9674
  (+0.0080), fundus 0.9509 -> 0.9710 (+0.020), dragnet 0.9387 -> 0.9442, readability
  0.9688 -> 0.9706, sites 0.9730 -> 0.9767; 423 pages up, 15 down. On WCXB articles the
  noise is 1.1% of the droppable words (9,303 of 858k), and the oracle's gain splits as:
  blocks of 30 words or more +0.0045 (42 pages: prose-like paragraphs the gold leaves out),
  blocks under 8 words +0.0010, code blocks (<pre>, which WCXB's article golds often leave
  out) +0.0012, captions +0.0001, noise-named blocks +0.0005, the last 10% of the body
  +0.0033, the first 10% +0.0006 (the groups overlap). The boilerplate-like part (short
  blocks, captions, noise-named blocks) is worth under +0.002 even to a perfect filter; most
  of the headroom is long paragraphs that read like the article.
- Learned, out of fold by domain (100 trees of depth 4, block features of `blockfeatures`
  plus place from the end, repeats elsewhere on the page, figure, heading before, snippet
  path, and two body-level ones: topicality, the share of the block's words of 4+ letters
  found in another block of the body, and the share found in the title):
  AUC 0.884 without the two body-level features and unweighted, 0.908 with them and weighted
  by log words. Yet page F1 barely moves, because what the model is sure of is the short
  blocks worth little, and the long noise paragraphs look like content. Best per set over
  thresholds 0.1-0.6 (probability of content below which a block is dropped):
    unweighted:            WCXB articles +0.0001 (0.5), fundus +0.0015 (0.4), readability
                           -0.0003 to -0.0036, WCXB documentation -0.0021 at 0.4
    weighted + topicality: WCXB articles +0.0001 (0.1) .. +0.0005 (0.6), fundus +0.0012
                           (0.2) .. +0.0032 (0.6), readability -0.0005 (0.1) .. -0.0035
                           (0.6), dragnet -0.0012 at 0.6, WCXB listing -0.024 at 0.5
                           (pages up/down: 0.1 +21/-8, 0.3 +114/-58, 0.6 +214/-168)
    learnt from WCXB only: WCXB articles +0.0003 at best (0.2), readability -0.0054 (0.2)
                           .. -0.020 (0.6), dragnet -0.0005 (0.1) .. -0.0041 (0.6)
    learnt without fundus: AUC 0.910; WCXB articles +0.0001 (0.1) .. +0.0006 (0.6), fundus
                           still +0.0016 (0.4), readability -0.0003 .. -0.0037, dragnet
                           -0.0014 at 0.6, WCXB documentation -0.0015 at 0.4
    edges only (--edge 0.1): WCXB articles +0.0006 at 0.6, fundus +0.0024, readability
                           -0.0021, dragnet -0.0010 (0.6); at 0.2: +0.0001, fundus +0.0009,
                           readability -0.0006
    clear noise only (--noise-below 0.2, weighted): AUC 0.858; WCXB articles +0.0001 at
                           best, readability -0.0054 at 0.6, pages up/down even (0.3 +42/-38)
  What readability loses (`--show readability --threshold 0.3`, weighted, 5 pages down): an
  author's closing credit line, a list item of a news digest, short CJK paragraphs and an
  image caption the gold keeps, a code listing: content that is short, alone, or unlike the
  body's other words, which is what the model reads as noise.
  The lane's bar (WCXB articles +0.002 out of fold and no set falling) is met at no threshold
  of any variant: at every threshold where WCXB articles gain, readability loses, and most of
  the gain is fundus's, whose golds (each publisher's hand-written parser) leave out many
  captions, list items and short blocks (noise rates by words 0.19, 0.28 and 0.30 there,
  against 0.17, 0.006 and 0.03 in WCXB articles): a gold convention more than boilerplate.
  Not shipped.
- The long noise paragraphs of WCXB articles (labels 0.2-0.5: they share common words with the
  gold) are mostly author bios at the body's end ("X is a writer ...", 12 of 451 pages),
  disclosures (affiliate, editorial, legal), donation appeals and code listings. A rule for
  the bio alone (an edge block of 12+ words opening with a name of the byline) splits by the
  sets' gold conventions, not by site: its matches on WCXB articles are 11 noise / 10
  content, but dragnet's golds keep 7 such bios and leave out 2, readability's keep 3 and
  leave out 1 (the other matches there, and most on sites, are datelines opening with the
  outlet's name: "(CNN) --"). Not tried as a change.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import pickle
import re
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lxml.html
from blockfeatures import Block, block_features, gold_share, region_blocks
from ooftypes import FOLDS, fold_of
from train_models import page_score
from winnow import article as article_module
from winnow import evaluation as ev
from winnow import extractor
from winnow.page import HtmlElement, parse_page
from winnow.pagetype import PageType, classify
from winnow.render import render_article

SETS = ("wcxb", "fundus", "dragnet", "readability", "sites")
LABEL_SHARE = 0.5
"""Share of a block's words in the gold from which the block is content."""
MAX_DROP_SHARE = 0.3
"""A block holding this share of the body's text or more is never dropped."""
TOPIC_WORD_CHARS = 4
"""Words from this length count for a block's topicality (its words found in other blocks of
the body: an article's paragraphs share their words, a share or legal box does not)."""
SNIPPET_MARK = "data-wn-snippet"
SEED = 12
PARAMS = {"n_estimators": 100, "max_depth": 4, "learning_rate": 0.1, "subsample": 0.8,
          "min_samples_leaf": 20, "random_state": SEED}
THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "winnow" \
    / "articletrim.pkl"
_SPACE_RE = re.compile(r"\s+")


@dataclass
class BodyPage:
    """One tune page read as an article: the body it was rendered from (HTML, snippet-node
    marked), what the renderer was given besides, the gold and Winnow's own score."""

    set: str
    key: str
    domain: str
    wcxb_type: str
    gold: str
    html: str
    url: str | None
    title: str | None
    byline: str | None
    page_type: PageType
    page_text: str
    """The whole page's text, spaces collapsed and lower-cased (for repeats outside the body)."""
    winnow_f1: float


@dataclass
class Blocks:
    """A page's blocks: features, gold shares, whether each may be dropped, and the body
    they were read from (re-parsed from `BodyPage.html`, paired with the blocks)."""

    page: BodyPage
    root: HtmlElement
    blocks: list[Block]
    rows: list[dict[str, float]]
    shares: list[float]
    droppable: list[bool]


# --- collection -----------------------------------------------------------------------------

class _Recorder:
    """Wraps the article module's choice and build, and the extractor's renderer, to find the
    body an article result was rendered from and its snippet-node."""

    def __init__(self) -> None:
        self.snippets: dict[int, int] = {}
        self.renders: list[tuple[HtmlElement, str | None, str | None, str]] = []
        choose, build, render = article_module.choose_body, article_module._build, \
            extractor.render_article

        def choosing(*args: Any, **kwargs: Any) -> Any:
            chosen = choose(*args, **kwargs)
            if chosen is not None:
                self.snippets[id(chosen.stats)] = chosen.climb.snippet
            return chosen

        def building(stats: Any, summary: int, *args: Any, **kwargs: Any) -> Any:
            snippet = self.snippets.get(id(stats))
            marked = stats.elements[snippet] if snippet is not None else None
            if marked is not None:
                marked.set(SNIPPET_MARK, "1")  # the copy keeps it
            try:
                return build(stats, summary, *args, **kwargs)
            finally:
                if marked is not None:
                    del marked.attrib[SNIPPET_MARK]

        def rendering(content: HtmlElement, url: str | None, title: str | None = None,
                      byline: str | None = None) -> Any:
            rendered = render(content, url, title, byline)
            self.renders.append((content, title, byline, rendered.text))
            return rendered

        article_module.choose_body = choosing  # type: ignore[assignment]
        article_module._build = building  # type: ignore[assignment]
        extractor.render_article = rendering  # type: ignore[assignment]

    def extract(self, case: ev.Case) -> BodyPage | None:
        self.snippets.clear()
        self.renders.clear()
        page = parse_page(case.html, case.url)
        result = extractor.extract_page(page)
        if result.article is None:
            return None
        text = result.article.text
        found = next(((c, t, b) for c, t, b, r in reversed(self.renders) if r == text), None)
        if found is None:
            return None
        content, title, byline = found
        html = lxml.html.tostring(content, encoding="unicode")
        page_text = _SPACE_RE.sub(" ", page.body.text_content()).lower()
        return BodyPage(case.set, f"{case.set}/{case.id}", case.domain or case.id,
                        case.page_type if case.set == "wcxb" else case.set, case.gold, html,
                        case.url, title, byline, classify(page), page_text,
                        page_score(case, text))


def collect() -> list[BodyPage]:
    recorder, out = _Recorder(), []
    for name in SETS:
        n = 0
        for case in ev.load_cases(name, split="tune"):
            found = recorder.extract(case)
            if found is not None:
                out.append(found)
                n += 1
        print(f"{name}: {n} tune pages read as articles", file=sys.stderr)
    return out


# --- blocks, features and scores ----------------------------------------------------------------

def page_blocks(page: BodyPage) -> Blocks:
    """The body's text blocks with their features and labels."""
    root = lxml.html.fromstring(page.html)
    blocks = region_blocks(root)
    rows = block_features(blocks, page.page_type)
    gold = {w.lower() for w in ev.tokenize(page.gold)}
    total = sum(len(b.text) for b in blocks) or 1
    snippet_path = _snippet_path(root)
    n = len(blocks)
    after = total
    words = [[w.lower() for w in ev.tokenize(b.text) if len(w) >= TOPIC_WORD_CHARS]
             for b in blocks]
    body_words = collections.Counter(w for ws in words for w in set(ws))
    title = {w.lower() for w in ev.tokenize(page.title or "")}
    droppable = []
    for k, (block, row) in enumerate(zip(blocks, rows, strict=True)):
        text = block.text
        after -= len(text)
        row["chars_after"] = after / total
        row["from_end"] = (n - 1 - k) / n
        row["log_from_end"] = math.log1p(n - 1 - k)
        row["log_from_start"] = math.log1p(k)
        row["elsewhere"] = float(len(text) >= 12 and page.page_text.count(text.lower()) > 1)
        row["in_figure"] = float(any(a.tag in ("figure", "figcaption")
                                     for a in (block.element, *block.element.iterancestors())))
        row["prev_heading"] = float(k > 0 and rows[k - 1]["tag_heading"] > 0)
        row["on_snippet"] = float(id(block.element) in snippet_path)
        own = words[k]
        row["topical"] = sum(body_words[w] > 1 for w in own) / len(own) if own else 0.0
        row["in_title"] = sum(w in title for w in own) / len(own) if own else 0.0
        droppable.append(block.leaf and block.element is not root
                         and id(block.element) not in snippet_path
                         and len(text) < MAX_DROP_SHARE * total)
    return Blocks(page, root, blocks, rows, [gold_share(b.text, gold) for b in blocks],
                  droppable)


def _snippet_path(root: HtmlElement) -> set[int]:
    """The snippet-node, its ancestors and its descendants in the body."""
    marked = next((el for el in root.iter() if el.get(SNIPPET_MARK) is not None), None)
    if marked is None:
        return set()
    return {id(el) for el in (*marked.iter(), *marked.iterancestors())}


def score(page: BodyPage, text: str) -> float:
    """The page's score by its set's metric (`train_models.page_score`)."""
    if ev.set_metric(page.set) == "word":
        return ev.word_f1(page.gold, text)[2]
    counts = ev.page_counts(page.gold, text)
    return ev.f1(ev.precision(counts), ev.recall(counts))


def blocks_score(units: Blocks, drop: Sequence[bool], always: bool = False) -> float:
    """The page's score with the marked blocks dropped (rendered again from a fresh copy)."""
    if not any(d and ok for d, ok in zip(drop, units.droppable, strict=True)) and not always:
        return units.page.winnow_f1
    root = lxml.html.fromstring(units.page.html)
    fresh = region_blocks(root)
    for block, d, ok in zip(fresh, drop, units.droppable, strict=True):
        if d and ok and block.element.getparent() is not None:
            block.element.drop_tree()
    page = units.page
    text = render_article(root, page.url, page.title, page.byline).text
    return score(page, text)


def by_set(pages: Sequence[BodyPage], scores: Sequence[float]) -> str:
    """Mean score per set (WCXB per type)."""
    groups: dict[str, list[float]] = collections.defaultdict(list)
    for page, score in zip(pages, scores, strict=True):
        groups[page.wcxb_type if page.set == "wcxb" else page.set].append(score)
    order = sorted(groups, key=lambda k: (k in SETS, k))
    return "  ".join(f"{k} {statistics.fmean(groups[k]):.4f} ({len(groups[k])})" for k in order)


def _print_scores(name: str, pages: Sequence[BodyPage], base: Sequence[float],
                  scores: Sequence[float]) -> None:
    up = sum(s > b + 0.001 for s, b in zip(scores, base, strict=True))
    down = sum(s < b - 0.001 for s, b in zip(scores, base, strict=True))
    print(f"{name:10} +{up:3} -{down:3}  {by_set(pages, scores)}", flush=True)


def oracle(all_units: Sequence[Blocks]) -> None:
    """Winnow's score, the render check, and the oracle's (drop every droppable block
    labelled noise), with the share of droppable blocks labelled noise."""
    pages = [u.page for u in all_units]
    base = [p.winnow_f1 for p in pages]
    _print_scores("winnow", pages, base, base)
    again = [blocks_score(u, [False] * len(u.blocks), always=True) for u in all_units]
    differ = sum(abs(a - b) > 1e-9 for a, b in zip(again, base, strict=True))
    print(f"re-render differs on {differ} pages")
    scores = [blocks_score(u, [s < LABEL_SHARE for s in u.shares]) for u in all_units]
    _print_scores("oracle", pages, base, scores)
    n = sum(sum(u.droppable) for u in all_units)
    noise = sum(sum(d and s < LABEL_SHARE for d, s in zip(u.droppable, u.shares, strict=True))
                for u in all_units)
    print(f"droppable blocks {n}, labelled noise {noise} ({noise / max(n, 1):.3f})")


WEIGHTED = False
NOISE_BELOW = LABEL_SHARE
"""With `--noise-below`, the model learns as noise only blocks with fewer gold words than this
(clear boilerplate); scores and the AUC still use LABEL_SHARE."""
EDGE_SHARE: float | None = None
"""With `--edge`, only blocks within this share of the body's text from its start or end may be
dropped (where share, author, legal and related boxes sit)."""
TRAIN_SETS: tuple[str, ...] = SETS


def _fit(x: list[list[float]], y: list[int], w: list[float]) -> Any:
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(**PARAMS).fit(x, y, sample_weight=w if WEIGHTED else None)


def oof_probabilities(all_units: Sequence[Blocks], fit: Callable[..., Any] = _fit
                      ) -> dict[str, list[float]]:
    """Each page's blocks' probability of content from a model that did not see its domain."""
    features = sorted(next(u.rows[0] for u in all_units if u.rows))
    probs: dict[str, list[float]] = {}
    for k in range(FOLDS):
        x, y, w = [], [], []
        for units in (u for u in all_units if fold_of(u.page.domain) != k
                      and u.page.set in TRAIN_SETS):
            for row, share, ok in zip(units.rows, units.shares, units.droppable, strict=True):
                if ok:
                    x.append([row[f] for f in features])
                    y.append(int(share >= NOISE_BELOW))
                    w.append(row["log_words"])
        model = fit(x, y, w)
        for units in (u for u in all_units if fold_of(u.page.domain) == k and u.rows):
            probs[units.page.key] = [float(p) for p in model.predict_proba(
                [[r[f] for f in features] for r in units.rows])[:, 1]]
    return probs


def cross_validate(all_units: Sequence[Blocks]) -> None:
    """Out-of-fold AUC, and the page scores per threshold."""
    from sklearn.metrics import roc_auc_score

    probs = oof_probabilities(all_units)
    pairs = [(int(s >= LABEL_SHARE), probs[u.page.key][i]) for u in all_units if u.rows
             for i, (s, ok) in enumerate(zip(u.shares, u.droppable, strict=True)) if ok]
    print(f"out-of-fold AUC {roc_auc_score(*zip(*pairs, strict=True)):.3f}", flush=True)
    pages = [u.page for u in all_units]
    base = [p.winnow_f1 for p in pages]
    _print_scores("winnow", pages, base, base)
    for threshold in THRESHOLDS:
        scores = [blocks_score(u, [q < threshold and _at_edge(r) for q, r in
                                   zip(probs.get(u.page.key, []), u.rows, strict=False)])
                  for u in all_units]
        _print_scores(f"oof {threshold:.2f}", pages, base, scores)


def show_losses(all_units: Sequence[Blocks], set_name: str, threshold: float) -> None:
    """The tune pages of one set (WCXB type) that lose at `threshold`, with what they drop."""
    probs = oof_probabilities(all_units)
    for units in all_units:
        page = units.page
        if set_name not in (page.set, page.wcxb_type):
            continue
        drop = [q < threshold and _at_edge(r) and ok for q, r, ok in
                zip(probs.get(page.key, []), units.rows, units.droppable, strict=False)]
        after = blocks_score(units, drop)
        if after < page.winnow_f1 - 0.002:
            print(f"{page.key} {page.winnow_f1:.4f} -> {after:.4f}")
            for block, d, share in zip(units.blocks, drop, units.shares, strict=False):
                if d:
                    print(f"    {share:.2f} <{block.element.tag}> {block.text[:90]!r}")


def _at_edge(row: dict[str, float]) -> bool:
    return EDGE_SHARE is None or min(row["chars_before"], row["chars_after"]) < EDGE_SHARE


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--collect", action="store_true", help="extract again (else cached)")
    parser.add_argument("--oracle", action="store_true")
    parser.add_argument("--cv", action="store_true")
    parser.add_argument("--weighted", action="store_true", help="weigh blocks by log words")
    parser.add_argument("--show", help="list this set's (or WCXB type's) losing tune pages")
    parser.add_argument("--threshold", type=float, default=0.3, help="for --show")
    parser.add_argument("--noise-below", type=float, default=LABEL_SHARE)
    parser.add_argument("--edge", type=float, help="drop only within this share of an edge")
    parser.add_argument("--train-sets", default=",".join(SETS), help="sets to learn from")
    args = parser.parse_args(argv)
    global WEIGHTED, TRAIN_SETS, EDGE_SHARE, NOISE_BELOW
    NOISE_BELOW = args.noise_below
    WEIGHTED, EDGE_SHARE = args.weighted, args.edge
    TRAIN_SETS = tuple(args.train_sets.split(","))
    if args.collect or not CACHE.exists():
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_bytes(pickle.dumps(collect()))
    pages: list[BodyPage] = pickle.loads(CACHE.read_bytes())
    print(f"{len(pages)} tune pages read as articles", file=sys.stderr)
    units = [page_blocks(p) for p in pages]
    if args.oracle:
        oracle(units)
    if args.cv:
        cross_validate(units)
    if args.show:
        show_losses(units, args.show, args.threshold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
