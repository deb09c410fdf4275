"""The article's publication date, read from the page's sources in their order of trust.

A page states its date in several places that disagree now and then (a template's JSON-LD
carries the first publication, the page shows a later one; a meta tag holds the CMS's import
date). The date the reader shows is the one the page shows its readers, so the sources are
trusted in this order:

1. a `<time datetime>` marked as the publication date (`pubdate`, or an itemprop, class or id
   naming publication, on it or its parent);
2. microdata: an element with `itemprop="datePublished"` (its `content`, `datetime` or text);
3. JSON-LD: the schema.org Article's `datePublished`, else any schema.org node's;
4. meta tags: Open Graph, Dublin Core, Parse.ly and the other publication-date names;
5. the first other `<time datetime>` outside page furniture that is not marked, by its
   attributes or the label before it ("Updated"), as the date of a change;
6. a date shown as text near the title's heading ("December 17, 2025").

An unmarked `<time>` comes after the machine-readable sources: tried before them, it agreed
with the reference dates of the WCXB and fundus tune pages less often (it is as often a
related story's or an update's date).

Values are normalised to ISO 8601 (`normalize_date`), falling back to `winnow.dates`'s wider
reading (Unix times, month names in ten languages). Pure: never raises on odd input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime
from email.utils import parsedate_to_datetime

from lxml.html import HtmlElement

from winnow.dates import is_date_pivot, parse_date, parse_datetime_attr

_PUBLISHED_MARK_RE = re.compile(r"publish|pubdate|posted|created|issued|first", re.I)
"""Class, id or itemprop of a `<time>` (or of its parent) that names the publication date."""
_MODIFIED_MARK_RE = re.compile(r"modif|updat|edit|revis|expir|comment|reply", re.I)
"""Marks of a date that is not the publication's: a change, an expiry, a comment's."""
_CHANGE_LABEL_RE = re.compile(
    r"(?:updated|modified|edited|revised|aktualisiert|geändert|mis à jour|modifié|actualizado"
    r"|atualizado|aggiornato|bijgewerkt)\W{0,3}(?:on|at|am|le|el|em|il|op)?\W{0,3}$", re.I)
"""A label right before a `<time>` saying it gives the date of a change ("Updated <time>")."""
LABEL_CHARS = 40
"""How much of the text right before a `<time>` is read for its label."""
SHOWN_DATE_AFTER = 80
"""Elements after the title's heading searched for a shown date ("December 17, 2025")."""
SHOWN_DATE_BEFORE = 30
"""Elements before the title's heading searched for one, nearest first."""
SHOWN_DATE_CHARS = 80
"""A shown date's element holds at most this much text (a dateline, not a paragraph)."""
_META_DATE_NAME_RE = re.compile(
    r"(?:^|[^a-z])(?:published|publish|pub|publication|issued|created|release|date)"
    r"(?:[-_.:]?(?:date|time|d))?(?:$|[^a-z])|^date|datepublished|publishdate|pubdate", re.I)
"""A meta name or property holding a publication date (`og:published_time`, `pubdate`,
`DC.date.issued`, `sailthru.date`, `publish-date`, `date`)."""
_META_NOT_PUBLISHED_RE = re.compile(r"modif|updat|expir|revis|valid|review|birth|event", re.I)
"""Meta names with a date that is not the publication's."""
PRIORITY_META_KEYS = ("article:published_time", "og:published_time", "parsely-pub-date",
                      "dc:date:issued", "dcterms:issued", "dc:date", "dcterms:date")
"""Meta keys read first, in this order; other publication-date meta names follow in page order."""

_SPACED_DATETIME_RE = re.compile(r"\d{4}-\d\d-\d\d \d")
_SPACE_BEFORE_ZONE_RE = re.compile(r"\s+(?=[+-]\d\d:?\d\d$|Z$)")
_LONG_FRACTION_RE = re.compile(r"(\.\d{6})\d+")
_DATE_ONLY_RE = re.compile(r"\d{4}-\d\d-\d\d")
_WS_RE = re.compile(r"\s+")
_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%b. %d, %Y", "%d %B %Y", "%d %b %Y", "%Y/%m/%d")
"""Human date spellings accepted after ISO 8601 and RFC 2822 fail (English month names)."""


def published_date(times: Iterable[HtmlElement], root: HtmlElement,
                   ld_dates: Iterable[str | None], meta_dates: list[tuple[str, str]],
                   in_furniture: Callable[[HtmlElement], bool],
                   heading: HtmlElement | None = None) -> str | None:
    """The publication date as ISO 8601, from the first source (in the module's order of
    trust) that gives a parseable one; else a date shown as text near the title's `heading`;
    None when there is none.

    `times` are the page's `<time>` elements in document order, `ld_dates` the JSON-LD
    `datePublished` values (the Article's first), `meta_dates` the (key, content) of the
    page's date meta tags, and `in_furniture` tells page furniture (menus, comments)."""
    times = list(times)
    for value in _sources(times, root, ld_dates, meta_dates, in_furniture):
        found = normalize_date(value)
        if found:
            return found
    return shown_date(heading, in_furniture) if heading is not None else None


