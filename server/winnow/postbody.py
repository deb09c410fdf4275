"""Where a post's body lies in its record, and the body's copy for rendering.

From the record down, a child holding the pivot and most of the text is entered (the date
sits inside the post's own box); otherwise the body is the children after the last child
holding a pivot (or before the first, when the date comes last), without leading link-only
bars. Text before that cut (author line, title, date) is left out, so the post text starts
with what the user wrote. A title line that repeats the thread's title and the control bars
that close a post are dropped from the copy.

Pure: no I/O.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass

import lxml.html
from lxml.html import HtmlElement

from winnow.article import is_comments
from winnow.dates import parse_date
from winnow.mibat_dom import DomTree
from winnow.page import HEADING_TAGS
from winnow.postfields import MAX_DATE_LINE_CHARS, NAME_CHAR_RE, class_words, names_of
from winnow.postview import RecordView
from winnow.tree import BLOCK_TAGS, normalize_space

TITLE_PREFIX_CHARS = 6
"""Characters a post's title line may add before the thread title ("Re: ", "AW: ")."""

TITLE_SHARE = 0.6
"""Share of the page title a post's title line must repeat (the page title may add the
site's name)."""

MIN_TITLE_CHARS = 8
"""A title line shorter than this is not recognised (too likely to be a word of the body)."""

WRAPPER_SHARE = 0.9
"""A body's first child holding this share of its text is a wrapper the title is looked
for inside (what follows it is a permalink number or a like bar)."""

BAR_HINT_RE = re.compile(
    r"menu|toolbar|tools|actions?\b|controls?\b|button|share|report|complain|vote|flag",
    re.I)
"""Class and id words of a post's control bars and menus."""

TRAILING_BAR_RE = re.compile(
    r"reply|edit|like|favou?rite|rating|vote|karma|reaction|permalink|footer|signature", re.I)
"""Class words of the bars below a post (more are bars at its end than at its start)."""

MEDIA_TAGS = ("img", "picture", "video", "audio", "iframe", "embed", "object")
"""Elements that give a post a body without text."""

MAX_BAR_CHARS = 40
"""Text of a control bar ahead of a post's body at most ("Report", "Quote · Reply")."""

MAX_LINKED_BAR_CHARS = 80
"""Text of a bar closing a post at most when most of it is links (the names of those who
reacted to the post)."""

MAX_ICON_ALT_CHARS = 20
"""Alternative text of an icon at most ("Like", a user's name on an avatar)."""

HEADER_SHARE = 0.5
"""A child holding a landmark (pivot, author) and more than this share of the record's text
besides the landmarks' own (control bars and a post's comments not counted) holds the body
too: the descent enters it."""


@dataclass
class Body:
    """Where a post's body lies: the whole of `node`, or (when `keep` is set) only those
    children of `node`, with the text that follows child `text_after` (when set)."""

    node: int | None
    keep: list[int] | None = None
    text_after: int | None = None

    def nodes(self) -> list[int]:
        """The outermost body elements."""
        if self.keep is not None:
            return self.keep
        return [] if self.node is None else [self.node]


def locate_body(dom: RecordView, record: Sequence[int], landmarks: Sequence[int],
                title: str | None = None) -> Body:
    """The body of a record (see the module docstring); `landmarks` are the template nodes
    (pivots, the author) the body lies beside."""
    tree = dom.tree
    node: int | None = None
    kids: Sequence[int] = record
    while True:
        shown = [k for k in kids if is_shown(dom, k)]
        heads = [k for k in shown if any(_contains(dom, k, p) for p in landmarks)]
        total = sum(dom.text_len[k] for k in shown) if node is None else dom.text_len[node]
        if not heads:
            return Body(node) if node is not None else Body(None, list(shown))
        big = max(heads, key=lambda k: dom.text_len[k])
        free = dom.text_len[big] - sum(dom.text_len[p] for p in landmarks
                                       if _contains(dom, big, p))
        aside = sum(dom.text_len[k] for k in shown
                    if k not in heads and (_comment_list(dom, k) or _is_bar(dom, k)))
        rest = total - dom.text_len[big] - aside
        if tree.children[big] and free > HEADER_SHARE * (rest + free):
            node, kids = big, tree.children[big]
            continue
        first, last = shown.index(heads[0]), shown.index(heads[-1])
        after = strip_leading(dom, [k for k in _loose(dom, kids, heads[-1], node)
                                     if not _comment_list(dom, k)], title)
        before = strip_leading(dom, shown[:first], title)
        above = strip_leading(dom, [k for k in shown[:last] if k not in heads], title)
        if after and above and _prose_chars(dom, above) > _prose_chars(dom, after):
            return cut_body(node, above, None)  # the date line sits below the post
        if after or (node is not None and tree.tails[heads[-1]]):
            return cut_body(node, after, heads[-1])
        return cut_body(node, before, None)


