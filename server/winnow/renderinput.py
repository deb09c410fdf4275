"""What the reader renderer reads off the input page: safe URLs, images' real sources (lazy
loading, srcset, <picture>), whether a table holds data or lays out the page, the attributes
a kept element keeps, and code blocks' text and language.

Pure functions over lxml elements and strings; `winnow.render` builds the clean tree with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

import lxml.etree as etree

from winnow.markdown import MATHML_ATTRIBUTES
from winnow.page import HtmlElement

URL_SCHEMES = frozenset({"http", "https", "mailto"})  # after resolving against the page URL
MAX_SPAN = 1000  # largest colspan/rowspan kept
DATA_TABLE_ROWS = 10  # a table with this many rows holds data (Readability)
DATA_TABLE_COLUMNS = 4  # ... or more columns than this
DATA_TABLE_CELLS = 10  # ... or more cells than this
LAYOUT_BLOCKS = ("p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "blockquote", "pre")
"""Blocks whose presence in a small table's cells says the table lays out a page."""

LAZY_SRC_ATTRS = ("data-src", "data-original", "data-lazy-src", "data-lazy", "data-url",
                  "data-original-src", "data-hi-res-src", "data-full-src", "data-actualsrc",
                  "data-echo")
"""Attributes lazy-loading scripts read the real image URL from, most common first."""
SRCSET_ATTRS = ("data-srcset", "data-lazy-srcset", "srcset")

_PLACEHOLDER_RE = re.compile(  # file names like blank.gif, lazy-placeholder.png, spacer_1x1.gif
    r"(?:^|[/_.-])(?:(?:blank|placeholder|spacer|transparent|1x1)(?:[\d_.-][^/]*)?|"
    r"pixel|lazy|loading|loader|grey|gray|empty)\.(?:gif|png|svg|jpe?g|webp)$")
THEME_ASSET_RE = re.compile(
    r"(?:^/(?:[^/]+/)?(?:themes|plugins)/|/wp-content/(?:themes|plugins)/|/sites/[^/]+/themes/"
    r"|/mt-static/).*\.(?:gif|png|jpe?g|svg|webp)$", re.I)
"""Image files in the folders of a site's theme and plugins (WordPress, Drupal, Movable Type):
the template's share buttons, icons and decorations; articles' images live in uploads, and a
theme's resizing script (thumb.php?src=...) serves them."""
_IMAGE_URL_RE = re.compile(r"^\S+\.(?:jpe?g|png|webp|gif|avif)(?:[?#]\S*)?$", re.I)
_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_CONTROL_RE = re.compile(r"[\x00-\x20\x7f]+")
_PLAIN_PATH_RE = re.compile(r"^/(?!/)[^\s\\]*$")
_ABSOLUTE_HTTP_RE = re.compile(r"^https?://[^\s\\/?#]+(?:[/?#][^\s\\]*)?$", re.I)
_URL_NOISE = str.maketrans("", "", "\t\n\r")
_NON_SPACE_RE = re.compile(r"\S+")
_LANG_RE = re.compile(r"^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$")
_CODE_LANG_RE = re.compile(r"(?:^|\s)(?:lang(?:uage)?-|highlight-(?:source-)?)([\w+#.-]{1,30})")


def safe_url(url: str | None, base_url: str | None) -> str | None:
    """Return `url` made absolute against `base_url`; None when empty or not http(s)/mailto."""
    url = (url or "").translate(_URL_NOISE).strip()
    match = _SCHEME_RE.match(_CONTROL_RE.sub("", url))
    if not url or (match and match.group(1).lower() not in URL_SCHEMES):
        return None
    try:
        absolute = urljoin(base_url, url) if base_url else url
    except ValueError:
        return None
    match = _SCHEME_RE.match(absolute)
    return absolute if match is None or match.group(1).lower() in URL_SCHEMES else url


def srcset_candidates(srcset: str) -> Iterator[tuple[str, int, float]]:
    """Yield (url, kind, size) per candidate (kind 2: width, 1: density); URLs may hold commas."""
    pos, end = 0, len(srcset)
    while (match := _NON_SPACE_RE.search(srcset, pos)) is not None:
        url, pos = match.group().lstrip(","), match.end()
        descriptor = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = srcset.find(",", pos)
            comma = end if comma < 0 else comma
            descriptor, pos = srcset[pos:comma], comma + 1
        kind, size = 0, 0.0
        for token in descriptor.split():
            unit = token[-1:].lower()
            if unit in ("w", "x") and token[:-1].replace(".", "", 1).isdigit():
                kind, size = (2 if unit == "w" else 1), float(token[:-1])
                break
        if url and not is_placeholder(url):
            yield url, kind, size


