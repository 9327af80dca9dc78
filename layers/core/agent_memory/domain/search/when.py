"""The time a question names: `last Saturday`, `in May 2023`, `two weeks ago`, `on October 13,
2023`, read relative to when it is asked.

History search favours the events said in the window a query implies (a boost, never a filter:
a question's dates are often loose, and a window read wrongly must not hide the answer). What is
read, in English:

- days: `today`, `tonight`, `yesterday`, `last night`, `the day before yesterday`;
- `N days|weeks|months|years ago` (N a number or a word: `a`, `two`, `a couple of`, `a few`);
- `last|past N days|weeks|months` (the span up to now); `last|this week|weekend|month|year`;
- a weekday: `last Saturday`, `on Tuesday`, `this Monday` (the latest one before the asking
  day);
- dates: `October 13, 2023`, `13 October 2023`, `May 3` (the latest one not after now),
  `May 2023`, `in June` (the latest June not after now), `in 2022`;
- `before|after` a date: the month leading up to it, or following it (`before today` is the
  whole past: no window).

Not read: times relative to other events (`before I moved`, `the first time`), which need the
events themselves; and `recently`, which every question about the present could say.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..kernel.patterns import Pattern

_DAY = timedelta(days=1)
_Add = Callable[[re.Match[str], datetime, datetime], None]

_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_WEEKDAYS = {name.lower(): number for number, name in enumerate(calendar.day_name)}

_NUM = r"(\d{1,3}|a couple of|a couple|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"  # noqa: E501
_UNIT = r"(day|week|month|year)s?"
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"  # noqa: E501
_WEEKDAY = (
    r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?!s)"  # `on Tuesdays`: a habit
)
_YEAR = r"((?:19|20)\d\d)"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"

_AGO = Pattern(rf"\b{_NUM}\s+{_UNIT}\s+ago\b")
_SPAN = Pattern(rf"\b(?:last|past|previous)\s+{_NUM}\s+{_UNIT}\b")
_LAST = Pattern(r"\b(last|this|past|previous)\s+(week|weekend|month|year)\b")
_ON_WEEKDAY = Pattern(rf"\b(last|this|on|past)\s+{_WEEKDAY}\b")
_MONTH_DAY_YEAR = Pattern(rf"\b{_MONTH}\s+{_ORD},?\s+{_YEAR}\b")
_DAY_MONTH_YEAR = Pattern(rf"\b{_ORD}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b")
_MONTH_DAY = Pattern(rf"\b{_MONTH}\s+{_ORD}\b(?!\s*,?\s*(?:19|20)\d\d)(?!\d)")
_DAY_MONTH = Pattern(rf"\b{_ORD}\s+(?:of\s+)?{_MONTH}\b(?!,?\s+(?:19|20)\d\d)")
_MONTH_YEAR = Pattern(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b")
_IN_MONTH = Pattern(rf"\b(?:in|during|since|of|early|late|mid|mid-)\s+{_MONTH}\b(?![\s,]+\d)")
_IN_YEAR = Pattern(rf"\b(?:in|during|of|since|year)\s+{_YEAR}\b")
_BEFORE_AFTER = Pattern(r"\b(before|after|until|since)\s*$")


@dataclass(frozen=True)
class Window:
    """[start, end) in UTC, and the words that named it."""

    start: datetime
    end: datetime
    said: str

    def holds(self, moment: datetime) -> bool:
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return self.start <= moment < self.end


def windows(query: str, now: datetime) -> list[Window]:
    """Every window the query names, relative to `now` (when it is asked); none if it names no
    time this module reads."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    now = now.astimezone(UTC)
    text = " ".join(query.lower().split())
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    found: list[Window] = []
    taken: list[tuple[int, int]] = []

    def add(match: re.Match[str], start: datetime, end: datetime) -> None:
        span = match.span()
        if any(a < span[1] and span[0] < b for a, b in taken):
            return  # a longer reading of the same words came first
        taken.append(span)
        window = _around(text, span, Window(start, end, match.group(0)))
        if window is not None:
            found.append(window)

    for match in re.finditer(r"\b(the day before yesterday|yesterday|last night)\b", text):
        back = 2 if match.group(1).startswith("the day") else 1
        add(match, today - back * _DAY, today - (back - 1) * _DAY)
    for match in re.finditer(r"\b(today|tonight|this (?:morning|afternoon|evening))\b", text):
        add(match, today, today + _DAY)
    for match in _AGO.finditer(text):
        n, unit = _NUMBERS.get(match.group(1)) or int(match.group(1)), match.group(2)
        length = _length(unit)
        center = now - n * length
        slack = _DAY if unit == "day" else length / 2
        add(match, center - slack, center + slack + (_DAY if unit == "day" else timedelta()))
    for match in _SPAN.finditer(text):
        n, unit = _NUMBERS.get(match.group(1)) or int(match.group(1)), match.group(2)
        add(match, now - n * _length(unit), now + _DAY)
    for match in _LAST.finditer(text):
        add(match, *_period(match.group(1), match.group(2), today))
    for match in _ON_WEEKDAY.finditer(text):
        weekday = _latest_weekday(today, _WEEKDAYS[match.group(2)])
        # A day's slack: a message said the day after.
        add(match, weekday - _DAY, weekday + 2 * _DAY)
    _dates(text, now, add)
    return found


