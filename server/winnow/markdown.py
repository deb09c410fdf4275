"""Output forms of the clean reader tree `winnow.render` builds: Markdown, text, safe HTML.

The clean tree holds only the reader vocabulary, its blocks nest at most a few dozen levels
and inline elements never contain blocks, so these serializers recurse over it safely: the
recursion depth is bounded by the renderer's depth caps, never by the input page.

Text puts "\\n\\n" between blocks, one line per list item, tabs between table cells and keeps
code verbatim. Markdown is CommonMark with GFM tables and strikethrough.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import lxml.etree as etree
import nh3

from winnow.tidy import CAPTION_MARK, all_text

INLINE = frozenset({
    "a", "em", "strong", "b", "i", "u", "s", "sub", "sup", "mark", "small", "q", "cite", "abbr",
    "time", "kbd", "samp", "var", "code", "img", "br", "math", "span"})
"""Inline elements of the clean tree; every other element is a block. A `span` only wraps
caption content (`winnow.tidy.CAPTION_MARK`): the sanitizer strips it, keeping its text."""

MATHML_TAGS = frozenset({
    "math", "mi", "mo", "mn", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot",
    "mstyle", "merror", "mpadded", "mphantom", "msub", "msup", "msubsup", "munder", "mover",
    "munderover", "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd",
    "semantics", "menclose"})
"""MathML Core presentation elements a formula keeps (annotations are dropped)."""
MATHML_ATTRIBUTES = frozenset({
    "display", "mathvariant", "displaystyle", "scriptlevel", "stretchy", "fence",
    "separator", "accent", "accentunder", "largeop", "movablelimits", "linethickness",
    "columnspan", "rowspan", "notation"})
"""Presentation attributes a formula keeps; none of them holds a URL or script."""

LISTS = frozenset({"ul", "ol", "dl"})
PARAGRAPH_LIKE = frozenset({"p", "blockquote", "pre", "table", "figure", "dl", "h1", "h2", "h3",
                            "h4", "h5", "h6"})
"""Blocks that make a list item loose (blank lines between its parts) when it has several."""

CODE_SPANS = frozenset({"code", "kbd", "samp"})
EMPHASIS = {"em": "*", "i": "*", "strong": "**", "b": "**", "s": "~~"}
HTML_INLINE = frozenset({"sub", "sup"})
HARD_BREAK = "  \n"
BULLET = "- "
RULE = "---"
QUOTES = ("\u201c", "\u201d")

_ESCAPE_RE = re.compile(
    r"[\\`*\[\]]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|<(?=[A-Za-z/!?])|&(?=#?\w+;)")
_LINE_START_RE = re.compile(r"^(#{1,6}(?=\s|$)|[-+](?=\s|$)|>|={2,}|-{2,}|~~~)")
_ORDERED_START_RE = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
_ESCAPE_CHARS = frozenset("\\`*[]_<&")
_LINE_START_CHARS = frozenset("#-+>=~0123456789")
_BACKTICKS_RE = re.compile(r"`+")
_CODE_CLASS_RE = re.compile(r"language-([\w+#.-]+)")
CJK_RE = re.compile("[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
                    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]")
"""Hangul jamo, kana, Hangul compatibility jamo, CJK ideographs and Hangul syllables."""
_WORD_RE = re.compile(r"\w+")
_PUNCT_TOKEN_RE = re.compile(r"\s[^\w\s]+(?=\s)")

ALLOWED_TAGS = INLINE - {"span"} | frozenset({
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "blockquote",
    "pre", "figure", "figcaption", "table", "caption", "thead", "tbody", "tfoot", "tr", "th",
    "td", "hr"}) | MATHML_TAGS
"""The reader vocabulary nh3 lets through; everything else is stripped (script with content)."""
ALLOWED_ATTRIBUTES = {
    "*": {"lang", "dir"}, "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"}, "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"}, "time": {"datetime"}, "ol": {"start", "reversed"},
    "abbr": {"title"}, **{tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS}}
URL_SCHEMES = {"http", "https", "mailto"}



def to_text(root: etree._Element) -> str:
    """Return the tree's plain text: blocks separated by blank lines."""
    blocks: list[str] = []
    _text_blocks(root, blocks)
    return "\n\n".join(blocks)


def to_markdown(root: etree._Element) -> str:
    """Return the tree as Markdown."""
    blocks: list[str] = []
    _md_blocks(root, blocks)
    return "\n\n".join(blocks)


