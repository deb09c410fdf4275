"""What an element's class and id names say about it, matched as whole tokens.

Readability matches its noise words anywhere inside a class string, and so did Winnow: "pager"
inside `pageRow`, "subscribe" inside `subscriber-only` (set on every paragraph of a paywalled
story), "login" inside `bloginfo`. Here a name is split into tokens first (on spaces, `-`,
`_`, digits and camelCase humps: `l-sidebar-fixed` is l / sidebar / fixed, `relatedArticles`
is related / articles), and a word names a role only when it is a whole token, its plural, or
a few words written together that the vocabulary lists (`visuallyhidden`, `textwidget`).

A class word that starts with a state or utility prefix describes styling or layout, not a
role: `text-secondary`, `has-sidebar`, `no-sidebars`, `is-comment-open`. Its tokens are left
out.

The module is pure: strings in, booleans out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

_HUMP_RE = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_LETTERS_RE = re.compile(r"[^a-z]+")
_DELIMITER_RE = re.compile(r"[-_]+")

MAX_SHORT_TOKEN = 2
"""Tokens this short ("ad", "sr") are names only as whole `-`/`_`-delimited pieces."""

UTILITY_PREFIXES = frozenset({"is", "has", "no", "with", "text", "bg", "btn", "border",
                              "font", "color", "u", "overflow", "leading", "tracking"})
"""First tokens of class words that style or toggle an element rather than name it
(`text-secondary`, `has-sidebar`, `no-sidebars`), among them CSS properties a utility class
sets to a value that reads like a role (`overflow-x-scroll`, `leading-extra-tight`)."""

AXIS_CODES = frozenset({"x", "y", "m", "mx", "my", "mt", "mr", "mb", "ml",
                        "p", "px", "py", "pt", "pr", "pb", "pl"})
"""Axis and side codes of utility classes: a class word whose first piece is a word (a
property, not a short namespace such as Divi's `et_pb`) and whose second piece is one sets
that property along it (`overflow-x-scroll`, `scroll-m-28`: a scroll margin), whatever the
property's name says."""


VARIANT_MARKS = frozenset(":[")
"""Characters of a utility class written with a variant or an arbitrary value (Tailwind's
`lg:first:has-[>[data-slot=banner]]:pt-0`, `md:hidden`): a styling condition, never a
role name, whatever words its selector spells."""


def _vocabulary(words: str) -> frozenset[str]:
    return frozenset(words.split())


NOISE_WORDS = _vocabulary("""
    ad ads advert adverts banner breadcrumb breadcrumbs combx comment comments community
    disqus extra extras footer foot gdpr header legends menu related remark replies rss
    shoutbox sidebar skyscraper social sponsor sponsored supplemental agegate pagination pager
    popup share sharing newsletter promo outbrain taboola cookie cookies masthead subscribe
    signup toolbar byline author bio footnote footnotes contact tags shopping scroll
    visuallyhidden offscreen copyright carousel slideshow trackback trackbacks login lightbox
    textwidget typelist secondary aihtml consent
""")
"""Class/id tokens of template noise: Mozilla Readability's unlikelyCandidates, extended
with words measured on the dev sets and blog engines' sidebar names (WordPress's
`textwidget` and `#secondary`, TypePad's `typelist`) and consent managers' dialogs
(`onetrust-consent-sdk`), which a page that gives no article container keeps in its body."""

NOISE_PHRASES: tuple[tuple[str, ...], ...] = (
    ("cover", "wrap"), ("ad", "break"), ("yom", "remote"), ("sr", "only"),
    ("visually", "hidden"), ("screen", "reader"), ("off", "screen"), ("sign", "up"),
    ("age", "gate"),
)
"""Noise names of several tokens (`sr-only`, `screen-reader-text`, `cover-wrap`)."""

CONTENT_WORDS = _vocabulary("""
    article articles body column content contents main mathjax shadow story stories entry
    entries post posts
""")
"""Tokens that overrule a noise word of the same name: `main-header` may hold the article
(Readability's okMaybeItsACandidate)."""

COMMENT_WORDS = _vocabulary("comment comments commentlist disqus replies respond reactions")
"""Tokens of comment sections: noise for the article whatever else the name says."""

NEGATIVE_WORDS = _vocabulary("""
    ad ads hidden hid banner combx comment comments com contact foot footer footnote footnotes
    gdpr masthead meta outbrain promo related scroll share shoutbox sidebar skyscraper sponsor
    shopping tags tool tools toolbar widget widgets
""")
POSITIVE_WORDS = _vocabulary("""
    article articles body content entry hentry main page pagination post posts text blog story
""")
"""Readability's class weights (-25 / +25), as tokens."""


_AXIS_PIECES = frozenset((code,) for code in AXIS_CODES)

Word = tuple[tuple[str, ...], ...]
"""A class word (or the id) as its `-`/`_`-delimited pieces, each piece as its tokens."""


@functools.lru_cache(maxsize=8192)
def name_words(names: str) -> tuple[Word, ...]:
    """The class and id words of `names`, tokenized, without styling words (a page repeats
    the same few class strings on thousands of elements, hence the cache)."""
    return tuple(word for word in map(_word, names.split()) if word)


@functools.lru_cache(maxsize=16384)
def _word(raw: str) -> Word:
    """One class word (or the id) as its pieces' tokens; empty for a styling word. Cached
    per word: an element's id is often unique on the page, its class words are not."""
    if not VARIANT_MARKS.isdisjoint(raw):
        return ()
    pieces = tuple(t for t in (_piece_tokens(p) for p in _DELIMITER_RE.split(raw)) if t)
    if len(pieces) > 1 and (pieces[0][0] in UTILITY_PREFIXES or _sets_along_axis(pieces)):
        return ()
    return pieces


def _sets_along_axis(pieces: Word) -> bool:
    return pieces[1] in _AXIS_PIECES and len(pieces[0][0]) > MAX_SHORT_TOKEN


def name_tokens(names: str) -> tuple[str, ...]:
    """All tokens of `names`, an empty string between class words (phrases do not span
    two words)."""
    tokens: list[str] = []
    for word in name_words(names):
        tokens.extend(t for piece in word for t in piece)
        tokens.append("")
    return tuple(tokens)


@functools.lru_cache(maxsize=16384)
def _piece_tokens(piece: str) -> tuple[str, ...]:
    """The tokens of one `-`/`_`-delimited piece, split on humps and digits. A token of
    MAX_SHORT_TOKEN letters counts only as a whole piece (`ad-slot`, `sr-only`): split out of
    a longer piece it is a fragment of a generated hash (`jXK9ad`, `2ad314195f`). The piece's
    letters written together are a token too (`MathJax`, `ai2html`)."""
    tokens = [t for t in _NON_LETTERS_RE.split(_HUMP_RE.sub(" ", piece).lower()) if t]
    if len(tokens) == 1 and tokens[0] == piece.lower():
        return tuple(tokens)
    tokens = [t for t in tokens if len(t) > MAX_SHORT_TOKEN]
    joined = "".join(_NON_LETTERS_RE.split(piece.lower()))
    if piece[:1].isalpha() and len(joined) > MAX_SHORT_TOKEN and joined not in tokens:
        tokens.append(joined)  # MathJax: mathjax, ai2html: aihtml
    return tuple(tokens)


PARTS = _vocabulary("""
    sub list lists box boxes bar wrap wrapper container area block module widget widgets link
    links section item items form nav top bottom site page left right inner outer head holder
    panel zone region col feed button buttons icon icons tools recent latest
""")
"""Generic words a short noise word is written together with (`sharebar`, `menubar`,
`submenu`): the compound names the same role."""

MIN_GLUED_WORD = 5
MIN_GLUED_BEFORE = 2
MIN_GLUED_AFTER = 3
"""A vocabulary word of MIN_GLUED_WORD letters or more is found inside a token written
together with other words, at least MIN_GLUED_BEFORE letters before it (`fbpopup`) and
MIN_GLUED_AFTER after it (`recentcomments`, `contentsfooter`, `newsarticle`), but not inside
a longer word of its own (`subscriber`, `pagerow`: a suffix of one or two letters;
`bloginfo`: one letter before)."""


SUFFIXES = frozenset({"ary", "ator", "ators", "ing", "ive", "able", "ion", "ions"})
"""Endings that make a longer word of a vocabulary word (`commentary`, `commentator`,
`sharing` aside): not a second word written together with it."""


def _is_word(token: str, words: frozenset[str]) -> bool:
    return token in words or (token.endswith("s") and token[:-1] in words)


@functools.lru_cache(maxsize=16384)
def _token_is(token: str, words: frozenset[str]) -> bool:
    """True when `token` is one of `words`, its plural, or one of them written together with
    other words (see MIN_GLUED_*) or with a generic part (PARTS)."""
    if not token:
        return False
    if _is_word(token, words):
        return True
    stem = token[:-1] if token.endswith("s") else token
    if _inside_re(words).search(stem) is None:
        return False  # no word of the vocabulary inside: most tokens of ids and hashes
    for word in words:
        at = stem.find(word)
        if at < 0:
            continue
        before, after = stem[:at], stem[at + len(word):]
        if (len(word) >= MIN_GLUED_WORD and _glued(before, MIN_GLUED_BEFORE)
                and _glued(after, MIN_GLUED_AFTER)):
            return True
        if (before in PARTS and not after) or (not before and after in PARTS):
            return True
    return False


@functools.cache
def _inside_re(words: frozenset[str]) -> re.Pattern[str]:
    """One pattern finding any of `words` inside a token (one per vocabulary)."""
    return re.compile("|".join(map(re.escape, sorted(words))))


def _glued(rest: str, least: int) -> bool:
    return not rest or (len(rest) >= least and rest not in SUFFIXES)


DISPLAY_WORDS = _vocabulary("carousel slideshow banner header")
"""Noise words that say how a block is shown, not what it holds: a landing page shows its
content in carousels, banners and section headers, an article its ads and mastheads."""

LAYOUT_WORDS = _vocabulary("scroll secondary")
"""Noise words that say how a block is laid out, not what it holds: a scrolling strip, a
panel of secondary rank. A landing page lays out its sections so (a row of feature cards
scrolled sideways, a service's sections in `element__secondary` panels); a product page its
picture galleries, whose captions are no part of its main text."""


def says_display_only(names: str, layout: bool = False) -> bool:
    """Whether class and id names say noise only by DISPLAY_WORDS, and with `layout` also
    LAYOUT_WORDS (no other noise word, no noise phrase)."""
    tokens = name_tokens(names)
    noisy = [t for t in tokens if _token_is(t, NOISE_WORDS)]
    return bool(noisy) and all(_token_is(t, DISPLAY_WORDS)
                               or layout and _token_is(t, LAYOUT_WORDS) for t in noisy) \
        and not _has_noise_phrase(tokens)


def has_word(tokens: Iterable[str], words: frozenset[str]) -> bool:
    """True when a token is one of `words` (see `_token_is`)."""
    return any(_token_is(t, words) for t in tokens)


def has_phrase(tokens: tuple[str, ...], phrases: tuple[tuple[str, ...], ...]) -> bool:
    """True when consecutive tokens spell one of `phrases`."""
    return any(tokens[k:k + len(p)] == p for p in phrases for k in range(len(tokens)))


_COMMENTS, _NOISE, _OVERRULED, _POSITIVE, _NEGATIVE, _NOISE_WORD, _CONTENT = (
    1, 2, 4, 8, 16, 32, 64)
"""What a class word says (`_word_flags`): a comment word, a noise word or phrase, a piece
whose content word overrules noise, a positive and a negative class-weight word; of a token
(`_token_flags`), also a noise word and a content word. Phrases do not span two words and
every test is an "any" over words, so a name says what its words say together."""

_TOKEN_VOCABULARIES = ((COMMENT_WORDS, _COMMENTS), (NOISE_WORDS, _NOISE_WORD),
                       (CONTENT_WORDS, _CONTENT), (POSITIVE_WORDS, _POSITIVE),
                       (NEGATIVE_WORDS, _NEGATIVE))

_PHRASES_BY_FIRST: dict[str, tuple[tuple[str, ...], ...]] = {
    first: tuple(p for p in NOISE_PHRASES if p[0] == first) for first, *_ in NOISE_PHRASES}


@functools.lru_cache(maxsize=16384)
def _token_flags(token: str) -> int:
    flags = 0
    for words, flag in _TOKEN_VOCABULARIES:
        if _token_is(token, words):
            flags |= flag
    return flags


@functools.lru_cache(maxsize=16384)
def _word_flags(raw: str) -> int:
    word = _word(raw)
    flags = 0
    for piece in word:
        piece_flags = 0
        for token in piece:
            piece_flags |= _token_flags(token)
        if piece_flags & _CONTENT and not piece_flags & _NOISE_WORD:
            flags |= _OVERRULED
        flags |= piece_flags
    if flags & _NOISE_WORD or _has_noise_phrase(tuple(t for piece in word for t in piece)):
        flags |= _NOISE
    return flags


def _has_noise_phrase(tokens: tuple[str, ...]) -> bool:
    """`has_phrase(tokens, NOISE_PHRASES)`, trying only the phrases that start at a token."""
    return any(tokens[k:k + len(p)] == p for k, token in enumerate(tokens)
               for p in _PHRASES_BY_FIRST.get(token, ()))


@functools.lru_cache(maxsize=16384)
def _names_flags(names: str) -> int:
    """The flags of the words of an element's class and id names; cached per names string,
    which a page repeats on many elements (ECON asks for every element on every pass)."""
    flags = 0
    for raw in names.split():
        flags |= _word_flags(raw)
    return flags


def says_noise(names: str) -> bool:
    """Whether class and id names say noise: a noise word or phrase, not overruled by a
    content word in a piece of its own (`main-header`, but not `contentsFooter` nor
    `jp-relatedposts`, where the content word is part of the noise name)."""
    return _names_flags(names) & (_NOISE | _OVERRULED) == _NOISE


def says_comments(names: str) -> bool:
    """Whether class and id names say a comment section."""
    return bool(_names_flags(names) & _COMMENTS)


def says_noise_strictly(names: str) -> bool:
    """A noise word or phrase whatever content words say (past the article's text,
    `article-author` is the author's box)."""
    return bool(_names_flags(names) & _NOISE)


def class_weight(names: str) -> int:
    """Readability's class weight: -25 for a negative word, +25 for a positive one."""
    flags = _names_flags(names)
    return (25 if flags & _POSITIVE else 0) - (25 if flags & _NEGATIVE else 0)


def says_content(names: str) -> bool:
    """Whether a positive (content) word is among the tokens (`articleBody`, `post-body`)."""
    return bool(_names_flags(names) & _POSITIVE)
