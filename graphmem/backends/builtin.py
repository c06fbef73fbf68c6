"""The built-in backends as :class:`~graphmem.core.registry.Backend` objects.

They join the registry the way a plugin does, through the ``graphmem.backends``
entry-point group in ``pyproject.toml``. This module is small on purpose: loading an
entry point imports it, and it imports neither networkx nor the Neo4j driver (each
backend's module is imported when a store is first opened).
"""

from graphmem.core.registry import Backend

__all__ = ["NEO4J", "NETWORKX"]

NETWORKX = Backend(
    name="networkx",
    schemes=("memory", "file"),
    factory="graphmem.backends.networkx:open_networkx",
    read_only=True,
    checker="graphmem.backends.networkx.sqlite_check:check_url",
)
"""The embedded backend: ``memory://`` and ``file:///path/world.graphmem``."""

NEO4J = Backend(
    name="neo4j",
    schemes=("neo4j", "neo4j+s", "bolt", "bolt+s"),
    factory="graphmem.backends.neo4j:open_neo4j",
    schema_installer="graphmem.backends.neo4j.schema:install_schema",
    extra="neo4j",
)
"""Neo4j 5.26+ through the official driver (the ``neo4j`` extra)."""
