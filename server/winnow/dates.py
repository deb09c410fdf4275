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

AMBIGUOUS_MONTH_TOKENS = frozenset({"ago", "set", "out", "gen"})
"""Month abbreviations that are ordinary words elsewhere; only accepted with a year."""

_MONTHS: dict[int, tuple[str, ...]] = {
    1: ("january", "jan", "januar", "jänner", "janvier", "janv", "enero", "ene", "janeiro",
        "gennaio", "gen", "januari", "январь", "января", "янв"),
    2: ("february", "feb", "februar", "feber", "février", "fevrier", "févr", "fevr", "fév",
        "febrero", "fevereiro", "fev", "febbraio", "februari", "февраль", "февраля", "фев"),
    3: ("march", "mar", "märz", "mär", "maerz", "mrz", "mars", "marzo", "março", "marco", "maart",
        "mrt", "март", "марта", "мар"),
    4: ("april", "apr", "avril", "avr", "abril", "abr", "aprile", "апрель", "апреля", "апр"),
    5: ("may", "mai", "mayo", "maio", "maggio", "mag", "mei", "май", "мая"),
    6: ("june", "jun", "juni", "juin", "junio", "junho", "giugno", "giu", "июнь", "июня",
        "июн"),
    7: ("july", "jul", "juli", "juillet", "juil", "julio", "julho", "luglio", "lug", "июль",
        "июля", "июл"),
    8: ("august", "aug", "août", "aout", "agosto", "ago", "augustus", "август", "августа",
        "авг"),
    9: ("september", "sep", "sept", "septembre", "septiembre", "setiembre", "setembro", "set",
        "settembre", "сентябрь", "сентября", "сен", "сент"),
    10: ("october", "oct", "oktober", "okt", "octobre", "octubre", "outubro", "out", "ottobre",
         "ott", "октябрь", "октября", "окт"),
    11: ("november", "nov", "novembre", "noviembre", "novembro", "ноябрь", "ноября", "ноя"),
    12: ("december", "dec", "dezember", "dez", "décembre", "decembre", "déc", "diciembre",
         "dic", "dezembro", "dicembre", "декабрь", "декабря", "дек"),
}
"""Month names, full and abbreviated, of every supported language (lower case)."""

MONTH_BY_NAME: dict[str, int] = {name: num for num, names in _MONTHS.items() for name in names}
"""Lower-case month name or abbreviation -> month number."""

_WEEKDAYS_FULL: dict[int, tuple[str, ...]] = {
    0: ("monday", "montag", "lundi", "lunes", "segunda-feira", "lunedì", "lunedi", "maandag",
        "понедельник", "星期一", "周一", "月曜日"),
    1: ("tuesday", "dienstag", "mardi", "martes", "terça-feira", "terca-feira", "martedì",
        "martedi", "dinsdag", "вторник", "星期二", "周二", "火曜日"),
    2: ("wednesday", "mittwoch", "mercredi", "miércoles", "miercoles", "quarta-feira",
        "mercoledì", "mercoledi", "woensdag", "среда", "星期三", "周三", "水曜日"),
    3: ("thursday", "donnerstag", "jeudi", "jueves", "quinta-feira", "giovedì", "giovedi",
        "donderdag", "четверг", "星期四", "周四", "木曜日"),
    4: ("friday", "freitag", "vendredi", "viernes", "sexta-feira", "venerdì", "venerdi",
        "vrijdag", "пятница", "星期五", "周五", "金曜日"),
    5: ("saturday", "samstag", "sonnabend", "samedi", "sábado", "sabado", "sabato", "zaterdag",
        "суббота", "星期六", "周六", "土曜日"),
    6: ("sunday", "sonntag", "dimanche", "domingo", "domenica", "zondag", "воскресенье",
        "星期日", "星期天", "周日", "日曜日"),
}
"""Full weekday names (Monday = 0); used for "Friday at 10:00" relative dates."""

WEEKDAY_BY_NAME: dict[str, int] = {
    name: num for num, names in _WEEKDAYS_FULL.items() for name in names
}
"""Lower-case full weekday name -> weekday number (Monday = 0)."""

WEEKDAY_ABBREVIATIONS = (
    "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "mo", "di", "mi",
    "do", "fr", "sa", "so", "lun", "mar", "mer", "jeu", "ven", "sam", "dim", "mié", "jue", "vie",
    "sáb", "dom", "seg", "ter", "qua", "qui", "sex", "gio", "sab", "ma", "wo", "vr", "za", "zo",
    "пн", "вт", "ср", "чт", "пт", "сб", "вс",
)
"""Weekday abbreviations allowed as a label before a date ("Fri May 08, 2009")."""

WEEKDAY_SEPARATORS = frozenset(" \t\xa0,.")
"""Characters allowed between a weekday label and the date it precedes."""

_UNITS: dict[str, tuple[str, ...]] = {
    "second": ("second", "seconds", "sec", "secs", "s", "sekunde", "sekunden", "sek", "seconde",
               "secondes", "segundo", "segundos", "seg", "secondo", "secondi", "seconden",
               "секунду", "секунды", "секунд", "сек", "秒", "秒钟", "秒鐘"),
    "minute": ("minute", "minutes", "min", "mins", "m", "minuten", "minuto", "minutos",
               "minuti", "minuut", "минуту", "минуты", "минут", "мин", "分", "分钟", "分鐘"),
    "hour": ("hour", "hours", "hr", "hrs", "h", "stunde", "stunden", "std", "heure", "heures",
             "hora", "horas", "ora", "ore", "uur", "uren", "час", "часа", "часов", "ч", "小时",
             "小時", "个小时", "個小時", "時間"),
    "day": ("day", "days", "d", "tag", "tage", "tagen", "jour", "jours", "j", "día", "días",
            "dia", "dias", "giorno", "giorni", "dag", "dagen", "день", "дня", "дней", "天",
            "日"),
    "week": ("week", "weeks", "wk", "wks", "w", "woche", "wochen", "semaine", "semaines",
             "semana", "semanas", "settimana", "settimane", "weken", "неделю", "недели",
             "недель", "нед", "周", "週", "星期", "週間"),
    "month": ("month", "months", "mo", "mos", "monat", "monate", "monaten", "mois", "mes",
              "meses", "mês", "mese", "mesi", "maand", "maanden", "месяц", "месяца",
              "месяцев", "мес", "个月", "個月", "か月", "ヶ月", "ヵ月", "カ月"),
    "year": ("year", "years", "yr", "yrs", "y", "jahr", "jahre", "jahren", "an", "ans",
             "année", "années", "año", "años", "ano", "anos", "anno", "anni", "jaar", "jaren",
             "год", "года", "лет", "年"),
}
"""Relative-date unit words of every language, by unit."""

UNIT_BY_WORD: dict[str, str] = {word: unit for unit, words in _UNITS.items() for word in words}
"""Lower-case unit word -> "second" | "minute" | "hour" | "day" | "week" | "month" | "year"."""

NUMBER_WORDS = frozenset({
    "a", "an", "one", "ein", "eine", "einem", "einer", "einen", "un", "une", "una", "uno", "um",
    "uma", "een", "één", "один", "одна", "одну",
})
"""Words meaning "one" in relative dates ("an hour ago", "vor einem Tag", "il y a un an")."""

_DAY_WORDS: dict[int, tuple[str, ...]] = {
    0: ("today", "heute", "aujourd'hui", "aujourd’hui", "hoy", "hoje", "oggi", "vandaag",
        "сегодня"),
    -1: ("yesterday", "gestern", "hier", "ayer", "ontem", "ieri", "gisteren", "вчера"),
    -2: ("day before yesterday", "vorgestern", "avant-hier", "anteayer", "antier",
         "anteontem", "l'altro ieri", "altroieri", "eergisteren", "позавчера"),
}
"""Day words (alphabetic scripts) by day offset from the reference date."""

