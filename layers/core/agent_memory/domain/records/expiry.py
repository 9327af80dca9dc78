"""Record expiry: a kind's default lifetime from the manifest, and when an expired record is
purged (its expiresAt plus the retention its tenant sets, P30D unless set).

Expiry itself needs no writer: a read judges it at the instant it is asked (Record.seen_at,
RecordQuery.at). The sweeper only writes the status down and purges what is past retention."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..kernel.durations import parse_duration
from .models import Record, RecordWrite

if TYPE_CHECKING:
    from ..files import TenantLimits

# How long an expired record stays readable before it is purged, unless its tenant says.
DEFAULT_EXPIRED_RETENTION = "P30D"


def retention(limits: TenantLimits | None) -> timedelta:
    """How long an expired record stays readable before it is purged."""
    own = limits.expired_retention if limits is not None else None
    return parse_duration(own or DEFAULT_EXPIRED_RETENTION)


def purge_at(record: Record, limits: TenantLimits | None) -> datetime | None:
    """When a record is purged with its versions: None while it has no expiresAt."""
    if record.expires_at is None:
        return None
    return record.expires_at + retention(limits)


def with_lifetimes(
    writes: list[RecordWrite], expire_after: Callable[[Record], Mapping[str, str]]
) -> list[RecordWrite]:
    """New records (no stored head yet) of a kind with a lifetime get their default expiresAt,
    counted from when they are written; one that names its own keeps it. `expire_after` is
    harness.memory.expire_after of the manifest the record was written under."""
    out: list[RecordWrite] = []
    for write in writes:
        record = write.record
        new = write.expected_version is None and record.expires_at is None
        lifetime = expire_after(record).get(record.kind) if new else None
        if lifetime:
            expires = record.created_at + parse_duration(lifetime)
            record = record.model_copy(update={"expires_at": expires})
            versions = [
                v.model_copy(update={"record": record}) if v.record.id == record.id else v
                for v in write.versions
            ]
            write = write.model_copy(update={"record": record, "versions": versions})
        out.append(write)
    return out