def _loose(dom: RecordView, kids: Sequence[int], head: int, node: int | None) -> list[int]:
    """The shown children after `head`, with those that only carry loose text after them
    (`<br>` lines of a post written without paragraphs) when inside a node."""
    at = list(kids).index(head)
    return [k for k in kids[at + 1:] if is_shown(dom, k)
            or (node is not None and not dom.hidden[k] and dom.tree.tails[k])]


def _prose_chars(dom: RecordView, kids: Sequence[int]) -> int:
    """The text of `kids` (and the loose text after them) outside control bars and comment
    lists: what a side of the date line holds of a post."""
    return sum(dom.text_len[k] + len(dom.tree.tails[k]) for k in kids
               if not _is_bar(dom, k) and not _comment_list(dom, k))


def is_shown(dom: RecordView, v: int) -> bool:
    """A visible child with text or an image (an image-only post has a body too)."""
    if dom.hidden[v]:
        return False
    el = dom.elements[v]
    return bool(dom.text_len[v]) or el.tag in MEDIA_TAGS or next(
        el.iter(*MEDIA_TAGS), None) is not None


def _comment_list(dom: RecordView, v: int) -> bool:
    """Comments on a post (dated, in a container named for comments) are not its body."""
    return dom.dom.cands_below[v] > 0 and is_comments(dom.elements[v])


def cut_body(node: int | None, keep: list[int], text_after: int | None) -> Body:
    if len(keep) == 1 and text_after is None:
        return Body(keep[0])
    return Body(node, keep, text_after)


def strip_leading(dom: RecordView, kids: list[int], title: str | None) -> list[int]:
    """`kids` without leading control bars (link rows, menus) or lines repeating the thread's
    title ("Re: <title>"); a bar stays when only bars follow it (then it is the body), and
    the last kid is kept whatever it is."""
    start = 0
    while start < len(kids) - 1 and (_is_title_line(dom, kids[start], title) or (
            _is_bar(dom, kids[start])
            and not all(_is_bar(dom, k) for k in kids[start + 1:]))):
        start += 1
    return kids[start:]


def trim_title(dom: RecordView, body: Body, title: str | None) -> Body:
    """A body that opens with the post's title line ("AW: <thread title>") inside its
    wrappers loses it: the post text starts with what the user wrote."""
    if body.keep is not None and len(body.keep) == 1:
        body = Body(body.keep[0])
    if body.keep is not None or body.node is None:
        return body
    node = body.node
    while True:
        shown = [k for k in dom.tree.children[node] if is_shown(dom, k)]
        if dom.tree.texts[node]:
            return body  # the body opens with its own words
        if shown and dom.tree.children[shown[0]] \
                and dom.text_len[shown[0]] >= WRAPPER_SHARE * dom.text_len[node]:
            node = shown[0]
            continue
        if len(shown) > 1 and _is_title_line(dom, shown[0], title):
            return Body(node, strip_leading(dom, shown, title), shown[0])
        return body


def _is_title_line(dom: RecordView, v: int, title: str | None) -> bool:
    """A post's title line: the thread title again, or a heading of its own above the body
    ("Bug d'affichage de TeX"); posts and comments do not open with a heading."""
    return dom.tree.tags[v] in HEADING_TAGS or (_is_title(dom, v, title) and _own_line(dom, v))


def title_lines(dom: RecordView, record: Sequence[int], title: str | None) -> list[int]:
    """Nodes of the record that repeat the thread title (a post's "Re: <title>" line)."""
    if not title:
        return []
    limit = len(title) + TITLE_PREFIX_CHARS
    return [v for root in record for v in dom.tree.subtree(root)
            if 0 < dom.text_len[v] <= limit and not dom.tree.children[v]
            and _is_title(dom, v, title) and _own_line(dom, v)]