def count_words(text: str) -> int:
    """Count words: space-separated tokens with a letter or digit, and each CJK character.

    Chinese and Japanese put no spaces between words, so a character count is the usable
    measure there (Readability issues 381 and 429); Hangul follows the same rule.
    """
    cjk = len(CJK_RE.findall(text))
    if cjk:
        text = CJK_RE.sub(" ", text)
    return cjk + len(text.split()) - len(_PUNCT_TOKEN_RE.findall(f" {text} "))


def sanitize_html(root: etree._Element, code_classes: set[str]) -> str:
    """Serialize the children of `root` and pass them through nh3's allowlist.

    `code_classes` are the language-x classes code blocks may keep.
    """
    html = etree.tostring(root, encoding="unicode", method="html")
    inner = html[html.find(">") + 1:html.rfind("<")]
    return _cleaner(frozenset(code_classes)).clean(inner).strip()


@functools.lru_cache(maxsize=256)
def _cleaner(code_classes: frozenset[str]) -> nh3.Cleaner:
    """nh3's sanitizer for the reader vocabulary and these code classes, built once: building
    one takes about a millisecond (`nh3.clean` builds one per call), cleaning a body a few
    microseconds more than its size."""
    return nh3.Cleaner(tags=set(ALLOWED_TAGS), attributes=ALLOWED_ATTRIBUTES,
                       url_schemes=URL_SCHEMES, link_rel=None,
                       allowed_classes={"code": set(code_classes)} if code_classes else None)


def formula_text(math: etree._Element) -> str:
    """A MathML formula as linear text, its tokens parted by spaces ("x = b ± 2")."""
    return " ".join(t.strip() for t in math.itertext() if isinstance(t, str) and t.strip())


def _normalize_lines(text: str) -> list[str]:
    """Collapse whitespace within each line and drop empty lines."""
    if "\n" not in text:
        return [" ".join(text.split())] if text and not text.isspace() else []
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return [line for line in lines if line]


# --- plain text -------------------------------------------------------------------------------

def _text_blocks(container: etree._Element, out: list[str]) -> None:
    """Append the text blocks of a container: runs of inline content and child blocks."""
    run: list[str] = [container.text] if container.text else []
    for child in container:
        if child.tag in INLINE:
            _text_inline(child, run)
        else:
            _flush_text(run, out)
            _text_block(child, out)
        if child.tail:
            run.append(child.tail)
    _flush_text(run, out)


def _flush_text(run: list[str], out: list[str]) -> None:
    _flush(run, out, "\n".join)


def _flush(run: list[str], out: list[str], join: Callable[[list[str]], str]) -> None:
    """Turn the inline pieces gathered so far into one block of `out`, lines joined by
    `join`, and start a new run."""
    if not run:
        return
    lines = _normalize_lines("".join(run))
    if lines:
        out.append(join(lines))
    run.clear()


def _text_inline(el: etree._Element, run: list[str]) -> None:
    """Append an inline element's text; <br> becomes a newline and <q> gets quote marks;
    caption content is left out (plain text gives the prose)."""
    if el.tag == "span" and el.get(CAPTION_MARK) is not None:
        return
    if el.tag == "br":
        run.append("\n")
        return
    if el.tag == "math":
        run.append(formula_text(el))
        return
    run.append(QUOTES[0] if el.tag == "q" else "")
    run.append(el.text or "")
    for child in el:
        _text_inline(child, run)
        run.append(child.tail or "")
    run.append(QUOTES[1] if el.tag == "q" else "")


def _text_block(el: etree._Element, out: list[str]) -> None:
    """Append one block's text: lists one item per line, tables as tab-separated rows."""
    tag = el.tag
    if tag in LISTS:
        items = [_text_of(item, "\n") for item in el]
        _append_nonempty(out, "\n".join(item for item in items if item))
    elif tag == "table":
        rows = []
        for row in _table_rows(el):
            rows.append("\t".join(" ".join(_text_of(cell, " ").split()) for cell in row))
        caption = el.find("caption")
        if caption is not None:
            _append_nonempty(out, _text_of(caption, " "))
        _append_nonempty(out, "\n".join(row for row in rows if row.strip()))
    elif tag == "pre":
        _append_nonempty(out, all_text(el))
    elif tag != "hr":
        _text_blocks(el, out)


