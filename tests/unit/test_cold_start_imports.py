"""The API function's cold start imports only what every route needs (target: <= 300 ms).

functions/api/app.py is imported in a fresh interpreter with the environment template.yaml gives
ApiFunction (the same one `make bench` measures), and the modules it loaded are checked against
those only some routes, or other functions, need: each is imported when first used instead.
No pydantic model of ours is built by then either (but the settings): a route builds its own.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).parents[2]

# Module (or package) -> who needs it. None may be loaded once `import app` returns.
HEAVY = {
    "boto3": "clients made on first use: EventBridge, S3, Step Functions, Bedrock",
    "s3transfer": "boto3",
    "opensearchpy": "the search routes' OpenSearch client, built on the first search",
    "requests": "opensearch-py's connection",
    "numpy": "the embedded shape's vectors (the Lambda layer has none)",
    "onnxruntime": "the embedded shape's local embedder",
    "tokenizers": "the embedded shape's local embedder",
    "sqlite3": "the embedded shape's store",
    "waitress": "the embedded server",
    "aws_xray_sdk": "a tracer the function does not use",
    "agent_memory.adapters.sqlite": "the embedded shape",
    "agent_memory.local": "the embedded server and worker",
    "agent_memory.cli": "the command line",
    "agent_memory.client": "the Python SDK",
}

PROBE = """
import json, sys
from pydantic import BaseModel
import app
services = app.api.services
models, pending = [], [BaseModel]
while pending:
    for sub in pending.pop().__subclasses__():
        models.append(sub)
        pending.append(sub)
print(json.dumps({
    "modules": sorted(sys.modules),
    "built": [type(o).__name__ for o in (
        services.store, services.events, services.starter, services.extraction.model)],
    "models_built": sorted({
        f"{m.__module__}.{m.__qualname__}" for m in models
        if m.__module__.startswith("agent_memory") and m.__pydantic_complete__
    }),
}))
"""


def function_environment() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("cold_start", ROOT / "benchmarks/cold_start.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.probe_environment()


def heavy(loaded: list[str]) -> dict[str, str]:
    return {
        name: why
        for name, why in HEAVY.items()
        for module in loaded
        if module == name or module.startswith(name + ".")
    }


def test_the_api_function_imports_no_heavy_module_at_cold_start():
    env = function_environment()
    assert env["AGENT_MEMORY_OPENSEARCH_ENDPOINT"] and env["AGENT_MEMORY_EVENT_BUS_NAME"]

    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    # The cloud shape was built whole, as template.yaml configures it...
    assert result["built"] == [
        "DynamoStore",
        "EventBridgePublisher",
        "StepFunctionsStarter",
        "BedrockModel",
    ]
    search = {"agent_memory.adapters.opensearch.index", "agent_memory.adapters.embeddings.bedrock"}
    assert search <= set(result["modules"])  # the search routes' adapters, their clients unbuilt
    assert "pynamodb.models" in result["modules"]  # every route reads the store
    # ...and nothing only some routes or other functions need was imported for it.
    assert heavy(result["modules"]) == {}
    # No model of ours was built but the settings, which are validated at start: each route
    # builds its own on first use (domain/kernel/deferred.py).
    assert result["models_built"] == ["agent_memory.settings.Settings"]


def test_the_heavy_list_catches_a_module_and_its_submodules():
    assert heavy(["json", "boto3", "agent_memory.local.server"]) == {
        "boto3": HEAVY["boto3"],
        "agent_memory.local": HEAVY["agent_memory.local"],
    }
    assert heavy(["boto3x", "agent_memory.localx"]) == {}
