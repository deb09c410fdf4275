"""Reader-view rendering: an extracted content subtree to clean HTML, plain text and Markdown.

`render_article` walks the content once, with an explicit stack, and rebuilds it as a fresh tree
holding only the reader vocabulary: headings, paragraphs, lists, quotes, code, figures, tables,
links and inline emphasis. Wrappers such as div, section or span are unwrapped; a block wrapper
is a paragraph boundary, so text directly in a block container lands in an implicit <p>. Kept
blocks nest at most `MAX_BLOCK_DEPTH` deep and inline markup at most `MAX_INLINE_DEPTH` deep;
deeper markup is flattened, so later passes over the clean tree stay shallow however deep the
input was. The clean tree is serialized and sanitized by nh3 (an allowlist: no script, event
handler or javascript: URL survives), and turned into text and Markdown by `winnow.markdown`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import lxml.etree as etree
import nh3

from winnow.markdown import count_words, to_markdown, to_text
from winnow.page import HtmlElement, is_hidden

MAX_BLOCK_DEPTH = 40
"""Kept blocks nested deeper than this are unwrapped (their text stays)."""
MAX_INLINE_DEPTH = 12
"""Inline formatting nested deeper than this is unwrapped."""
MAX_SPAN = 1000
"""Largest colspan/rowspan kept."""
URL_SCHEMES = frozenset({"http", "https", "mailto"})
"""Schemes links and images may use, after relative URLs are resolved against the page URL."""

_BLOCK_ONLY, _FLOW, _LEAF, _STRUCT = range(4)
"""Block modes: blocks only (text gets an implicit <p>), blocks or inline, inline only, and
structural (lists, tables: only their own parts, anything else gets an implicit part)."""

BLOCK_MODES = {
    "p": _LEAF, "h1": _LEAF, "h2": _LEAF, "h3": _LEAF, "h4": _LEAF, "h5": _LEAF, "h6": _LEAF,
    "dt": _LEAF, "pre": _LEAF, "li": _FLOW, "dd": _FLOW, "td": _FLOW, "th": _FLOW,
    "figure": _FLOW, "figcaption": _FLOW, "caption": _FLOW, "blockquote": _BLOCK_ONLY,
    "ul": _STRUCT, "ol": _STRUCT, "dl": _STRUCT, "table": _STRUCT, "thead": _STRUCT,
    "tbody": _STRUCT, "tfoot": _STRUCT, "tr": _STRUCT}
INLINE_TAGS = frozenset({
    "a", "em", "strong", "b", "i", "u", "s", "sub", "sup", "mark", "small", "q", "cite", "abbr",
    "time", "kbd", "samp", "var", "code"})
DROP_TAGS = frozenset({
    "script", "style", "template", "link", "meta", "head", "title", "svg", "iframe", "object",
    "embed", "applet", "canvas", "button", "input", "select", "textarea", "audio", "video",
    "map", "area", "source", "track", "param", "dialog", "frame", "frameset", "wbr",
    "annotation", "annotation-xml"})
"""Elements whose whole subtree never belongs in the reader view."""
BLOCK_WRAPPERS = frozenset({
    "div", "section", "article", "main", "header", "footer", "aside", "nav", "center", "form",
    "fieldset", "legend", "details", "summary", "address", "hgroup", "menu", "dir", "body",
    "html", "noframes", "search"})
"""Wrappers dropped while still separating the paragraphs around them."""
RENAMES = {"strike": "s", "del": "s", "ins": "u", "tt": "code", "dfn": "em", "acronym": "abbr",
           "listing": "pre", "xmp": "pre", "plaintext": "pre", "amp-img": "img"}
SPECIAL_TAGS = frozenset({"img", "br", "hr", "picture", "noscript"})

_ROWS = frozenset({"tr"})
VALID_CHILDREN = {"ul": frozenset({"li"}), "ol": frozenset({"li"}), "dl": frozenset({"dt", "dd"}),
                  "table": frozenset({"caption", "thead", "tbody", "tfoot", "tr"}),
                  "thead": _ROWS, "tbody": _ROWS, "tfoot": _ROWS, "tr": frozenset({"td", "th"})}
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
"""Blocks kept without text, so table grids keep their shape."""
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")

SANITIZE_TAGS = INLINE_TAGS | frozenset(BLOCK_MODES) | frozenset({"img", "br", "hr"})
SANITIZE_ATTRIBUTES = {
    "*": {"lang", "dir"}, "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"}, "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"}, "time": {"datetime"}, "ol": {"start", "reversed"},
    "abbr": {"title"}}

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
_PLAIN_PATH_RE = re.compile(r"^/(?!/)[^\s\\]*$")
_ABSOLUTE_HTTP_RE = re.compile(r"^https?://[^\s\\/?#]+(?:[/?#][^\s\\]*)?$", re.I)
_NON_SPACE_RE = re.compile(r"\S+")
_LANG_RE = re.compile(r"^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$")
_CODE_LANG_RE = re.compile(r"(?:^|\s)(?:lang(?:uage)?-|highlight-(?:source-)?)([\w+#.-]{1,30})")
_WORD_RE = re.compile(r"\w+")

_NONE, _SPACE, _BREAK = range(3)
"""What separates the next inline content from the previous: nothing, a space, a <br>."""
_SKIP, _BOUNDARY, _INLINE = object(), object(), object()
"""Walk tokens: subtree handled already, unwrapped block wrapper, kept inline element."""


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
    root = renderer.root
    if title:
        _drop_title_heading(root, title)
    for child in root:
        child.tail = "\n"
    text = to_text(root)
    images = list(dict.fromkeys(img.get("src", "") for img in root.iter("img")))
    return Rendered(html=_sanitize(root, renderer.code_classes), text=text,
                    markdown=to_markdown(root), word_count=count_words(text), images=images)


def safe_url(url: str | None, base_url: str | None) -> str | None:
    """Return `url` made absolute against `base_url`; None when empty or not http(s)/mailto."""
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
    """`safe_url` against one base, memoized, with fast paths for the common URL shapes."""

    def __init__(self, base_url: str | None) -> None:
        self.base_url = base_url
        self.cache: dict[str, str | None] = {}
        parts = urlsplit(base_url) if base_url else None
        self.origin = f"{parts.scheme}://{parts.netloc}" if parts and parts.netloc and \
            parts.scheme.lower() in ("http", "https") else None

    def __call__(self, url: str | None) -> str | None:
        """Return the safe absolute form of `url`, or None."""
        if not url:
            return None
        result = self.cache.get(url, "")
        if result != "":
            return result
        if _ABSOLUTE_HTTP_RE.match(url) and "/." not in url:
            result = url
        elif self.origin and _PLAIN_PATH_RE.match(url) and "/." not in url:
            result = self.origin + url
        else:
            try:
                result = safe_url(url, self.base_url)
            except ValueError:
                result = None
        self.cache[url] = result
        return result


def best_srcset_url(srcset: str) -> str | None:
    """Return the widest (else densest, else first) candidate URL of a srcset value."""
    best, best_key = None, (-1, -1.0)
    for url, descriptor in _srcset_candidates(srcset):
        key = _descriptor_key(descriptor)
        if key > best_key:
            best, best_key = url, key
    return best


def _srcset_candidates(srcset: str) -> Iterator[tuple[str, str]]:
    """Yield a srcset's (url, descriptor) pairs; as the spec says, URLs may contain commas."""
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
        if url:
            yield url, descriptor


