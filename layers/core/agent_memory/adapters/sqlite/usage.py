"""Usage on SQLite (a mixin of SqliteStore)."""

from __future__ import annotations

from collections.abc import Sequence

from ...domain.usage.models import Usage, UsageTotal
from .database import Database, lost_race


class SqliteUsage:
    db: Database

    def add_usage(self, tenant: str, agent_id: str, entries: Sequence[Usage]) -> None:
        if not entries:
            return
        with lost_race("no such agent, or the usage is recorded"), self.db.write() as conn:
            conn.executemany(
                "INSERT INTO usage (tenant, agent_id, usage_id, turn_id, purpose, model_id,"
                " input_tokens, output_tokens, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        tenant,
                        agent_id,
                        e.id,
                        e.turn_id,
                        e.purpose,
                        e.model_id,
                        e.input_tokens,
                        e.output_tokens,
                        e.model_dump_json(),
                    )
                    for e in entries
                ],
            )

    def list_usage(
        self, tenant: str, agent_id: str, turn_id: str | None, limit: int, before: str | None
    ) -> list[Usage]:
        sql = "SELECT doc FROM usage WHERE tenant = ? AND agent_id = ? AND usage_id < ?"
        args: list[object] = [tenant, agent_id, before or "\uffff"]
        if turn_id is not None:
            sql += " AND turn_id = ?"
            args.append(turn_id)
        rows = (
            self.db.read()
            .execute(sql + " ORDER BY usage_id DESC LIMIT ?", (*args, limit))
            .fetchall()
        )
        return [Usage.model_validate_json(row[0]) for row in rows]

    def usage_totals(self, tenant: str, agent_id: str) -> list[UsageTotal]:
        rows = (
            self.db.read()
            .execute(
                "SELECT purpose, model_id, count(*), sum(input_tokens), sum(output_tokens) FROM usage"
                " WHERE tenant = ? AND agent_id = ? GROUP BY purpose, model_id ORDER BY purpose,"
                " model_id",
                (tenant, agent_id),
            )
            .fetchall()
        )
        return [
            UsageTotal(
                purpose=r[0], model_id=r[1], calls=r[2], input_tokens=r[3], output_tokens=r[4]
            )
            for r in rows
        ]
