"""Consolidation runs on SQLite (a mixin of SqliteStore): one row a run, its JSON beside its
keys, deleted with its agent (the foreign key cascades)."""

from __future__ import annotations

import json
import sqlite3

from ...domain.extraction.consolidation_models import ConsolidationRun
from ...domain.kernel.errors import NotFound
from .database import Database


class SqliteConsolidations:
    db: Database

    def save_consolidation(self, run: ConsolidationRun) -> None:
        try:
            with self.db.write() as conn:
                conn.execute(
                    "INSERT INTO consolidations (tenant, agent_id, run_id, doc) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (tenant, agent_id, run_id) DO UPDATE SET doc = excluded.doc",
                    (run.tenant, run.agent_id, run.id, run.model_dump_json()),
                )
        except sqlite3.IntegrityError as exc:  # the foreign key: no such agent (or deleted)
            raise NotFound(
                f"agent {run.agent_id!r} does not exist", code="agent_not_found"
            ) from exc

    def list_consolidations(
        self, tenant: str, agent_id: str, limit: int, before: str | None
    ) -> list[ConsolidationRun]:
        sql = "SELECT doc FROM consolidations WHERE tenant = ? AND agent_id = ?"
        args: list[object] = [tenant, agent_id]
        if before is not None:
            sql += " AND run_id < ?"
            args.append(before)
        rows = self.db.read().execute(sql + " ORDER BY run_id DESC LIMIT ?", (*args, limit))
        return [
            ConsolidationRun.model_validate({**json.loads(row[0]), "tenant": tenant})
            for row in rows.fetchall()
        ]

    def scheduled_consolidations(self) -> list[tuple[str, str, str]]:
        rows = self.db.read().execute(
            "SELECT tenant, agent_id, json_extract(manifest, '$.harness.memory.consolidation.every')"
            " FROM agents"
            " WHERE json_extract(manifest, '$.harness.memory.consolidation.every') IS NOT NULL"
        )
        return [(tenant, agent_id, str(every)) for tenant, agent_id, every in rows]