def _descriptor_key(descriptor: str) -> tuple[int, float]:
    """Rank a srcset descriptor: widths beat densities, which beat no descriptor."""
    for token in descriptor.split():
        try:
            value = float(token[:-1])
        except ValueError:
            continue
        unit = token[-1:].lower()
        if unit in ("w", "x"):
            return (2 if unit == "w" else 1), value
    return 0, 0.0


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
    """Return a <picture>'s widest width-described candidate, else its img's own source."""
    best, best_width = None, -1.0
    for node in picture.iter("source", "img"):
        for attr in SRCSET_ATTRS:
            for url, descriptor in _srcset_candidates(node.get(attr) or ""):
                kind, width = _descriptor_key(descriptor)
                if kind == 2 and width > best_width and not is_placeholder(url):
                    best, best_width = url, width
    if best is None and img is not None:
        best = image_src(img)
    for source in picture.iter("source") if best is None else ():
        best = best_srcset_url(source.get("srcset") or source.get("data-srcset") or "")
        if best:
            break
    return best


def _is_tracking_pixel(img: HtmlElement) -> bool:
    """True when a width or height attribute says the image is at most one pixel."""
    for attr in ("width", "height"):
        if (img.get(attr) or "").strip().lower().removesuffix("px") in ("0", "1"):
            return True
    return False


def _common_attrs(el: HtmlElement) -> dict[str, str]:
    """Return an element's valid lang and dir attributes."""
    attrs: dict[str, str] = {}
    lang = (el.get("lang") or "").strip()
    if lang and _LANG_RE.match(lang):
        attrs["lang"] = lang
    direction = (el.get("dir") or "").strip().lower()
    if direction in ("ltr", "rtl", "auto"):
        attrs["dir"] = direction
    return attrs


