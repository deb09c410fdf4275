#!/usr/bin/env python3
"""Score thread and comment extraction: posts on forums/, routing on every set, comments on
dragnet/.

    .venv/bin/python bench/forums.py                      # print the report
    .venv/bin/python bench/forums.py --write bench/RESULTS.md
    .venv/bin/python bench/forums.py --per-page            # one line per forum page, Winnow
    .venv/bin/python bench/forums.py --wcxb-tune           # Winnow per WCXB forum tune page

Posts are scored as in the MiBAT paper with the data README's matching rule
(`winnow.evaluation.score_posts`), for Winnow, the MDR-style baseline (`bench/mdr.py`) and
trafilatura's comment extraction (`include_comments=True`: the main text and the comments
as two records, since it does not split posts). Routing: which kind Winnow gives every page
of every set. WCXB's 105 forum pages: WCXB's word F1 on the posts' text (`thread_text`), with
trafilatura's default and favor_precision modes beside, per tune and check part. Comments:
on dragnet/, how much of the gold comment text (after the COMMENTS line) Winnow puts in
`article.comments`, and how much of it leaks into the article body.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import winnow
from evaluate import _git_state, _nproc, command_line, percentile, publish
from mdr import Record, mine_records
from winnow import evaluation as ev
from winnow.export import export_posts
from winnow.page import PageError, parse_page
from winnow.result import Extraction, Post
from winnow.threadtext import posts_text

SECTION = "forums"
ENGINES = ("winnow", "mdr", "trafilatura")

PostRunner = Callable[[bytes, str | None], Sequence[Any]]
"""Extract one page's posts: objects with `text`, `author` and `published`."""


def winnow_posts(html: bytes, url: str | None) -> list[Post]:
    """Winnow's posts: a thread's posts, or the comments of an article."""
    return list(export_posts(winnow.extract(html, url)))


def mdr_posts(html: bytes, url: str | None) -> list[Record]:
    """The MDR-style baseline's records of the region with the most text."""
    return mine_records(parse_page(html, url).root)


def trafilatura_posts(html: bytes, url: str | None) -> list[Post]:
    """trafilatura's main text and its comments, each as one record."""
    import trafilatura
    from trafilatura.settings import use_config

    document = trafilatura.bare_extraction(html, url=url, include_comments=True,
                                           config=use_config())
    if document is None:
        return []
    assert not isinstance(document, dict)  # a dict only with as_dict=True
    texts = (document.text, document.comments)
    return [Post(text=text) for text in texts if text]


RUNNERS: dict[str, PostRunner] = {
    "winnow": winnow_posts, "mdr": mdr_posts, "trafilatura": trafilatura_posts,
}


@dataclass
class ForumRun:
    """One engine over the forum pages: the score per page and the time per page."""

    engine: str
    scores: dict[str, ev.PostScore]
    ms: list[float]
    segmentation: dict[str, ev.PostScore]
    errors: int = 0


def run_forums(engine: str, cases: Sequence[ev.ForumCase]) -> ForumRun:
    run = ForumRun(engine, {}, [], {})
    runner = RUNNERS[engine]
    for case in cases:
        start = time.perf_counter()
        try:
            posts = runner(case.html, case.url)
        except (PageError, ValueError):
            posts, run.errors = [], run.errors + 1
        run.ms.append((time.perf_counter() - start) * 1000)
        run.scores[case.id] = ev.score_posts(posts, case.posts)
        run.segmentation[case.id] = ev.score_posts(posts, case.posts, contains=True)
    return run


def total(scores: Sequence[ev.PostScore]) -> ev.PostScore:
    return sum(scores, ev.PostScore())


def score_row(name: str, score: ev.PostScore, ms: Sequence[float] | None = None) -> str:
    found = max(score.found, 1)
    timing = f" {statistics.median(ms):.1f} | {percentile(ms, 95):.1f} |" if ms else ""
    return (f"| {name} | {score.precision:.3f} | {score.recall:.3f} | "
            f"{score.perfect}/{score.pages} ({score.perfect / max(score.pages, 1):.0%}) | "
            f"{score.author_correct / found:.3f} | {score.date_parsed / found:.3f} |{timing}")


