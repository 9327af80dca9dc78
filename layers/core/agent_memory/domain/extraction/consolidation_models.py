"""A consolidation run of an agent's record memory: the plan it made, what it changed, and the
run as kept (one per run, newest first, beside the agent's other records of work)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from ..kernel.models import Entity

Action = Literal["merge", "supersede", "expire", "unpin"]


class PlannedAction(Entity):
    """One change of the plan: what happens to `record_id`, and why."""

    action: Action
    record_id: str = Field(serialization_alias="recordId")
    # merge and supersede: the record that takes its place (its replacedBy).
    kept_id: str | None = Field(default=None, serialization_alias="keptId")
    # The version the plan read: the change applies only while the record is still at it.
    version: int
    reason: str
    # Why the run left it alone (the record, or the one kept in its place, changed meanwhile:
    # the concurrent write wins); None when applied, or in a dry run's plan.
    skipped: str | None = None


class ConsolidationCounts(Entity):
    merged: int = 0
    superseded: int = 0
    expired: int = 0
    unpinned: int = 0
    # Active records the run left as they were.
    kept: int = 0
    # Planned changes left alone because the record (or the one kept in its place) changed
    # while the run worked: a concurrent write wins.
    skipped: int = 0


class RunUsage(Entity):
    """One model call of the run: purpose `memory` (a model deciding) or `embed`."""

    purpose: str
    model_id: str = Field(serialization_alias="modelId")
    input_tokens: int = Field(serialization_alias="inputTokens")
    output_tokens: int = Field(default=0, serialization_alias="outputTokens")


class ConsolidationRun(Entity):
    """One consolidation of an agent: RUNNING while it applies its plan, then DONE or FAILED.
    A dry run is never kept: its answer is the plan."""

    tenant: str = Field(exclude=True)
    agent_id: str = Field(serialization_alias="agentId")
    id: str
    status: Literal["RUNNING", "DONE", "FAILED"]
    dry_run: bool = Field(default=False, serialization_alias="dryRun")
    # `api:<token>` for a run an app asked for, `system:consolidation` for a scheduled one.
    actor: str
    started_at: datetime = Field(serialization_alias="startedAt")
    finished_at: datetime | None = Field(default=None, serialization_alias="finishedAt")
    counts: ConsolidationCounts = Field(default_factory=ConsolidationCounts)
    actions: list[PlannedAction] = Field(default_factory=list)
    # Model calls of purpose `memory` (none for the rule-based plan) and embeddings.
    usage: list[RunUsage] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list)
