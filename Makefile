# Two commands on a fresh clone: `make serve` runs the service, `make test` runs every test.
# Each sets up what it needs (a virtualenv in .venv with the package and its dev tools).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test lint cloud-check bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

serve: $(STAMP)
	$(BIN)/agent-memory serve $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The suite runs on every core (pytest-xdist; an idle worker takes tests from a busy one).
# ARGS passes flags through (ARGS="tests/unit -x"); a selection with no tests (exit 5) passes.
test: lint
	$(BIN)/python -m pytest -n auto --dist worksteal $(ARGS) || [ $$? -eq 5 ]

cloud-check:
	bash .ci/cloud-check

bench: $(STAMP)
	$(BIN)/python benchmarks/cold_start.py

clean:
	rm -rf $(VENV) .venv-sam .aws-sam .pytest_cache .ruff_cache .mypy_cache
