"""Which agents are due a scheduled consolidation (harness.memory.consolidation.every).

An agent is due when it has no kept run yet, or when its newest kept run started at least
`every` ago. Runs an app asked for count too: an agent consolidated by hand an hour ago is not
consolidated again by the schedule until `every` has passed since. The embedded worker asks
this every few minutes (adapters/consolidation_worker.py) and runs each due agent once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
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


def due(store: Store, schedule: ConsolidationSchedule, now: datetime) -> list[Due]:
    """The agents whose scheduled consolidation is due at `now`."""
    found = []
    for tenant, agent_id, every in schedule.scheduled_consolidations():
        try:
            period = parse_duration(every)
        except ValueError:
            continue  # the manifest check refuses these; one saved before it is skipped
        newest = store.list_consolidations(tenant, agent_id, 1, None)
        if not newest or newest[0].started_at + period <= now:
            found.append(Due(tenant, agent_id))
    return found


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
