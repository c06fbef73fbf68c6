"""The layers of graphmem, checked by reading every module's imports (ast, no import).

The folders are the layers (docs/architecture.md draws them). From the bottom up:

- base: ``graphmem/core/`` data and errors every layer uses (models, errors, events,
  checks, words, batches, progress, version);
- contract: ``graphmem/core/`` ``contract``, ``store``, ``registry`` (the protocols, their
  checks, the registry);
- backends: ``graphmem/backends/``;
- logic: ``conversation/``, ``exchange/``, ``policy/``, ``retrieval/``, ``minds/``: pure logic
  over the contract;
- facade: ``memory`` (``Memory``, the one object a user holds);
- doors: the package face (``graphmem/__init__.py``) and ``doors/`` (HTTP, MCP, async, side
  by side over ``doors/schemas`` and ``doors/extras``);
- tools: ``tools/`` (bench, evaluation, demos): nothing of the library imports them;
- program: ``cli/`` and ``__main__``: the command line composes the doors and the tools.

A module imports only modules of its own layer or below, logic and the facade never import
a backend, no import circle exists anywhere (imports inside functions and under
``TYPE_CHECKING`` count), and no module is over 800 lines but the listed exceptions.
``from graphmem import x`` where ``x`` is a submodule is an import of that submodule; any
other name from ``graphmem`` is an import of the face.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "graphmem"

LAYERS = ("base", "contract", "backends", "logic", "facade", "doors", "tools", "program")

# module name (or package prefix) -> layer; the longest matching prefix wins
PLACES = {
    "graphmem.core": "base",
    "graphmem.core.store": "contract",
    "graphmem.core.contract": "contract",
    "graphmem.core.registry": "contract",
    "graphmem.core.telemetry": "contract",  # store spans and counts, over the tracer hook
    "graphmem.backends": "backends",
    "graphmem.conversation": "logic",
    "graphmem.exchange": "logic",
    "graphmem.policy": "logic",
    "graphmem.retrieval": "logic",
    "graphmem.minds": "logic",
    "graphmem.memory": "facade",
    "graphmem": "doors",  # the package face, graphmem/__init__.py
    "graphmem.doors": "doors",
    "graphmem.integrations": "doors",  # agent frameworks' memory (LangGraph, OpenAI Agents)
    "graphmem.tools": "tools",
    "graphmem.cli": "program",
    "graphmem.__main__": "program",
}

# What the top of the tree holds: the layers, one folder each (and the face).
TOP_LEVEL = {
    "__init__.py",
    "__main__.py",
    "py.typed",
    "core",
    "backends",
    "conversation",
    "exchange",
    "policy",
    "retrieval",
    "minds",
    "memory",
    "doors",
    "integrations",
    "tools",
    "cli",
}

# Imports that break the rules today, each with the issue that removes it. The test fails
# when one disappears, so the list only shrinks.
KNOWN: set[tuple[str, str]] = set()

# Modules allowed over MAX_LINES, each with its reason. The test fails when one shrinks
# under the limit, so the list only shrinks.
MAX_LINES = 800
LONG_MODULES: dict[str, str] = {}


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
    tenant = _imports(MODULES["graphmem.memory.tenant"])
    assert {"graphmem.exchange.jsonl", "graphmem.core.store"} <= tenant
    assert "graphmem" not in tenant  # `from graphmem.exchange import jsonl` is the submodule
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


def _graph() -> dict[str, set[str]]:
    return {
        module: {
            imported for imported in _imports(path) if imported in MODULES and imported != module
        }
        for module, path in MODULES.items()
    }


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                member = ""
                circle = []
                while member != node:
                    member = stack.pop()
                    on_stack.discard(member)
                    circle.append(member)
                if len(circle) > 1:
                    found.append(sorted(circle))
    return found


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle():
    circles = _circles(_graph())
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_the_top_of_the_tree_reads_as_the_layers():
    entries = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert entries <= TOP_LEVEL, f"new at the top of graphmem/: {sorted(entries - TOP_LEVEL)}"
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__"))
    assert not loose, f"modules loose at the top of graphmem/: {loose}"


def test_the_doors_stand_side_by_side():
    """MCP never imports HTTP; HTTP reaches MCP only where it mounts it (serve --mcp)."""
    crossings = {
        (module, imported)
        for module, imports in _graph().items()
        for imported in imports
        if (module.startswith("graphmem.doors.mcp") and imported.startswith("graphmem.doors.http"))
        or (
            module.startswith("graphmem.doors.http")
            and imported.startswith("graphmem.doors.mcp")
            and module != "graphmem.doors.http.mcp_mount"
        )
    }
    assert not crossings, f"doors importing each other: {sorted(crossings)}"


def _lines(path: Path) -> int:
    return len(path.read_text("utf-8").splitlines())


def test_no_module_is_over_the_limit():
    long = {
        str(path.relative_to(PACKAGE.parent)): _lines(path)
        for path in PACKAGE.rglob("*.py")
        if _lines(path) > MAX_LINES and str(path.relative_to(PACKAGE.parent)) not in LONG_MODULES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


@pytest.mark.parametrize("name", sorted(LONG_MODULES))
def test_the_long_exceptions_are_still_long(name):
    path = PACKAGE.parent / name
    assert path.is_file() and _lines(path) > MAX_LINES, f"{name} is short now: drop it"


_FIRST_IMPORTS = """
import importlib, pkgutil, sys
import graphmem
names = sorted(
    m.name for m in pkgutil.walk_packages(graphmem.__path__, "graphmem.")
    if m.name != "graphmem.__main__"
)
failed = []
for name in names:
    for loaded in [m for m in sys.modules if m == "graphmem" or m.startswith("graphmem.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except ImportError as error:
        failed.append(f"{name}: {error}")
print(len(names))
print("\\n".join(failed))
"""


def test_every_module_can_be_imported_first():
    # The circle finder reads ``import a.b.c`` as an import of ``a.b.c`` alone; Python also
    # runs the packages' ``__init__`` first. ``retrieval.facts`` imported before anything
    # else ran ``graphqa/__init__``, whose answerer imported ``facts`` back half-made
    # (session 18). Each module, imported first in a clean interpreter state, must load.
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_IMPORTS], capture_output=True, text=True, check=True
    )
    count, *failed = done.stdout.strip().split("\n")
    assert int(count) == len(MODULES) - 2  # all but the face itself and __main__
    assert not [line for line in failed if line], failed
