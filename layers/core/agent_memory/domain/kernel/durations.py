"""ISO 8601 durations (`P30D`, `PT12H`, `P2W`) and instants, as the manifest and the API take them.

Years and months are refused: their length depends on the calendar date they start from, and a
lifetime or retention must mean the same span for every record."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_DURATION = re.compile(
    r"^P(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?$"
)
# A bound far beyond any sensible lifetime, so datetime arithmetic never overflows.
MAX_DURATION = timedelta(days=100 * 366)


def parse_duration(text: object) -> timedelta:
    """`text` as a positive timedelta; ValueError with the reason otherwise."""
    match = _DURATION.match(text) if isinstance(text, str) else None
    if match is None or text in ("P", "PT") or str(text).endswith("T"):
        raise ValueError(
            f"{text!r} is not an ISO 8601 duration of weeks, days, hours, minutes or seconds "
            "(such as P30D or PT12H; years and months are not taken)"
        )
    parts = {name: float(value) for name, value in match.groupdict().items() if value}
    span = timedelta(**parts)
    if span <= timedelta(0) or span > MAX_DURATION:
        raise ValueError(f"{text!r} must be longer than zero and at most 100 years")
    return span


def parse_instant(text: object) -> datetime:
    """An ISO 8601 date-time with its offset (`2026-01-31T12:00:00Z`), as UTC; ValueError
    otherwise. A time without an offset is refused: it would mean a different instant on
    every server."""
    if not isinstance(text, str) or "T" not in text:
        raise ValueError(f"{text!r} is not an ISO 8601 date-time such as 2026-01-31T12:00:00Z")
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(
            f"{text!r} is not an ISO 8601 date-time such as 2026-01-31T12:00:00Z"
        ) from exc
    if value.tzinfo is None:
        raise ValueError(f"{text!r} has no offset: end it with Z or +HH:MM")
    return value.astimezone(UTC)


def instant_key(value: datetime) -> str:
    """A UTC instant as fixed-width text whose string order is time order (SQLite columns,
    DynamoDB attributes)."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