def _text_of(el: etree._Element, separator: str) -> str:
    blocks: list[str] = []
    _text_blocks(el, blocks)
    return separator.join(blocks)


def _append_nonempty(out: list[str], block: str) -> None:
    if block.strip():
        out.append(block)


def _table_rows(table: etree._Element) -> list[list[etree._Element]]:
    """Return the table's rows (own rows only, not nested tables'), each a list of cells."""
    rows: list[list[etree._Element]] = []
    for child in table:
        if child.tag == "tr":
            rows.append(list(child))
        elif child.tag in ("thead", "tbody", "tfoot"):
            rows.extend(list(row) for row in child if row.tag == "tr")
    return rows


# --- Markdown ---------------------------------------------------------------------------------

def escape(text: str) -> str:
    """Backslash-escape the characters Markdown would read as inline syntax."""
    if _ESCAPE_CHARS.isdisjoint(text):
        return text
    return _ESCAPE_RE.sub(_backslash, text)


def _backslash(match: re.Match[str]) -> str:
    return "\\" + match.group()


def _escape_line_start(line: str) -> str:
    """Escape what would start a heading, list, quote or rule at the beginning of a line."""
    if line[0] not in _LINE_START_CHARS:
        return line
    if line[0].isdigit():
        return _ORDERED_START_RE.sub(r"\1\\\2", line)
    return _LINE_START_RE.sub(r"\\\1", line)


def _md_blocks(container: etree._Element, out: list[str]) -> None:
    """Append the Markdown blocks of a container."""
    run: list[str] = [escape(container.text)] if container.text else []
    for child in container:
        if child.tag in INLINE:
            run.append(_md_inline(child))
        else:
            _flush_md(run, out)
            _BLOCK_HANDLERS.get(child.tag, _md_blocks)(child, out)
        if child.tail:
            run.append(escape(child.tail))
    _flush_md(run, out)


def _flush_md(run: list[str], out: list[str]) -> None:
    _flush(run, out, lambda lines: HARD_BREAK.join(map(_escape_line_start, lines)))


def _md_inline(el: etree._Element) -> str:
    """Return an inline element as Markdown."""
    tag = el.tag
    if tag == "br":
        return "\n"
    if tag == "img":
        return _md_image(el)
    if tag in CODE_SPANS:
        return _code_span(all_text(el))
    if tag == "math":
        return escape(formula_text(el))
    parts = [escape(el.text)] if el.text else []
    for child in el:
        parts.append(_md_inline(child))
        if child.tail:
            parts.append(escape(child.tail))
    inner = "".join(parts)
    if tag == "a":
        return _md_link(inner, el.get("href"))
    if tag in EMPHASIS:
        return _wrap(inner, EMPHASIS[tag], EMPHASIS[tag])
    if tag in HTML_INLINE:
        return _wrap(inner, f"<{tag}>", f"</{tag}>")
    if tag == "q":
        return _wrap(inner, *QUOTES)
    return inner


def _wrap(inner: str, opening: str, closing: str) -> str:
    """Wrap text in delimiters, keeping its edge whitespace outside them."""
    core = inner.strip()
    if not core:
        return inner
    start = inner.index(core[0])
    return f"{inner[:start]}{opening}{core}{closing}{inner[start + len(core):]}"


def _md_destination(url: str) -> str:
    url = url.replace(" ", "%20").replace("<", "%3C").replace(">", "%3E")
    return f"<{url}>" if "(" in url or ")" in url else url


def _md_link(inner: str, href: str | None) -> str:
    if not href or not inner.strip():
        return inner
    return _wrap(inner, "[", f"]({_md_destination(href)})")


def _md_image(img: etree._Element) -> str:
    src = img.get("src")
    if not src:
        return ""
    alt = escape(" ".join((img.get("alt") or "").split()))
    return f"![{alt}]({_md_destination(src)})"


