"""Post-turn reviews on DynamoDB (a mixin of DynamoStore), mirroring SqliteExtraction: the
review is an attribute of the turn's item, so marking it done, moving the session's
reviewed_through and writing the records are one TransactWriteItems."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from pynamodb.connection import Connection
from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from ...domain.history.keys import EventKeys, keys_by_turn, keys_from_json, keys_json
from ...domain.kernel.errors import PreconditionFailed
from ...domain.kernel.models import (
    UNFINISHED_EXTRACTION,
    Extraction,
    ExtractionStatus,
    Turn,
    utcnow,
)
from ...domain.records.models import RecordWrite
from ...domain.search.index import IndexDoc
from . import keys
from .items import Items
from .records import TURN, write_failure
from .transactions import (
    ConditionsFailed,
    Transaction,
    get_item,
    is_condition_failure,
    unavailable,
)


class DynamoExtraction:
    _items: Items
    connection: Connection

    # DynamoRecords', beside this mixin in DynamoStore.
    _check_agent: Callable[[Transaction, str, str], None]
    _put_writes: Callable[[Transaction, str, str, Sequence[RecordWrite]], None]

    def _in_state(self, expect: Collection[ExtractionStatus]) -> Condition:
        status = self._items.turn.extraction_status
        return status.is_in(*[s.value for s in expect])

    def update_extraction(
        self, turn: Turn, extraction: Extraction, expect: Collection[ExtractionStatus]
    ) -> None:
        item = self._items.turn
        key = item.key(
            keys.session_pk(turn.tenant, turn.agent_id, turn.session_id), keys.turn_sk(turn.id)
        )
        try:
            key.update(
                [
                    item.extraction.set(extraction.model_dump_json()),
                    item.extraction_status.set(extraction.status.value),
                ],
                condition=self._in_state(expect),
            )
        except UpdateError as exc:
            if is_condition_failure(exc):
                raise PreconditionFailed(
                    f"turn {turn.id!r}'s review is not in the expected state"
                ) from exc
            raise unavailable(exc) from exc

    def finish_extraction(
        self,
        turn: Turn,
        extraction: Extraction,
        writes: Sequence[RecordWrite],
        read: Sequence[str] = (),
        keys: Sequence[EventKeys] = (),
        index_docs: Sequence[IndexDoc] = (),
    ) -> None:
        # `index_docs` are for a store holding its own index: the stream indexer makes the key
        # documents from the turns' fact_keys.
        try:
            self._finish(turn, extraction, writes, read, keys, move_mark=True)
        except ConditionsFailed as exc:
            if set(exc.failed) != {"session"}:
                raise
            # Only the session's mark was ahead (a later review finished first): DynamoDB has
            # no max(), so apply the rest and leave the mark, as SqliteStore's MAX() does.
            self._finish(turn, extraction, writes, read, keys, move_mark=False)

    def event_keys(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[EventKeys]:
        found = get_item(
            self._items.turn, keys.session_pk(tenant, agent_id, session_id), keys.turn_sk(turn_id)
        )
        return keys_from_json(found.fact_keys) if found is not None else []

    def _finish(
        self,
        turn: Turn,
        extraction: Extraction,
        writes: Sequence[RecordWrite],
        read: Sequence[str],
        fact_keys: Sequence[EventKeys],
        move_mark: bool,
    ) -> None:
        by_turn = keys_by_turn(fact_keys, read)
        item, session = self._items.turn, self._items.session
        # The review's end versions the key documents the stream indexer makes of these keys.
        at = extraction.ended_at or utcnow()

        def kept_keys(turn_id: str) -> list[Action]:
            if turn_id not in by_turn:
                return []
            return [item.fact_keys.set(keys_json(by_turn[turn_id])), item.fact_keys_at.set(at)]

        pk = keys.session_pk(turn.tenant, turn.agent_id, turn.session_id)
        unread = item.reviewed.does_not_exist() | (item.reviewed == False)  # noqa: E712
        try:
            with Transaction(self.connection) as tx:
                self._check_agent(tx, turn.tenant, turn.agent_id)
                own: list[Action] = [
                    item.extraction.set(extraction.model_dump_json()),
                    item.extraction_status.set(extraction.status.value),
                ]
                condition = self._in_state(UNFINISHED_EXTRACTION)
                if turn.id in read:
                    own.append(item.reviewed.set(True))
                    condition = condition & unread
                    own += kept_keys(turn.id)
                tx.update(TURN, item.key(pk, keys.turn_sk(turn.id)), own, condition)
                for turn_id in read:
                    if turn_id != turn.id:
                        key = item.key(pk, keys.turn_sk(turn_id))
                        flag: list[Action] = [item.reviewed.set(True), *kept_keys(turn_id)]
                        # pk.exists(): an update never makes a turn that is not there.
                        tx.update(f"read {turn_id}", key, flag, item.pk.exists() & unread)
                if move_mark:
                    behind = session.reviewed_through.does_not_exist() | (
                        session.reviewed_through < extraction.through
                    )
                    tx.update(
                        "session",
                        session.key(
                            keys.agent_pk(turn.tenant, turn.agent_id),
                            keys.session_sk(turn.session_id),
                        ),
                        [session.reviewed_through.set(extraction.through)],
                        session.pk.exists() & behind,
                    )
                self._put_writes(tx, turn.tenant, turn.agent_id, writes)
        except ConditionsFailed as exc:
            if TURN in exc.failed or any(label.startswith("read ") for label in exc.failed):
                raise PreconditionFailed(
                    f"turn {turn.id!r}'s review is done, or a turn it read was reviewed meanwhile"
                ) from exc
            if "session" in exc.failed:
                raise
            raise write_failure(exc) from exc
