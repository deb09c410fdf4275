"""What a post record says about itself besides its body: its author, its date and its
permalink (see `posts` for how records are found and read).

- **Author.** The first short link to a profile (or an element whose class, id or itemprop
  says author, user, poster...) in the template part, outside the body and outside quotes.
- **Date.** The pivot whose date is most complete; ISO 8601 from its `datetime` or `title`
  attribute when it has one, else from its text (relative dates against `now`).
- **Permalink.** The link the date sits in, or the template part's first link to a fragment.

Pure: no I/O, no clock (`now` is passed in).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from datetime import datetime

from lxml.html import HtmlElement

from winnow.dates import DateMatch, parse_date, parse_datetime_attr
from winnow.mibat_dom import DATE_ATTRS, DomTree
from winnow.postview import RecordView
from winnow.render import safe_url
from winnow.tree import BLOCK_TAGS, normalize_space

AUTHOR_WORDS = frozenset({"author", "user", "username", "poster", "member", "nick", "nickname",
                          "owner", "profile", "byline", "commenter", "name", "fn"})
"""Class, id or itemprop words of the element that names a post's author (generic vocabulary
of forum and comment markup), matched as whole words of a class name split at -, _ and
camelCase ("CommentAccountName" -> comment, account, name)."""

AUTHOR_STEMS = ("author", "user", "poster", "member", "nick", "profile", "commenter")
"""Words that also name the author glued to another word in one lower-case class name
("postauthor", "username", "memberlink"): a class word starting or ending with one."""

PROFILE_HREF_RE = re.compile(
    r"member|user|profile|author|people|account|/u/|/u\d|/@|[?&]u=|[?&]id=|/~", re.I)
"""Link targets of author profiles."""

NOT_AUTHOR_RE = re.compile(
    r"^(?:reply|quote|report|share|link|permalink|edit|delete|like|flag|parent|next|prev|"
    r"profile|message|pm|e-?mail|website|homepage|top|(?:post )?history|posts|"
    r"antworten|zitieren|melden|répondre|citer|responder|citar|ответить|#\d+|"
    r"name|your name|user ?name|author|nickname)"
    r"(?:$|\s|[:.!,])", re.I)
"""Link texts of the template part that are actions (or a form's "Name" label), never a
name: matched as a whole word at the start, so "Répondre en citant le message" and "Reply to
this" are actions too."""

INITIALS_RE = re.compile(r"^(?:[^\W\d_]|[^\W\d_a-z]{2})\.?$")
"""One letter, or two capitals, alone (an avatar's initials, "D", "JD"): never a name on
their own."""

NOT_AUTHOR_STEMS = ("title", "rank", "role", "status", "avatar", "stat", "count", "joined",
                    "date", "time", "location", "signature", "reputation", "karma", "points",
                    "badge", "online", "button")
"""Class words of what sits next to a name in a user block (title, rank, post count) and of
the buttons beside it (MyBB's "author_buttons": "Find" the author's posts): a class word
that is one, starts with one or ends with one ("usertitle", "postcount", "buttons")."""

MIN_GLUED_CHARS = 3
"""Letters a class word must have before a stem it ends with for the stem to count: "post"
in "postcount", not "ac" in "account"."""

MEMBER_SINCE_RE = re.compile(
    r"join|regist|member since|since|seit|dabei|beigetreten|inscri|depuis|desde|iscritt|"
    r"lid sinds|lid geworden|с нами|зарегистр|加入|注册|註冊|登録|入会|"
    r"last (?:seen|active|activity|visit|online|login)|"
    r"zuletzt (?:online|aktiv|gesehen)|letzte aktivität|letzter besuch|"
    r"dernière (?:visite|activité|connexion)|vu pour la dernière|"
    r"última (?:visita|conexión|actividad)|visto por última|"
    r"último acesso|última atividade|visto pela última|"
    r"ultim[oa] (?:accesso|visita|attività)|visto l.ultima|"
    r"laatst (?:gezien|actief|online)|laatste bezoek|"
    r"был[аи]? в сети|последн(?:ий|яя) (?:визит|активность)|заходил|"
    r"最后(?:登录|访问|活动)|上次(?:登录|访问)|最後(?:登入|上線)|最終(?:ログイン|アクセス)", re.I)
"""Labels of a user block's dates that are not the post's: when the member joined, when
they were last seen, in the languages `dates` reads. Such a date aligns across records too,
and never becomes the post date."""

MAX_DATE_LINE_CHARS = 80
"""A pivot's parent this short may complete its date with a time ("<b>12:15pm</b> On
<b>Apr 24</b>")."""

MAX_HEADER_LINE_CHARS = 150
"""A post's header line (name, date, labels) is at most this long; a paragraph longer than
this is writing, and a name linked in it is a mention, not the author."""

MENTION_MARK = "@"
"""What a mention of a member starts with ("@julian"): a name written so in a paragraph
that holds more words is addressed, not the post's author."""

MAX_AUTHOR_CHARS = 60
"""A name is short; longer link text is a title or a sentence."""

BYLINE_RE = re.compile(r"(?:by|von|par|por|door|di|от)\s", re.I)
"""A name behind a byline label is a journalist's byline: records signed so are stories
(teasers, article blocks), not posts, whose authors are shown bare."""

MAX_NAME_WORDS = 4
"""Words a name before the date in its line may have."""

_LINE_LABEL_RE = re.compile(
    r"(?<![^\W\d_])(?:posted|written|submitted|by|von|par|por|da|door|от|on|am|le|el|il|"
    r"op|at|um|à|said|says|wrote|sagt|schrieb|écrit|escribió|scrive)(?![^\W\d_])|[|—–·•:,@-]",
    re.I)
"""Labels and separators around a name in a date line ("Posted by X on", "X —")."""

NAME_CHAR_RE = re.compile(r"[^\W_]")
"""A letter or digit: names and titles are compared on these."""

NAME_TAG = "cite"
"""HTML's element for the name of a work or person; comment templates put the author in it."""

QUOTE_TAGS = frozenset({"blockquote", "q"})


def names_of(el: HtmlElement) -> str:
    """An element's class and id words."""
    return f"{el.get('class') or ''} {el.get('id') or ''}"


def find_author(dom: RecordView, record: Sequence[int]) -> int | None:
    """The node naming the record's author: the first of the best candidates in document
    order, a hinted profile link before a profile link before an author-hinted name; never
    inside a quote."""
    best: tuple[int, int] | None = None
    for root in record:
        v, end = root, root + dom.tree.sizes[root]
        while v < end:
            if dom.hidden[v]:
                v += dom.tree.sizes[v]
                continue
            score = _author_score(dom, v)
            if score and (best is None or score > best[0]):
                best = (score, v)
            v += 1
    return None if best is None else best[1]


def _author_score(dom: RecordView, v: int) -> int:
    """4 for a profile link with an author hint on it or its parent (5 with one on its
    grandparent too), 3 for a hinted element that directly holds a short name, 2 for a
    profile link or a hinted link, 1 for a link with a hint two levels up or a `<cite>`
    (HTML's element for a name) outside quotes, else 0."""
    el = dom.elements[v]
    if not 0 < dom.text_len[v] <= MAX_AUTHOR_CHARS:
        return 0
    if el.tag != "a" and el.tag != NAME_TAG and not dom.tree.texts[v] and not author_hinted(el):
        return 0  # no name of its own, no link, no hint: nothing to score
    parent = el.getparent()
    hinted = author_hinted(el) or author_hinted(parent)
    near = el.tag == "a" and parent is not None and author_hinted(parent.getparent())
    named = el.tag == NAME_TAG and dom.tree.texts[v] != ""
    if el.tag != "a" and not named and not (hinted and (dom.tree.texts[v] or _wraps_name(el))):
        return 0
    text = _author_text(dom, v)
    if BYLINE_RE.match(text) or not _may_be_name(text) or _in_quote(el) or _in_prose(el):
        return 0
    if el.tag == "a":
        profile = bool(PROFILE_HREF_RE.search(el.get("href") or ""))
        return 2 * profile + 2 * hinted + near
    return 3 if hinted else 1


def _in_prose(el: HtmlElement) -> bool:
    """True for a name inside a paragraph of writing (a mention, "@julian, thanks for..."):
    the nearest block is a `<p>` with more text than a post's header line holds, or with
    words besides a name written as a mention ("@julian")."""
    block = next((a for a in el.iterancestors() if a.tag in BLOCK_TAGS), None)
    if block is None or block.tag != "p":
        return False
    text = normalize_space(block.text_content())
    return len(text) > MAX_HEADER_LINE_CHARS or _is_mention(el, text)


def _is_mention(el: HtmlElement, block_text: str) -> bool:
    """True for a link (or a name inside one) written as a mention in a paragraph with
    words besides it."""
    link = el if el.tag == "a" else next(el.iterancestors("a"), el)
    name = normalize_space(link.text_content())
    return name.startswith(MENTION_MARK) and len(block_text) > len(name)


def _wraps_name(el: HtmlElement) -> bool:
    """An author-named element whose name sits in formatting inside it, without a link
    (`<span class="username"><b><span>Futura</span></b></span>`)."""
    return author_hinted(el) and next(el.iter("a"), None) is None and all(
        len(node) <= 1 for node in el.iter() if isinstance(node.tag, str))


def _may_be_name(text: str) -> bool:
    """Text with letters or digits that is neither an action ("Reply"), an avatar's
    initials ("D") nor a date."""
    return bool(NAME_CHAR_RE.search(text)) and not NOT_AUTHOR_RE.match(text) \
        and not INITIALS_RE.match(text.strip()) and parse_date(text) is None


def name_text(dom: RecordView, v: int) -> str:
    """The name node v shows (see `_author_text`)."""
    return _author_text(dom, v)


def is_name_text(dom: RecordView, v: int, text: str) -> bool:
    """Whether `text`, shown by node v, may be a name: short, no byline label, no action,
    initials or date, and not inside a quote."""
    return 0 < len(text) <= MAX_AUTHOR_CHARS and not BYLINE_RE.match(text) \
        and _may_be_name(text) and not _in_quote(dom.elements[v])


def _author_text(dom: RecordView, v: int) -> str:
    """A link's text, or the name an element holds directly (before a title or a badge),
    without a trailing "says:" label ("тамара пишет:"); a lone label is no name."""
    if dom.elements[v].tag == "a" or not dom.tree.texts[v]:
        text = normalize_space(_shown_name(dom.elements[v]))
    else:
        text = dom.tree.texts[v]
    if text.endswith(":"):
        words = text.split()
        text = " ".join(words[:-1]) if len(words) > 1 else ""
    return text


def _shown_name(el: HtmlElement) -> str:
    """An element's text without what its descendants named for something beside a name
    hold (NOT_AUTHOR_STEMS: a letter avatar's initial, an online status, a badge): a
    profile link around an avatar reads "J Offline", its name is not there."""
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and not _names_beside(names_of(child)):
            parts.append(_shown_name(child))
        parts.append(child.tail or "")
    return "".join(parts)


@functools.lru_cache(maxsize=8192)
def _names_beside(names: str) -> bool:
    """Whether class and id names name what sits beside a name (NOT_AUTHOR_STEMS)."""
    return any(_stem_word(w, frozenset(NOT_AUTHOR_STEMS), NOT_AUTHOR_STEMS)
               for w in class_words(names))


def _date_line(dom: DomTree | RecordView, pivot: int) -> int:
    """The line the date sits in: the pivot, or its parent when that is short."""
    parent = dom.tree.parents[pivot]
    if parent >= 0 and dom.text_len[parent] <= MAX_DATE_LINE_CHARS \
            and dom.text_len[parent] > dom.text_len[pivot]:
        return parent
    return pivot


def line_link_author(dom: RecordView, pivot: int) -> int | None:
    """A link naming someone in the date's line ("by <a>Damien</a> on January 31, 2011"),
    for records whose author is neither hinted nor a profile link."""
    line = _date_line(dom, pivot)
    for v in dom.tree.subtree(line):
        el = dom.elements[v]
        if el.tag != "a" or not 0 < dom.text_len[v] <= MAX_AUTHOR_CHARS:
            continue
        text = normalize_space(el.text_content())
        if _may_be_name(text):
            return v
    return None


def line_author(dom: DomTree, pivot: int) -> str | None:
    """The name before the date in its line, without labels ("Graham — July 11th, 2012",
    "by Damien on ..."), when it is a few words."""
    line = normalize_space(dom.elements[_date_line(dom, pivot)].text_content())
    match = parse_date(line)
    if match is None:
        return None
    words = _LINE_LABEL_RE.sub(" ", line[:match.start]).split()
    if 0 < len(words) <= MAX_NAME_WORDS and NAME_CHAR_RE.search(" ".join(words)):
        return " ".join(words)
    return None


def author_fields(dom: RecordView, v: int | None,
                   base_url: str | None) -> tuple[str | None, str | None]:
    if v is None:
        return None, None
    el = dom.elements[v]
    link = el if el.tag == "a" else None
    return _author_text(dom, v) or None, safe_url(link.get("href"), base_url) if link is not None \
        else None


def author_hinted(el: HtmlElement | None) -> bool:
    if el is None:
        return False
    return _names_author(f"{names_of(el)} {el.get('itemprop') or ''}")


@functools.lru_cache(maxsize=8192)
def _names_author(names: str) -> bool:
    """Whether class, id and itemprop names name an author (cached: a page repeats them)."""
    words = class_words(names)
    return any(_stem_word(w, AUTHOR_WORDS, AUTHOR_STEMS) for w in words) \
        and not _names_beside(names)


_CLASS_WORD_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def class_words(names: str) -> list[str]:
    """The lower-case words of class and id names, split at -, _, spaces and camelCase."""
    return [word.lower() for word in _CLASS_WORD_RE.findall(names)]


def _stem_word(word: str, words: frozenset[str], stems: tuple[str, ...]) -> bool:
    """True when a class word is one of `words`, starts with one of `stems`, or ends with one
    after MIN_GLUED_CHARS letters of another word."""
    return word in words or word.startswith(stems) or any(
        word.endswith(stem) and len(word) - len(stem) >= MIN_GLUED_CHARS for stem in stems)


def _in_quote(el: HtmlElement) -> bool:
    return any(a.tag in QUOTE_TAGS for a in el.iterancestors())


def pick_pivot(dom: DomTree, pivots: Sequence[int]) -> int:
    """The pivot most likely to be the post date: not a "joined" date, then a
    machine-readable date, then the most complete date (a time, a full date)."""
    def rank(v: int) -> tuple[int, int, int, int]:
        text = dom.elements[v].text_content()
        match = parse_date(text)
        return (int(not member_date(dom, v)),
                int(_attr_date(dom.elements[v]) is not None),
                int(match is not None and match.has_time),
                int(match is not None and (match.iso or "").count("-") == 2))
    return max(pivots, key=rank) if len(pivots) > 1 else pivots[0]


def member_date(dom: DomTree | RecordView, pivot: int) -> bool:
    """True when the date is a member's (joined, last seen): its text or its short line
    says so (`<dt>Joined</dt><dd>date</dd>` too: the label before it in its parent)."""
    line = _date_line(dom, pivot)
    texts = [dom.elements[pivot].text_content(), dom.elements[line].text_content()]
    previous = dom.elements[pivot].getprevious()
    if previous is not None and len(previous.text_content()) <= MAX_DATE_LINE_CHARS:
        texts.append(previous.text_content())
    return any(MEMBER_SINCE_RE.search(text) for text in texts)


def read_date(dom: DomTree, pivot: int, now: datetime | None, lang: str | None
              ) -> tuple[str | None, str | None]:
    """The date text the page shows and its ISO 8601 form (relative dates count back from
    `now`; `lang` says how to read day and month numbers); none for a member's date (joined,
    last seen), which is never the post's."""
    if member_date(dom, pivot):
        return None, None
    el = dom.elements[pivot]
    text = normalize_space(el.text_content())
    match: DateMatch | None = parse_date(text, now, lang)
    parent = dom.tree.parents[pivot]
    if match is not None and not match.has_time and parent >= 0 \
            and dom.text_len[parent] <= MAX_DATE_LINE_CHARS:
        line = normalize_space(dom.elements[parent].text_content())
        wider = parse_date(line, now, lang)
        if wider is not None and wider.has_time and match.text in wider.text:
            match = wider
    shown = match.text if match is not None else (text or None)
    iso = _attr_date(el)
    if iso is None:
        iso = match.iso if match is not None else None
    return shown, iso


def _attr_date(el: HtmlElement) -> str | None:
    """ISO date of a date attribute on the pivot, its descendants or its parent."""
    parent = el.getparent()
    for node in (el, *el.iterdescendants(), *(() if parent is None else (parent,))):
        if not isinstance(node.tag, str):
            continue
        for name in DATE_ATTRS:
            value = node.get(name)
            if value and any(ch.isdigit() for ch in value):
                iso = parse_datetime_attr(value)
                if iso is not None:
                    return iso
    return None


def find_permalink(dom: DomTree, record: Sequence[int], pivot: int, body: Sequence[range],
                   base_url: str | None) -> str | None:
    """The link the date sits in (or holds), else the template part's first fragment link."""
    el = dom.elements[pivot]
    link = el if el.tag == "a" else next(el.iterancestors("a"), None)
    if link is None:
        link = next(el.iter("a"), None)
    if link is None:
        for root in record:
            for v in dom.tree.subtree(root):
                cand = dom.elements[v]
                if cand.tag == "a" and "#" in (cand.get("href") or "") and \
                        not any(v in r for r in body):
                    link = cand
                    break
            if link is not None:
                break
    return None if link is None else safe_url(link.get("href"), base_url)
