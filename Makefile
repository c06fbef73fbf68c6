# The two commands of the README: `make demo` and `make test`. Both set up .venv from nothing.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test lint typecheck pytest cypher-lint bench clean

# torch first, pinned to its CPU wheel: otherwise the embeddings extra pulls a CUDA build.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev,embeddings]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/graphmem demo

lint: $(STAMP)
	$(BIN)/ruff check graphmem tests
	$(BIN)/ruff format --check graphmem tests

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/graphmem bench

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache node_modules
