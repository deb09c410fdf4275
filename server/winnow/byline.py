"""The article's byline: from JSON-LD, meta tags or the page body, cleaned of "By" and dates,
and never one that only repeats the site's name.

Body bylines are found as Mozilla Readability finds them (`_isValidByline`, `rel=author`,
`itemprop=author`, a byline/author class), outside page furniture (menus, comments, sidebars).
Pure: reads lxml elements and strings, never raises on odd input.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from lxml.html import HtmlElement

from winnow.page import is_hidden

MAX_BYLINE_CHARS = 100
"""A byline element's text must be shorter than this (Readability's `_isValidByline`)."""

_WS_RE = re.compile(r"\s+")
_TOKEN_RE = re.compile(r"\W+")
_URL_RE = re.compile(r"^(?:https?:)?//\S+$", re.I)
_ENTITY_RE = re.compile(r"&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);", re.I)

MAX_SCANNED_ELEMENTS = 3000
"""Body elements searched for a byline; one further in is rarely the article's, and the
search is the one per-element Python loop here (about 1 µs per element; a third less over
the elements a page's DomTree holds than over a walk of the body, which makes each
element's Python object again)."""

_BY_PREFIX_RE = re.compile(
    r"^(?:(?:written|posted|words|story|text)\s+)?(?:by|par|por)\s*:?\s+(?=\S)"
    r"|^(?:authors?|autor(?:es)?|auteurs?|作者)\s*[:：]\s*", re.I)
_BYLINE_CLASS_RE = re.compile(r"byline|author(?!i[sz])|writtenby", re.I)
_BY_WORDS = frozenset(("by", "par", "por", "von", "door", "di", "av", "af"))
_DATE_LABEL_RE = re.compile(r"(?:last\s+)?(?:updated|published|posted|modified)\b", re.I)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_WEEKDAY = r"(?:(?:mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(?:day)?,?\s+)"
_TRAILING_DATE_RE = re.compile(
    rf"(?:[\s|,•·–—-]|(?<=[a-z]))\s*{_WEEKDAY}?"
    rf"(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}\.?\s+{_MONTH},?\s+\d{{4}}"
    r"|\d{4}-\d\d-\d\d|\d{1,2}/\d{1,2}/\d{2,4}).*$", re.I)
"""A date (and whatever follows it: time, "Updated ...") appended to an author's name."""
_TRAILING_DATE_LABEL_RE = re.compile(
    r"\s*[|,•·–—-]\s*(?:last\s+)?(?:updated|published|posted|modified)\b.*$", re.I)
"""A date label after an author's name, with or without its date ("| Last updated ...")."""

_BYLINE_KEYS = ("dc:creator", "dcterm:creator", "author", "parsely-author", "article:author")

_FURNITURE_RE = re.compile(
    r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|"
    r"gdpr|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|"
    r"sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote", re.I)
"""Readability's unlikely-candidate pattern minus `header`, where bylines usually sit."""
_MAYBE_CANDIDATE_RE = re.compile(r"and|article|body|column|content|main|shadow", re.I)
_UNLIKELY_ROLES = frozenset(("menu", "menubar", "complementary", "navigation", "alert",
                             "alertdialog", "dialog"))



def author_byline(ld_byline: str | None, meta: dict[str, str], body: Sequence[HtmlElement],
                   site_name: str | None, url: str | None) -> str | None:
    """The byline from JSON-LD, else meta tags, else the `body` (its elements in document
    order, the body's own first); None when it only repeats
    the site's name or domain: that says who published the page (the reader shows the site
    apart), not who wrote it. The body is not searched after a site-name byline: the
    bylines found there on such pages were mostly the same notice dressed up ("Author
    Posted by Soliant", "Help Net Security Sponsored") or a date."""
    byline = clean_byline(ld_byline) or clean_byline(_meta_byline(meta)) \
        or clean_byline(_body_byline(body))
    return None if byline and repeats_site_name(byline, site_name, url) else byline


def repeats_site_name(byline: str, site_name: str | None, url: str | None) -> bool:
    """True when the byline is the site's name (or a run of its words, or its initials) or,
    as one word, its domain ("Rapid7" on rapid7.com, "GitHub" for "GitHub Resources", "LTO"
    for "Legal Tribune Online", "paperium.net")."""
    words = _name_words(byline)
    if not words:
        return False
    compact = "".join(words)
    try:
        host = (urlsplit(url).hostname or "") if url else ""
    except ValueError:
        host = ""
    labels = [label for label in host.removeprefix("www.").split(".") if label]
    if labels and (compact == "".join(labels) or (len(words) == 1 and compact in labels)):
        return True
    site = _name_words(site_name or "")
    if not site:
        return False
    if _contains_run(site, words):
        return True
    initials = "".join(word[0] for word in site if word not in _NAME_LINKS)
    return len(words) == 1 and len(compact) > 1 and compact == initials


_NAME_LINKS = frozenset(("of", "the", "and", "for", "de", "la", "le", "der", "die", "und"))
"""Short words left out of a name's initials ("Centers for Disease Control" -> CDC)."""


def _name_words(text: str) -> list[str]:
    return [word for word in _TOKEN_RE.split(text.casefold()) if word]


def _contains_run(words: list[str], run: list[str]) -> bool:
    """True when `run` occurs in `words` as consecutive words."""
    size = len(run)
    return any(words[i:i + size] == run for i in range(len(words) - size + 1))


def _meta_byline(meta: dict[str, str]) -> str | None:
    """The first author named in meta tags; `article:author` is often a profile URL: skipped."""
    for key in _BYLINE_KEYS:
        value = meta.get(key)
        if value and not _URL_RE.match(value):
            return value
    return None


def _body_byline(body: Sequence[HtmlElement]) -> str | None:
    """Text of the first visible, short byline-like element outside page furniture, of the
    body's elements in document order."""
    dateline: str | None = None
    for el in body[:MAX_SCANNED_ELEMENTS + 1]:
        kind = _byline_kind(el)
        if kind is None or (kind == "dateline" and dateline is not None):
            continue
        text = _short_text(el, MAX_BYLINE_CHARS)
        if not text or in_furniture(el):
            continue
        if kind == "dateline":
            dateline = text
            continue
        text = _byline_names(el) or text
        if clean_byline(text):
            return text
    return dateline


def _short_text(el: HtmlElement, limit: int) -> str | None:
    """The element's tidied text if shorter than `limit`; stops reading early when it is not."""
    pieces: list[str] = []
    size = 0
    for piece in el.itertext():
        size += len(piece.strip())
        if size >= limit:
            return None
        pieces.append(piece)
    text = tidy_text("".join(pieces))
    return text if 0 < len(text) < limit else None


def _byline_names(el: HtmlElement) -> str | None:
    """The `itemprop=name` or `rel=author` parts of a byline element, without "By" and dates."""
    names: list[str] = []
    for sub in el.iterdescendants():
        itemprop = sub.get("itemprop") or ""
        if "name" in itemprop:
            return tidy_text(sub.text_content()) or None
        if sub.get("rel") == "author" or "author" in itemprop:
            text = tidy_text(sub.text_content())
            if text and text not in names:
                names.append(text)
    return ", ".join(names) or None


def _byline_kind(el: HtmlElement) -> str | None:
    """"author" for Readability's byline marks, "dateline" for that weaker one, else None."""
    attrib = el.attrib
    if not attrib:
        return None
    if attrib.get("rel") == "author" or "author" in attrib.get("itemprop", ""):
        return "author"
    marks = f"{attrib.get('class', '')} {attrib.get('id', '')}".lower()
    if "author" in marks or "byline" in marks or "writtenby" in marks:
        if _BYLINE_CLASS_RE.search(marks):
            return "author"
    return "dateline" if "dateline" in marks else None


def in_furniture(el: HtmlElement) -> bool:
    """True when `el` or an ancestor is hidden, or an ancestor is a menu/header/footer etc."""
    if is_hidden(el):
        return True
    for anc in el.iterancestors():
        if anc.tag in ("body", "html"):
            break
        if anc.tag == "nav" or is_hidden(anc) or (anc.get("role") or "").strip() in _UNLIKELY_ROLES:
            return True
        marks = f"{anc.get('class') or ''} {anc.get('id') or ''}"
        if (anc.tag != "a" and _FURNITURE_RE.search(marks)
                and not _MAYBE_CANDIDATE_RE.search(marks)):
            return True
    return False


def clean_byline(text: str | None) -> str | None:
    """Unescape, collapse whitespace, drop a leading "By" and a trailing date or date label
    ("| Last updated"); None if empty."""
    text = _BY_PREFIX_RE.sub("", tidy_text(text))
    if text.lower() in _BY_WORDS or _DATE_LABEL_RE.match(text):
        return None
    text = _TRAILING_DATE_LABEL_RE.sub("", _TRAILING_DATE_RE.sub("", text))
    text = text.strip(" ,|•·-–—") or text
    return text or None


def tidy_text(text: str | None) -> str:
    """Unescape leftover HTML entities and collapse whitespace."""
    if not text:
        return ""
    if "&" in text and _ENTITY_RE.search(text):
        text = html.unescape(text)
    return _WS_RE.sub(" ", text).strip()
