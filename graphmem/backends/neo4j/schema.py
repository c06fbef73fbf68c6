"""graphmem's Neo4j schema: neomodel node classes, and ``install_schema`` to apply them.

The four node labels are declared as neomodel classes. They carry the single-property
indexes (``tenant`` on every label), the full-text indexes on ``search_text`` (an
entity's name, aliases and description; a turn's content; a chunk's title and text;
see :mod:`graphmem.backends.neo4j.mapping`) and the cosine vector indexes on
``embedding`` that retrieval queries with ``db.index.vector.queryNodes`` /
``db.index.fulltext.queryNodes``. What neomodel cannot declare, the composite
``(tenant, id)`` uniqueness constraints and the composite indexes (``(tenant,
embedding_dim)`` among them), comes from ``cypher/schema/*.cypher``; so do the vector
indexes themselves, created before neomodel's turn with the options neomodel cannot set
(vector quantization, see :data:`DEFAULT_QUANTIZATION`).

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
from graphmem.core.errors import BackendUnavailable, GraphmemError, InvalidInput

__all__ = [
    "DEFAULT_DIMENSION",
    "DEFAULT_QUANTIZATION",
    "EVENTUALLY_CONSISTENT",
    "FULLTEXT_ANALYZER",
    "FULLTEXT_INDEXES",
    "NODE_CLASSES",
    "VECTOR_INDEXES",
    "ChunkNode",
    "ConversationNode",
    "EntityNode",
    "IndexState",
    "LEGACY_TENANT_INDEXES",
    "VECTOR_INDEX_QUERIES",
    "SchemaReport",
    "TurnNode",
    "install_schema",
    "vector_index_mismatches",
    "vector_index_quantized",
]

DEFAULT_DIMENSION = 384
"""The embedding size of the default embedder (all-MiniLM-L6-v2)."""

DEFAULT_QUANTIZATION = False
"""Whether the vector indexes quantize vectors (``vector.quantization.enabled``).

Neo4j 5.26 turns quantization on by default: the index keeps compressed vectors, which
takes about a quarter of the memory, and the scores it returns are off from the exact
cosine by up to about 0.006, enough to swap near ties (measured on a live server, issue
16). graphmem's default is off: a vector search returns the cosine the contract
promises, in the order the embedded backend gives. Turn it on
(``install_schema(quantization=True)``, ``graphmem schema install --quantization on``)
for indexes too large for the page cache, accepting approximate scores."""

VECTOR_INDEX_QUERIES: Mapping[str, str] = {
    "Entity": "schema/create_entity_vector_index",
    "Turn": "schema/create_turn_vector_index",
    "Chunk": "schema/create_chunk_vector_index",
}
"""The query creating each label's vector index (named as in ``VECTOR_INDEXES``)."""

SIMILARITY = "cosine"

FULLTEXT_ANALYZER = "english"


def _search_text() -> StringProperty:
    # Eventually consistent: see EVENTUALLY_CONSISTENT.
    return StringProperty(
        fulltext_index=FulltextIndex(analyzer=FULLTEXT_ANALYZER, eventually_consistent=True)
    )


EVENTUALLY_CONSISTENT = frozenset({"Entity", "Turn", "Chunk"})
"""The labels whose full-text index is updated after the commit, not in it: every one.
A synchronous Lucene update was most of a turn append's commit (170-183 appends a second
with it, 440-655 without, on a 5.26.0 server) and a third of an entity batch's (6,300-
7,100 entities a second against 8,200-9,900, same run). Every full-text search first
waits for the pending updates (``db.index.fulltext.awaitEventuallyConsistentIndexRefresh``),
so a node is found by the first search after its write."""

LEGACY_TENANT_INDEXES = tuple(
    f"index_{label}_tenant" for label in ("Entity", "Turn", "Conversation", "Chunk")
)
"""Single-property ``tenant`` range indexes an earlier graphmem declared through neomodel:
on a store whose statistics say it is empty the planner preferred them to the
``(tenant, id)`` uniqueness index and read every node of the tenant per row. Dropped by
``install_schema``."""


def _vector() -> ArrayProperty:
    return ArrayProperty(
        FloatProperty(),
        vector_index=VectorIndex(dimensions=DEFAULT_DIMENSION, similarity_function=SIMILARITY),
    )


