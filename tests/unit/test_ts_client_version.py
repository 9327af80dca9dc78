"""The TypeScript client's version is the Python package's: one release, one number."""

import json
import pathlib
import tomllib

import pytest

pytestmark = pytest.mark.unit

ROOT = pathlib.Path(__file__).parents[2]


def test_the_typescript_client_is_versioned_in_step_with_the_python_package():
    python = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    package = json.loads((ROOT / "clients/typescript/package.json").read_text())
    lock = json.loads((ROOT / "clients/typescript/package-lock.json").read_text())
    assert package["version"] == python
    assert lock["version"] == python and lock["packages"][""]["version"] == python
    assert package["private"] is False
