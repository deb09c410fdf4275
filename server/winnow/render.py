"""Reader-view rendering: an extracted content subtree to clean HTML, plain text and Markdown.

`render_article` walks the content once, with an explicit stack, and rebuilds it as a fresh tree
that holds only the reader vocabulary (headings, paragraphs, lists, quotes, code, figures,
tables, links and inline emphasis). Wrappers such as div/span/section are unwrapped: a block
wrapper is a paragraph boundary, so stray text in a block container lands in an implicit <p>.
Kept blocks nest at most `MAX_BLOCK_DEPTH` deep and inline markup at most `MAX_INLINE_DEPTH`
deep; deeper markup is flattened, so every later pass over the clean tree is shallow no matter
how deep the input was. The clean tree is serialized, sanitized by nh3 (an allowlist: no
scripts, event handlers or javascript: URLs can survive) and turned into text and Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import lxml.etree as etree
import nh3

from winnow.markdown import to_markdown, to_text
from winnow.page import WN_HIDDEN, HtmlElement, is_hidden

MAX_BLOCK_DEPTH = 40
"""Kept block elements nested deeper than this are unwrapped (their text stays)."""

MAX_INLINE_DEPTH = 12
"""Inline formatting elements nested deeper than this are unwrapped."""

MAX_SPAN = 1000
"""Largest colspan/rowspan kept; browsers clamp to similar limits."""

URL_SCHEMES = frozenset({"http", "https", "mailto"})
"""Schemes a link or image may use; relative URLs are resolved against the page URL first."""

DROP_TAGS = frozenset({
    "script", "style", "template", "link", "meta", "head", "title", "svg", "math", "iframe",
    "object", "embed", "applet", "canvas", "button", "input", "select", "textarea", "audio",
    "video", "map", "area", "source", "track", "param", "dialog", "frame", "frameset", "wbr"})
"""Elements whose whole subtree never belongs in the reader view."""

BLOCK_UNWRAP = frozenset({
    "div", "section", "article", "main", "header", "footer", "aside", "nav", "center", "form",
    "fieldset", "legend", "details", "summary", "address", "hgroup", "menu", "dir", "body",
    "html", "noframes", "search", "multicol"})
"""Block wrappers that are dropped but still separate the paragraphs around them."""

INLINE_TAGS = frozenset({
    "a", "em", "strong", "b", "i", "u", "s", "sub", "sup", "mark", "small", "q", "cite", "abbr",
    "time", "kbd", "samp", "var", "code"})
"""Inline formatting kept in the clean tree."""

RENAMES = {"strike": "s", "del": "s", "ins": "u", "tt": "code", "dfn": "em", "acronym": "abbr",
           "listing": "pre", "xmp": "pre", "plaintext": "pre", "amp-img": "img"}
"""Obsolete or near-synonym tags mapped onto the kept vocabulary."""

_BLOCK_ONLY, _FLOW, _LEAF, _STRUCT = range(4)
"""Block modes: blocks only (text gets an implicit <p>), blocks or inline, inline only, and
structural (lists and tables: only their own parts)."""

BLOCK_MODES = {
    "p": _LEAF, "h1": _LEAF, "h2": _LEAF, "h3": _LEAF, "h4": _LEAF, "h5": _LEAF, "h6": _LEAF,
    "dt": _LEAF, "pre": _LEAF, "li": _FLOW, "dd": _FLOW, "td": _FLOW, "th": _FLOW,
    "figure": _FLOW, "figcaption": _FLOW, "caption": _FLOW, "blockquote": _BLOCK_ONLY,
    "ul": _STRUCT, "ol": _STRUCT, "dl": _STRUCT, "table": _STRUCT, "thead": _STRUCT,
    "tbody": _STRUCT, "tfoot": _STRUCT, "tr": _STRUCT}

_SECTIONS = frozenset({"tr"})
VALID_CHILDREN = {"ul": frozenset({"li"}), "ol": frozenset({"li"}), "dl": frozenset({"dt", "dd"}),
                  "table": frozenset({"caption", "thead", "tbody", "tfoot", "tr"}),
                  "thead": _SECTIONS, "tbody": _SECTIONS, "tfoot": _SECTIONS,
                  "tr": frozenset({"td", "th"})}
"""What a structural element may hold directly; anything else gets an implicit child."""

IMPLICIT_CHILD = {"ul": "li", "ol": "li", "dl": "dd", "table": "tr", "thead": "tr",
                  "tbody": "tr", "tfoot": "tr", "tr": "td"}

_TABLE = frozenset({"table"})
REQUIRED_PARENT = {"li": frozenset({"ul", "ol"}), "dt": frozenset({"dl"}),
                   "dd": frozenset({"dl"}), "tr": frozenset({"table", "thead", "tbody", "tfoot"}),
                   "td": frozenset({"tr"}), "th": frozenset({"tr"}), "thead": _TABLE,
                   "tbody": _TABLE, "tfoot": _TABLE, "caption": _TABLE,
                   "figcaption": frozenset({"figure"})}
"""Parts that only make sense inside their parent; elsewhere they are unwrapped."""

KEEP_EMPTY = frozenset({"td", "th"})
"""Blocks kept even without text, so table grids keep their shape."""

HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")

SANITIZE_TAGS = (INLINE_TAGS | frozenset(BLOCK_MODES)
                 | frozenset({"img", "br", "hr"}))
SANITIZE_ATTRIBUTES = {
    "*": {"lang", "dir"}, "a": {"href", "title"}, "img": {"src", "alt", "title", "width",
                                                          "height"},
    "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"}, "time": {"datetime"},
    "ol": {"start", "reversed"}, "abbr": {"title"}}

LAZY_SRC_ATTRS = ("data-src", "data-original", "data-lazy-src", "data-lazy", "data-url",
                  "data-original-src", "data-hi-res-src", "data-full-src", "data-actualsrc",
                  "data-echo")
"""Attributes lazy-loading scripts read the real image URL from, most common first."""

SRCSET_ATTRS = ("data-srcset", "data-lazy-srcset", "srcset")

_PLACEHOLDER_RE = re.compile(
    r"(?:^|[/_.-])(?:blank|placeholder|spacer|transparent|pixel|1x1|empty|grey|gray|loading|"
    r"loader|lazy)[^/]*\.(?:gif|png|svg|jpe?g|webp)$")
_IMAGE_URL_RE = re.compile(r"^\S+\.(?:jpe?g|png|webp|gif|avif)(?:[?#]\S*)?$", re.I)
_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_CONTROL_RE = re.compile(r"[\x00-\x20\x7f]+")
_URL_NOISE_RE = re.compile(r"[\t\n\r]")
_NON_SPACE_RE = re.compile(r"\S+")
_PLAIN_PATH_RE = re.compile(r"^/(?!/)[^\s\\]*$")
_LANG_RE = re.compile(r"^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$")
_CODE_LANG_RE = re.compile(r"(?:^|\s)(?:lang(?:uage)?-|highlight-(?:source-)?)([\w+#.-]{1,30})")
_CJK = ("\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
        "\uf900-\ufaff\U00020000-\U0003134f")
_CJK_RE = re.compile(f"[{_CJK}]")
_PUNCT_TOKEN_RE = re.compile(r"(?<!\S)[^\w\s]+(?!\S)")
_WORD_RE = re.compile(r"\w+")

_HIDDEN_XPATH = f".//*[@{WN_HIDDEN} or @hidden or @aria-hidden or @style]"
_LANG_DIR_XPATH = ".//*[@lang or @dir]"

_NONE, _SPACE, _BREAK = range(3)
"""What separates the next inline content from the previous: nothing, a space, a <br>."""


@dataclass
class Rendered:
    """The reader body in every output form, plus the image URLs it shows."""

    html: str
    text: str
    markdown: str
    word_count: int
    images: list[str] = field(default_factory=list)


def render_article(content: HtmlElement, base_url: str | None,
                   title: str | None = None) -> Rendered:
    """Render the extracted content subtree as sanitized HTML, text and Markdown."""
    renderer = _Renderer(content, base_url)
    renderer.walk()
    root = renderer.builder.root
    if title:
        _drop_title_heading(root, title)
    for child in root:
        child.tail = "\n"
    text = to_text(root)
    images = list(dict.fromkeys(img.get("src") for img in root.iter("img")))
    return Rendered(html=_sanitize(root, renderer.builder.code_classes), text=text,
                    markdown=to_markdown(root), word_count=count_words(text), images=images)


def count_words(text: str) -> int:
    """Count words: space-separated tokens with a letter or digit, each CJK character as one."""
    cjk = len(_CJK_RE.findall(text))
    if cjk:
        text = _CJK_RE.sub(" ", text)
    return cjk + len(text.split()) - len(_PUNCT_TOKEN_RE.findall(text))


def safe_url(url: str | None, base_url: str | None) -> str | None:
    """Return `url` made absolute against `base_url`, or None when empty or not http(s)/mailto."""
    if not url:
        return None
    url = _URL_NOISE_RE.sub("", url).strip()
    match = _SCHEME_RE.match(_CONTROL_RE.sub("", url))
    if not url or (match and match.group(1).lower() not in URL_SCHEMES):
        return None
    if base_url is None:
        return url
    try:
        absolute = urljoin(base_url, url)
    except ValueError:
        return None
    match = _SCHEME_RE.match(absolute)
    return absolute if match is None or match.group(1).lower() in URL_SCHEMES else url


class _UrlResolver:
    """`safe_url` against one base, memoized, with a fast path for root-relative paths."""

    def __init__(self, base_url: str | None) -> None:
        self.base_url = base_url
        self.cache: dict[str, str | None] = {}
        parts = urlsplit(base_url) if base_url else None
        self.origin = f"{parts.scheme}://{parts.netloc}" if parts and \
            parts.scheme.lower() in ("http", "https") and parts.netloc else None

    def __call__(self, url: str | None) -> str | None:
        """Return the safe absolute form of `url`, or None."""
        if not url:
            return None
        if url in self.cache:
            return self.cache[url]
        if self.origin and _PLAIN_PATH_RE.match(url) and "/." not in url:
            result: str | None = self.origin + url
        else:
            try:
                result = safe_url(url, self.base_url)
            except ValueError:
                result = None
        self.cache[url] = result
        return result


def best_srcset_url(srcset: str) -> str | None:
    """Return the widest (else densest, else first) candidate URL of a srcset value."""
    best: str | None = None
    best_key = (-1, -1.0)
    for url, descriptor in _srcset_candidates(srcset):
        kind, value = _descriptor_key(descriptor)
        if (kind, value) > best_key:
            best, best_key = url, (kind, value)
    return best


def _srcset_candidates(srcset: str) -> list[tuple[str, str]]:
    """Split a srcset into (url, descriptor) pairs; URLs may contain commas, as the spec says."""
    candidates: list[tuple[str, str]] = []
    pos, end = 0, len(srcset)
    while pos < end:
        while pos < end and (srcset[pos].isspace() or srcset[pos] == ","):
            pos += 1
        match = _NON_SPACE_RE.match(srcset, pos)
        if match is None:
            break
        url, pos = match.group(), match.end()
        descriptor = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = srcset.find(",", pos)
            comma = end if comma < 0 else comma
            descriptor, pos = srcset[pos:comma].strip(), comma + 1
        if url:
            candidates.append((url, descriptor))
    return candidates


def _descriptor_key(descriptor: str) -> tuple[int, float]:
    """Rank a srcset descriptor: widths beat densities, which beat no descriptor."""
    for token in descriptor.split():
        unit, number = token[-1:].lower(), token[:-1]
        try:
            value = float(number)
        except ValueError:
            continue
        if unit == "w":
            return 2, value
        if unit == "x":
            return 1, value
    return 0, 0.0


def is_placeholder(url: str) -> bool:
    """True for URLs lazy loaders put in src before the real one: data URIs, blank gifs..."""
    url = url.strip().lower()
    if not url or url.startswith(("data:", "about:")):
        return True
    path = url.split("?", 1)[0].split("#", 1)[0]
    return _PLACEHOLDER_RE.search(path) is not None


def image_src(img: HtmlElement) -> str | None:
    """Return the real URL of an image: src, else a lazy-loading attribute, else None."""
    src = img.get("src")
    if src and not is_placeholder(src):
        return src
    for attr in LAZY_SRC_ATTRS:
        value = img.get(attr)
        if value and not is_placeholder(value):
            return value
    for attr in SRCSET_ATTRS:
        value = img.get(attr)
        best = best_srcset_url(value) if value else None
        if best and not is_placeholder(best):
            return best
    for attr, value in img.items():
        if attr.startswith("data-") and _IMAGE_URL_RE.match(value.strip()):
            return value.strip()
    return None


def _picture_src(picture: HtmlElement, img: HtmlElement | None) -> str | None:
    """Return a <picture>'s widest width-described candidate, else its img's source."""
    best: str | None = None
    best_width = -1.0
    for node in picture.iter("source", "img"):
        for attr in SRCSET_ATTRS:
            value = node.get(attr)
            for url, descriptor in _srcset_candidates(value) if value else ():
                kind, width = _descriptor_key(descriptor)
                if kind == 2 and width > best_width and not is_placeholder(url):
                    best, best_width = url, width
    if best is None and img is not None:
        best = image_src(img)
    if best is None:
        for source in picture.iter("source"):
            value = source.get("srcset") or source.get("data-srcset")
            best = best_srcset_url(value) if value else None
            if best:
                break
    return best


def _is_tracking_pixel(img: HtmlElement) -> bool:
    """True when a width or height attribute says the image is at most one pixel."""
    for attr in ("width", "height"):
        value = (img.get(attr) or "").strip().lower().removesuffix("px")
        if value in ("0", "1"):
            return True
    return False


def _common_attrs(el: HtmlElement) -> dict[str, str]:
    """Return the valid lang/dir attributes of an element."""
    attrs: dict[str, str] = {}
    lang = el.get("lang")
    if lang and _LANG_RE.match(lang.strip()):
        attrs["lang"] = lang.strip()
    direction = (el.get("dir") or "").strip().lower()
    if direction in ("ltr", "rtl", "auto"):
        attrs["dir"] = direction
    return attrs


def _block_attrs(el: HtmlElement, tag: str, common: bool) -> dict[str, str]:
    """Return the attributes kept on a block: spans on cells, numbering on ordered lists."""
    attrs = _common_attrs(el) if common else {}
    if tag in ("td", "th"):
        for name in ("colspan", "rowspan"):
            value = (el.get(name) or "").strip()
            if value.isdigit() and 1 < int(value) <= MAX_SPAN:
                attrs[name] = str(int(value))
    elif tag == "ol":
        start = (el.get("start") or "").strip()
        if start.lstrip("-").isdigit() and len(start) < 10 and int(start) != 1:
            attrs["start"] = str(int(start))
        if el.get("reversed") is not None:
            attrs["reversed"] = ""
    return attrs


def _code_language(pre: HtmlElement) -> str | None:
    """Return the language a code block declares in its classes (language-x, lang-x...)."""
    nodes = [pre, *pre.iter("code")][:2]
    parent = pre.getparent()
    if parent is not None:
        nodes.append(parent)
    for node in nodes:
        match = _CODE_LANG_RE.search(node.get("class") or "")
        if match:
            return match.group(1).lower()
        declared = node.get("data-lang") or node.get("data-language")
        if declared and _CODE_LANG_RE.search(f"lang-{declared.strip()}"):
            return declared.strip().lower()
    return None


def _pre_text(pre: HtmlElement) -> str:
    """Return a <pre>'s text verbatim, <br> as newline, without the newline after <pre>."""
    parts = [pre.text or ""]
    stack = [(pre, iter(pre))]
    while stack:
        el, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if stack and el.tail:
                parts.append(el.tail)
        elif isinstance(child.tag, str) and child.tag not in DROP_TAGS:
            parts.append("\n" if child.tag == "br" else child.text or "")
            stack.append((child, iter(child)))
        elif child.tail:
            parts.append(child.tail)
    text = "".join(parts).replace("\r\n", "\n").replace("\xa0", " ")
    return text.removeprefix("\n").rstrip()