def shown_date(heading: HtmlElement, in_furniture: Callable[[HtmlElement], bool]
               ) -> str | None:
    """A full date shown as a short text near the title's heading: the nearest element
    after it (within SHOWN_DATE_AFTER), else before it (within SHOWN_DATE_BEFORE), whose
    text is mainly a date ("December 17, 2025", "Posted by Ann at 16.12.2025 11:15")."""
    after = heading.xpath(f"following::*[position() <= {SHOWN_DATE_AFTER}]")
    before = heading.xpath(f"preceding::*[position() <= {SHOWN_DATE_BEFORE}]")
    for el in (*after, *reversed(before)):
        if not isinstance(el.tag, str) or len(el) > 3:
            continue
        text = " ".join(el.text_content().split())
        if not text or len(text) > SHOWN_DATE_CHARS or not is_date_pivot(text):
            continue
        match = parse_date(text)
        if match is not None and not match.relative and match.iso and len(match.iso) >= 10 \
                and not in_furniture(el):
            return match.iso
    return None


def _sources(times: list[HtmlElement], root: HtmlElement, ld_dates: Iterable[str | None],
             meta_dates: list[tuple[str, str]],
             in_furniture: Callable[[HtmlElement], bool]) -> Iterator[str | None]:
    """Candidate date values, most trusted first (lazily: later ones are rarely needed)."""
    yield from (el.get("datetime") for el in times if _marked_published(el))
    yield from _microdata_dates(root)
    yield from ld_dates
    yield from _meta_values(meta_dates)
    yield from (el.get("datetime") for el in times
                if not _marked_other(el) and not in_furniture(el))


def _marks(el: HtmlElement) -> str:
    return f"{el.get('itemprop') or ''} {el.get('class') or ''} {el.get('id') or ''}"


def _marked_published(el: HtmlElement) -> bool:
    """True for a `<time>` the page flags as its publication date, on itself or its parent."""
    if el.get("pubdate") is not None:
        return True
    parent = el.getparent()
    for node in (el, parent):
        if node is None:
            continue
        marks = _marks(node)
        if _PUBLISHED_MARK_RE.search(marks) and not _MODIFIED_MARK_RE.search(marks):
            return True
    return False


def _marked_other(el: HtmlElement) -> bool:
    """True for a `<time>` marked, by its attributes or the label before it, as another date
    than the publication's (an update)."""
    parent = el.getparent()
    if any(node is not None and _MODIFIED_MARK_RE.search(_marks(node)) for node in (el, parent)):
        return True
    return bool(_CHANGE_LABEL_RE.search(_text_before(el)))


def _text_before(el: HtmlElement) -> str:
    """The last LABEL_CHARS characters of text in `el`'s parent before `el`."""
    previous = el.getprevious()
    if previous is not None:
        text = previous.text_content()[-LABEL_CHARS:] + (previous.tail or "")
    else:
        parent = el.getparent()
        text = (parent.text or "") if parent is not None else ""
    return text.strip()[-LABEL_CHARS:]


def _microdata_dates(root: HtmlElement) -> Iterator[str]:
    """Values of elements (meta tags too) with `itemprop="datePublished"`."""
    for el in root.xpath("descendant::*[@itemprop]"):  # libxml2's, not ElementPath's walk
        if (el.get("itemprop") or "").strip().lower() != "datepublished":
            continue
        value = el.get("content") or el.get("datetime") or el.text_content()
        if value and value.strip():
            yield value


def is_date_meta(key: str) -> bool:
    """True for a meta name or property that holds a publication date."""
    return bool(_META_DATE_NAME_RE.search(key)) and not _META_NOT_PUBLISHED_RE.search(key)


def _meta_values(meta_dates: list[tuple[str, str]]) -> Iterator[str]:
    """Date meta values: the well-known keys in PRIORITY_META_KEYS order, then the rest."""
    values: dict[str, str] = {}
    for key, value in meta_dates:
        values.setdefault(key, value)
    for key in PRIORITY_META_KEYS:
        if key in values:
            yield values.pop(key)
    yield from values.values()


def normalize_date(value: str | None) -> str | None:
    """Return `value` as ISO 8601 (date, or date-time to the second); None if unparseable."""
    text = _WS_RE.sub(" ", value or "").strip()
    if not text:
        return None
    parsed = _parse_date(text)
    if parsed is None:
        return parse_datetime_attr(text)
    if isinstance(parsed, datetime):
        return parsed.isoformat(timespec="seconds")
    return parsed.isoformat()


def _parse_date(text: str) -> datetime | date | None:
    """Parse ISO 8601 (with or without the `T`, `Z` or a colon in the offset) or RFC 2822."""
    iso = text.replace(" ", "T", 1) if _SPACED_DATETIME_RE.match(text) else text
    iso = _SPACE_BEFORE_ZONE_RE.sub("", iso)
    iso = _LONG_FRACTION_RE.sub(r"\1", iso)
    try:
        if _DATE_ONLY_RE.fullmatch(iso):
            return date.fromisoformat(iso)
        return datetime.fromisoformat(iso)
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None
