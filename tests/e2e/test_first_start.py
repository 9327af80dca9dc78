"""A newcomer's first minutes with the embedded server: the version, the health check, the
request log, and a model that is loaded before the first search needs it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def request_lines(output: str) -> list[dict[str, object]]:
    """The server log's request lines, parsed (every other line is left alone)."""
    lines = []
    for line in output.splitlines():
        if line.startswith("{") and '"msg":"request"' in line:
            lines.append(json.loads(line))
    return lines


def get(url: str, token: str | None = None) -> tuple[int, dict[str, object]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_version_prints_the_package_version():
    # Given the version pyproject.toml gives the package
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    # When a user asks the CLI for its version
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # Then it prints that version and exits 0, starting nothing
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"agent-memory {version}"


def test_healthz_answers_without_a_token_and_holds_no_data(server):
    # Given a server holding an agent
    client = server.client()
    client.put_agent("teams/web/releases", {"harness": {"memory": {"enabled": True}}})
    # When the health check is asked without a token, and with a wrong one
    anonymous = get(server.url + "/healthz")
    wrong = get(server.url + "/healthz", "not-a-token")
    # Then both are 200 with the status and the version, and nothing of the tenant's data
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert anonymous == wrong == (200, {"status": "ok", "version": version})
    # And the API's own routes still need the token
    assert get(server.url + "/v1/agents")[0] == 401
    # And the OpenAPI document lists it as the one public operation
    document = get(server.url + "/v1/openapi.json")[1]
    operation = document["paths"]["/healthz"]["get"]  # type: ignore[index]
    assert operation["security"] == []
    public = [
        path
        for path, item in document["paths"].items()  # type: ignore[attr-defined]
        for op in item.values()
        if op.get("security") == []
    ]
    assert public == ["/healthz"]


def test_each_request_is_one_json_line_with_its_route_template_and_no_secret(server):
    # Given a server and its token
    client = server.client()
    token = (server.data_dir / "token").read_text().strip()
    agent = "teams/web/releases"
    secret = "Deploy key is hunter2-not-for-logs"
    # When a client makes an agent, a session, a memory holding a secret and a search for it,
    # and someone calls with a wrong token and a path no route serves
    client.put_agent(agent, {"harness": {"memory": {"enabled": True}}})
    session = client.create_session(agent, metadata={"note": secret})["id"]
    client.put_memory(agent, "deploy/keys.md", secret)
    client.list_records(agent, query=secret)
    assert get(server.url + "/v1/agents", "wrong-token")[0] == 401
    assert get(server.url + "/v1/nowhere", token)[0] == 404
    # Then the log holds one JSON line per request, each with the method, the route's
    # template, the status, the milliseconds and the tenant
    deadline = time.monotonic() + 5
    while len(request_lines(server.output)) < 7 and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = request_lines(server.output)
    seen = [(line["method"], line["route"], line["status"], line["tenant"]) for line in lines]
    assert seen[-6:] == [
        ("PUT", "/v1/agents/<agent_id>", 201, "default"),
        ("POST", "/v1/agents/<agent_id>/-/sessions", 201, "default"),
        ("PUT", "/v1/agents/<agent_id>/-/memories/<path>", 201, "default"),
        ("GET", "/v1/agents/<agent_id>/-/records", 200, "default"),
        ("GET", None, 401, None),
        ("GET", None, 404, "default"),
    ]
    assert all(isinstance(line["ms"], float | int) and line["ms"] >= 0 for line in lines)
    # And no line holds the token, the agent id, the session, a path, a query or a body
    logged = "\n".join(json.dumps(line) for line in lines)
    for never in (token, "teams/web/releases", session, "deploy/keys.md", "hunter2", "query="):
        assert never not in logged
    assert "hunter2" not in server.output


def test_the_embedding_model_loads_at_start_before_any_search(server):
    # Given a server just started (asked for nothing but its OpenAPI document)
    # When it has been up a moment
    deadline = time.monotonic() + 30
    while "embedding model loaded" not in server.output and time.monotonic() < deadline:
        time.sleep(0.05)
    # Then the model was loaded by the server itself, before any request searched
    assert "embedding model loaded" in server.output
    assert not [
        line for line in request_lines(server.output) if line["route"] != "/v1/openapi.json"
    ]
    # And the first search finds it loaded: it does not load the model again
    client = server.client()
    client.put_agent("teams/web/releases", {"harness": {"memory": {"enabled": True}}})
    client.list_records("teams/web/releases", query="when do we ship")
    assert server.output.count("embedding model loaded") == 1
