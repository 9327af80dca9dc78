"""The embedded server's gateway: requests in flight together never share the resolver's state."""

from __future__ import annotations

import json
import threading

import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.domain.kernel.auth import ALL_SCOPES
from agent_memory.local.gateway import LocalGateway
from agent_memory.local.tokens import TokenBook, TokenGrant
from agent_memory.settings import Settings
from apiclient import wsgi_request

pytestmark = pytest.mark.integration


def request(gateway, token: str, method: str, path: str, body: dict | bytes | None = None):
    status, payload = wsgi_request(gateway, token, method, path, body)
    return status, json.loads(payload or b"null")


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
    book = TokenBook.of_tokens(
        {"tok-acme": TokenGrant("acme", ALL_SCOPES), "tok-globex": TokenGrant("globex", ALL_SCOPES)}
    )
    gateway = LocalGateway(Api(services), book, "tenant")
    assert request(gateway, "tok-acme", "PUT", "/v1/agents/teams/acme", {"harness": {}})[0] == 201
    assert (
        request(gateway, "tok-globex", "PUT", "/v1/agents/teams/globex", {"harness": {}})[0] == 201
    )

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
        Api(services), TokenBook.of_tokens({"tok": TokenGrant("acme", ALL_SCOPES)}), "tenant"
    )
    assert request(gateway, "tok", "PUT", "/v1/agents/teams/acme", {"harness": {}})[0] == 201
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


def test_a_token_past_its_rate_is_a_429_with_retry_after_and_others_go_on(tmp_path):
    from agent_memory.local.limits import RateLimiter

    services = build_services(Settings(data_dir=tmp_path), embedder=None, model=None)
    book = TokenBook.of_tokens(
        {"tok-a": TokenGrant("acme", ALL_SCOPES, "a"), "tok-b": TokenGrant("acme", ALL_SCOPES, "b")}
    )
    gateway = LocalGateway(
        Api(services),
        book,
        "tenant",
        per_token=RateLimiter(per_minute=6, burst=2),
        failed_auth=RateLimiter(per_minute=6, burst=2),
    )
    answers = []

    def seen(env, start):
        return gateway(
            env, lambda status, headers: start(status, answers.append(headers) or headers)
        )

    assert [wsgi_request(seen, "tok-a", "GET", "/v1/agents")[0] for _ in range(3)] == [
        200,
        200,
        429,
    ]
    assert dict(answers[-1])["Retry-After"] == "10"
    assert request(gateway, "tok-b", "GET", "/v1/agents")[0] == 200
    # Guessing tokens: two misses, then the address waits; a good token from it does not.
    assert [request(gateway, "guess", "GET", "/v1/agents")[0] for _ in range(3)] == [401, 401, 429]
    assert request(gateway, "tok-b", "GET", "/v1/agents")[0] == 200


def test_tokenless_requests_from_an_address_never_lock_out_a_valid_token_from_it(tmp_path):
    from agent_memory.local.limits import RateLimiter
    from agent_memory.local.server import FAILED_AUTH_PER_MINUTE

    # Given the server's limit on requests without a valid token (30 a minute per address)
    services = build_services(Settings(data_dir=tmp_path), embedder=None, model=None)
    book = TokenBook.of_tokens({"tok-a": TokenGrant("acme", ALL_SCOPES, "a")})
    gateway = LocalGateway(
        Api(services),
        book,
        "tenant",
        failed_auth=RateLimiter(FAILED_AUTH_PER_MINUTE, FAILED_AUTH_PER_MINUTE),
    )
    # When another process on the same address sends 40 requests without a token
    tokenless = [request(gateway, "", "GET", "/v1/agents")[0] for _ in range(40)]
    # Then the first 30 are 401 and the rest 429
    assert tokenless == [401] * 30 + [429] * 10
    # And a valid token from that address is served, again and again
    assert [request(gateway, "tok-a", "GET", "/v1/agents")[0] for _ in range(5)] == [200] * 5
    # While requests without a valid token (none, or a wrong one) still wait
    assert request(gateway, "", "GET", "/v1/agents")[0] == 429
    assert request(gateway, "tok-wrong", "GET", "/v1/agents")[0] == 429


def test_a_missing_and_an_unknown_token_are_told_apart_and_both_are_401(gateway):
    # When a request comes with no token, and with one the server does not know
    missing = request(gateway, "", "GET", "/v1/agents")
    unknown = request(gateway, "tok-of-nobody", "GET", "/v1/agents")
    # Then both are 401, each saying what to do, and neither names a tenant or an agent
    assert missing == (
        401,
        {
            "error": {
                "code": "unauthorized",
                "message": "no API token: send the header Authorization: Bearer <token> "
                "(the embedded server's is in <data-dir>/token)",
            }
        },
    )
    assert unknown == (
        401,
        {
            "error": {
                "code": "unauthorized",
                "message": "the API token is not recognised (unknown, revoked or expired): "
                "send one from <data-dir>/token or `agent-memory token create`",
            }
        },
    )
    for _, body in (missing, unknown):
        assert "acme" not in json.dumps(body)
