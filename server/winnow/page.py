"""The page model: HTML (bytes or str) parsed with lxml into a tree the extractors share.

Parsing never raises on bad markup or a wrong charset: bytes are decoded by BOM, as UTF-8 when
valid, by the declared charset, or as Windows-1252 with replacement characters. Only input
that is not a page at all (empty, or over the size limit) raises `PageError` saying why.

The content script stamps every element with `data-wn` (its document-order id) and marks the
ones it saw invisible with `data-wn-hidden`; ids survive lxml's repairs of misnested markup
because they travel as attributes. Scripts, styles and comments are dropped after the JSON-LD
blocks have been read, since metadata lives there, and after the `<link rel=... href=...>`
elements have been read (`Page.rel_links`: a thread's `rel="next"` sits in the head).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urljoin

import lxml.etree as etree
import lxml.html
from lxml.html import HtmlElement

from winnow.endtags import close_blocks, needs_closing
from winnow.streaming import resolve_segments

WN_ID = "data-wn"
WN_HIDDEN = "data-wn-hidden"

HAS_IDS_XPATH = f"boolean(descendant::*/@{WN_ID})"

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

HIDING_ATTRS = (WN_HIDDEN, "hidden", "aria-hidden", "style")
"""The attributes `is_hidden` reads: an element without any of them is not hidden."""

MAX_PAGE_BYTES = 32 * 1024 * 1024
"""Pages above this size are refused: the server's message limit, and far above any real page."""

SNIFF_BYTES = 4096
"""How far into the bytes a charset declaration is looked for (the HTML spec's prescan: 1024)."""

DROPPED_TAGS = ("script", "style", "template", "link", "svg", "iframe", "object",
                "embed", "canvas", "button", "input", "select", "textarea", "noembed",
                "noframes")
"""Elements that never carry readable text; removed with their content."""

ADDRESS_ATTRS = ("name", "id", "placeholder", "aria-label", "autocomplete")
"""The attributes of a text field that may name what it asks for."""

_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.\-]+)""", re.I)
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
"""Characters XML trees cannot hold; pages carry them as stray bytes, never as text."""
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0b, 0x0c, *range(0x0e, 0x20)])
"""The ASCII characters of _CONTROL_RE as UTF-8 bytes (which never occur inside the encoding
of another character)."""
_END_OF_DOCUMENT_RE = re.compile(r"</(?:body|html)\s*>", re.I)
"""Browsers ignore </body> and </html> (content after them still goes into the body, HTML
spec 13.2.6.4.19); libxml2 stops reading there, losing pages that embed a second document."""
_CDATA_RE = re.compile(r"^\s*<!\[CDATA\[|\]\]>\s*$")
_XML_DECL_RE = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
_HIDDEN_STYLE_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))


class PageError(ValueError):
    """The input cannot be treated as an HTML page; the message says why."""


@dataclass
class Page:
    """One parsed page: the cleaned tree plus what was read before cleaning."""

    root: HtmlElement
    url: str | None = None
    json_ld: list[Any] = field(default_factory=list)
    has_ids: bool = False
    rel_links: dict[str, str] = field(default_factory=dict)
    """The href of the first `<link>` element of each `rel` token (lower-cased: "next",
    "prev", "canonical"), as written; `<link>` elements are dropped from the tree."""
    controlled_ids: frozenset[str] = frozenset()
    """The ids the page's tabs, disclosure buttons and toggles show (`_read_controlled_ids`),
    read before the buttons are dropped from the tree: see `folded`."""
    address_fields: tuple[HtmlElement, ...] = ()
    """The parents of the form fields that ask for an e-mail address (`_is_address_field`),
    read before the fields are dropped from the tree: see `article_trim.signup_boxes`."""
    choice_fields: tuple[HtmlElement, ...] = ()
    """The parents of the page's checkboxes and radio buttons (`_is_choice_field`), read
    before the fields are dropped from the tree: a shop's filter options, see
    `mainregion._FacetOptions`."""
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Structures computed from the tree once and read by several stages (MiBAT's DOM tree
    for extraction and for learning); cleared whenever the tree changes."""

    @property
    def body(self) -> HtmlElement:
        """Return <body>, or the root when the document has none."""
        body = self.root.find("body")
        return body if body is not None else self.root


