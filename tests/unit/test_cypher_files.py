"""Every .cypher file is used by code, every query name in code has a file, all lint clean."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from graphmem.backends.neo4j.queries import QUERY_NAME_PATTERN, load_query, query_names

ROOT = Path(__file__).resolve().parents[2]
BACKEND = ROOT / "graphmem" / "backends" / "neo4j"
STRING_LITERAL = re.compile(r"""["']([a-z][a-z0-9]*/[a-z][a-z0-9]*_[a-z0-9_]+)["']""")
PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def names_in_code() -> set[str]:
    found: set[str] = set()
    for path in BACKEND.glob("*.py"):
        found.update(STRING_LITERAL.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_query_name_in_code_has_a_file() -> None:
    missing = sorted(names_in_code() - set(query_names()))
    assert not missing, f"query names used in graphmem/backends/neo4j without a file: {missing}"


def test_every_file_is_used_by_code() -> None:
    unused = sorted(set(query_names()) - names_in_code())
    assert not unused, f"cypher files no code loads (delete them or use them): {unused}"


def test_layout_is_area_slash_verb_object() -> None:
    files = sorted((ROOT / "cypher").rglob("*"))
    for path in files:
        if path.is_dir():
            continue
        rel = path.relative_to(ROOT / "cypher")
        assert path.suffix == ".cypher", f"{rel}: only .cypher files belong in cypher/"
        assert len(rel.parts) == 2, f"{rel}: use cypher/<area>/<verb>_<object>.cypher"
        assert QUERY_NAME_PATTERN.match(f"{rel.parts[0]}/{path.stem}"), rel


@pytest.mark.parametrize("name", query_names())
def test_file_loads_and_takes_values_as_parameters(name: str) -> None:
    text = load_query(name)
    assert text.strip(), f"{name} is empty"
    assert load_query(name) is text, "the loader caches"
    # One statement per file: no ';' outside comments.
    code = "\n".join(line.split("//", 1)[0] for line in text.splitlines())
    assert ";" not in code, f"{name}: one query per file, no ';'"
    # Every query but the server checks is scoped to a tenant.
    if not name.startswith(("schema/", "admin/")):
        assert "$tenant" in text, f"{name} does not filter on $tenant"


def test_lint_with_neo4j_front_end() -> None:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "@neo4j-cypher").is_dir():
        pytest.skip("node or node_modules missing: run `make cypher-lint` (npm ci + lint)")
    done = subprocess.run(
        [node, "scripts/lint_cypher.mjs"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_parameters_pattern_finds_parameters() -> None:
    assert set(PARAMETER.findall(load_query("entities/count_entities"))) == {"tenant"}