class EntityNode(StructuredNode):
    """An ``(:Entity)``: see :mod:`graphmem.backends.neo4j.mapping` for every property."""

    __label__ = "Entity"
    tenant = StringProperty(required=True)
    uid = StringProperty(required=True, db_property="id")
    type = StringProperty(required=True)
    name = StringProperty(required=True)
    name_lower = StringProperty()
    name_lower_long = StringProperty()
    attributes_json = StringProperty(default="{}")
    created_at = DateTimeNeo4jFormatProperty()
    updated_at = DateTimeNeo4jFormatProperty()
    search_text = _search_text()
    embedding = _vector()
    embedding_dim = IntegerProperty()


class TurnNode(StructuredNode):
    """A ``(:Turn)`` of a conversation; ``parent`` is the turn before it on its branch."""

    __label__ = "Turn"
    tenant = StringProperty(required=True)
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
    tenant = StringProperty(required=True)
    uid = StringProperty(required=True, db_property="id")
    session = StringProperty(required=True)
    seq = IntegerProperty()
    head = RelationshipTo("TurnNode", "HEAD", cardinality=ZeroOrOne)


class ChunkNode(StructuredNode):
    """A ``(:Chunk)`` of lore or documents, mentioning entities."""

    __label__ = "Chunk"
    tenant = StringProperty(required=True)
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
    quantization: bool = DEFAULT_QUANTIZATION

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


def _install_node_classes(store: Neo4jStore, stdout: TextIO) -> None:
    # The vector indexes come from cypher/schema (neomodel cannot set their quantization,
    # and would fail on an index of the same name with other options): hide the classes'
    # VectorIndex from install_labels. The classes are process-wide, so this runs under a
    # lock and puts the declaration back (notebook users' OGM sees it).
    config = get_config()
    previous_database = config.database_name
    vector_properties = [
        cls.defined_properties()["embedding"]
        for cls in NODE_CLASSES
        if "embedding" in cls.defined_properties()
    ]
    try:
        for prop in vector_properties:
            prop.vector_index = None
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


def vector_index_quantized(index: IndexState) -> bool:
    """Whether a vector index quantizes its vectors, from its SHOW INDEXES options.

    An index reports ``vector.quantization.enabled``; one that does not is of the first
    vector index provider (``vector-1.0``), which had no quantization, unless its
    provider is a later one, whose default is on.
    """
    config = index.options.get("indexConfig") or {}
    setting = config.get("vector.quantization.enabled")
    if setting is not None:
        return bool(setting)
    return str(index.options.get("indexProvider", "")) not in ("", "vector-1.0")


def _fulltext_mismatches(indexes: Sequence[IndexState]) -> list[str]:
    """The full-text indexes of graphmem whose consistency setting is not the declared one."""
    out = []
    for index in indexes:
        label = next((k for k, v in FULLTEXT_INDEXES.items() if v == index.name), None)
        if label is None:
            continue
        config = index.options.get("indexConfig") or {}
        eventual = bool(config.get("fulltext.eventually_consistent", False))
        if eventual != (label in EVENTUALLY_CONSISTENT):
            out.append(index.name)
    return out


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def vector_index_mismatches(
    indexes: Sequence[IndexState], dimension: int, quantization: bool
) -> list[tuple[IndexState, str]]:
    """The vector indexes of graphmem whose dimension or quantization differ from those asked.

    Returns:
        ``(index, what differs)`` for each, e.g. ``"dimension 768, not 384"``.
    """
    out: list[tuple[IndexState, str]] = []
    for index in indexes:
        if index.name not in VECTOR_INDEXES.values():
            continue
        config = index.options.get("indexConfig") or {}
        existing = config.get("vector.dimensions")
        differences = []
        if existing is not None and int(existing) != dimension:
            differences.append(f"dimension {int(existing)}, not {dimension}")
        quantized = vector_index_quantized(index)
        if quantized != quantization:
            differences.append(f"quantization {_on(quantized)}, not {_on(quantization)}")
        if differences:
            out.append((index, " and ".join(differences)))
    return out


