"""The memory part of a turn's instructions: the memory rules, the agent's own memory
instructions, the pinned list and, where history is indexed, the rule to search it. The pinned
record versions listed are kept in the transcript as a memory.pinned entry."""

from __future__ import annotations

from typing import Any

from ..kernel.ids import new_id
from ..kernel.models import Turn, utcnow
from ..kernel.where import TurnRef
from ..manifests import MemoryConfig
from ..records import Execution
from ..sessions import TurnAccess
from ..turns import ManifestCache
from .io import InstructionsOut, PinnedLine
from .offer import offered_tools

# The spec: "The agent is told to search its history before guessing at, or asking again for,
# something an earlier turn established."
HISTORY_RULE = (
    "Session history: what earlier turns of this session said stays searchable with the "
    "search_history tool. Search it before guessing at, or asking again for, something an "
    "earlier turn established."
)


def declarations(memory: MemoryConfig) -> str:
    """What the agent declares of its records, for the agent to choose by: its kinds, and each
    label with the description the manifest gives it (the spec: "a description the agent
    reads"). Empty when record memory is off."""
    if not memory.enabled:
        return ""
    lines = [f"Memory kinds: each record is one of {', '.join(memory.kinds)}."]
    if memory.labels:
        lines.append("Memory labels (exact values, such as IDs, that searches filter on):")
        lines += [
            f"- {name}: {label.description}" if label.description else f"- {name}"
            for name, label in memory.labels.items()
        ]
    return "\n".join(lines)


class Instructions:
    """`GET .../turns/{turnId}/instructions` (ToolService.instructions delegates here)."""

    def __init__(self, turns: TurnAccess, manifests: ManifestCache) -> None:
        self._turns = turns
        self._manifests = manifests

    def instructions(self, where: TurnRef) -> InstructionsOut:
        """The memory part of the turn's instructions. The record versions it lists are kept in
        the transcript as a memory.pinned entry (once per distinct list)."""
        turn = self._turns.sessions.get_turn(where)
        ctx = self._turns.context(turn, {"role": "agent"})
        text, pins = self._turns.records.instructions(ctx)
        declared = declarations(ctx.memory)
        if declared:
            text += "\n\n" + declared
        # A turn without a session has no history to search (agent_turns).
        if (
            self._manifests.manifest(turn).harness.history.index is not None
            and not turn.sessionless
        ):
            text += "\n\n" + HISTORY_RULE
        listed = [{"id": r.id, "version": r.version} for r in pins]
        if listed and turn.status.value == "open":
            self._note_pinned(turn, listed)
        pinned = [PinnedLine(id=r.id, version=r.version, summary=r.summary) for r in pins]
        tools = offered_tools(self._manifests.manifest(turn), has_history=not turn.sessionless)
        return InstructionsOut(instructions=text, pinned=pinned, tools=tools)

    def _note_pinned(self, turn: Turn, listed: list[dict[str, Any]]) -> None:
        """A memory.pinned entry for the list, unless the turn's last one listed the same."""
        tenant, agent_id, session_id = turn.tenant, turn.agent_id, turn.session_id
        earlier = [
            e
            for e in self._turns.store.list_executions(tenant, agent_id, session_id, turn.id)
            if e.tool == "memory.pinned"
        ]
        if earlier and (earlier[-1].output or {}).get("records") == listed:
            return
        self._turns.store.add_execution(
            tenant,
            agent_id,
            session_id,
            Execution(
                id=new_id("exe"),
                turn_id=turn.id,
                tool="memory.pinned",
                input={},
                output={"records": listed},
                caller={"role": "runtime"},
                created_at=utcnow(),
            ),
        )
