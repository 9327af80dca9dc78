"""A bounded schemathesis run against the embedded server (its WSGI gateway, in process, with a
bearer token): every operation of GET /v1/openapi.json, with data that fits the schema and data
that does not. No response may be a 5xx, and every response must match what the document says
of it (its status is listed, its body fits the listed schema).

Bounded so the suite stays quick (about a minute on a loaded machine): a few examples an
operation, derandomized so a failure is the same on every run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.schemas import APIOperation
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from agent_memory.api.app import OPENAPI_PATH, Api
from agent_memory.bootstrap import build_services
from agent_memory.local.gateway import LocalGateway
from agent_memory.local.tokens import TokenBook
from agent_memory.settings import Settings
from apiclient import wsgi_request

pytestmark = pytest.mark.e2e

TOKEN = "schemathesis-token-0123456789abcdef0123456789"
EXAMPLES = 10


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalGateway]:
    data: Path = tmp_path_factory.mktemp("schemathesis")
    settings_ = Settings(data_dir=data, embeddings="none", extraction_model="none", token=TOKEN)
    services = build_services(settings_)
    tokens, _ = TokenBook.load(data, TOKEN)
    api = Api(services)
    # Something for the generated calls to find: an agent with memory, a session and a turn.
    gateway = LocalGateway(api, tokens, settings_.tenant_claim)
    yield gateway
    services.close()


@pytest.fixture(scope="module")
def api_schema(gateway: LocalGateway) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_wsgi(OPENAPI_PATH, gateway)


def operations(api_schema: schemathesis.BaseSchema) -> list[APIOperation]:
    return [result.ok() for result in api_schema.get_all_operations()]


def test_no_5xx_and_every_response_as_documented(api_schema: schemathesis.BaseSchema) -> None:
    # Driven here rather than by schemathesis' pytest plugin (which pytest 9 does not run):
    # one hypothesis run an operation, data that fits the schema and data that does not.
    failures: list[str] = []
    for operation in operations(api_schema):
        cases = st.one_of(
            operation.as_strategy(GenerationMode.POSITIVE),
            operation.as_strategy(GenerationMode.NEGATIVE),
        )

        @given(case=cases)
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def run(case: schemathesis.Case) -> None:
            case.call_and_validate(
                headers={"Authorization": f"Bearer {TOKEN}"},
                checks=[not_a_server_error, status_code_conformance, response_schema_conformance],
            )

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:  # every operation runs; all are reported
            failures.append(f"{operation.label}: {exc}")
    assert failures == [], "\n\n".join(failures)


def test_the_embedded_server_refuses_hostile_bodies_before_parsing(gateway: LocalGateway) -> None:
    # The same checks as the Lambda function's (both shapes call Api.handle), here through the
    # WSGI gateway the embedded server runs.
    for body, code in [
        (b'{"harness":' * 100_000 + b"{}" + b"}" * 100_000, "body_too_deep"),
        (
            b'{"harness": {"memory": {"search": {"max_results": ' + b"9" * 5000 + b"}}}}",
            "number_too_long",
        ),
        (b"null", "invalid_request"),
    ]:
        status, answer = wsgi_request(gateway, TOKEN, "PUT", "/v1/agents/hostile", body)
        assert (status, json.loads(answer)["error"]["code"]) == (400, code)
    status, _ = wsgi_request(gateway, TOKEN, "GET", "/v1/agents/hostile")
    assert status == 404
