"""The ExpirySweep port on SQLite (a mixin of SqliteStore): what the embedded sweeper reads and
purges, across tenants, through the records' expires_at and purge_at columns (migration 20)."""

from __future__ import annotations

import json
from datetime import datetime

from ...domain.kernel.durations import instant_key
from ...domain.records.models import Record, RecordStatus, from_doc
from .database import Database
from .search import EmbeddedIndex


class SqliteExpiry:
    db: Database
    index: EmbeddedIndex | None

    def records_expiring(self, now: datetime, limit: int) -> list[Record]:
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM records WHERE expires_at IS NOT NULL AND expires_at <= ?"
                " AND status = ? ORDER BY expires_at LIMIT ?",
                (instant_key(now), RecordStatus.ACTIVE.value, limit),
            )
            .fetchall()
        )
        return [from_doc(json.loads(row[0])) for row in rows]

    def purge_records(self, now: datetime, limit: int) -> list[Record]:
        due = instant_key(now)
        rows = (
            self.db.read()
            .execute(
                "SELECT tenant, agent_id, record_id, version, doc FROM records"
                " WHERE purge_at IS NOT NULL AND purge_at <= ? ORDER BY purge_at LIMIT ?",
                (due, limit),
            )
            .fetchall()
        )
        purged: list[Record] = []
        for tenant, agent_id, record_id, version, doc in rows:
            with self.db.write() as conn:
                # Only the head as read: an app that moved its expiry meanwhile keeps it.
                gone = conn.execute(
                    "DELETE FROM records WHERE tenant = ? AND agent_id = ? AND record_id = ?"
                    " AND version = ? AND purge_at <= ?",
                    (tenant, agent_id, record_id, version, due),
                ).rowcount
                if not gone:
                    continue
                conn.execute(
                    "DELETE FROM record_versions WHERE tenant = ? AND agent_id = ?"
                    " AND record_id = ?",
                    (tenant, agent_id, record_id),
                )
                if self.index is not None:
                    self.index.delete_in(conn, tenant, agent_id, "record", [record_id])
            if self.index is not None:
                self.index.forget(tenant, agent_id)
            purged.append(from_doc(json.loads(doc)))
        return purged
