"""Single-page article extraction: ECON's summary-node, made robust for today's pages.

ECON (see `econ.py`) finds the snippet-node by punctuation and backtracks to the summary-node.
On its own it fails where the paper says it does: noise that carries punctuation (footers,
comment threads, related-story teasers) keeps the backtracking climbing, and short pages give
no reliable snippet. The stages, each measured in `bench/`:

- candidates (`article_candidates`, with `article_names` for class and id tokens): what
  counts for nothing before counting;
- the climb (`article_climb`): snippet-node and backtracking with its stops;
- trimming (`article_trim`): what goes inside the summary-node;
- assembly (here): the cleaned copy, the content and noise labels, and the retry ladder that
  runs the stages again without class-name hints, then without the short-page rule, when
  the result looks wrong.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from lxml.html import HtmlElement

from winnow import econ
from winnow.article_candidates import (
    HIDING_CLASSES,
    LIST_TAGS,
    hidden_prose,
    noise_roots,
    template_roots,
)
from winnow.article_candidates import is_comments as is_comments
from winnow.article_candidates import is_noise_hint as is_noise_hint
from winnow.article_candidates import teaser_lists as teaser_lists
from winnow.article_climb import Climb, summary_node
from winnow.article_lead import lead_blocks
from winnow.article_trim import (
    MIN_TWIN_CHARS,
    ad_labels,
    author_boxes,
    comments_section,
    excluded_roots,
    join_parts,
    leading_noise,
    link_lists,
    related_section,
    signup_boxes,
    trailing_noise,
    twin_blocks,
)
from winnow.econ import TreeStats
from winnow.folded import folded_panels, unfold
from winnow.mibat_dom import page_dom
from winnow.page import Page, is_hidden, wn_id

PAGE_STATS = "econ_stats"
"""`Page.derived` key of the page's ECON counts (`page_stats`)."""

FOLDED = "folded_panels"
"""`Page.derived` key of the indices of the page's folded panels in its ECON counts."""

TEASERS = "teaser_lists"
"""`Page.derived` key (with the grouping asked for) of the indices of the page's teaser
lists in its ECON counts."""

FULL_CONFIDENCE_PUNC = 20
"""Punctuation marks of prose at which the confidence in the summary-node reaches 1."""

MIN_PANELS = 2
"""Hidden prose blocks of one tag and class from which the hidden blocks of ECON's body are
one set of folded panels to show (`_hidden_prose_in`): tabs, an accordion's answers. A lone
hidden block of prose is a notice shown on a condition (an old browser, a sign-in wall)."""


@dataclass
class ArticleContent:
    """The chosen content as a cleaned copy of `source` (the summary-node), and the `data-wn`
    ids of the outermost content and noise elements of the page."""

    content: HtmlElement
    source: HtmlElement
    content_ids: list[int]
    noise_ids: list[int]
    method: str
    confidence: float
    page_chars: int
    prose_chars: int = 0
    """Characters outside links in the kept content (what a retry must multiply)."""
    prose_punc: int = 0
    """Punctuation marks outside links in the kept content."""
    snippet_chars: int = 0
    """Prose characters of the snippet-node's text-para (0 for a page without punctuation)."""
    rules: Rules | None = None
    """The pass of the retry ladder that produced this content."""
    attempts: int = 1
    """How many passes of the ladder ran."""
    near_heading: bool = False
    """The pass looked for the snippet near the title's heading (`article_climb.Climb`)."""
    card_twins: int = 0
    """Short texts a card repeats that a main region keeps (`mainregion.main_region` with
    `drop_twins` but not `drop_card_twins`): 0 when its shown text would be the same."""


@dataclass
class PageHints:
    """What is known of a page besides its tree: the heading that shows the title (from
    metadata) and, from a learned site template, the elements whose own text it explains
    (static blocks, template text chunks)."""

    title_heading: HtmlElement | None = None
    template_noise: Sequence[HtmlElement] = ()
    keep_code: bool = False
    """The page leans to documentation: its preformatted blocks of plain text (commands,
    listings) are content, not Joint-para's noise (`article_climb.summary_node`)."""
    cards_by_record: bool = False
    """The page reads as an article: blog cards whose classes name their own post (id,
    categories, tags) are one teaser list (`teaser_lists` by record). A listing's or a
    shop's records are its content and keep the stricter grouping."""


