"""DynamoStore: the foundation's Store port on one DynamoDB table (layout in keys.py).

Every multi-item change is one TransactWriteItems (a long batch of usage entries or history
events one per chunk within DynamoDB's limits), every read is strongly consistent, and an agent
delete is a crash-safe walk: mark the head, delete what it owns (its large history events' S3
objects too), delete the head last.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TypeVar

from pynamodb.exceptions import DeleteError, TableError, UpdateError
from pynamodb.expressions.update import Action

from ...domain.extraction.ports import ConsolidationSchedule
from ...domain.kernel.errors import Conflict, NotFound, PreconditionFailed
from ...domain.kernel.events import updates_json
from ...domain.kernel.models import Agent, ManifestVersion, Session, Turn, TurnStatus
from ...domain.records.ports import ExpiringRecords
from ...domain.sessions.ports import NO_WRITES, TurnWrites
from ...domain.store import Store
from . import keys
from .audit import DynamoAudit
from .blobs import Blobs
from .consolidation_schedule import DynamoConsolidationSchedule
from .consolidations import DynamoConsolidations
from .expiry import DynamoExpiry
from .extraction import DynamoExtraction
from .files import DynamoFiles, files_failure
from .history import DynamoHistory
from .item_base import Item
from .items import bind_items
from .named_manifests import DynamoNamedManifests
from .partition_deletes import PartitionDeletes
from .records import TURN, DynamoRecords, write_failure
from .review_marks import DynamoReviewMarks
from .transactions import (
    ConditionsFailed,
    Transaction,
    get_item,
    is_condition_failure,
    query_items,
    storage_errors,
    unavailable,
)
from .usage import DynamoUsage

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=Item)


class DynamoStore(
    DynamoRecords,
    DynamoFiles,
    DynamoUsage,
    DynamoHistory,
    DynamoExtraction,
    DynamoConsolidations,
    DynamoConsolidationSchedule,
    DynamoExpiry,
    DynamoAudit,
    DynamoNamedManifests,
    DynamoReviewMarks,
    PartitionDeletes,
    Store,
    ConsolidationSchedule,
    ExpiringRecords,
):
    """The Store port on the single table `table_name`; `host` points it at a local endpoint.

    `bucket` is where history events too large for an item go (S3, in `region`); without one
    such events are refused.
    """

    def __init__(
        self, table_name: str, region: str, host: str | None = None, bucket: str | None = None
    ) -> None:
        self.table_name = table_name
        self._items = bind_items(table_name, region, host)
        self._blobs = Blobs(bucket, region)
        # Every call this store makes goes through this one pynamodb connection.
        self.connection = self._items.connection

    def create_table(self) -> None:
        """Create the table unless it exists: on demand, streams of old and new images, TTL on,
        and the expiring index (record_items.py), as template.yaml makes it."""
        item = self._items.item
        with storage_errors():
            if item.exists():
                return
            try:
                # The record head's class declares the index, so its schema is the table's.
                self._items.record.create_table(wait=True)
            except TableError as exc:
                # Someone else created it between our check and our create: that is success.
                if exc.cause_response_code != "ResourceInUseException":
                    raise
        logger.info("table created", extra={"table": self.table_name})

    # -- agents -------------------------------------------------------------------------------

    def create_agent(self, agent: Agent, version: ManifestVersion) -> None:
        head, mv = self._items.agent, self._items.version
        try:
            with Transaction(self.connection) as tx:
                tx.put("head", head.of(agent), head.pk.does_not_exist(), return_old=True)
                tx.put("version", mv.of(agent.tenant, version), mv.pk.does_not_exist())
                self.schedule_in(tx, agent, created=True)
        except ConditionsFailed as exc:
            reason = exc.failed.get("head")
            old = (reason.raw_item if reason else None) or {}
            if head.deleting.attr_name in old:
                raise Conflict(
                    f"agent {agent.id!r} is still being deleted; DELETE it again to finish",
                    code="agent_deleting",
                ) from exc
            raise PreconditionFailed(f"agent {agent.id!r} already exists") from exc

    def save_manifest(self, agent: Agent, version: ManifestVersion, expected_version: int) -> None:
        head, mv = self._items.agent, self._items.version
        actions: list[Action] = [
            head.manifest_version.set(agent.manifest_version),
            head.manifest.set(agent.manifest),
            head.updated_at.set(agent.updated_at),
        ]
        current = (head.manifest_version == expected_version) & head.deleting.does_not_exist()
        try:
            with Transaction(self.connection) as tx:
                key = head.key(keys.agents_pk(agent.tenant), keys.agent_sk(agent.id))
                tx.update("head", key, actions, current)
                tx.put("version", mv.of(agent.tenant, version), mv.pk.does_not_exist())
                self.schedule_in(tx, agent, created=False)
        except ConditionsFailed as exc:
            raise PreconditionFailed(f"agent {agent.id!r} changed concurrently") from exc

    def get_agent(self, tenant: str, agent_id: str) -> Agent | None:
        item = self._get(self._items.agent, keys.agents_pk(tenant), keys.agent_sk(agent_id))
        return None if item is None or item.deleting else item.to_agent()

    def list_agents(self, tenant: str, limit: int, after: str | None) -> list[Agent]:
        head = self._items.agent
        items = self._query(
            head,
            keys.agents_pk(tenant),
            keys.AGENT,
            limit,
            after,
            filter_condition=head.deleting.does_not_exist(),
        )
        return [item.to_agent() for item in items]

    def agent_ids(self, tenant: str, limit: int) -> list[str]:
        # No filter on `deleting`: an agent whose delete was cut short is still to be deleted.
        items = self._query(self._items.agent, keys.agents_pk(tenant), keys.AGENT, limit, None)
        return [item.agent_id for item in items]

    def list_manifest_versions(
        self, tenant: str, agent_id: str, limit: int, before: int | None
    ) -> list[ManifestVersion]:
        bound = None if before is None else keys.version_suffix(before)
        items = self._query(
            self._items.version,
            keys.agent_pk(tenant, agent_id),
            keys.VERSION,
            limit,
            bound,
            newest_first=True,
        )
        return [item.to_version() for item in items]

    def get_manifest_version(
        self, tenant: str, agent_id: str, version: int
    ) -> ManifestVersion | None:
        item = self._get(
            self._items.version, keys.agent_pk(tenant, agent_id), keys.version_sk(version)
        )
        return item.to_version() if item else None

    def delete_agent(self, tenant: str, agent_id: str) -> bool:
        head = self._items.agent
        key = head.key(keys.agents_pk(tenant), keys.agent_sk(agent_id))
        # 1. Mark the head: from here on it reads as absent and refuses new sessions, turns and
        #    manifest saves, so the walk below cannot race with anything that adds to it.
        try:
            key.update([head.deleting.set(True)], condition=head.pk.exists())
        except UpdateError as exc:
            if is_condition_failure(exc):
                return False
            raise unavailable(exc) from exc

        # 2. Delete what it owns. An item that leads to a partition (a session to its turns, a
        #    record head to its versions) goes after that partition, so a crash part way never
        #    leaves items nothing leads to; the next call picks up from wherever this one stopped.
        def record_versions(sk: str) -> str:
            return keys.record_versions_pk(tenant, agent_id, sk.removeprefix(keys.RECORD))

        def session_items(sk: str) -> str | None:
            if not sk.startswith(keys.SESSION):
                return None
            return keys.session_pk(tenant, agent_id, sk.removeprefix(keys.SESSION))

        # Off the schedule first: a scheduled run would only find the agent gone.
        self.unschedule(tenant, agent_id)
        self._delete_partition(keys.records_pk(tenant, agent_id), record_versions)
        self._delete_partition(keys.files_pk(tenant, agent_id), _leads_nowhere)
        self._delete_partition(keys.file_versions_pk(tenant, agent_id), _leads_nowhere)
        self._delete_partition(keys.preview_files_pk(tenant, agent_id), _leads_nowhere)
        self._delete_partition(keys.usage_pk(tenant, agent_id), _leads_nowhere)
        # The agent partition holds the memory count, so it goes after the heads it counts.
        self._delete_partition(keys.agent_pk(tenant, agent_id), session_items)
        # Large history events' objects go after the items pointing at them (no item is ever
        # left pointing at nothing), by prefix so objects of failed writes go too.
        self._blobs.delete_prefix(keys.history_prefix(tenant, agent_id))
        # 3. The head goes last, and only while it is still the one being deleted.
        try:
            key.delete(condition=head.deleting.exists())
        except DeleteError as exc:
            if not is_condition_failure(exc):
                raise unavailable(exc) from exc
            # A concurrent delete already removed it; the agent is gone either way.
        logger.info("agent deleted", extra={"tenant": tenant, "agent_id": agent_id})
        return True

    # -- sessions and turns -------------------------------------------------------------------

    def create_session(self, session: Session) -> None:
        item = self._items.session
        try:
            with Transaction(self.connection) as tx:
                self._check_agent(tx, session.tenant, session.agent_id)
                tx.put("session", item.of(session), item.pk.does_not_exist())
        except ConditionsFailed as exc:
            if "agent" in exc.failed:
                raise NotFound(
                    f"agent {session.agent_id!r} does not exist", code="agent_not_found"
                ) from exc
            raise PreconditionFailed(f"session {session.id!r} already exists") from exc

    def get_session(self, tenant: str, agent_id: str, session_id: str) -> Session | None:
        item = self._get(
            self._items.session, keys.agent_pk(tenant, agent_id), keys.session_sk(session_id)
        )
        return item.to_session() if item else None

    def list_sessions(
        self, tenant: str, agent_id: str, limit: int, after: str | None
    ) -> list[Session]:
        items = self._query(
            self._items.session, keys.agent_pk(tenant, agent_id), keys.SESSION, limit, after
        )
        return [item.to_session() for item in items]

    def begin_turn(self, turn: Turn) -> None:
        session, item = self._items.session, self._items.turn
        # Like SqliteStore, a turn is stored as begun: it has not ended whatever the caller says.
        begun = turn.model_copy(update={"ended_at": None})
        session_key = session.key(
            keys.agent_pk(turn.tenant, turn.agent_id), keys.session_sk(turn.session_id)
        )
        try:
            with Transaction(self.connection) as tx:
                # A turn needs a live agent too, so none can slip in behind a delete's walk.
                self._check_agent(tx, turn.tenant, turn.agent_id)
                tx.update(
                    "session",
                    session_key,
                    [session.last_sequence.set(turn.sequence)],
                    session.last_sequence == turn.sequence - 1,
                )
                tx.put("turn", item.of(begun), item.pk.does_not_exist())
        except ConditionsFailed as exc:
            if set(exc.failed) == {"turn"}:
                raise PreconditionFailed(f"turn {turn.id!r} already exists") from exc
            raise PreconditionFailed("the session's turn sequence moved on") from exc

    def get_turn(self, tenant: str, agent_id: str, session_id: str, turn_id: str) -> Turn | None:
        item = self._get(
            self._items.turn, keys.session_pk(tenant, agent_id, session_id), keys.turn_sk(turn_id)
        )
        return item.to_turn() if item else None

    def list_turns(self, tenant: str, agent_id: str, session_id: str) -> list[Turn]:
        model = self._items.turn
        with storage_errors():
            items = list(
                model.query(
                    keys.session_pk(tenant, agent_id, session_id),
                    model.sk.startswith(keys.TURN),
                    consistent_read=True,
                )
            )
        return sorted((item.to_turn() for item in items), key=lambda turn: turn.sequence)

    def end_turn(
        self,
        turn: Turn,
        status: TurnStatus,
        ended_at: datetime,
        writes: TurnWrites = NO_WRITES,
    ) -> Turn:
        # `writes.index_docs` is for stores that hold their own index; the cloud's search index
        # is kept from the table's stream, so they are not needed here.
        records, files, max_files = writes.records, writes.files, writes.max_files
        item = self._items.turn
        key = item.key(
            keys.session_pk(turn.tenant, turn.agent_id, turn.session_id), keys.turn_sk(turn.id)
        )
        actions: list[Action] = [item.status.set(status.value), item.ended_at.set(ended_at)]
        if turn.extraction is not None:
            actions += [
                item.extraction.set(turn.extraction.model_dump_json()),
                item.extraction_status.set(turn.extraction.status.value),
            ]
        if status is TurnStatus.COMMITTED and turn.memory_updates:
            actions.append(item.memory_updates.set(updates_json(turn.memory_updates)))
        is_open = item.status == TurnStatus.OPEN.value
        if writes.effects is not None:
            # Only while the turn holds no effect staged after the commit read them (see
            # stage_effect). `<=`, not `==`: a turn that staged before the counter was kept
            # counts only its later writes (for it, the check is as weak as it was before).
            is_open = is_open & (item.staged.does_not_exist() | (item.staged <= writes.effects))
        if not records and not files:
            try:
                key.update(actions, condition=is_open)
            except UpdateError as exc:
                if is_condition_failure(exc):
                    raise PreconditionFailed(f"turn {turn.id!r} is not open") from exc
                raise unavailable(exc) from exc
            return turn.model_copy(update={"status": status, "ended_at": ended_at})
        # A commit: the turn's end and every record and file write in one transaction, all or
        # nothing. As in SqliteStore, a turn that is not open is reported first, then a stale
        # record or file, and the memory count's limit last.
        limit = self._plan_files(files, max_files)
        try:
            with Transaction(self.connection) as tx:
                self._check_agent(tx, turn.tenant, turn.agent_id)
                tx.update(TURN, key, actions, is_open)
                self._put_writes(tx, turn.tenant, turn.agent_id, records)
                if files:
                    self._put_files(tx, turn.tenant, turn.agent_id, files, limit)
        except ConditionsFailed as exc:
            if TURN in exc.failed:
                raise PreconditionFailed(f"turn {turn.id!r} is not open") from exc
            if files:
                raise files_failure(exc, max_files) from exc
            raise write_failure(exc) from exc
        return turn.model_copy(update={"status": status, "ended_at": ended_at})

    # -- primitives ---------------------------------------------------------------------------

    _get = staticmethod(get_item)

    _query = staticmethod(query_items)


def _leads_nowhere(sk: str) -> None:
    return None