class _Frame:
    """One open block of the clean tree and what has been written into it."""

    __slots__ = ("el", "mode", "implicit", "has_content", "last_inline", "br_run", "open")

    def __init__(self, el: etree._Element, mode: int, implicit: bool = False) -> None:
        self.el = el
        self.mode = mode
        self.implicit = implicit
        self.has_content = False
        self.last_inline = False
        self.br_run = False
        self.open = True


class _Inline:
    """An open inline element of the input; `out` is its copy in the current block, if any."""

    __slots__ = ("tag", "attrs", "out")

    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.out: etree._Element | None = None


class _Builder:
    """Builds the clean tree from a stream of block, inline and text events.

    Inline elements are materialized lazily, when content arrives, and reopened inside each
    block they span. Text is buffered and written once per target element, so appending to an
    element with 100,000 text pieces stays linear.
    """

    def __init__(self) -> None:
        self.root = etree.Element("div")
        self.stack = [_Frame(self.root, _BLOCK_ONLY)]
        self.chain: list[_Inline] = []
        self.buf: list[str] = []
        self.buf_el: etree._Element | None = None
        self.pending = _NONE
        self.after_image = False
        self.code_classes: set[str] = set()

    def text(self, raw: str) -> None:
        """Add text, collapsing whitespace runs to one space and dropping edge spaces."""
        core = " ".join(raw.split())
        if not core or raw[0].isspace():
            self._want_space()
        if not core:
            return
        self._append(self._target(), core)
        self._mark_inline()
        self.after_image = False
        if raw[-1].isspace():
            self._want_space()

    def image(self, attrs: dict[str, str]) -> None:
        """Add an <img> at the current inline position."""
        self._element(self._target(), "img", attrs)
        self._mark_inline()
        self.after_image = True

    def br(self) -> None:
        """Add a line break; two in a row in an implicit paragraph start a new paragraph."""
        top = self.stack[-1]
        if top.mode in (_BLOCK_ONLY, _STRUCT) or not top.has_content:
            return
        parent = self._deepest(top)
        self.pending = _NONE
        if top.br_run and top.implicit and parent is top.el:
            self._pop()
            return
        self._element(parent, "br")
        top.br_run = True

    def hr(self) -> None:
        """Add a thematic break between blocks."""
        top = self._close_implicit_paragraph()
        if top.mode in (_LEAF, _STRUCT):
            self.boundary()
            return
        self._reset_chain()
        self._element(top.el, "hr")
        top.last_inline = False
        self.pending = _NONE

    def pre(self, text: str, language: str | None) -> None:
        """Add a code block whose text is kept verbatim."""
        frame = self.start_block("pre", {})
        if frame is None:
            self.text(text)
            self.boundary()
            return
        attrs = {"class": f"language-{language}"} if language else {}
        if language:
            self.code_classes.add(attrs["class"])
        self._element(frame.el, "code", attrs).text = text
        frame.has_content = bool(text.strip())
        self.end_block(frame)

    def start_inline(self, tag: str, attrs: dict[str, str]) -> bool:
        """Open inline formatting; False (unwrap it) when nested too deep or in its own kind."""
        if len(self.chain) >= MAX_INLINE_DEPTH or any(i.tag == tag for i in self.chain):
            return False
        self.chain.append(_Inline(tag, attrs))
        return True

    def end_inline(self) -> None:
        """Close the innermost inline formatting."""
        self.chain.pop()

    def boundary(self) -> None:
        """Separate what follows from what came before, as an unwrapped block wrapper does."""
        top = self.stack[-1]
        if top.mode == _LEAF:
            if top.implicit:
                self._pop()
            elif top.has_content and self.pending == _NONE:
                self.pending = _SPACE
        elif top.mode == _FLOW and top.last_inline:
            self._reset_chain()
            self.pending = _BREAK

    def start_block(self, tag: str, attrs: dict[str, str]) -> _Frame | None:
        """Open a kept block, or return None when it must be unwrapped here."""
        top = self._close_implicit_paragraph()
        if top.mode == _LEAF:
            self.boundary()
            return None
        while top.mode == _STRUCT and tag not in VALID_CHILDREN[top.el.tag]:
            top = self._push(IMPLICIT_CHILD[top.el.tag], {}, implicit=True)
        parents = REQUIRED_PARENT.get(tag)
        if (parents is not None and top.el.tag not in parents) or \
                len(self.stack) >= MAX_BLOCK_DEPTH:
            self.boundary()
            return None
        return self._push(tag, attrs)

    def end_block(self, frame: _Frame) -> None:
        """Close a kept block and any implicit blocks opened inside it."""
        while frame.open:
            self._pop()

    def finish(self) -> None:
        """Close every open block."""
        while len(self.stack) > 1:
            self._pop()
        self._flush()

    def _close_implicit_paragraph(self) -> _Frame:
        top = self.stack[-1]
        if top.implicit and top.mode == _LEAF:
            self._pop()
            top = self.stack[-1]
        return top

    def _want_space(self) -> None:
        if self.pending == _NONE:
            self.pending = _SPACE

    def _mark_inline(self) -> None:
        top = self.stack[-1]
        top.has_content = top.last_inline = True
        top.br_run = False

    def _target(self) -> etree._Element:
        """Return the element inline content goes into, opening what it needs first."""
        top = self.stack[-1]
        while top.mode in (_BLOCK_ONLY, _STRUCT):
            tag = "p" if top.mode == _BLOCK_ONLY else IMPLICIT_CHILD[top.el.tag]
            top = self._push(tag, {}, implicit=True)
        if self.pending != _NONE and top.has_content and top.last_inline:
            if self.pending == _BREAK:
                self._element(top.el, "br")
            elif not top.br_run:
                self._append(self._deepest(top), " ")
        self.pending = _NONE
        parent = top.el
        for item in self.chain:
            if item.out is None:
                item.out = self._element(parent, item.tag, item.attrs)
            parent = item.out
        return parent

    def _deepest(self, top: _Frame) -> etree._Element:
        parent = top.el
        for item in self.chain:
            if item.out is None:
                break
            parent = item.out
        return parent

    def _push(self, tag: str, attrs: dict[str, str], implicit: bool = False) -> _Frame:
        top = self.stack[-1]
        frame = _Frame(self._element(top.el, tag, attrs), BLOCK_MODES[tag], implicit)
        top.last_inline = False
        self.stack.append(frame)
        self._reset_chain()
        self.pending = _NONE
        return frame

    def _pop(self) -> None:
        self._flush()
        frame = self.stack.pop()
        frame.open = False
        parent = self.stack[-1]
        self._reset_chain()
        self.pending = _NONE
        if frame.has_content or frame.el.tag in KEEP_EMPTY:
            _trim_trailing_breaks(frame.el)
            parent.has_content = parent.has_content or frame.has_content
            parent.last_inline = False
        else:
            parent.el.remove(frame.el)
            if parent.mode == _FLOW and parent.last_inline:
                self.pending = _BREAK

    def _reset_chain(self) -> None:
        for item in self.chain:
            item.out = None

    def _element(self, parent: etree._Element, tag: str,
                 attrs: dict[str, str] | None = None) -> etree._Element:
        self._flush()
        return etree.SubElement(parent, tag, attrs or {})

    def _append(self, el: etree._Element, text: str) -> None:
        if el is not self.buf_el:
            self._flush()
            self.buf_el = el
        self.buf.append(text)

    def _flush(self) -> None:
        """Write buffered text at the end of its element (as text, or its last child's tail)."""
        if not self.buf or self.buf_el is None:
            return
        text, el = "".join(self.buf), self.buf_el
        self.buf.clear()
        try:
            last = el[-1]
        except IndexError:
            el.text = (el.text or "") + text
        else:
            last.tail = (last.tail or "") + text


