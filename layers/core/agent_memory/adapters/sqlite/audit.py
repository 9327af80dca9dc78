"""The audit trail on SQLite (a mixin of SqliteStore)."""

from __future__ import annotations

from datetime import datetime

from ...domain.audit.models import AuditEntry, audit_entry
from .database import Database


class SqliteAudit:
    db: Database

    def append_audit(self, entry: AuditEntry) -> None:
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO audit (tenant, audit_id, agent_id, actor, expires_at, doc)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    entry.tenant,
                    entry.id,
                    entry.agent_id,
                    entry.actor,
                    entry.expires_at.isoformat() if entry.expires_at else None,
                    entry.model_dump_json(),
                ),
            )

    def list_audit(
        self,
        tenant: str,
        after: str | None,
        limit: int,
        agent_id: str | None,
        actor: str | None,
        now: datetime,
    ) -> list[AuditEntry]:
        sql = (
            "SELECT tenant, expires_at, doc FROM audit WHERE tenant = ? AND audit_id > ?"
            " AND (expires_at IS NULL OR expires_at > ?)"
        )
        args: list[object] = [tenant, after or "", now.isoformat()]
        if agent_id is not None:
            sql += " AND agent_id = ?"
            args.append(agent_id)
        if actor is not None:
            sql += " AND actor = ?"
            args.append(actor)
        rows = self.db.read().execute(sql + " ORDER BY audit_id LIMIT ?", (*args, limit)).fetchall()
        return [audit_entry(row[0], row[1], row[2]) for row in rows]
