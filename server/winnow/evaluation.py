"""Article-extraction scoring and the evaluation corpora.

The metric is the ScrapingHub article-extraction-benchmark's (evaluate.py there): tokens are
`\\w+` matches, each text becomes a multiset of 4-token shingles (a text of 1 to 3 tokens is one
shorter shingle), and per page tp/fp/fn count shared, extra and missed shingles, normalised by
their sum. Precision is averaged over pages with tp + fp > 0, recall over pages with tp + fn > 0,
and F1 = 2PR / (P + R) of the averages.

Forum threads are scored post by post as in the MiBAT paper, with the matching rule of the data
README (`score_posts`): a gold post is found when an unused extracted post's text, all
whitespace removed, starts with the first `POST_MATCH_CHARS` non-space characters of the gold
`text_start`; precision = found / extracted, recall = found / gold, and a page is perfect when
every gold post is found and nothing else was extracted.

The corpora live in the shared data directory (`$WINNOW_DATA`, default `../shared/data` next to
the repository); see its README for their origin. Each loader yields `Case`s.
"""

from __future__ import annotations

import ast
import codecs
import gzip
import hashlib
import itertools
import json
import os
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import lxml.etree as etree
import lxml.html

if TYPE_CHECKING:
    from winnow.pagetype import PageType
    from winnow.result import Extraction

SHINGLE_SIZE = 4
READABILITY_URL = "http://fakehost/test/page.html"
"""The base URL Mozilla's test suite gives every Readability test page."""

COMMENTS_MARKER = re.compile(r"^[^\w\n]*COMMENTS[^\w\n]*$", re.MULTILINE)
"""Dragnet's separator line (`!@#$%^&*()  COMMENTS`, typed inconsistently) before comments."""

CAPTION_TAGS = ("figcaption",)
"""Left out of readability's gold: `article.text` is the prose, without image captions (the
reader's html and markdown keep them with their figures)."""

SETS = ("readability", "sites", "dragnet", "wcxb", "fundus")
SPLITS = ("tune", "check")
CHECK_SHARE = 3
"""One domain in `CHECK_SHARE` (by a stable hash of its name) belongs to the check part."""
BAD_GOLD = frozenset({("sites", "latimes/2017/trump_4")})
"""Pages whose gold is a different text than the page (the data README): left out of scores."""
POST_MATCH_CHARS = 30
"""Non-space characters of a gold post's `text_start` an extracted post's text must start with."""

_TOKEN_RE = re.compile(r"\w+")
_SPACE_RE = re.compile(r"\s+")
_INLINE_TAGS = frozenset(
    "a abbr acronym b bdi bdo big cite code data del dfn em font i img ins kbd label mark nobr "
    "q s samp small span strike strong sub sup time tt u var wbr".split())
_SKIPPED_TAGS = frozenset(("script", "style", "template", "head", "title"))

Counts = tuple[float, float, float]
"""Normalised (tp, fp, fn) of one page; they sum to 1, or are all 0 when both texts are empty."""


# --- the metric ---------------------------------------------------------------------------------

def tokenize(text: str) -> list[str]:
    """Split text into `\\w+` tokens (Unicode, case kept)."""
    return _TOKEN_RE.findall(text or "")


def shingles(text: str, size: int = SHINGLE_SIZE) -> Counter[tuple[str, ...]]:
    """Return the multiset of `size`-token shingles; 1 to `size - 1` tokens make one shingle."""
    tokens = tokenize(text)
    count = max(1, len(tokens) - size + 1)
    return Counter(tuple(tokens[i:i + size]) for i in range(count) if tokens[i:i + size])


def page_counts(gold: str, predicted: str) -> Counts:
    """Return the normalised (tp, fp, fn) of predicted text against gold text."""
    true, pred = shingles(gold), shingles(predicted)
    tp = float(sum((true & pred).values()))
    fp = float(sum((pred - true).values()))
    fn = float(sum((true - pred).values()))
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def precision(counts: Counts) -> float:
    """Page precision with the benchmark's conventions (nothing wrong and nothing missed: 1)."""
    tp, fp, fn = counts
    if fp == fn == 0:
        return 1.0
    return tp / (tp + fp) if tp + fp else 0.0


def recall(counts: Counts) -> float:
    """Page recall with the benchmark's conventions (nothing wrong and nothing missed: 1)."""
    tp, fp, fn = counts
    if fp == fn == 0:
        return 1.0
    return tp / (tp + fn) if tp + fn else 0.0