def decode_html(data: bytes) -> str:
    """Decode page bytes by BOM, then as UTF-8 when they are valid UTF-8, then by the declared
    charset, then as Windows-1252; never raise.

    Valid UTF-8 wins over a declaration because pages are often re-saved as UTF-8 with their
    old legacy declaration left in, while legacy-encoded text almost never validates as UTF-8.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    match = _CHARSET_RE.search(data[:SNIFF_BYTES])
    if match:
        name = match.group(1).decode("ascii", errors="ignore")
        try:
            return data.decode(_normalize_charset(name), errors="replace")
        except LookupError:
            pass
    return data.decode("cp1252", errors="replace")


def _normalize_charset(name: str) -> str:
    """Map labels browsers treat as aliases to the codec browsers actually use."""
    lowered = name.lower()
    if lowered in ("iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii"):
        return "cp1252"
    if lowered in ("gb2312", "gbk"):
        return "gb18030"
    return codecs.lookup(lowered).name


def parse_page(html: bytes | str, url: str | None = None) -> Page:
    """Parse HTML into a `Page`; raise `PageError` only for empty or oversized input."""
    if isinstance(html, bytes):
        if len(html) > MAX_PAGE_BYTES:
            raise PageError(f"page is {len(html):,} bytes, over the {MAX_PAGE_BYTES:,}-byte limit")
        text = decode_html(html)
    elif isinstance(html, str):
        if len(html) > MAX_PAGE_BYTES:
            raise PageError(f"page is {len(html):,} characters, over the limit of "
                            f"{MAX_PAGE_BYTES:,}")
        text = html
    else:
        raise PageError(f"expected HTML as bytes or str, got {type(html).__name__}")
    text, data = _cleaned(_XML_DECL_RE.sub("", text, count=1))
    if not text.strip():
        raise PageError("page is empty")
    root = _parse_tree(text, data)
    if needs_closing(root):
        closed = close_blocks(text)
        if closed != text:  # else the nesting is the page's own: the same text, the same tree
            root = _parse_tree(closed)
    resolve_segments(root)
    json_ld = _read_json_ld(root)
    rel_links = _read_rel_links(root)
    controlled = _read_controlled_ids(root)
    fields, choices = _drop_non_content(root)
    return Page(root=root, url=url, json_ld=json_ld, has_ids=_has_ids(root), rel_links=rel_links,
                controlled_ids=controlled, address_fields=fields, choice_fields=choices)


def _cleaned(text: str) -> tuple[str, bytes | None]:
    """`text` without the characters of _CONTROL_RE, then without the end tags of
    _END_OF_DOCUMENT_RE; and its UTF-8 bytes, None when it holds lone surrogates (which have
    no UTF-8) or when control characters were cut.

    The end tags are cut first: what is left holds no control character on nearly every
    page, and is then what cutting the controls first leaves too (a control an end tag's
    match holds is whitespace in it, and without it the tag still matches; a control cut
    first cannot make a new match, as one would have stayed), so one encoding both tells
    that and feeds the parser. Telling it from the UTF-8 bytes is several times faster
    than a regex pass over the text."""
    ended = _END_OF_DOCUMENT_RE.sub("", text)
    try:
        data: bytes | None = ended.encode("utf-8")
    except UnicodeEncodeError:
        data = None
    if not _has_controls(ended, data):
        return ended, data
    return _END_OF_DOCUMENT_RE.sub("", _CONTROL_RE.sub("", text)), None


def _has_controls(text: str, data: bytes | None) -> bool:
    """Whether `text` (UTF-8 `data`, when known) holds a character of _CONTROL_RE."""
    if data is None:
        data = text.encode("utf-8", "surrogatepass")
    return len(data.translate(None, _CONTROL_BYTES)) != len(data) \
        or "\ufffe" in text or "\uffff" in text


def _html_class_lookup() -> etree.ElementNamespaceClassLookup:
    """lxml.html's element classes (`HtmlElementClassLookup`), looked up in C: lxml.html's
    own lookup is a Python method called for every element proxy lxml creates, and the
    stages walking a page create thousands."""
    lookup = etree.ElementNamespaceClassLookup(etree.ElementDefaultClassLookup(
        element=lxml.html.HtmlElement, comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction, entity=lxml.html.HtmlEntity))
    classes = lookup.get_namespace(None)
    for name, cls in lxml.html.HtmlElementClassLookup._default_element_classes.items():
        classes[name] = cls  # form, input, label, select, textarea
    return lookup


_HTML_CLASSES = _html_class_lookup()


def _parse_tree(text: str, data: bytes | None = None) -> HtmlElement:
    """Parse with libxml2's HTML parser; huge_tree lifts its 256-level depth cap to 2048.
    The text goes in as UTF-8 (`data`, when the caller has it) with the encoding named,
    which libxml2 reads a fifth faster than the str lxml would hand over in Python's
    internal form (the same tree on all 2,903 pages of the five sets); a text holding lone
    surrogates has no UTF-8 and goes as a str."""
    source: str | bytes = text
    encoding: str | None = None
    try:
        source, encoding = data if data is not None else text.encode("utf-8"), "utf-8"
    except UnicodeEncodeError:
        pass
    parser = lxml.html.HTMLParser(huge_tree=True, remove_comments=True, remove_pis=True,
                                  encoding=encoding)
    parser.set_element_class_lookup(_HTML_CLASSES)
    try:
        root = lxml.html.document_fromstring(source, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise PageError(f"page could not be parsed as HTML: {exc}") from exc
    if root is None:
        raise PageError("page holds no HTML elements")
    return root


def _read_json_ld(root: HtmlElement) -> list[Any]:
    """Return the parsed JSON-LD blocks; malformed ones are skipped."""
    blocks: list[Any] = []
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        text = _CDATA_RE.sub("", script.text or "")
        try:
            blocks.append(json.loads(text))
        except ValueError:
            continue
    return blocks


MAX_LD_NODES = 200
"""JSON-LD nodes walked at most looking for types (a catalogue's graph can be huge; the
types come early)."""

_SCHEMA_PREFIX_RE = re.compile(r"^.*[/:#]")
"""The vocabulary before a schema.org type's name ("https://schema.org/", "schema:")."""


