"""The consolidation state machine's task events (functions/consolidation/statemachine.asl.json)
-> the expiry sweeper and the consolidation service.

Three steps, each bounded so one Lambda invocation stays well inside its timeout:
- `expire`: expires up to EXPIRE_BATCHES batches of records whose expiresAt has passed
  (domain/records/sweeper.py), and says whether the state machine should ask again;
- `due`: one page of the agents whose scheduled consolidation is due, after the page before;
- `consolidate`: one agent's run, as `system:consolidation`, unless it is no longer due (a
  retried task whose first attempt finished, or a run an app asked for meanwhile).
The event is Step Functions' shape; anything it cannot read is InvalidRequest, which the state
machine does not retry (and which changes nothing). Other errors propagate, so the state
machine's Retry and Catch see them by their class name."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..domain.audit import AuditService
from ..domain.extraction.consolidation import SCHEDULED, ConsolidationService
from ..domain.extraction.consolidation_schedule import due_page, is_due
from ..domain.extraction.ports import ConsolidationSchedule
from ..domain.kernel.durations import parse_duration
from ..domain.kernel.errors import InvalidRequest
from ..domain.kernel.events import EventPublisher
from ..domain.kernel.ids import validate_agent_id
from ..domain.kernel.models import utcnow
from ..domain.records.ports import ExpiringRecords
from ..domain.records.sweeper import BATCH, ExpirySweeper
from ..domain.search.service import SearchService
from ..domain.store import Store

logger = logging.getLogger(__name__)

STEPS = ("expire", "due", "consolidate")
# An `expire` step expires at most this many batches (of BATCH records) ...
EXPIRE_BATCHES = 10
# ... and an execution asks at most this many times; what is left waits for the next check.
EXPIRE_ROUNDS = 20
# Agents a `due` page lists (each becomes an iteration of the Map), and the pages an execution
# lists at most: an execution's history holds 25,000 events, about eight an iteration.
DUE_PAGE = 100
DUE_PAGES = 20


@dataclass(frozen=True)
class ConsolidationSteps:
    """What the steps run on, built once at the function's cold start."""

    store: Store
    schedule: ConsolidationSchedule
    service: ConsolidationService
    sweeper: ExpirySweeper

    @classmethod
    def of(
        cls,
        store: Store,
        service: ConsolidationService,
        events: EventPublisher,
        audit: AuditService,
    ) -> ConsolidationSteps:
        if not isinstance(store, ConsolidationSchedule) or not isinstance(store, ExpiringRecords):
            raise TypeError("the store lists no scheduled consolidations or expiring records")
        # No inline index: the cloud's search index follows the table's stream, which carries
        # each EXPIRE version's head to the indexer.
        search = SearchService(None, None, False)
        sweeper = ExpirySweeper(store, store, search, events, audit)
        return cls(store, store, service, sweeper)

    def run(self, event: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
        """Run the one step the task's event names (at `now`, the clock when not given) and
        answer the task's payload."""
        step = event.get("step")
        if step not in STEPS:
            raise InvalidRequest(f"unknown consolidation step {step!r}", code="invalid_step")
        at = now or utcnow()
        if step == "expire":
            return self._expire(at, _count(event, "rounds"))
        if step == "due":
            return self._due(at, event.get("after"), _count(event, "pages"))
        return self._consolidate(at, event)

    def _expire(self, at: datetime, rounds: int) -> dict[str, Any]:
        expired, more = 0, True
        for _ in range(EXPIRE_BATCHES):
            done, more = self.sweeper.expire_batch(at, BATCH)
            expired += done
            if not more:
                break
        rounds += 1
        logger.info("expired records", extra={"expired": expired, "round": rounds})
        return {"expired": expired, "more": more and rounds < EXPIRE_ROUNDS, "rounds": rounds}

    def _due(self, at: datetime, after: Any, pages: int) -> dict[str, Any]:
        position = None if after is None else _position(after)
        found, more = due_page(self.store, self.schedule, at, position, DUE_PAGE)
        pages += 1
        last = found[-1] if found else None
        return {
            "agents": [
                {"tenant": one.tenant, "agentId": one.agent_id, "every": one.every} for one in found
            ],
            "after": {"tenant": last.tenant, "agentId": last.agent_id} if last else None,
            "more": more and pages < DUE_PAGES,
            "pages": pages,
        }

    def _consolidate(self, at: datetime, event: dict[str, Any]) -> dict[str, Any]:
        tenant, agent_id = _agent(event)
        if not is_due(self.store, tenant, agent_id, _period(event), at):
            # A retry whose first attempt ran, or a run an app asked for since the listing.
            return {"runId": None, "skipped": "not due"}
        run = self.service.consolidate(tenant, agent_id, actor=SCHEDULED)
        logger.info("scheduled consolidation done", extra={"run_id": run.id})
        return {"runId": run.id, "counts": run.counts.model_dump(mode="json")}


def _period(event: dict[str, Any]) -> timedelta:
    try:
        return parse_duration(event.get("every"))
    except ValueError as exc:
        raise InvalidRequest(
            "the step's every is an ISO 8601 duration", code="invalid_step"
        ) from exc


def _count(event: dict[str, Any], name: str) -> int:
    value = event.get(name) or 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidRequest(f"the step's {name} is a count", code="invalid_step")
    return value


def _position(value: Any) -> tuple[str, str]:
    if not isinstance(value, dict):
        raise InvalidRequest("the step's after is an agent", code="invalid_step")
    return _agent(value)


def _agent(value: dict[str, Any]) -> tuple[str, str]:
    tenant, agent_id = value.get("tenant"), value.get("agentId")
    if not isinstance(tenant, str) or not tenant or not isinstance(agent_id, str):
        raise InvalidRequest("the step names no agent (tenant, agentId)", code="invalid_step")
    validate_agent_id(agent_id)
    return tenant, agent_id