def _code_span(code: str) -> str:
    """Return code as an inline code span, fenced by more backticks than it contains."""
    code = " ".join(code.split())
    if not code:
        return ""
    longest = max((len(m) for m in _BACKTICKS_RE.findall(code)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{fence}{pad}{code}{pad}{fence}"


def _md_of(el: etree._Element, separator: str) -> str:
    blocks: list[str] = []
    _md_blocks(el, blocks)
    return separator.join(blocks)


def _md_heading(el: etree._Element, out: list[str]) -> None:
    text = " ".join(_md_of(el, " ").replace(HARD_BREAK, " ").split())
    if text:
        out.append(f"{'#' * int(el.tag[1])} {text}")


def _md_list(el: etree._Element, out: list[str]) -> None:
    """Append a list: "- " bullets or numbers, item bodies indented under their marker."""
    ordered = el.tag == "ol"
    number = int(el.get("start") or (len(el) if el.get("reversed") is not None else 1))
    step = -1 if el.get("reversed") is not None else 1
    items = []
    for item in el:
        loose = sum(1 for child in item if child.tag in PARAGRAPH_LIKE) > 1
        body = _md_of(item, "\n\n" if loose else "\n")
        marker = f"{number}. " if ordered else BULLET
        number += step
        items.append(marker + _indent(body, " " * len(marker)))
    out.append("\n".join(items))


def _md_definitions(el: etree._Element, out: list[str]) -> None:
    for item in el:
        body = _md_of(item, "\n\n")
        if body:
            out.append(f"**{body}**" if item.tag == "dt" and "*" not in body else body)


def _indent(text: str, pad: str) -> str:
    """Indent every line but the first (empty lines stay empty)."""
    lines = text.split("\n")
    return "\n".join([lines[0], *(pad + line if line else "" for line in lines[1:])])


def _md_quote(el: etree._Element, out: list[str]) -> None:
    body = _md_of(el, "\n\n")
    if body:
        out.append("\n".join(f"> {line}" if line else ">" for line in body.split("\n")))


def _md_pre(el: etree._Element, out: list[str]) -> None:
    """Append a fenced code block, the fence longer than any backtick run inside."""
    code = all_text(el)
    if not code.strip():
        return
    classes = " ".join(node.get("class") or "" for node in el.iter("code"))
    match = _CODE_CLASS_RE.search(classes)
    longest = max((len(m) for m in _BACKTICKS_RE.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    out.append(f"{fence}{match.group(1) if match else ''}\n{code}\n{fence}")


def _md_figure(el: etree._Element, out: list[str]) -> None:
    """Append a figure: its images, then the caption in italics on the line below."""
    _append_nonempty(out, _md_of(el, "\n"))


def _md_caption(el: etree._Element, out: list[str]) -> None:
    text = " ".join(_md_of(el, " ").replace(HARD_BREAK, " ").split())
    if text:
        mark = "_" if "*" in text else "*"
        out.append(f"{mark}{text}{mark}")


def _md_table(el: etree._Element, out: list[str]) -> None:
    """Append a GFM pipe table, or the table's HTML when cells span or hold blocks."""
    rows = _table_rows(el)
    if not rows:
        return
    if not _is_simple_table(rows):
        out.append(etree.tostring(el, encoding="unicode", method="html", with_tail=False))
        return
    caption = el.find("caption")
    if caption is not None:
        _md_caption(caption, out)
    grid = [[_md_cell(cell) for cell in row] for row in rows]
    width = max(len(row) for row in grid)
    lines = [_pipe_row(row + [""] * (width - len(row))) for row in grid]
    lines.insert(1, _pipe_row(["---"] * width))
    out.append("\n".join(lines))


def _is_simple_table(rows: list[list[etree._Element]]) -> bool:
    """True when no cell spans rows or columns and cells hold only inline text or paragraphs."""
    for row in rows:
        for cell in row:
            if cell.get("colspan") or cell.get("rowspan"):
                return False
            if any(child.tag not in INLINE and child.tag != "p" for child in cell):
                return False
    return bool(rows) and any(rows)


def _md_cell(cell: etree._Element) -> str:
    text = _md_of(cell, "<br>").replace(HARD_BREAK, "<br>")
    return text.replace("|", "\\|")


def _pipe_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _md_rule(el: etree._Element, out: list[str]) -> None:
    out.append(RULE)


_BLOCK_HANDLERS: dict[str, Callable[[etree._Element, list[str]], None]] = {
    "h1": _md_heading, "h2": _md_heading, "h3": _md_heading, "h4": _md_heading,
    "h5": _md_heading, "h6": _md_heading, "ul": _md_list, "ol": _md_list,
    "dl": _md_definitions, "blockquote": _md_quote, "pre": _md_pre, "figure": _md_figure,
    "figcaption": _md_caption, "table": _md_table, "hr": _md_rule}
