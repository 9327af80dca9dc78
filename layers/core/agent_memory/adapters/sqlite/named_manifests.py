"""Named manifests on SQLite (a mixin of SqliteStore): a head a name, and each version."""

from __future__ import annotations

import json

from ...domain.kernel.errors import PreconditionFailed
from ...domain.manifests.named_manifests import NamedManifest, NamedManifestVersion
from .database import Database


def _head(tenant: str, doc: str) -> NamedManifest:
    return NamedManifest.model_validate({**json.loads(doc), "tenant": tenant})


def _version_of(head: NamedManifest) -> NamedManifestVersion:
    return NamedManifestVersion(
        name=head.name, version=head.version, manifest=head.manifest, created_at=head.updated_at
    )


class SqliteNamedManifests:
    db: Database

    def save_named_manifest(
        self, tenant: str, head: NamedManifest, expected_version: int | None
    ) -> None:
        doc = head.model_dump_json()
        with self.db.write() as conn:
            if expected_version is None:
                changed = conn.execute(
                    "INSERT INTO named_manifests (tenant, name, version, doc) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (tenant, head.name, head.version, doc),
                ).rowcount
            else:
                changed = conn.execute(
                    "UPDATE named_manifests SET version = ?, doc = ? WHERE tenant = ? AND name = ?"
                    " AND version = ?",
                    (head.version, doc, tenant, head.name, expected_version),
                ).rowcount
            if changed != 1:
                raise PreconditionFailed(f"manifest {head.name!r} changed concurrently")
            conn.execute(
                "INSERT INTO named_manifest_versions (tenant, name, version, doc)"
                " VALUES (?, ?, ?, ?)",
                (tenant, head.name, head.version, _version_of(head).model_dump_json()),
            )

    def get_named_manifest(self, tenant: str, name: str) -> NamedManifest | None:
        row = (
            self.db.read()
            .execute(
                "SELECT doc FROM named_manifests WHERE tenant = ? AND name = ?", (tenant, name)
            )
            .fetchone()
        )
        return _head(tenant, row[0]) if row else None

    def list_named_manifests(
        self, tenant: str, limit: int, after: str | None
    ) -> list[NamedManifest]:
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM named_manifests WHERE tenant = ? AND name > ? ORDER BY name"
                " LIMIT ?",
                (tenant, after or "", limit),
            )
            .fetchall()
        )
        return [_head(tenant, r[0]) for r in rows]

    def get_named_manifest_version(
        self, tenant: str, name: str, version: int
    ) -> NamedManifestVersion | None:
        row = (
            self.db.read()
            .execute(
                "SELECT doc FROM named_manifest_versions WHERE tenant = ? AND name = ?"
                " AND version = ?",
                (tenant, name, version),
            )
            .fetchone()
        )
        return NamedManifestVersion.model_validate_json(row[0]) if row else None

    def list_named_manifest_versions(
        self, tenant: str, name: str, limit: int, before: int | None
    ) -> list[NamedManifestVersion]:
        rows = (
            self.db.read()
            .execute(
                "SELECT doc FROM named_manifest_versions WHERE tenant = ? AND name = ?"
                " AND version < ? ORDER BY version DESC LIMIT ?",
                (tenant, name, before if before is not None else 2**62, limit),
            )
            .fetchall()
        )
        return [NamedManifestVersion.model_validate_json(r[0]) for r in rows]

    def delete_named_manifest(self, tenant: str, name: str) -> bool:
        with self.db.write() as conn:
            deleted = conn.execute(
                "DELETE FROM named_manifests WHERE tenant = ? AND name = ?", (tenant, name)
            ).rowcount
            conn.execute(
                "DELETE FROM named_manifest_versions WHERE tenant = ? AND name = ?", (tenant, name)
            )
        return deleted == 1