def _block_attrs(el: HtmlElement, tag: str) -> dict[str, str]:
    """Return the attributes kept on a block: spans on cells, numbering on ordered lists."""
    attrs = _common_attrs(el)
    if tag == "td" or tag == "th":
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
    for node in nodes if parent is None else [*nodes, parent]:
        match = _CODE_LANG_RE.search(node.get("class") or "")
        if match:
            return match.group(1).lower()
        declared = (node.get("data-lang") or node.get("data-language") or "").strip()
        if declared and _CODE_LANG_RE.search(f"lang-{declared}"):
            return declared.lower()
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
            if stack:
                parts.append(el.tail or "")
        elif isinstance(child.tag, str) and child.tag not in DROP_TAGS:
            parts.append("\n" if child.tag == "br" else child.text or "")
            stack.append((child, iter(child)))
        else:
            parts.append(child.tail or "")
    text = "".join(parts).replace("\r\n", "\n").replace("\xa0", " ")
    return text.removeprefix("\n").rstrip()


class _Frame:
    """One open block of the clean tree and what has been written into it."""

    __slots__ = ("el", "mode", "implicit", "has_content", "last_inline", "br_run", "open")

    def __init__(self, el: etree._Element, mode: int, implicit: bool) -> None:
        self.el, self.mode, self.implicit = el, mode, implicit
        self.has_content = self.last_inline = self.br_run = False
        self.open = True


class _Inline:
    """An open inline element of the input; `out` is its copy in the current block, if any."""

    __slots__ = ("tag", "attrs", "out")

    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs = tag, attrs
        self.out: etree._Element | None = None


class _Builder:
    """Builds the clean tree from a stream of block, inline and text events.

    Inline elements are created lazily, when content arrives, and reopened inside each block
    they span. Text is buffered and written once per target element, so an element receiving
    100,000 text pieces is still built in linear time.
    """

    def __init__(self) -> None:
        self.root = etree.Element("div")
        self.stack = [_Frame(self.root, _BLOCK_ONLY, False)]
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
            self.pending = self.pending or _SPACE
            if not core:
                return
        target = self._target()
        if target is not self.buf_el:
            self._flush()
            self.buf_el = target
        self.buf.append(core)
        top = self.stack[-1]
        top.has_content = top.last_inline = True
        top.br_run = self.after_image = False
        if raw[-1].isspace():
            self.pending = _SPACE

    def image(self, attrs: dict[str, str]) -> None:
        """Add an <img> at the current inline position."""
        self._element(self._target(), "img", attrs)
        top = self.stack[-1]
        top.has_content = top.last_inline = self.after_image = True
        top.br_run = False

    def br(self) -> None:
        """Add a line break; two in a row in an implicit paragraph start a new paragraph."""
        top = self.stack[-1]
        if top.mode == _BLOCK_ONLY or top.mode == _STRUCT or not top.has_content:
            return
        parent = self._deepest(top)
        self.pending = _NONE
        if top.br_run and top.implicit and parent is top.el:
            self._pop()
        else:
            self._element(parent, "br")
            top.br_run = True

    def hr(self) -> None:
        """Add a thematic break between blocks."""
        top = self._close_implicit_paragraph()
        if top.mode == _LEAF or top.mode == _STRUCT:
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
        self.code_classes.update(attrs.values())
        self._element(frame.el, "code", attrs).text = text
        frame.has_content = bool(text.strip())
        self.end_block(frame)

    def start_inline(self, tag: str, attrs: dict[str, str]) -> bool:
        """Open inline formatting; False (unwrap it) when nested too deep or in its own kind."""
        if len(self.chain) >= MAX_INLINE_DEPTH or any(i.tag == tag for i in self.chain):
            return False
        self.chain.append(_Inline(tag, attrs))
        return True

    def boundary(self) -> None:
        """Separate what follows from what came before, as an unwrapped block wrapper does."""
        top = self.stack[-1]
        if top.mode == _LEAF:
            if top.implicit:
                self._pop()
            elif top.has_content:
                self.pending = self.pending or _SPACE
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
            top = self._push(IMPLICIT_CHILD[top.el.tag], {}, True)
        parents = REQUIRED_PARENT.get(tag)
        if (parents is not None and top.el.tag not in parents) or \
                len(self.stack) >= MAX_BLOCK_DEPTH:
            self.boundary()
            return None
        return self._push(tag, attrs, False)

    def end_block(self, frame: _Frame) -> None:
        """Close a kept block and any implicit blocks still open inside it."""
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

    def _target(self) -> etree._Element:
        """Return the element inline content goes into, opening what it needs first."""
        top = self.stack[-1]
        if not self.pending and (top.mode == _LEAF or top.mode == _FLOW):
            if not self.chain:
                return top.el
            if self.chain[-1].out is not None:
                return self.chain[-1].out
        while top.mode == _BLOCK_ONLY or top.mode == _STRUCT:
            tag = "p" if top.mode == _BLOCK_ONLY else IMPLICIT_CHILD[top.el.tag]
            top = self._push(tag, {}, True)
        if self.pending and top.has_content and top.last_inline:
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
        """Return the innermost inline element already open in the top block."""
        parent = top.el
        for item in self.chain:
            if item.out is None:
                break
            parent = item.out
        return parent

    def _push(self, tag: str, attrs: dict[str, str], implicit: bool) -> _Frame:
        top = self.stack[-1]
        frame = _Frame(self._element(top.el, tag, attrs), BLOCK_MODES[tag], implicit)
        top.last_inline = False
        self.stack.append(frame)
        self._reset_chain()
        self.pending = _NONE
        return frame

    def _pop(self) -> None:
        """Close the top block; drop it when it got no text or image."""
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
        if self.buf:
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
    """Remove the <br>s that end a block."""
    while True:
        try:
            last = el[-1]
        except IndexError:
            return
        if last.tag != "br" or (last.tail and not last.tail.isspace()):
            return
        el.remove(last)