@dataclass(frozen=True)
class Rules:
    """Which page-wide hints one extraction pass uses; the retry ladder drops them in turn."""

    class_hints: bool = True
    """Class and id names mark noise before counting (`is_noise_hint`), noise-named blocks
    after the text and Readability's class weights inside the summary-node."""
    short_page: bool = True
    """On a short page the snippet is looked for next to the title's heading (`_near`)."""


LADDER = (Rules(), Rules(class_hints=False), Rules(class_hints=False, short_page=False))
"""The passes `extract_article` tries, in order, while the result looks wrong (Readability
retries without its unlikely-candidates filter, then without class weights)."""


RETRY_PROSE_CHARS = 250
RETRY_CONFIDENCE = 0.5
"""A body with less prose than this (characters outside links: some 40 words), or a
confidence below this (fewer than 10 sentence marks), is worth a retry."""


MIN_RETRY_GAIN = 2.0
MIN_RETRY_PROSE_CHARS = 500
MIN_RETRY_DENSITY = 0.01
"""A retry replaces the result only when its body has MIN_RETRY_GAIN times the prose (and
at least MIN_RETRY_PROSE_CHARS), its snippet-node's paragraph is MIN_RETRY_GAIN times as
long (it found the article's paragraphs, not the same story plus a gallery's captions or a
rail's blurbs around it), it has MIN_RETRY_GAIN times the sentence marks, and a mark per
100 characters at least (MIN_RETRY_DENSITY: prose, not a menu): junk costs more than too
little."""


def needs_retry(found: ArticleContent | None) -> bool:
    """The default retry trigger: no body, a short body, or a low confidence."""
    return (found is None or found.prose_chars < RETRY_PROSE_CHARS
            or found.confidence < RETRY_CONFIDENCE)


def accept_retry(current: ArticleContent | None, candidate: ArticleContent | None) -> bool:
    """The strict rule a retry must pass to replace `current`: much longer and as much
    prose (see MIN_RETRY_*), and not a list (a list of links or posts the class names had
    marked is no article body)."""
    if (candidate is None or candidate.prose_chars < MIN_RETRY_PROSE_CHARS
            or candidate.source.tag in LIST_TAGS):
        return False
    if current is None or current.prose_chars == 0:
        return True
    return (candidate.prose_chars >= MIN_RETRY_GAIN * current.prose_chars
            and candidate.prose_punc >= MIN_RETRY_GAIN * current.prose_punc
            and candidate.snippet_chars >= MIN_RETRY_GAIN * current.snippet_chars
            and _density(candidate) >= MIN_RETRY_DENSITY)


def _density(found: ArticleContent) -> float:
    return found.prose_punc / max(found.prose_chars, 1)


def extract_article(page: Page, hints: PageHints | None = None,
                    retry: Callable[[ArticleContent | None], bool] | None = needs_retry
                    ) -> ArticleContent | None:
    """Return the article's content from a single page, or None when ECON finds no text.

    The first pass uses every hint (LADDER[0]). While `retry` says the best result so far
    looks wrong, the next pass of the LADDER runs, and replaces it only when
    `accept_retry` says so. `retry=None` makes one pass.
    """
    best = extract_once(page, hints, LADDER[0])
    attempts = 1
    last: tuple[Rules, ArticleContent | None] | None = None
    for rules in LADDER[1:]:
        if retry is None or not retry(best):
            break
        if last is not None and _same_pass(last[0], rules, last[1]):
            candidate = last[1]
        else:
            candidate = extract_once(page, hints, rules, rival=best)
        last = (rules, candidate)
        attempts += 1
        if accept_retry(best, candidate):
            best = candidate
    if best is not None:
        best.attempts = attempts
    return best