def _trim_trailing_breaks(el: etree._Element) -> None:
    """Remove <br>s that end a block."""
    while True:
        try:
            last = el[-1]
        except IndexError:
            return
        if last.tag != "br" or (last.tail and not last.tail.isspace()):
            return
        el.remove(last)


_SKIP, _BOUNDARY, _INLINE = object(), object(), object()
"""Walk tokens: subtree already handled, unwrapped block wrapper, kept inline element."""


class _Renderer:
    """Walks the input subtree iteratively and feeds the builder."""

    def __init__(self, content: HtmlElement, base_url: str | None) -> None:
        self.content = content
        self.resolve = _UrlResolver(base_url)
        self.hidden = {el for el in content.xpath(_HIDDEN_XPATH) if is_hidden(el)}
        self.attributed = set(content.xpath(_LANG_DIR_XPATH))
        self.builder = _Builder()
        self.consumed: set[HtmlElement] = set()

    def walk(self) -> None:
        """Visit every node once, in document order, with an explicit stack."""
        builder, content = self.builder, self.content
        if content.text:
            builder.text(content.text)
        stack: list[tuple[HtmlElement, Iterator[HtmlElement], object]] = [
            (content, iter(content), None)]
        while stack:
            el, children, token = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                if stack:
                    self._close(token)
                    if el.tail:
                        builder.text(el.tail)
                continue
            if isinstance(child.tag, str):
                token = self._open(child)
                if token is not _SKIP:
                    if child.text:
                        builder.text(child.text)
                    stack.append((child, iter(child), token))
                    continue
            if child.tail:
                builder.text(child.tail)
        builder.finish()

    def _open(self, el: HtmlElement) -> object:
        """Handle an element's start; return the token its end needs, or _SKIP."""
        tag = el.tag
        if tag in DROP_TAGS or el in self.hidden:
            return _SKIP
        tag = RENAMES.get(tag, tag)
        if tag in INLINE_TAGS:
            attrs = self._inline_attrs(el, tag)
            if attrs is not None and self.builder.start_inline(tag, attrs):
                return _INLINE
            return None
        if tag in BLOCK_MODES:
            return self._open_block(el, tag)
        if tag in BLOCK_UNWRAP or "-" in tag:
            self.builder.boundary()
            return _BOUNDARY
        return self._open_special(el, tag)

    def _open_special(self, el: HtmlElement, tag: str) -> object:
        """Handle void elements, pictures and noscript; unknown tags are unwrapped inline."""
        if tag == "img":
            self._image(el, image_src(el))
        elif tag == "br":
            self.builder.br()
        elif tag == "hr":
            self.builder.hr()
        elif tag == "picture":
            img = next(el.iter("img"), None)
            self._image(img if img is not None else el, _picture_src(el, img))
        elif tag == "noscript":
            if el in self.consumed or self.builder.after_image or \
                    next(el.iter("img"), None) is None:
                return _SKIP
            return None
        else:
            return None
        return _SKIP

    def _open_block(self, el: HtmlElement, tag: str) -> object:
        if tag == "pre":
            self.builder.pre(_pre_text(el), _code_language(el))
            return _SKIP
        attrs = _block_attrs(el, tag, el in self.attributed)
        frame = self.builder.start_block(tag, attrs)
        return _BOUNDARY if frame is None else frame

    def _close(self, token: object) -> None:
        if token is _INLINE:
            self.builder.end_inline()
        elif token is _BOUNDARY:
            self.builder.boundary()
        elif isinstance(token, _Frame):
            self.builder.end_block(token)

    def _inline_attrs(self, el: HtmlElement, tag: str) -> dict[str, str] | None:
        """Return a kept inline element's attributes; None unwraps it (a link without href)."""
        attrs = _common_attrs(el) if el in self.attributed else {}
        if tag == "a":
            href = self.resolve(el.get("href"))
            if href is None:
                return None
            attrs["href"] = href
        if tag in ("a", "abbr") and el.get("title"):
            attrs["title"] = " ".join(el.get("title", "").split())
        elif tag == "time" and el.get("datetime"):
            attrs["datetime"] = el.get("datetime", "").strip()
        return attrs

    def _image(self, img: HtmlElement, src: str | None) -> None:
        """Add an image unless it is a tracking pixel or has no usable source."""
        if _is_tracking_pixel(img):
            return
        if src is None:
            src = self._noscript_fallback(img)
        url = self.resolve(src)
        if url is None:
            return
        attrs = {"src": url}
        for name in ("alt", "title"):
            value = " ".join((img.get(name) or "").split())
            if value:
                attrs[name] = value
        for name in ("width", "height"):
            value = (img.get(name) or "").strip()
            if value.isdigit() and len(value) < 6:
                attrs[name] = value
        self.builder.image(attrs)

    def _noscript_fallback(self, img: HtmlElement) -> str | None:
        """Return the source of the <noscript> copy next to a placeholder image, if any."""
        parent = img.getparent()
        candidates = [img.getnext(), img.getprevious()]
        if parent is not None and parent is not self.content:
            candidates.append(parent.getnext())
        for node in candidates:
            if node is None or node.tag != "noscript":
                continue
            inner = next(node.iter("img"), None)
            if inner is not None:
                self.consumed.add(node)
                return image_src(inner)
        return None


def _sanitize(root: etree._Element, code_classes: set[str]) -> str:
    """Serialize the clean tree's children and pass them through nh3's allowlist."""
    html = etree.tostring(root, encoding="unicode", method="html")
    inner = html.removeprefix("<div>").removesuffix("</div>")
    return nh3.clean(inner, tags=set(SANITIZE_TAGS), attributes=SANITIZE_ATTRIBUTES,
                     url_schemes=set(URL_SCHEMES), link_rel=None,
                     allowed_classes={"code": code_classes} if code_classes else None).strip()


def _title_key(text: str) -> list[str]:
    return _WORD_RE.findall(text.casefold())


def _drop_title_heading(root: etree._Element, title: str) -> None:
    """Remove the first heading when it repeats the title the reader shows separately."""
    heading = next(root.iter(*HEADINGS), None)
    key = _title_key(title)
    if heading is None or not key or _title_key("".join(heading.itertext())) != key:
        return
    parent = heading.getparent()
    if parent is None:
        return
    tail = heading.tail
    previous = heading.getprevious()
    parent.remove(heading)
    if tail and tail.strip():
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
