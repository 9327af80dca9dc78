"""Writing bundle items into a store as they were: ids, versions, timestamps and provenance
kept, nothing re-stamped. Each item is written once: an item whose writes are stored already is
`kept` and changes nothing, so a batch sent twice (an import run again, or resumed after a
stop) does nothing the second time, and an item cut short part way is finished.

What the target's search finds is made the target's way: where the index lives in the store
(embedded shape) a document gets the bundle's vector when the target embeds with the same model,
else it is queued to be embedded anew; the cloud's stream indexer embeds what it indexes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..files import FileWrite, file_head
from ..history import HistoryService
from ..kernel.errors import Conflict, NotFound
from ..kernel.models import TurnStatus
from ..records import RecordWrite
from ..search import IndexDoc, SearchService
from ..sessions import TurnWrites
from .items import AgentItem, FileItem, RecordItem, SessionItem, TurnItem, Vector, parse_items

if TYPE_CHECKING:
    from ..files import FileMemory, FileVersion
    from ..store import Store

logger = logging.getLogger(__name__)


@dataclass
class ImportResult:
    written: int = 0
    kept: int = 0
    # Search documents given the bundle's vector, and those queued to be embedded anew.
    vectors_reused: int = 0
    vectors_queued: int = 0


class ImportService:
    """Applies a batch of one agent's bundle items, in the bundle's order."""

    def __init__(
        self,
        store: Store,
        search: SearchService,
        history: HistoryService,
        max_files: Callable[[str], int],
    ) -> None:
        self._store = store
        self._search = search
        self._history = history
        self._max_files = max_files

    def apply(self, tenant: str, agent_id: str, raw: list[Any]) -> ImportResult:
        items = parse_items(tenant, agent_id, raw)
        result = ImportResult()
        known = False  # whether the agent is there, read once a batch
        # One unit of the store's own work where that is cheaper (SQLite: one transaction, each
        # write a savepoint): every write still succeeds or fails on its own.
        with self._store.batched():
            for item in items:
                known = self._one(tenant, agent_id, item, known, result)
        logger.info(
            "bundle items imported",
            extra={"agent_id": agent_id, "written": result.written, "kept": result.kept},
        )
        return result

    def _one(
        self, tenant: str, agent_id: str, item: Any, known: bool, result: ImportResult
    ) -> bool:
        """Write one item; whether the agent is known to be there after it."""
        if not isinstance(item, AgentItem) and not known:
            known = self._store.get_agent(tenant, agent_id) is not None
            if not known:
                raise NotFound(
                    f"agent {agent_id!r} does not exist: a bundle's agent item comes first",
                    code="agent_not_found",
                )
        if self._apply(tenant, item, result):
            result.written += 1
        else:
            result.kept += 1
        return known or isinstance(item, AgentItem)

    def _apply(self, tenant: str, item: Any, result: ImportResult) -> bool:
        if isinstance(item, AgentItem):
            return self._agent(tenant, item)
        if isinstance(item, RecordItem):
            return self._record(tenant, item, result)
        if isinstance(item, FileItem):
            return self._file(tenant, item, result)
        if isinstance(item, SessionItem):
            return self._session(tenant, item)
        return self._turn(tenant, item, result)

    # -- agents -------------------------------------------------------------------------------

    def _agent(self, tenant: str, item: AgentItem) -> bool:
        agent = item.entity(tenant)
        stored = self._store.get_agent(tenant, item.agent_id)
        if stored is not None and stored.created_at != agent.created_at:
            raise Conflict(
                f"agent {item.agent_id!r} exists in this tenant and is not this bundle's: "
                "delete it, or import into another tenant",
                code="agent_exists",
            )
        have = stored.manifest_version if stored is not None else 0
        versions = [v for v in item.manifest_versions if v.version > have]
        for version in versions:
            last = version.version == agent.manifest_version
            state = agent.model_copy(
                update={
                    "manifest_version": version.version,
                    "manifest": version.manifest,
                    "updated_at": agent.updated_at if last else version.created_at,
                }
            )
            if version.version == 1:
                self._store.create_agent(state, version)
            else:
                self._store.save_manifest(state, version, version.version - 1)
        return bool(versions)

    # -- records ------------------------------------------------------------------------------

    def _record(self, tenant: str, item: RecordItem, result: ImportResult) -> bool:
        versions = item.entities(tenant)
        head = versions[-1].record
        found = self._store.get_records(tenant, item.agent_id, [item.id])
        have = found[0].version if found else 0
        new = [v for v in versions if v.record.version > have]
        if not new:
            return False
        docs = self._search.docs_for([head])
        index = self._with_vector(docs[0], item.embedding, result) if docs else None
        write = RecordWrite(record=head, expected_version=have or None, versions=new, index=index)
        self._store.write_records(tenant, item.agent_id, [write])
        return True

    # -- file memories ------------------------------------------------------------------------

    def _file(self, tenant: str, item: FileItem, result: ImportResult) -> bool:
        stored = self._store.get_file(tenant, item.agent_id, item.path)
        new = [
            v
            for v in item.versions
            if self._store.get_file_version(tenant, item.agent_id, v.id) is None
        ]
        if item.final:
            goal = item.head_entity(tenant)
        else:  # a run within the path's history: the memory its last content left
            goal = _left_by(tenant, item.agent_id, item.versions) or stored
        if not new and _same(stored, goal):
            return False
        if stored is None and goal is None:
            # A path no memory has now: its versions go in with the memory they left, which
            # is then removed (the versions stay, as a delete leaves them).
            passing = _left_by(tenant, item.agent_id, new) or file_head(
                tenant, item.agent_id, item.path, "", new[-1].version, new[-1].at, new[-1].actor
            )
            self._write_file(tenant, item, passing, None, new, result, passing=True)
            self._write_file(tenant, item, None, passing, [], result)
        else:
            self._write_file(tenant, item, goal, stored, new, result)
        return True

    def _write_file(
        self,
        tenant: str,
        item: FileItem,
        head: FileMemory | None,
        stored: FileMemory | None,
        versions: list[FileVersion],
        result: ImportResult,
        passing: bool = False,
    ) -> None:
        delta = (head is not None) - (stored is not None)
        write = FileWrite(
            path=item.path,
            head=head,
            expected_version=stored.version if stored is not None else None,
            versions=versions,
            count_delta=delta,
        )
        (write,) = self._search.file_docs(tenant, item.agent_id, [write])
        if write.index is not None and head is not None:
            if item.final and not passing:
                index = self._with_vector(write.index, item.embedding, result)
            else:  # a memory a later write changes or removes: nothing to embed yet
                index = replace(write.index, embed=None)
            write = write.model_copy(update={"index": index})
        self._store.write_files(tenant, item.agent_id, [write], self._max_files(tenant))

    # -- sessions and turns -------------------------------------------------------------------

    def _session(self, tenant: str, item: SessionItem) -> bool:
        session = item.entity(tenant)
        if self._store.get_session(tenant, item.agent_id, session.id) is None:
            fresh = session.model_copy(update={"last_sequence": 0, "reviewed_through": 0})
            self._store.create_session(fresh)
            self._store.restore_reviewed(
                tenant, item.agent_id, session.id, session.reviewed_through, ()
            )
            return True
        return False

    def _turn(self, tenant: str, item: TurnItem, result: ImportResult) -> bool:
        turn = item.entity(tenant)
        where = (tenant, item.agent_id, item.session_id)
        stored = self._store.get_turn(*where, turn.id)
        if stored is not None and stored.status is not TurnStatus.OPEN:
            return False
        if self._store.get_session(*where) is None:
            raise NotFound(
                f"session {item.session_id!r} does not exist: its item comes before its turns",
                code="session_not_found",
            )
        opened = turn.model_copy(
            update={"status": TurnStatus.OPEN, "ended_at": None, "reviewed": False}
        )
        wrote = stored is None
        if stored is None:
            self._store.begin_turn(
                opened.model_copy(update={"extraction": None, "memory_updates": []})
            )
        recorded = {x.id for x in self._store.list_executions(*where, turn.id)}
        for execution in item.executions:
            if execution.id not in recorded:
                self._store.add_execution(*where, execution)
                wrote = True
        staged = {e.effect_id for e in self._store.staged_effects(*where, turn.id)}
        for effect in item.effect_entities(tenant):
            if effect.effect_id not in staged:
                self._store.stage_effect(*where, effect)
                wrote = True
        kept = {e.id for e in self._store.turn_events(*where, turn.id)}
        events = [e for e in item.event_entities(tenant, turn) if e.id not in kept]
        if events:
            self._store.append_events(*where, events)
            wrote = True
        if turn.status is TurnStatus.OPEN:
            return wrote
        docs = []
        if turn.status is TurnStatus.COMMITTED:
            docs = [self._part_vector(d, item, result) for d in self._history.docs_for_commit(turn)]
        self._store.end_turn(
            opened, turn.status, turn.ended_at or turn.created_at, TurnWrites(index_docs=docs)
        )
        if turn.reviewed:
            self._store.restore_reviewed(*where, 0, [turn.id])
        return True

    # -- vectors ------------------------------------------------------------------------------

    def _reusable(self, model_id: str | None, values: list[float]) -> bool:
        embedder = self._search.embedder
        return (
            embedder is not None
            and model_id == embedder.model_id
            and len(values) == embedder.dimensions
        )

    def _with_vector(self, doc: IndexDoc, vector: Vector | None, result: ImportResult) -> IndexDoc:
        if vector is not None and self._reusable(vector.model_id, vector.values):
            result.vectors_reused += 1
            return replace(doc, vector=vector.values, model_id=vector.model_id, embed=None)
        if doc.embed is not None:
            result.vectors_queued += 1
        return doc

    def _part_vector(self, doc: IndexDoc, item: TurnItem, result: ImportResult) -> IndexDoc:
        values = item.vectors.get(doc.id)
        vector = Vector(model_id=item.model_id, values=values) if values and item.model_id else None
        return self._with_vector(doc, vector, result)


def _left_by(tenant: str, agent_id: str, versions: list[FileVersion]) -> FileMemory | None:
    """The memory the last of `versions` that has content left, None when none has."""
    for version in reversed(versions):
        if version.content is not None:
            return file_head(
                tenant,
                agent_id,
                version.path,
                version.content,
                version.version,
                version.at,
                version.actor,
            )
    return None


def _same(stored: FileMemory | None, goal: FileMemory | None) -> bool:
    if stored is None or goal is None:
        return stored is goal
    return stored.version == goal.version and stored.content_sha256 == goal.content_sha256


__all__ = ["ImportResult", "ImportService", "parse_items"]