def engine_table(runs: Sequence[ForumRun]) -> list[str]:
    lines = ["| engine | precision | recall | pages perfect | author correct | date parsed "
             "| ms median | ms p95 |", "|---|---|---|---|---|---|---|---|"]
    for run in runs:
        lines.append(score_row(run.engine, total(list(run.scores.values())), run.ms))
    for run in runs:
        lines.append(score_row(f"{run.engine}, segmentation only",
                               total(list(run.segmentation.values()))) + " | |")
    return lines


def family_table(runs: Sequence[ForumRun], cases: Sequence[ev.ForumCase]) -> list[str]:
    families: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        families[case.engine_family].append(case.id)
    header = " | ".join(f"{run.engine} P / R / perfect" for run in runs)
    lines = [f"| engine family | pages | posts | {header} |",
             "|---|---|---|" + "---|" * len(runs)]
    for family, ids in sorted(families.items(), key=lambda item: (-len(item[1]), item[0])):
        cells = []
        for run in runs:
            score = total([run.scores[i] for i in ids])
            cells.append(f"{score.precision:.2f} / {score.recall:.2f} / {score.perfect}")
        posts = sum(run.scores[i].gold for i in ids)
        lines.append(f"| {family} | {len(ids)} | {posts} | {' | '.join(cells)} |")
    return lines


# --- routing and dragnet comments -------------------------------------------------------------

@dataclass
class Routing:
    """Kinds Winnow gave the pages of one set, and the comment measures on dragnet."""

    set: str
    kinds: Counter[str]
    misrouted: list[str]
    comment_pages: int = 0
    comment_recall: float = 0.0
    comment_leak: float = 0.0
    false_comment_pages: int = 0


def route_forums(cases: Sequence[ev.ForumCase]) -> Routing:
    """A forum page is misrouted when it comes back as an article without comments, or as
    'other'."""
    kinds: Counter[str] = Counter()
    misrouted = []
    for case in cases:
        result = winnow.extract(case.html, case.url)
        kind = _kind_label(result)
        kinds[kind] += 1
        if kind in ("article", "other"):
            misrouted.append(case.id)
    return Routing("forums", kinds, misrouted)


def route_articles(set_name: str) -> Routing:
    """An article page without gold comments is misrouted when it comes back as a thread (a
    page with comments may be read as a discussion; WCXB's other page types are not counted).
    On dragnet, also measure the gold comments: shingle recall in `article.comments`, share
    leaked into the body."""
    kinds: Counter[str] = Counter()
    routing = Routing(set_name, kinds, [])
    recalls, leaks = [], []
    for case in ev.load_cases(set_name):
        try:
            result = winnow.extract(case.html, case.url)
        except PageError:
            kinds["refused"] += 1
            continue
        kind = _kind_label(result)
        kinds[kind] += 1
        if kind == "thread" and not case.comments and case.page_type == "article":
            routing.misrouted.append(case.id)  # wcxb's forum pages are threads
        comments = "\n\n".join(post.text for post in export_posts(result)) \
            if result.article is not None else ""
        if case.comments and case.comments.strip():
            recalls.append(ev.recall(ev.page_counts(case.comments, comments)))
            body = result.article.text if result.article is not None else ""
            leaks.append(_shared_share(case.comments, body))
        elif comments:
            routing.false_comment_pages += 1
    routing.comment_pages = len(recalls)
    routing.comment_recall = statistics.fmean(recalls) if recalls else 0.0
    routing.comment_leak = statistics.fmean(leaks) if leaks else 0.0
    return routing


def _kind_label(result: Extraction) -> str:
    if result.kind == "article" and result.article is not None and result.article.comments:
        return "article+comments"
    return result.kind


def _shared_share(gold: str, text: str) -> float:
    """The share of `gold`'s shingles that also occur in `text`."""
    want = ev.shingles(gold)
    if not want:
        return 0.0
    have = ev.shingles(text)
    return sum((want & have).values()) / sum(want.values())