def _own_line(dom: RecordView, v: int) -> bool:
    """True when v heads its block: the nearest block ancestor holds little text besides it
    (an author and a date at most); a title in the first words of a body is the body's."""
    u = v
    while dom.tree.parents[u] >= 0 and dom.tree.tags[u] not in BLOCK_TAGS:
        u = dom.tree.parents[u]
    return dom.text_len[u] <= dom.text_len[v] + MAX_DATE_LINE_CHARS


def _is_title(dom: RecordView, v: int, title: str | None) -> bool:
    """True when v's text is the thread title, possibly behind a short reply prefix."""
    if not title or not 0 < dom.text_len[v] <= len(title) + TITLE_PREFIX_CHARS:
        return False
    return _is_title_text(dom.elements[v].text_content(), title)


def _is_title_text(raw: str, title: str) -> bool:
    """True when `raw` is `title` again, possibly behind a short reply prefix."""
    text = _key(raw)
    want = _key(title)
    if len(text) < MIN_TITLE_CHARS:
        return False
    least = max(MIN_TITLE_CHARS, TITLE_SHARE * len(want))
    return any(len(text) - k >= least and text[k:] in want
               for k in range(min(TITLE_PREFIX_CHARS, len(text)) + 1))


def _key(text: str) -> str:
    """Letters and digits only, case-folded: titles differ in punctuation and decoration."""
    return "".join(NAME_CHAR_RE.findall(text)).casefold()


def _is_bar(dom: RecordView, v: int) -> bool:
    """A control bar, not writing: only link text, an element named as a menu, toolbar or
    share box, or a short text with such an element inside (a "Report" item)."""
    if _all_links(dom, v) or _bar_named(dom.elements[v]):
        return True
    return dom.text_len[v] <= MAX_BAR_CHARS and any(
        _bar_named(el) for el in dom.elements[v].iter() if isinstance(el.tag, str))


def _bar_named(el: HtmlElement) -> bool:
    return bool(BAR_HINT_RE.search(names_of(el)))


def _all_links(dom: RecordView, v: int) -> bool:
    el = dom.elements[v]
    links = [len(normalize_space(a.text_content())) for a in el.iter("a")]
    return sum(links) >= dom.text_len[v] > 0 and max(links) <= MAX_BAR_CHARS


def _contains(dom: RecordView, v: int, u: int) -> bool:
    return v <= u < v + dom.tree.sizes[v]


def node_ranges(dom: DomTree, nodes: Sequence[int]) -> list[range]:
    return [dom.tree.subtree(v) for v in nodes]


def body_element(view: RecordView, body: Body) -> HtmlElement:
    """A detached copy of the body for rendering, without the records nested in it."""
    if body.keep is None:
        assert body.node is not None
        clone = _copy(view, body.node)
        clone.tail = None
        return clone
    wrapper = lxml.html.Element("div")
    if body.text_after is not None:
        wrapper.text = view.elements[body.text_after].tail
    for v in body.keep:
        wrapper.append(_copy(view, v))
    if len(wrapper) and body.node is None:
        wrapper[-1].tail = None  # inside a node, loose text after the last child is the post's
    return wrapper


def drop_title_line(root: HtmlElement, title: str | None) -> None:
    """Remove the body copy's first line when it is a title line (a heading, or the thread
    title again) and more text follows it."""
    if (root.text or "").strip():
        return
    first = next((el for el in root.iter() if isinstance(el.tag, str) and el is not root
                  and (el.text or "").strip()), None)
    if first is None:
        return
    line = first
    parent = line.getparent()
    while parent is not None and parent is not root and not (parent.text or "").strip() \
            and len(parent) == 1 and not (line.tail or "").strip():
        line, parent = parent, parent.getparent()
    text = normalize_space("".join(line.itertext()))
    heading = (line.tag in HEADING_TAGS or first.tag in HEADING_TAGS) \
        and not text.endswith(":")  # "AgentF posted:" heads a quote, it is no title
    repeats = bool(title) and _is_title_text(text, title or "") and _is_block_line(line)
    rest = len(normalize_space("".join(root.itertext()))) - len(text)
    if (heading or repeats) and rest > 0 and parent is not None:
        tail = line.tail
        previous = line.getprevious()
        parent.remove(line)
        if tail:
            if previous is not None:
                previous.tail = (previous.tail or "") + tail
            else:
                parent.text = (parent.text or "") + tail