def ld_types(blocks: list[Any]) -> Iterator[str]:
    """The `@type` values of the JSON-LD nodes, as written, breadth first, MAX_LD_NODES at
    most."""
    for node in ld_nodes(blocks):
        yield from node_types(node)


def node_types(node: dict[str, Any]) -> list[str]:
    """A JSON-LD node's `@type` values, as written: one string, or the strings of a list."""
    kind = node.get("@type")
    return [value for value in (kind if isinstance(kind, list) else [kind])
            if isinstance(value, str)]


def ld_nodes(blocks: list[Any]) -> Iterator[dict[str, Any]]:
    """The JSON-LD nodes (objects), breadth first, of the first MAX_LD_NODES values walked."""
    queue: list[Any] = list(blocks)
    seen = 0
    while queue and seen < MAX_LD_NODES:
        node = queue.pop(0)
        seen += 1
        if isinstance(node, list):
            queue.extend(node)
        elif isinstance(node, dict):
            yield node
            queue.extend(v for v in node.values() if isinstance(v, dict | list))


def schema_type(kind: str) -> str:
    """A schema.org type's name, lower-cased, without its vocabulary's URL or prefix
    ("https://schema.org/QAPage" -> "qapage")."""
    return _SCHEMA_PREFIX_RE.sub("", kind.strip()).lower()


def _read_rel_links(root: HtmlElement) -> dict[str, str]:
    """Each `rel` token of the page's `<link>` elements mapped to the first non-empty href
    given for it."""
    links: dict[str, str] = {}
    for link in root.iter("link"):
        href = (link.get("href") or "").strip()
        if href:
            for rel in (link.get("rel") or "").lower().split():
                links.setdefault(rel, href)
    return links


TOGGLE_KINDS = frozenset({"tab", "pill", "collapse"})
"""`data-toggle` / `data-bs-toggle` values of a control that shows a panel in place."""

_CONTROL_XPATH = "//@aria-controls | //@data-toggle | //@data-bs-toggle"
"""The attributes marking a control: a union of attribute paths, whose parents are the
controls, is twice as fast as the elements selected with attribute predicates."""
_TARGET_ATTRS = ("data-bs-target", "data-target", "href")


def _read_controlled_ids(root: HtmlElement) -> frozenset[str]:
    """The ids named by the page's tabs and disclosure buttons (`aria-controls` on an element
    with role "tab" or an `aria-expanded` state) and by its Bootstrap toggles (`data-toggle`
    or `data-bs-toggle` in TOGGLE_KINDS, the target in `data-bs-target`, `data-target` or a
    fragment `href`)."""
    ids: set[str] = set()
    for el in {attr.getparent() for attr in root.xpath(_CONTROL_XPATH)}:
        controls = el.get("aria-controls")
        if controls and ((el.get("role") or "").strip().lower() == "tab"
                         or el.get("aria-expanded") is not None):
            ids.update(controls.split())
        toggle = (el.get("data-bs-toggle") or el.get("data-toggle") or "").strip().lower()
        if toggle in TOGGLE_KINDS:
            target = next((v.strip() for a in _TARGET_ATTRS if (v := el.get(a))), "")
            if target.startswith("#") and len(target) > 1:
                ids.add(target[1:])
    ids.discard("")
    return frozenset(ids)