def routing_table(routings: Sequence[Routing]) -> list[str]:
    lines = ["| set | pages | kinds | misrouted |", "|---|---|---|---|"]
    for routing in routings:
        kinds = ", ".join(f"{kind} {count}" for kind, count in routing.kinds.most_common())
        shown = ", ".join(routing.misrouted[:5]) + (" ..." if len(routing.misrouted) > 5 else "")
        lines.append(f"| {routing.set} | {sum(routing.kinds.values())} | {kinds} | "
                     f"{len(routing.misrouted)}{': ' + shown if shown else ''} |")
    return lines


# --- WCXB forum pages -------------------------------------------------------------------------

WCXB_ENGINES = ("winnow", "trafilatura", "trafilatura favor_precision")


def wcxb_forum_cases() -> list[ev.Case]:
    """WCXB's forum pages (page_type "forum"), both parts."""
    return [case for case in ev.load_cases("wcxb") if case.page_type == "forum"]


def thread_text(result: Extraction) -> str:
    """The text scored against WCXB's forum gold, which holds every post with its author and
    date lines: the thread's text (`threadtext.posts_text`: per post, its author line, its
    date line and its own words, quotes of the page's other posts left out, since the quoted
    post is already counted where it stands); a page read as an article gives its text
    first, then its comments so."""
    parts = [result.article.text] if result.kind != "thread" and result.article else []
    parts.append(posts_text(export_posts(result)))
    return "\n\n".join(part for part in parts if part)


def wcxb_text(engine: str, case: ev.Case) -> str:
    """One engine's text for a WCXB forum page."""
    if engine == "winnow":
        return thread_text(winnow.extract(case.html, case.url))
    import trafilatura

    precise = engine.endswith("favor_precision")
    return trafilatura.extract(case.html, url=case.url, favor_precision=precise) or ""


def wcxb_scores(cases: Sequence[ev.Case],
                engines: Sequence[str] = WCXB_ENGINES) -> dict[str, dict[str, list[float]]]:
    """Word F1 per engine and part ("tune", "check"), one value per page (0 on an error)."""
    scores: dict[str, dict[str, list[float]]] = {}
    for engine in engines:
        parts: dict[str, list[float]] = {"tune": [], "check": []}
        for case in cases:
            try:
                text = wcxb_text(engine, case)
            except (PageError, ValueError):
                text = ""
            parts[case.split].append(ev.word_f1(case.gold, text)[2])
        scores[engine] = parts
    return scores


