"""Post dates: the MiBAT pivot classifier and date/time parsing to ISO 8601.

MiBAT (Song et al. 2010) anchors forum records on the *pivot*, the lowest text node holding the
post date. This module recognises such dates in short texts, in English, German, French,
Spanish, Portuguese, Italian, Dutch, Russian, Chinese and Japanese:

* absolute dates with month names ("12 March 2012", "Mar 12th, 2012", "5. Januar 2019",
  "12 de marzo de 2012", "12 мая 2012", "Июль 2019"), numeric dates ("2012-03-12",
  "12.03.2012", "03/12/2012", "16-Jun-20") and CJK dates ("2012年3月12日");
* times, 12 h or 24 h ("2:05 pm", "14:05:33", "19h46", "14 Uhr", "下午3:05", "14時05分") with an
  optional offset ("Z", "-0600", "+02:00");
* relative dates ("3 hours ago", "vor 2 Tagen", "il y a 3 jours", "hace 2 horas", "há 3 dias",
  "3 giorni fa", "3 dagen geleden", "2 часа назад", "3小时前", "3時間前"), day words
  ("yesterday at 5:30 PM", "heute, 10:15", "hier", "昨天") and weekday + time
  ("Freitag um 10:00 Uhr").

Everything is pure: the reference time for relative dates is passed in, never read from the
clock. All regexes are compiled once at import and use bounded quantifiers only, so there is no
catastrophic backtracking on long inputs.

Numeric day/month ambiguity ("03/04/2012"): dotted dates are always day first; with "/" or "-"
the day comes first when the first number is > 12, the month first when the second is > 12, and
otherwise month first when `lang_hint` is None or an English-US hint (see `MONTH_FIRST_LANGS`),
else day first.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_tz

from winnow import date_words as words

__all__ = ["DateMatch", "is_date_pivot", "parse_date", "parse_datetime_attr"]

# --- constants ------------------------------------------------------------------------------

MIN_YEAR = 1900
"""Oldest four-digit year accepted as a post date."""

MAX_YEAR = 2100
"""Latest four-digit year accepted as a post date."""

TWO_DIGIT_YEAR_PIVOT = 70
"""Two-digit years below this are 20xx, the others 19xx."""

PIVOT_MAX_CHARS = 80
"""`is_date_pivot` rejects texts longer than this (after stripping)."""

PIVOT_MAX_RESIDUAL = 3
"""Word characters a pivot may hold beyond the date and the allowed labels (a post number)."""

PIVOT_EXTRA_DATES = 2
"""Further dates a pivot may hold besides its own (an "edited …" date)."""

LOOKBACK_CHARS = 40
"""How far before a date to look for a leading time ("11:43pm On Apr 23") or weekday."""

MONTH_FIRST_LANGS = frozenset({"en", "en-us", "en_us"})
"""Language hints for which ambiguous numeric "a/b/yyyy" dates are read month first; None too."""

TIER_FULL = 3
"""Candidate rank: a complete absolute date (year, month, day)."""

TIER_RELATIVE = 2
"""Candidate rank: a relative date ("3 hours ago", "yesterday")."""

TIER_PARTIAL = 1
"""Candidate rank: a date missing its year or day ("April 9", "September 2019")."""


# --- data ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DateMatch:
    """A post date found in a text.

    `start`/`end` delimit `text` in the input; `iso` is "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS]"
    (plus "+HH:MM" when an offset is known) or "YYYY-MM" for a month and year; it is None
    when it cannot be determined (relative dates without `now`, dates without a year).
    """

    start: int
    end: int
    text: str
    iso: str | None
    relative: bool
    has_time: bool


@dataclass(frozen=True, slots=True)
class _Time:
    """A parsed time of day."""

    start: int
    end: int
    hour: int
    minute: int
    second: int | None
    offset: str | None


@dataclass(frozen=True, slots=True)
class _Hit:
    """A date candidate: absolute parts, or a relative (unit, amount) pair."""

    start: int
    end: int
    tier: int
    year: int | None = None
    month: int | None = None
    day: int | None = None
    unit: str | None = None
    amount: int = 0


# --- helpers ------------------------------------------------------------------------------


def _valid_date(year: int, month: int, day: int) -> bool:
    """Whether year-month-day is a real calendar date in the accepted year range."""
    if not MIN_YEAR <= year <= MAX_YEAR or not 1 <= month <= 12:
        return False
    return 1 <= day <= calendar.monthrange(year, month)[1]


def _expand_year(text: str) -> int:
    """A year from two or four digits (two-digit years around TWO_DIGIT_YEAR_PIVOT)."""
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < TWO_DIGIT_YEAR_PIVOT else 1900
    return year


def _month_first(lang_hint: str | None) -> bool:
    """Whether ambiguous numeric "a/b/y" dates are read month first for this language hint."""
    return lang_hint is None or lang_hint.strip().lower() in MONTH_FIRST_LANGS


def _numeric_day_month(a: int, b: int, sep: str, lang_hint: str | None) -> tuple[int, int]:
    """(day, month) of a numeric "a sep b sep year" date following the module's ambiguity rule."""
    if sep == "." or a > 12:
        return a, b
    if b > 12:
        return b, a
    return (b, a) if _month_first(lang_hint) else (a, b)


