"""`asOf=`: the instant a read answers for, on the reads that keep versions (record listings,
file memories, the agent's manifest)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from ..domain.kernel.durations import parse_instant
from ..domain.kernel.errors import InvalidRequest

AsOf = Annotated[
    str | None,
    Query(
        alias="asOf",
        max_length=64,
        description="Answer as things stood at this instant, from the versions kept: an ISO "
        "8601 date-time with its offset (2026-01-31T12:00:00Z). A later instant than now reads "
        "as now.",
    ),
]


def as_of(raw: str | None) -> datetime | None:
    """The instant `asOf` names (400 invalid_as_of when it names none)."""
    if raw is None:
        return None
    try:
        return parse_instant(raw)
    except ValueError as exc:
        raise InvalidRequest(f"asOf: {exc}", code="invalid_as_of") from exc
