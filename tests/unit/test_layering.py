"""The layers of graphmem, checked by reading every module's imports (ast, no import).

From the bottom up (docs/architecture.md draws them):

- base: data and errors every layer uses (``models``, ``errors``, ``events``, ``_progress``,
  ``words``: the one reading of a text's words, ``_batch``: batches of models from input);
- contract: ``store``, ``contract``, ``registry`` (the protocols, their checks, the registry);
- backends: ``graphmem.backends.*``;
- logic: ``conversation``, ``summarize``, ``jsonl``, ``_prompt``, ``policy``, ``retrieval``,
  ``minds``, ``analysis``: pure logic over the contract;
- facade: ``memory`` (``Memory``, the one object a user holds);
- doors: the package face (``graphmem/__init__.py``), ``cli``, ``commands``, ``server``,
  ``mcp_server``, ``mcp_world``, ``aio``, ``bench*``, ``evaluation*``, ``demo_world``, ``demos``,
  ``__main__``.

A module imports only modules of its own layer or below, and logic and the facade never
import a backend (they reach stores through the contract). Imports inside functions and
under ``TYPE_CHECKING`` count too. ``from graphmem import x`` where ``x`` is a submodule is
an import of that submodule; any other name from ``graphmem`` is an import of the face.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "graphmem"

LAYERS = ("base", "contract", "backends", "logic", "facade", "doors")

# module name (or package prefix) -> layer; the longest matching prefix wins
PLACES = {
    "graphmem.core.errors": "base",
    "graphmem.core.models": "base",
    "graphmem.core.events": "base",
    "graphmem.core.progress": "base",
    "graphmem.core.words": "base",
    "graphmem.core.batches": "base",
    "graphmem.core.checks": "base",
    "graphmem.core.store": "contract",
    "graphmem.core.contract": "contract",
    "graphmem.core.registry": "contract",
    "graphmem.backends": "backends",
    "graphmem.conversation": "logic",
    "graphmem.conversation.summarize": "logic",
    "graphmem.exchange.jsonl": "logic",
    "graphmem.core.prompt": "logic",
    "graphmem.policy": "logic",
    "graphmem.retrieval": "logic",
    "graphmem.minds": "logic",
    "graphmem.exchange.analysis": "logic",
    "graphmem.memory": "facade",
    "graphmem": "doors",  # the package face, graphmem/__init__.py
    "graphmem.__main__": "doors",
    "graphmem.doors.aio": "doors",
    "graphmem.cli.program": "doors",
    "graphmem.cli.commands": "doors",
    "graphmem.doors.http": "doors",
    "graphmem.doors.mcp.server": "doors",
    "graphmem.doors.mcp.world": "doors",
    "graphmem.tools.bench.main": "doors",
    "graphmem.tools.bench.recall": "doors",
    "graphmem.tools.bench.storage": "doors",
    "graphmem.tools.bench.governance": "doors",
    "graphmem.tools.evaluation.main": "doors",
    "graphmem.tools.evaluation.conversations": "doors",
    "graphmem.tools.evaluation.tomi": "doors",
    "graphmem.tools.demos.village": "doors",
    "graphmem.tools.demos": "doors",
}

# Imports that break the rules today, each with the issue that removes it. The test fails
# when one disappears, so the list only shrinks.
KNOWN = {
    # issue 20: models.py renders an identity through _prompt (inside a method, to dodge
    # an import cycle); rendering moves next to retrieval/render.py
    ("graphmem.core.models", "graphmem.core.prompt"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(path: Path) -> set[str]:
    """Every graphmem module ``path`` imports, anywhere in the file."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            names = [f"{target}.{alias.name}" for alias in node.names]
            submodules = [name for name in names if _is_module(name)]
            found.update(submodules)
            if len(submodules) < len(names):
                found.add(target)
    return {name for name in found if name == "graphmem" or name.startswith("graphmem.")}


def _layer(module: str) -> str:
    candidates = [p for p in PLACES if module == p or module.startswith(p + ".")]
    if not candidates:
        raise LookupError(module)
    return PLACES[max(candidates, key=len)]


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _violations() -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for module, path in MODULES.items():
        mine = LAYERS.index(_layer(module))
        for imported in _imports(path):
            theirs = _layer(imported)
            upward = LAYERS.index(theirs) > mine
            logic_to_backend = theirs == "backends" and _layer(module) in ("logic", "facade")
            if upward or logic_to_backend:
                out.add((module, imported))
    return out


def test_every_module_has_a_layer():
    unplaced = []
    for module in MODULES:
        try:
            _layer(module)
        except LookupError:
            unplaced.append(module)
    assert not unplaced, f"place these modules in a layer (PLACES): {unplaced}"


def test_the_reader_sees_what_python_imports():
    memory = _imports(MODULES["graphmem.memory"])
    assert {"graphmem.exchange.jsonl", "graphmem.core.store", "graphmem.core.models"} <= memory
    assert "graphmem" not in memory  # `from graphmem import jsonl` is the submodule
    assert "graphmem.retrieval.steps" in _imports(MODULES["graphmem.retrieval.bridge"])


def test_nothing_imports_upward_and_logic_never_imports_a_backend():
    new = _violations() - KNOWN
    assert not new, "imports that break the layering (docs/architecture.md): " + ", ".join(
        f"{a} -> {b}" for a, b in sorted(new)
    )


def test_the_known_exceptions_still_exist():
    gone = KNOWN - _violations()
    assert not gone, f"these imports are gone: remove them from KNOWN: {sorted(gone)}"


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if _layer(m) in ("base", "contract") and m in MODULES)
)
def test_the_contract_imports_no_logic_no_door_and_no_backend(module):
    allowed = {"base", "contract"}
    wrong = {
        imported
        for imported in _imports(MODULES[module])
        if _layer(imported) not in allowed and (module, imported) not in KNOWN
    }
    assert not wrong, f"{module} imports {sorted(wrong)}"