def _dates(text: str, now: datetime, add: _Add) -> None:
    """Calendar dates, months and years, with or without their year."""
    for match in _MONTH_DAY_YEAR.finditer(text):
        _add_day(add, match, _MONTHS[match.group(1)], int(match.group(2)), int(match.group(3)))
    for match in _DAY_MONTH_YEAR.finditer(text):
        _add_day(add, match, _MONTHS[match.group(2)], int(match.group(1)), int(match.group(3)))
    for match in _MONTH_DAY.finditer(text):
        month, day = _MONTHS[match.group(1)], int(match.group(2))
        _add_day(add, match, month, day, _latest_year(now, month, day))
    for match in _DAY_MONTH.finditer(text):
        month, day = _MONTHS[match.group(2)], int(match.group(1))
        _add_day(add, match, month, day, _latest_year(now, month, day))
    for match in _MONTH_YEAR.finditer(text):
        add(match, *_month(int(match.group(2)), _MONTHS[match.group(1)]))
    for match in _IN_MONTH.finditer(text):
        month = _MONTHS[match.group(1)]
        year = now.year if month <= now.month else now.year - 1
        add(match, *_month(year, month))
    for match in _IN_YEAR.finditer(text):
        year = int(match.group(1))
        add(match, datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))


def _around(text: str, span: tuple[int, int], window: Window) -> Window | None:
    """`before X` is the month up to X; `after X` or `since X` the month from it. `before
    today` names no window: it is the whole past."""
    before = _BEFORE_AFTER.search(text[: span[0]])
    if before is None:
        return window
    if window.said in ("today", "tonight"):
        return None
    if before.group(1) in ("before", "until"):
        return Window(window.start - timedelta(days=30), window.start, window.said)
    return Window(window.end, window.end + timedelta(days=30), window.said)


def _add_day(add: _Add, match: re.Match[str], month: int, day: int, year: int) -> None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return  # `February 30`: names no day
    add(match, start - _DAY, start + 2 * _DAY)


def _length(unit: str) -> timedelta:
    return {"day": _DAY, "week": 7 * _DAY, "month": 30 * _DAY, "year": 365 * _DAY}[unit]


def _period(which: str, unit: str, today: datetime) -> tuple[datetime, datetime]:
    back = 0 if which == "this" else 1
    if unit in ("week", "weekend"):
        monday = today - today.weekday() * _DAY - 7 * back * _DAY
        if unit == "weekend":
            return monday + 4 * _DAY, monday + 8 * _DAY  # Friday to Monday: said on either side
        return monday, monday + 7 * _DAY
    if unit == "month":
        year, month = today.year, today.month - back
        if month == 0:
            year, month = year - 1, 12
        return _month(year, month)
    year = today.year - back
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)


def _latest_weekday(today: datetime, weekday: int) -> datetime:
    """The latest such weekday before today (`last Saturday` asked on a Saturday: a week ago)."""
    back = (today.weekday() - weekday) % 7 or 7
    return today - back * _DAY


def _latest_year(now: datetime, month: int, day: int) -> int:
    """The year of the latest `month day` not after now."""
    try:
        this_year = datetime(now.year, month, day, tzinfo=UTC)
    except ValueError:
        return now.year - 1
    return now.year if this_year <= now else now.year - 1


def _month(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end
