"""graphmem's Neo4j schema: neomodel node classes, and ``install_schema`` to apply them.

The four node labels are declared as neomodel classes. They carry the single-property
indexes (``tenant`` on every label), the full-text indexes on ``search_text`` (an
entity's name, aliases and description; a turn's content; a chunk's title and text;
see :mod:`graphmem.backends.neo4j.mapping`) and the cosine vector indexes on
``embedding`` that retrieval queries with ``db.index.vector.queryNodes`` /
``db.index.fulltext.queryNodes``. What neomodel cannot declare, the composite
``(tenant, id)`` uniqueness constraints and the composite indexes (``(tenant,
embedding_dim)`` among them), comes from ``cypher/schema/*.cypher``.

The full-text indexes use Lucene's ``english`` analyzer (stemming and English stop
words, like the embedded backend's stemmed tantivy index) and are not eventually
consistent, so a search sees every write committed before it.

The classes also give notebook users an OGM over the same data::

    from neomodel import db
    from graphmem.backends.neo4j.schema import EntityNode
    db.set_connection("neo4j://neo4j:password@localhost:7687")
    EntityNode.nodes.filter(tenant="village", type="npc")

Do not use neomodel's ``VectorFilter`` / ``FulltextFilter`` with user input: they paste
values into the query text. graphmem's own queries pass every value as a parameter.
"""

from __future__ import annotations

import contextlib
import io
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from neomodel import (
    ArrayProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    FulltextIndex,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    VectorIndex,
    ZeroOrOne,
    db,
    get_config,
)
from neomodel.exceptions import NeomodelException

from graphmem.backends.neo4j.store import (
    FULLTEXT_INDEXES,
    KEY_QUERIES,
    VECTOR_INDEXES,
    Neo4jStore,
    open_neo4j,
)
from graphmem.errors import BackendUnavailable, GraphmemError, InvalidInput

__all__ = [
    "DEFAULT_DIMENSION",
    "FULLTEXT_ANALYZER",
    "FULLTEXT_INDEXES",
    "NODE_CLASSES",
    "VECTOR_INDEXES",
    "ChunkNode",
    "ConversationNode",
    "EntityNode",
    "IndexState",
    "SchemaReport",
    "TurnNode",
    "install_schema",
]

DEFAULT_DIMENSION = 384
"""The embedding size of the default embedder (all-MiniLM-L6-v2)."""

SIMILARITY = "cosine"

FULLTEXT_ANALYZER = "english"


def _search_text() -> StringProperty:
    return StringProperty(
        fulltext_index=FulltextIndex(analyzer=FULLTEXT_ANALYZER, eventually_consistent=False)
    )


def _vector() -> ArrayProperty:
    return ArrayProperty(
        FloatProperty(),
        vector_index=VectorIndex(dimensions=DEFAULT_DIMENSION, similarity_function=SIMILARITY),
    )


class EntityNode(StructuredNode):
    """An ``(:Entity)``: see :mod:`graphmem.backends.neo4j.mapping` for every property."""

    __label__ = "Entity"
    tenant = StringProperty(required=True, index=True)
    uid = StringProperty(required=True, db_property="id")
    type = StringProperty(required=True)
    name = StringProperty(required=True)
    name_lower = StringProperty()
    attributes_json = StringProperty(default="{}")
    created_at = DateTimeNeo4jFormatProperty()
    updated_at = DateTimeNeo4jFormatProperty()
    search_text = _search_text()
    embedding = _vector()
    embedding_dim = IntegerProperty()


class TurnNode(StructuredNode):
    """A ``(:Turn)`` of a conversation; ``parent`` is the turn before it on its branch."""

    __label__ = "Turn"
    tenant = StringProperty(required=True, index=True)
    uid = StringProperty(required=True, db_property="id")
    session = StringProperty(required=True)
    role = StringProperty(required=True)
    speaker = StringProperty()
    content = StringProperty()
    summary = StringProperty()
    turn_id = StringProperty()
    created_at = DateTimeNeo4jFormatProperty()
    seq = IntegerProperty()
    search_text = _search_text()
    embedding = _vector()
    embedding_dim = IntegerProperty()
    parent = RelationshipTo("TurnNode", "PARENT", cardinality=ZeroOrOne)
    mentions = RelationshipTo("EntityNode", "MENTIONS")


class ConversationNode(StructuredNode):
    """A ``(:Conversation)``: one per session, ``head`` is its active branch's newest turn."""

    __label__ = "Conversation"
    tenant = StringProperty(required=True, index=True)
    uid = StringProperty(required=True, db_property="id")
    session = StringProperty(required=True)
    seq = IntegerProperty()
    head = RelationshipTo("TurnNode", "HEAD", cardinality=ZeroOrOne)


class ChunkNode(StructuredNode):
    """A ``(:Chunk)`` of lore or documents, mentioning entities."""

    __label__ = "Chunk"
    tenant = StringProperty(required=True, index=True)
    uid = StringProperty(required=True, db_property="id")
    text = StringProperty(required=True)
    source = StringProperty()
    attributes_json = StringProperty(default="{}")
    created_at = DateTimeNeo4jFormatProperty()
    search_text = _search_text()
    embedding = _vector()
    embedding_dim = IntegerProperty()
    mentions = RelationshipTo("EntityNode", "MENTIONS")


NODE_CLASSES: tuple[type[StructuredNode], ...] = (EntityNode, TurnNode, ConversationNode, ChunkNode)