def wcxb_table(scores: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = ["| engine | tune word F1 | check word F1 | all |", "|---|---|---|---|"]
    for engine, parts in scores.items():
        every = parts["tune"] + parts["check"]
        cells = [f"{statistics.fmean(v):.3f} ({len(v)})" if v else "-"
                 for v in (parts["tune"], parts["check"], every)]
        lines.append(f"| {engine} | {' | '.join(cells)} |")
    return lines


def wcxb_per_page(cases: Sequence[ev.Case], split: str) -> str:
    """Winnow's word F1 per page of one part (develop on tune: never list check pages)."""
    lines = []
    for case in cases:
        if case.split != split:
            continue
        result = winnow.extract(case.html, case.url)
        p, r, f = ev.word_f1(case.gold, thread_text(result))
        lines.append(f"{case.id} {f:.3f} P {p:.2f} R {r:.2f} {result.kind:8} "
                     f"posts {len(export_posts(result)):3} {case.url}")
    return "\n".join(sorted(lines, key=lambda line: line.split()[1]))


# --- report -----------------------------------------------------------------------------------

def report(runs: Sequence[ForumRun], cases: Sequence[ev.ForumCase],
           routings: Sequence[Routing], command: str,
           wcxb: dict[str, dict[str, list[float]]] | None = None) -> str:
    dragnet = next((r for r in routings if r.set == "dragnet"), None)
    lines = [
        "## Forum threads and comment sections",
        "",
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; machine: "
        f"nproc {_nproc()}, {platform.machine()}, Python {platform.python_version()}; "
        f"{_git_state()}.",
        "",
        f"Posts on forums/ ({len(cases)} pages, {sum(len(c.posts) for c in cases)} gold posts), "
        "scored as in the MiBAT paper: a gold post is found when an unused extracted post's "
        "text, whitespace removed, starts with the first 30 non-space characters of its "
        "`text_start`; a page is perfect when every gold post is found and nothing else "
        "extracted. Author correct and date parsed are shares of the found posts. Times are "
        "per page, in-process, parse included. MDR is the consecutive-record baseline of "
        "`bench/mdr.py`; trafilatura (include_comments) gives its main text and its comments "
        "as two records. The segmentation-only rows use a looser rule (the record's text "
        "contains the gold start anywhere), crediting record boundaries alone for engines "
        "that keep each record's header in its text.",
        "",
        *engine_table(runs),
        "",
        "Per engine family (precision / recall / pages perfect):",
        "",
        *family_table(runs, cases),
        "",
        "Routing: the kind Winnow gives every page (a forum page is misrouted as an article "
        "without comments or as other; an article page without gold comments is misrouted as a "
        "thread):",
        "",
        *routing_table(routings),
    ]
    if wcxb:
        lines += [
            "",
            "WCXB forum pages (`articles/wcxb`, page_type forum, split by domain into tune and "
            "check): WCXB's word F1 per page, averaged. Winnow's text is each post's author "
            "line, date line and own words (blockquoted quotes of other posts left out, as the "
            "gold gives each post once), after the article text when the page is read as an "
            "article; trafilatura's is its extracted main text.",
            "",
            *wcxb_table(wcxb),
        ]
    if dragnet is not None:
        lines += [
            "",
            f"Comments on dragnet/: {dragnet.comment_pages} pages have gold comments; mean "
            f"shingle recall of the gold comments in `article.comments` "
            f"{dragnet.comment_recall:.3f}; mean share of the gold comment shingles found in "
            f"the article body {dragnet.comment_leak:.3f}; pages without gold comments that "
            f"got comments: {dragnet.false_comment_pages}.",
        ]
    return "\n".join(lines) + "\n"


def per_page(run: ForumRun, cases: Sequence[ev.ForumCase]) -> str:
    lines = []
    for case, ms in zip(cases, run.ms, strict=True):
        score = run.scores[case.id]
        flag = "ok " if score.perfect else "BAD"
        lines.append(f"{flag} {case.id[:70]:70} gold {score.gold:3} got {score.extracted:3} "
                     f"found {score.found:3} author {score.author_correct:3} "
                     f"date {score.date_parsed:3} {ms:6.1f} ms")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default=",".join(ENGINES),
                        help=f"comma-separated, from {', '.join(ENGINES)}")
    parser.add_argument("--no-routing", action="store_true",
                        help="skip routing every article page (the slow part)")
    parser.add_argument("--per-page", action="store_true", help="print Winnow's page scores")
    parser.add_argument("--no-wcxb", action="store_true", help="skip WCXB's forum pages")
    parser.add_argument("--wcxb-tune", action="store_true",
                        help="print Winnow's word F1 per WCXB forum page of the tune part")
    parser.add_argument("--write", type=Path, metavar="RESULTS_MD",
                        help="replace the forums section of this file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    engines = [name for name in args.engines.split(",") if name]
    unknown = set(engines) - set(ENGINES)
    if unknown:
        print(f"unknown engines: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    if args.wcxb_tune:
        print(wcxb_per_page(wcxb_forum_cases(), "tune"))
        return 0
    cases = ev.forum_cases()
    runs = [run_forums(engine, cases) for engine in engines]
    if args.per_page and "winnow" in engines:
        print(per_page(runs[engines.index("winnow")], cases))
    routings = [] if args.no_routing else [route_forums(cases)] + [
        route_articles(name) for name in ev.SETS]
    wcxb_engines = [e for e in WCXB_ENGINES if e.split()[0] in engines]
    wcxb = None if args.no_wcxb else wcxb_scores(wcxb_forum_cases(), wcxb_engines)
    publish(report(runs, cases, routings, command_line("forums.py", argv), wcxb), args.write,
            SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