def _refuse_mismatches(mismatches: Sequence[tuple[IndexState, str]]) -> None:
    if not mismatches:
        return
    index, what = mismatches[0]
    config = index.options.get("indexConfig") or {}
    existing = config.get("vector.dimensions")
    raise InvalidInput(
        "vector index "
        + "; ".join(f"{i.name} exists with {w}" for i, w in mismatches)
        + f"; drop it first (DROP INDEX {index.name}) or install with "
        "rebuild_vector_indexes=True (graphmem schema install --rebuild-vector-indexes) "
        "to re-index with the new settings",
        index=index.name,
        dimension=None if existing is None else int(existing),
        indexes=[i.name for i, _ in mismatches],
    )


def install_schema(
    url: str,
    *,
    dimension: int = DEFAULT_DIMENSION,
    quantization: bool = DEFAULT_QUANTIZATION,
    rebuild_vector_indexes: bool = False,
    wait: bool = True,
    timeout: float = 300.0,
    stdout: TextIO | None = None,
    **options: Any,
) -> SchemaReport:
    """Apply graphmem's schema to a Neo4j database; safe to run any number of times.

    Creates the ``(tenant, id)`` uniqueness constraints and composite indexes and the
    cosine vector indexes of ``dimension`` (from ``cypher/schema``), then installs the
    neomodel classes' full-text indexes (the turns' one eventually consistent: see
    :data:`EVENTUALLY_CONSISTENT`). Drops the single-property ``tenant`` indexes of earlier
    versions (:data:`LEGACY_TENANT_INDEXES`) and re-creates a full-text index whose
    consistency setting is not the declared one.

    Args:
        url: The store URL (``neo4j://user:password@host:7687/database``).
        dimension: The embedding size (384 for the default embedder).
        quantization: Whether the vector indexes quantize vectors (default
            :data:`DEFAULT_QUANTIZATION`, off: exact cosine scores).
        rebuild_vector_indexes: Drop and re-create a vector index that exists with
            another dimension or quantization (its vectors stay on the nodes and are
            indexed again). Without it such an index is refused.
        wait: Block until every index is ONLINE.
        timeout: How long to wait, in seconds.
        stdout: Where neomodel's progress lines go (default: discarded).
        **options: Connection options, as for ``open_neo4j``.

    Returns:
        The indexes and their states.

    Raises:
        InvalidInput: A bad dimension, or a vector index exists with another dimension or
            quantization (and ``rebuild_vector_indexes`` is not set).
        BackendUnavailable: The server cannot be reached, or indexes did not come online.
    """
    if isinstance(dimension, bool) or not isinstance(dimension, int) or not 1 <= dimension <= 4096:
        raise InvalidInput(f"dimension must be an integer in 1..4096, got {dimension!r}")
    if not isinstance(quantization, bool):
        raise InvalidInput(f"quantization must be True or False, got {quantization!r}")
    store = open_neo4j(url, ensure_schema=False, **options)
    out = stdout if stdout is not None else io.StringIO()
    try:
        for name in KEY_QUERIES:
            store.query(name, write=True)
        mismatches = vector_index_mismatches(_list_indexes(store), dimension, quantization)
        if not rebuild_vector_indexes:
            _refuse_mismatches(mismatches)
        for index, _ in mismatches:
            store.query("schema/drop_index", {"name": index.name}, write=True)
        for name in (*LEGACY_TENANT_INDEXES, *_fulltext_mismatches(_list_indexes(store))):
            store.query("schema/drop_index", {"name": name}, write=True)
        for name in VECTOR_INDEX_QUERIES.values():
            params = {"dimension": dimension, "quantization": quantization}
            store.query(name, params, write=True)
        with _install_lock:
            try:
                _install_node_classes(store, out)
            except NeomodelException as exc:
                raise GraphmemError(
                    f"neomodel could not install the schema on {store.url}: {exc}", url=store.url
                ) from exc
            except GraphmemError:
                raise
            except Exception as exc:
                raise store.translate(exc) from exc
        indexes = _list_indexes(store)
        _refuse_mismatches(vector_index_mismatches(indexes, dimension, quantization))
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
        return SchemaReport(
            url=store.url, dimension=dimension, indexes=indexes, quantization=quantization
        )
    finally:
        store.close()
