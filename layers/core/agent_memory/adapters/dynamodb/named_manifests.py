"""Named manifests on DynamoDB (a mixin of DynamoStore), mirroring SqliteNamedManifests: the
head under the tenant's `NM` partition, each version in the name's own partition, both written
in one transaction."""

from __future__ import annotations

import json
from functools import cached_property

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.exceptions import DeleteError

from ...domain.kernel.errors import PreconditionFailed
from ...domain.manifests.named_manifests import NamedManifest, NamedManifestVersion
from . import keys
from .item_base import Item
from .items import Items
from .transactions import ConditionsFailed, Transaction, is_condition_failure, storage_errors


class NamedManifestItem(Item):
    """A named manifest's head or one of its versions, kept whole as JSON `doc`."""

    version = NumberAttribute()
    doc = UnicodeAttribute()


class DynamoNamedManifests:
    _items: Items

    @cached_property
    def _named(self) -> type[NamedManifestItem]:
        # Bound to this store's table and sharing its one connection.
        meta = self._items.item.Meta
        bound = type("NamedManifestItem", (NamedManifestItem,), {"Meta": meta})
        bound._connection = self._items.item._get_connection()
        return bound

    def save_named_manifest(
        self, tenant: str, head: NamedManifest, expected_version: int | None
    ) -> None:
        model = self._named
        item = model(
            keys.named_manifests_pk(tenant),
            keys.named_manifest_sk(head.name),
            version=head.version,
            doc=head.model_dump_json(),
        )
        version = NamedManifestVersion(
            name=head.name, version=head.version, manifest=head.manifest, created_at=head.updated_at
        )
        version_item = model(
            keys.named_manifest_versions_pk(tenant, head.name),
            keys.named_manifest_version_sk(head.version),
            version=head.version,
            doc=version.model_dump_json(),
        )
        current = (
            model.pk.does_not_exist()
            if expected_version is None
            else model.version == expected_version
        )
        try:
            with Transaction(self._items.connection) as tx:
                tx.put("head", item, current)
                tx.put("version", version_item, model.pk.does_not_exist())
        except ConditionsFailed as exc:
            raise PreconditionFailed(f"manifest {head.name!r} changed concurrently") from exc

    def get_named_manifest(self, tenant: str, name: str) -> NamedManifest | None:
        with storage_errors():
            try:
                item = self._named.get(
                    keys.named_manifests_pk(tenant),
                    keys.named_manifest_sk(name),
                    consistent_read=True,
                )
            except self._named.DoesNotExist:
                return None
        return _head(tenant, item.doc)

    def list_named_manifests(
        self, tenant: str, limit: int, after: str | None
    ) -> list[NamedManifest]:
        model = self._named
        bound = (
            model.sk > keys.named_manifest_sk(after)
            if after
            else model.sk.startswith(keys.NAMED_MANIFEST)
        )
        with storage_errors():
            found = model.query(
                keys.named_manifests_pk(tenant), bound, consistent_read=True, limit=limit
            )
            return [_head(tenant, item.doc) for item in found]

    def get_named_manifest_version(
        self, tenant: str, name: str, version: int
    ) -> NamedManifestVersion | None:
        with storage_errors():
            try:
                item = self._named.get(
                    keys.named_manifest_versions_pk(tenant, name),
                    keys.named_manifest_version_sk(version),
                    consistent_read=True,
                )
            except self._named.DoesNotExist:
                return None
        return NamedManifestVersion.model_validate_json(item.doc)

    def list_named_manifest_versions(
        self, tenant: str, name: str, limit: int, before: int | None
    ) -> list[NamedManifestVersion]:
        model = self._named
        bound = (
            model.sk < keys.named_manifest_version_sk(before)
            if before is not None
            else model.sk.startswith(keys.NAMED_MANIFEST_VERSION)
        )
        with storage_errors():
            found = model.query(
                keys.named_manifest_versions_pk(tenant, name),
                bound,
                consistent_read=True,
                scan_index_forward=False,
                limit=limit,
            )
            return [NamedManifestVersion.model_validate_json(item.doc) for item in found]

    def delete_named_manifest(self, tenant: str, name: str) -> bool:
        model = self._named
        head = model(keys.named_manifests_pk(tenant), keys.named_manifest_sk(name))
        with storage_errors():
            try:
                head.delete(model.pk.exists())
            except DeleteError as exc:
                if is_condition_failure(exc):
                    return False
                raise
            # The head goes first: from then on the name reads as absent, and a save starts
            # again at version 1 only once its old versions are gone.
            with model.batch_write() as batch:
                for item in model.query(keys.named_manifest_versions_pk(tenant, name)):
                    batch.delete(item)
        return True


def _head(tenant: str, doc: str) -> NamedManifest:
    return NamedManifest.model_validate({**json.loads(doc), "tenant": tenant})