MIN_COPY_CHARS = 80
"""Text a body needs for its repetition in a later record to count as a copy (two short
replies may well say the same)."""

COPY_SHARE = 0.9
"""Share of a body an earlier body found in it word for word must cover for the body to be
a copy of it (a reply adds words of its own to a quote)."""


def copied_bodies(dom: RecordView, bodies: Sequence[Body]) -> list[int]:
    """Indices of the bodies that are part of an earlier body, or an earlier body with a
    line more (the copy's author link): a reply that shows the post it answers above its
    own words (a parent preview, a quote) had its body read in that copy, which holds more
    text than the reply. Quotes inside a body do not count: a reply may quote a whole
    post."""
    texts = [_unquoted_text(dom, body) for body in bodies]
    return [n for n, text in enumerate(texts) if len(text) >= MIN_COPY_CHARS
            and any(_copy_of(text, earlier) for earlier in texts[:n])]


def _copy_of(text: str, earlier: str) -> bool:
    """True when `text` is part of `earlier`, or `earlier` with a line more."""
    return text in earlier or (len(earlier) >= COPY_SHARE * len(text) and earlier in text)


def _unquoted_text(dom: RecordView, body: Body) -> str:
    """A body's text without the quotes inside it (`<blockquote>`s and boxes named for a
    quote); a body read in a quote is that quote's text."""
    parts = []
    for v in body.nodes():
        el = dom.elements[v]
        parts.append(el.text_content() if _is_quote(el) else "".join(_texts_outside_quotes(el)))
    return normalize_space(" ".join(parts))


def _texts_outside_quotes(el: HtmlElement) -> list[str]:
    """The text of el and its descendants outside quotes (el's own tail left out)."""
    texts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and not _is_quote(child):
            texts += _texts_outside_quotes(child)
        texts.append(child.tail or "")
    return texts


def _is_quote(el: HtmlElement) -> bool:
    return el.tag in ("blockquote", "q") or _is_quote_box(el)


def _is_quote_box(el: HtmlElement) -> bool:
    """A box a forum writes a quote as instead of a `<blockquote>`: one of QUOTE_BOX_TAGS
    with a class or id word starting with QUOTE_STEM, and no control bar ("quote" buttons)."""
    return el.tag in QUOTE_BOX_TAGS and any(
        w.startswith(QUOTE_STEM) for w in class_words(names_of(el))) and not _bar_named(el)


def copy_box(dom: RecordView, v: int, record: Sequence[int]) -> int:
    """The outermost box below the record's root around node v that holds little besides
    v's text (the copied post's author and date line at most): the whole preview of a
    copied post."""
    while v not in record:
        parent = dom.tree.parents[v]
        if parent in record or dom.text_len[parent] > dom.text_len[v] + MAX_DATE_LINE_CHARS:
            break
        v = parent
    return v


CARD_TAGS = frozenset({"div", "aside", "article", "section", "figure", "table"})
"""Elements a link preview card is made of (an inline link named so is the poster's)."""

CARD_WORDS = frozenset({"onebox", "unfurl"})
"""Class words of a link preview card (Discourse's onebox, XenForo's unfurl)."""


def tidy_body(root: HtmlElement) -> None:
    """A post body's copy made ready to render: without its closing bars
    (`drop_trailing_bars`), its edit stamp (`drop_edit_stamp`) and link preview cards
    (`drop_link_cards`), its quote boxes read as quotes (`mark_quotes`)."""
    drop_trailing_bars(root)
    drop_edit_stamp(root)
    drop_link_cards(root)
    mark_quotes(root)


def drop_link_cards(root: HtmlElement) -> None:
    """Remove the link preview cards of a post: boxes named for a card (a onebox, an
    unfurl) that show the linked page's title, summary and picture, fetched from the other
    site, not written by the poster. The link itself stays where the poster wrote it."""
    cards = [el for el in root.iter(*CARD_TAGS) if el is not root
             and CARD_WORDS.intersection(class_words(names_of(el)))]
    for card in cards:
        if not any(a in cards for a in card.iterancestors()):
            card.drop_tree()


QUOTE_BOX_TAGS = frozenset({"div", "table", "section", "aside", "figure", "fieldset", "dl"})
"""Elements a forum writes a quote box as when it does not use `<blockquote>`."""

