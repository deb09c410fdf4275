"""Reader-text tidying: what in the content is a caption or a control; in the clean tree,
duplicate figures and the lines that repeat the header (title, byline, date).

Recognised by structure, not by lists of English words:

* a **caption region** is a `<figcaption>`, a `<figure>` holding an image, or an element whose
  class or id names a caption or a photo credit as a whole token (`wp-caption-text`,
  `imageCredit`, `photo_credit`); its text stays in the reader's HTML and Markdown, beside its
  image, and is left out of `article.text`, which gives the prose;
* a **control** is what a reader clicks rather than reads: an ARIA widget role (button, tab,
  switch...), a toggle (`aria-expanded`, `aria-controls`, `aria-pressed`), or a short generic
  element (div, span...) with a click handler or put in the tab order (`tabindex` 0 or more;
  -1 only makes a scroll target focusable); its text ("hide
  caption", "expand", "show more") never reaches the reader;
* a **duplicate** is an image shown again (a gallery's second copy, a lazy loader's two
  copies) or a caption whose text was already shown: the later copy is dropped.
"""

from __future__ import annotations

import functools
import re

import lxml.etree as etree

from winnow.dates import parse_date
from winnow.page import HEADING_TAGS, HtmlElement

CAPTION_TOKENS = frozenset({"caption", "captions", "figcaption", "credit", "credits",
                            "photocredit", "imagecredit"})
"""Class or id tokens that name a caption or a photo credit."""

CAPTION_MAX_CHARS = 1500
"""A region named as a caption holds at most this much text; a longer one is not a caption
(a layout that reuses the word), so its text stays."""

CONTROL_ROLES = frozenset({"button", "switch", "tab", "tablist", "menuitem", "checkbox",
                           "radio", "slider", "spinbutton", "toolbar", "menubar", "menu"})
"""ARIA roles of widgets: things to operate, not to read."""

TOGGLE_ATTRS = ("aria-expanded", "aria-controls", "aria-pressed", "aria-haspopup")
"""Attributes that make an element a toggle for another part of the page."""

CONTROL_ATTRS = frozenset({"role", *TOGGLE_ATTRS, "onclick", "tabindex"})
"""The attributes `is_control` reads: an element without any of them is no control."""

CLICKABLE_TAGS = frozenset({"div", "span", "li", "label", "i", "b", "em", "strong", "small",
                            "font"})
"""Generic elements that a click handler or a `tabindex` turns into a control; paragraphs,
headings, links and images keep their role whatever scripts hang on them."""

CONTROL_MAX_CHARS = 60
"""A widget, toggle, clickable or focusable element with more text than this holds content
(an accordion whose panels carry role=tab, a card that opens on click), so it is kept."""

CAPTIONS_ARE_THE_TEXT = 0.5
"""When captions hold more than this share of the body's text (a slideshow whose story is
told in its captions), they stay in the plain text: without them it would say nothing."""

BYLINE_BLOCKS = 3
"""How many leading blocks are looked at for a byline line."""

BYLINE_EXTRA_WORDS = 8
"""Words a byline line may carry besides the name ("By", the outlet, a date)."""

HEADER_BLOCKS = 4
"""How many leading blocks of the body may repeat the header's date."""

DATELINE_CHARS = 120
"""A dateline is at most this long."""

DATELINE_EXTRA_WORDS = 4
"""Words a dateline holds besides its date ("Last updated", "By Jane Doe")."""

PROSE_WORDS = 12
"""A block with this many words is prose: the header's lines come before it."""

CAPTION_MARK = "data-wn-caption"
"""Attribute on the clean tree's inline wrapper around caption content; `to_text` leaves such
content out and the sanitizer strips the wrapper from the HTML."""

_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")
_TOKEN_SPLIT_RE = re.compile(r"[^a-z]+")
_WORD_RE = re.compile(r"\w+")
_SIZE_SUFFIX_RE = re.compile(r"-\d{2,4}x\d{2,4}(?=\.\w{3,4}$)")
_LETTERS_RE = re.compile(r"[^\W\d_]+")
_CLOCK_RE = re.compile(r"\b\d{1,2}:\d\d(?::\d\d)?(?:\s?[aApP]\.?\s?[mM]\b\.?)?(?:\s+[A-Z]{2,4}\b)?")


def name_tokens(value: str) -> set[str]:
    """The whole words of class or id names: split on `-`, `_`, digits and camelCase."""
    return {token for token in _TOKEN_SPLIT_RE.split(_CAMEL_RE.sub(" ", value).lower())
            if token}


CAPTION_TAGS = frozenset({"figcaption", "figure"})
"""The tags by which `is_caption_region` holds for an element without reading its names."""

CAPTION_ATTRS = frozenset({"class", "id"})
"""The attributes whose names `is_caption_region` reads: an element with none of them and a
tag outside CAPTION_TAGS is no caption region."""


def is_caption_region(el: HtmlElement) -> bool:
    """True for an element whose content is an image's caption or credit (see the module)."""
    tag = el.tag
    if tag == "figcaption":
        return True
    if tag == "figure":
        return next(el.iter("img", "picture"), None) is not None
    names = f"{el.get('class') or ''} {el.get('id') or ''}"
    if not names.strip() or not _names_caption(names):
        return False
    return _short_text(el, CAPTION_MAX_CHARS)


@functools.lru_cache(maxsize=8192)
def _names_caption(names: str) -> bool:
    """Whether class and id names name a caption (cached: a page repeats its class names)."""
    return not CAPTION_TOKENS.isdisjoint(name_tokens(names))


