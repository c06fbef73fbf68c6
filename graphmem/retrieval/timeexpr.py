"""Time expressions in a question, read without a model: the spans of time it asks about.

"What did Paola cook on 22.01.2024?", "Where was Kate on 31 Dec 2023?", "the 17th of
January, 2024", "in January 2024", "before January 4th, 2024", "last week", "3 days ago",
"in January": each becomes a :class:`TimeSpan` (a half-open interval of UTC times), or a
month of any year for a bare month name. Conversation recall
(:mod:`graphmem.retrieval.recall`) favours the turns said inside them.

Reading rules, kept deliberately plain:

- numeric dates with dots or dashes are day first (``22.01.2024``), with slashes month
  first (``01/22/2024``) unless the first number cannot be a month; ISO ``2024-01-22``;
- a day with a month name and a year, either order, with or without "the", "of", ordinal
  suffixes and commas; a month with a year; "in 2023" (a whole year);
- "before" / "until" / "by" and "after" / "since" in front of a date open the span
  towards the past or the future;
- "today", "yesterday", "this / last week", "this / last month", "this / last year",
  "N days / weeks / months ago", "last night", "the other day" (two to four days back):
  relative to ``now`` (the time the question is asked, by default the current time);
- a month name alone ("in January") matches that month of any year;
- "when did", "when was" ask for a time: no span, nothing to favour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["TimeSpan", "TimeQuery", "read_time"]

_MONTHS = {
    name: number
    for number, full in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ),
        start=1,
    )
    for name in (full, full[:3])
}
_MONTHS["sept"] = 9
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
_OPEN = r"(?:(before|until|till|by|prior to|after|since|from)\s+)?"
_NUMERIC = re.compile(_OPEN + r"\b(\d{1,2})([./-])(\d{1,2})\3(\d{4})\b", re.IGNORECASE)
_ISO = re.compile(_OPEN + r"\b(\d{4})-(\d{2})-(\d{2})\b", re.IGNORECASE)
_DAY_MONTH_YEAR = re.compile(
    _OPEN + rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE
)
_MONTH_DAY_YEAR = re.compile(
    _OPEN + rf"\b{_MONTH}\s+(?:the\s+)?{_DAY},?\s+{_YEAR}\b", re.IGNORECASE
)
_MONTH_YEAR = re.compile(_OPEN + rf"\b{_MONTH}\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)
_IN_YEAR = re.compile(_OPEN + r"\b(?:in|of|during|year)\s+(\d{4})\b", re.IGNORECASE)
_BARE_MONTH = re.compile(rf"\b(?:in|of|during|since|last|this)\s+{_MONTH}\b", re.IGNORECASE)
_AGO = re.compile(r"\b(\d{1,3}|a|an|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_RELATIVE = re.compile(
    r"\b(today|tonight|this morning|this evening|yesterday|last night|the other day"
    r"|(?:this|last|past|previous) (?:week|month|year|weekend))\b"
)
# Every expression above holds a digit or one of these words; a text with none names no time.
_MAY_NAME_TIME = re.compile(
    r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|today|tonight|morning|evening"
    r"|yesterday|night|other day|week|month|year|ago\b",
    re.IGNORECASE,
)
_FAR_PAST = datetime(1, 1, 2, tzinfo=UTC)
_FAR_FUTURE = datetime(9999, 12, 30, tzinfo=UTC)


@dataclass(frozen=True)
class TimeSpan:
    """A half-open span of time ``[start, end)``, in UTC."""

    start: datetime
    end: datetime

    def contains(self, when: datetime) -> bool:
        """Whether ``when`` falls inside the span."""
        return self.start <= when < self.end

    def distance(self, when: datetime) -> timedelta:
        """How far ``when`` lies outside the span (zero inside it)."""
        if when < self.start:
            return self.start - when
        if when >= self.end:
            return when - self.end
        return timedelta(0)


@dataclass(frozen=True)
class TimeQuery:
    """The time a question asks about: spans, and months of any year."""

    spans: tuple[TimeSpan, ...] = ()
    months: frozenset[int] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.spans or self.months)

    def match(self, when: datetime, slack: timedelta = timedelta(days=1)) -> float:
        """1 inside a span or month, 0.5 within ``slack`` of a span, else 0.

        People say what they did "yesterday" and the question dates the event, so a turn a
        day off its span still counts for something.
        """
        when = when.astimezone(UTC)
        best = 0.0
        for span in self.spans:
            gap = span.distance(when)
            if not gap:
                return 1.0
            if gap <= slack:
                best = 0.5
        if when.month in self.months:
            return 1.0
        return best


def _date(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _opened(word: str | None, start: datetime, end: datetime) -> TimeSpan:
    word = (word or "").lower()
    if word in ("before", "until", "till", "by", "prior to"):
        return TimeSpan(_FAR_PAST, start if word != "by" else end)
    if word in ("after", "since", "from"):
        return TimeSpan(start if word != "after" else end, _FAR_FUTURE)
    return TimeSpan(start, end)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _days(text: str) -> list[tuple[str | None, datetime]]:
    """Every day a text writes out, with the word opening it ("before", "since", ...)."""
    found: list[tuple[str | None, datetime]] = []
    for m in _NUMERIC.finditer(text):
        first, second, year = int(m[2]), int(m[4]), int(m[5])
        if m[3] == "/" and first <= 12:
            first, second = second, first  # 01/22/2024: month first
        day = _date(year, second, first)
        if day is not None:
            found.append((m[1], day))
    for m in _ISO.finditer(text):
        day = _date(int(m[2]), int(m[3]), int(m[4]))
        if day is not None:
            found.append((m[1], day))
    for m in _DAY_MONTH_YEAR.finditer(text):
        day = _date(int(m[4]), _MONTHS[m[3].lower()], int(m[2]))
        if day is not None:
            found.append((m[1], day))
    for m in _MONTH_DAY_YEAR.finditer(text):
        day = _date(int(m[4]), _MONTHS[m[2].lower()], int(m[3]))
        if day is not None:
            found.append((m[1], day))
    return found


def _relative(text: str, now: datetime) -> list[TimeSpan]:
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    day = timedelta(days=1)
    spans: list[TimeSpan] = []
    for m in _RELATIVE.finditer(text):
        phrase = m[1]
        if phrase in ("today", "tonight", "this morning", "this evening"):
            spans.append(TimeSpan(today, today + day))
        elif phrase in ("yesterday", "last night"):
            spans.append(TimeSpan(today - day, today))
        elif phrase == "the other day":
            spans.append(TimeSpan(today - 4 * day, today - day))
        else:
            which, unit = phrase.split()
            recent = which == "this"
            if unit in ("week", "weekend"):
                monday = today - today.weekday() * day
                spans.append(
                    TimeSpan(monday, monday + 7 * day)
                    if recent
                    else TimeSpan(monday - 7 * day, monday)
                )
            elif unit == "month":
                start, end = _month_span(today.year, today.month)
                if not recent:
                    year, month = divmod(today.year * 12 + today.month - 2, 12)
                    start, end = _month_span(year, month + 1)
                spans.append(TimeSpan(start, end))
            else:
                year = today.year if recent else today.year - 1
                spans.append(
                    TimeSpan(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
                )
    for m in _AGO.finditer(text):
        count = _NUMBERS.get(m[1]) or int(m[1])
        unit = {"day": 1, "week": 7, "month": 30, "year": 365}[m[2]]
        centre = today - count * unit * day
        half = max(day, unit * day // 2)
        spans.append(TimeSpan(centre - half, centre + half + day))
    return spans


def read_time(text: str, now: datetime | None = None) -> TimeQuery:
    """The spans of time ``text`` asks about (empty when it names none).

    >>> q = read_time("What did Paola cook on 22.01.2024?")
    >>> [(s.start.date().isoformat(), s.end.date().isoformat()) for s in q.spans]
    [('2024-01-22', '2024-01-23')]
    >>> read_time("Where was Kate on 31 Dec 2023?").match(datetime(2023, 12, 31, 20, 5))
    1.0
    >>> read_time("before January 4th, 2024").spans[0].end.date().isoformat()
    '2024-01-04'
    >>> sorted(read_time("What did we plan in January?").months)
    [1]
    >>> bool(read_time("When did Elise go for a massage?"))
    False
    """
    if not _MAY_NAME_TIME.search(text):  # most questions name no time: skip the rest
        return TimeQuery()
    now = (now or datetime.now(UTC)).astimezone(UTC)
    spans: list[TimeSpan] = [
        _opened(word, day, day + timedelta(days=1)) for word, day in _days(text)
    ]
    if not spans:
        for m in _MONTH_YEAR.finditer(text):
            spans.append(_opened(m[1], *_month_span(int(m[3]), _MONTHS[m[2].lower()])))
    if not spans:
        for m in _IN_YEAR.finditer(text):
            year = int(m[2])
            if 1900 <= year < 2200:  # "in 2666" is more likely a title than a year
                start = datetime(year, 1, 1, tzinfo=UTC)
                spans.append(_opened(m[1], start, datetime(year + 1, 1, 1, tzinfo=UTC)))
    lowered = text.lower()
    spans.extend(_relative(lowered, now))
    months: set[int] = set()
    if not spans:
        months = {
            _MONTHS[m[1].lower()]
            for m in _BARE_MONTH.finditer(text)
            if m[1].lower() not in ("may", "march") or m[1][0].isupper()  # "this may help"
        }
    return TimeQuery(tuple(spans), frozenset(months))
