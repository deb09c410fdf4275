"""The text blocks of a main region and the features a block classifier reads of each.

A main region (`mainregion.main_region`: the main container less its furniture) is split
into text blocks: every piece of text belongs to its nearest block-level ancestor (a
paragraph, a list item, a table cell, a heading, a `div` ...), so the blocks partition the
region's text. Each block gets features that carry from site to site: its size, link
density, sentence marks, digits, tag and ancestry (heading, list, table, form), its place
and share in the region, whether its text repeats in the region, whether a class or id
name on its way up says noise or content (booleans over `article_names`' word lists, never
the names themselves), its neighbours' size and links, and the page's type probabilities.
Pure: no I/O. Used by `bench/blockfilter.py` (the headroom and cross-validation of a learned
block filter, which did not pay: see that script) and by `bench/articletrim.py` (the same for
the article body's blocks, which did not pay either); not part of the package.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from winnow.article_candidates import class_names
from winnow.article_names import CONTENT_WORDS, NOISE_WORDS, has_word, name_tokens
from winnow.page import HtmlElement
from winnow.pagetype import PAGE_TYPES, PageType

BLOCK_TAGS = frozenset("""
    address article aside blockquote body center dd details dialog div dl dt fieldset
    figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section
    summary table tbody td tfoot th thead tr ul""".split())
"""Tags that start a text block: text is assigned to its nearest ancestor of these."""

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
LIST_TAGS = frozenset({"ul", "ol", "dl"})
TABLE_TAGS = frozenset({"table"})
SKIPPED_TAGS = frozenset({"script", "style", "template", "noscript"})
"""Elements whose text is never shown."""

SENTENCE_MARKS = frozenset(".!?。！？;:؟")
"""Marks that end (or split) a sentence, Latin, CJK and Arabic."""

MIN_REPEAT_CHARS = 12
"""Characters from which a block's text that appears twice in the region is a repeat (a
shorter one, "Read more" or a price, repeats in content as well as in furniture)."""

_SPACE_RE = re.compile(r"\s+")
_WORD_RE = re.compile(r"\w+")


@dataclass
class Block:
    """One text block: its element, its own text (not its block descendants'), the
    characters of that text inside links, and its ancestry inside the region."""

    element: HtmlElement
    depth: int
    pieces: list[str] = field(default_factory=list)
    link_chars: int = 0
    in_heading: bool = False
    in_list: bool = False
    in_table: bool = False
    in_form: bool = False
    noise_named: bool = False
    content_named: bool = False
    leaf: bool = True
    """No block under this one holds text: it can be dropped as a whole."""

    @property
    def text(self) -> str:
        return _SPACE_RE.sub(" ", " ".join(self.pieces)).strip()


@dataclass(frozen=True)
class _Context:
    """What a walk down the region carries: the current block and the ancestry flags."""

    block: Block
    in_link: bool
    flags: tuple[bool, bool, bool, bool, bool, bool]


def region_blocks(root: HtmlElement) -> list[Block]:
    """The region's text blocks in document order, those with no text left out."""
    blocks: list[Block] = []
    first = Block(root, 0)
    blocks.append(first)
    _walk(root, _Context(first, False, (False,) * 6), 0, blocks)
    found = [b for b in blocks if b.text]
    with_text = {id(b.element) for b in found}
    for block in found:
        block.leaf = not any(id(d) in with_text for d in block.element.iterdescendants())
    return found


def _walk(el: HtmlElement, ctx: _Context, depth: int, blocks: list[Block]) -> None:
    """Assign `el`'s text and its children's (and their tails) to blocks."""
    if el.text:
        _add(ctx.block, el.text, ctx.in_link)
    for child in el:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag and tag not in SKIPPED_TAGS:
            _walk(child, _child_context(child, tag, ctx, depth + 1, blocks), depth + 1, blocks)
        if child.tail:
            _add(ctx.block, child.tail, ctx.in_link)


def _child_context(child: HtmlElement, tag: str, ctx: _Context, depth: int,
                   blocks: list[Block]) -> _Context:
    """The context of `child`: a new block when its tag starts one, with the ancestry
    flags updated by its tag and its class and id names."""
    heading, in_list, table, form, noise, content = ctx.flags
    names = name_tokens(class_names(child)) if child.attrib else ()
    flags = (heading or tag in HEADING_TAGS, in_list or tag in LIST_TAGS,
             table or tag in TABLE_TAGS, form or tag == "form",
             noise or bool(names) and has_word(names, NOISE_WORDS),
             content or bool(names) and has_word(names, CONTENT_WORDS))
    block = ctx.block
    if tag in BLOCK_TAGS:
        block = Block(child, depth, in_heading=flags[0], in_list=flags[1], in_table=flags[2],
                      in_form=flags[3], noise_named=flags[4], content_named=flags[5])
        blocks.append(block)
    return _Context(block, ctx.in_link or tag == "a", flags)


def _add(block: Block, text: str, in_link: bool) -> None:
    block.pieces.append(text)
    if in_link:
        block.link_chars += len(text.strip())


def block_features(blocks: list[Block], page_type: PageType) -> list[dict[str, float]]:
    """Each block's features (see the module's docstring), in the order of `blocks`."""
    texts = [b.text for b in blocks]
    lengths = [len(t) for t in texts]
    total = sum(lengths) or 1
    links = sum(min(b.link_chars, n) for b, n in zip(blocks, lengths, strict=True))
    counts = Counter(t.lower() for t in texts if len(t) >= MIN_REPEAT_CHARS)
    region = {"region_log_chars": math.log1p(total), "region_links": links / total,
              "region_log_blocks": math.log1p(len(blocks)),
              **{f"type_{label}": page_type.probability(label) for label in PAGE_TYPES}}
    own = [_own(b, t, n) for b, t, n in zip(blocks, texts, lengths, strict=True)]
    rows = []
    before = 0
    for k, (block, text, n) in enumerate(zip(blocks, texts, lengths, strict=True)):
        row = {**own[k], **region, "position": k / len(blocks), "chars_before": before / total,
               "share": n / total, "repeats": float(counts[text.lower()] > 1)}
        before += n
        for side, j in (("prev", k - 1), ("next", k + 1)):
            near = own[j] if 0 <= j < len(blocks) else None
            row[f"{side}_log_chars"] = near["log_chars"] if near else 0.0
            row[f"{side}_links"] = near["links"] if near else 0.0
        row["depth"] = float(block.depth)
        rows.append(row)
    return rows


def _own(block: Block, text: str, n: int) -> dict[str, float]:
    """The features of a block's own text and tag."""
    words = _WORD_RE.findall(text)
    marks = sum(1 for c in text if c in SENTENCE_MARKS)
    digits = sum(1 for c in text if c.isdigit())
    capital = sum(1 for w in words if w[:1].isupper())
    tag = block.element.tag if isinstance(block.element.tag, str) else ""
    return {"log_chars": math.log1p(n), "log_words": math.log1p(len(words)),
            "links": min(block.link_chars, n) / n if n else 0.0,
            "marks": float(marks), "mark_rate": 100 * marks / n if n else 0.0,
            "ends_mark": float(bool(text) and text[-1] in SENTENCE_MARKS),
            "digits": digits / n if n else 0.0,
            "capitals": capital / len(words) if words else 0.0,
            "mean_word": sum(map(len, words)) / len(words) if words else 0.0,
            "tag_heading": float(tag in HEADING_TAGS), "tag_li": float(tag == "li"),
            "tag_cell": float(tag in ("td", "th")), "tag_p": float(tag == "p"),
            "tag_pre": float(tag == "pre"), "tag_dl": float(tag in ("dt", "dd")),
            "in_heading": float(block.in_heading), "in_list": float(block.in_list),
            "in_table": float(block.in_table), "in_form": float(block.in_form),
            "noise_named": float(block.noise_named),
            "content_named": float(block.content_named), "leaf": float(block.leaf)}


def gold_share(text: str, gold: set[str]) -> float:
    """The share of a block's words found in the gold's words (the training label's
    measure); 1 for a block without words."""
    words = [w.lower() for w in _WORD_RE.findall(text)]
    return sum(w in gold for w in words) / len(words) if words else 1.0


UNIT_SHARE = 0.03
"""Largest share of the region's text a unit may hold: the region is split down to the
outermost elements holding at most this share (a card, a section, a form), each a unit the
filter keeps or drops whole."""


def region_units(root: HtmlElement, share: float = UNIT_SHARE) -> list[HtmlElement]:
    """The region's units (UNIT_SHARE) in document order: the outermost elements under
    `root` holding some text and at most `share` of its text, or no child element. Text
    directly in a larger element is no unit (it is always kept)."""
    limit = share * len(root.text_content())
    units: list[HtmlElement] = []
    stack = [c for c in reversed(root) if isinstance(c.tag, str)]
    while stack:
        el = stack.pop()
        if el.tag in SKIPPED_TAGS:
            continue
        chars = len(el.text_content().strip())
        if not chars:
            continue
        children = [c for c in el if isinstance(c.tag, str)]
        if chars <= limit or not children:
            units.append(el)
        else:
            stack.extend(reversed(children))
    return units


def unit_features(root: HtmlElement, units: list[HtmlElement], page_type: PageType
                  ) -> list[dict[str, float]]:
    """Each unit's features: those of the unit read as one block (its whole text) plus the
    shape of the blocks inside it (how many, how long, how many list items, headings and
    links), its ancestry's names, and its neighbours'."""
    rows = []
    for unit in units:
        blocks = region_blocks(unit)
        whole = Block(unit, _depth(unit, root), [b.text for b in blocks],
                      sum(min(b.link_chars, len(b.text)) for b in blocks),
                      noise_named=_named(unit, root, NOISE_WORDS),
                      content_named=_named(unit, root, CONTENT_WORDS), leaf=True)
        whole.in_list, whole.in_table, whole.in_form, whole.in_heading = _inside(unit, root)
        rows.append((whole, blocks))
    feats = block_features([w for w, _ in rows], page_type)
    for row, (_, blocks) in zip(feats, rows, strict=True):
        n = len(blocks) or 1
        row["log_blocks"] = math.log1p(len(blocks))
        row["mean_block"] = math.log1p(sum(len(b.text) for b in blocks) / n)
        row["li_share"] = sum(b.element.tag == "li" for b in blocks) / n
        row["headings"] = float(sum(b.element.tag in HEADING_TAGS for b in blocks))
        row["link_blocks"] = sum(b.link_chars >= 0.5 * len(b.text) for b in blocks) / n
        row["inner_noise"] = sum(b.noise_named for b in blocks) / n
    return feats


def _depth(el: HtmlElement, root: HtmlElement) -> int:
    depth = 0
    for up in el.iterancestors():
        if up is root:
            break
        depth += 1
    return depth


def _named(el: HtmlElement, root: HtmlElement, words: frozenset[str]) -> bool:
    """Whether a class or id name of `el` or an ancestor under `root` is one of `words`."""
    for node in (el, *el.iterancestors()):
        if node is root:
            return False
        if node.attrib and has_word(name_tokens(class_names(node)), words):
            return True
    return False


def _inside(el: HtmlElement, root: HtmlElement) -> tuple[bool, bool, bool, bool]:
    """Whether `el` is or is inside a list, a table, a form, a heading (under `root`)."""
    tags = set()
    for node in (el, *el.iterancestors()):
        if node is root:
            break
        tags.add(node.tag)
    return (bool(tags & LIST_TAGS) or "li" in tags, bool(tags & TABLE_TAGS),
            "form" in tags, bool(tags & HEADING_TAGS))