def _fmt_offset(offset: timedelta | None) -> str | None:
    """"+HH:MM" for a UTC offset."""
    if offset is None:
        return None
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _parse_offset(raw: str | None) -> str | None:
    """Normalise "Z", "UTC", "GMT+2", "-0600", "+02:00" to "+HH:MM"."""
    if not raw:
        return None
    raw = raw.strip().upper()
    if raw in ("Z", "UTC", "GMT"):
        return "+00:00"
    raw = raw.removeprefix("UTC").removeprefix("GMT").strip()
    digits = raw[1:].replace(":", "")
    if len(digits) == 2:
        digits += "00"
    if len(digits) != 4 or not digits.isdigit():
        return None
    return f"{raw[0]}{digits[:2]}:{digits[2:]}"


def _time_from(m: re.Match[str]) -> _Time | None:
    """A `_Time` from a match of `TIME`, or None when it is not a plausible time."""
    hour = int(m["hour"])
    ampm = (m["ampm"] or "").lower()
    mer = m["mer"]
    if m["minute"] is None and not ampm and not m["uhr"]:
        return None
    if m["tsep"] in ("h", "H") and m["minute"] is None:
        return None
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "p" else 0)
    elif mer in words.CJK_MERIDIEM_PM and hour < 12:
        hour += 12
    elif mer in words.CJK_MERIDIEM_AM and hour == 12:
        hour = 0
    minute = int(m["minute"]) if m["minute"] else 0
    second = int(m["second"]) if m["second"] else None
    return _Time(m.start(), m.end(), hour, minute, second, _parse_offset(m["tz"]))


def _fmt(day: date, time: _Time | None) -> str:
    """ISO 8601 text for a date and an optional time."""
    if time is None:
        return day.isoformat()
    clock = f"{time.hour:02d}:{time.minute:02d}"
    if time.second is not None:
        clock += f":{time.second:02d}"
    return f"{day.isoformat()}T{clock}{time.offset or ''}"