def _same_pass(ran: Rules, rules: Rules, found: ArticleContent | None) -> bool:
    """Whether a pass with `rules` finds what the pass with `ran` found (`found`): the rules
    differ only in the short-page rule, and that pass did not look near the title's heading
    (a pass that found nothing never did). The ladder's last rung drops that rule alone,
    and on most pages that retry it decided nothing."""
    return replace(ran, short_page=rules.short_page) == rules \
        and (found is None or not found.near_heading)


def extract_once(page: Page, hints: PageHints | None = None, rules: Rules = LADDER[0],
                 rival: ArticleContent | None = None) -> ArticleContent | None:
    """One extraction pass with the hints `rules` allows, or None when ECON finds no text;
    with the `rival` a retry must replace, None too when the pass's climb shows it cannot
    (`_may_replace`)."""
    chosen = choose_body(page, hints or PageHints(), rules, rival)
    if chosen is None:
        return None
    found_content = _build(chosen.stats, chosen.summary, chosen.drops.keys(), chosen.page_chars,
                           chosen.folded)
    found_content.rules = rules
    found_content.near_heading = chosen.climb.near_heading
    found_content.snippet_chars = chosen.climb.snippet_chars
    return found_content


@dataclass
class Chosen:
    """What one pass chose, before the clean copy is made."""

    stats: TreeStats
    """ECON's counts with the pass's exclusions."""
    page_chars: int
    """The body's characters before any exclusion."""
    climb: Climb
    summary: int
    """The summary-node after joining its parts and taking in its lead."""
    drops: dict[int, str]
    """Each subtree dropped from the summary-node, with the rule that dropped it first
    (bench/losscensus.py charges lost text to these names)."""
    folded: AbstractSet[int]
    """The folded panels of the page (`folded.folded_panels`), shown in the copy."""


def choose_body(page: Page, hints: PageHints, rules: Rules,
                rival: ArticleContent | None = None) -> Chosen | None:
    """The summary-node of one pass and what it drops, or None when ECON finds no text (or,
    with a `rival` to replace, when the climb shows the pass cannot: `_may_replace`; then
    no trimming rule runs).

    Subtrees made only of text the template explains count for nothing, as hinted noise
    does, and ECON runs on what is left.
    """
    stats = page_stats(page)
    page_chars = stats.chars[0]
    heading = stats.index.get(hints.title_heading) if hints.title_heading is not None else None
    folded = folded_indices(page, stats)
    roots = noise_roots(stats, heading, rules.class_hints, folded)
    roots.extend(page_teasers(page, stats, hints.cards_by_record))
    roots.extend(template_roots(stats, _indices(stats, hints.template_noise)))
    econ.exclude_subtrees(stats, roots)
    if heading is not None and stats.excluded[heading]:
        heading = None
    climb = summary_node(stats, heading if rules.short_page else None, hints.keep_code)
    if climb is None or rival is not None and not _may_replace(rival, stats, climb):
        return None
    summary, outside = join_parts(stats, climb.summary)
    summary, before = lead_blocks(stats, summary, heading, set(outside))
    drops = _drops(stats, climb, summary, outside + before, rules,
                   _indices(stats, page.address_fields))
    shown = _hidden_prose_in(page, stats.elements, summary, drops)
    for i in shown:
        del drops[i]
    return Chosen(stats, page_chars, climb, summary, drops, folded | shown)


def _may_replace(rival: ArticleContent, stats: TreeStats, climb: Climb) -> bool:
    """Whether a pass's body may pass `accept_retry` against `rival`, known from its climb
    before any trimming: the body's prose (characters and marks outside links) lies in the
    prose the pass's exclusions left the page, and its snippet is the climb's. A pass that
    looked near the title's heading always goes on: the ladder's next rung, which drops only
    that rule, reuses a pass's answer (`_same_pass`) only when it did not. Of WCXB's 201
    retry passes on tune pages, 135 stop here (9 of the 201 replace their rival)."""
    if climb.near_heading:
        return True
    prose = stats.content_chars(0)
    if prose < MIN_RETRY_PROSE_CHARS:
        return False
    return rival.prose_chars == 0 or (
        prose >= MIN_RETRY_GAIN * rival.prose_chars
        and stats.content_punc(0) >= MIN_RETRY_GAIN * rival.prose_punc
        and climb.snippet_chars >= MIN_RETRY_GAIN * rival.snippet_chars)


