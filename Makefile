# Two commands on a fresh clone: `make serve` runs the service, `make test` runs every test.
# Each sets up what it needs in one virtualenv, .venv: serving installs the package alone (no
# test or lint tool), testing adds the dev extra (pytest, ruff, mypy, moto, the integrations).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# What serving needs; then what the tests and linters need on top of it.
SERVE_STAMP := $(VENV)/.installed-serve
STAMP := $(VENV)/.installed-dev

.PHONY: serve test lint docs pins console console-check ts-client chromium cloud-check bench clean

# Measured on a fresh clone: 36 s to a listening server (2 cores; 44 packages, 309 MB).
$(SERVE_STAMP): pyproject.toml
	@echo "installing the service into $(VENV) (first run takes about 40 s)..."
	$(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $@

$(STAMP): $(SERVE_STAMP)
	@echo "installing the test and lint tools into $(VENV) (first run takes a few minutes)..."
	$(PIP) -e '.[dev]'
	touch $@

serve: $(SERVE_STAMP)
	$(BIN)/agent-memory serve $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python scripts/pins.py --check

# The reference in docs/ as a site (mkdocs.yml), built strictly: a broken link, a missing anchor
# or a page left out of the navigation fails. The OpenAPI page is generated from the app.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The core layer's requirements are generated from pyproject.toml (lint fails when they drift).
pins: $(STAMP)
	$(BIN)/python scripts/pins.py

# The web console (web/) is built into the package, and the build is committed so that
# `make serve` needs no Node. `make console` rebuilds it after a change to web/.
CONSOLE := layers/core/agent_memory/console
NPM_CI := npm ci --no-audit --no-fund --loglevel=error

console:
	cd web && $(NPM_CI) && node build.mjs

# The committed build must be what the sources (and package-lock.json's pins) build to.
console-check:
	cd web && $(NPM_CI)
	rm -rf web/.check && node web/build.mjs --outdir web/.check
	@diff -r $(CONSOLE) web/.check >/dev/null || { diff -r $(CONSOLE) web/.check | head -20; \
		echo "$(CONSOLE) differs from a fresh build of web/: run make console and commit it" >&2; \
		exit 1; }
	rm -rf web/.check

# The TypeScript client (clients/typescript): installed from its lock file (from npm's cache
# once it holds the packages), built, its generated types checked against the OpenAPI document
# the app serves (a drift fails: `cd clients/typescript && npm run types` regenerates them), its
# examples type-checked, and its suite run against an embedded server started from this venv.
TS_CLIENT := clients/typescript

ts-client: $(STAMP)
	cd $(TS_CLIENT) && $(NPM_CI) --prefer-offline && node scripts/build.mjs
	cd $(TS_CLIENT) && AGENT_MEMORY_PYTHON=$(abspath $(BIN))/python node scripts/types.mjs --check
	cd $(TS_CLIENT) && node_modules/.bin/tsc -p examples/tsconfig.json
	cd $(TS_CLIENT) && AGENT_MEMORY_BIN=$(abspath $(BIN))/agent-memory node --test test/

# The console's browser tests drive Debian's chromium (no browser can be downloaded here). When it
# cannot be installed (not root, no apt) they skip, saying why; under CI they fail instead.
chromium:
	@[ -x /usr/bin/chromium ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
		|| echo "chromium is not installed: the console's browser tests will skip" >&2

# The suite runs on every core (pytest-xdist; an idle worker takes tests from a busy one).
# ARGS passes flags through (ARGS="tests/unit -x"); a selection with no tests (exit 5) passes.
test: lint docs console-check ts-client chromium
	$(BIN)/python -m pytest -n auto --dist worksteal $(ARGS) || [ $$? -eq 5 ]

cloud-check:
	bash .ci/cloud-check

bench: $(STAMP)
	$(BIN)/python benchmarks/cold_start.py

clean:
	rm -rf $(VENV) .venv-sam .aws-sam .pytest_cache .ruff_cache .mypy_cache web/node_modules web/.check \
		$(TS_CLIENT)/node_modules $(TS_CLIENT)/dist $(TS_CLIENT)/.examples test-artifacts site .docs-build
