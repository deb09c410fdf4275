"""Close block elements the way HTML5 does before libxml2 parses a page.

libxml2's HTML parser follows HTML 4 end-tag priorities: an end tag may only close open
elements of lower priority, and elements it does not know (article, section, aside, ...)
have the lowest. So in `<article><div>post</article><article>`, where the page forgot a
`</div>`, it ignores `</article>` and nests every following post inside the one before.
Browsers build the tree by HTML5's rules instead: an end tag whose element is open in scope
pops every element opened inside it ("in body", any other end tag). The extension sends the
browser's DOM, so this only matters for raw HTML (the CLI, saved pages), where it decides
whether a forum's posts are siblings at all.

`close_blocks` inserts the end tags HTML5 would imply, for the block elements of
`CLOSING_BLOCK_TAGS`, and leaves every other byte of the text alone. It runs only on pages whose
parse shows the symptom (`needs_closing`), so well-formed pages cost one XPath query.
Pure: text in, text out.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

CLOSING_BLOCK_TAGS = frozenset(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption "
    "figure footer form header hgroup main menu nav ol section summary ul".split())
"""Elements whose end tag, when the element is open in scope, closes everything opened
inside it (HTML5 tree construction, "in body": the end tags of these elements)."""

SCOPE_TAGS = frozenset("applet caption html table td th marquee object template".split())
"""Elements that bound the scope an end tag looks for its element in (HTML5 "has an element
in scope"); an end tag never closes across them."""

TRACKED_TAGS = CLOSING_BLOCK_TAGS | SCOPE_TAGS
"""The elements `close_blocks` keeps on its stack of open elements; the end tag of any other
element neither closes nor bounds one."""

RAW_TEXT_TAGS = ("script", "style", "textarea", "title", "xmp", "iframe", "noembed",
                 "noframes", "plaintext")
"""Elements whose content is text, not markup: tags inside them are not tags."""

SYMPTOM_XPATH = "//article//article[@class] | //section//section[@class]"
"""A sectioning element inside one of its own kind: how unclosed posts show after libxml2's
parse (replies nested on purpose show the same, and then closing changes nothing)."""

SYMPTOM_TAGS = ("article", "section")
"""The elements SYMPTOM_XPATH looks for nested in their own kind."""

LANDMARK_TAGS = ("nav", "header", "footer", "aside")
MAX_LANDMARK_SHARE = 0.5
"""A navigation bar, header, footer or aside holding more than this share of the page's text
swallowed the page: an element opened inside it was left unclosed, and libxml2 ignored the
landmark's end tag (HTML5 closes everything opened inside it)."""

MAX_QUOTED_CHARS = 10000
"""A quoted attribute value longer than this ends the tag's recognition: it bounds the scan
an unclosed quote costs (an unrecognised tag is only one not tracked)."""

_QUOTED = rf"\"[^\"]{{0,{MAX_QUOTED_CHARS}}}\"|'[^']{{0,{MAX_QUOTED_CHARS}}}'"
_TOKEN_RE = re.compile(
    r"<!--[^-]*+(?:-(?!->)[^-]*+)*+(?:-->|$)"
    rf"|<(?P<raw>{'|'.join(RAW_TEXT_TAGS)})\b[^>]*>"
    r"[^<]*+(?:<(?!/(?P=raw)\s*>)[^<]*+)*+(?:</(?P=raw)\s*>|$)"
    rf"|<(?P<end>/)?(?P<tag>[a-zA-Z][^\s/>]*)(?:{_QUOTED}|[^'\">]++)*+>",
    re.S | re.I)
"""Comments, raw-text elements and tags. A comment or raw-text element runs to its first end
(`-->`, `</script>`) or to the end of the text, written as runs up to the next `-` or `<`
rather than a lazy `.*?`, which tries the end at every character of a long inline script;
possessive runs never backtrack (a tag's quoted values and other characters tokenize one way
only)."""


def needs_closing(root: HtmlElement) -> bool:
    """Whether the parsed page shows sectioning elements nested in their own kind, or a
    landmark that swallowed the page (`_swallowed_by_landmark`). Most pages hold fewer than
    two of each sectioning kind, which a tag-filtered walk tells before the XPath query
    would."""
    seen: set[str] = set()
    for el in root.iter(*SYMPTOM_TAGS):
        if el.tag in seen:
            if _nested_in_own_kind(root):
                return True
            break
        seen.add(el.tag)
    return _swallowed_by_landmark(root)


def _swallowed_by_landmark(root: HtmlElement) -> bool:
    """True when a landmark (LANDMARK_TAGS) holds more than MAX_LANDMARK_SHARE of the page's
    text: no template puts its article inside its menu or its footer."""
    landmarks = list(root.iter(*LANDMARK_TAGS))
    if not landmarks:
        return False
    total = len(root.text_content())
    return any(len(el.text_content()) > MAX_LANDMARK_SHARE * total for el in landmarks)


def _nested_in_own_kind(root: HtmlElement) -> bool:
    """SYMPTOM_XPATH's answer, by looking up from each classed sectioning element: a page
    holds few of them, and libxml2 answers `//article//article` by walking the subtree of
    every article."""
    return any(el.get("class") is not None and next(el.iterancestors(el.tag), None) is not None
               for el in root.iter(*SYMPTOM_TAGS))


def close_blocks(text: str) -> str:
    """`text` with the block end tags HTML5 would imply inserted before the end tags that
    imply them."""
    out: list[str] = []
    stack: list[str] = []
    last = 0
    for match in _TOKEN_RE.finditer(text):
        name = match["tag"]
        if name is None:
            continue  # a comment or a raw-text element: nothing to track
        tag = name.lower()
        if tag not in TRACKED_TAGS:
            continue  # most tags: matched only to skip their attribute values
        if not match["end"]:
            if not match.group().endswith("/>"):
                stack.append(tag)
            continue
        depth = _open_in_scope(stack, tag)
        if depth is None:
            continue
        implied = stack[depth + 1:]
        del stack[depth:]
        if implied and tag in CLOSING_BLOCK_TAGS:
            out.append(text[last:match.start()])
            out.extend(f"</{kind}>" for kind in reversed(implied))
            last = match.start()
    out.append(text[last:])
    return "".join(out)


def _open_in_scope(stack: list[str], tag: str) -> int | None:
    """The stack index of the innermost open `tag`, if any: for a block, not beyond a scope
    boundary; a boundary's own end tag (`</table>`) closes what is open inside it."""
    if tag not in CLOSING_BLOCK_TAGS and tag not in SCOPE_TAGS:
        return None
    for depth in range(len(stack) - 1, -1, -1):
        if stack[depth] == tag:
            return depth
        if tag in CLOSING_BLOCK_TAGS and stack[depth] in SCOPE_TAGS:
            return None
    return None
