"""The web console's files: public at `/` and `/console/<name>` in both shapes (the API function's
resolver serves them, and the embedded gateway lets them through without a token), while every
API route still needs one."""

from __future__ import annotations

import io

import pytest

from agent_memory.api.app import Api
from agent_memory.api.routes.console import assets
from agent_memory.bootstrap import build_services
from agent_memory.local.gateway import LocalGateway
from agent_memory.local.tokens import TokenBook
from agent_memory.settings import Settings
from apiclient import http_event

pytestmark = pytest.mark.integration


@pytest.fixture
def api(tmp_path) -> Api:
    return Api(build_services(Settings(data_dir=tmp_path, embeddings="none")))


def get(api: Api, path: str, headers: dict[str, str] | None = None) -> dict:
    # No authorizer claims: API Gateway sends none on a route whose authorizer is NONE.
    event = http_event("GET", path, tenant=None)
    event["headers"] = {**event["headers"], **(headers or {})}
    return api.handle(event, None)


def test_the_page_is_served_at_the_root_without_a_token(api):
    # Given the package's built console, when / is asked for with no token
    answer = get(api, "/")
    # Then it is the page, with a policy that lets nothing but its own files run or load
    assert answer["statusCode"] == 200
    assert answer["headers"]["Content-Type"] == "text/html; charset=utf-8"
    assert '<script type="module" src="console/app.js">' in answer["body"]
    policy = answer["headers"]["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    assert answer["headers"]["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize(
    ("name", "kind"),
    [("app.js", "text/javascript; charset=utf-8"), ("style.css", "text/css; charset=utf-8")],
)
def test_the_script_and_styles_are_served_under_console(api, name, kind):
    answer = get(api, "/console/" + name)
    assert answer["statusCode"] == 200
    assert answer["headers"]["Content-Type"] == kind
    assert answer["body"] == assets()[name].body
    assert answer["headers"]["Cache-Control"] == "no-cache"


def test_an_unchanged_file_is_a_304_without_its_body(api):
    etag = get(api, "/console/app.js")["headers"]["ETag"]
    again = get(api, "/console/app.js", {"if-none-match": etag})
    assert again["statusCode"] == 304
    assert again["body"] == ""
    stale = get(api, "/console/app.js", {"if-none-match": '"stale"'})
    assert stale["statusCode"] == 200


@pytest.mark.parametrize("name", ["nope.js", "index.htm", "..", "token", "%2e%2e%2ftoken"])
def test_a_name_that_is_not_a_built_file_is_a_404(api, name):
    answer = get(api, "/console/" + name)
    assert answer["statusCode"] == 404
    assert "app.js" not in answer["body"]


def test_with_the_console_off_nothing_is_served(tmp_path):
    api = Api(build_services(Settings(data_dir=tmp_path, embeddings="none", console=False)))
    answer = get(api, "/")
    assert answer["statusCode"] == 404
    assert '"route_not_found"' in answer["body"]


def test_the_console_is_not_in_the_openapi_document(api):
    paths = api.openapi()["paths"]
    assert "/" not in paths
    assert not [p for p in paths if p.startswith("/console")]


def wsgi_get(gateway: LocalGateway, path: str, token: str | None = None) -> tuple[int, bytes]:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "wsgi.input": io.BytesIO(b""),
        "SERVER_PROTOCOL": "HTTP/1.1",
    }
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    status: list[str] = []
    body = b"".join(gateway(environ, lambda s, headers: status.append(s)))
    return int(status[0].split()[0]), body


def test_the_embedded_gateway_serves_the_console_without_a_token_and_nothing_else(tmp_path, api):
    tokens, made = TokenBook.load(tmp_path, None)
    gateway = LocalGateway(api, tokens, "tenant")
    assert wsgi_get(gateway, "/")[0] == 200
    assert wsgi_get(gateway, "/console/app.js")[0] == 200
    # The API behind the page still takes the token, and only the token.
    assert wsgi_get(gateway, "/v1/agents")[0] == 401
    assert wsgi_get(gateway, "/v1/agents", "wrong")[0] == 401
    assert wsgi_get(gateway, "/v1/agents", made)[0] == 200
