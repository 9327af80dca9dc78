"""Settings fail at start on contradictions; the domain imports no infrastructure."""

import ast
import pathlib

import pytest
from pydantic import ValidationError

from agent_memory.settings import Settings

pytestmark = pytest.mark.unit

DOMAIN = pathlib.Path(__file__).parents[2] / "layers/core/agent_memory/domain"
FORBIDDEN = {
    "boto3",
    "botocore",
    "pynamodb",
    "sqlite3",
    "http",
    "urllib",
    "waitress",
    "aws_lambda_powertools",
    "opensearchpy",
    "requests",
    "httpx",
}


def test_defaults_are_the_embedded_shape(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    settings = Settings()
    assert (settings.store, settings.host, settings.port) == ("sqlite", "127.0.0.1", 8080)


def test_environment_variables_are_read_with_the_prefix(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_PORT", "9099")
    monkeypatch.setenv("AGENT_MEMORY_STORE", "dynamodb")
    monkeypatch.setenv("AGENT_MEMORY_TABLE_NAME", "t")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    settings = Settings()
    assert (settings.port, settings.table_name, settings.region) == (9099, "t", "eu-west-1")


def test_dynamodb_without_a_table_fails_at_start(monkeypatch):
    monkeypatch.delenv("AGENT_MEMORY_TABLE_NAME", raising=False)
    with pytest.raises(ValidationError, match="AGENT_MEMORY_TABLE_NAME"):
        Settings(store="dynamodb", region="us-east-1")


def test_an_unknown_store_fails_at_start():
    with pytest.raises(ValidationError):
        Settings(store="postgres")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "example.com"])
def test_binding_beyond_loopback_needs_an_explicit_token(host):
    with pytest.raises(ValidationError, match="without a token of your own"):
        Settings(host=host)
    # Empty, or too short to resist guessing: refused at start.
    for short in ("", "s", "s3cret", "x" * 31):
        with pytest.raises(ValidationError, match="at least 32"):
            Settings(host=host, token=short)
    assert Settings(host=host, token="x" * 32).host == host


WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_a_webhook_needs_a_well_formed_signing_secret():
    with pytest.raises(ValidationError, match="needs AGENT_MEMORY_WEBHOOK_SECRET"):
        Settings(webhook_url="http://127.0.0.1:9/hook")
    for bad in ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!", "whsec_c2hvcnQ="):
        with pytest.raises(ValidationError, match="webhook secret"):
            Settings(webhook_url="http://127.0.0.1:9/hook", webhook_secret=bad)
    # Only http(s): a file:// or other scheme is refused at start, not at the first delivery.
    with pytest.raises(ValidationError, match="http:// or https://"):
        Settings(webhook_url="file:///etc/passwd", webhook_secret=WHSEC)
    settings = Settings(webhook_url="http://127.0.0.1:9/hook", webhook_secret=WHSEC)
    assert settings.webhook_key is not None and len(settings.webhook_key) == 24


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.1.2.3"])
def test_loopback_hosts_need_no_token(host):
    assert Settings(host=host).binds_loopback


def test_domain_imports_only_the_standard_library_pydantic_and_itself():
    offenders = []
    for path in DOMAIN.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []
