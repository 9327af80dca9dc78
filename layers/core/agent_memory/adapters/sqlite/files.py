"""File memory on SQLite (a mixin of SqliteStore)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from ...domain.files.models import (
    FileMemory,
    FileVersion,
    FileWrite,
    PreviewFile,
    TenantLimits,
)
from ...domain.kernel.errors import LimitExceeded, PreconditionFailed
from .database import Database, lost_race

_HEAD_COLUMNS = "path, content, bytes, content_sha256, description, version, updated_at, updated_by"


class SqliteFiles:
    db: Database

    def get_file(self, tenant: str, agent_id: str, path: str) -> FileMemory | None:
        row = (
            self.db.read()
            .execute(
                f"SELECT {_HEAD_COLUMNS} FROM files WHERE tenant = ? AND agent_id = ? AND path = ?",
                (tenant, agent_id, path),
            )
            .fetchone()
        )
        return _head(tenant, agent_id, row) if row else None

    def list_files(
        self,
        tenant: str,
        agent_id: str,
        prefix: str,
        limit: int,
        after: str | None,
        *,
        with_content: bool = False,
    ) -> list[FileMemory]:
        content = "content" if with_content else "'' AS content"
        # substr() rather than LIKE: paths may hold % and _, which LIKE would treat as wildcards.
        rows = (
            self.db.read()
            .execute(
                f"SELECT path, {content}, bytes, content_sha256, description, version, updated_at,"
                " updated_by FROM files WHERE tenant = ? AND agent_id = ? AND path > ?"
                " AND substr(path, 1, ?) = ? ORDER BY path LIMIT ?",
                (tenant, agent_id, after or "", len(prefix), prefix, limit),
            )
            .fetchall()
        )
        return [_head(tenant, agent_id, row) for row in rows]

    def file_versions(
        self, tenant: str, agent_id: str, path: str | None, limit: int, before: str | None
    ) -> list[FileVersion]:
        sql = "SELECT doc FROM file_versions WHERE tenant = ? AND agent_id = ? AND version_id < ?"
        args: list[object] = [tenant, agent_id, before or "\uffff"]
        if path is not None:
            # A rename is one version, kept under its new path and naming the old one.
            sql += " AND (path = ? OR json_extract(doc, '$.from_path') = ?)"
            args += [path, path]
        rows = (
            self.db.read()
            .execute(sql + " ORDER BY version_id DESC LIMIT ?", (*args, limit))
            .fetchall()
        )
        return [FileVersion.model_validate_json(row[0]) for row in rows]

    def get_file_version(self, tenant: str, agent_id: str, version_id: str) -> FileVersion | None:
        row = (
            self.db.read()
            .execute(
                "SELECT doc FROM file_versions WHERE tenant = ? AND agent_id = ? AND version_id = ?",
                (tenant, agent_id, version_id),
            )
            .fetchone()
        )
        return FileVersion.model_validate_json(row[0]) if row else None

    def count_files(self, tenant: str, agent_id: str) -> int:
        row = (
            self.db.read()
            .execute(
                "SELECT count(*) FROM files WHERE tenant = ? AND agent_id = ?", (tenant, agent_id)
            )
            .fetchone()
        )
        return int(row[0])

    def write_files(
        self, tenant: str, agent_id: str, writes: Sequence[FileWrite], max_files: int
    ) -> None:
        with lost_race("no such agent, or the version exists"), self.db.write() as conn:
            self._apply_files(conn, tenant, agent_id, writes, max_files)

    def _apply_files(
        self,
        conn: sqlite3.Connection,
        tenant: str,
        agent_id: str,
        writes: Sequence[FileWrite],
        max_files: int,
    ) -> None:
        index = getattr(self, "index", None)
        for write in writes:
            if write.preview is not None:
                conn.execute(
                    "INSERT INTO preview_files (tenant, agent_id, path, doc) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (tenant, agent_id, path) DO UPDATE SET doc = excluded.doc",
                    (tenant, agent_id, write.path, write.preview.model_dump_json()),
                )
                continue
            if write.index is not None and index is not None:
                index.upsert_in(conn, [write.index])
            head = write.head
            if write.expected_version is None:
                if head is None:
                    raise PreconditionFailed(f"{write.path} cannot be deleted: it does not exist")
                try:
                    conn.execute(
                        f"INSERT INTO files (tenant, agent_id, {_HEAD_COLUMNS})"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (tenant, agent_id, *_values(head)),
                    )
                except sqlite3.IntegrityError as exc:
                    raise PreconditionFailed(f"{write.path} exists") from exc
            elif head is None:
                changed = conn.execute(
                    "DELETE FROM files WHERE tenant = ? AND agent_id = ? AND path = ?"
                    " AND version = ?",
                    (tenant, agent_id, write.path, write.expected_version),
                ).rowcount
                if changed != 1:
                    raise PreconditionFailed(f"{write.path} changed concurrently")
            else:
                changed = conn.execute(
                    "UPDATE files SET content = ?, bytes = ?, content_sha256 = ?, description = ?,"
                    " version = ?, updated_at = ?, updated_by = ? WHERE tenant = ?"
                    " AND agent_id = ? AND path = ? AND version = ?",
                    (*_values(head)[1:], tenant, agent_id, write.path, write.expected_version),
                ).rowcount
                if changed != 1:
                    raise PreconditionFailed(f"{write.path} changed concurrently")
            for version in write.versions:
                conn.execute(
                    "INSERT INTO file_versions (tenant, agent_id, version_id, path, doc)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (tenant, agent_id, version.id, version.path, version.model_dump_json()),
                )
        if any(w.count_delta > 0 for w in writes):
            count = conn.execute(
                "SELECT count(*) FROM files WHERE tenant = ? AND agent_id = ?", (tenant, agent_id)
            ).fetchone()[0]
            if count > max_files:
                raise LimitExceeded(f"an agent keeps at most {max_files} memories", limit=max_files)

    def save_session_index(
        self, tenant: str, agent_id: str, session_id: str, text: str, built_at: datetime
    ) -> None:
        with lost_race("no such session"), self.db.write() as conn:
            conn.execute(
                "INSERT INTO session_index (tenant, agent_id, session_id, text, built_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, agent_id, session_id)"
                " DO UPDATE SET text = excluded.text, built_at = excluded.built_at",
                (tenant, agent_id, session_id, text, built_at.isoformat()),
            )

    def session_index(self, tenant: str, agent_id: str, session_id: str) -> str | None:
        row = (
            self.db.read()
            .execute(
                "SELECT text FROM session_index WHERE tenant = ? AND agent_id = ? AND session_id = ?",
                (tenant, agent_id, session_id),
            )
            .fetchone()
        )
        return str(row[0]) if row else None

    def preview_files(self, tenant: str, agent_id: str) -> list[PreviewFile]:
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM preview_files WHERE tenant = ? AND agent_id = ? ORDER BY path",
                (tenant, agent_id),
            )
            .fetchall()
        )
        return [PreviewFile.model_validate_json(row[0]) for row in rows]

    def tenant_limits(self, tenant: str) -> TenantLimits | None:
        # Read by every commit: a batch's commits read it once (Database.batch_memo).
        return self.db.memoized(("tenant_limits", tenant), lambda: self._read_tenant_limits(tenant))

    def _read_tenant_limits(self, tenant: str) -> TenantLimits | None:
        row = (
            self.db.read()
            .execute("SELECT doc FROM tenant_limits WHERE tenant = ?", (tenant,))
            .fetchone()
        )
        return TenantLimits.model_validate_json(row[0]) if row else None

    def save_tenant_limits(self, tenant: str, limits: TenantLimits) -> None:
        self.db.forget_memo()
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO tenant_limits (tenant, doc) VALUES (?, ?)"
                " ON CONFLICT (tenant) DO UPDATE SET doc = excluded.doc",
                (tenant, limits.model_dump_json()),
            )


def _values(head: FileMemory) -> tuple[object, ...]:
    return (
        head.path,
        head.content,
        head.bytes,
        head.content_sha256,
        head.description,
        head.version,
        head.updated_at.isoformat(),
        head.updated_by,
    )


def _head(tenant: str, agent_id: str, row: sqlite3.Row) -> FileMemory:
    return FileMemory(
        tenant=tenant,
        agent_id=agent_id,
        path=row[0],
        content=row[1],
        bytes=row[2],
        content_sha256=row[3],
        description=row[4],
        version=row[5],
        updated_at=datetime.fromisoformat(row[6]),
        updated_by=row[7],
    )
