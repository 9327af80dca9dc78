"""Lambda SnapStart: template.yaml starts every function's published versions from a snapshot and
invokes them only through their alias, and the restore hooks the handlers register renew what
each environment resumed from one snapshot must hold of its own (docs/cold-start.md)."""

from __future__ import annotations

import random
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from test_console_template import load_template

from agent_memory.adapters import snapstart
from agent_memory.adapters.aws import LazyClient
from agent_memory.adapters.dynamodb.items import bind_items
from agent_memory.adapters.opensearch.connection import _ClientOnFirstUse
from agent_memory.domain.kernel import ids
from agent_memory.domain.kernel.patterns import Pattern
from agent_memory.domain.kernel.restore import on_restore, run_restore_hooks

pytestmark = pytest.mark.unit

ROOT = Path(__file__).parents[2]
FUNCTIONS = ["ApiFunction", "IngestFunction", "ExtractionFunction"]
FUNCTIONS += ["DispatcherFunction", "ConsolidationFunction", "IndexerFunction"]


def functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: resource["Properties"]
        for name, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
    }


# -- the template ---------------------------------------------------------------------------


def test_every_function_publishes_a_version_behind_the_alias_live_with_snapstart_on_it():
    template = load_template()
    function = template["Globals"]["Function"]
    assert function["AutoPublishAlias"] == "live"
    # Any change publishes a version, a new layer included; the version replaced is deleted
    # (a kept one would be billed for its cached snapshot).
    assert all(p["AutoPublishAliasAllProperties"] is True for p in functions(template).values())
    assert template["Resources"]["CoreLayer"]["Properties"]["PublishLambdaVersion"] is True
    assert function["VersionDeletionPolicy"] == "Delete"
    assert function["SnapStart"] == {
        "ApplyOn": ("If", ["StartFromSnapshots", "PublishedVersions", "None"])
    }
    parameter = template["Parameters"]["SnapStart"]
    assert (parameter["Default"], parameter["AllowedValues"]) == (
        "Enabled",
        ["Enabled", "Disabled"],
    )
    assert template["Conditions"]["StartFromSnapshots"] == (
        "Equals",
        [("Ref", "SnapStart"), "Enabled"],
    )
    # No function sets its own, so the Globals' apply to all six.
    assert sorted(functions(template)) == sorted(FUNCTIONS)
    own = {"SnapStart", "AutoPublishAlias", "VersionDeletionPolicy"}
    assert all(own.isdisjoint(p) for p in functions(template).values())


def test_every_function_is_one_snapstart_supports():
    # SnapStart runs python3.12 and later (arm64 included), and refuses provisioned
    # concurrency, EFS and ephemeral storage over 512 MB.
    template = load_template()
    assert template["Globals"]["Function"]["Runtime"] == "python3.12"
    assert template["Globals"]["Function"]["Architectures"] == ["arm64"]
    for name, properties in functions(template).items():
        assert properties.get("Runtime", "python3.12") == "python3.12", name
        assert "ProvisionedConcurrencyConfig" not in properties, name
        assert "FileSystemConfigs" not in properties, name
        assert properties.get("EphemeralStorage", {}).get("Size", 512) <= 512, name


def test_what_invokes_a_function_outside_its_events_names_the_alias():
    # Events (HTTP API routes, queues, streams) are pointed at the alias by SAM itself; these
    # are the references the template makes by hand, which would otherwise reach $LATEST, which
    # never starts from a snapshot.
    resources = load_template()["Resources"]
    console = resources["ConsoleIntegration"]["Properties"]
    assert console["IntegrationUri"] == ("Ref", "ApiFunction.Alias")
    permission = resources["ConsoleInvokePermission"]["Properties"]
    assert permission["FunctionName"] == ("Ref", "ApiFunction.Alias")
    machine = resources["ExtractionStateMachine"]["Properties"]
    assert machine["DefinitionSubstitutions"]["ExtractionFunctionArn"] == (
        "Ref",
        "ExtractionFunction.Alias",
    )
    consolidation = resources["ConsolidationStateMachine"]["Properties"]
    assert consolidation["DefinitionSubstitutions"]["ConsolidationFunctionArn"] == (
        "Ref",
        "ConsolidationFunction.Alias",
    )
    code = [line.split("#")[0] for line in (ROOT / "template.yaml").read_text().splitlines()]
    assert not [line for line in code if "$LATEST" in line]
    for name in FUNCTIONS:
        assert not [line for line in code if f"!GetAtt {name}.Arn" in line], name