_CJK_DAY_WORDS: dict[int, tuple[str, ...]] = {
    0: ("今天", "今日"),
    -1: ("昨天", "昨日"),
    -2: ("前天", "一昨日", "おととい"),
}
"""Chinese and Japanese day words by day offset (matched without word boundaries)."""

DAY_OFFSET_BY_WORD: dict[str, int] = {
    word: offset
    for table in (_DAY_WORDS, _CJK_DAY_WORDS)
    for offset, words in table.items()
    for word in words
}
"""Lower-case day word -> day offset (0 today, -1 yesterday, -2 the day before)."""

HIER_LANGS = ("de", "nl")
"""Languages in which "hier" means "here", not French "yesterday"."""

NOW_PHRASES = (
    "just now", "right now", "a few seconds ago", "moments ago", "a moment ago", "gerade eben",
    "soeben", "à l'instant", "a l'instant", "ahora mismo", "justo ahora", "hace un momento",
    "agora mesmo", "proprio ora", "poco fa", "zojuist", "net nu", "только что", "刚刚", "剛剛",
    "たった今",
)
"""Phrases meaning "now" (a relative date of zero)."""

CJK_MERIDIEM_PM = frozenset({"下午", "午後", "晚上"})
"""CJK prefixes marking an afternoon/evening hour."""

CJK_MERIDIEM_AM = frozenset({"上午", "午前", "早上", "凌晨"})
"""CJK prefixes marking a morning hour."""

PIVOT_LABEL_WORDS = (
    "posted", "posted on", "posted at", "post", "date", "on", "at", "by", "le", "el", "il",
    "op", "om", "am", "um", "uhr", "à", "a", "las", "às", "alle", "de", "del", "du", "van",
    "von", "re", "edited", "updated", "last", "modified", "written", "sent", "gepostet",
    "geschrieben", "verfasst", "datum", "publié", "posté", "envoyé", "publicado", "enviado",
    "escrito", "fecha", "data", "pubblicato", "inviato", "scritto", "geplaatst", "geschreven",
    "опубликовано", "отправлено", "дата", "в", "发表于", "發表於", "发布于", "投稿日",
    "投稿", "于", "於", "zuletzt", "bearbeitet", "g", "г", "года", "ago", "uur",
)
"""Label words allowed around a pivot date ("Posted on", "Geschrieben am", "发表于")."""


# --- regexes ------------------------------------------------------------------------------


