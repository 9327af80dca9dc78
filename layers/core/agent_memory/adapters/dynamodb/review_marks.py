"""The ReviewMarks port on DynamoDB (a mixin of DynamoStore), mirroring SqliteReviewMarks: the
session's mark and the turns' flags in one TransactWriteItems."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pynamodb.connection import Connection

from ...domain.kernel.errors import NotFound
from ...domain.kernel.models import Session
from . import keys
from .items import Items
from .transactions import ConditionsFailed, Transaction


class DynamoReviewMarks:
    _items: Items
    connection: Connection

    if TYPE_CHECKING:  # DynamoStore's own

        def get_session(self, tenant: str, agent_id: str, session_id: str) -> Session | None: ...

    def restore_reviewed(
        self,
        tenant: str,
        agent_id: str,
        session_id: str,
        reviewed_through: int,
        turn_ids: Sequence[str],
    ) -> None:
        session = self.get_session(tenant, agent_id, session_id)
        if session is None:
            raise NotFound(f"session {session_id!r} does not exist", code="session_not_found")
        if reviewed_through <= session.reviewed_through and not turn_ids:
            return
        turn, held = self._items.turn, self._items.session
        pk = keys.session_pk(tenant, agent_id, session_id)
        try:
            with Transaction(self.connection) as tx:
                if reviewed_through > session.reviewed_through:
                    behind = held.reviewed_through.does_not_exist() | (
                        held.reviewed_through < reviewed_through
                    )
                    tx.update(
                        "session",
                        held.key(keys.agent_pk(tenant, agent_id), keys.session_sk(session_id)),
                        [held.reviewed_through.set(reviewed_through)],
                        held.pk.exists() & behind,
                    )
                for turn_id in turn_ids:
                    # pk.exists(): an update never makes a turn that is not there.
                    key = turn.key(pk, keys.turn_sk(turn_id))
                    tx.update(f"turn {turn_id}", key, [turn.reviewed.set(True)], turn.pk.exists())
        except ConditionsFailed as exc:
            missing = [label for label in exc.failed if label.startswith("turn ")]
            if missing:
                turn_id = missing[0].removeprefix("turn ")
                raise NotFound(f"turn {turn_id!r} does not exist", code="turn_not_found") from exc
            raise NotFound(
                f"session {session_id!r} does not exist, or its mark moved on meanwhile",
                code="session_not_found",
            ) from exc