class _Renderer(_Builder):
    """Walks the input subtree iteratively and builds the clean tree from it."""

    def __init__(self, content: HtmlElement, base_url: str | None) -> None:
        super().__init__()
        self.content = content
        self.resolve = _UrlResolver(base_url)
        self.consumed: set[HtmlElement] = set()

    def walk(self) -> None:
        """Visit every node once, in document order, keeping open elements on a list."""
        content, text, chain = self.content, self.text, self.chain
        if content.text:
            text(content.text)
        stack: list[tuple[HtmlElement, Iterator[HtmlElement], object]] = [
            (content, iter(content), None)]
        while stack:
            el, children, token = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                if token is _INLINE:
                    chain.pop()
                elif token is _BOUNDARY:
                    self.boundary()
                elif isinstance(token, _Frame):
                    self.end_block(token)
                if el.tail and stack:
                    text(el.tail)
                continue
            if isinstance(child.tag, str):  # comments and processing instructions are not
                token = self._open(child)
                if token is not _SKIP:
                    if child.text:
                        text(child.text)
                    stack.append((child, iter(child), token))
                    continue
            if child.tail:
                text(child.tail)
        self.finish()

    def _open(self, el: HtmlElement) -> object:
        """Handle an element's start; return the token its end needs, or _SKIP."""
        tag = el.tag
        if tag in DROP_TAGS or is_hidden(el):
            return _SKIP
        tag = RENAMES.get(tag, tag)
        if tag in INLINE_TAGS:
            attrs = self._inline_attrs(el, tag)
            return _INLINE if attrs is not None and self.start_inline(tag, attrs) else None
        if tag in BLOCK_MODES:
            if tag == "pre":
                self.pre(_pre_text(el), _code_language(el))
                return _SKIP
            return self.start_block(tag, _block_attrs(el, tag)) or _BOUNDARY
        if tag in BLOCK_WRAPPERS or "-" in tag:
            self.boundary()
            return _BOUNDARY
        return self._open_special(el, tag) if tag in SPECIAL_TAGS else None

    def _open_special(self, el: HtmlElement, tag: str) -> object:
        """Handle images, breaks, rules and noscript (read only as an image fallback)."""
        if tag == "img":
            self._image(el, image_src(el))
        elif tag == "br":
            self.br()
        elif tag == "hr":
            self.hr()
        elif tag == "picture":
            img = next(el.iter("img"), None)
            self._image(el if img is None else img, _picture_src(el, img))
        elif el not in self.consumed and not self.after_image and \
                next(el.iter("img"), None) is not None:
            return None
        return _SKIP

    def _inline_attrs(self, el: HtmlElement, tag: str) -> dict[str, str] | None:
        """Return a kept inline element's attributes; None unwraps it (a link without href)."""
        attrs = _common_attrs(el)
        if tag == "a":
            href = self.resolve(el.get("href"))
            if href is None:
                return None
            attrs["href"] = href
        if (tag == "a" or tag == "abbr") and el.get("title"):
            attrs["title"] = " ".join(el.get("title", "").split())
        elif tag == "time" and el.get("datetime"):
            attrs["datetime"] = el.get("datetime", "").strip()
        return attrs

    def _image(self, img: HtmlElement, src: str | None) -> None:
        """Add an image unless it is a tracking pixel or has no usable source."""
        if _is_tracking_pixel(img):
            return
        url = self.resolve(src if src is not None else self._noscript_fallback(img))
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
        self.image(attrs)

    def _noscript_fallback(self, img: HtmlElement) -> str | None:
        """Return the source of the <noscript> copy next to a placeholder image, if any."""
        parent = img.getparent()
        candidates = [img.getnext(), img.getprevious()]
        if parent is not None and parent is not self.content:
            candidates.append(parent.getnext())
        for node in candidates:
            inner = None if node is None or node.tag != "noscript" else \
                next(node.iter("img"), None)
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
    parent, previous, tail = heading.getparent(), heading.getprevious(), heading.tail
    if parent is None:
        return
    parent.remove(heading)
    if tail and tail.strip():
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
