"""The extras and pins of pyproject.toml agree with what they install (issue 28)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = tomllib.loads(
    (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text("utf-8")
)["project"]


def _requirements(extra: str | None) -> dict[str, Requirement]:
    raw = PYPROJECT["dependencies"] if extra is None else PYPROJECT["optional-dependencies"][extra]
    return {Requirement(r).name: Requirement(r) for r in raw}


def test_the_neo4j_extra_allows_only_drivers_neomodel_accepts() -> None:
    ours = _requirements("neo4j")
    try:
        pins = [Requirement(r) for r in metadata.requires("neomodel") or []]
    except metadata.PackageNotFoundError:
        pytest.skip("neomodel is not installed (the neo4j extra)")
    [theirs] = [r for r in pins if r.name == "neo4j" and r.marker is None]
    candidates = [
        Version(f"{major}.{minor}.{patch}")
        for major in (5, 6, 7)
        for minor in range(0, 30)
        for patch in (0, 1, 5)
    ]
    allowed = [v for v in candidates if v in ours["neo4j"].specifier]
    assert allowed, "the neo4j extra allows no driver at all"
    assert all(v in theirs.specifier for v in allowed), (ours["neo4j"], theirs)
    # the Rust extension follows the driver's version
    assert str(ours["neo4j-rust-ext"].specifier) == str(ours["neo4j"].specifier)


def test_tantivy_takes_later_releases_of_the_tested_line() -> None:
    spec = _requirements(None)["tantivy"].specifier
    assert Version(metadata.version("tantivy")) in spec
    assert Version("0.27.5") in spec and Version("0.28.0") in spec
    assert Version("1.0.0") not in spec


def test_the_notebook_extra_brings_a_kernel() -> None:
    assert {"pandas", "matplotlib", "ipykernel"} <= set(_requirements("notebook"))