QUOTE_STEM = "quote"
"""Class or id word (or its start: "quotecontent", "quotebox") of a quote box."""


def mark_quotes(root: HtmlElement) -> None:
    """Turn the quote boxes of a post body that are not `<blockquote>`s (a `<div>` or a
    `<table>` named for a quote, as vBulletin writes "Originally Posted by" boxes) into
    `<blockquote>`s, so the reader shows them as quotes and the thread's text can tell a
    reply's words from the post it quotes. Control bars ("quote" buttons) stay as they are,
    and so do a box holding the whole body and a box around a `<blockquote>` (the frame of
    a quote with its citation line, as Discourse writes it)."""
    whole = len(normalize_space(root.text_content()))
    boxes = [el for el in root.iter(*QUOTE_BOX_TAGS) if el is not root
             and _is_quote_box(el) and next(el.iter("blockquote"), None) is None
             and not any(a.tag in ("blockquote", "q") for a in el.iterancestors())]
    for box in boxes:
        if any(a in boxes for a in box.iterancestors()):
            continue
        if 0 < len(normalize_space(box.text_content())) < whole:
            box.tag = "blockquote"


SIGNATURE_WORDS = frozenset({"signature", "signatures", "sig", "signatur", "signaturecontainer"})
"""Class or id words (whole words of split class names) of a poster's signature box."""

SIGNATURE_END = "signature"
"""The end of a class word glued from a prefix and "signature" (postsignature)."""


def take_signature(root: HtmlElement) -> HtmlElement | None:
    """Remove the poster's signature box from a post body and return it (None when there is
    none): the last element named for a signature, outside quotes."""
    found = [el for el in root.iter() if isinstance(el.tag, str) and el is not root
             and _names_signature(el)
             and not any(a.tag in ("blockquote", "q") for a in el.iterancestors())]
    outer = [el for el in found if not any(a in found for a in el.iterancestors())]
    if not outer:
        return None
    signature = outer[-1]
    signature.drop_tree()  # its tail stays in the post
    signature.tail = None
    return signature


def _names_signature(el: HtmlElement) -> bool:
    """An element named for a signature: one of SIGNATURE_WORDS, or a word ending in
    SIGNATURE_END (FluxBB's "postsignature", a "usersignature")."""
    return any(w in SIGNATURE_WORDS or w.endswith(SIGNATURE_END)
               for w in class_words(names_of(el)))


def drop_trailing_bars(root: HtmlElement) -> None:
    """Remove the control bars that close a post (reply, edit, vote, like lines, reaction
    lists) and the empty boxes after them, inside the wrappers of the whole body (an
    element with one child and no text of its own)."""
    while len(root) == 1 and isinstance(root[0].tag, str) and not (root.text or "").strip() \
            and not (root[0].tail or "").strip() and not (root[0].text or "").strip():
        root = root[0]
    while len(root) > 1:
        last = root[-1]
        if not isinstance(last.tag, str) or (last.tail or "").strip():
            return
        if not _is_blank(last) and not _is_trailing_bar(last):
            return
        root.remove(last)


EDIT_WORD_RE = re.compile(r"\w*edit|edited")
"""A class or id word (whole) naming an edit stamp: message-lastEdit, postedit, edited_post."""

EDIT_HREF_RE = re.compile(r"edit(?:log|history|s\b)|[?&/]history\b", re.I)
"""A link to a post's edit history (IPS's "?do=editlogComment", a "/history" page)."""

EDIT_LABEL_RE = re.compile(
    r"(?<![^\W\d_])(?:edit(?:ed)?|bearbeitet|geändert|modifié|editado|modificado|modificato|"
    r"bewerkt|изменено|отредактировано)(?![^\W\d_])|編集|编辑|編輯", re.I)
"""The label of an edit stamp beside its date, in the languages `dates` reads."""


STAMP_SKIP_TAGS = frozenset({"blockquote", "q", "pre", "time", "a", "b", "strong", "em", "i",
                             "u", "abbr", "small", "font", "code"})
"""Elements no edit stamp is: quotes and code (the poster's), and the phrase elements a
poster's own last line may end with ("see you on <time>May 5</time>")."""