_install_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class IndexState:
    """One index as the server reports it."""

    name: str
    type: str
    labels: tuple[str, ...]
    properties: tuple[str, ...]
    state: str
    population_percent: float
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SchemaReport:
    """What ``install_schema`` left on the server."""

    url: str
    dimension: int
    indexes: tuple[IndexState, ...]

    @property
    def online(self) -> bool:
        """Whether every index is ONLINE."""
        return all(index.state == "ONLINE" for index in self.indexes)


def _list_indexes(store: Neo4jStore) -> tuple[IndexState, ...]:
    return tuple(
        IndexState(
            name=row["name"],
            type=row["type"],
            labels=tuple(row["labelsOrTypes"] or ()),
            properties=tuple(row["properties"] or ()),
            state=row["state"],
            population_percent=float(row["populationPercent"] or 0.0),
            options=row["options"] or {},
        )
        for row in store.query("schema/list_indexes")
    )


def _install_node_classes(store: Neo4jStore, dimension: int, stdout: TextIO) -> None:
    # neomodel reads the dimension from the class's VectorIndex when it installs; the
    # classes are process-wide, so this runs under a lock and puts the default back.
    config = get_config()
    previous_database = config.database_name
    vector_properties = [
        cls.defined_properties()["embedding"]
        for cls in NODE_CLASSES
        if "embedding" in cls.defined_properties()
    ]
    try:
        for prop in vector_properties:
            prop.vector_index = VectorIndex(dimensions=dimension, similarity_function=SIMILARITY)
        config.database_name = store.database
        db.set_connection(driver=store.driver)
        for cls in NODE_CLASSES:
            db.install_labels(cls, quiet=False, stdout=stdout)
    finally:
        for prop in vector_properties:
            prop.vector_index = VectorIndex(
                dimensions=DEFAULT_DIMENSION, similarity_function=SIMILARITY
            )
        config.database_name = previous_database


def _check_dimensions(indexes: Sequence[IndexState], dimension: int) -> None:
    for index in indexes:
        if index.name not in VECTOR_INDEXES.values():
            continue
        config = index.options.get("indexConfig") or {}
        existing = config.get("vector.dimensions")
        if existing is not None and int(existing) != dimension:
            raise InvalidInput(
                f"vector index {index.name} exists with dimension {existing}, not {dimension}; "
                f"drop it first (DROP INDEX {index.name}) to re-index with the new embedder",
                index=index.name,
                dimension=int(existing),
            )


def install_schema(
    url: str,
    *,
    dimension: int = DEFAULT_DIMENSION,
    wait: bool = True,
    timeout: float = 300.0,
    stdout: TextIO | None = None,
    **options: Any,
) -> SchemaReport:
    """Apply graphmem's schema to a Neo4j database; safe to run any number of times.

    Creates the ``(tenant, id)`` uniqueness constraints and composite indexes (from
    ``cypher/schema``), then installs the neomodel classes' indexes: ``tenant`` range
    indexes, full-text indexes and cosine vector indexes of ``dimension``.

    Args:
        url: The store URL (``neo4j://user:password@host:7687/database``).
        dimension: The embedding size (384 for the default embedder).
        wait: Block until every index is ONLINE.
        timeout: How long to wait, in seconds.
        stdout: Where neomodel's progress lines go (default: discarded).
        **options: Connection options, as for ``open_neo4j``.

    Returns:
        The indexes and their states.

    Raises:
        InvalidInput: A bad dimension, or a vector index of another dimension exists.
        BackendUnavailable: The server cannot be reached, or indexes did not come online.
    """
    if isinstance(dimension, bool) or not isinstance(dimension, int) or not 1 <= dimension <= 4096:
        raise InvalidInput(f"dimension must be an integer in 1..4096, got {dimension!r}")
    store = open_neo4j(url, ensure_schema=False, **options)
    out = stdout if stdout is not None else io.StringIO()
    try:
        for name in KEY_QUERIES:
            store.query(name, write=True)
        with _install_lock:
            try:
                _install_node_classes(store, dimension, out)
            except NeomodelException as exc:
                raise GraphmemError(
                    f"neomodel could not install the schema on {store.url}: {exc}", url=store.url
                ) from exc
            except GraphmemError:
                raise
            except Exception as exc:
                raise store.translate(exc) from exc
        indexes = _list_indexes(store)
        _check_dimensions(indexes, dimension)
        if wait:
            deadline = time.monotonic() + timeout
            while True:
                indexes = _list_indexes(store)
                failed = [i.name for i in indexes if i.state == "FAILED"]
                if failed:
                    raise BackendUnavailable(
                        f"indexes failed to build on {store.url}: {', '.join(failed)}; see "
                        "SHOW INDEXES and the server log, drop them and install again",
                        url=store.url,
                        indexes=failed,
                    )
                if all(i.state == "ONLINE" for i in indexes):
                    break
                if time.monotonic() > deadline:
                    pending = [f"{i.name} ({i.state})" for i in indexes if i.state != "ONLINE"]
                    raise BackendUnavailable(
                        f"indexes on {store.url} not online after {timeout:.0f} s: "
                        f"{', '.join(pending)}",
                        url=store.url,
                        indexes=pending,
                    )
                # db.awaitIndexes fails when its own timeout passes: then poll again.
                with contextlib.suppress(InvalidInput):
                    store.query("schema/await_indexes", {"seconds": 5})
        return SchemaReport(url=store.url, dimension=dimension, indexes=indexes)
    finally:
        store.close()
