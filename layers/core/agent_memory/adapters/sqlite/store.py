"""SqliteStore: the foundation's Store port on one SQLite file."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path

from ...domain.extraction.ports import ConsolidationSchedule
from ...domain.history.models import event_of
from ...domain.kernel.errors import NotFound, PreconditionFailed, StorageUnavailable
from ...domain.kernel.models import Agent, ManifestVersion, Session, Turn, TurnStatus
from ...domain.records.ports import ExpirySweep
from ...domain.search.index import IndexDoc
from ...domain.sessions.ports import NO_WRITES, TurnWrites
from ...domain.store import Store
from .audit import SqliteAudit
from .consolidations import SqliteConsolidations
from .database import Database, turn_key
from .database import lost_race as _lost_race
from .expiry import SqliteExpiry
from .extraction import SqliteExtraction
from .faults import translated
from .files import SqliteFiles
from .history import SqliteHistory
from .named_manifests import SqliteNamedManifests
from .records import SqliteRecords
from .review_marks import SqliteReviewMarks
from .rows import agent_from_row as _agent
from .rows import session_from_row as _session
from .rows import turn_from_row as _turn
from .rows import version_from_row as _version
from .search import EmbeddedIndex
from .usage import SqliteUsage


@translated
class SqliteStore(
    SqliteRecords,
    SqliteExpiry,
    SqliteFiles,
    SqliteUsage,
    SqliteHistory,
    SqliteExtraction,
    SqliteConsolidations,
    SqliteAudit,
    SqliteNamedManifests,
    SqliteReviewMarks,
    ExpirySweep,
    ConsolidationSchedule,
    Store,
):
    def __init__(self, path: Path | str, synchronous: str = "FULL") -> None:
        self.db = Database(path, synchronous)
        self.index: EmbeddedIndex | None = None

    def attach_index(self, model_id: str | None, dimensions: int | None) -> EmbeddedIndex:
        """The search index in this same file, written in the store's own transactions."""
        self.index = EmbeddedIndex(self.db, model_id, dimensions)
        return self.index

    def close(self) -> None:
        self.db.close()

    def _faults(self, exc: sqlite3.Error) -> StorageUnavailable | None:
        return self.db._faults(exc)

    def batched(self) -> AbstractContextManager[None]:
        return self.db.batch()

    def exclusive(self) -> AbstractContextManager[None]:
        return self.db.exclusive()

    # -- agents -------------------------------------------------------------------------------

    def create_agent(self, agent: Agent, version: ManifestVersion) -> None:
        self.db.forget_memo()
        try:
            with self.db.write() as conn:
                conn.execute(
                    "INSERT INTO agents (tenant, agent_id, manifest_version, manifest, forked_from,"
                    " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        agent.tenant,
                        agent.id,
                        agent.manifest_version,
                        json.dumps(agent.manifest),
                        agent.forked_from,
                        agent.created_at.isoformat(),
                        agent.updated_at.isoformat(),
                    ),
                )
                self._insert_version(conn, agent.tenant, version)
        except sqlite3.IntegrityError as exc:
            raise PreconditionFailed(f"agent {agent.id!r} already exists") from exc

    def save_manifest(self, agent: Agent, version: ManifestVersion, expected_version: int) -> None:
        self.db.forget_memo()
        with _lost_race(f"agent {agent.id!r} changed concurrently"), self.db.write() as conn:
            changed = conn.execute(
                "UPDATE agents SET manifest_version = ?, manifest = ?, updated_at = ?"
                " WHERE tenant = ? AND agent_id = ? AND manifest_version = ?",
                (
                    agent.manifest_version,
                    json.dumps(agent.manifest),
                    agent.updated_at.isoformat(),
                    agent.tenant,
                    agent.id,
                    expected_version,
                ),
            ).rowcount
            if changed != 1:
                raise PreconditionFailed(f"agent {agent.id!r} changed concurrently")
            self._insert_version(conn, agent.tenant, version)

    @staticmethod
    def _insert_version(conn: sqlite3.Connection, tenant: str, version: ManifestVersion) -> None:
        conn.execute(
            "INSERT INTO manifest_versions (tenant, agent_id, version, manifest, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (
                tenant,
                version.agent_id,
                version.version,
                json.dumps(version.manifest),
                version.created_at.isoformat(),
            ),
        )

    def get_agent(self, tenant: str, agent_id: str) -> Agent | None:
        # A batch reads its agent for each message (four times a turn): once is enough.
        return self.db.memoized(
            ("agent", tenant, agent_id), lambda: self._read_agent(tenant, agent_id)
        )

    def _read_agent(self, tenant: str, agent_id: str) -> Agent | None:
        row = (
            self.db.read()
            .execute("SELECT * FROM agents WHERE tenant = ? AND agent_id = ?", (tenant, agent_id))
            .fetchone()
        )
        return _agent(row) if row else None

    def list_agents(self, tenant: str, limit: int, after: str | None) -> list[Agent]:
        rows = (
            self.db.read()
            .execute(
                "SELECT * FROM agents WHERE tenant = ? AND agent_id > ? ORDER BY agent_id LIMIT ?",
                (tenant, after or "", limit),
            )
            .fetchall()
        )
        return [_agent(row) for row in rows]

    def list_manifest_versions(
        self, tenant: str, agent_id: str, limit: int, before: int | None
    ) -> list[ManifestVersion]:
        rows = (
            self.db.read()
            .execute(
                "SELECT * FROM manifest_versions WHERE tenant = ? AND agent_id = ? AND version < ?"
                " ORDER BY version DESC LIMIT ?",
                (tenant, agent_id, before if before is not None else 2**62, limit),
            )
            .fetchall()
        )
        return [_version(row) for row in rows]

    def get_manifest_version(
        self, tenant: str, agent_id: str, version: int
    ) -> ManifestVersion | None:
        row = (
            self.db.read()
            .execute(
                "SELECT * FROM manifest_versions WHERE tenant = ? AND agent_id = ? AND version = ?",
                (tenant, agent_id, version),
            )
            .fetchone()
        )
        return _version(row) if row else None

    def agent_ids(self, tenant: str, limit: int) -> list[str]:
        rows = (
            self.db.read()
            .execute(
                "SELECT agent_id FROM agents WHERE tenant = ? ORDER BY agent_id LIMIT ?",
                (tenant, limit),
            )
            .fetchall()
        )
        return [row[0] for row in rows]

    def delete_agent(self, tenant: str, agent_id: str) -> bool:
        self.db.forget_memo()
        # One transaction: the foreign keys cascade to everything the agent owns.
        with self.db.write() as conn:
            deleted = conn.execute(
                "DELETE FROM agents WHERE tenant = ? AND agent_id = ?", (tenant, agent_id)
            ).rowcount
            # The search index is not under the foreign keys (FTS5 cannot be): clear it here.
            if self.index is not None:
                self.index.delete_agent_in(conn, tenant, agent_id)
            else:
                EmbeddedIndex.clear_agent_rows(conn, tenant, agent_id)
        if self.index is not None:
            # Again once committed: a query in between may have loaded the rows still there.
            self.index.forget(tenant, agent_id)
        return deleted == 1

    # -- sessions and turns -------------------------------------------------------------------

    def create_session(self, session: Session) -> None:
        with self.db.write() as conn:
            if not conn.execute(
                "SELECT 1 FROM agents WHERE tenant = ? AND agent_id = ?",
                (session.tenant, session.agent_id),
            ).fetchone():
                raise NotFound(f"agent {session.agent_id!r} does not exist", code="agent_not_found")
            try:
                conn.execute(
                    "INSERT INTO sessions (tenant, agent_id, session_id, last_sequence, metadata,"
                    " created_at, owner) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        session.tenant,
                        session.agent_id,
                        session.id,
                        session.last_sequence,
                        json.dumps(session.metadata),
                        session.created_at.isoformat(),
                        session.owner,
                    ),
                )
            except sqlite3.IntegrityError as exc:
                raise PreconditionFailed(f"session {session.id!r} already exists") from exc
        self.db.forget(_session_key(session.tenant, session.agent_id, session.id))

    def get_session(self, tenant: str, agent_id: str, session_id: str) -> Session | None:
        # A batch reads each session at every begin: once is enough (Database.batch_memo).
        return self.db.memoized(
            _session_key(tenant, agent_id, session_id),
            lambda: self._read_session(tenant, agent_id, session_id),
        )

    def _read_session(self, tenant: str, agent_id: str, session_id: str) -> Session | None:
        row = (
            self.db.read()
            .execute(
                "SELECT * FROM sessions WHERE tenant = ? AND agent_id = ? AND session_id = ?",
                (tenant, agent_id, session_id),
            )
            .fetchone()
        )
        return _session(row) if row else None

    def list_sessions(
        self, tenant: str, agent_id: str, limit: int, after: str | None
    ) -> list[Session]:
        rows = (
            self.db.read()
            .execute(
                "SELECT * FROM sessions WHERE tenant = ? AND agent_id = ? AND session_id > ?"
                " ORDER BY session_id LIMIT ?",
                (tenant, agent_id, after or "", limit),
            )
            .fetchall()
        )
        return [_session(row) for row in rows]

    def begin_turn(self, turn: Turn) -> None:
        with _lost_race(f"turn {turn.id!r} exists"), self.db.write() as conn:
            moved = conn.execute(
                "UPDATE sessions SET last_sequence = ? WHERE tenant = ? AND agent_id = ?"
                " AND session_id = ? AND last_sequence = ?",
                (turn.sequence, turn.tenant, turn.agent_id, turn.session_id, turn.sequence - 1),
            ).rowcount
            if moved != 1:
                raise PreconditionFailed("the session's turn sequence moved on")
            conn.execute(
                "INSERT INTO turns (tenant, agent_id, session_id, turn_id, sequence, status,"
                " preview, replay_of, started_by, trigger_run_id, manifest_version, created_at,"
                " ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    turn.tenant,
                    turn.agent_id,
                    turn.session_id,
                    turn.id,
                    turn.sequence,
                    turn.status.value,
                    int(turn.preview),
                    turn.replay_of,
                    turn.started_by,
                    turn.trigger_run_id,
                    turn.manifest_version,
                    turn.created_at.isoformat(),
                    None,
                ),
            )
        self._remember_turn(turn)
        # The session as its row now holds it, if the batch held it.
        key = _session_key(turn.tenant, turn.agent_id, turn.session_id)
        held = self.db.forget(key)
        if isinstance(held, Session):
            self.db.remember(key, held.model_copy(update={"last_sequence": turn.sequence}))

    def get_turn(self, tenant: str, agent_id: str, session_id: str, turn_id: str) -> Turn | None:
        # A batch reads each turn four times (begin, append, commit, the next turn's context):
        # it keeps the turns it read or wrote (Database.batch_memo).
        return self.db.memoized(
            turn_key(tenant, agent_id, session_id, turn_id),
            lambda: self._read_turn(tenant, agent_id, session_id, turn_id),
        )

    def _read_turn(self, tenant: str, agent_id: str, session_id: str, turn_id: str) -> Turn | None:
        row = (
            self.db.read()
            .execute(
                "SELECT * FROM turns WHERE tenant = ? AND agent_id = ? AND session_id = ?"
                " AND turn_id = ?",
                (tenant, agent_id, session_id, turn_id),
            )
            .fetchone()
        )
        return _turn(row) if row else None

    def _remember_turn(self, turn: Turn) -> None:
        """In a batch, the turn as this store just wrote it: what reading its row would give."""
        self.db.remember(turn_key(turn.tenant, turn.agent_id, turn.session_id, turn.id), turn)

    def list_turns(self, tenant: str, agent_id: str, session_id: str) -> list[Turn]:
        rows = (
            self.db.read()
            .execute(
                "SELECT * FROM turns WHERE tenant = ? AND agent_id = ? AND session_id = ?"
                " ORDER BY sequence",
                (tenant, agent_id, session_id),
            )
            .fetchall()
        )
        return [_turn(row) for row in rows]

    @staticmethod
    def _check_events_indexed(
        conn: sqlite3.Connection, turn: Turn, docs: Sequence[IndexDoc]
    ) -> None:
        """In the commit's own transaction: every event the turn keeps searchable is in its
        documents, or the commit starts again (an append landed after it read the turn's events,
        and would never be found)."""
        indexed = {event_of(d.id) for d in docs if d.kind == "event"}
        rows = conn.execute(
            "SELECT event_id FROM history_events WHERE tenant = ? AND agent_id = ?"
            " AND session_id = ? AND turn_id = ? AND json_extract(doc, '$.searchable') = 1",
            (turn.tenant, turn.agent_id, turn.session_id, turn.id),
        ).fetchall()
        if any(row[0] not in indexed for row in rows):
            raise PreconditionFailed(f"turn {turn.id!r} kept another event meanwhile")

    def end_turn(
        self,
        turn: Turn,
        status: TurnStatus,
        ended_at: datetime,
        writes: TurnWrites = NO_WRITES,
    ) -> Turn:
        # The two checks below catch a write that came between the reads this commit was
        # planned from and its own write. A batch has held the file's write lock since before
        # those reads, so none can have come: in one they are skipped.
        may_race = not self.db.in_batch()
        with self.db.write() as conn:
            if may_race and writes.effects is not None:
                (held,) = conn.execute(
                    "SELECT COUNT(*) FROM effects WHERE tenant = ? AND agent_id = ?"
                    " AND session_id = ? AND turn_id = ?",
                    (turn.tenant, turn.agent_id, turn.session_id, turn.id),
                ).fetchone()
                if held != writes.effects:
                    raise PreconditionFailed(f"turn {turn.id!r} staged another write meanwhile")
            if may_race and self.index is not None and status is TurnStatus.COMMITTED:
                self._check_events_indexed(conn, turn, writes.index_docs)
            self._end_turn_with(conn, turn, status, ended_at.isoformat(), writes.records)
            if self.index is not None and writes.index_docs:
                self.index.upsert_in(conn, writes.index_docs)
            self._apply_files(conn, turn.tenant, turn.agent_id, writes.files, writes.max_files)
        ended = turn.model_copy(update={"status": status, "ended_at": ended_at})
        self._remember_turn(ended)
        return ended


def _session_key(tenant: str, agent_id: str, session_id: str) -> tuple[str, ...]:
    return ("session", tenant, agent_id, session_id)
