"""The Neo4j backend: :class:`Neo4jStore` on Neo4j 5.26+ (Community is enough).

Registered for ``neo4j://``, ``neo4j+s://``, ``bolt://`` and ``bolt+s://`` URLs; needs the
``neo4j`` extra (``pip install 'graphmem[neo4j]'``), which installs the official driver and
neomodel. Importing this package imports neither: :func:`open_neo4j` does, on first use.

The queries live in ``cypher/<area>/<verb>_<object>.cypher`` (see :mod:`.queries`), the
storage layout is described in :mod:`.mapping`, and the schema (uniqueness constraints,
vector and full-text indexes, declared with neomodel) is installed by
:func:`graphmem.backends.neo4j.schema.install_schema`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.backends.neo4j.store import Neo4jStore

__all__ = ["Neo4jStore", "open_neo4j"]


def open_neo4j(url: str, **options: Any) -> Neo4jStore:
    """Open a store on Neo4j; see :func:`graphmem.backends.neo4j.store.open_neo4j`."""
    try:
        from graphmem.backends.neo4j.store import open_neo4j as _open
    except ImportError as exc:  # the extra is not installed
        raise ImportError(
            f"the Neo4j backend needs the neo4j extra ({exc}); pip install 'graphmem[neo4j]'"
        ) from exc
    return _open(url, **options)


def __getattr__(name: str) -> Any:
    if name == "Neo4jStore":
        from graphmem.backends.neo4j.store import Neo4jStore

        return Neo4jStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
