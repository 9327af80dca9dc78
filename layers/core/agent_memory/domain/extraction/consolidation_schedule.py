"""Which agents are due a scheduled consolidation (harness.memory.consolidation.every).

An agent is due when it has no kept run yet, or when its newest kept run started at least
`every` ago. Runs an app asked for count too: an agent consolidated by hand an hour ago is not
consolidated again by the schedule until `every` has passed since. The embedded worker asks
this every few minutes (adapters/consolidation_worker.py) and runs each due agent once; the
cloud's consolidation state machine asks it a page at a time (due_page) and runs each agent of
a page as its own task (adapters/consolidation_steps.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..kernel.durations import parse_duration
from ..kernel.errors import DomainError
from ..kernel.models import utcnow
from .consolidation import SCHEDULED, ConsolidationService
from .ports import ConsolidationSchedule

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Due:
    tenant: str
    agent_id: str
    # harness.memory.consolidation.every as the schedule keeps it (an ISO 8601 duration).
    every: str = ""


def due(store: Store, schedule: ConsolidationSchedule, now: datetime) -> list[Due]:
    """The agents whose scheduled consolidation is due at `now`."""
    return [one for one, _ in _walk(store, list(schedule.scheduled_consolidations()), now)]


def due_page(
    store: Store,
    schedule: ConsolidationSchedule,
    now: datetime,
    after: tuple[str, str] | None,
    limit: int,
) -> tuple[list[Due], bool]:
    """Up to `limit` agents due at `now`, in (tenant, agent id) order after `after`, and whether
    scheduled agents remain past the last one. Paged by the schedule's order, not by what is
    due, so an agent whose run fails (and so stays due) is not listed again in the same pass."""
    scheduled = sorted(
        one
        for one in schedule.scheduled_consolidations()
        if after is None or (one[0], one[1]) > after
    )
    found: list[Due] = []
    for one, position in _walk(store, scheduled, now):
        found.append(one)
        if len(found) >= limit:
            return found, position < len(scheduled) - 1
    return found, False


def _walk(
    store: Store, scheduled: list[tuple[str, str, str]], now: datetime
) -> Iterator[tuple[Due, int]]:
    """Each agent of `scheduled` due at `now`, with its position in it."""
    for position, (tenant, agent_id, every) in enumerate(scheduled):
        try:
            period = parse_duration(every)
        except ValueError:
            continue  # the manifest check refuses these; one saved before it is skipped
        if is_due(store, tenant, agent_id, period, now):
            yield Due(tenant, agent_id, every), position


def is_due(store: Store, tenant: str, agent_id: str, period: timedelta, now: datetime) -> bool:
    """Whether the agent, consolidated every `period`, is due at `now`: no kept run, or its
    newest started at least `period` ago."""
    newest = store.list_consolidations(tenant, agent_id, 1, None)
    return not newest or newest[0].started_at + period <= now


def run_due(
    store: Store,
    schedule: ConsolidationSchedule,
    service: ConsolidationService,
    now: datetime | None = None,
) -> list[str]:
    """Consolidate each agent due at `now` (the clock when not given); the ids of the runs
    made. One agent's failure is logged and does not stop the others."""
    made = []
    for one in due(store, schedule, now or utcnow()):
        try:
            run = service.consolidate(one.tenant, one.agent_id, actor=SCHEDULED)
        except DomainError:
            logger.warning(
                "scheduled consolidation failed",
                extra={"tenant": one.tenant, "agent_id": one.agent_id},
                exc_info=True,
            )
            continue
        made.append(run.id)
    return made
