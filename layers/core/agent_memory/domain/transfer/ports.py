"""Port of the transfer capability: what an import needs of a store beyond what the other
capabilities' ports already write as given (agents, records, files, sessions, turns, events).

Every port has at least two adapters (SQLite and DynamoDB) and one contract suite in
tests/contract that runs against each of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence


class ReviewMarks(ABC):
    """How far post-turn reviews had read an imported session: kept so the first review after
    an import reads only the turns no review read before it (each turn's messages once)."""

    @abstractmethod
    def restore_reviewed(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        reviewed_through: int,
        turn_ids: Sequence[str],
    ) -> None:
        """Flag `turn_ids` (turns of the session) reviewed and move the session's
        reviewed_through up to `reviewed_through`, never down: all or none. Flagging a turn
        flagged already, or a mark already as high, changes nothing. NotFound when the session
        or a turn does not exist."""