def best_srcset_url(*srcsets: str, widths_only: bool = False) -> str | None:
    """Return the widest (else densest, else first) candidate URL across srcset values."""
    best, best_key = None, (0 if widths_only else -1, -1.0)
    for srcset in srcsets:
        for url, kind, size in srcset_candidates(srcset):
            if (kind, size) > best_key and (kind == 2 or not widths_only):
                best, best_key = url, (kind, size)
    return best


def is_placeholder(url: str) -> bool:
    """True for URLs lazy loaders put in src before the real one: data URIs, blank gifs..."""
    url = url.strip().lower()
    if not url or url.startswith(("data:", "about:")):
        return True
    return _PLACEHOLDER_RE.search(url.split("?", 1)[0].split("#", 1)[0]) is not None


def image_src(img: HtmlElement) -> str | None:
    """Return an image's real URL: src, else a lazy-loading attribute, else None."""
    src = img.get("src")
    if src and not is_placeholder(src):
        return src
    for attr in LAZY_SRC_ATTRS:
        value = img.get(attr)
        if value and not is_placeholder(value):
            return value
    best = best_srcset_url(*(img.get(attr) or "" for attr in SRCSET_ATTRS))
    if best:
        return best
    for attr, value in img.items():
        if attr.startswith("data-") and _IMAGE_URL_RE.match(value.strip()):
            return value.strip()
    return None


def picture_src(picture: HtmlElement, img: HtmlElement | None) -> str | None:
    """Return a <picture>'s widest width-described candidate, else its img's own source."""
    srcsets = [node.get(attr) or "" for node in picture.iter("source", "img")
               for attr in SRCSET_ATTRS]
    best = best_srcset_url(*srcsets, widths_only=True)
    if best is None and img is not None:
        best = image_src(img)
    return best or best_srcset_url(*srcsets)


class UrlResolver:
    """`safe_url` against one page's base URL, memoized, with fast paths for common shapes."""

    def __init__(self, base_url: str | None) -> None:
        self.base_url = base_url
        self.urls: dict[str, str | None] = {}
        parts = urlsplit(base_url) if base_url else None
        self.origin = f"{parts.scheme}://{parts.netloc}" if parts and parts.netloc and \
            parts.scheme.lower() in ("http", "https") else None

    def resolve(self, url: str | None) -> str | None:
        """Return `safe_url(url, base_url)`."""
        result = self.urls.get(url, "") if url else None
        if url and result == "":
            if _ABSOLUTE_HTTP_RE.match(url) and "/." not in url:
                result = url
            elif self.origin and _PLAIN_PATH_RE.match(url) and "/." not in url:
                result = self.origin + url
            else:
                result = safe_url(url, self.base_url)
            self.urls[url] = result
        return result


def is_layout_table(table: HtmlElement) -> bool:
    """Whether a table lays out the page rather than holding data, after Readability's
    `_isDataTable`: a presentation role or a nested table say layout; a summary, a caption,
    header cells or column groups say data; a single row or column is layout; a table of
    more than DATA_TABLE_CELLS cells (or DATA_TABLE_ROWS rows, or more than
    DATA_TABLE_COLUMNS columns) is data. Another small table is layout only when its cells
    hold blocks (paragraphs, headings, lists): a 2x2 grid of words stays a table."""
    if (table.get("role") or "").lower() in ("presentation", "none"):
        return True
    if table.get("summary"):
        return False
    caption = next(table.iter("caption"), None)
    if caption is not None and caption.text_content().strip():
        return False
    if any(True for _ in table.iter("col", "colgroup", "tfoot", "thead", "th")):
        return False
    if any(True for _ in table.iterdescendants("table")):
        return True
    rows = [tr for tr in table.iter("tr") if next(tr.iterancestors("table"), None) is table]
    columns = max((_row_span(tr) for tr in rows), default=0)
    if len(rows) <= 1 or columns <= 1:
        return True
    if len(rows) >= DATA_TABLE_ROWS or columns > DATA_TABLE_COLUMNS \
            or len(rows) * columns > DATA_TABLE_CELLS:
        return False
    return any(True for _ in table.iter(*LAYOUT_BLOCKS))


