"""template.yaml puts the web console behind its Console parameter: the two public routes, their
integration and permission exist only with Console=Enabled, and the API function is told."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.unit

ROOT = Path(__file__).parents[2]


def load_template() -> dict[str, Any]:
    class Loader(yaml.SafeLoader):
        pass

    def intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> tuple[str, Any]:
        if isinstance(node, yaml.ScalarNode):
            return (suffix, loader.construct_scalar(node))
        if isinstance(node, yaml.SequenceNode):
            return (suffix, loader.construct_sequence(node, deep=True))
        return (suffix, loader.construct_mapping(node, deep=True))

    Loader.add_multi_constructor("!", intrinsic)
    return yaml.load((ROOT / "template.yaml").read_text(), Loader=Loader)  # noqa: S506


def test_the_console_parameter_is_enabled_or_disabled_and_names_a_condition():
    template = load_template()
    parameter = template["Parameters"]["Console"]
    assert parameter["AllowedValues"] == ["Enabled", "Disabled"]
    assert parameter["Default"] == "Enabled"
    assert template["Conditions"]["ServeConsole"] == ("Equals", [("Ref", "Console"), "Enabled"])


def test_the_console_routes_are_public_get_routes_that_exist_only_when_enabled():
    resources = load_template()["Resources"]
    console = {name: r for name, r in resources.items() if name.startswith("Console")}
    assert set(console) == {
        "ConsoleIntegration",
        "ConsolePageRoute",
        "ConsoleFilesRoute",
        "ConsoleInvokePermission",
    }
    assert all(r["Condition"] == "ServeConsole" for r in console.values())
    routes = [console["ConsolePageRoute"], console["ConsoleFilesRoute"]]
    assert [r["Properties"]["RouteKey"] for r in routes] == ["GET /", "GET /console/{name}"]
    # Public like the OpenAPI document: the files hold no data; every API call takes the JWT.
    assert all(r["Properties"]["AuthorizationType"] == "NONE" for r in routes)
    integration = console["ConsoleIntegration"]["Properties"]
    assert integration["IntegrationUri"] == ("Ref", "ApiFunction.Alias")  # SnapStart: the alias
    assert integration["PayloadFormatVersion"] == "2.0"


def test_the_api_function_is_told_whether_to_serve_the_console():
    function = load_template()["Resources"]["ApiFunction"]["Properties"]
    value = function["Environment"]["Variables"]["AGENT_MEMORY_CONSOLE"]
    assert value == ("If", ["ServeConsole", "true", "false"])
