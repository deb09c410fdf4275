"""Reader-view rendering: an extracted content subtree to clean HTML, plain text and Markdown.

`render_article` walks the content once, with an explicit stack, rebuilding it as a fresh tree in
the reader vocabulary (headings, paragraphs, lists, quotes, code, figures, tables, links, inline
emphasis). Wrappers are unwrapped; a block wrapper (div, section...) is a paragraph boundary, so
text directly in a block container lands in an implicit <p>. Blocks nest `MAX_BLOCK_DEPTH` deep
and inline markup `MAX_INLINE_DEPTH` deep at most (deeper markup is flattened), so passes over the
clean tree stay shallow. `winnow.markdown` sanitizes and serializes the result.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import urlsplit

import lxml.etree as etree

from winnow.markdown import (
    MATHML_TAGS,
    count_words,
    sanitize_html,
    to_markdown,
    to_text,
)
from winnow.page import HIDING_ATTRS, HtmlElement, is_hidden
from winnow.renderinput import (
    THEME_ASSET_RE,
    UrlResolver,
    best_srcset_url,
    block_attrs,
    code_language,
    common_attrs,
    has_image,
    image_src,
    is_layout_table,
    is_placeholder,
    mathml_attrs,
    picture_src,
    pre_text,
    safe_url,
)
from winnow.tidy import (
    CAPTION_ATTRS,
    CAPTION_MARK,
    CAPTION_TAGS,
    CONTROL_ATTRS,
    captions_are_the_text,
    drop_byline_block,
    drop_duplicate_figures,
    drop_leading_datelines,
    drop_title_heading,
    is_caption_region,
    is_control,
)

__all__ = ["MAX_BLOCK_DEPTH", "Rendered", "best_srcset_url", "image_src", "is_layout_table",
           "is_placeholder", "render_article", "safe_url"]
"""The renderer, and the input helpers of `winnow.renderinput` callers know from here."""

MAX_BLOCK_DEPTH = 40  # kept blocks nested deeper are unwrapped (their text stays)
MAX_INLINE_DEPTH = 12  # inline formatting nested deeper is unwrapped
TABLE_PARTS = frozenset({"table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption"})

# Block modes: blocks only (text gets an implicit <p>), blocks or inline, inline only, and
# structural (lists and tables hold only their parts; anything else gets an implicit part).
_BLOCK_ONLY, _FLOW, _LEAF, _STRUCT = range(4)
BLOCK_MODES = {
    "p": _LEAF, "h1": _LEAF, "h2": _LEAF, "h3": _LEAF, "h4": _LEAF, "h5": _LEAF, "h6": _LEAF,
    "dt": _LEAF, "pre": _LEAF, "li": _FLOW, "dd": _FLOW, "td": _FLOW, "th": _FLOW,
    "figure": _FLOW, "figcaption": _FLOW, "caption": _FLOW, "blockquote": _BLOCK_ONLY,
    "ul": _STRUCT, "ol": _STRUCT, "dl": _STRUCT, "table": _STRUCT, "thead": _STRUCT,
    "tbody": _STRUCT, "tfoot": _STRUCT, "tr": _STRUCT, "hr": _LEAF}
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

_ROWS = frozenset({"tr"})
VALID_CHILDREN = {"ul": frozenset({"li"}), "ol": frozenset({"li"}), "dl": frozenset({"dt", "dd"}),
                  "table": frozenset({"caption", "thead", "tbody", "tfoot", "tr"}),
                  "thead": _ROWS, "tbody": _ROWS, "tfoot": _ROWS, "tr": frozenset({"td", "th"})}
IMPLICIT_CHILD = {"ul": "li", "ol": "li", "dl": "dd", "table": "tr", "thead": "tr",
                  "tbody": "tr", "tfoot": "tr", "tr": "td"}
REQUIRED_PARENT = {child: frozenset(p for p in VALID_CHILDREN if child in VALID_CHILDREN[p])
                   for kids in VALID_CHILDREN.values() for child in kids}
REQUIRED_PARENT["figcaption"] = frozenset({"figure"})
"""Parts that only make sense inside their parent; elsewhere they are unwrapped."""
KEPT_ROOTS = frozenset(BLOCK_MODES).difference(REQUIRED_PARENT, {"table"})
"""Content roots rendered as themselves; other roots (div, table, td...) are unwrapped."""
KEEP_EMPTY = frozenset({"td", "th", "hr"})
"""Blocks kept without text: table cells, so grids keep their shape, and rules."""


_NONE, _SPACE, _BREAK = range(3)
"""What separates the next inline content from the previous: nothing, a space, a <br>."""
_SKIP, _BOUNDARY, _INLINE = object(), object(), object()
"""Walk tokens: subtree handled already, unwrapped block wrapper, kept inline element."""
_SKIPPING_ATTRS = frozenset(HIDING_ATTRS) | CONTROL_ATTRS
"""The attributes that may hide an element or make it a control (`is_hidden`,
`is_control`): an element with none of them is neither, asked nothing more."""


@dataclass
class Rendered:
    """The reader body in every output form, plus the image URLs it shows. The HTML, the
    Markdown and the word count are made when first read: most bodies rendered during an
    extraction (the retry trigger's, a thread's role check, a main region's) are only read
    as text."""

    text: str
    root: etree._Element = field(repr=False, compare=False)
    """The clean tree the HTML and the Markdown are serialized from."""
    images: list[str] = field(default_factory=list)
    code_classes: set[str] = field(default_factory=set, repr=False, compare=False)
    """The language-x classes the code blocks of `root` may keep (see `sanitize_html`)."""

    @cached_property
    def html(self) -> str:
        return sanitize_html(self.root, self.code_classes)

    @cached_property
    def markdown(self) -> str:
        return to_markdown(self.root)

    @cached_property
    def word_count(self) -> int:
        return count_words(self.text)


def render_article(content: HtmlElement, base_url: str | None,
                   title: str | None = None, byline: str | None = None) -> Rendered:
    """Render the extracted content subtree as sanitized HTML, text and Markdown. With a
    header (the `title` and `byline` shown apart, as an article has), the body leaves out
    the heading, the byline line and the leading datelines that repeat it; a post, which has
    none, keeps its first lines."""
    renderer = _Renderer(content, base_url)
    renderer.walk()
    root = renderer.root
    if title:
        drop_title_heading(root, title)
    if byline:
        drop_byline_block(root, byline)
    if title or byline:
        drop_leading_datelines(root)
    drop_duplicate_figures(root)
    text = to_text(root)
    if captions_are_the_text(root, text):
        text = to_text(root)
    images = list(dict.fromkeys(img.get("src", "") for img in root.iter("img")))
    return Rendered(text=text, images=images, root=root, code_classes=renderer.code_classes)


def _math_text(el: etree._Element, text: str | None) -> None:
    """Append text at the end of `el`'s content (its text, or its last child's tail)."""
    core = " ".join(text.split()) if text else ""
    if not core:
        return
    if len(el):
        el[-1].tail = (el[-1].tail or "") + core
    else:
        el.text = (el.text or "") + core


class _Frame:
    """One open block of the clean tree and what has been written into it."""

    __slots__ = ("el", "mode", "implicit", "has_content", "last_inline", "br_run", "open")

    def __init__(self, el: etree._Element, mode: int, implicit: bool) -> None:
        self.el, self.mode, self.implicit = el, mode, implicit
        self.has_content = self.last_inline = self.br_run = False
        self.open = True


@dataclass(slots=True)
class _Inline:
    """An open inline element of the input; `out` is its copy in the current block, if any."""

    tag: str
    attrs: dict[str, str]
    out: etree._Element | None = None


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
        self.code_classes: set[str] = set()

    def text(self, raw: str) -> None:
        """Add text, collapsing whitespace runs to one space and dropping edge spaces."""
        if not raw or raw[0].isspace():
            self.pending = self.pending or _SPACE
            if not raw or raw.isspace():
                return
        core = " ".join(raw.split())
        target = self._target()
        if target is not self.buf_el:
            self._flush()
            self.buf_el = target
        self.buf.append(core)
        self._inline_added()
        if raw[-1].isspace():
            self.pending = _SPACE

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
        if self.stack[-1].implicit and self.stack[-1].mode == _LEAF:
            self._pop()
        top = self.stack[-1]
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

    def end_block(self, frame: _Frame | None) -> None:
        """Close a kept block and any implicit blocks still open inside it."""
        while frame is not None and frame.open:
            self._pop()

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
            el = frame.el
            while len(el) and el[-1].tag == "br" and (el[-1].tail or " ").isspace():
                el.remove(el[-1])  # a block's trailing line breaks
            parent.has_content = parent.has_content or frame.has_content
            parent.last_inline = False
            if parent is self.stack[0]:
                frame.el.tail = "\n"
        else:
            parent.el.remove(frame.el)
            if parent.mode == _FLOW and parent.last_inline:
                self.pending = _BREAK

    def _reset_chain(self) -> None:
        for item in self.chain:
            item.out = None

    def _inline_added(self) -> None:
        """Note that inline content (text, an image, a formula) went into the open block."""
        top = self.stack[-1]
        top.has_content = top.last_inline = True
        top.br_run = False

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


class _Renderer(_Builder):
    """Walks the input subtree iteratively and builds the clean tree from it."""

    def __init__(self, content: HtmlElement, base_url: str | None) -> None:
        super().__init__()
        self.content, self.base_url = content, base_url
        self.consumed: set[HtmlElement] = set()
        self.table_kinds: dict[HtmlElement, bool] = {}
        self.resolve = UrlResolver(base_url).resolve
        self.caption: HtmlElement | None = None
        """The caption region being walked, if any (see `winnow.tidy`)."""

    def _start_caption(self, el: HtmlElement) -> None:
        """Open a caption region: its content goes into a marked inline wrapper, reopened in
        every block it reaches, which `to_text` leaves out."""
        self.boundary()
        self.caption = el
        self.chain.append(_Inline("span", {CAPTION_MARK: ""}))

    def _end_caption(self) -> None:
        self.caption = None
        while self.chain:
            if self.chain.pop().tag == "span":
                break
        self.boundary()

    def walk(self) -> None:
        """Visit every node once, in document order, keeping open elements on a list."""
        content, text, chain = self.content, self.text, self.chain
        kept = RENAMES.get(content.tag, content.tag) in KEPT_ROOTS
        if content.text and not kept:
            text(content.text)
        stack: list[tuple[HtmlElement, Iterator[HtmlElement], object]] = [
            (content, iter((content,) if kept else content), None)]
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
                if el is self.caption:
                    self._end_caption()
                if el.tail and stack and el is not content:
                    text(el.tail)
            elif not isinstance(child.tag, str):  # a comment or processing instruction
                if child.tail:
                    text(child.tail)
            elif (token := self._open(child)) is _SKIP:
                stack.append((child, iter(()), None))  # handled: only its tail is left
            else:
                if child.text:
                    text(child.text)
                stack.append((child, iter(child), token))
        while len(self.stack) > 1:
            self._pop()

    def _open(self, el: HtmlElement) -> object:
        """Handle an element's start; return the token its end needs, or _SKIP."""
        tag = el.tag
        if tag in DROP_TAGS:
            return _SKIP
        names = el.keys()
        bare = not names  # most elements: nothing hides them, makes them controls, ...
        if not _SKIPPING_ATTRS.isdisjoint(names) and (is_hidden(el) or is_control(el)):
            return _SKIP
        if self.caption is None \
                and (tag in CAPTION_TAGS or not CAPTION_ATTRS.isdisjoint(names)) \
                and is_caption_region(el):
            self._start_caption(el)
        tag = RENAMES.get(tag, tag)
        if tag in INLINE_TAGS:  # a bare element keeps no attribute; a bare link is unwrapped
            attrs = self._inline_attrs(el, tag) if not bare or tag == "a" else {}
            return _INLINE if attrs is not None and self.start_inline(tag, attrs) else None
        if tag in TABLE_PARTS and self._in_layout_table(el):
            self.boundary()
            return _BOUNDARY
        if tag in BLOCK_MODES:
            if tag == "pre":
                self.pre(pre_text(el), code_language(el))
                return _SKIP
            return self.start_block(tag, {} if bare else block_attrs(el, tag)) or _BOUNDARY
        if tag in BLOCK_WRAPPERS or ("-" in tag and not tag.startswith("mjx-")):
            self.boundary()
            return _BOUNDARY
        if tag == "math":
            self._formula(el)
        elif tag == "img":
            self._image(el, image_src(el))
        elif tag == "br":
            self.br()
        elif tag == "hr":
            self.end_block(self.start_block("hr", {}))
        elif tag == "picture":
            img = next(el.iter("img"), None)
            self._image(el if img is None else img, picture_src(el, img))
        elif tag == "noscript":
            if el not in self.consumed and not has_image(el.getprevious()):
                for img in el.iter("img"):  # a lazy page's fallback images; its text is a
                    self._image(img, image_src(img))  # "please turn on JavaScript" notice
        else:
            return None  # unknown tags are unwrapped
        return _SKIP

    def _in_layout_table(self, el: HtmlElement) -> bool:
        """True for a layout table and its parts: they are unwrapped like <div>s."""
        table = el if el.tag == "table" else next(el.iterancestors("table"), None)
        if table is None:
            return False
        if table not in self.table_kinds:
            self.table_kinds[table] = is_layout_table(table)
        return self.table_kinds[table]

    def _inline_attrs(self, el: HtmlElement, tag: str) -> dict[str, str] | None:
        """Return a kept inline element's attributes; None unwraps it (a link without href)."""
        attrs = common_attrs(el)
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
        """Add an image unless it is a tracking pixel (1x1), a graphic of the site's theme
        or has no usable source."""
        if any((img.get(attr) or "").strip().lower().removesuffix("px") in ("0", "1")
               for attr in ("width", "height")):
            return
        url = self.resolve(src if src is not None else self._noscript_fallback(img))
        if url is None or THEME_ASSET_RE.search(urlsplit(url).path):
            return
        attrs = {"src": url}
        for name in ("alt", "title", "width", "height"):
            value = " ".join((img.get(name) or "").split())
            if value and (name in ("alt", "title") or (value.isdigit() and len(value) < 6)):
                attrs[name] = value
        self._element(self._target(), "img", attrs)
        self._inline_added()

    def _formula(self, math: HtmlElement) -> None:
        """Copy a MathML formula: its presentation elements and attributes, its token text
        with whitespace collapsed; other elements inside are unwrapped, annotations and
        hidden parts dropped."""
        out = self._element(self._target(), "math", mathml_attrs(math))
        _math_text(out, math.text)
        # (children left, where their content goes, where the tail goes, the tail)
        stack: list[tuple[Iterator[HtmlElement], etree._Element, etree._Element, str | None]]
        stack = [(iter(math), out, out, None)]
        while stack:
            children, target, parent, tail = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                _math_text(parent, tail)
            elif not isinstance(child.tag, str) or child.tag in DROP_TAGS or is_hidden(child):
                _math_text(target, child.tail)
            else:
                inner = target
                if child.tag in MATHML_TAGS and len(stack) < MAX_BLOCK_DEPTH:
                    inner = etree.SubElement(target, child.tag, mathml_attrs(child))
                _math_text(inner, child.text)
                stack.append((iter(child), inner, target, child.tail))
        self._inline_added()

    def _noscript_fallback(self, img: HtmlElement) -> str | None:
        """Return the source of the <noscript> copy after a placeholder image, if any."""
        parent = img.getparent()
        for node in (img.getnext(),
                     None if parent is None or parent is self.content else parent.getnext()):
            inner = next(node.iter("img"), None) if node is not None and \
                node.tag == "noscript" else None
            if inner is not None:
                self.consumed.add(node)
                return image_src(inner)
        return None