def _shift_months(day: date, months: int) -> date:
    """`day` moved by a number of calendar months, clamped to the month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


# --- candidate finders --------------------------------------------------------------------


def _iso_hits(text: str) -> list[_Hit]:
    """Year-first numeric dates."""
    hits = []
    for m in words.ISO_RE.finditer(text):
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
        if _valid_date(y, mo, d):
            hits.append(_Hit(m.start(), m.end(), TIER_FULL, y, mo, d))
    return hits


def _numeric_hits(text: str, lang_hint: str | None) -> list[_Hit]:
    """Day/month-first numeric dates, with the ambiguity rule."""
    hits = []
    for m in words.NUMERIC_RE.finditer(text):
        a_txt, b_txt, y_txt, sep = m["a"], m["b"], m["y"], m["sep"]
        if len(y_txt) == 2 and sep != "/" and (len(a_txt) < 2 or len(b_txt) < 2):
            continue  # "3.2.10" is a version number, "03.02.10" a date
        day, month = _numeric_day_month(int(a_txt), int(b_txt), sep, lang_hint)
        year = _expand_year(y_txt)
        if _valid_date(year, month, day):
            hits.append(_Hit(m.start(), m.end(), TIER_FULL, year, month, day))
    return hits


def _name_hits(text: str) -> list[_Hit]:
    """Dates with a month name: day-month-year, month-day-year, month-year."""
    starts = words.word_starts(text, words.MONTH_TOKENS)
    hits = [hit for m in words.DMY_RE.finditer(text) if (hit := _named(m, m["y"])) is not None]
    hits += [hit for m in _word_start_matches(words.MDY_RE, text, starts)
             if (hit := _named(m, m["y"])) is not None]
    for m in _word_start_matches(words.MY_RE, text, starts):
        token = _key(m["mon"])
        year = int(m["y"])
        if token not in words.AMBIGUOUS_MONTH_TOKENS and MIN_YEAR <= year <= MAX_YEAR:
            hits.append(_Hit(m.start(), m.end(), TIER_PARTIAL, year, words.MONTH_BY_NAME[token]))
    return hits


def _word_start_matches(regex: re.Pattern[str], text: str,
                        starts: Iterable[int]) -> Iterator[re.Match[str]]:
    """`regex.finditer(text)` for a regex that starts with a month or weekday name after a
    non-letter: its matches start where a letter run starts, so it is tried at those
    `starts` only (in order, none inside the previous match), not at every character."""
    end = 0
    for start in starts:
        if start < end:
            continue
        m = regex.match(text, start)
        if m is not None:
            yield m
            end = m.end()


def _named(m: re.Match[str], year_text: str | None) -> _Hit | None:
    """A hit from a day-month(-year) or month-day(-year) match, or None when invalid."""
    token = _key(m["mon"])
    month = words.MONTH_BY_NAME[token]
    day = int(m["d"])
    if year_text is None:
        if token in words.AMBIGUOUS_MONTH_TOKENS or not 1 <= day <= 31:
            return None
        if day > calendar.monthrange(2000, month)[1]:  # 2000 is a leap year
            return None
        return _Hit(m.start(), m.end(), TIER_PARTIAL, None, month, day)
    year = _expand_year(year_text)
    if not _valid_date(year, month, day):
        return None
    return _Hit(m.start(), m.end(), TIER_FULL, year, month, day)


def _cjk_hits(text: str) -> list[_Hit]:
    """Chinese/Japanese dates with 年/月/日."""
    hits = []
    for m in words.CJK_RE.finditer(text):
        year = int(m["y"]) if m["y"] else None
        month = int(m["m"])
        day = int(m["d"]) if m["d"] else None
        if day is None and year is None:
            continue  # "3月" alone
        if year is not None and day is not None:
            if _valid_date(year, month, day):
                hits.append(_Hit(m.start(), m.end(), TIER_FULL, year, month, day))
        elif 1 <= month <= 12 and (day is None or 1 <= day <= 31):
            hits.append(_Hit(m.start(), m.end(), TIER_PARTIAL, year, month, day))
    return hits


def _amount(raw: str | None) -> int:
    """The number in a relative date ("3", "an", "einem", missing -> 1)."""
    if raw is None or not raw[0].isdigit():
        return 1
    return int(raw)


def _relative_hits(
    text: str, tokens: set[str], cjk: bool, lang_hint: str | None
) -> list[_Hit]:
    """Relative dates: N units ago in every language, day words, "now", weekday + time."""
    hits: list[_Hit] = []
    regexes = []
    if cjk or not words.AGO_TOKENS.isdisjoint(tokens):
        regexes.append(words.REL_SUFFIX_RE)
    if not words.PREFIX_TOKENS.isdisjoint(tokens):
        regexes.append(words.REL_PREFIX_RE)
    for regex in regexes:
        for m in regex.finditer(text):
            unit = words.UNIT_BY_WORD[_key(m["unit"])]
            hits.append(_Hit(m.start(), m.end(), TIER_RELATIVE, unit=unit,
                             amount=_amount(m["n"])))
    if cjk or not words.DAY_TOKENS.isdisjoint(tokens):
        hits += _day_word_hits(text, lang_hint)
    if cjk or words.may_say_now(text, tokens):
        hits += [_Hit(m.start(), m.end(), TIER_RELATIVE, unit="second", amount=0)
                 for m in words.NOW_RE.finditer(text)]
    if cjk or not words.WEEKDAY_TOKENS.isdisjoint(tokens):
        for m in _word_start_matches(words.WEEKDAY_TIME_RE, text,
                                     words.word_starts(text, words.WEEKDAY_TOKENS)):
            if words.TRAILING_TIME_RE.match(text, m.end()) is not None:
                hits.append(_Hit(m.start(), m.end(), TIER_RELATIVE, unit="weekday",
                                 amount=words.WEEKDAY_BY_NAME[_key(m["wd"])]))
    return hits


def _key(word: str) -> str:
    """A matched word as its table key. The regexes match case-insensitively, so they also
    match "ſ" for "s", "K" (Kelvin) for "k", "ı" and "İ" for "i" and old Cyrillic letter
    forms; casefold maps all but the dotless and dotted i, which are mapped first."""
    return word.translate(_DOTTED_I).casefold()


_DOTTED_I = str.maketrans({"İ": "i", "ı": "i"})


def _day_word_hits(text: str, lang_hint: str | None) -> list[_Hit]:
    """Day words ("yesterday", "heute", "hier", "昨天") as relative day offsets."""
    hits = []
    no_hier = lang_hint is not None and lang_hint.lower().startswith(words.HIER_LANGS)
    for m in words.DAY_WORD_RE.finditer(text):
        word = _key(m["w"] or m["cjk"])
        if word == "hier" and no_hier:
            continue
        offset = words.DAY_OFFSET_BY_WORD[re.sub(r"\s+", " ", word)]
        hits.append(_Hit(m.start(), m.end(), TIER_RELATIVE, unit="day", amount=-offset))
    return hits


def _candidates(text: str, lang_hint: str | None) -> list[_Hit]:
    """Every date candidate in `text`; cheap token screens decide which regexes run."""
    hits: list[_Hit] = []
    has_digit = words.DIGIT_RE.search(text) is not None
    tokens = words.lower_tokens(text)
    cjk = not text.isascii() and any(trigger in text for trigger in words.CJK_TRIGGERS)
    if has_digit:
        if words.DIGIT_SEP_DIGIT_RE.search(text) is not None:
            hits += _iso_hits(text)
            hits += _numeric_hits(text, lang_hint)
        if not words.MONTH_TOKENS.isdisjoint(tokens):
            hits += _name_hits(text)
        if "月" in text:
            hits += _cjk_hits(text)
    if cjk or not words.RELATIVE_TOKENS.isdisjoint(tokens):  # most texts have none
        hits += _relative_hits(text, tokens, cjk, lang_hint)
    return hits


def _best(hits: list[_Hit]) -> _Hit:
    """The most complete candidate; among equals the earliest, then the longest."""
    return min(hits, key=lambda h: (-h.tier, h.start, -(h.end - h.start)))


def _trailing_time(text: str, end: int) -> _Time | None:
    """A time right after a date ("… 2012, 14:05", "… um 11:16 Uhr")."""
    m = words.TRAILING_TIME_RE.match(text, end)  # a match starts at `end`
    return None if m is None else _time_from(m)


def _leading_time(text: str, start: int) -> _Time | None:
    """A time right before a date ("11:43pm On Apr 23")."""
    base = max(0, start - LOOKBACK_CHARS)
    if words.DIGIT_RE.search(text, base, start) is None:
        return None
    m = words.LEADING_TIME_RE.search(text, base, start)
    if m is None:
        return None
    time = _time_from(m)
    return None if time is None else replace(time, end=start)


def _weekday_start(text: str, start: int) -> int:
    """`start` moved back over a weekday label ("Fri May 08, 2009", "Tue 16-Jun-20")."""
    end = start
    while end > 0 and text[end - 1] in words.WEEKDAY_SEPARATORS:
        end -= 1
    if end == start:
        return start
    begin = end
    while begin > 0 and text[begin - 1].isalpha():
        begin -= 1
    word = text[begin:end].lower()
    if word in words.WEEKDAY_BY_NAME or word in words.WEEKDAY_ABBREVIATIONS:
        return begin
    return start


def _infer_year(month: int, day: int, now: datetime) -> date | None:
    """The latest month/day not after `now` (plus a day of slack for time zones)."""
    for year in (now.year, now.year - 1):
        if day <= calendar.monthrange(year, month)[1]:
            candidate = date(year, month, day)
            if candidate <= now.date() + timedelta(days=1):
                return candidate
    return None


def _absolute_iso(hit: _Hit, time: _Time | None, now: datetime | None) -> str | None:
    """ISO text of an absolute hit."""
    if hit.month is None:
        return None
    if hit.day is None:
        return None if hit.year is None else f"{hit.year:04d}-{hit.month:02d}"
    if hit.year is not None:
        return _fmt(date(hit.year, hit.month, hit.day), time)
    if now is None:
        return None
    inferred = _infer_year(hit.month, hit.day, now)
    return None if inferred is None else _fmt(inferred, time)


def _relative_iso(hit: _Hit, time: _Time | None, now: datetime | None) -> tuple[str | None, bool]:
    """ISO text of a relative hit and whether it carries a time."""
    unit, amount = hit.unit, hit.amount
    if unit in ("second", "minute", "hour"):
        if now is None:
            return None, True
        moment = now - timedelta(**{f"{unit}s": amount})
        clock = _Time(0, 0, moment.hour, moment.minute,
                      moment.second if unit == "second" else None,
                      _fmt_offset(now.utcoffset()))
        return _fmt(moment.date(), clock), True
    has_time = time is not None
    if now is None:
        return None, has_time
    today = now.date()
    if unit == "day":
        day = today - timedelta(days=amount)
    elif unit == "week":
        day = today - timedelta(weeks=amount)
    elif unit == "month":
        day = _shift_months(today, -amount)
    elif unit == "year":
        day = _shift_months(today, -12 * amount)
    else:  # weekday: the latest such day strictly before today
        day = today - timedelta(days=(today.weekday() - amount - 1) % 7 + 1)
    if time is not None and time.offset is None and now.utcoffset() is not None:
        time = replace(time, offset=_fmt_offset(now.utcoffset()))
    return _fmt(day, time), has_time


# --- public API ---------------------------------------------------------------------------


def parse_date(
    text: str, now: datetime | None = None, lang_hint: str | None = None
) -> DateMatch | None:
    """Find the post date in a short text, or None.

    The most complete candidate wins (full date > relative date > month-day or month-year),
    the earliest among equals. A time right after (or right before) the date is included, and
    so is a leading weekday. Relative dates ("3 hours ago", "gestern um 10:00") and dates
    without a year get an `iso` only when `now` is given. `lang_hint` (e.g. "de", "en-US")
    settles ambiguous numeric dates (see the module docstring) and stops "hier" from meaning
    "yesterday" in German and Dutch.
    """
    hits = _candidates(text, lang_hint)
    if not hits:
        return None
    hit = _best(hits)
    start, end = hit.start, hit.end
    short_relative = hit.unit in ("second", "minute", "hour")
    time = None if short_relative else _trailing_time(text, end)
    if time is not None:
        end = time.end
    elif hit.unit is None:
        time = _leading_time(text, start)
        if time is not None:
            start = time.start
    if hit.unit is None:
        start = _weekday_start(text, start)
        iso = _absolute_iso(hit, time, now)
        has_time = time is not None
    else:
        iso, has_time = _relative_iso(hit, time, now)
    return DateMatch(start, end, text[start:end], iso, hit.unit is not None, has_time)


def is_date_pivot(text: str) -> bool:
    """Whether a short text node is mainly a post date (a MiBAT pivot candidate).

    True when the text has at most PIVOT_MAX_CHARS characters, holds a date, and what is left
    besides the date, label words ("Posted on", "am", "by <name>", "#12") and punctuation is at
    most PIVOT_MAX_RESIDUAL word characters.
    """
    stripped = text.strip()
    if not stripped or len(stripped) > PIVOT_MAX_CHARS:
        return False
    match = parse_date(stripped)
    if match is None:
        return False
    rest = stripped[: match.start] + " " + stripped[match.end :]
    for _ in range(PIVOT_EXTRA_DATES):  # "… (zuletzt bearbeitet: 14. Juni 2020 10:41)"
        extra = parse_date(rest)
        if extra is None:
            break
        rest = rest[: extra.start] + " " + rest[extra.end :]
    rest = words.LABEL_RE.sub(" ", rest)
    return len(words.WORD_CHAR_RE.findall(rest)) <= PIVOT_MAX_RESIDUAL


def parse_datetime_attr(value: str) -> str | None:
    """ISO 8601 text of a `<time datetime>` or `title` attribute value, or None.

    Accepts ISO 8601 (extended or basic, "T" or space, fractions dropped, "Z" or offsets, which
    become "+HH:MM"), RFC 2822 ("Mon, 12 Mar 2012 14:05:00 +0000"), unix timestamps in seconds
    or milliseconds (rendered in UTC), and, failing those, any absolute date `parse_date` finds
    ("September 29, 2019 3:49AM", "13.11.2019 um 18:18").
    """
    v = value.strip()
    if not v:
        return None
    if words.UNIX_RE.fullmatch(v):
        seconds = int(v) / 1000 if len(v) >= 12 else int(v)
        moment = datetime.fromtimestamp(seconds, tz=UTC)
        return moment.replace(microsecond=0).isoformat()
    m = words.ISO_ATTR_RE.fullmatch(v)
    if m is not None:
        return _iso_attr(m)
    if words.RFC2822_RE.fullmatch(v):
        parsed = _rfc2822(v)
        if parsed is not None:
            return parsed
    found = parse_date(v)
    if found is None or found.relative or found.iso is None or len(found.iso) < 10:
        return None
    return found.iso


def _iso_attr(m: re.Match[str]) -> str | None:
    """ISO text from an `ISO_ATTR_RE` match (None when the date is invalid)."""
    year, month, day = int(m["y"]), int(m["m"]), int(m["d"])
    if not _valid_date(year, month, day):
        return None
    if m["hh"] is None:
        return date(year, month, day).isoformat()
    hour, minute = int(m["hh"]), int(m["mi"])
    if hour > 23 or minute > 59:
        return None
    second = int(m["ss"]) if m["ss"] else None
    return _fmt(date(year, month, day), _Time(0, 0, hour, minute, second, _parse_offset(m["tz"])))


def _rfc2822(value: str) -> str | None:
    """ISO text of an RFC 2822 date, or None."""
    parts = parsedate_tz(value)
    if parts is None:
        return None
    year, month, day, hour, minute, second = parts[:6]
    if not _valid_date(year, month, day):
        return None
    offset = parts[9]
    tz = None if offset is None else _fmt_offset(timedelta(seconds=offset))
    return _fmt(date(year, month, day), _Time(0, 0, hour, minute, second, tz))