def _hidden_prose_in(page: Page, elements: Sequence[HtmlElement], summary: int,
                     drops: dict[int, str]) -> frozenset[int]:
    """The subtrees the body's exclusions dropped that are folded panels of one set: hidden
    prose (`article_candidates.hidden_prose`) of which the body holds MIN_PANELS or more of
    one tag and class, a tab set's panels or an accordion's answers that the page opens by a
    script it does not name. The body shows them, as the page's main region does: a landing
    page's features and FAQ answers are its content, which ECON counted for nothing (hidden
    is noise before extraction) though it took the section around them. A lone hidden block
    is a notice the page shows on a condition (an old browser, no access), not a panel."""
    excluded = {i for i, rule in drops.items()
                if rule == "excluded" and is_hidden(elements[i])}
    if not excluded:  # most bodies: no copy of the page's counts before exclusion
        return frozenset()
    stats = page_stats(page)
    sets: dict[tuple[str, str], list[int]] = {}
    for el in hidden_prose(stats, summary):
        i, shape = stats.index[el], (el.tag, " ".join((el.get("class") or "").split()))
        if i in excluded and shape[1]:
            sets.setdefault(shape, []).append(i)
    return frozenset(i for panels in sets.values() if len(panels) >= MIN_PANELS for i in panels)


def _drops(stats: TreeStats, climb: Climb, summary: int, outside: list[int],
           rules: Rules, fields: AbstractSet[int]) -> dict[int, str]:
    """The trimming rules in turn: each subtree they drop from the summary-node, named by
    the first rule that drops it."""
    drops: dict[int, str] = {}

    def add(rule: str, items: Iterable[int]) -> None:
        for i in items:
            drops.setdefault(i, rule)

    snippet = climb.snippet
    add("pruned", (i for i in climb.pruned if econ.is_descendant(stats, i, summary)))
    add("outside", outside)
    add("excluded", excluded_roots(stats, summary))
    add("link_lists", link_lists(stats, summary, snippet, rules.class_hints))
    add("trailing", trailing_noise(stats, summary, snippet, drops.keys(), rules.class_hints))
    add("leading", leading_noise(stats, summary, snippet, drops.keys()))
    add("comments", comments_section(stats, summary, snippet))
    add("related", related_section(stats, summary, snippet))
    add("ad_labels", ad_labels(stats, summary))
    add("author_box", author_boxes(stats, summary, snippet))
    add("signup", signup_boxes(stats, summary, snippet, fields))
    add("twins", twin_blocks(stats, summary, drops.keys(), MIN_TWIN_CHARS, sections=True))
    return drops


def page_stats(page: Page) -> TreeStats:
    """ECON's counts of the page's body before any exclusion: collected once per page (every
    pass of the retry ladder and the main region read the same tree), each caller gets its
    own copy (`econ.copy_stats`)."""
    stats = page.derived.get(PAGE_STATS)
    if stats is None:
        stats = page.derived[PAGE_STATS] = _collect_stats(page)
    return econ.copy_stats(stats)


def _collect_stats(page: Page) -> TreeStats:
    """ECON's counts from the arrays MiBAT's DOM tree read the body into (the same elements
    in the same order), or by a walk of its own when the body held comments."""
    dom = page_dom(page)
    read = dom.read
    if read is None or read.raw_texts is None or read.raw_tails is None \
            or read.raw_tags is None:
        return econ.collect_stats(page.body)
    tree = read.tree
    assert tree.elements is not None
    stats = econ.stats_from_arrays(tree.elements, read.index, tree.parents, read.raw_texts,
                                   read.raw_tails, read.raw_tags)
    stats.hidden = dom.hiding
    return stats


