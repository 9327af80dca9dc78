"""`client.agent_manifests` against the embedded server over real HTTP: the file-memory spec's
`agentManifests.save(document)` then `agents.put(id, {"manifest": name})`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_memory.client import ApiError, Client, ClientError

pytestmark = pytest.mark.e2e

RELEASES = {
    "$schema": "https://example.com/schemas/agent-manifest/v8.json",
    "name": "sdk-releases",
    "harness": {
        "instructions": ["Help the team ship releases."],
        "memory": {"access": "read_write", "instructions": "Keep the team's release conventions."},
    },
}


@pytest.fixture
def client(module_server) -> Iterator[Client]:
    token = (module_server.data_dir / "token").read_text().strip()
    with Client(module_server.url, token) as made:
        yield made


def test_save_a_named_manifest_and_have_an_agent_follow_it(client):
    # Given the spec's document saved by name (its $schema left out) and an agent following it
    saved = client.agent_manifests.save(RELEASES)
    assert (saved.name, saved.version) == ("sdk-releases", 1)
    assert "$schema" not in saved.manifest and "name" not in saved.manifest
    agent = client.agents.put("teams/web/sdk-releases", {"manifest": "sdk-releases"})
    assert agent.manifest["manifest"] == {"name": "sdk-releases", "version": 1}

    # When a new version is saved
    changed = {**RELEASES, "harness": {**RELEASES["harness"], "instructions": ["Tuesdays."]}}
    assert client.agent_manifests.save(changed).version == 2

    # Then the agent runs it, and the SDK reads the name, its versions and the list
    moved = client.agents.get("teams/web/sdk-releases")
    assert (moved.manifest_version, moved.manifest["harness"]["instructions"]) == (2, ["Tuesdays."])
    assert client.agent_manifests.get("sdk-releases").version == 2
    assert [v.version for v in client.agent_manifests.versions("sdk-releases").items] == [2, 1]
    assert "sdk-releases" in [m.name for m in client.agent_manifests.list().items]
    with pytest.raises(ApiError) as refused:
        client.agent_manifests.delete("sdk-releases")
    assert refused.value.code == "manifest_in_use"
    client.agents.delete("teams/web/sdk-releases")
    client.agent_manifests.delete("sdk-releases")


def test_a_document_without_a_name_is_refused_before_sending(client):
    with pytest.raises(ClientError) as refused:
        client.agent_manifests.save({"harness": {}})
    assert refused.value.code == "invalid_manifest_name"
