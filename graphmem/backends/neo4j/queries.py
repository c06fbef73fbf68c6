"""The Cypher of the Neo4j backend, loaded by name from the ``cypher/`` files.

Every query lives in its own file, ``cypher/<area>/<verb>_<object>.cypher``, and code refers
to it by name (``"entities/upsert_entities"``). In an installed wheel the files sit inside
the package (``graphmem/cypher``, see ``pyproject.toml``); in a source checkout or an
editable install they are read from the top-level ``cypher/`` folder.

This module does not import the driver, so the files can be checked without it.
"""

from __future__ import annotations

import functools
import re
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from graphmem.core.checks import check_safe_name
from graphmem.core.errors import GraphmemError

__all__ = [
    "QUERY_NAME_PATTERN",
    "TYPE_SLOT",
    "cypher_root",
    "load_query",
    "load_typed_query",
    "query_names",
]

QUERY_NAME_PATTERN = re.compile(r"\A[a-z][a-z0-9]*/[a-z][a-z0-9]*_[a-z0-9_]+\Z")
"""A query name: ``<area>/<verb>_<object>``, the file's path under ``cypher/`` without
``.cypher``."""


@functools.cache
def cypher_root() -> Traversable:
    """The folder holding the ``.cypher`` files (inside the wheel, else the source tree)."""
    packaged = files("graphmem").joinpath("cypher")
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parents[3] / "cypher"
    if source.is_dir():
        return source
    raise GraphmemError(
        "graphmem's Cypher files are missing: neither graphmem/cypher (a built wheel) nor "
        f"{source} (a source checkout) exists; reinstall graphmem"
    )


@functools.cache
def load_query(name: str) -> str:
    """Return the text of the query ``name`` (``<area>/<verb>_<object>``), read once.

    Raises:
        GraphmemError: No such query file (a bug in graphmem, not in the caller's input).
    """
    if not QUERY_NAME_PATTERN.fullmatch(name):
        raise GraphmemError(f"{name!r} is not a query name (area/verb_object)", query_name=name)
    area, stem = name.split("/")
    resource = cypher_root().joinpath(area).joinpath(f"{stem}.cypher")
    if not resource.is_file():
        raise GraphmemError(f"no Cypher file for query {name!r}", query_name=name)
    return resource.read_text(encoding="utf-8")


TYPE_SLOT = "__TYPE__"
"""Where a query file takes a relationship type written out (``-[r:__TYPE__]->``).

Neo4j 5.26.0 mis-plans a dynamic type, ``CREATE (a)-[r:$(row.type)]->(b)``: every
relationship of the batch, and of later batches, gets the first type the server ever
saw (fixed in later 5.26 patches). So a write whose type varies runs once per type with
the type spelled out; a type is spliced in only after the safe-name check."""


@functools.lru_cache(maxsize=4096)
def load_typed_query(name: str, rel_type: str) -> str:
    """The query ``name`` with its :data:`TYPE_SLOT` replaced by ``rel_type``.

    Raises:
        InvalidInput: ``rel_type`` is not a safe name.
        GraphmemError: The file has no type slot (a bug in graphmem).
    """
    check_safe_name(rel_type, "relationship type")
    text = load_query(name)
    if TYPE_SLOT not in text:
        raise GraphmemError(f"query {name!r} has no {TYPE_SLOT} slot", query_name=name)
    # A safe name has no backtick; the quotes keep a name that is also a keyword a type.
    return text.replace(TYPE_SLOT, f"`{rel_type}`")


def query_names() -> list[str]:
    """Every query name that has a file, sorted."""
    root = cypher_root()
    return sorted(
        f"{area.name}/{item.name.removesuffix('.cypher')}"
        for area in root.iterdir()
        if area.is_dir()
        for item in area.iterdir()
        if item.name.endswith(".cypher")
    )