def _row_span(tr: HtmlElement) -> int:
    """Columns a row covers, colspans counted."""
    total = 0
    for cell in tr:
        if cell.tag in ("td", "th"):
            total += min(cell_span(cell, "colspan") or 1, MAX_SPAN)
    return total


def cell_span(cell: HtmlElement, name: str) -> int | None:
    """A cell's colspan or rowspan as a positive number, or None when it is missing or no
    such number."""
    value = (cell.get(name) or "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


# --- elements' attributes and code ----------------------------------------------------------

def common_attrs(el: HtmlElement) -> dict[str, str]:
    """Return an element's valid lang and dir attributes."""
    lang, direction = (el.get("lang") or "").strip(), (el.get("dir") or "").strip().lower()
    attrs = {"lang": lang} if lang and _LANG_RE.match(lang) else {}
    if direction in ("ltr", "rtl", "auto"):
        attrs["dir"] = direction
    return attrs


def block_attrs(el: HtmlElement, tag: str) -> dict[str, str]:
    """Return the attributes kept on a block: spans on cells, numbering on ordered lists."""
    attrs = common_attrs(el)
    if tag == "td" or tag == "th":
        for name in ("colspan", "rowspan"):
            span = cell_span(el, name)
            if span is not None and 1 < span <= MAX_SPAN:
                attrs[name] = str(span)
    elif tag == "ol":
        start = (el.get("start") or "").strip()
        if start.lstrip("-").isdigit() and len(start) < 10 and int(start) != 1:
            attrs["start"] = str(int(start))
        if el.get("reversed") is not None:
            attrs["reversed"] = ""
    return attrs


def mathml_attrs(el: HtmlElement) -> dict[str, str]:
    return {name: " ".join(value.split()) for name, value in el.attrib.items()
            if name in MATHML_ATTRIBUTES}


def has_image(el: HtmlElement | None) -> bool:
    """True when `el` is or holds an image."""
    return el is not None and next(el.iter("img", "picture"), None) is not None


def code_language(pre: HtmlElement) -> str | None:
    """Return the language a code block declares (language-x, lang-x, data-lang...)."""
    for node in (pre, next(pre.iter("code"), None), pre.getparent()):
        if node is not None:
            declared = (node.get("data-lang") or node.get("data-language") or "").strip()
            match = _CODE_LANG_RE.search(f"{node.get('class') or ''} lang-{declared}")
            if match:
                return match.group(1).lower()
    return None


PRE_LINE_XPATH = "descendant::text() | descendant::br | descendant::div | descendant::p"
"""What a <pre>'s text is made of: its text, its <br>s, and the blocks a highlighter writes a
code line in (`<div class="line">`, a line-number gutter beside a line's `<div>`)."""


def pre_text(pre: HtmlElement) -> str:
    """Return a <pre>'s text verbatim, <br> as newline, without the newline after <pre>. A
    block (<div>, <p>) starts a new line as a browser shows it: a highlighter that writes each
    line in a block, with no newline of its own between, or a line number before it, would
    otherwise glue the lines and numbers into one run of words ("1composer")."""
    parts: list[str] = []
    for node in pre.xpath(PRE_LINE_XPATH):
        if not isinstance(node, etree._Element):
            parts.append(node)
        elif node.tag == "br":
            parts.append("\n")
        elif parts and not parts[-1].endswith("\n"):
            parts.append("\n")
    text = "".join(parts)
    if "\n" not in text:
        text = "\n".join(_line_spans(pre)) or text
    return text.replace("\r\n", "\n").replace("\xa0", " ").removeprefix("\n").rstrip()


def _line_spans(pre: HtmlElement) -> list[str]:
    """The texts of a one-line <pre>'s rows: a minified highlighter's output writes each
    code line in an inline element of one class (Shiki's `<span class="line">`) with no
    newline between, which the page's style shows as lines. The rows are the children, at
    the first level below the <pre>'s single wrappers (`<code>`), that are two or more
    elements of one tag and class with nothing between them, not even a space (a line's
    tokens of one class are spaced); none when there are no such rows."""
    node = pre
    while len(node) == 1 and not (node.text or "").strip():
        node = node[0]
    rows = list(node)
    if len(rows) < 2 or (node.text or "").strip() \
            or any(not isinstance(row.tag, str) for row in rows) \
            or len({(row.tag, row.get("class")) for row in rows}) > 1 \
            or rows[0].get("class") is None \
            or any(row.tail for row in rows):
        return []
    return [row.text_content() for row in rows]
