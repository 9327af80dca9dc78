"""The embedded server's gateway: requests in flight together never share the resolver's state."""

from __future__ import annotations

import threading

import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.local.gateway import LocalGateway
from agent_memory.local.tokens import ALL_SCOPES, TokenBook, TokenGrant
from agent_memory.settings import Settings
from apiclient import wsgi_request as request

pytestmark = pytest.mark.integration


def test_a_request_paused_in_its_route_keeps_its_own_caller(tmp_path, monkeypatch):
    from agent_memory.api.routes import agents as agent_routes

    # acme's listing pauses in its route just before it reads who is calling, until globex's
    # request is through: requests are resolved at once, each with its own state (Powertools'
    # resolver alone holds the event it handles in process-wide state).
    armed, inside, other_done = threading.Event(), threading.Event(), threading.Event()
    overlapped: list[bool] = []
    real_caller_of = agent_routes.caller_of

    def pausing_caller_of(router, claim):
        who = real_caller_of(router, claim)

        def caller():
            if armed.is_set():
                armed.clear()
                inside.set()
                overlapped.append(other_done.wait(10.0))
            return who()

        return caller

    monkeypatch.setattr(agent_routes, "caller_of", pausing_caller_of)
    services = build_services(Settings(data_dir=tmp_path), embedder=None, model=None)
    book = TokenBook(
        {"tok-acme": TokenGrant("acme", ALL_SCOPES), "tok-globex": TokenGrant("globex", ALL_SCOPES)}
    )
    gateway = LocalGateway(Api(services), book, "tenant")
    assert request(gateway, "tok-acme", "PUT", "/v1/agents/teams/acme", {})[0] == 201
    assert request(gateway, "tok-globex", "PUT", "/v1/agents/teams/globex", {})[0] == 201

    results = {}

    def acme() -> None:
        results["acme"] = request(gateway, "tok-acme", "GET", "/v1/agents")

    armed.set()
    first = threading.Thread(target=acme)
    first.start()
    assert inside.wait(5)
    results["globex"] = request(gateway, "tok-globex", "GET", "/v1/agents")
    other_done.set()
    first.join(10)

    # globex's request was answered while acme's waited inside its route, and each saw its own
    # tenant's agents only.
    assert overlapped == [True]
    for tenant in ("acme", "globex"):
        status, body = results[tenant]
        assert status == 200, body
        assert [a["id"] for a in body["agents"]] == [f"teams/{tenant}"]


@pytest.fixture
def gateway(tmp_path):
    services = build_services(Settings(data_dir=tmp_path), embedder=None, model=None)
    gateway = LocalGateway(
        Api(services), TokenBook({"tok": TokenGrant("acme", ALL_SCOPES)}), "tenant"
    )
    assert request(gateway, "tok", "PUT", "/v1/agents/teams/acme", {})[0] == 201
    return gateway


def test_a_path_outside_ascii_names_the_memory_it_says(gateway):
    memories = "/v1/agents/teams/acme/-/memories"
    status, body = request(gateway, "tok", "PUT", f"{memories}/café.md", {"content": "crème\n"})
    assert (status, body["path"]) == (201, "/memories/café.md")
    assert request(gateway, "tok", "GET", f"{memories}/café.md")[1]["content"] == "crème\n"


def test_a_path_that_is_not_utf8_is_a_400(gateway):
    # \udce9 carries the lone byte 0xE9 (latin-1 "é"), which is no UTF-8.
    status, body = request(gateway, "tok", "GET", "/v1/agents/teams/acme/-/memories/caf\udce9.md")
    assert (status, body["error"]["code"]) == (400, "invalid_path")


def test_a_body_that_is_not_utf8_is_a_400_and_writes_nothing(gateway):
    memories = "/v1/agents/teams/acme/-/memories"
    status, body = request(gateway, "tok", "PUT", f"{memories}/a.md", b'{"content": "caf\xe9"}')
    assert (status, body["error"]["code"]) == (400, "invalid_request")
    assert "UTF-8" in body["error"]["message"]
    assert request(gateway, "tok", "GET", f"{memories}/a.md")[0] == 404
