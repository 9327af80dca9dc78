"""`client.agent_manifests`: named manifests, which agents follow with
`client.agents.put(agent_id, {"manifest": name})`.

Return annotations name what the sync `Client` returns; `AsyncClient` returns the same value
through an awaitable."""

from __future__ import annotations

from functools import partial
from typing import Any
from urllib.parse import quote

from pydantic import Field

from ..domain.manifests import named_manifests as domain
from ..domain.manifests.named_manifests import NamedManifestVersion
from .calls import Area, Call, params
from .errors import ClientError
from .models import Page, from_wire, page_of


class NamedManifest(domain.NamedManifest):
    tenant: str = Field(default="", exclude=True)


def manifest_path(name: str) -> str:
    # A name is one segment: quoted whole, so a slash or a dot segment never reaches another route.
    return "/v1/agent-manifests/" + quote(name, safe="")


class AgentManifests(Area):
    def save(self, document: dict[str, Any], name: str | None = None) -> NamedManifest:
        """Save `document` (`{"name", "harness", ...}`) as the next version of its name (or of
        `name`); every agent that follows the name moves to it. `$schema` is left out."""
        chosen = name or document.get("name")
        if not isinstance(chosen, str) or not chosen:
            raise ClientError(
                None,
                "invalid_manifest_name",
                'a named manifest needs a name: document["name"] or name=',
            )
        body = {k: v for k, v in document.items() if k not in ("$schema", "name")}
        call = Call("PUT", manifest_path(chosen), partial(from_wire, NamedManifest), body)
        return self._run(call)

    def get(self, name: str) -> NamedManifest:
        return self._run(Call("GET", manifest_path(name), partial(from_wire, NamedManifest)))

    def list(self, limit: int | None = None, cursor: str | None = None) -> Page[NamedManifest]:
        return self._run(
            Call(
                "GET",
                "/v1/agent-manifests",
                partial(page_of, NamedManifest, "manifests"),
                query=params(limit=limit, cursor=cursor),
            )
        )

    def versions(
        self, name: str, limit: int | None = None, cursor: str | None = None
    ) -> Page[NamedManifestVersion]:
        return self._run(
            Call(
                "GET",
                manifest_path(name) + "/versions",
                partial(page_of, NamedManifestVersion, "versions"),
                query=params(limit=limit, cursor=cursor),
            )
        )

    def delete(self, name: str) -> None:
        return self._run(Call[None]("DELETE", manifest_path(name)))
