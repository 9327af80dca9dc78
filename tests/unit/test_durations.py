"""ISO 8601 durations and instants as the manifest (expire_after), the tenant's limits
(expiredRetention) and `asOf` / `expiresAt` take them."""

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from agent_memory.domain.kernel.durations import instant_key, parse_duration, parse_instant
from agent_memory.domain.manifests.manifest import MemoryConfig


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("P30D", timedelta(days=30)),
        ("P2W", timedelta(weeks=2)),
        ("PT12H", timedelta(hours=12)),
        ("PT90M", timedelta(minutes=90)),
        ("PT0.5S", timedelta(seconds=0.5)),
        ("P1DT6H", timedelta(days=1, hours=6)),
    ],
)
def test_durations_of_weeks_days_hours_minutes_and_seconds_are_read(text, span):
    assert parse_duration(text) == span


@pytest.mark.parametrize(
    "text", ["P", "PT", "P1DT", "P1M", "P1Y", "30D", "P0D", "PT0S", "p30d", "P-1D", "P40000D", 30]
)
def test_anything_else_is_refused_with_the_reason(text):
    with pytest.raises(ValueError, match="ISO 8601 duration|longer than zero"):
        parse_duration(text)


def test_instants_need_their_offset_and_are_read_as_utc():
    assert parse_instant("2026-01-31T14:00:00+02:00") == datetime(2026, 1, 31, 12, tzinfo=UTC)
    assert parse_instant("2026-01-31T12:00:00Z") == datetime(2026, 1, 31, 12, tzinfo=UTC)
    for text in ("2026-01-31T12:00:00", "2026-01-31", "2026-02-30T00:00:00Z", "soon", None):
        with pytest.raises(ValueError):
            parse_instant(text)


def test_instant_keys_sort_as_time_does():
    moments = [
        datetime(2026, 1, 31, 12, tzinfo=UTC),
        datetime(2026, 1, 31, 12, 0, 0, 1, tzinfo=UTC),
        datetime(2026, 1, 31, 13, 30, tzinfo=UTC).astimezone(),
        datetime(2027, 1, 1, tzinfo=UTC),
    ]
    assert sorted(moments, key=instant_key) == sorted(moments)
    assert len({len(instant_key(m)) for m in moments}) == 1


def test_expire_after_names_declared_kinds_with_durations():
    memory = MemoryConfig.model_validate(
        {"kinds": ["fact", "event"], "expire_after": {"event": "P30D"}}
    )
    assert memory.expire_after == {"event": "P30D"}
    for bad in ({"mood": "P1D"}, {"event": "P1M"}, {"Event": "P1D"}):
        with pytest.raises(ValidationError, match="expire_after"):
            MemoryConfig.model_validate({"kinds": ["fact", "event"], "expire_after": bad})