def document_url(page: Page) -> str | None:
    """The URL relative links of the page resolve against: the page's URL joined with the
    first `<base href>` (HTML's document base URL); the page URL when there is no base or it
    cannot be joined."""
    base = page.root.find(".//base[@href]")
    href = (base.get("href") or "").strip() if base is not None else ""
    if not href:
        return page.url
    try:
        return urljoin(page.url or "", href) or page.url
    except ValueError:
        return page.url


def _drop_non_content(root: HtmlElement
                      ) -> tuple[tuple[HtmlElement, ...], tuple[HtmlElement, ...]]:
    """Remove scripts, styles, forms controls and other non-text elements, comments and
    processing instructions, keeping tails, in one pass of lxml's `strip_elements` (in C: a
    Python `drop_tree` per element cost twice as much). Return the parents of the e-mail
    address fields and those of the checkboxes and radio buttons among them, which outlive
    the fields. A tail stays a text node of its own beside the text before it: `.text`,
    `.tail`, `itertext` and `text_content` read such neighbours as one text, as they read
    them after `drop_tree`."""
    inputs = list(root.iter("input"))
    fields = [el.getparent() for el in inputs if _is_address_field(el)]
    choices = [el.getparent() for el in inputs if _is_choice_field(el)]
    etree.strip_elements(root, etree.Comment, etree.ProcessingInstruction, *DROPPED_TAGS,
                         with_tail=False)
    return (tuple(dict.fromkeys(parent for parent in fields if parent is not None)),
            tuple(dict.fromkeys(parent for parent in choices if parent is not None)))


def _is_choice_field(el: HtmlElement) -> bool:
    """Whether an <input> is a checkbox or a radio button: one option of a choice."""
    return (el.get("type") or "").strip().lower() in ("checkbox", "radio")


def _is_address_field(el: HtmlElement) -> bool:
    """Whether an <input> asks for an e-mail address: its type says so, or a text field's
    name, id, placeholder, label or autocomplete hint names mail (a newsletter's "Your
    email", a German "E-Mail-Adresse")."""
    kind = (el.get("type") or "text").strip().lower()
    if kind == "email":
        return True
    if kind != "text":
        return False
    return any("mail" in (el.get(attr) or "").lower() for attr in ADDRESS_ATTRS)


def _has_ids(root: HtmlElement) -> bool:
    """Whether any element carries a `data-wn` id (an XPath attribute path: libxml2 answers
    it faster than ElementPath's `find`)."""
    return root.get(WN_ID) is not None or bool(root.xpath(HAS_IDS_XPATH))


def has_any_ids(page: Page) -> bool:
    """Whether an element of the page may carry a `data-wn` id: the content script's
    (`has_ids`, found at parse time) or Winnow's own (`stamp_ids`, which stamps the root
    too); nothing else sets one."""
    return page.has_ids or page.root.get(WN_ID) is not None


def stamp_ids(page: Page) -> None:
    """Give every element a `data-wn` id in document order, as the content script does, when
    the page has none (saved files, the CLI). `page.has_ids` stays False: such ids are for
    Winnow's own bookkeeping and are not reported back."""
    if page.has_ids:
        return
    page.derived.clear()
    for n, el in enumerate(iter_elements(page.root)):
        el.set(WN_ID, str(n))


def wn_id(el: HtmlElement) -> int | None:
    """Return the content script's id of an element, or None when it has none."""
    return parse_wn_id(el.get(WN_ID))


def parse_wn_id(value: str | None) -> int | None:
    """The id a `data-wn` attribute value gives, or None when it is missing or no number."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def is_hidden(el: HtmlElement) -> bool:
    """True when the content script, the `hidden` attribute or an inline style hides `el`
    (the attributes of HIDING_ATTRS)."""
    return hidden_by(el, el.tag)


class Attributes(Protocol):
    """What reads an element's attributes by name: the element itself, or a dict of them."""

    def get(self, name: str, /) -> str | None: ...


def hidden_by(attrs: Attributes, tag: str) -> bool:
    """`is_hidden` of an element with these attributes and this tag (the element, or its
    attributes read at once into a dict by a caller that reads many of them)."""
    if attrs.get(WN_HIDDEN) is not None or attrs.get("hidden") is not None:
        return True
    if attrs.get("aria-hidden") == "true" and tag != "img":
        return True
    style = attrs.get("style")
    return bool(style and _HIDDEN_STYLE_RE.search(style))


def iter_elements(root: HtmlElement) -> Iterator[HtmlElement]:
    """Yield the element nodes under `root` (itself included) in document order."""
    for el in root.iter():
        if isinstance(el.tag, str):
            yield el