def f1(p: float, r: float) -> float:
    """Harmonic mean of precision and recall; 0 when both are 0."""
    return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class Score:
    """Precision, recall and F1 over a set of pages."""

    precision: float
    recall: float
    f1: float
    pages: int


def aggregate(pages: Iterable[Counts]) -> Score:
    """Average page precision and recall as the benchmark does; F1 of those averages."""
    counts = list(pages)
    p = _mean([precision(c) for c in counts if c[0] + c[1] > 0])
    r = _mean([recall(c) for c in counts if c[0] + c[2] > 0])
    return Score(precision=p, recall=r, f1=f1(p, r), pages=len(counts))


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def word_f1(gold: str, predicted: str) -> tuple[float, float, float]:
    """WCXB's page metric: (precision, recall, F1) of the lower-cased `\\w+` bags of words.

    An empty output scores 0 (unless the gold is empty too, which scores 1)."""
    true = Counter(token.lower() for token in tokenize(gold))
    pred = Counter(token.lower() for token in tokenize(predicted))
    if not pred or not true:
        return (1.0, 1.0, 1.0) if not pred and not true else (0.0, 0.0, 0.0)
    overlap = sum((true & pred).values())
    p, r = overlap / sum(pred.values()), overlap / sum(true.values())
    return p, r, f1(p, r)


def word_aggregate(pages: Iterable[tuple[float, float, float]]) -> Score:
    """WCXB's set score: page precision, recall and F1 (`word_f1`), each averaged over pages."""
    rows = list(pages)
    p, r, f = (_mean([row[i] for row in rows]) for i in range(3))
    return Score(precision=p, recall=r, f1=f, pages=len(rows))


WORD_METRIC_SETS = frozenset({"wcxb"})
"""Sets scored by WCXB's word F1 (their own benchmark's metric); the rest by shingle F1."""


def set_metric(set_name: str) -> str:
    """The metric a set's headline score and quality floor use: "word" or "shingle"."""
    return "word" if set_name in WORD_METRIC_SETS else "shingle"


def score_texts(set_name: str, pairs: Iterable[tuple[str, str]]) -> Score:
    """Score (gold, predicted) text pairs of one set with the set's own metric."""
    if set_metric(set_name) == "word":
        return word_aggregate(word_f1(gold, text) for gold, text in pairs)
    return aggregate(page_counts(gold, text) for gold, text in pairs)


def snippet_rates(predicted: str, present: Sequence[str],
                  absent: Sequence[str]) -> tuple[float | None, float | None]:
    """WCXB's snippet checks: the share of `present` snippets the output contains, and the share
    of `absent` (boilerplate) snippets it leaks; None when a list is empty. Whitespace-collapsed,
    case-insensitive substring matching."""
    text = _snippet_key(predicted)

    def share(snippets: Sequence[str]) -> float | None:
        keys = [_snippet_key(s) for s in snippets if s.strip()]
        return sum(key in text for key in keys) / len(keys) if keys else None

    return share(present), share(absent)


