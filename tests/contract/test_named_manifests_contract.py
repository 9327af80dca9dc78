"""The named manifests port's contract: every test runs against SqliteStore and DynamoStore
(under moto)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from agent_memory.domain.kernel.errors import PreconditionFailed
from agent_memory.domain.kernel.models import utcnow
from agent_memory.domain.manifests.named_manifests import NamedManifest, NamedManifestVersion
from agent_memory.domain.store import Store

pytestmark = pytest.mark.contract

NOW = utcnow()


def head(name: str, version: int, tenant: str = "acme") -> NamedManifest:
    return NamedManifest(
        tenant=tenant,
        name=name,
        version=version,
        manifest={"harness": {"instructions": [f"{name} v{version}"]}},
        created_at=NOW,
        updated_at=NOW + timedelta(seconds=version),
    )


def as_version(saved: NamedManifest) -> NamedManifestVersion:
    return NamedManifestVersion(
        name=saved.name,
        version=saved.version,
        manifest=saved.manifest,
        created_at=saved.updated_at,
    )


def test_a_name_saved_twice_keeps_its_head_and_both_versions(store: Store) -> None:
    store.save_named_manifest("acme", head("releases", 1), None)
    store.save_named_manifest("acme", head("releases", 2), 1)

    assert store.get_named_manifest("acme", "releases") == head("releases", 2)
    assert store.list_named_manifest_versions("acme", "releases", 10, None) == [
        as_version(head("releases", 2)),
        as_version(head("releases", 1)),
    ]
    assert store.list_named_manifest_versions("acme", "releases", 10, 2) == [
        as_version(head("releases", 1))
    ]
    assert store.get_named_manifest_version("acme", "releases", 1) == as_version(
        head("releases", 1)
    )
    assert store.get_named_manifest_version("acme", "releases", 3) is None


def test_a_stale_or_duplicate_save_changes_nothing(store: Store) -> None:
    store.save_named_manifest("acme", head("releases", 1), None)

    with pytest.raises(PreconditionFailed):
        store.save_named_manifest("acme", head("releases", 1), None)  # the name exists
    with pytest.raises(PreconditionFailed):
        store.save_named_manifest("acme", head("releases", 3), 2)  # not at version 2

    assert store.get_named_manifest("acme", "releases") == head("releases", 1)
    assert [
        v.version for v in store.list_named_manifest_versions("acme", "releases", 10, None)
    ] == [1]


def test_names_list_in_order_by_tenant_and_page_with_after(store: Store) -> None:
    for name in ("gamma", "alpha", "beta"):
        store.save_named_manifest("acme", head(name, 1), None)
    store.save_named_manifest("globex", head("delta", 1, "globex"), None)

    assert [m.name for m in store.list_named_manifests("acme", 10, None)] == [
        "alpha",
        "beta",
        "gamma",
    ]
    assert [m.name for m in store.list_named_manifests("acme", 1, "alpha")] == ["beta"]
    assert store.get_named_manifest("globex", "alpha") is None
    assert [m.name for m in store.list_named_manifests("globex", 10, None)] == ["delta"]


def test_delete_removes_the_name_and_its_versions(store: Store) -> None:
    store.save_named_manifest("acme", head("releases", 1), None)
    store.save_named_manifest("acme", head("releases", 2), 1)

    assert store.delete_named_manifest("acme", "releases") is True
    assert store.delete_named_manifest("acme", "releases") is False

    assert store.get_named_manifest("acme", "releases") is None
    assert store.list_named_manifest_versions("acme", "releases", 10, None) == []
    store.save_named_manifest("acme", head("releases", 1), None)  # starts over
    assert store.get_named_manifest("acme", "releases") == head("releases", 1)