def folded_indices(page: Page, stats: TreeStats) -> frozenset[int]:
    """The indices of the page's folded panels (`folded.folded_panels`), found once per page:
    every pass of the retry ladder reads them, and the main region (`mainregion`) those
    under its root."""
    found = page.derived.get(FOLDED)
    if found is None:
        dom = page_dom(page)
        named = (dom.elements[v] for v in dom.named)
        found = page.derived[FOLDED] = frozenset(_indices(stats, folded_panels(page, page.body,
                                                                              named)))
    return found


def page_teasers(page: Page, stats: TreeStats, by_record: bool = False) -> tuple[int, ...]:
    """The page's teaser lists (`teaser_lists`) in `stats`, a copy of its ECON counts before
    any exclusion (`page_stats`), found once per page: every pass of the retry ladder
    (`choose_body`) excludes the same. The two groupings are kept apart."""
    key = f"{TEASERS}:{'records' if by_record else 'classes'}"
    found = page.derived.get(key)
    if found is None:
        found = page.derived[key] = tuple(teaser_lists(stats, by_record))
    return found


def _indices(stats: TreeStats, elements: Iterable[HtmlElement]) -> set[int]:
    return {i for i in map(stats.index.get, elements) if i is not None}


def _build(stats: TreeStats, summary: int, drop: AbstractSet[int],
           page_chars: int, folded: AbstractSet[int]) -> ArticleContent:
    """Copy the summary-node without the dropped subtrees (copy and original pair up in
    document order), its `folded` panels shown, and label the page's outermost content and
    noise elements."""
    original = stats.elements[summary]
    clone = copy.deepcopy(original)
    clone.tail = None
    twins = list(clone.iter())
    for i in folded:
        if summary <= i < stats.end[summary]:
            unfold(twins[i - summary], HIDING_CLASSES)
    doomed = [twins[i - summary] for i in sorted(drop) if summary <= i < stats.end[summary]]
    for twin in doomed:
        if twin.getparent() is not None:
            twin.drop_tree()
    content, noise = label_regions(stats, summary, drop)
    confidence = min(1.0, stats.content_punc(summary) / FULL_CONFIDENCE_PUNC)
    prose_chars = sum(stats.content_chars(i) for i in content)
    prose_punc = sum(stats.content_punc(i) for i in content)
    return ArticleContent(clone, original, _ids(stats, content), _ids(stats, noise), "econ",
                          confidence, page_chars, prose_chars, prose_punc)


def label_regions(stats: TreeStats, summary: int,
                  drop: AbstractSet[int]) -> tuple[list[int], list[int]]:
    """Outermost elements that are all content, and outermost ones that are all noise.

    Content lies in the summary-node outside dropped subtrees; noise is every dropped subtree
    and everything outside the summary-node that is not one of its ancestors.
    """
    end = stats.end[summary]
    has_noise = [False] * (end - summary)
    for i in range(end - 1, summary - 1, -1):
        if i in drop:
            has_noise[i - summary] = True
        if has_noise[i - summary] and i > summary:
            has_noise[stats.parent[i] - summary] = True
    content: list[int] = []
    noise: list[int] = []
    i = summary
    while i < end:
        if i in drop:
            noise.append(i)
            i = stats.end[i]
        elif not has_noise[i - summary]:
            content.append(i)
            i = stats.end[i]
        else:
            i += 1
    ancestors = set()
    a = summary
    while a >= 0:
        ancestors.add(a)
        a = stats.parent[a]
    noise.extend(i for i in range(1, len(stats.elements))
                 if stats.parent[i] in ancestors and i not in ancestors
                 and not summary <= i < end)
    return content, noise


def _ids(stats: TreeStats, indices: list[int]) -> list[int]:
    ids = (wn_id(stats.elements[i]) for i in indices)
    return sorted(i for i in ids if i is not None)
