"""Where a template cluster keeps an article's lead: its deck, standfirst or story highlights.

Many templates set the sentences that sum up a story (a deck under the headline, a box of
highlights) apart from the story's body, in a header or a side column before it, where a
single page's extraction, which keeps one subtree, cannot reach them without taking in the
template around them. Across a cluster's pages they show themselves by what they do: the
block at one place of the template (its chunk path, `winnow.chunks`) holds, on nearly every
page that has text there, a sentence whose words are mostly words of that page's article.
Navigation, bylines, datelines and captions are short or say little of the article; related
stories speak of other articles.

`LeadVotes` counts, per chunk path before the content root, the learned pages whose text
there is sentence-like (`MIN_LEAD_WORDS`) and those on which it also sums up the article
(`MIN_LEAD_OVERLAP`); a path is the cluster's lead once `MIN_VOTES` pages and
`CONSENSUS_SHARE` of those with a sentence there agree, and it holds a sentence on
`MIN_SLOT_SHARE` of the cluster's voting pages (a slot of the template, not a one-off). On
the cluster's next pages the extraction puts the text at that path before the article's body
(`with_leads`). Text in the page's head (its `<title>`) is never a lead. Paths are structure,
never text. Pure: no I/O.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lxml import etree
from lxml.html import HtmlElement

from winnow.chunks import Chunk
from winnow.markdown import to_text
from winnow.page import wn_id
from winnow.render import Rendered

MIN_LEAD_WORDS = 8
"""Distinct words of four letters or more the text at a path must have on a page to count as
a sentence there: a deck or a highlight is one, a label, a byline or a dateline is not."""

MIN_LEAD_OVERLAP = 0.4
"""Share of those words that must be words of the page's article for the text to sum it up
(a deck rephrases the story; a related story's headline shares a few words with it)."""

MIN_VOTES = 1
"""Learned pages whose text at a path summed up their article before the path is a lead. One
is enough: the page being read must sum up its own article there too (`lead_chunks`), so two
pages of the template agree, as a page and one learned page tell template text
(`chunks.label_with_page`); a page whose text there did not sum up its article outvotes a
lone one (`CONSENSUS_SHARE`), and a path seldom filled is no slot (`MIN_SLOT_SHARE`)."""

MIN_SLOT_SHARE = 0.5
"""Share of the cluster's voting pages (`LeadVotes.pages`) that must have a sentence at a path
for it to be the lead's slot: a deck or a highlights box is a fixed part of the template,
while text at a place few pages fill (the caption of an optional photo, a one-off box) is
not, however well it sums up the pages it is on."""

CONSENSUS_SHARE = 0.8
"""Share of the learned pages with a sentence at a path on which it summed up the article."""

TITLE_SHARE = 0.8
"""Share of a block's words in the page's title from which the block is the headline (the
article's title is shown apart from its text, as single-page extraction does)."""

MAX_PATHS = 64
"""Paths a cluster keeps counts for; the least seen go first (a bounded model)."""

_WORD_RE = re.compile(r"\w{4,}")


def words(text: str) -> set[str]:
    """The distinct lower-cased words of four characters or more of a text."""
    return {w.lower() for w in _WORD_RE.findall(text)}


def is_title(text: str, title_words: set[str]) -> bool:
    """True when most of a block's words are the page title's (the headline itself)."""
    found = words(text)
    return bool(found) and len(found & title_words) >= TITLE_SHARE * len(found)


def before(chunks: Sequence[Chunk], root: HtmlElement, title: str | None) -> dict[str, list[Chunk]]:
    """The page's chunks before the content root in document order and outside it, the
    headline aside, by chunk path. Ids are stamped in document order (`stamp_ids`), so a
    chunk is before the root when its first element's id is below the root's, and in the
    page's body when it is not below the body's: the head's `<title>` is the document's name
    for tabs and search results, never shown as the article's lead (a headline worded for
    them sums up the article as a deck does)."""
    start = wn_id(root)
    if start is None:
        return {}
    body = root if root.tag == "body" else next(root.iterancestors("body"), None)
    shown = wn_id(body) if body is not None else None
    inside = {i for el in root.iter() if isinstance(el.tag, str)
              if (i := wn_id(el)) is not None}
    title_words = words(title or "")
    found: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if not chunk.ids or chunk.ids[0] >= start or any(i in inside for i in chunk.ids):
            continue
        if shown is not None and chunk.ids[0] < shown:
            continue
        if is_title(chunk.text, title_words):
            continue
        found.setdefault(chunk.path, []).append(chunk)
    return found


def sentence_words(chunks: Iterable[Chunk]) -> set[str]:
    """The words of the chunks at one path, when they make a sentence; else none."""
    found = set().union(*(words(c.text) for c in chunks))
    return found if len(found) >= MIN_LEAD_WORDS else set()


def sums_up(lead: set[str], body_words: set[str]) -> bool:
    """True when enough of a sentence's words (`sentence_words`) are words of the article."""
    return len(lead & body_words) >= MIN_LEAD_OVERLAP * len(lead)


def page_votes(chunks: Sequence[Chunk], root: HtmlElement, title: str | None,
               body: str) -> dict[str, bool]:
    """A learned page's votes: for each path before its content root with a sentence, whether
    that sentence sums up the article text `body`."""
    body_words = words(body)
    votes: dict[str, bool] = {}
    for path, found in before(chunks, root, title).items():
        lead = sentence_words(found)
        if lead:
            votes[path] = sums_up(lead, body_words)
    return votes


def place(path: str) -> str:
    """Where a chunk path is on the page, whatever wraps it: its steps from the innermost
    element with an id on (the whole path when none has one). Some pages of a template wrap
    its highlights box in one more box, so the box fills one place under two paths."""
    steps = path.split("/")
    named = [k for k, step in enumerate(steps) if ":id=" in step]
    return "/".join(steps[named[-1]:]) if named else path


@dataclass
class LeadVotes:
    """Per chunk path: [pages with a sentence there, pages on which it summed up the article],
    and the pages that voted (whose extraction found an article, with or without a lead)."""

    counts: dict[str, list[int]] = field(default_factory=dict)
    pages: int = 0

    def add(self, votes: dict[str, bool]) -> None:
        """Count one learned page's votes (`page_votes`)."""
        self.pages += 1
        for path, sums_up in votes.items():
            entry = self.counts.setdefault(path, [0, 0])
            entry[0] += 1
            entry[1] += sums_up
        if len(self.counts) > MAX_PATHS:
            kept = sorted(self.counts.items(), key=lambda item: -item[1][0])[:MAX_PATHS]
            self.counts = dict(kept)

    def paths(self) -> frozenset[str]:
        """The paths the cluster keeps its lead at."""
        places = {path: place(path) for path in self.counts}
        filled: Counter[str] = Counter()
        for path, (seen, _) in self.counts.items():
            filled[places[path]] += seen
        return frozenset(path for path, (seen, sums_up) in self.counts.items()
                         if sums_up >= MIN_VOTES and sums_up >= CONSENSUS_SHARE * seen
                         and filled[places[path]] >= MIN_SLOT_SHARE * self.pages)

    def to_json(self) -> dict[str, Any]:
        return {"counts": [[path, seen, sums_up] for path, (seen, sums_up)
                           in self.counts.items()], "pages": self.pages}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> LeadVotes:
        """The votes `to_json` wrote; none from a model older than leads. Anything else
        raises TypeError or ValueError, which the learner reads as an unreadable model."""
        if not data:
            return cls()
        if not isinstance(data, dict):
            raise TypeError(f"lead votes must be an object, not {type(data).__name__}")
        counts = {str(path): [int(seen), int(sums_up)]
                  for path, seen, sums_up in data.get("counts", [])}
        pages = data.get("pages")  # votes saved before it: at least the most seen path's pages
        return cls(counts, int(pages) if pages is not None
                   else max((seen for seen, _ in counts.values()), default=0))


def lead_chunks(candidates: Sequence[Chunk], root: HtmlElement, title: str | None,
                body: str) -> list[Chunk]:
    """Of the page's chunks at its cluster's lead paths (`candidates`), those before its
    content root that sum up its article text `body` as the learned pages' leads did, in
    document order; a text the body already holds is not repeated."""
    body_words = words(body)
    shown = " ".join(body.split()).casefold()
    found = [c for group in before(candidates, root, title).values()
             if (lead := sentence_words(group)) and sums_up(lead, body_words)
             for c in group if c.text not in shown]
    return sorted(found, key=lambda c: c.ids[0])


def with_leads(rendered: Rendered, texts: Sequence[str]) -> Rendered:
    """The rendered body with the lead's texts as paragraphs before it."""
    root = copy.deepcopy(rendered.root)
    for index, text in enumerate(texts):
        paragraph = etree.Element("p")
        paragraph.text = text
        root.insert(index, paragraph)
    if texts and root.text and root.text.strip():
        paragraph = root[len(texts) - 1]
        paragraph.tail, root.text = root.text, None
    return Rendered(text=to_text(root), root=root, images=list(rendered.images),
                    code_classes=set(rendered.code_classes))