def test_every_handler_registers_the_hooks():
    for folder in ["api", "ingest", "extraction", "dispatcher", "consolidation", "indexer"]:
        source = (ROOT / "functions" / folder / "app.py").read_text()
        assert "\nregister_snapstart_hooks()" in source, folder


# -- the hooks ------------------------------------------------------------------------------


@pytest.fixture
def runtime(monkeypatch):
    """A stand-in for the Lambda runtime's snapshot_restore_py: it keeps what is registered."""
    registered: dict[str, list[Any]] = {"before": [], "after": []}
    module = types.ModuleType("snapshot_restore_py")
    module.register_before_snapshot = registered["before"].append  # type: ignore[attr-defined]
    module.register_after_restore = registered["after"].append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", module)
    monkeypatch.setattr(snapstart, "_registered", False)
    return registered


def test_without_the_runtimes_library_nothing_is_registered(monkeypatch):
    # Given no snapshot_restore_py (a laptop, the tests): a None entry makes its import fail
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", None)
    monkeypatch.setattr(snapstart, "_registered", False)
    assert snapstart.register_snapstart_hooks() is False


def test_the_hooks_are_registered_once(runtime):
    assert snapstart.register_snapstart_hooks() is True
    assert snapstart.register_snapstart_hooks() is True
    assert runtime == {"before": [snapstart.before_snapshot], "after": [snapstart.after_restore]}


def test_before_the_snapshot_what_a_first_request_imports_is_loaded(runtime, monkeypatch):
    snapstart.register_snapstart_hooks()
    for name in snapstart.PRIMED:
        monkeypatch.delitem(sys.modules, name, raising=False)
    uncompiled = Pattern(r"before the snapshot (\d+)")
    [before] = runtime["before"]
    before()
    assert all(name in sys.modules for name in snapstart.PRIMED)
    # ...and the regular expressions left for first use are compiled into the snapshot.
    assert uncompiled._compiled is not None


def test_after_a_restore_random_state_ids_clients_and_caches_are_renewed(runtime, monkeypatch):
    # Given the hooks registered, as each handler does at init
    snapstart.register_snapstart_hooks()
    [after_restore] = runtime["after"]
    # ...and what init (or the snapshot's first requests) made: random state, a last id,
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "snapshot")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "snapshot")
    random.seed(7)
    snapshot_draw = random.random()
    random.seed(7)
    ids.new_id("rec")
    assert ids._last != [0, 0]
    # a boto3 client it made, one handed in, the OpenSearch client, the table's connection,
    made = LazyClient("events", "us-east-1")
    made_client = made.get()
    handed = LazyClient("events", "us-east-1", client=object())
    handed_client = handed.get()
    opensearch = _ClientOnFirstUse(lambda: object())
    opensearch_client = opensearch._built = object()
    items = bind_items("table", "us-east-1", None)
    items.connection._client = object()
    items.connection._local.session = object()
    # and a clock-dated cache
    cache = CacheStandIn()
    on_restore(cache.clear)

    # When Lambda resumes an environment from the snapshot
    after_restore()

    # Then the random state is new, the id generator starts afresh,
    assert random.random() != snapshot_draw
    assert ids._last == [0, 0]
    # every client made before is dropped (to be made again on use), one handed in is kept,
    assert made._client is None and made.get() is not made_client
    assert handed.get() is handed_client
    assert opensearch._built is None and opensearch_client is not None
    assert items.connection._client is None
    assert getattr(items.connection._local, "session", None) is None
    # and the cache is emptied
    assert cache.cleared == 1


def test_a_dropped_object_leaves_the_hooks_with_it():
    cache = CacheStandIn()
    on_restore(cache.clear)
    before = run_restore_hooks()
    del cache
    assert run_restore_hooks() == before - 1


class CacheStandIn:
    def __init__(self) -> None:
        self.cleared = 0

    def clear(self) -> None:
        self.cleared += 1
