"""Record memory, executions and staged effects on SQLite (a mixin of SqliteStore)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from ...domain.files.models import TenantLimits
from ...domain.kernel.durations import instant_key
from ...domain.kernel.errors import PreconditionFailed
from ...domain.kernel.models import Turn, TurnStatus
from ...domain.records.expiry import purge_at
from ...domain.records.models import (
    Execution,
    Record,
    RecordQuery,
    RecordVersion,
    RecordWrite,
    from_doc,
    to_doc,
    version_from_doc,
    version_to_doc,
)
from ...domain.turns.effects import Effect, effect_from_json
from .database import Database, require_open_turn
from .database import lost_race as _lost_race
from .extraction import set_extraction
from .filters import HEAD_COLUMNS, RECORD_COLUMNS, filter_sql
from .rows import updates_json
from .search import EmbeddedIndex


class SqliteRecords:
    db: Database
    index: EmbeddedIndex | None
    tenant_limits: Callable[[str], TenantLimits | None]

    # -- turn log ------------------------------------------------------------------------------

    def add_execution(
        self, tenant: str, agent_id: str, session_id: str, execution: Execution
    ) -> None:
        with _lost_race("no such open turn, or the execution is recorded"), self.db.write() as conn:
            conn.execute(
                "INSERT INTO executions (tenant, agent_id, session_id, turn_id, execution_id, doc)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    tenant,
                    agent_id,
                    session_id,
                    execution.turn_id,
                    execution.id,
                    execution.model_dump_json(),
                ),
            )

    def list_executions(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[Execution]:
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM executions WHERE tenant = ? AND agent_id = ? AND session_id = ?"
                " AND turn_id = ? ORDER BY execution_id",
                (tenant, agent_id, session_id, turn_id),
            )
            .fetchall()
        )
        return [Execution.model_validate_json(row[0]) for row in rows]

    def stage_effect(self, tenant: str, agent_id: str, session_id: str, effect: Effect) -> None:
        try:
            with self.db.write() as conn:
                require_open_turn(self.db, conn, tenant, agent_id, session_id, effect.turn_id)
                conn.execute(
                    "INSERT INTO effects (tenant, agent_id, session_id, turn_id, sequence,"
                    " effect_id, doc) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        tenant,
                        agent_id,
                        session_id,
                        effect.turn_id,
                        effect.sequence,
                        effect.effect_id,
                        effect.model_dump_json(),
                    ),
                )
        except sqlite3.IntegrityError as exc:
            raise PreconditionFailed(
                "no such turn, or it already staged this effect or sequence"
            ) from exc

    def staged_effects(
        self, tenant: str, agent_id: str, session_id: str, turn_id: str
    ) -> list[Effect]:
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM effects WHERE tenant = ? AND agent_id = ? AND session_id = ?"
                " AND turn_id = ? ORDER BY sequence",
                (tenant, agent_id, session_id, turn_id),
            )
            .fetchall()
        )
        return [effect_from_json(row[0]) for row in rows]

    # -- records -------------------------------------------------------------------------------

    def get_records(self, tenant: str, agent_id: str, ids: Iterable[str]) -> list[Record]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        marks = ",".join("?" * len(wanted))
        rows = (
            self.db.read()
            .execute(
                f"SELECT doc FROM records WHERE tenant = ? AND agent_id = ? AND record_id IN ({marks})",
                (tenant, agent_id, *wanted),
            )
            .fetchall()
        )
        return [from_doc(json.loads(row[0])) for row in rows]

    def find_records(
        self, tenant: str, agent_id: str, query: RecordQuery, limit: int, before: str | None
    ) -> list[Record]:
        where = ["tenant = ?", "agent_id = ?"]
        args: list[Any] = [tenant, agent_id]
        if before is not None:
            where.append("record_id < ?")
            args.append(before)
        rules, rule_args = filter_sql(query, RECORD_COLUMNS, expiry_at=query.at)
        where += rules
        args += rule_args
        if query.pinned is not None:
            where.append("pinned = ?")
            args.append(int(query.pinned))
        rows = (
            self.db.read()
            .execute(
                f"SELECT doc FROM records WHERE {' AND '.join(where)} ORDER BY record_id DESC LIMIT ?",
                (*args, limit),
            )
            .fetchall()
        )
        return [from_doc(json.loads(row[0])).seen_at(query.at) for row in rows]

    def record_versions(
        self, tenant: str, agent_id: str, record_id: str, limit: int, before: int | None
    ) -> list[RecordVersion]:
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM record_versions WHERE tenant = ? AND agent_id = ? AND record_id = ?"
                " AND version < ? ORDER BY version DESC LIMIT ?",
                (tenant, agent_id, record_id, before if before is not None else 2**62, limit),
            )
            .fetchall()
        )
        return [version_from_doc(json.loads(row[0])) for row in rows]

    def records_at(
        self, tenant: str, agent_id: str, ids: Iterable[str], at: datetime
    ) -> list[Record]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        marks = ",".join("?" * len(wanted))
        # Each record's newest version made at or before `at`: its number from a seek of
        # record_versions_by_time, then its document by key.
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM record_versions WHERE tenant = ? AND agent_id = ?"
                " AND (record_id, version) IN (SELECT record_id, MAX(version)"
                " FROM record_versions WHERE tenant = ? AND agent_id = ?"
                f" AND record_id IN ({marks}) AND at <= ? GROUP BY record_id)",
                (tenant, agent_id, tenant, agent_id, *wanted, instant_key(at)),
            )
            .fetchall()
        )
        found = [from_doc(json.loads(row[0])["record"]) for row in rows]
        return sorted(found, key=lambda record: record.id)

    def find_records_at(
        self,
        tenant: str,
        agent_id: str,
        query: RecordQuery,
        at: datetime,
        limit: int,
        before: str | None,
    ) -> list[Record]:
        # The heads' rows filter (on what no version changes) and order; each joins the version
        # current at `at` through record_versions_by_time, and only that document is read.
        wide = query.model_copy(update={"statuses": frozenset(), "pinned": None})
        where = ["r.tenant = ?", "r.agent_id = ?"]
        args: list[Any] = [tenant, agent_id]
        if before is not None:
            where.append("r.record_id < ?")
            args.append(before)
        rules, rule_args = filter_sql(wide, HEAD_COLUMNS)
        rows = (
            self.db.read()
            .execute(
                "SELECT v.doc FROM records AS r JOIN record_versions AS v ON v.tenant = r.tenant"
                " AND v.agent_id = r.agent_id AND v.record_id = r.record_id AND v.version ="
                " (SELECT w.version FROM record_versions AS w INDEXED BY record_versions_by_time"
                " WHERE w.tenant = r.tenant AND w.agent_id = r.agent_id"
                " AND w.record_id = r.record_id AND w.at <= ?"
                " ORDER BY w.at DESC, w.version DESC LIMIT 1)"
                f" WHERE {' AND '.join(where + rules)} ORDER BY r.record_id DESC LIMIT ?",
                (instant_key(at), *args, *rule_args, limit),
            )
            .fetchall()
        )
        return [from_doc(json.loads(row[0])["record"]) for row in rows]

    def write_records(self, tenant: str, agent_id: str, writes: Sequence[RecordWrite]) -> None:
        with self.db.write() as conn:
            self._apply(conn, tenant, agent_id, writes)

    def _end_turn_with(
        self,
        conn: sqlite3.Connection,
        turn: Turn,
        status: TurnStatus,
        ended_at: str,
        writes: Sequence[RecordWrite],
    ) -> None:
        changed = conn.execute(
            "UPDATE turns SET status = ?, ended_at = ? WHERE tenant = ? AND agent_id = ?"
            " AND session_id = ? AND turn_id = ? AND status = ?",
            (
                status.value,
                ended_at,
                turn.tenant,
                turn.agent_id,
                turn.session_id,
                turn.id,
                TurnStatus.OPEN.value,
            ),
        ).rowcount
        if changed != 1:
            raise PreconditionFailed(f"turn {turn.id!r} is not open")
        if turn.extraction is not None:
            set_extraction(conn, turn, turn.extraction)
        if status is TurnStatus.COMMITTED and turn.memory_updates:
            conn.execute(
                "UPDATE turns SET memory_updates = ? WHERE tenant = ? AND agent_id = ?"
                " AND session_id = ? AND turn_id = ?",
                (
                    updates_json(turn.memory_updates),
                    turn.tenant,
                    turn.agent_id,
                    turn.session_id,
                    turn.id,
                ),
            )
        self._apply(conn, turn.tenant, turn.agent_id, writes)

    def _apply(
        self, conn: sqlite3.Connection, tenant: str, agent_id: str, writes: Sequence[RecordWrite]
    ) -> None:
        index = self.index
        expiring = any(w.record.expires_at is not None for w in writes)
        limits = self.tenant_limits(tenant) if expiring else None
        for write in writes:
            record = write.record
            purge = purge_at(record, limits)
            values = (
                record.scope,
                record.session_id,
                record.status.value,
                record.kind,
                int(record.preview),
                int(record.pinned),
                record.version,
                json.dumps(to_doc(record)),
                instant_key(record.expires_at) if record.expires_at else None,
                instant_key(purge) if purge else None,
            )
            if write.expected_version is None:
                try:
                    conn.execute(
                        "INSERT INTO records (scope, session_id, status, kind, preview, pinned,"
                        " version, doc, expires_at, purge_at, tenant, agent_id, record_id)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (*values, tenant, agent_id, record.id),
                    )
                except sqlite3.IntegrityError as exc:
                    raise PreconditionFailed(f"record {record.id!r} exists") from exc
            else:
                changed = conn.execute(
                    "UPDATE records SET scope = ?, session_id = ?, status = ?, kind = ?,"
                    " preview = ?, pinned = ?, version = ?, doc = ?, expires_at = ?,"
                    " purge_at = ? WHERE tenant = ?"
                    " AND agent_id = ? AND record_id = ? AND version = ?",
                    (*values, tenant, agent_id, record.id, write.expected_version),
                ).rowcount
                if changed != 1:
                    raise PreconditionFailed(f"record {record.id!r} changed concurrently")
            if write.index is not None and index is not None:
                index.upsert_in(conn, [write.index])
            for version in write.versions:
                try:
                    conn.execute(
                        "INSERT INTO record_versions (tenant, agent_id, record_id, version, doc, at)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        (
                            tenant,
                            agent_id,
                            record.id,
                            version.record.version,
                            json.dumps(version_to_doc(version)),
                            instant_key(version.at),
                        ),
                    )
                except sqlite3.IntegrityError as exc:
                    raise PreconditionFailed(f"record {record.id!r} version exists") from exc
