"""Agent ids as plain path segments, the `/-/` separator, and the ids the service makes."""

import time

import pytest

from agent_memory.api.paths import (
    agent_id_from,
    external,
    normalize,
    normalize_event,
    route_template,
)
from agent_memory.domain.kernel.errors import InvalidRequest
from agent_memory.domain.kernel.ids import new_id, validate_agent_id, validate_opaque_id

pytestmark = pytest.mark.unit

IDS = ["releases", "teams/web", "teams/web/releases", "a/b/c/d", "org.x/team_1/a~b/c-d/e"]


@pytest.mark.parametrize("agent_id", IDS)
def test_ids_of_one_to_five_segments_route_and_come_back_whole(agent_id):
    assert normalize(f"/v1/agents/{agent_id}").count("/") == 3
    routed = normalize(f"/v1/agents/{agent_id}/-/sessions/s1/turns")
    _, v1, agents, raw_id, rest = routed.split("/", 4)
    assert (v1, agents, rest) == ("v1", "agents", "sessions/s1/turns")
    assert agent_id_from(raw_id) == agent_id


def test_paths_outside_agents_are_left_alone():
    assert normalize("/v1/openapi.json") == "/v1/openapi.json"
    assert normalize("/v1/agents") == "/v1/agents"


def test_a_named_stage_prefix_is_kept():
    event = {"rawPath": "/prod/v1/agents/a/b/-/sessions", "requestContext": {"stage": "prod"}}
    assert normalize_event(event)["rawPath"] == "/prod/v1/agents/a%2Fb/sessions"


def test_the_caller_path_stays_in_the_request_context():
    event = {"rawPath": "/v1/agents/a/b", "requestContext": {"http": {"path": "/v1/agents/a/b"}}}
    assert normalize_event(event)["requestContext"]["http"]["path"] == "/v1/agents/a/b"


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "a//b",
        "a/",
        "/a",
        "a/-/b",
        "-",
        "a/../b",
        "a b",
        "a/%2F",
        "x" * 257,
        "/".join(["s"] * 11),
        "a/.hidden",
    ],
)
def test_malformed_agent_ids_are_400(bad):
    with pytest.raises(InvalidRequest) as caught:
        validate_agent_id(bad)
    assert caught.value.code == "invalid_agent_id"


def test_openapi_paths_use_the_public_scheme():
    assert external("/v1/agents/{agent_id}") == "/v1/agents/{agentId}"
    assert external("/v1/agents/{agent_id}/sessions") == "/v1/agents/{agentId}/-/sessions"
    assert external("/v1/agents") == "/v1/agents"


def test_request_log_routes_read_as_callers_write_them_with_no_id_or_path():
    # Given the resolver's route templates
    # Then the request log shows each as a caller writes it, the agent's resources after /-/
    assert route_template("/v1/agents/<agent_id>") == "/v1/agents/<agent_id>"
    assert route_template("/v1/agents/<agent_id>/sessions") == "/v1/agents/<agent_id>/-/sessions"
    assert (
        route_template("/v1/agents/<agent_id>/memories/<path>")
        == "/v1/agents/<agent_id>/-/memories/<path>"
    )
    assert route_template("/healthz") == "/healthz"


def test_new_ids_sort_by_creation_time_and_are_valid():
    ids = [new_id("ses") for _ in range(200)]
    assert len(set(ids)) == 200
    assert all(validate_opaque_id(i, "session") == i for i in ids)
    first = new_id("x")
    time.sleep(0.002)
    assert first < new_id("x")


@pytest.mark.parametrize("bad", ["", "has space", "-lead", "a/b", "x" * 129])
def test_malformed_opaque_ids_are_400(bad):
    with pytest.raises(InvalidRequest):
        validate_opaque_id(bad, "session")
