"""Tests of winnow.dates: the post-date pivot classifier and ISO 8601 parsing, per language and
format, relative dates, ambiguity rules, negatives, speed, and the forums corpus."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from helpers import require_corpus
from winnow import dates
from winnow.dates import DateMatch, is_date_pivot, parse_date, parse_datetime_attr

NOW = datetime(2020, 6, 10, 12, 0)
"""Fixed reference time (a Wednesday) for relative dates."""

CORPUS_FIND_RATE = 0.95
"""Share of gold post dates parse_date must find on the forums corpus."""

CORPUS_AGREEMENT = 0.95
"""Share of absolute dates whose day must agree with their machine-readable attribute."""


def iso(text: str, now: datetime | None = NOW, lang_hint: str | None = None) -> str | None:
    """The iso of the date found in `text` (fails when none is found)."""
    match = parse_date(text, now=now, lang_hint=lang_hint)
    assert match is not None, text
    return match.iso


ABSOLUTE = [
    # English
    ("Posted on 12 March 2012, 14:05", "2012-03-12T14:05"),
    ("Mar. 12th, 2012", "2012-03-12"),
    ("Fri May 08, 2009 11:56 pm", "2009-05-08T23:56"),
    ("January 20, 2020 at 11:27 am", "2020-01-20T11:27"),
    ("4 December 2016 at 12:11AM", "2016-12-04T00:11"),
    ("Tue 16-Jun-20 16:12:14", "2020-06-16T16:12:14"),
    ("10-August-2011 20:18", "2011-08-10T20:18"),
    ("03/12/2012 2:05 pm", "2012-03-12T14:05"),
    ("10-31-2017, 01:56 PM", "2017-10-31T13:56"),
    # ISO and machine forms
    ("2012-03-12T14:05:00Z", "2012-03-12T14:05:00+00:00"),
    ("2013-03-20 16:29:40 -0600", "2013-03-20T16:29:40-06:00"),
    ("2012/3/12", "2012-03-12"),
    # German
    ("5. Januar 2019 um 03:32", "2019-01-05T03:32"),
    ("22. Dezember 2019 um 11:16 Uhr", "2019-12-22T11:16"),
    ("12. Mär. 2012", "2012-03-12"),
    ("21. Apr 2020, 19:40", "2020-04-21T19:40"),
    ("12.03.2012", "2012-03-12"),
    ("06.01.2020 um 9:16", "2020-01-06T09:16"),
    ("05.01.12 11:27", "2012-01-05T11:27"),
    # French
    ("1er mars 2012 à 14h05", "2012-03-01T14:05"),
    ("29/07/2004, 19h46", "2004-07-29T19:46"),
    ("12 févr. 2012", "2012-02-12"),
    ("3 août 2015", "2015-08-03"),
    # Spanish
    ("12 de marzo de 2012", "2012-03-12"),
    ("5 dic 2019 a las 10:30", "2019-12-05T10:30"),
    # Portuguese
    ("12 de março de 2012 às 14:05", "2012-03-12T14:05"),
    ("5 out 2019", "2019-10-05"),
    # Italian
    ("12 marzo 2012 alle 14:05", "2012-03-12T14:05"),
    ("3 gen 2020", "2020-01-03"),
    # Dutch
    ("12 maart 2012 om 14:05", "2012-03-12T14:05"),
    ("1 mei 2019", "2019-05-01"),
    # Russian
    ("12 мая 2012", "2012-05-12"),
    ("12 мая 2012 г. в 14:05", "2012-05-12T14:05"),
    ("Июль 2019", "2019-07"),
    # Chinese and Japanese
    ("2012年3月12日 14:05", "2012-03-12T14:05"),
    ("2012年3月12日 下午2:05", "2012-03-12T14:05"),
    ("2012年3月12日 14時05分", "2012-03-12T14:05"),
    ("2012年3月", "2012-03"),
    # month and year only
    ("September 2019", "2019-09"),
]


@pytest.mark.parametrize(("text", "expected"), ABSOLUTE)
def test_absolute_dates(text: str, expected: str) -> None:
    match = parse_date(text, now=NOW)
    assert match is not None
    assert match.iso == expected
    assert not match.relative
    assert match.has_time == ("T" in expected)


def test_match_span_and_weekday_label() -> None:
    text = "Posted on Fri May 08, 2009 2:03 am by admin"
    match = parse_date(text)
    assert match == DateMatch(10, 34, "Fri May 08, 2009 2:03 am", "2009-05-08T02:03", False, True)
    assert text[match.start:match.end] == match.text


def test_leading_time() -> None:
    match = parse_date("11:43pm On Apr 23", now=NOW)
    assert match is not None
    assert (match.text, match.iso) == ("11:43pm On Apr 23", "2020-04-23T23:43")


def test_dates_without_year_need_now() -> None:
    assert iso("March 30", now=None) is None
    assert iso("March 30") == "2020-03-30"
    assert iso("June 14") == "2019-06-14"  # after NOW: last year
    assert iso("8 February at 5:50PM") == "2020-02-08T17:50"


def test_first_of_equal_dates_wins_over_edit_date() -> None:
    text = "14. Juni 2020 10:23 (zuletzt bearbeitet: 14. Juni 2020 10:41)"
    assert iso(text) == "2020-06-14T10:23"


def test_full_date_wins_over_bare_year_in_title() -> None:
    assert iso("International Toyota Meeting (ITM) 2012 13-November-2017 12:46") == (
        "2017-11-13T12:46")


RELATIVE = [
    ("3 hours ago", "2020-06-10T09:00", True),
    ("an hour ago", "2020-06-10T11:00", True),
    ("5 mins ago", "2020-06-10T11:55", True),
    ("1 day ago", "2020-06-09", False),
    ("2 weeks ago", "2020-05-27", False),
    ("1 month ago", "2020-05-10", False),
    ("10 years ago", "2010-06-10", False),
    ("just now", "2020-06-10T12:00:00", True),
    ("yesterday at 5:30 PM", "2020-06-09T17:30", True),
    ("today", "2020-06-10", False),
    ("vor 2 Tagen", "2020-06-08", False),
    ("vor einem Tag", "2020-06-09", False),
    ("vor 5 Minuten", "2020-06-10T11:55", True),
    ("heute, 10:15", "2020-06-10T10:15", True),
    ("gestern um 14:05 Uhr", "2020-06-09T14:05", True),
    ("vorgestern", "2020-06-08", False),
    ("Freitag um 09:07 Uhr", "2020-06-05T09:07", True),
    ("il y a 3 jours", "2020-06-07", False),
    ("il y a un an", "2019-06-10", False),
    ("hier", "2020-06-09", False),
    ("hier à 14h05", "2020-06-09T14:05", True),
    ("avant-hier", "2020-06-08", False),
    ("hace 2 horas", "2020-06-10T10:00", True),
    ("hace un mes", "2020-05-10", False),
    ("ayer a las 3:05 pm", "2020-06-09T15:05", True),
    ("há 3 dias", "2020-06-07", False),
    ("ontem às 14:05", "2020-06-09T14:05", True),
    ("3 giorni fa", "2020-06-07", False),
    ("ieri alle 14:05", "2020-06-09T14:05", True),
    ("3 dagen geleden", "2020-06-07", False),
    ("gisteren om 14:05", "2020-06-09T14:05", True),
    ("2 часа назад", "2020-06-10T10:00", True),
    ("Час назад", "2020-06-10T11:00", True),
    ("2 дня назад", "2020-06-08", False),
    ("вчера в 12:30", "2020-06-09T12:30", True),
    ("Только что", "2020-06-10T12:00:00", True),
    ("昨天", "2020-06-09", False),
    ("昨天 14:05", "2020-06-09T14:05", True),
    ("3小时前", "2020-06-10T09:00", True),
    ("3天前", "2020-06-07", False),
    ("3時間前", "2020-06-10T09:00", True),
    ("一昨日", "2020-06-08", False),
]


@pytest.mark.parametrize(("text", "expected", "has_time"), RELATIVE)
def test_relative_dates(text: str, expected: str, has_time: bool) -> None:
    match = parse_date(text, now=NOW)
    assert match is not None
    assert (match.iso, match.relative, match.has_time) == (expected, True, has_time)
    assert match.text == text


def test_relative_without_now_has_no_iso() -> None:
    match = parse_date("3 hours ago")
    assert match is not None and match.relative and match.iso is None


def test_relative_keeps_now_offset() -> None:
    now = datetime(2020, 6, 10, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert iso("3 hours ago", now=now) == "2020-06-10T09:00+02:00"


def test_numeric_ambiguity() -> None:
    assert iso("13/03/2012") == "2012-03-13"  # first > 12: day first
    assert iso("03/13/2012") == "2012-03-13"  # second > 12: month first
    assert iso("03/04/2012") == "2012-03-04"  # default (no hint): month first
    assert iso("03/04/2012", lang_hint="en-US") == "2012-03-04"
    assert iso("03/04/2012", lang_hint="fr") == "2012-04-03"
    assert iso("03-04-2012", lang_hint="de") == "2012-04-03"
    assert iso("03.04.2012") == "2012-04-03"  # dots: always day first


def test_hier_is_here_in_german_and_dutch() -> None:
    assert parse_date("hier", lang_hint="de") is None
    assert parse_date("klik hier", lang_hint="nl") is None
    assert iso("hier", lang_hint="fr") == "2020-06-09"


NEGATIVES = [
    "12.50", "Price: 12.50 EUR", "version 3.2.1", "v1.2.10", "2012", "in 2012 we met", "3-2",
    "Final score 3-2", "+49 30 1234567", "555-123-4567", "(555) 123-4567", "12:05", "5 PM",
    "13/13/2012", "31.02.2012", "00.00.0000", "Posts: 1,234", "ISBN 978-3-16-148410-0",
    "I may come", "Reply", "a set of 3 tools", "3 out of 5", "hours of fun ago-go", "",
    "1.2.3.4", "192.168.1.1",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negatives(text: str) -> None:
    assert parse_date(text, now=NOW) is None
    assert not is_date_pivot(text)


PIVOTS = [
    "Posted: 12 March 2012",
    "Posted on Fri May 08, 2009 2:03 am",
    "by admin » Wed Mar 21, 2012 1:33 pm",
    "#12 3 hours ago",
    "1 Posted Apr 11, 2020, 1:02 PM",
    "Geschrieben am 5. Januar 2019 um 03:32",
    "14. Juni 2020 10:23 (zuletzt bearbeitet: 14. Juni 2020 10:41)",
    "发表于 2012年3月12日 14:05",
    "投稿日：2012年3月12日",
    "  vor 2 Tagen  ",
    "hier",
]


@pytest.mark.parametrize("text", PIVOTS)
def test_pivot_positives(text: str) -> None:
    assert is_date_pivot(text)


NOT_PIVOTS = [
    "I was there on 12 March 2012 and it was great, the weather was fine",
    "Re: Compartir experiencias 25-February-2012 21:46",
    "Check this out " * 10 + "12 March 2012",
    "hier ist der Link",
]


@pytest.mark.parametrize("text", NOT_PIVOTS)
def test_pivot_negatives(text: str) -> None:
    assert not is_date_pivot(text)


ATTRS = [
    ("2019-01-05T03:32:45Z", "2019-01-05T03:32:45+00:00"),
    ("2016-12-03T23:11:46+00:00", "2016-12-03T23:11:46+00:00"),
    ("2014-02-06 20:37:20Z", "2014-02-06T20:37:20+00:00"),
    ("2012-03-12T14:05:00.123+0200", "2012-03-12T14:05:00+02:00"),
    ("20120312T140500Z", "2012-03-12T14:05:00+00:00"),
    ("2012-03-12", "2012-03-12"),
    ("1331561100", "2012-03-12T14:05:00+00:00"),
    ("1331561100000", "2012-03-12T14:05:00+00:00"),
    ("Mon, 12 Mar 2012 14:05:00 +0000", "2012-03-12T14:05:00+00:00"),
    ("Mon, 12 Mar 2012 14:05:00 -0500", "2012-03-12T14:05:00-05:00"),
    ("September 29, 2019 3:49AM", "2019-09-29T03:49"),
    ("24.04.2018 12:29:19 (Europe/Moscow)", "2018-04-24T12:29:19"),
    ("13.11.2019 um 18:18", "2019-11-13T18:18"),
]


@pytest.mark.parametrize(("value", "expected"), ATTRS)
def test_parse_datetime_attr(value: str, expected: str) -> None:
    assert parse_datetime_attr(value) == expected


@pytest.mark.parametrize("value", ["", "garbage", "3 hours ago", "2012-13-45", "March 30", "12"])
def test_parse_datetime_attr_rejects(value: str) -> None:
    assert parse_datetime_attr(value) is None


LONG_INPUTS = [
    "1/" * 50_000, "12/" * 33_000, "1.2." * 25_000, "12:" * 33_000, "1" * 100_000,
    " " * 100_000 + "x", "May 1 " * 16_000, "3 hours ago " * 8_000, "a1 " * 33_000,
]


@pytest.mark.parametrize("text", LONG_INPUTS, ids=lambda t: repr(t[:6]))
def test_long_inputs_are_parsed(text: str) -> None:
    """Long inputs finish (the patterns below are bounded) and give a date only where one is."""
    match = parse_date(text)
    assert (match is not None) == text.startswith(("May 1", "3 hours"))


def test_every_pattern_has_bounded_quantifiers() -> None:
    """No catastrophic backtracking, checked on the patterns rather than the clock: outside
    character classes, every quantifier is bounded ({m,n}), but for a lone character class
    repeated (a token run, linear)."""
    unbounded = re.compile(r"(?<!\\)[*+]|\{\d+,\}")
    for name, value in vars(dates).items():
        if not isinstance(value, re.Pattern):
            continue
        source = re.sub(r"\[(?:\\.|[^\]\\])*\]", "[]", value.pattern)
        if source == "[]+":
            continue
        assert not unbounded.search(source), f"{name}: unbounded quantifier in {value.pattern}"


def test_texts_without_a_date_give_none() -> None:
    texts = ["This is an ordinary sentence with no date in it at all, really.",
             "Posts: 1,234 Reputation 56 Location: Berlin", "Price 12.50 EUR, version 3.2.1"]
    assert [parse_date(text) for text in texts] == [None, None, None]


def _forum_posts() -> list[dict[str, str]]:
    """Every gold post of the forums corpus (skips, or fails under CI, without the data)."""
    root = require_corpus("forums", "truth.json")
    pages = json.loads((root / "forums" / "truth.json").read_text(encoding="utf-8"))
    return [post for page in pages for post in page["posts"]]


def test_corpus_dates_found() -> None:
    dated = [p["date"] for p in _forum_posts() if (p.get("date") or "").strip()]
    misses = [d for d in dated if parse_date(d) is None]
    rate = 1 - len(misses) / len(dated)
    print(f"forum dates found: {rate:.4f} of {len(dated)}; misses: {misses}")
    assert rate >= CORPUS_FIND_RATE, misses


def test_corpus_dates_agree_with_attributes() -> None:
    pairs = []
    for post in _forum_posts():
        attr = post.get("date_attr")
        match = parse_date(post.get("date") or "")
        if not attr or match is None or match.relative or match.iso is None:
            continue
        if len(match.iso) < 10:  # month and year only
            continue
        pairs.append((match.iso[:10], (parse_datetime_attr(attr) or "")[:10], post["date"], attr))
    agree = sum(1 for shown, machine, _, _ in pairs if shown == machine)
    disagreements = [p for p in pairs if p[0] != p[1]]
    print(f"date/date_attr agreement: {agree}/{len(pairs)}; differing: {disagreements}")
    assert pairs
    assert agree / len(pairs) >= CORPUS_AGREEMENT, disagreements


@pytest.mark.parametrize("text", ["3 hourſ ago", "ſep 5, 2019", "5 ſeptember 2019",
                                  "2 ᲁней назад", "KW 3 Kelvin days ago", "ſunday 10:00",
                                  "İyul 5", "yeſterday at 10:00"])
def test_case_insensitive_lookalikes_never_crash(text: str) -> None:
    """The regexes match "ſ" for "s" and other case-insensitive lookalikes; the table
    lookups must follow them instead of raising KeyError."""
    found = parse_date(text, now=datetime(2024, 1, 1, tzinfo=UTC))
    assert found is None or found.iso


def test_folding_characters_are_all_known() -> None:
    """`date_words.FOLDING_RE` holds every character that matches a letter of the month and
    weekday names case-insensitively without lower-casing to it: the screens that try those
    regexes only at letter runs naming one rely on it (`date_words.word_starts`)."""
    from winnow import date_words

    letters = sorted(set("".join([*date_words.MONTH_BY_NAME, *date_words.WEEKDAY_BY_NAME]))
                     - {"-"})
    any_letter = re.compile("[" + "".join(map(re.escape, letters)) + "]", re.IGNORECASE)
    each = {p: re.compile(re.escape(p), re.IGNORECASE) for p in letters}
    folding = [c for c in map(chr, range(0x110000))
               if any_letter.fullmatch(c)
               and any(each[p].fullmatch(c) and c.lower() != p for p in letters)]
    assert folding and all(date_words.FOLDING_RE.fullmatch(c) for c in folding)