def _alternation(words: Iterable[str]) -> str:
    """A regex alternation of `words`, longest first so it matches greedily; spaces match 1-3
    whitespace characters."""
    items = sorted(set(words), key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s{1,3}") for w in items)


_NOT_LETTER_AFTER = r"(?![^\W\d_])"
_NOT_LETTER_BEFORE = r"(?<![^\W\d_])"
_MONTH_ALT = _alternation(MONTH_BY_NAME)
_MONTH = rf"{_NOT_LETTER_BEFORE}(?P<mon>{_MONTH_ALT}){_NOT_LETTER_AFTER}\.?"

_TIME = (
    r"(?:(?P<mer>上午|下午|午前|午後|早上|晚上|凌晨)\s{0,2})?"
    r"(?<!\d)(?P<hour>2[0-3]|[01]?\d)"
    r"(?:\s{0,2}(?P<tsep>[:hH時时点點])\s{0,2}(?P<minute>[0-5]\d)(?!\d)(?:\s{0,2}分)?"
    r"(?::(?P<second>[0-5]\d)(?:[.,]\d{1,6})?)?)?"
    r"(?:\s{0,2}(?P<ampm>[aApP])\.?\s?[mM]\.?" + _NOT_LETTER_AFTER + ")?"
    r"(?P<uhr>\s{0,2}(?:[Uu]hr|[Hh]rs?)" + _NOT_LETTER_AFTER + r"|\s{0,2}[時时点點](?!\d))?"
    r"(?:\s{0,2}(?P<tz>Z(?![^\W\d_])|(?:UTC|GMT)?\s?[+-]\d{2}:?\d{2}(?!\d)|UTC|GMT))?"
)
"""A time of day: hours, optional minutes and seconds, am/pm, "Uhr", offset."""

_CONNECTOR = (
    r"(?:T|[\s,@|·–—-]{0,4}"
    r"(?:(?i:at|um|à|a\s{1,2}las?|às|as|alle(?:\s{1,2}ore)?|ore|om|в|kl\.?|le|el)\s{1,3})?)"
)
"""What may separate a date from a following time ("at", "um", "à", ", ", "T")."""

_TRAILING_TIME_RE = re.compile(_CONNECTOR + _TIME)
_LEADING_TIME_RE = re.compile(_TIME + r"\s{0,3}(?i:on|le|am|el|il|op|,)?\s{0,3}$")
_ISO_RE = re.compile(
    r"(?<![\w./-])(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d|[./-]\d)"
)
"""Year first numeric dates: 2012-03-12, 2012/3/12, 2012.03.12."""

_NUMERIC_RE = re.compile(
    r"(?<![\w./:-])(?P<a>\d{1,2})(?P<sep>[-/.])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4}|\d{2})"
    r"(?!\d|[./-]\d)"
)
"""Day/month first numeric dates: 12.03.2012, 03/12/2012, 12-03-12."""

_DMY_RE = re.compile(
    r"(?<![\w.])(?P<d>\d{1,2})(?!\d)(?:\.|º|°|er|st|nd|rd|th)?"
    r"(?:\s{0,3}(?:de|of)\s{1,3}|\s{0,2}[-/]\s{0,2}|\s{0,3})"
    + _MONTH
    + r"(?:(?:(?P<ysep>[-/])|\s{0,3},?\s{0,3}(?:de\s{1,3})?)"
    r"(?P<y>\d{4}(?![\d:])|(?<=[-/])\d{2}(?![\d:])))?"
    r"(?:\s{0,2}(?:г\.|года|г(?![^\W\d_])))?",
    re.IGNORECASE,
)
"""Day-month[-year] dates: 12 March 2012, 5. Januar 2019, 12 de marzo de 2012, 16-Jun-20."""

_MDY_RE = re.compile(
    _MONTH + r"\s{0,3}(?P<d>\d{1,2})(?!\d)(?:st|nd|rd|th)?"
    r"(?:(?:\s{0,3},\s{0,3}|\s{1,3})(?P<y>\d{4})(?![\d:]))?",
    re.IGNORECASE,
)
"""Month-day[-year] dates: March 12, 2012; Mar 12th 2012; April 9."""

_MY_RE = re.compile(
    _MONTH + r"(?:\s{0,3},\s{0,3}|\s{1,3}(?:de\s{1,3})?)(?P<y>\d{4})(?![\d:])",
    re.IGNORECASE,
)
"""Month-year dates: September 2019, Июль 2019, marzo de 2012."""

_CJK_RE = re.compile(
    r"(?:(?<!\d)(?P<y>\d{4})\s{0,2}年\s{0,2})?(?<!\d)(?P<m>\d{1,2})\s{0,2}月"
    r"(?:\s{0,2}(?P<d>\d{1,2})\s{0,2}[日号號])?"
)
"""Chinese/Japanese dates: 2012年3月12日, 3月12日, 2012年3月."""

_REL_SUFFIX_RE = re.compile(
    r"(?:(?<![\w.])(?P<n>\d{1,3}|" + _alternation(NUMBER_WORDS) + r")\s{0,3})?"
    r"(?<![^\W\d_])(?P<unit>" + _alternation(UNIT_BY_WORD) + r")\.?"
    r"(?:\s{1,3}(?:ago|fa|geleden|назад|atrás|atras)(?![^\W\d_])|\s{0,2}前)",
    re.IGNORECASE,
)
"""Relative dates with a trailing "ago" word: 3 hours ago, 3 giorni fa, 3 dagen geleden,
2 часа назад, Час назад, 3小时前, 3時間前."""

_REL_PREFIX_RE = re.compile(
    r"(?<![^\W\d_])(?:vor|il\s{1,2}y\s{1,2}a|hace|há)\s{1,3}"
    r"(?P<n>\d{1,3}|" + _alternation(NUMBER_WORDS) + r")\s{0,3}"
    r"(?P<unit>" + _alternation(UNIT_BY_WORD) + r")\.?" + _NOT_LETTER_AFTER,
    re.IGNORECASE,
)
"""Relative dates with a leading word: vor 2 Tagen, il y a 3 jours, hace 2 horas, há 3 dias."""

_ALPHA_DAY_ALT = _alternation(w for ws in _DAY_WORDS.values() for w in ws)
_CJK_DAY_ALT = _alternation(w for ws in _CJK_DAY_WORDS.values() for w in ws)
_DAY_WORD_RE = re.compile(
    rf"{_NOT_LETTER_BEFORE}(?P<w>{_ALPHA_DAY_ALT}){_NOT_LETTER_AFTER}|(?P<cjk>{_CJK_DAY_ALT})",
    re.IGNORECASE,
)
"""Day words: yesterday, heute, hier, ayer, вчера, 昨天, 今日."""

_NOW_RE = re.compile(
    rf"{_NOT_LETTER_BEFORE}(?:{_alternation(p for p in NOW_PHRASES if p.isascii())})"
    rf"{_NOT_LETTER_AFTER}|(?:{_alternation(p for p in NOW_PHRASES if not p.isascii())})",
    re.IGNORECASE,
)
"""Phrases meaning "now"."""

_WEEKDAY_TIME_RE = re.compile(
    rf"{_NOT_LETTER_BEFORE}(?P<wd>(?i:{_alternation(WEEKDAY_BY_NAME)})){_NOT_LETTER_AFTER}"
    + r",?\s{0,3}(?=\d|上午|下午|午前|午後|(?i:at|um|à|a\s{1,2}las?|às|alle|om|в)\s)"
)
"""A full weekday name followed by a time ("Freitag um 10:00 Uhr"); the time is parsed after."""

_TOKEN_RE = re.compile(r"[^\W\d_]+")
"""Letter runs; texts are screened by their lower-case tokens before the costly regexes run."""


def _first_tokens(phrases: Iterable[str]) -> frozenset[str]:
    """The first letter-run token of each phrase with one (CJK phrases are single tokens)."""
    return frozenset(t[0] for p in phrases if (t := _TOKEN_RE.findall(p.lower())))


_MONTH_TOKENS = frozenset(MONTH_BY_NAME)
_AGO_TOKENS = frozenset({"ago", "fa", "geleden", "назад", "atrás", "atras"})
_PREFIX_TOKENS = frozenset({"vor", "il", "hace", "há"})
_DAY_TOKENS = _first_tokens(w for ws in _DAY_WORDS.values() for w in ws) | {"ieri"}
_NOW_TOKENS = _first_tokens(p for p in NOW_PHRASES if p.isascii() or p[0].isalpha())
_WEEKDAY_TOKENS = _first_tokens(WEEKDAY_BY_NAME)
_CJK_TRIGGERS = ("前", "今", "昨", "おととい", "刚", "剛", "たった", "星期", "周", "曜日")
"""Substrings that may start a CJK relative date or weekday (CJK text has no word breaks)."""

_DIGIT_RE = re.compile(r"\d")

_DIGIT_SEP_DIGIT_RE = re.compile(r"\d[-/.]\d")
"""What every year-first (`_ISO_RE`) and day/month-first (`_NUMERIC_RE`) date holds: texts
without it skip both regexes."""

_LABEL_RE = re.compile(
    r"(?<![^\W\d_])by\s{1,3}[^\W\d_]{1,40}(?:\s{1,3}[^\W\d_]{1,40})?"
    r"|(?<![^\W\d_])(?:" + _alternation(PIVOT_LABEL_WORDS) + r")(?![^\W\d_])"
    r"|#\d{1,6}",
    re.IGNORECASE,
)
"""Label words (and "by <name>", "#12") removed before judging how much a date covers."""

_WORD_CHAR_RE = re.compile(r"[^\W_]")

_UNIX_RE = re.compile(r"\d{9,10}|\d{12,13}")
_ISO_ATTR_RE = re.compile(
    r"(?P<y>\d{4})-?(?P<m>\d{2})-?(?P<d>\d{2})"
    r"(?:[Tt ](?P<hh>\d{2}):?(?P<mi>\d{2})(?::?(?P<ss>\d{2})(?:[.,]\d{1,9})?)?)?"
    r"\s?(?P<tz>[Zz]|[+-]\d{2}(?::?\d{2})?)?"
)
_RFC2822_RE = re.compile(
    r"(?:[A-Za-z]{3},\s{0,3})?\d{1,2}\s{1,3}[A-Za-z]{3}\s{1,3}\d{2,4}\s{1,3}\d{1,2}:\d{2}"
    r"(?::\d{2})?(?:\s{1,3}(?:[+-]\d{4}|[A-Za-z]{1,5}))?"
)


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
    """A `_Time` from a match of `_TIME`, or None when it is not a plausible time."""
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
    elif mer in CJK_MERIDIEM_PM and hour < 12:
        hour += 12
    elif mer in CJK_MERIDIEM_AM and hour == 12:
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
    for m in _ISO_RE.finditer(text):
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
        if _valid_date(y, mo, d):
            hits.append(_Hit(m.start(), m.end(), TIER_FULL, y, mo, d))
    return hits


def _numeric_hits(text: str, lang_hint: str | None) -> list[_Hit]:
    """Day/month-first numeric dates, with the ambiguity rule."""
    hits = []
    for m in _NUMERIC_RE.finditer(text):
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
    starts = [m.start() for m in _TOKEN_RE.finditer(text)]
    hits = [hit for m in _DMY_RE.finditer(text) if (hit := _named(m, m["y"])) is not None]
    hits += [hit for m in _word_start_matches(_MDY_RE, text, starts)
             if (hit := _named(m, m["y"])) is not None]
    for m in _word_start_matches(_MY_RE, text, starts):
        token = _key(m["mon"])
        year = int(m["y"])
        if token not in AMBIGUOUS_MONTH_TOKENS and MIN_YEAR <= year <= MAX_YEAR:
            hits.append(_Hit(m.start(), m.end(), TIER_PARTIAL, year, MONTH_BY_NAME[token]))
    return hits


def _word_start_matches(regex: re.Pattern[str], text: str,
                        starts: Iterable[int]) -> Iterator[re.Match[str]]:
    """`regex.finditer(text)` for a regex that starts with a month name (`_MONTH`): its
    matches start where a letter run starts, so it is tried at those `starts` only (in
    order, none inside the previous match) instead of at every character."""
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
    month = MONTH_BY_NAME[token]
    day = int(m["d"])
    if year_text is None:
        if token in AMBIGUOUS_MONTH_TOKENS or not 1 <= day <= 31:
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
    for m in _CJK_RE.finditer(text):
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
    if cjk or not _AGO_TOKENS.isdisjoint(tokens):
        regexes.append(_REL_SUFFIX_RE)
    if not _PREFIX_TOKENS.isdisjoint(tokens):
        regexes.append(_REL_PREFIX_RE)
    for regex in regexes:
        for m in regex.finditer(text):
            unit = UNIT_BY_WORD[_key(m["unit"])]
            hits.append(_Hit(m.start(), m.end(), TIER_RELATIVE, unit=unit,
                             amount=_amount(m["n"])))
    if cjk or not _DAY_TOKENS.isdisjoint(tokens):
        hits += _day_word_hits(text, lang_hint)
    if cjk or not _NOW_TOKENS.isdisjoint(tokens):
        hits += [_Hit(m.start(), m.end(), TIER_RELATIVE, unit="second", amount=0)
                 for m in _NOW_RE.finditer(text)]
    if cjk or not _WEEKDAY_TOKENS.isdisjoint(tokens):
        for m in _WEEKDAY_TIME_RE.finditer(text):
            if _TRAILING_TIME_RE.match(text, m.end()) is not None:
                hits.append(_Hit(m.start(), m.end(), TIER_RELATIVE, unit="weekday",
                                 amount=WEEKDAY_BY_NAME[_key(m["wd"])]))
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
    no_hier = lang_hint is not None and lang_hint.lower().startswith(HIER_LANGS)
    for m in _DAY_WORD_RE.finditer(text):
        word = _key(m["w"] or m["cjk"])
        if word == "hier" and no_hier:
            continue
        offset = DAY_OFFSET_BY_WORD[re.sub(r"\s+", " ", word)]
        hits.append(_Hit(m.start(), m.end(), TIER_RELATIVE, unit="day", amount=-offset))
    return hits


def _candidates(text: str, lang_hint: str | None) -> list[_Hit]:
    """Every date candidate in `text`; cheap token screens decide which regexes run."""
    hits: list[_Hit] = []
    has_digit = _DIGIT_RE.search(text) is not None
    tokens = set(_TOKEN_RE.findall(text.lower()))
    cjk = not text.isascii() and any(trigger in text for trigger in _CJK_TRIGGERS)
    if has_digit:
        if _DIGIT_SEP_DIGIT_RE.search(text) is not None:
            hits += _iso_hits(text)
            hits += _numeric_hits(text, lang_hint)
        if not _MONTH_TOKENS.isdisjoint(tokens):
            hits += _name_hits(text)
        if "月" in text:
            hits += _cjk_hits(text)
    hits += _relative_hits(text, tokens, cjk, lang_hint)
    return hits


def _best(hits: list[_Hit]) -> _Hit:
    """The most complete candidate; among equals the earliest, then the longest."""
    return min(hits, key=lambda h: (-h.tier, h.start, -(h.end - h.start)))


def _trailing_time(text: str, end: int) -> _Time | None:
    """A time right after a date ("… 2012, 14:05", "… um 11:16 Uhr")."""
    m = _TRAILING_TIME_RE.match(text, end)  # a match starts at `end`
    return None if m is None else _time_from(m)


def _leading_time(text: str, start: int) -> _Time | None:
    """A time right before a date ("11:43pm On Apr 23")."""
    base = max(0, start - LOOKBACK_CHARS)
    if _DIGIT_RE.search(text, base, start) is None:
        return None
    m = _LEADING_TIME_RE.search(text, base, start)
    if m is None:
        return None
    time = _time_from(m)
    return None if time is None else replace(time, end=start)


def _weekday_start(text: str, start: int) -> int:
    """`start` moved back over a weekday label ("Fri May 08, 2009", "Tue 16-Jun-20")."""
    end = start
    while end > 0 and text[end - 1] in WEEKDAY_SEPARATORS:
        end -= 1
    if end == start:
        return start
    begin = end
    while begin > 0 and text[begin - 1].isalpha():
        begin -= 1
    word = text[begin:end].lower()
    if word in WEEKDAY_BY_NAME or word in WEEKDAY_ABBREVIATIONS:
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
    rest = _LABEL_RE.sub(" ", rest)
    return len(_WORD_CHAR_RE.findall(rest)) <= PIVOT_MAX_RESIDUAL


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
    if _UNIX_RE.fullmatch(v):
        seconds = int(v) / 1000 if len(v) >= 12 else int(v)
        moment = datetime.fromtimestamp(seconds, tz=UTC)
        return moment.replace(microsecond=0).isoformat()
    m = _ISO_ATTR_RE.fullmatch(v)
    if m is not None:
        return _iso_attr(m)
    if _RFC2822_RE.fullmatch(v):
        parsed = _rfc2822(v)
        if parsed is not None:
            return parsed
    found = parse_date(v)
    if found is None or found.relative or found.iso is None or len(found.iso) < 10:
        return None
    return found.iso


def _iso_attr(m: re.Match[str]) -> str | None:
    """ISO text from an `_ISO_ATTR_RE` match (None when the date is invalid)."""
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
