"""No module of the package is over 400 lines: past that a module holds more than one thing, and
is split where the code has seams (STYLE.md)."""

import pathlib

import pytest

pytestmark = pytest.mark.unit

PACKAGE = pathlib.Path(__file__).parents[2] / "layers/core/agent_memory"
MAX_LINES = 400
MODULES = sorted(PACKAGE.rglob("*.py"))


def _name(path: pathlib.Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_module_is_over_400_lines(path):
    # Given a module of the package, when its lines are counted (as `wc -l` counts them)...
    lines = len(path.read_text(encoding="utf-8").splitlines())

    # ...then there are at most 400 of them.
    assert lines <= MAX_LINES, f"{path.relative_to(PACKAGE)} has {lines} lines"


def test_the_rule_sees_every_module_of_the_package():
    # A wrong root would make the check above pass by checking nothing.
    names = {p.relative_to(PACKAGE).as_posix() for p in MODULES}
    assert {"cli/__init__.py", "adapters/dynamodb/items.py", "api/app.py"} <= names
    assert len(names) > 100