def drop_edit_stamp(root: HtmlElement) -> None:
    """Remove the stamp a forum writes at the end of an edited post ("Last edited: Jul 9,
    2022", "Edited January 29 by ann (see edit history)", "Last edited by bob (2024-08-03
    11:02:20)"): the last block of the body, or of its last block and so on down (the stamp
    sits in the wrapper of the post's text), outside quotes, that is a date and at most
    MAX_BAR_CHARS characters more (`_is_edit_stamp`). The date is the forum's, not the
    poster's words, and most gold texts leave it out."""
    node = root
    while node.tag not in ("blockquote", "q", "pre", "code"):
        kids = [k for k in node if isinstance(k.tag, str)]
        if not kids or (kids[-1].tail or "").strip():
            return
        alone = len(kids) == 1 and not (node.text or "").strip()
        if not alone and _is_edit_stamp(kids[-1]):  # a stamp follows the post's words
            kids[-1].drop_tree()
            return
        node = kids[-1]


def _is_edit_stamp(el: HtmlElement) -> bool:
    """A block that is a date (a `<time>` element's, or one in its text) with at most
    MAX_BAR_CHARS characters besides it, no picture, and says it is an edit's: named so
    (class or id words), linking to the edit's history (IPS's "see edit history") or
    labelled so ("Edited ... by ann", EDIT_LABEL_RE)."""
    if el.tag in STAMP_SKIP_TAGS or next(el.iter(*MEDIA_TAGS), None) is not None:
        return False
    text = normalize_space(el.text_content())
    if not text or len(text) > MAX_BAR_CHARS + MAX_DATE_LINE_CHARS:
        return False
    time = next(el.iter("time"), None)
    if time is not None:
        date = normalize_space(time.text_content())
    else:
        found = parse_date(text)
        date = found.text if found is not None else ""
    if not date or len(text) - len(date) > MAX_BAR_CHARS:
        return False
    return any(EDIT_WORD_RE.fullmatch(w) for w in class_words(names_of(el))) \
        or any(EDIT_HREF_RE.search(a.get("href") or "") for a in el.iter("a")) \
        or EDIT_LABEL_RE.search(text.replace(date, " ")) is not None


def _is_blank(el: HtmlElement) -> bool:
    """An element that shows nothing: no text, no picture."""
    return not normalize_space(el.text_content()) and next(el.iter(*MEDIA_TAGS), None) is None


def _is_trailing_bar(el: HtmlElement) -> bool:
    """A bar that closes a post: named as one, with a short text (or a longer one that is
    mostly links: "Reactions: ann, bob and 3 others"), and no pictures but icons."""
    names = " ".join(names_of(e) for e in el.iter() if isinstance(e.tag, str))
    if not (TRAILING_BAR_RE.search(names) or BAR_HINT_RE.search(names)):
        return False
    if any(not _is_icon(m) for m in el.iter(*MEDIA_TAGS)):
        return False
    text = len(normalize_space("".join(el.itertext())))
    if text <= MAX_BAR_CHARS:
        return True
    links = sum(len(normalize_space(a.text_content())) for a in el.iter("a"))
    return text <= MAX_LINKED_BAR_CHARS and 2 * links >= text


def _is_icon(media: HtmlElement) -> bool:
    """An image that labels a control (a reaction's "Like" picture, a user's avatar): an
    `<img>` with a short alternative text; a post's own pictures are files, named so or
    not at all."""
    alt = (media.get("alt") or "").strip()
    return media.tag == "img" and 0 < len(alt) <= MAX_ICON_ALT_CHARS and "." not in alt


def _is_block_line(line: HtmlElement) -> bool:
    """True when a line element is a block of its own, or the only text of its block."""
    block = line
    while block.tag not in BLOCK_TAGS and block.getparent() is not None:
        block = block.getparent()
    return len(normalize_space("".join(block.itertext()))) <= \
        len(normalize_space("".join(line.itertext()))) + TITLE_PREFIX_CHARS


def _copy(view: RecordView, v: int) -> HtmlElement:
    """A deep copy of node v without the nested records inside it (copy and original pair up
    in document order, the page holding no comments)."""
    clone = copy.deepcopy(view.elements[v])
    doomed = [r for r in view.nested if r in view.tree.subtree(v)]
    if doomed:
        twins = [el for el in clone.iter() if isinstance(el.tag, str)]
        for r in doomed:
            twin = twins[r - v]
            if twin.getparent() is not None:
                twin.drop_tree()
    return clone


