"""The words and patterns `winnow.dates` reads dates with: month, weekday, unit and day words
in each language it knows, the regexes built from them, and the screens that tell where those
regexes can match.

The regexes are compiled once at import and use bounded quantifiers only, so there is no
catastrophic backtracking on long inputs. Names here are what `winnow.dates` uses; the
parsing rules themselves live there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
MONTH = rf"{_NOT_LETTER_BEFORE}(?P<mon>{_MONTH_ALT}){_NOT_LETTER_AFTER}\.?"

TIME = (
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

TRAILING_TIME_RE = re.compile(_CONNECTOR + TIME)
LEADING_TIME_RE = re.compile(TIME + r"\s{0,3}(?i:on|le|am|el|il|op|,)?\s{0,3}$")
ISO_RE = re.compile(
    r"(?<![\w./-])(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d|[./-]\d)"
)
"""Year first numeric dates: 2012-03-12, 2012/3/12, 2012.03.12."""

NUMERIC_RE = re.compile(
    r"(?<![\w./:-])(?P<a>\d{1,2})(?P<sep>[-/.])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4}|\d{2})"
    r"(?!\d|[./-]\d)"
)
"""Day/month first numeric dates: 12.03.2012, 03/12/2012, 12-03-12."""

DMY_RE = re.compile(
    r"(?<![\w.])(?P<d>\d{1,2})(?!\d)(?:\.|º|°|er|st|nd|rd|th)?"
    r"(?:\s{0,3}(?:de|of)\s{1,3}|\s{0,2}[-/]\s{0,2}|\s{0,3})"
    + MONTH
    + r"(?:(?:(?P<ysep>[-/])|\s{0,3},?\s{0,3}(?:de\s{1,3})?)"
    r"(?P<y>\d{4}(?![\d:])|(?<=[-/])\d{2}(?![\d:])))?"
    r"(?:\s{0,2}(?:г\.|года|г(?![^\W\d_])))?",
    re.IGNORECASE,
)
"""Day-month[-year] dates: 12 March 2012, 5. Januar 2019, 12 de marzo de 2012, 16-Jun-20."""

MDY_RE = re.compile(
    MONTH + r"\s{0,3}(?P<d>\d{1,2})(?!\d)(?:st|nd|rd|th)?"
    r"(?:(?:\s{0,3},\s{0,3}|\s{1,3})(?P<y>\d{4})(?![\d:]))?",
    re.IGNORECASE,
)
"""Month-day[-year] dates: March 12, 2012; Mar 12th 2012; April 9."""

MY_RE = re.compile(
    MONTH + r"(?:\s{0,3},\s{0,3}|\s{1,3}(?:de\s{1,3})?)(?P<y>\d{4})(?![\d:])",
    re.IGNORECASE,
)
"""Month-year dates: September 2019, Июль 2019, marzo de 2012."""

CJK_RE = re.compile(
    r"(?:(?<!\d)(?P<y>\d{4})\s{0,2}年\s{0,2})?(?<!\d)(?P<m>\d{1,2})\s{0,2}月"
    r"(?:\s{0,2}(?P<d>\d{1,2})\s{0,2}[日号號])?"
)
"""Chinese/Japanese dates: 2012年3月12日, 3月12日, 2012年3月."""

REL_SUFFIX_RE = re.compile(
    r"(?:(?<![\w.])(?P<n>\d{1,3}|" + _alternation(NUMBER_WORDS) + r")\s{0,3})?"
    r"(?<![^\W\d_])(?P<unit>" + _alternation(UNIT_BY_WORD) + r")\.?"
    r"(?:\s{1,3}(?:ago|fa|geleden|назад|atrás|atras)(?![^\W\d_])|\s{0,2}前)",
    re.IGNORECASE,
)
"""Relative dates with a trailing "ago" word: 3 hours ago, 3 giorni fa, 3 dagen geleden,
2 часа назад, Час назад, 3小时前, 3時間前."""

REL_PREFIX_RE = re.compile(
    r"(?<![^\W\d_])(?:vor|il\s{1,2}y\s{1,2}a|hace|há)\s{1,3}"
    r"(?P<n>\d{1,3}|" + _alternation(NUMBER_WORDS) + r")\s{0,3}"
    r"(?P<unit>" + _alternation(UNIT_BY_WORD) + r")\.?" + _NOT_LETTER_AFTER,
    re.IGNORECASE,
)
"""Relative dates with a leading word: vor 2 Tagen, il y a 3 jours, hace 2 horas, há 3 dias."""

_ALPHA_DAY_ALT = _alternation(w for ws in _DAY_WORDS.values() for w in ws)
_CJK_DAY_ALT = _alternation(w for ws in _CJK_DAY_WORDS.values() for w in ws)
DAY_WORD_RE = re.compile(
    rf"{_NOT_LETTER_BEFORE}(?P<w>{_ALPHA_DAY_ALT}){_NOT_LETTER_AFTER}|(?P<cjk>{_CJK_DAY_ALT})",
    re.IGNORECASE,
)
"""Day words: yesterday, heute, hier, ayer, вчера, 昨天, 今日."""

_OTHER_NOW_ALT = _alternation(p for p in NOW_PHRASES if not p.isascii())
NOW_RE = re.compile(
    rf"{_NOT_LETTER_BEFORE}(?:{_alternation(p for p in NOW_PHRASES if p.isascii())})"
    rf"{_NOT_LETTER_AFTER}|(?:{_OTHER_NOW_ALT})",
    re.IGNORECASE,
)
"""Phrases meaning "now"."""
OTHER_NOW_RE = re.compile(_OTHER_NOW_ALT, re.IGNORECASE)
"""The second branch of `NOW_RE`, its phrases with letters beyond ASCII ("à l'instant"),
matched without word bounds."""

WEEKDAY_TIME_RE = re.compile(
    rf"{_NOT_LETTER_BEFORE}(?P<wd>(?i:{_alternation(WEEKDAY_BY_NAME)})){_NOT_LETTER_AFTER}"
    + r",?\s{0,3}(?=\d|上午|下午|午前|午後|(?i:at|um|à|a\s{1,2}las?|às|alle|om|в)\s)"
)
"""A full weekday name followed by a time ("Freitag um 10:00 Uhr"); the time is parsed after."""

TOKEN_RE = re.compile(r"[^\W\d_]+")
"""Letter runs; texts are screened by their lower-case tokens before the costly regexes run."""
ASCII_TOKEN_RE = re.compile(r"[a-z]+")
"""The letter runs of lower-case ASCII text (TOKEN_RE's there), found faster: a character
range, where TOKEN_RE tests the Unicode categories of every character."""


def lower_tokens(text: str) -> set[str]:
    """The lower-case letter runs (TOKEN_RE) of `text`."""
    lowered = text.lower()
    return set((ASCII_TOKEN_RE if lowered.isascii() else TOKEN_RE).findall(lowered))


def _first_tokens(phrases: Iterable[str]) -> frozenset[str]:
    """The first letter-run token of each phrase with one (CJK phrases are single tokens)."""
    return frozenset(t[0] for p in phrases if (t := TOKEN_RE.findall(p.lower())))


MONTH_TOKENS = frozenset(MONTH_BY_NAME)
AGO_TOKENS = frozenset({"ago", "fa", "geleden", "назад", "atrás", "atras"})
PREFIX_TOKENS = frozenset({"vor", "il", "hace", "há"})
DAY_TOKENS = _first_tokens(w for ws in _DAY_WORDS.values() for w in ws) | {"ieri"}
NOW_TOKENS = _first_tokens(p for p in NOW_PHRASES if p.isascii() or p[0].isalpha())
NOW_PHRASE_TOKENS = tuple(frozenset(TOKEN_RE.findall(p.lower())) for p in NOW_PHRASES
                          if p.isascii())
"""The words of each ASCII phrase of `NOW_RE`: ASCII text holds all of one where it matches."""
WEEKDAY_TOKENS = _first_tokens(WEEKDAY_BY_NAME)
RELATIVE_TOKENS = AGO_TOKENS | PREFIX_TOKENS | DAY_TOKENS | NOW_TOKENS | WEEKDAY_TOKENS
"""The words a relative date, a day word, "now" or a weekday starts with or ends on."""
CJK_TRIGGERS = ("前", "今", "昨", "おととい", "刚", "剛", "たった", "星期", "周", "曜日")
"""Substrings that may start a CJK relative date or weekday (CJK text has no word breaks)."""

FOLDING_RE = re.compile("[\u0130\u0131\u017f\u1c80-\u1c85]")
"""The characters that match a letter of the month and weekday names case-insensitively but
do not lower-case to it (İ, ı, ſ match "i", "i", "s"; old Cyrillic letter forms match
"в", "д", "о", "с", "т"): in text without them the names match exactly where a letter run
lower-cased is one (tests/test_dates.py checks every code point)."""

DIGIT_RE = re.compile(r"\d")

DIGIT_SEP_DIGIT_RE = re.compile(r"\d[-/.]\d")
"""What every year-first (`ISO_RE`) and day/month-first (`NUMERIC_RE`) date holds: texts
without it skip both regexes."""

LABEL_RE = re.compile(
    r"(?<![^\W\d_])by\s{1,3}[^\W\d_]{1,40}(?:\s{1,3}[^\W\d_]{1,40})?"
    r"|(?<![^\W\d_])(?:" + _alternation(PIVOT_LABEL_WORDS) + r")(?![^\W\d_])"
    r"|#\d{1,6}",
    re.IGNORECASE,
)
"""Label words (and "by <name>", "#12") removed before judging how much a date covers."""

WORD_CHAR_RE = re.compile(r"[^\W_]")

UNIX_RE = re.compile(r"\d{9,10}|\d{12,13}")
ISO_ATTR_RE = re.compile(
    r"(?P<y>\d{4})-?(?P<m>\d{2})-?(?P<d>\d{2})"
    r"(?:[Tt ](?P<hh>\d{2}):?(?P<mi>\d{2})(?::?(?P<ss>\d{2})(?:[.,]\d{1,9})?)?)?"
    r"\s?(?P<tz>[Zz]|[+-]\d{2}(?::?\d{2})?)?"
)
RFC2822_RE = re.compile(
    r"(?:[A-Za-z]{3},\s{0,3})?\d{1,2}\s{1,3}[A-Za-z]{3}\s{1,3}\d{2,4}\s{1,3}\d{1,2}:\d{2}"
    r"(?::\d{2})?(?:\s{1,3}(?:[+-]\d{4}|[A-Za-z]{1,5}))?"
)


# --- screens: where the regexes can match -------------------------------------------------


def word_starts(text: str, firsts: frozenset[str]) -> list[int]:
    """Where the letter runs of `text` start that a match of a regex starting with one of
    the words `firsts` (lower case, after a non-letter) may start at: in text whose
    case-insensitive matching is lower-case equality (`plain_case`) only the runs that are
    one of them, elsewhere every run."""
    runs = TOKEN_RE.finditer(text)
    if plain_case(text):
        return [m.start() for m in runs if m[0].lower() in firsts]
    return [m.start() for m in runs]


def plain_case(text: str) -> bool:
    """Whether the month and weekday names match case-insensitively in `text` exactly
    where a letter run lower-cased is one (no character of `FOLDING_RE`: "ſ" matches "s")."""
    return text.isascii() or FOLDING_RE.search(text) is None


def may_say_now(text: str, tokens: set[str]) -> bool:
    """Whether `NOW_RE` may match `text` with these lower-case `tokens`: the first word of
    one of its phrases is there, and in text whose case-insensitive matching is lower-case
    equality (`plain_case`) all words of an ASCII phrase, or else a match of its phrases
    beyond ASCII (`OTHER_NOW_RE`, which ASCII text never holds). That branch is a few
    phrases; the whole regex, tried at every position, took ~1 us a character."""
    if NOW_TOKENS.isdisjoint(tokens):
        return False
    if any(phrase <= tokens for phrase in NOW_PHRASE_TOKENS):
        return True
    if text.isascii():
        return False
    return not plain_case(text) or OTHER_NOW_RE.search(text) is not None