def is_control(el: HtmlElement) -> bool:
    """True for a button, toggle or other widget whose text is an instruction, not content."""
    attrib = el.attrib
    if not attrib:
        return False
    widget = (attrib.get("role") or "").strip().lower() in CONTROL_ROLES
    toggle = any(name in attrib for name in TOGGLE_ATTRS)
    clickable = el.tag in CLICKABLE_TAGS and (
        "onclick" in attrib or not (attrib.get("tabindex") or "-").strip().startswith("-"))
    return (widget or toggle or clickable) and _short_text(el, CONTROL_MAX_CHARS)


def _short_text(el: HtmlElement, limit: int) -> bool:
    """True when the element's text is at most `limit` characters (read no further)."""
    size = 0
    for piece in el.itertext():
        size += len(piece.strip())
        if size > limit:
            return False
    return True


# --- the clean tree ---------------------------------------------------------------------------

def captions_are_the_text(root: etree._Element, prose: str) -> bool:
    """True when the caption content of the clean tree outweighs `prose`, its text without
    captions (see CAPTIONS_ARE_THE_TEXT); then the caption marks are removed, so the text
    keeps the captions."""
    marks = [span for span in root.iter("span") if span.get(CAPTION_MARK) is not None]
    caption_chars = sum(len(" ".join(all_text(span).split())) for span in marks)
    if caption_chars <= CAPTIONS_ARE_THE_TEXT * (caption_chars + len(prose)):
        return False
    for span in marks:
        del span.attrib[CAPTION_MARK]
    return True


def drop_duplicate_figures(root: etree._Element) -> None:
    """Drop images shown earlier in the clean tree (same URL, the query and a resizer's size
    suffix aside: `photo-300x200.jpg` is `photo.jpg`), and caption text already shown; a
    block left without text or image goes with them."""
    seen_images: set[str] = set()
    for img in list(root.iter("img")):
        key = _SIZE_SUFFIX_RE.sub("", (img.get("src") or "").split("?", 1)[0].split("#", 1)[0])
        if key in seen_images:
            _remove_with_empty_parents(img, root)
        else:
            seen_images.add(key)
    seen_captions: set[str] = set()
    for caption in list(root.iter("span")):
        if caption.get(CAPTION_MARK) is None:
            continue
        key = " ".join(all_text(caption).split()).casefold()
        if not key:
            continue
        if key in seen_captions:
            _remove_with_empty_parents(caption, root)
        else:
            seen_captions.add(key)


def _remove_with_empty_parents(el: etree._Element, root: etree._Element) -> None:
    """Remove `el` (its tail kept), then each ancestor below `root` left with no text and no
    image."""
    parent = el.getparent()
    _remove_keeping_tail(el)
    while parent is not None and parent is not root and not _has_content(parent):
        grand = parent.getparent()
        _remove_keeping_tail(parent)
        parent = grand


def _has_content(el: etree._Element) -> bool:
    return bool(all_text(el).strip()) or next(el.iter("img", "math"), None) is not None


def _remove_keeping_tail(el: etree._Element) -> None:
    parent, previous, tail = el.getparent(), el.getprevious(), el.tail
    if parent is None:
        return
    parent.remove(el)
    if tail and tail.strip():
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


def all_text(el: etree._Element) -> str:
    """Return all the text inside an element (its tail excluded)."""
    return etree.tostring(el, method="text", encoding="unicode", with_tail=False)


# --- the header's lines repeated in the body ----------------------------------------------------

def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.casefold())


def drop_title_heading(root: etree._Element, title: str) -> None:
    """Remove the first heading, or a first paragraph set as one (`<div class="headline">`),
    when it repeats the title the reader shows separately."""
    key = _words(title)
    if not key:
        return
    heading = next(root.iter(*HEADING_TAGS), None)
    first = next(iter(root), None)
    for block in (heading, first if first is not None and first.tag == "p" else None):
        if block is not None and _words(all_text(block)) == key:
            _remove_keeping_tail(block)
            return


def drop_byline_block(root: etree._Element, byline: str) -> None:
    """Remove a short block among the first ones that only gives the byline ("By Jane Doe,
    Reuters"), which the reader shows separately, as it does the title."""
    key = _words(byline)
    if not key:
        return
    for block in list(root)[:BYLINE_BLOCKS]:
        words = _words(all_text(block))
        if len(words) > len(key) + BYLINE_EXTRA_WORDS:
            continue
        if words[:len(key)] == key or words[1:len(key) + 1] == key:
            _remove_keeping_tail(block)
            return


def is_dateline(text: str) -> bool:
    """True when a short text is mainly a full date: what is left beside the date and clock
    times ("3:42 PM ET") is at most DATELINE_EXTRA_WORDS words (a label, "By" and a name)."""
    if len(text) > DATELINE_CHARS:
        return False
    text = _CLOCK_RE.sub(" ", text)
    match = parse_date(text)
    if match is None or match.relative or not match.iso or len(match.iso) < 10:
        return False
    rest = text[:match.start] + " " + text[match.end:]
    return len(_LETTERS_RE.findall(rest)) <= DATELINE_EXTRA_WORDS


def drop_leading_datelines(root: etree._Element) -> None:
    """Remove the body's leading datelines ("Updated 3:42 PM ET, March 7, 2017", "By Jane
    Doe | 12.03.2019", "Published: 5 May 2020"): the reader shows the date in its header.
    Blocks are looked at up to the first one of prose, within HEADER_BLOCKS; without prose
    after them, they are the body and stay."""
    datelines = []
    for block in list(root)[:HEADER_BLOCKS]:
        text = " ".join(all_text(block).split())
        if not text:
            continue
        if is_dateline(text):
            datelines.append(block)
        elif len(text.split()) >= PROSE_WORDS:
            for dateline in datelines:
                _remove_keeping_tail(dateline)
            return