def _snippet_key(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip().casefold()


# --- tune and check -----------------------------------------------------------------------------

def split_of(domain: str) -> str:
    """The part ("tune" or "check") a page's domain belongs to, by a stable hash of the domain.

    One domain in `CHECK_SHARE` is check. Every set is split the same way, so a site is on the
    same side in every set it appears in."""
    key = domain.strip().lower().removeprefix("www.").encode()
    value = int.from_bytes(hashlib.sha256(key).digest()[:8], "big")
    return "check" if value % CHECK_SHARE == 0 else "tune"


def url_domain(url: str | None) -> str:
    """The host of a URL without `www.` and port; empty when it has none."""
    if not url:
        return ""
    host = urlsplit(url.strip()).hostname or ""
    return host.lower().removeprefix("www.")


_CANONICAL_RE = re.compile(
    rb"""<(?:link[^>]+rel=["']?canonical|meta[^>]+property=["']?og:url)[^>]*>""", re.I)
_HREF_RE = re.compile(rb"""(?:href|content)=["']?(https?://[^"'\s>]+)""", re.I)


def html_domain(html: bytes) -> str:
    """The domain a saved page names for itself (canonical link or og:url); empty if none."""
    for match in _CANONICAL_RE.finditer(html[:200_000]):
        href = _HREF_RE.search(match.group(0))
        if href:
            return url_domain(href.group(1).decode("ascii", "replace"))
    return ""


# --- HTML to text, for gold HTML and for extractors that return HTML ----------------------------

def html_to_text(html: str, without: Iterable[str] = ()) -> str:
    """Render HTML as plain text: one line per block, whitespace collapsed except in <pre>.

    Every element that is not inline (p, div, li, td, h1, br, ...) ends a line, so words of
    adjacent blocks never glue into one token; scripts, styles and <head> give no text, nor
    do the elements whose tags are in `without`.
    """
    skipped = _SKIPPED_TAGS | frozenset(without)
    if not html.strip():
        return ""
    try:
        root = lxml.html.fromstring(html)
    except (etree.ParserError, ValueError):
        return ""
    parts: list[str] = []
    pre = skip = 0
    for event, el in etree.iterwalk(root, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            pre += tag == "pre"
            skip += tag in skipped
            text = el.text if tag else None
        else:
            pre -= tag == "pre"
            skip -= tag in skipped
            text = None if el is root else el.tail
        if skip:
            continue
        if tag and tag not in _INLINE_TAGS:
            parts.append("\n")
        if text:
            parts.append(text if pre else _SPACE_RE.sub(" ", text))
    return "\n".join(line.strip() for line in "".join(parts).split("\n") if line.strip())


# --- corpora ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One evaluation page: its HTML, base URL and the gold article text."""

    set: str
    id: str
    path: Path
    html: bytes
    url: str | None
    gold: str
    metadata: dict[str, Any] = field(default_factory=dict)
    """Readability: expected-metadata.json (title, byline, excerpt, ...); empty elsewhere."""
    comments: str | None = None
    """Dragnet: the gold user-comments text after the COMMENTS line; None when there is none."""
    domain: str = ""
    """The site the page comes from: what decides its tune or check part."""

    @property
    def split(self) -> str:
        """"tune" or "check" (`split_of` the page's domain)."""
        return split_of(self.domain or self.id)

    @property
    def page_type(self) -> str:
        """WCXB's page type (article, forum, documentation, ...); "article" for other sets."""
        return str(self.metadata.get("page_type") or "article")


def data_dir() -> Path:
    """The shared data directory: `$WINNOW_DATA`, else `<repo>/../shared/data`."""
    env = os.environ.get("WINNOW_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"


def read_text(path: Path) -> str:
    """Read a gold text file: by BOM, else UTF-8, else cp1252; newlines normalised."""
    data = path.read_bytes()
    for bom, encoding in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                          (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            text = data[len(bom):].decode(encoding, errors="replace")
            break
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def readability_cases(root: Path | None = None) -> Iterator[Case]:
    """Mozilla Readability's test pages; gold = expected.html rendered by `html_to_text`."""
    base = (root or data_dir()) / "articles" / "readability"
    for folder in sorted(p for p in base.iterdir() if (p / "source.html").is_file()):
        metadata_path = folder / "expected-metadata.json"
        metadata = json.loads(metadata_path.read_text("utf-8")) if metadata_path.is_file() else {}
        yield Case(set="readability", id=folder.name, path=folder / "source.html",
                   html=(folder / "source.html").read_bytes(), url=READABILITY_URL,
                   gold=html_to_text((folder / "expected.html").read_text("utf-8"),
                                     without=CAPTION_TAGS),
                   metadata=metadata, domain=_readability_site(folder.name))


def _readability_site(name: str) -> str:
    """The site of a Readability test folder: `nytimes-3` and `nytimes-1` share one."""
    return re.sub(r"-\d+$", "", name)


def sites_cases(root: Path | None = None) -> Iterator[Case]:
    """The Big9 news pages (6 sites x 4 years x 10) listed in manifest.json."""
    base = (root or data_dir()) / "articles" / "sites"
    manifest: dict[str, dict[str, str]] = json.loads((base / "manifest.json").read_text("utf-8"))
    for case_id, entry in sorted(manifest.items()):
        path = base / entry["html"]
        yield Case(set="sites", id=case_id, path=path, html=path.read_bytes(), url=None,
                   gold=read_text(base / entry["gold"]),
                   metadata={"site": entry.get("site"), "year": entry.get("year")},
                   domain=case_id.split("/", 1)[0])


def split_dragnet_gold(text: str) -> tuple[str, str | None]:
    """Split a Dragnet gold text into (article, comments or None) at its COMMENTS line."""
    match = COMMENTS_MARKER.search(text)
    if match is None:
        return text, None
    return text[:match.start()], text[match.end():]


def dragnet_cases(root: Path | None = None) -> Iterator[Case]:
    """The Dragnet pages; gold = the article part of gold/ID.txt, comments kept apart."""
    base = (root or data_dir()) / "articles" / "dragnet"
    for path in sorted((base / "html").glob("*.html")):
        gold_path = base / "gold" / f"{path.stem}.txt"
        if not gold_path.is_file():
            continue
        article, comments = split_dragnet_gold(read_text(gold_path))
        html = path.read_bytes()
        yield Case(set="dragnet", id=path.stem, path=path, html=html, url=None,
                   gold=article, comments=comments, domain=html_domain(html) or path.stem)


def wcxb_cases(root: Path | None = None) -> Iterator[Case]:
    """WCXB's dev split, every page type; metadata holds page_type, title, author,
    publish_date, `with` and `without` (the snippet lists, parsed)."""
    base = (root or data_dir()) / "articles" / "wcxb"
    truth: dict[str, dict[str, Any]] = json.loads((base / "truth.json").read_text("utf-8"))
    for case_id, entry in sorted(truth.items()):
        path = base / "html" / f"{case_id}.html.gz"
        metadata = {key: entry.get(key) for key in ("page_type", "title", "author",
                                                     "publish_date", "spa")}
        metadata["with"] = _snippet_list(entry.get("with"))
        metadata["without"] = _snippet_list(entry.get("without"))
        yield Case(set="wcxb", id=case_id, path=path, html=gzip.decompress(path.read_bytes()),
                   url=entry.get("url"), gold=entry.get("main_content") or "",
                   metadata=metadata,
                   domain=entry.get("domain") or url_domain(entry.get("url")))


def fundus_cases(root: Path | None = None) -> Iterator[Case]:
    """fundus's parser fixtures: news pages of 181 publishers in 41 countries."""
    base = (root or data_dir()) / "articles" / "fundus"
    truth: dict[str, dict[str, Any]] = json.loads((base / "truth.json").read_text("utf-8"))
    for case_id, entry in sorted(truth.items()):
        path = base / "html" / f"{case_id}.html.gz"
        metadata = {key: entry.get(key) for key in ("title", "authors", "publishing_date",
                                                     "country", "publisher")}
        yield Case(set="fundus", id=case_id, path=path, html=gzip.decompress(path.read_bytes()),
                   url=entry.get("url"), gold=entry.get("main_content") or "",
                   metadata=metadata, domain=url_domain(entry.get("url")) or case_id)


def _snippet_list(value: Any) -> list[str]:
    """WCXB stores its snippet lists as Python list literals in strings."""
    if isinstance(value, list):
        return [str(v) for v in value]
    if not value:
        return []
    try:
        parsed = ast.literal_eval(str(value))
    except (ValueError, SyntaxError):
        return []
    return [str(v) for v in parsed] if isinstance(parsed, list | tuple) else []


LOADERS: dict[str, Callable[[Path | None], Iterator[Case]]] = {
    "readability": readability_cases,
    "sites": sites_cases,
    "dragnet": dragnet_cases,
    "wcxb": wcxb_cases,
    "fundus": fundus_cases,
}


def load_cases(name: str, root: Path | None = None, limit: int | None = None,
               split: str | None = None, scored: bool = True) -> list[Case]:
    """Return the cases of one set by name: only its `split` part ("tune" or "check") when
    given, without the known bad golds when `scored`, the first `limit` of them when given."""
    cases: Iterable[Case] = LOADERS[name](root)
    if split is not None:
        cases = (case for case in cases if case.split == split)
    if scored:
        cases = (case for case in cases if (case.set, case.id) not in BAD_GOLD)
    return list(itertools.islice(cases, limit))


def corpus_fingerprint(names: Iterable[str] = SETS, root: Path | None = None) -> str:
    """SHA-256 over the sorted relative paths and sizes of the sets' files (cheap to compute)."""
    base = (root or data_dir()) / "articles"
    digest = hashlib.sha256()
    for name in sorted(names):
        for path in sorted(p for p in (base / name).rglob("*") if p.is_file()):
            digest.update(f"{path.relative_to(base).as_posix()}\t{path.stat().st_size}\n".encode())
    return digest.hexdigest()


# --- forum threads ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ForumCase:
    """One thread or comment page of `forums/`, with its gold posts from truth.json."""

    id: str
    path: Path
    html: bytes
    url: str | None
    engine_family: str
    posts: list[dict[str, Any]]

    @property
    def domain(self) -> str:
        """The thread's site: its URL's host, else the file name's (`source__host.path`)."""
        return url_domain(self.url) or self.id.split("__", 1)[-1].split(".read", 1)[0]

    @property
    def split(self) -> str:
        """"tune" or "check" (`split_of` the thread's domain)."""
        return split_of(self.domain)


def forum_cases(root: Path | None = None) -> list[ForumCase]:
    """The forum pages in truth.json order."""
    base = (root or data_dir()) / "forums"
    truth: list[dict[str, Any]] = json.loads((base / "truth.json").read_text("utf-8"))
    return [ForumCase(id=Path(entry["file"]).stem, path=base / entry["file"],
                      html=(base / entry["file"]).read_bytes(), url=entry.get("url_if_known"),
                      engine_family=entry["engine_family"], posts=entry["posts"])
            for entry in truth]


@dataclass(frozen=True)
class PostScore:
    """Post-level counts of one page (or of many, summed)."""

    gold: int = 0
    extracted: int = 0
    found: int = 0
    perfect: int = 0
    pages: int = 0
    author_correct: int = 0
    date_parsed: int = 0

    def __add__(self, other: PostScore) -> PostScore:
        return PostScore(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    @property
    def precision(self) -> float:
        return self.found / self.extracted if self.extracted else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 1.0


def score_posts(extracted: Sequence[Any], gold: Sequence[dict[str, Any]], *,
                contains: bool = False) -> PostScore:
    """Score one page's extracted posts (objects with `text`, `author`, `published`) against
    its gold posts. Each gold post takes the first unused extracted post that matches; among
    the found posts, count authors equal to the gold author (case, spacing and a leading `@`
    aside) and dates parsed to ISO 8601.

    With `contains`, a post matches when its text merely contains the gold start: a looser
    rule that credits record segmentation alone, for baselines that keep each record's
    author and date header in its text."""
    keys = [_post_key(post.text or "") for post in extracted]
    used = [False] * len(extracted)
    found = authors = dates = 0
    for post in gold:
        want = _post_key(post.get("text_start") or "")[:POST_MATCH_CHARS]
        match = next((i for i, key in enumerate(keys)
                      if not used[i] and _matches(key, want, contains)), None)
        if match is None:
            continue
        used[match] = True
        found += 1
        authors += _same_author(extracted[match].author, post.get("author"))
        dates += bool(extracted[match].published)
    perfect = found == len(gold) == len(extracted)
    return PostScore(gold=len(gold), extracted=len(extracted), found=found, perfect=int(perfect),
                     pages=1, author_correct=authors, date_parsed=dates)


def _matches(key: str, want: str, contains: bool) -> bool:
    if not want:
        return not key
    return want in key if contains else key.startswith(want)


def _post_key(text: str) -> str:
    return _SPACE_RE.sub("", text)


def _same_author(found: str | None, gold: str | None) -> bool:
    return _author_key(found) == _author_key(gold)


def _author_key(name: str | None) -> str:
    return " ".join((name or "").split()).lstrip("@").casefold()


# --- running Winnow -----------------------------------------------------------------------------

def content_text(result: Extraction) -> str:
    """The main content of a page as the benches score it: the article's text; else a
    thread's posts, each as its author line, date line and own words (as WCXB's forum gold
    writes them; `threadtext.posts_text` leaves out quotes of the page's other posts); else
    the main text of a page that is neither (`main_text`, where the result has one)."""
    from winnow.threadtext import posts_text

    if result.article is not None:
        return result.article.text
    if result.posts:
        return posts_text(result.posts)
    return result.main_text or ""


def is_article_page(case: Case) -> bool:
    """A page whose gold is one article and no comments: it must not come back as a thread."""
    return case.page_type == "article" and not case.comments


def misrouted(cases: Iterable[Case]) -> list[str]:
    """Ids of the article pages (`is_article_page`) Winnow reads as threads."""
    from winnow.extractor import extract
    from winnow.page import PageError

    found = []
    for case in filter(is_article_page, cases):
        try:
            if extract(case.html, case.url).kind == "thread":
                found.append(case.id)
        except PageError:
            continue
    return found


def extract_text(html: bytes, url: str | None, page_type: PageType | None = None
                 ) -> tuple[str, str | None]:
    """Winnow's main content (`content_text`) and title for a page, read as `page_type` when
    given; empty text when it finds none or refuses the input."""
    from winnow.extractor import extract_page
    from winnow.page import PageError, parse_page
    try:
        page = parse_page(html, url)
    except PageError:
        return "", None
    if page_type is not None:
        page.derived["page_type"] = page_type
    result = extract_page(page)
    title = result.article.title if result.article is not None else result.title
    return content_text(result), title
