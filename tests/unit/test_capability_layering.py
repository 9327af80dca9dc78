"""The domain is one package per capability: each imports another only through that package's
public names (its `__init__`), the shared kernel imports no capability, and there is no import
circle between capabilities.

Names a module needs for its annotations alone may be imported under `if TYPE_CHECKING:` (they
never run): the store port (`domain/store.py`, the sum of every capability's ports) is named so
by every service, and search names the file memories it indexes so. Those imports go through the
package too, but they make no edge: the order below is the order the code runs in.
"""

from __future__ import annotations

import ast
import pathlib
from collections import defaultdict
from dataclasses import dataclass

import pytest

pytestmark = pytest.mark.unit

DOMAIN = pathlib.Path(__file__).parents[2] / "layers/core/agent_memory/domain"
KERNEL = "kernel"
# Modules of the domain's own folder: its composition, which no capability imports at run time.
COMPOSITION = {"__init__", "store", "answers"}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, as a path under domain/
    target: list[str]  # the imported module's parts under domain/, e.g. ["records", "models"]
    names: list[str]
    typing_only: bool
    line: int


def _typing_only_nodes(tree: ast.AST) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            inside.update(id(sub) for sub in ast.walk(node))
    return inside


def domain_imports() -> list[Import]:
    found = []
    for path in sorted(DOMAIN.rglob("*.py")):
        rel = path.relative_to(DOMAIN)
        package = list(rel.parts[:-1])
        tree = ast.parse(path.read_text())
        typing_only = _typing_only_nodes(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = base + (node.module.split(".") if node.module else [])
            elif (node.module or "").startswith("agent_memory.domain"):
                target = node.module.split(".")[2:]
            else:
                continue
            found.append(
                Import(
                    str(rel),
                    target,
                    [alias.name for alias in node.names],
                    id(node) in typing_only,
                    node.lineno,
                )
            )
    return found


def capability_of(module: str) -> str | None:
    parts = pathlib.PurePath(module).parts
    return parts[0] if len(parts) > 1 else None


def capabilities() -> set[str]:
    return {p.name for p in DOMAIN.iterdir() if (p / "__init__.py").exists()}


def edges() -> dict[str, set[str]]:
    """Capability -> the capabilities it imports at run time."""
    out: dict[str, set[str]] = defaultdict(set)
    for imp in domain_imports():
        source = capability_of(imp.module)
        if source is None or imp.typing_only:
            continue
        targets = [imp.target[0]] if imp.target else imp.names  # `from .. import secrets`
        for target in targets:
            if target != source and target in capabilities():
                out[source].add(target)
    return out


def circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle in `graph`, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_domain_folder_holds_capabilities_the_kernel_and_its_composition_only():
    loose = {p.stem for p in DOMAIN.glob("*.py")} - COMPOSITION
    assert loose == set()
    assert {"kernel", "records", "files", "history", "sessions", "agents"} <= capabilities()


def test_a_capability_imports_another_only_through_its_package():
    deep = [
        f"{imp.module}:{imp.line} imports {'.'.join(imp.target)}"
        for imp in domain_imports()
        if (source := capability_of(imp.module)) is not None
        and len(imp.target) > 1
        and imp.target[0] not in (source, KERNEL)
        and imp.target[0] in capabilities()
    ]
    assert deep == []


def test_the_kernel_imports_no_capability():
    reached = [
        f"{imp.module}:{imp.line}"
        for imp in domain_imports()
        if capability_of(imp.module) == KERNEL and imp.target and imp.target[0] != KERNEL
    ]
    assert reached == []


def test_capabilities_name_the_composition_for_their_types_only():
    # store.py and answers.py import every capability: a capability importing them at run
    # time would close a circle through them.
    at_run_time = [
        f"{imp.module}:{imp.line}"
        for imp in domain_imports()
        if capability_of(imp.module) is not None
        and imp.target in (["store"], ["answers"])
        and not imp.typing_only
    ]
    assert at_run_time == []


def test_there_is_no_import_circle_between_capabilities():
    graph = edges()
    assert circle(graph) is None, " -> ".join(circle(graph) or [])
    # The order the capabilities build on each other, lowest first (what docs/architecture.md
    # draws): each imports only capabilities before it.
    order = [
        "kernel",
        "secrets",
        "usage",
        "audit",
        "manifests",
        "search",
        "turns",
        "records",
        "files",
        "history",
        "extraction",
        "agents",
        "sessions",
        "tools",
        "transfer",
    ]
    assert set(order) == capabilities()
    upward = [
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if order.index(target) > order.index(source)
    ]
    assert upward == []


def test_the_circle_finder_finds_a_circle():
    # Given a graph with a circle through three capabilities, when it is searched, then the
    # circle is named (so the test above would fail on one).
    assert circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert circle({"a": {"b"}, "b": {"c"}}) is None
