"""A named manifest, its versions, and the store port that keeps them."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any

from pydantic import Field

from ..kernel.errors import InvalidRequest
from ..kernel.models import Entity

# A name travels as one URL segment and in an agent's manifest: lower-case words and digits
# joined by `-`, `_` or `.`.
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,127}$")
# The key of an agent's manifest that names the named manifest it follows: a name in a PUT
# body, `{"name", "version"}` in every version saved from it.
FOLLOWS = "manifest"


def validate_manifest_name(name: str) -> str:
    if not _NAME.match(name):
        raise InvalidRequest(
            f"manifest name {name!r} is not allowed: 1 to 128 of a-z 0-9 . _ - starting "
            "with a letter or digit",
            code="invalid_manifest_name",
        )
    return name


class NamedManifest(Entity):
    """The current version of a named manifest."""

    tenant: str = Field(exclude=True)
    name: str
    version: int
    manifest: dict[str, Any]
    created_at: datetime = Field(serialization_alias="createdAt")
    updated_at: datetime = Field(serialization_alias="updatedAt")


class NamedManifestVersion(Entity):
    name: str
    version: int
    manifest: dict[str, Any]
    created_at: datetime = Field(serialization_alias="createdAt")


class NamedManifestStore(ABC):
    """Named manifests of a tenant and every version of each."""

    @abstractmethod
    def save_named_manifest(
        self, tenant: str, head: NamedManifest, expected_version: int | None
    ) -> None:
        """Write `head` and its version together: as a new name when `expected_version` is
        None, else only while the current version is `expected_version` (PreconditionFailed
        otherwise, nothing written)."""

    @abstractmethod
    def get_named_manifest(self, tenant: str, name: str) -> NamedManifest | None: ...

    @abstractmethod
    def list_named_manifests(
        self, tenant: str, limit: int, after: str | None
    ) -> list[NamedManifest]:
        """In name order, names after `after`."""

    @abstractmethod
    def get_named_manifest_version(
        self, tenant: str, name: str, version: int
    ) -> NamedManifestVersion | None: ...

    @abstractmethod
    def list_named_manifest_versions(
        self, tenant: str, name: str, limit: int, before: int | None
    ) -> list[NamedManifestVersion]:
        """Newest first, versions below `before`."""

    @abstractmethod
    def delete_named_manifest(self, tenant: str, name: str) -> bool:
        """Delete the name with all its versions; False if there was none."""
