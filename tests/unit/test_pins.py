"""scripts/pins.py: the core layer's requirements come from pyproject.toml, and --check fails
when the committed file drifts from them."""

import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
spec = importlib.util.spec_from_file_location("pins", ROOT / "scripts/pins.py")
assert spec is not None and spec.loader is not None
pins = importlib.util.module_from_spec(spec)
sys.modules["pins"] = pins
spec.loader.exec_module(pins)


def project(dependencies, cloud=(), **layer):
    return {
        "project": {"dependencies": list(dependencies), "optional-dependencies": {"cloud": cloud}},
        "tool": {"agent-memory": {"layer": {"extras": ["cloud"], **layer}}},
    }


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("#")]


def test_exact_pins_are_kept_ranges_take_the_layer_pin_and_left_out_packages_go():
    text = pins.layer_requirements(
        project(
            ["pynamodb==6.1.0", "pydantic>=2.9,<3", "waitress==3.0.2"],
            cloud=["opensearch-py==3.2.0"],
            **{"leave-out": ["Waitress"], "pins": {"pydantic": "2.14.4"}},
        )
    )
    assert text.startswith(pins.HEADER)
    assert lines(text) == ["pynamodb==6.1.0", "pydantic==2.14.4", "opensearch-py==3.2.0"]


@pytest.mark.parametrize(
    ("dependencies", "layer", "message"),
    [
        (["pydantic>=2.9,<3"], {}, "needs a pin"),
        (["pydantic>=2.9,<3"], {"pins": {"pydantic": "3.0.0"}}, "outside its range"),
        (["numpy==2.4.6"], {"pins": {"numpy": "2.4.7"}}, "drop its layer pin"),
        (["numpy==2.4.6"], {"pins": {"scipy": "1.0"}}, "does not take"),
        (["numpy==2.4.6"], {"extras": ["gpu"]}, "not in optional-dependencies"),
    ],
)
def test_a_requirement_without_one_exact_version_is_refused(dependencies, layer, message):
    with pytest.raises(pins.PinError, match=message):
        pins.layer_requirements(project(dependencies, **layer))


def test_the_committed_layer_file_is_what_pyproject_generates():
    expected = pins.layer_requirements(tomllib.loads((ROOT / "pyproject.toml").read_text()))
    assert pins.REQUIREMENTS.read_text() == expected
    assert pins.main(["--check"]) == 0


def test_check_fails_on_drift_and_names_the_difference(tmp_path, monkeypatch, capsys):
    drifted = tmp_path / "requirements.txt"
    drifted.write_text(pins.REQUIREMENTS.read_text().replace("pynamodb==", "pynamodb==0.0.1 #"))
    monkeypatch.setattr(pins, "REQUIREMENTS", drifted)
    assert pins.main(["--check"]) == 1
    assert "-pynamodb==0.0.1" in capsys.readouterr().err
    assert pins.main([]) == 0  # writing it again mends it
    assert pins.main(["--check"]) == 0
