"""``Neo4jStore``: the whole GraphStore contract on Neo4j 5.26, one Cypher file per query.

Every graph question (identity snapshot, neighbours, path, visible subgraph, the active
branch, append, fork, delete of a turn) is one query, so one round trip. Batch writes
are ``UNWIND $rows AS row`` queries in one managed transaction per batch (rows are sent
in slices of :data:`BATCH_ROWS`, all in that one transaction), so a failed batch writes
nothing and transient errors (deadlocks, leader changes) are retried by the driver.

Input is validated in Python before anything is sent; what only the server can see
(missing relationship ends, a turn id that is taken) is checked inside the write
transaction, and the exception rolls it back. Driver errors are translated here, at
the boundary, into graphmem's error tree.

How the data is laid out is described in :mod:`graphmem.backends.neo4j.mapping`.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, LiteralString, TypeVar

import neo4j
from neo4j import exceptions as neo4j_errors

from graphmem.backends import composed
from graphmem.backends.neo4j.connection import ConnectionSettings, parse_connection
from graphmem.backends.neo4j.fulltext import lucene_query
from graphmem.backends.neo4j.mapping import (
    attribute_columns,
    chunk_from_row,
    chunk_props,
    entity_from_row,
    entity_props,
    record_from_row,
    record_props,
    relationship_from_row,
    relationship_props,
    to_datetime,
    turn_from_row,
    turn_props,
    wire_time,
)
from graphmem.backends.neo4j.queries import load_query
from graphmem.backends.search import as_matrix
from graphmem.checks import (
    MAX_DEPTH,
    check_arguments,
    check_depth,
    check_id,
    check_ids,
    check_positive,
    check_safe_names,
)
from graphmem.errors import (
    BackendUnavailable,
    GraphmemError,
    InvalidInput,
    NotFound,
    StoreClosed,
    UnsupportedOperation,
)
from graphmem.models import (
    Chunk,
    Direction,
    Entity,
    EntityFilter,
    NodeKind,
    NPCIdentity,
    Record,
    Relationship,
    RelationshipFilter,
    SessionInfo,
    Subgraph,
    Turn,
    TurnFilter,
    check_safe_name,
    utcnow,
)
from graphmem.store import (
    ChangeSet,
    Gathered,
    JSONScalar,
    RelationshipPattern,
    RoleCooccurrence,
    SearchContext,
    SearchHit,
    SearchPair,
    TenantDump,
    Tracer,
    as_utc,
    check_changes,
    check_owner,
    check_record_deletes,
    check_search_kinds,
    check_tenant,
    check_where,
    check_window_depth,
    search_each,
    stored_changes,
    traced,
)

__all__ = [
    "BATCH_ROWS",
    "EMBEDDING_ROWS",
    "FULLTEXT_INDEXES",
    "INDEX_CACHE_SECONDS",
    "KEY_QUERIES",
    "MAX_DEPTH",
    "MAX_VECTOR_FETCH",
    "MIN_FETCH",
    "NO_LIMIT",
    "OVERFETCH",
    "VECTOR_INDEXES",
    "Neo4jStore",
    "open_neo4j",
]

T = TypeVar("T")
Rows = list[dict[str, Any]]

BATCH_ROWS = 5_000
"""Rows per ``UNWIND`` query of a batch write (one round trip each, one transaction)."""

KEY_QUERIES: tuple[str, ...] = (
    "schema/create_entity_key",
    "schema/create_turn_key",
    "schema/create_conversation_key",
    "schema/create_chunk_key",
    "schema/create_record_key",
    "schema/create_record_owner_index",
    "schema/create_turn_session_index",
    "schema/create_entity_type_index",
    "schema/create_entity_name_index",
    "schema/create_entity_embedding_index",
    "schema/create_turn_embedding_index",
    "schema/create_chunk_embedding_index",
)
"""The constraints and indexes correctness and speed depend on, applied on open."""

EMBEDDING_ROWS = 1_000
"""Vectors per query of ``put_embeddings`` (one round trip each, one transaction)."""

VECTOR_INDEXES: Mapping[str, str] = {
    "Entity": "vector_index_Entity_embedding",
    "Turn": "vector_index_Turn_embedding",
    "Chunk": "vector_index_Chunk_embedding",
}
"""Vector index names by label (neomodel's naming), for ``db.index.vector.queryNodes``."""

FULLTEXT_INDEXES: Mapping[str, str] = {
    "Entity": "fulltext_index_Entity_search_text",
    "Turn": "fulltext_index_Turn_search_text",
    "Chunk": "fulltext_index_Chunk_search_text",
}
"""Full-text index names by label (neomodel's naming), for ``db.index.fulltext.queryNodes``."""

OVERFETCH = 4
"""The indexes are shared by all tenants: ask them for ``k * OVERFETCH`` hits, and grow
the request by this factor while the tenant's (and scope's) hits do not fill ``k``."""

MIN_FETCH = 64
"""The smallest number of hits asked of a shared index."""

MAX_VECTOR_FETCH = 4_096
"""The largest vector-index request; beyond it one exact scan of the tenant answers."""

DEFAULT_RETRY_SECONDS = 30.0
"""How long a retryable error is retried when ``max_transaction_retry_time`` is not given
(the driver's default)."""

RETRY_DELAY = 0.05
"""The first wait before an auto-commit read is retried (doubling, up to 1 s, with jitter,
for up to the driver's ``max_transaction_retry_time``, 30 s unless given)."""

INDEX_CACHE_SECONDS = 60.0
"""How long a store trusts the list of vector indexes it read (name, state, dimension)."""

NO_LIMIT = 2**31 - 1
"""The "no limit" value of ``$limit`` / ``$max_nodes`` parameters, and the cap of any limit
a caller gives: Neo4j takes a list index or slice bound only as a 32-bit integer
(``[..$limit]`` fails with "Expected an integer between -2147483648 and 2147483647"), so
a larger value is never sent. No query returns that many rows."""

_PROCEDURE_FAILED = "Neo.ClientError.Procedure.ProcedureCallFailed"
_DIRECTIONS = ("out", "in", "both")
_MENTION_KINDS = ("turn", "chunk")
_ALREADY_EXISTS = (
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.ConstraintAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists",
)
# Flags that are not operations (the operations are the rooms the store satisfies).
_CAPABILITIES = frozenset({"persistence", "concurrent_writers"})


@dataclass(frozen=True, slots=True)
class _MentionQueries:
    link: str
    get: str
    find: str
    add: str


@dataclass(frozen=True, slots=True)
class _KindQueries:
    """The label and query files of one node kind (entity, turn, chunk)."""

    label: str
    put_embeddings: str
    count_embeddings: str
    query_vectors: str
    scan_vectors: str
    query_text: str
    mentions: _MentionQueries | None = None


_KINDS: Mapping[str, _KindQueries] = {
    "entity": _KindQueries(
        label="Entity",
        put_embeddings="embeddings/put_entity_embeddings",
        count_embeddings="embeddings/count_entity_embeddings",
        query_vectors="search/query_entity_vectors",
        scan_vectors="search/scan_entity_vectors",
        query_text="search/query_entity_text",
    ),
    "turn": _KindQueries(
        label="Turn",
        put_embeddings="embeddings/put_turn_embeddings",
        count_embeddings="embeddings/count_turn_embeddings",
        query_vectors="search/query_turn_vectors",
        scan_vectors="search/scan_turn_vectors",
        query_text="search/query_turn_text",
        mentions=_MentionQueries(
            link="mentions/link_turn_mentions",
            get="mentions/get_turn_mentions",
            find="mentions/find_mentioning_turns",
            add="tenant/add_turn_mentions",
        ),
    ),
    "chunk": _KindQueries(
        label="Chunk",
        put_embeddings="embeddings/put_chunk_embeddings",
        count_embeddings="embeddings/count_chunk_embeddings",
        query_vectors="search/query_chunk_vectors",
        scan_vectors="search/scan_chunk_vectors",
        query_text="search/query_chunk_text",
        mentions=_MentionQueries(
            link="mentions/link_chunk_mentions",
            get="mentions/get_chunk_mentions",
            find="mentions/find_mentioning_chunks",
            add="tenant/add_chunk_mentions",
        ),
    ),
}
"""Every kind's queries, so the retrieval operations are written once for all kinds."""


def _node_kind(kind: object) -> _KindQueries:
    spec = _KINDS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        raise InvalidInput(f"kind must be one of {tuple(_KINDS)}, got {kind!r}", kind=kind)
    return spec


def _mention_queries(kind: object) -> _MentionQueries:
    spec = _node_kind(kind)
    if spec.mentions is None:
        raise InvalidInput(
            f"kind must be one of ('turn', 'chunk') for mentions, got {kind!r}", kind=kind
        )
    return spec.mentions


def _limit(value: int | None) -> int:
    """A limit as sent to the server: :data:`NO_LIMIT` for none, and never above it."""
    return NO_LIMIT if value is None else min(value, NO_LIMIT)


def _check_scope(scope_ids: Sequence[str] | None) -> list[str] | None:
    if scope_ids is None:
        return None
    return list(dict.fromkeys(check_ids(scope_ids, "scope_ids")))


def _check_stored_dimension(stored: object, dimension: int, what: str) -> None:
    """InvalidInput when the tenant's vectors of a kind have another dimension."""
    if stored is not None and int(stored) != dimension:  # type: ignore[call-overload]
        raise InvalidInput(
            f"{what} have dimension {dimension} but the index holds vectors of dimension "
            f"{stored}; embed with the same model as before (or clear the index)",
            dimension=dimension,
            expected=stored,
        )


def _cosine(score: float) -> float:
    """The contract's cosine similarity from Neo4j's cosine score, (1 + cos) / 2."""
    return min(1.0, max(-1.0, 2.0 * float(score) - 1.0))


def _vector_hits(hits: Iterable[Mapping[str, Any]]) -> list[SearchHit]:
    return [SearchHit(hit["id"], _cosine(hit["score"])) for hit in hits]


def _text_hits(hits: Iterable[Mapping[str, Any]]) -> list[SearchHit]:
    return [SearchHit(hit["id"], float(hit["score"])) for hit in hits]


def _first_fetch(k: int) -> int:
    """What a shared index is asked for first: ``k * OVERFETCH``, at least MIN_FETCH."""
    return max(k * OVERFETCH, MIN_FETCH)


def _vector_index_dimensions(indexes: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The ONLINE vector indexes of a SHOW INDEXES listing, by name, with their dimension."""
    out: dict[str, int] = {}
    for index in indexes:
        if index.get("type") != "VECTOR" or index.get("state") != "ONLINE":
            continue
        config = (index.get("options") or {}).get("indexConfig") or {}
        dimension = config.get("vector.dimensions")
        if dimension is not None:
            out[index["name"]] = int(dimension)
    return out


def _slices(rows: Sequence[T], size: int = BATCH_ROWS) -> Iterator[Sequence[T]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _as_utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _check_items(items: object, model: type[T], what: str) -> list[T]:
    if isinstance(items, (model, str, Mapping)) or not isinstance(items, Iterable):  # noqa: UP038
        raise InvalidInput(f"{what} takes a list of {model.__name__}; wrap one in [...]")
    out = list(items)
    for index, item in enumerate(out):
        if not isinstance(item, model):
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}, not a {model.__name__}",
                index=index,
            )
    return out


def _check_chunks(items: object, what: str) -> list[Chunk]:
    chunks = _check_items(items, Chunk, what)
    for index, chunk in enumerate(chunks):
        check_id(chunk.id, f"{what}[{index}] id")
    return chunks


def _check_entities(items: object, what: str) -> list[Entity]:
    entities = _check_items(items, Entity, what)
    for index, entity in enumerate(entities):
        # model_construct skips validation: never trust a type that reaches the store.
        check_safe_name(entity.type, f"{what}[{index}] type")
        check_id(entity.id, f"{what}[{index}] id")
    return entities


def _check_relationships(items: object, what: str) -> list[Relationship]:
    rels = _check_items(items, Relationship, what)
    for index, rel in enumerate(rels):
        # The type becomes a relationship type through $(...): check it here, always.
        check_safe_name(rel.type, f"{what}[{index}] type")
        check_id(rel.source_id, f"{what}[{index}] source_id")
        check_id(rel.target_id, f"{what}[{index}] target_id")
    return rels


def _check_direction(value: object) -> str:
    if not isinstance(value, str) or value not in _DIRECTIONS:
        raise InvalidInput(f"direction must be one of out, in, both; got {value!r}", value=value)
    return value


def _check_records(items: object, kind: str | None, what: str) -> list[Record]:
    """Records of a batch, each of ``kind`` (when given) and with a safe kind name."""
    checked = _check_items(items, Record, what)
    for index, record in enumerate(checked):
        check_safe_name(record.kind, f"{what}[{index}].kind")
        if record.owner is not None:
            check_owner(record.owner)
        if record.blob is not None and not isinstance(record.blob, bytes):
            raise InvalidInput(f"{what}[{index}].blob must be bytes", index=index)
        if kind is not None and record.kind != kind:
            raise InvalidInput(
                f"{what}[{index}] is of kind {record.kind!r}, not {kind!r}; put records of "
                "one kind per call. Nothing was written.",
                index=index,
            )
    return checked


def _clock_mode(
    as_of: datetime | None, recorded_as_of: datetime | None
) -> tuple[str, datetime, datetime | None]:
    """The ``$mode, $at, $recorded`` of a relationship read at two clocks (Relationship.held)."""
    if as_of is not None:
        return "as_of", as_of, recorded_as_of
    if recorded_as_of is not None:
        return "current", recorded_as_of, recorded_as_of
    return "current", utcnow(), None


_Written = tuple[list[Record], list[Entity], list[Relationship]]
"""What a ``write_changes`` transaction stored: records, entities, relationships."""


def _dedupe(items: Sequence[T], key: Callable[[T], object]) -> list[T]:
    # The last item with a key wins, at the position of the first (like dict assignment).
    latest: dict[object, T] = {}
    for item in items:
        latest[key(item)] = item
    return list(latest.values())


def _check_bookmarks(bookmarks: object) -> list[str]:
    if isinstance(bookmarks, str) or not isinstance(bookmarks, Iterable):
        raise InvalidInput("bookmarks takes a list of bookmark strings (store.bookmarks)")
    values = list(bookmarks)
    for value in values:
        if not isinstance(value, str) or not value:
            raise InvalidInput(f"a bookmark is a non-empty string, got {value!r}")
    return values


def _result_rows(result: neo4j.Result) -> Rows:
    """Every record of a result as a dict (the result transformer of ``execute_query``)."""
    return [record.data() for record in result]


def _entity_row(entity: Entity, tenant: str) -> dict[str, Any]:
    return {
        "id": entity.id,
        "created_at": wire_time(entity.created_at),
        "updated_at": wire_time(entity.updated_at),
        "props": entity_props(entity, tenant),
    }


def _record_row(record: Record, tenant: str) -> dict[str, Any]:
    return {
        "id": record.id,
        "created_at": wire_time(record.created_at),
        "updated_at": wire_time(record.updated_at),
        "props": record_props(record, tenant),
    }


_RELATIONSHIP_TIMES = ("valid_at", "invalid_at", "expired_at")


def _relationship_row(index: int, rel: Relationship, tenant: str) -> dict[str, Any]:
    """A row of relationships/upsert_relationships: times as text, next to the props."""
    props = relationship_props(rel, tenant)
    row = {
        "index": index,
        "source_id": rel.source_id,
        "target_id": rel.target_id,
        "type": rel.type,
        "created_at": wire_time(rel.created_at),
        "props": {k: v for k, v in props.items() if k not in _RELATIONSHIP_TIMES},
    }
    row.update((key, wire_time(props[key])) for key in _RELATIONSHIP_TIMES)
    return row


def _relationship_key(rel: Relationship) -> tuple[str, str, str]:
    return rel.key


_CONNECTION_ERRORS = (
    neo4j_errors.ServiceUnavailable,  # includes IncompleteCommit, handled first
    neo4j_errors.SessionExpired,
    neo4j_errors.ConnectionPoolError,
)
"""Driver errors that mean the server could not be reached or the connection broke."""


def _translate(exc: Exception, url: str, query_name: str | None) -> GraphmemError:
    """A driver error as graphmem's error, naming the URL (never the password).

    Only what trying again later can cure is ``BackendUnavailable``: a server that cannot
    be reached or dropped the connection, refused credentials or a missing database
    (the store cannot be opened), and the errors the driver itself calls retryable
    (``TransientError``: deadlocks, leader changes, a database that is starting, memory
    pressure) once its retries are spent, plus a transaction the server timed out or
    terminated. A statement the server cannot run (``Neo.ClientError.Statement.*``,
    ``Neo.DatabaseError.*``) is graphmem's bug or the server's failure, never an outage:
    ``GraphmemError``, so it is not retried in vain. A broken uniqueness rule is
    ``InvalidInput``.
    """
    data: dict[str, Any] = {"url": url, "query_name": query_name}
    where = f" in query {query_name}" if query_name else ""
    if isinstance(exc, neo4j_errors.AuthError):
        return BackendUnavailable(
            f"Neo4j at {url} refused the credentials ({exc.message}); check the user and "
            "password in the URL or the user= / password= options",
            **data,
        )
    if isinstance(exc, neo4j_errors.Neo4jError):
        code = exc.code or ""
        message = exc.message or str(exc)
        data["code"] = code
        if code == "Neo.ClientError.Database.DatabaseNotFound":
            return BackendUnavailable(
                f"Neo4j at {url} has no such database ({message}); create it or name an "
                "existing one (neo4j://host/<database> or database=)",
                **data,
            )
        if isinstance(exc, neo4j_errors.ConstraintError):
            return InvalidInput(
                f"the write breaks a uniqueness rule{where}: {message} (an id that is "
                "already taken?); nothing was written",
                **data,
            )
        if isinstance(exc, neo4j_errors.TransientError) or exc.is_retryable():
            return BackendUnavailable(
                f"Neo4j at {url} could not complete the operation for now{where}: {message}; "
                "nothing was written, try again",
                **data,
            )
        if isinstance(exc, neo4j_errors.DatabaseError):
            return GraphmemError(
                f"Neo4j at {url} failed to run{where}: {message} ({code}: a failure of the "
                "statement or the server, not an outage; trying again will not help, see "
                "the server's log)",
                **data,
            )
        if isinstance(exc, neo4j_errors.Forbidden):
            return GraphmemError(
                f"Neo4j at {url} does not allow this{where}: {message}; the user needs "
                "read and write rights on the database",
                **data,
            )
        if isinstance(exc, neo4j_errors.CypherSyntaxError) or code.startswith(
            "Neo.ClientError.Statement."
        ):
            # Every value is checked in Python before it is sent, so a statement error
            # (syntax, semantics, types, arguments) is graphmem's own bug: never report
            # it as the caller's InvalidInput, which would hide it.
            return GraphmemError(
                f"graphmem sent Cypher that Neo4j at {url} cannot run{where}: {message} "
                "(a bug in graphmem, or a Neo4j older than 5.26)",
                **data,
            )
        if code.startswith("Neo.ClientError.Transaction."):
            # Timed out (db.transaction.timeout) or terminated by an administrator: the
            # server ended it, nothing was written, and the next attempt may pass.
            return BackendUnavailable(
                f"Neo4j at {url} ended the transaction{where}: {message}; nothing was "
                "written, try again",
                **data,
            )
        return InvalidInput(f"Neo4j at {url} rejected the request{where}: {message}", **data)
    if isinstance(exc, neo4j_errors.IncompleteCommit):
        return BackendUnavailable(
            f"the connection to Neo4j at {url} dropped while committing{where}; the write "
            "may or may not have been applied",
            **data,
        )
    if isinstance(exc, _CONNECTION_ERRORS):
        return BackendUnavailable(
            f"Neo4j at {url} cannot be reached{where} ({type(exc).__name__}: {exc}); check "
            "that the server is running and the URL is right",
            **data,
        )
    return GraphmemError(f"unexpected error from Neo4j at {url}{where}: {exc!r}", **data)


class Neo4jStore:
    """A :class:`graphmem.store.GraphStore` on a Neo4j 5.26+ server (Community is enough).

    Open one with :func:`open_neo4j` (or ``graphmem.open("neo4j://...", tenant=...)``).
    It is safe to share between threads: each call takes its own session from the
    driver's pool, and all sessions share one bookmark manager, so a read sees every
    write made before it through this store, even on a cluster.
    """

    def __init__(
        self,
        driver: neo4j.Driver,
        settings: ConnectionSettings,
        *,
        tracer: Tracer | None = None,
        bookmarks: Iterable[str] | None = None,
    ) -> None:
        self._driver = driver
        self._settings = settings
        self._tracer = tracer
        initial = _check_bookmarks(bookmarks) if bookmarks is not None else []
        self._bookmarks = neo4j.GraphDatabase.bookmark_manager(
            initial_bookmarks=neo4j.Bookmarks.from_raw_values(initial) if initial else None
        )
        self._retry_seconds = float(
            settings.driver_options.get("max_transaction_retry_time", DEFAULT_RETRY_SECONDS)
        )
        self._closed = False
        self._close_lock = threading.Lock()
        # (when read, ONLINE vector index name -> dimension); see _online_vector_index.
        self._index_cache: tuple[float, dict[str, int]] | None = None
        # Entity writes made through this store, per tenant (see entity_version).
        self._entity_writes: dict[str, int] = {}
        self._entity_writes_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Neo4jStore({self.url!r})"

    def __enter__(self) -> Neo4jStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The URL the store was opened with, without any password."""
        return self._settings.redacted_url

    @property
    def database(self) -> str | None:
        """The database name, or None for the server's default database."""
        return self._settings.database

    @property
    def capabilities(self) -> frozenset[str]:
        """What this backend can do."""
        return _CAPABILITIES

    @property
    def driver(self) -> neo4j.Driver:
        """The underlying driver (for notebooks and tools; graphmem's own code does not use it)."""
        self._check_open()
        return self._driver

    @property
    def bookmarks(self) -> list[str]:
        """The bookmarks of the writes this store has made or seen, for another process.

        Every transaction of one store waits for the store's earlier writes (one
        bookmark manager), on a cluster too. To let another process read what this one
        wrote, pass these to it: ``open_neo4j(url, bookmarks=...)`` or
        :meth:`add_bookmarks`; its next transaction waits until the server it runs on
        has those writes.
        """
        return sorted(self._bookmarks.get_bookmarks())

    def add_bookmarks(self, bookmarks: Iterable[str]) -> None:
        """Make this store's next transactions wait for the writes behind ``bookmarks``.

        Raises:
            InvalidInput: ``bookmarks`` is not a list of non-empty strings.
        """
        self._check_open()
        self._bookmarks.update_bookmarks([], _check_bookmarks(bookmarks))

    def close(self) -> None:
        """Close the driver; later calls raise ``StoreClosed``. Closing twice is fine."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._driver.close()

    # ------------------------------------------------------------------ plumbing

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed(f"the store {self.url} is closed; open a new one", url=self.url)

    def _check(self, tenant: str) -> str:
        self._check_open()
        return check_tenant(tenant)

    def _run(self, tx: neo4j.ManagedTransaction, name: str, params: Mapping[str, Any]) -> Rows:
        """Run the query file ``name`` in ``tx``: one round trip, reported to the tracer."""
        # The driver types queries as LiteralString to discourage building them from
        # input; ours come verbatim from the packaged files, never from input.
        query: LiteralString = load_query(name)
        check_arguments((), params)  # the driver cannot encode a lone surrogate
        with traced(self._tracer, name, params, round_trips=1):
            try:
                result = tx.run(query, dict(params))
                return [record.data() for record in result]
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
                # Attach the query name; the transaction function re-raises it to the
                # driver (which decides about retries) and _execute translates it.
                exc.add_note(f"graphmem query: {name}")
                raise

    def _execute(self, work: Callable[[neo4j.ManagedTransaction], T], *, write: bool) -> T:
        """Run ``work`` in one managed transaction (retried on transient errors)."""
        self._check_open()
        try:
            with self._driver.session(
                database=self._settings.database,
                default_access_mode=neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS,
                bookmark_manager=self._bookmarks,
            ) as session:
                if write:
                    return session.execute_write(work)
                return session.execute_read(work)
        except GraphmemError:
            raise
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
            notes = getattr(exc, "__notes__", [])
            name = next(
                (n.removeprefix("graphmem query: ") for n in notes if n.startswith("graphmem")),
                None,
            )
            raise _translate(exc, self.url, name) from exc

    def _autocommit(self, name: str, params: Mapping[str, Any], *, write: bool) -> Rows:
        """Run one query file as an auto-commit transaction: one network round trip.

        The driver sends RUN and PULL together and the server commits when the result is
        consumed: no BEGIN and no COMMIT message, one round trip where a managed
        transaction takes three. A single statement is atomic on its own. Only for
        reads, and for writes that can be repeated (``clear``, ``CALL { ... } IN
        TRANSACTIONS``): an error the driver calls retryable, a lost connection
        included, is retried here with backoff for up to ``max_transaction_retry_time``
        (the driver's own rule for managed transactions), which for a write is only safe
        when repeating it changes nothing.
        """
        self._check_open()
        query: LiteralString = load_query(name)
        check_arguments((), params)  # the driver cannot encode a lone surrogate
        mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        with traced(self._tracer, name, params, round_trips=1):
            deadline: float | None = None
            delay = RETRY_DELAY
            while True:
                try:
                    with self._driver.session(
                        database=self._settings.database,
                        default_access_mode=mode,
                        bookmark_manager=self._bookmarks,
                    ) as session:
                        return [record.data() for record in session.run(query, dict(params))]
                except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
                    now = time.monotonic()
                    deadline = now + self._retry_seconds if deadline is None else deadline
                    if not exc.is_retryable() or now + delay > deadline:
                        raise _translate(exc, self.url, name) from exc
                    time.sleep(delay * random.uniform(0.8, 1.2))
                    delay = min(2 * delay, 1.0)

    def _read(self, name: str, params: Mapping[str, Any]) -> Rows:
        """One read query: an auto-commit transaction (one round trip), retried if need be."""
        return self._autocommit(name, params, write=False)

    def _write(self, name: str, params: Mapping[str, Any]) -> Rows:
        """One write query in a managed transaction whose BEGIN goes with the query.

        ``execute_query`` pipelines BEGIN, RUN and PULL into one round trip, then
        COMMIT: two round trips instead of three, with the driver's retries of a managed
        transaction (never retried once COMMIT was sent: a write is never applied twice).
        """
        self._check_open()
        query: LiteralString = load_query(name)
        check_arguments((), params)  # the driver cannot encode a lone surrogate
        with traced(self._tracer, name, params, round_trips=1):
            try:
                records: Rows = self._driver.execute_query(
                    query,
                    dict(params),
                    routing_=neo4j.RoutingControl.WRITE,
                    database_=self._settings.database,
                    bookmark_manager_=self._bookmarks,
                    result_transformer_=_result_rows,
                )
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
                raise _translate(exc, self.url, name) from exc
            return records

    def query(
        self, name: str, params: Mapping[str, Any] | None = None, *, write: bool = False
    ) -> Rows:
        """Run one query file by name in its own transaction; return its rows.

        For tools in this package (schema installation) and for debugging; the store's
        own operations use their named queries directly.
        """
        return self._write(name, params or {}) if write else self._read(name, params or {})

    def translate(self, exc: Exception) -> GraphmemError:
        """A driver error as graphmem's error for this store's URL."""
        return _translate(exc, self.url, None)

    def ping(self) -> None:
        """Check that the server answers, the credentials work and the database exists.

        Raises:
            BackendUnavailable: It does not, and the message says which.
        """
        try:
            # Fails at once when nothing listens; a query would be retried for 30 s first.
            self._driver.verify_connectivity()
        except Exception as exc:
            raise self.translate(exc) from exc
        self._read("admin/ping_database", {})

    def ensure_keys(self) -> None:
        """Create the uniqueness constraints and indexes of :data:`KEY_QUERIES` if missing.

        A user without schema rights is not an error here (an administrator installs the
        schema with ``install_schema``); every other failure is.
        """
        for name in KEY_QUERIES:
            try:
                self._write(name, {})
            except GraphmemError as exc:
                code = exc.data.get("code", "")
                if code in _ALREADY_EXISTS or code.startswith("Neo.ClientError.Security."):
                    continue
                raise

    # ------------------------------------------------------------------ entities

    def _upsert_entities_tx(
        self, tx: neo4j.ManagedTransaction, tenant: str, batch: Sequence[Entity], now: datetime
    ) -> list[Entity]:
        rows = [_entity_row(entity, tenant) for entity in batch]
        stored: dict[str, Mapping[str, Any]] = {}
        for chunk in _slices(rows):
            params = {"tenant": tenant, "rows": list(chunk), "now": wire_time(now)}
            result = self._run(tx, "entities/upsert_entities", params)[0]
            stored.update((row["id"], row) for row in result["changed"])
        # Only replaced entities come back (their created_at is kept, updated_at is now);
        # every other one is stored as it was sent.
        return [
            entity.model_copy(
                update={
                    "created_at": to_datetime(stored[entity.id]["created_at"]),
                    "updated_at": to_datetime(stored[entity.id]["updated_at"]),
                }
            )
            if entity.id in stored
            else entity.model_copy()
            for entity in batch
        ]

    def _entity_written(self, tenant: str) -> None:
        """Count an entity write of this store (see :meth:`entity_version`)."""
        with self._entity_writes_lock:
            self._entity_writes[tenant] = self._entity_writes.get(tenant, 0) + 1

    def upsert_entities(self, tenant: str, entities: Sequence[Entity]) -> list[Entity]:
        """Insert or replace entities by id, in one batch; return them as stored."""
        tenant = self._check(tenant)
        given = _check_entities(entities, "entities")
        batch = _dedupe(given, lambda e: e.id)
        if not batch:
            return []
        now = utcnow()
        try:
            stored = self._execute(
                lambda tx: self._upsert_entities_tx(tx, tenant, batch, now), write=True
            )
        finally:  # a write whose outcome is unknown may have landed
            self._entity_written(tenant)
        by_id = {entity.id: entity for entity in stored}
        return [by_id[entity.id] for entity in given]

    def get_entity(self, tenant: str, entity_id: str) -> Entity:
        """Return the entity; ``NotFound`` if there is none with that id."""
        found = self.get_entities(tenant, [check_id(entity_id, "entity id")])
        if not found:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        return found[0]

    def get_entities(self, tenant: str, entity_ids: Sequence[str]) -> list[Entity]:
        """Return the entities that exist among ``entity_ids``, in the order asked."""
        tenant = self._check(tenant)
        ids = check_ids(entity_ids, "entity_ids")
        if not ids:
            return []
        rows = self._read(
            "entities/get_entities", {"tenant": tenant, "ids": list(dict.fromkeys(ids))}
        )
        by_id = {row["entity"]["id"]: entity_from_row(row["entity"]) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def update_entity(
        self,
        tenant: str,
        entity_id: str,
        *,
        name: str | None = None,
        type: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        remove_attributes: Sequence[str] = (),
    ) -> Entity:
        """Merge ``attributes`` into the entity (and rename / retype it); bump ``updated_at``.

        The read and the write happen in one transaction that holds the entity's write
        lock, so concurrent updates of one entity do not lose each other's changes.
        Keys both set and removed end up removed.
        """
        tenant = self._check(tenant)
        check_id(entity_id, "entity id")
        if type is not None:
            check_safe_name(type, "entity type")
        if isinstance(remove_attributes, str):  # one key, as the embedded backend takes it
            remove_attributes = [remove_attributes]
        if attributes is not None and not isinstance(attributes, Mapping):
            raise InvalidInput("attributes takes a mapping of attribute names to values")
        # Validate the new name and attribute values before anything is sent.
        Entity(
            id=entity_id,
            type="probe",
            name="probe" if name is None else name,
            attributes=dict(attributes or {}),
        )
        now = utcnow()

        def work(tx: neo4j.ManagedTransaction) -> Entity:
            rows = self._run(tx, "entities/lock_entity", {"tenant": tenant, "id": entity_id})
            if not rows:
                raise NotFound(
                    f"no entity {entity_id!r} in tenant {tenant!r}",
                    entity_id=entity_id,
                    tenant=tenant,
                )
            current = entity_from_row(rows[0]["entity"])
            merged = dict(current.attributes)
            merged.update(attributes or {})
            for key in remove_attributes:
                merged.pop(key, None)
            updated = Entity(
                id=current.id,
                type=type if type is not None else current.type,
                name=name if name is not None else current.name,
                attributes=merged,
                created_at=current.created_at,
                updated_at=current.updated_at,
            )
            return self._upsert_entities_tx(tx, tenant, [updated], now)[0]

        try:
            return self._execute(work, write=True)
        finally:
            self._entity_written(tenant)

    def delete_entities(self, tenant: str, entity_ids: Sequence[str]) -> int:
        """Delete entities and their relationships; return how many existed."""
        tenant = self._check(tenant)
        ids = list(dict.fromkeys(check_ids(entity_ids, "entity_ids")))
        if not ids:
            return 0

        def work(tx: neo4j.ManagedTransaction) -> int:
            deleted = 0
            for chunk in _slices(ids):
                params = {"tenant": tenant, "ids": list(chunk)}
                deleted += self._run(tx, "entities/delete_entities", params)[0]["deleted"]
            return deleted

        try:
            return self._execute(work, write=True)
        finally:
            self._entity_written(tenant)

    def find_entities(self, tenant: str, filter: EntityFilter) -> list[Entity]:
        """Return entities matching every condition of ``filter``, ordered by id."""
        tenant = self._check(tenant)
        if not isinstance(filter, EntityFilter):
            raise InvalidInput("find_entities takes an EntityFilter")
        params = {
            "tenant": tenant,
            "type": filter.type,
            "name_lower": None if not filter.name_contains else filter.name_contains.casefold(),
            "name_exact": None if filter.name is None else filter.name.casefold(),
            "attrs": attribute_columns(filter.attributes),
            "limit": _limit(filter.limit),
        }
        rows = self._read("entities/find_entities", params)
        return [entity_from_row(row["entity"]) for row in rows]

    def count_entities(self, tenant: str) -> int:
        """Return the number of entities."""
        tenant = self._check(tenant)
        return int(self._read("entities/count_entities", {"tenant": tenant})[0]["count"])

    # ------------------------------------------------------------------ relationships

    def _upsert_relationships_tx(
        self, tx: neo4j.ManagedTransaction, tenant: str, batch: Sequence[Relationship]
    ) -> list[Relationship]:
        # Sorted by source: the query write-locks each source before it looks the
        # relationship up, and one lock order keeps concurrent batches from deadlocking.
        order = sorted(range(len(batch)), key=lambda i: (batch[i].source_id, batch[i].key))
        rows = [_relationship_row(index, batch[index], tenant) for index in order]
        written = 0
        kept: dict[int, Any] = {}
        for part in _slices(rows):
            params = {"tenant": tenant, "rows": list(part)}
            result = self._run(tx, "relationships/upsert_relationships", params)[0]
            written += int(result["written"])
            kept.update((row["index"], row["created_at"]) for row in result["changed"])
        if written < len(rows):
            ends = sorted({rel.source_id for rel in batch} | {rel.target_id for rel in batch})
            missing = self._run(
                tx, "relationships/find_missing_entities", {"tenant": tenant, "ids": ends}
            )[0]["missing"]
            raise InvalidInput(
                f"relationship ends are not entities of tenant {tenant!r}: "
                f"{', '.join(map(repr, sorted(missing)))}; upsert them first (nothing was "
                "written)",
                missing_ids=sorted(missing),
                tenant=tenant,
            )
        # The query keeps the first created_at of a replaced relationship; every other one
        # is what was sent. model_copy: the query kept created_at <= expired_at already.
        return [
            rel.model_copy(update={"created_at": to_datetime(kept[index])})
            if index in kept
            else rel.model_copy()
            for index, rel in enumerate(batch)
        ]

    def upsert_relationships(
        self, tenant: str, relationships: Sequence[Relationship]
    ) -> list[Relationship]:
        """Insert or replace relationships keyed by (source, target, type), in one batch."""
        tenant = self._check(tenant)
        given = _check_relationships(relationships, "relationships")
        batch = _dedupe(given, _relationship_key)
        if not batch:
            return []
        stored = self._execute(
            lambda tx: self._upsert_relationships_tx(tx, tenant, batch), write=True
        )
        by_key = {rel.key: rel for rel in stored}
        return [by_key[rel.key] for rel in given]

    def get_relationships(
        self, tenant: str, entity_id: str, filter: RelationshipFilter
    ) -> list[Relationship]:
        """Return relationships of an entity (outgoing by default); ``NotFound`` if unknown."""
        tenant = self._check(tenant)
        check_id(entity_id, "entity id")
        if not isinstance(filter, RelationshipFilter):
            raise InvalidInput("get_relationships takes a RelationshipFilter")
        if filter.include_invalid:
            mode, at, recorded = "all", utcnow(), None
        else:
            mode, at, recorded = _clock_mode(filter.as_of, filter.recorded_as_of)
        params = {
            "tenant": tenant,
            "entity_id": entity_id,
            "direction": filter.direction,
            "types": None if filter.types is None else list(filter.types),
            "mode": mode,
            "at": at,
            "recorded": recorded,
            "limit": _limit(filter.limit),
        }
        rows = self._read("relationships/get_relationships", params)
        if not rows:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        return [relationship_from_row(row) for row in rows[0]["rels"]]

    def delete_relationship(self, tenant: str, source_id: str, target_id: str, type: str) -> bool:
        """Delete one relationship; return whether it existed."""
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "source_id": check_id(source_id, "source id"),
            "target_id": check_id(target_id, "target id"),
            "type": check_safe_name(type, "relationship type"),
        }
        return bool(self._write("relationships/delete_relationship", params)[0]["deleted"])

    def invalidate_relationship(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        type: str,
        *,
        at: datetime | None = None,
    ) -> Relationship:
        """Mark a fact as no longer holding from ``at`` (default now) and expired now."""
        tenant = self._check(tenant)
        if at is not None and not isinstance(at, datetime):
            raise InvalidInput(f"at must be a datetime, got {at!r}")
        now = utcnow()
        params = {
            "tenant": tenant,
            "source_id": check_id(source_id, "source id"),
            "target_id": check_id(target_id, "target id"),
            "type": check_safe_name(type, "relationship type"),
            "at": None if at is None else _as_utc(at),
            "now": now,
        }

        def work(tx: neo4j.ManagedTransaction) -> Relationship:
            rows = self._run(tx, "relationships/invalidate_relationship", params)
            if not rows:
                raise NotFound(
                    f"no {type} relationship from {source_id!r} to {target_id!r} in tenant "
                    f"{tenant!r}",
                    source_id=source_id,
                    target_id=target_id,
                    type=type,
                    tenant=tenant,
                )
            # A model error (at before valid_at) rolls the change back.
            return relationship_from_row(rows[0]["rel"])

        return self._execute(work, write=True)

    def count_relationships(self, tenant: str) -> int:
        """Return the number of relationships, invalidated ones included."""
        tenant = self._check(tenant)
        return int(self._read("relationships/count_relationships", {"tenant": tenant})[0]["count"])

    def relationship_patterns(self, tenant: str) -> list[RelationshipPattern]:
        """Each (source type, type, target type) of the current facts, with its count; one query."""
        tenant = self._check(tenant)
        rows = self._read(
            "relationships/count_relationship_patterns", {"tenant": tenant, "now": utcnow()}
        )
        return [
            RelationshipPattern(row["source_type"], row["type"], row["target_type"], row["facts"])
            for row in rows
        ]

    def relationship_cooccurrence(self, tenant: str) -> list[RoleCooccurrence]:
        """For every two roles some entity has both of, how many entities do; one query."""
        tenant = self._check(tenant)
        rows = self._read(
            "relationships/count_role_cooccurrence", {"tenant": tenant, "now": utcnow()}
        )
        return [
            RoleCooccurrence(
                row["type_a"],
                row["direction_a"],
                row["type_b"],
                row["direction_b"],
                row["entities"],
            )
            for row in rows
        ]

    # ------------------------------------------------------------------ traversal

    def neighbors(
        self,
        tenant: str,
        entity_id: str,
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        node_types: Sequence[str] | None = None,
        max_nodes: int | None = None,
        direction: Direction = "both",
    ) -> list[Entity]:
        """Breadth-first neighbours up to ``depth`` hops, start excluded; one query."""
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "entity_id": check_id(entity_id, "entity id"),
            "depth": check_depth(depth, "depth"),
            "rel_types": check_safe_names(rel_types, "relationship type"),
            "node_types": check_safe_names(node_types, "entity type"),
            "max_nodes": _limit(
                None if max_nodes is None else check_positive(max_nodes, "max_nodes")
            ),
            "direction": _check_direction(direction),
            "now": utcnow(),
        }
        rows = self._read("traversal/find_neighbors", params)
        if not rows:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        return [entity_from_row(row) for row in rows[0]["entities"]]

    def find_path(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        *,
        max_depth: int = 6,
        rel_types: Sequence[str] | None = None,
    ) -> list[Entity]:
        """Shortest directed path, both ends included; ``[]`` when none within ``max_depth``."""
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "source_id": check_id(source_id, "source id"),
            "target_id": check_id(target_id, "target id"),
            "max_depth": check_positive(max_depth, "max_depth"),
            "rel_types": check_safe_names(rel_types, "relationship type"),
            "now": utcnow(),
        }
        row = self._read("traversal/find_path", params)[0]
        for present, missing in ((row["has_source"], source_id), (row["has_target"], target_id)):
            if not present:
                raise NotFound(
                    f"no entity {missing!r} in tenant {tenant!r}", entity_id=missing, tenant=tenant
                )
        return [entity_from_row(node) for node in row["path"]]

    def visible_subgraph(self, tenant: str, entity_id: str, *, depth: int = 1) -> Subgraph:
        """The entity, the entities within ``depth`` hops, and the current facts among them.

        The entity comes first, then the others by id; relationships are ordered by
        (source_id, target_id, type), as on the embedded backend.
        """
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "entity_id": check_id(entity_id, "entity id"),
            "depth": check_depth(depth, "depth"),
            "now": utcnow(),
        }
        rows = self._read("traversal/get_visible_subgraph", params)
        if not rows:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        members = {row["id"]: row for row in rows[0]["entities"]}
        center = members.pop(entity_id)
        entities = [entity_from_row(center)] + [
            entity_from_row(members[k]) for k in sorted(members)
        ]
        rels = {
            rel.key: rel
            for group in rows[0]["rels"]
            for rel in (relationship_from_row(r) for r in group)
        }
        return Subgraph(
            entities=tuple(entities), relationships=tuple(rels[k] for k in sorted(rels))
        )

    def identity_snapshot(
        self,
        tenant: str,
        entity_id: str,
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> NPCIdentity:
        """The entity, its relationships (both directions) and their other ends.

        One query. Current facts, or those held at ``as_of`` / ``recorded_as_of``.
        Relationships are ordered by (source_id, target_id, type), related entities by id
        (the entity itself is not among them, even with a self-loop).
        """
        tenant = self._check(tenant)
        mode, at, recorded = _clock_mode(
            as_utc(as_of, "as_of"), as_utc(recorded_as_of, "recorded_as_of")
        )
        params = {
            "tenant": tenant,
            "entity_id": check_id(entity_id, "entity id"),
            "mode": mode,
            "at": wire_time(at),
            "recorded": wire_time(recorded),
        }
        rows = self._read("traversal/get_identity_snapshot", params)
        if not rows:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        entity = entity_from_row(rows[0]["entity"])
        rels: dict[tuple[str, str, str], Relationship] = {}
        others: dict[str, Entity] = {}
        for fact in rows[0]["facts"]:
            rel = relationship_from_row(fact["rel"])
            rels[rel.key] = rel
            other = fact["other"]
            if other["id"] != entity.id and other["id"] not in others:
                others[other["id"]] = entity_from_row(other)
        return NPCIdentity(
            entity=entity,
            relationships=tuple(rels[k] for k in sorted(rels)),
            related_entities=tuple(others[k] for k in sorted(others)),
        )

    # ------------------------------------------------------------------ conversations

    def append_turn(self, tenant: str, turn: Turn) -> Turn:
        """Append ``turn`` after its session's head and make it the head; one query.

        Its ``created_at`` is moved to just after the parent's if it is not later already.
        A turn id that is taken raises ``InvalidInput``.
        """
        tenant = self._check(tenant)
        if not isinstance(turn, Turn):
            raise InvalidInput(f"append_turn takes a Turn, got {type(turn).__name__}")
        props = turn_props(turn)
        created_at = wire_time(props.pop("created_at"))
        params = {
            "tenant": tenant,
            "session_id": turn.session_id,
            "props": props,
            "created_at": created_at,
        }

        def work(tx: neo4j.ManagedTransaction) -> dict[str, Any]:
            row = dict(self._run(tx, "conversations/append_turn", params)[0])
            if row["past_last_time"]:  # raised inside the transaction: it is rolled back
                raise InvalidInput(
                    f"the head of session {turn.session_id!r} was created at the last time "
                    "there is (9999-12-31T23:59:59.999999Z); no turn can follow it on its "
                    "branch",
                    turn_id=turn.id,
                )
            return row

        row = self._execute(work, write=True)
        return turn.model_copy(
            update={"parent_id": row["parent_id"], "created_at": to_datetime(row["created_at"])}
        )

    def get_turn(self, tenant: str, turn_id: str) -> Turn:
        """Return a turn by id; ``NotFound`` if unknown."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "turn_id": check_id(turn_id, "turn id")}
        rows = self._read("conversations/get_turn", params)
        if not rows:
            raise NotFound(
                f"no turn {turn_id!r} in tenant {tenant!r}", turn_id=turn_id, tenant=tenant
            )
        return turn_from_row(rows[0]["turn"])

    def head(self, tenant: str, session_id: str) -> Turn | None:
        """The head of the session's active branch, or None before the first turn."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "session_id": check_id(session_id, "session id")}
        rows = self._read("conversations/get_head", params)
        return turn_from_row(rows[0]["turn"]) if rows else None

    def fork(self, tenant: str, session_id: str, turn_id: str) -> Turn:
        """Move the session's head to an earlier turn; one query.

        ``NotFound`` for an unknown turn; ``InvalidInput`` for a turn of another session.
        """
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "session_id": check_id(session_id, "session id"),
            "turn_id": check_id(turn_id, "turn id"),
        }

        def work(tx: neo4j.ManagedTransaction) -> Turn:
            row = self._run(tx, "conversations/fork_conversation", params)[0]
            if row["turn"] is None:
                raise NotFound(
                    f"no turn {turn_id!r} in tenant {tenant!r}", turn_id=turn_id, tenant=tenant
                )
            found = turn_from_row(row["turn"])
            if found.session_id != session_id:
                raise InvalidInput(
                    f"turn {turn_id!r} belongs to conversation {found.session_id!r}, not "
                    f"{session_id!r}; fork only to a turn of the same conversation",
                    turn_id=turn_id,
                    session_id=session_id,
                )
            if not row["moved"]:
                raise GraphmemError(
                    f"turn {turn_id!r} names session {session_id!r}, which has no "
                    "conversation node (data not written by graphmem?)",
                    turn_id=turn_id,
                    session_id=session_id,
                )
            return found

        return self._execute(work, write=True)

    def branch(self, tenant: str, session_id: str, *, limit: int | None = None) -> list[Turn]:
        """The active branch (head back to root), oldest first; the last ``limit`` if given."""
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "session_id": check_id(session_id, "session id"),
            "limit": _limit(None if limit is None else check_positive(limit, "limit")),
        }
        rows = self._read("conversations/get_branch", params)
        return [turn_from_row(row) for row in reversed(rows[0]["turns"])]

    def list_turns(self, tenant: str, session_id: str) -> list[Turn]:
        """Every turn of the session, all branches, in the order they were created."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "session_id": check_id(session_id, "session id")}
        return [
            turn_from_row(row["turn"]) for row in self._read("conversations/list_turns", params)
        ]

    def count_turns(self, tenant: str, session_id: str | None = None) -> int:
        """Turns in one session (all branches), or in every session of the tenant."""
        tenant = self._check(tenant)
        if session_id is not None:
            check_id(session_id, "session id")
        params = {"tenant": tenant, "session_id": session_id}
        return int(self._read("conversations/count_turns", params)[0]["count"])

    def delete_turn(self, tenant: str, turn_id: str) -> bool:
        """Delete a turn, re-linking its children to its parent; one query."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "turn_id": check_id(turn_id, "turn id")}
        return bool(self._write("conversations/delete_turn", params)[0]["deleted"])

    def delete_conversation(self, tenant: str, session_id: str) -> int:
        """Delete every turn of a session and its head; return how many turns there were."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "session_id": check_id(session_id, "session id")}
        return int(self._write("conversations/delete_conversation", params)[0]["deleted"])

    def search_turns(self, tenant: str, filter: TurnFilter) -> list[Turn]:
        """Turns across sessions matching every condition of ``filter``, newest first."""
        tenant = self._check(tenant)
        if not isinstance(filter, TurnFilter):
            raise InvalidInput("search_turns takes a TurnFilter")
        params = {
            "tenant": tenant,
            "session_id": filter.session_id,
            "speaker": filter.speaker,
            "role": filter.role,
            "since": filter.since,
            "until": filter.until,
            "keywords": filter.text.lower().split() if filter.text else [],
            "limit": _limit(filter.limit),
        }
        return [turn_from_row(row["turn"]) for row in self._read("sessions/search_turns", params)]

    def list_sessions(self, tenant: str) -> list[SessionInfo]:
        """Every session with at least one turn, most recently active first."""
        tenant = self._check(tenant)
        return [
            SessionInfo(
                session_id=row["session_id"],
                turn_count=row["turn_count"],
                first_at=to_datetime(row["first_at"]),
                last_at=to_datetime(row["last_at"]),
                head_id=row["head_id"],
            )
            for row in self._read("sessions/list_sessions", {"tenant": tenant})
        ]

    # ------------------------------------------------------------------ whole tenant

    # ------------------------------------------------------------------ records

    def _put_records_tx(
        self,
        tx: neo4j.ManagedTransaction,
        tenant: str,
        kind: str,
        batch: Sequence[Record],
        now: datetime,
    ) -> list[Record]:
        stored: dict[str, tuple[Any, Any]] = {}
        rows = [_record_row(record, tenant) for record in batch]
        for chunk in _slices(rows):
            params = {"tenant": tenant, "kind": kind, "rows": list(chunk), "now": wire_time(now)}
            for row in self._run(tx, "records/put_records", params):
                stored[row["id"]] = (row["created_at"], row["updated_at"])
        return [
            record.model_copy(
                update={
                    "created_at": to_datetime(stored[record.id][0]),
                    "updated_at": to_datetime(stored[record.id][1]),
                }
            )
            for record in batch
        ]

    def put_records(self, tenant: str, kind: str, records: Sequence[Record]) -> list[Record]:
        """Insert or replace records of one kind by id, in one atomic batch."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        given = _check_records(records, kind, "records")
        batch = _dedupe(given, lambda r: r.id)
        if not batch:
            return []
        now = utcnow()
        stored = self._execute(
            lambda tx: self._put_records_tx(tx, tenant, kind, batch, now), write=True
        )
        by_id = {record.id: record for record in stored}
        return [by_id[record.id] for record in given]

    def write_records(
        self,
        tenant: str,
        put: Sequence[Record] = (),
        delete: Mapping[str, Sequence[str]] | None = None,
    ) -> list[Record]:
        """Put records of any kinds and delete records by kind and id, in one transaction."""
        tenant = self._check(tenant)
        given = _check_records(put, None, "put")
        deletes = check_record_deletes(delete, given)
        written = self._write_checked(tenant, ChangeSet(records=given, delete_records=deletes))
        return list(written.records)

    def write_changes(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """Put and delete records, entities and relationships, in one transaction."""
        tenant = self._check(tenant)
        return self._write_checked(tenant, check_changes(changes))

    def _write_checked(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """One transaction for a checked change set, in the order the protocol gives."""
        given = _check_records(changes.records, None, "records")
        entities = _check_entities(changes.entities, "entities")
        rels = _check_relationships(changes.relationships, "relationships")
        records = _dedupe(given, lambda r: (r.kind, r.id))
        entity_batch = _dedupe(entities, lambda e: e.id)
        rel_batch = _dedupe(rels, _relationship_key)
        if changes.empty:
            return ChangeSet()
        now = utcnow()
        keys = [
            {"source_id": source, "target_id": target, "type": type_}
            for source, target, type_ in changes.delete_relationships
        ]

        def work(tx: neo4j.ManagedTransaction) -> _Written:
            for part in _slices(keys):
                params = {"tenant": tenant, "keys": list(part)}
                self._run(tx, "relationships/delete_relationships", params)
            for ids in _slices(list(changes.delete_entities)):
                self._run(tx, "entities/delete_entities", {"tenant": tenant, "ids": list(ids)})
            stored_entities = (
                self._upsert_entities_tx(tx, tenant, entity_batch, now) if entity_batch else []
            )
            stored_rels = self._upsert_relationships_tx(tx, tenant, rel_batch) if rel_batch else []
            stored: list[Record] = []
            for kind in dict.fromkeys(r.kind for r in records):
                of_kind = [r for r in records if r.kind == kind]
                stored.extend(self._put_records_tx(tx, tenant, kind, of_kind, now))
            for kind, ids in changes.delete_records.items():
                self._run(
                    tx, "records/delete_records", {"tenant": tenant, "kind": kind, "ids": ids}
                )
            return stored, stored_entities, stored_rels

        stored, stored_entities, stored_rels = self._execute(work, write=True)
        return stored_changes(changes, stored, stored_entities, stored_rels)

    def get_record(self, tenant: str, kind: str, record_id: str) -> Record:
        """Return one record; ``NotFound`` if there is no record of ``kind`` with that id."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        record_id = check_id(record_id, "record id")
        rows = self._read(
            "records/get_record", {"tenant": tenant, "kind": kind, "record_id": record_id}
        )
        if not rows:
            raise NotFound(
                f"no record {record_id!r} of kind {kind!r} in tenant {tenant!r}",
                record_id=record_id,
                kind=kind,
                tenant=tenant,
            )
        return record_from_row(rows[0]["record"])

    def get_records(self, tenant: str, kind: str, record_ids: Sequence[str]) -> list[Record]:
        """Return the records of ``kind`` that exist among ``record_ids``, in the order asked."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        wanted = check_ids(record_ids, "record_ids")
        if not wanted:
            return []
        params = {"tenant": tenant, "kind": kind, "record_ids": wanted}
        return [record_from_row(row["record"]) for row in self._read("records/get_records", params)]

    def find_records(
        self,
        tenant: str,
        kind: str,
        *,
        where: Mapping[str, JSONScalar] | None = None,
        owner: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
        newest_first: bool = True,
    ) -> list[Record]:
        """Records of ``kind`` matching every condition, ordered by ``(created_at, id)``.

        With an ``owner``, one query through the (tenant, kind, owner) index.
        """
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0
        ):
            raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
        params = {
            "tenant": tenant,
            "kind": kind,
            "where": attribute_columns(check_where(where)),
            "since": as_utc(since, "since"),
            "until": as_utc(until, "until"),
            "limit": _limit(limit),
            "newest_first": bool(newest_first),
        }
        if owner is not None:
            params["owner"] = check_owner(owner)
            rows = self._read("records/find_owned_records", params)
        else:
            rows = self._read("records/find_records", params)
        return [record_from_row(row["record"]) for row in rows]

    def delete_records(self, tenant: str, kind: str, ids: Sequence[str]) -> int:
        """Delete records of ``kind`` by id, in one batch; return how many existed."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        wanted = list(dict.fromkeys(check_ids(ids, "ids")))
        if not wanted:
            return 0
        params = {"tenant": tenant, "kind": kind, "ids": wanted}
        rows = self._write("records/delete_records", params)
        return int(rows[0]["deleted"])

    def count_records(self, tenant: str, kind: str) -> int:
        """The number of records of ``kind``."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        rows = self._read("records/count_records", {"tenant": tenant, "kind": kind})
        return int(rows[0]["count"])

    def dump(self, tenant: str) -> TenantDump:
        """Everything the tenant holds (embeddings aside), read in one transaction."""
        tenant = self._check(tenant)
        params = {"tenant": tenant}

        def work(tx: neo4j.ManagedTransaction) -> TenantDump:
            return TenantDump(
                entities=[
                    entity_from_row(r["entity"])
                    for r in self._run(tx, "tenant/dump_entities", params)
                ],
                relationships=[
                    relationship_from_row(r["rel"])
                    for r in self._run(tx, "tenant/dump_relationships", params)
                ],
                turns=[
                    turn_from_row(r["turn"]) for r in self._run(tx, "tenant/dump_turns", params)
                ],
                heads={
                    r["session_id"]: r["head_id"]
                    for r in self._run(tx, "tenant/dump_heads", params)
                },
                records=[
                    record_from_row(r["record"])
                    for r in self._run(tx, "tenant/dump_records", params)
                ],
                chunks=[
                    chunk_from_row(r["chunk"]) for r in self._run(tx, "tenant/dump_chunks", params)
                ],
                mentions=sorted(
                    (
                        (r["kind"], r["node_id"], r["entity_id"])
                        for r in self._run(tx, "tenant/dump_mentions", params)
                    ),
                    key=lambda m: (_MENTION_KINDS.index(m[0]), m[1], m[2]),
                ),
            )

        return self._execute(work, write=False)

    def load(self, tenant: str, dump: TenantDump) -> None:
        """Write a dump into the tenant at once: all of it, or nothing if any part is bad.

        Everything that can be checked without the server is checked first; the rest
        (taken turn ids, parents and heads already stored, relationship ends) inside the
        one write transaction, whose failure rolls everything back.
        """
        tenant = self._check(tenant)
        if not isinstance(dump, TenantDump):
            raise InvalidInput("load takes a TenantDump")
        entities = _dedupe(_check_entities(dump.entities, "dump.entities"), lambda e: e.id)
        rels = _dedupe(
            _check_relationships(dump.relationships, "dump.relationships"),
            _relationship_key,
        )
        turns = _check_items(dump.turns, Turn, "dump.turns")
        records = _dedupe(
            _check_records(dump.records, None, "dump.records"), lambda r: (r.kind, r.id)
        )
        for index, turn in enumerate(turns):  # model_construct skips validation
            check_safe_name(turn.role, f"dump.turns[{index}] role")
        plan = _plan_turns(turns, dump.heads)
        chunks = _dedupe(_check_chunks(dump.chunks, "dump.chunks"), lambda c: c.id)
        mentions = _plan_mentions(dump.mentions)
        now = utcnow()

        def work(tx: neo4j.ManagedTransaction) -> None:
            if plan.turn_ids or plan.refs:
                check = self._run(
                    tx,
                    "tenant/check_turn_refs",
                    {"tenant": tenant, "turn_ids": plan.turn_ids, "refs": plan.refs},
                )[0]
                if check["taken"]:
                    raise InvalidInput(
                        f"turn ids already stored in tenant {tenant!r}: "
                        f"{', '.join(map(repr, sorted(check['taken'])))}; a load adds new "
                        "turns only (nothing was written)",
                        turn_ids=sorted(check["taken"]),
                    )
                if check["missing"]:
                    raise InvalidInput(
                        "parents or heads that are neither in the dump nor turns of the same "
                        f"session: {', '.join(map(repr, sorted(set(check['missing']))))} "
                        "(nothing was written)",
                        turn_ids=sorted(set(check["missing"])),
                    )
            if entities:
                self._upsert_entities_tx(tx, tenant, entities, now)
            if rels:
                self._upsert_relationships_tx(tx, tenant, rels)
            for group in plan.session_groups():
                self._run(tx, "tenant/create_turns", {"tenant": tenant, "sessions": group})
            for links in _slices(plan.links):
                self._run(tx, "tenant/link_turns", {"tenant": tenant, "links": list(links)})
            for heads in _slices(plan.heads):
                self._run(tx, "tenant/set_heads", {"tenant": tenant, "heads": list(heads)})
            by_kind: dict[str, list[Record]] = {}
            for record in records:
                by_kind.setdefault(record.kind, []).append(record)
            for kind, of_kind in sorted(by_kind.items()):
                self._put_records_tx(tx, tenant, kind, of_kind, now)
            if chunks:
                self._upsert_chunks_tx(tx, tenant, chunks)
            for kind, rows in mentions.items():
                for part in _slices(rows):
                    params = {"tenant": tenant, "rows": list(part)}
                    missing = self._run(tx, _mention_queries(kind).add, params)
                    if missing:
                        first = missing[0]
                        what = kind if first["missing_node"] else "entity"
                        name = first["node_id"] if first["missing_node"] else first["entity_id"]
                        raise InvalidInput(
                            f"dump.mentions name an unknown {what} {name!r} (neither stored "
                            "nor in the dump); nothing was written",
                            missing=[(kind, m["node_id"], m["entity_id"]) for m in missing],
                        )

        try:
            self._execute(work, write=True)
        finally:
            self._entity_written(tenant)

    # ------------------------------------------------------------------ chunks and mentions

    def get_turns(self, tenant: str, turn_ids: Sequence[str]) -> list[Turn]:
        """Return the turns that exist among ``turn_ids``, in the order asked; one query."""
        tenant = self._check(tenant)
        ids = check_ids(turn_ids, "turn_ids")
        if not ids:
            return []
        rows = self._read(
            "conversations/get_turns", {"tenant": tenant, "ids": list(dict.fromkeys(ids))}
        )
        by_id = {row["turn"]["id"]: turn_from_row(row["turn"]) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def turn_window(self, tenant: str, turn_ids: Sequence[str], *, depth: int = 1) -> list[Turn]:
        """The turns asked and those within ``depth`` PARENT edges of them; one query."""
        tenant = self._check(tenant)
        ids = check_ids(turn_ids, "turn_ids")
        params = {
            "tenant": tenant,
            "ids": list(dict.fromkeys(ids)),
            "depth": check_window_depth(depth),
        }
        if not ids:
            return []
        rows = self._read("conversations/get_turn_window", params)
        return [turn_from_row(row["turn"]) for row in rows]

    def upsert_chunks(self, tenant: str, chunks: Sequence[Chunk]) -> list[Chunk]:
        """Insert or replace chunks by id, in one batch; return them as stored.

        A replaced chunk keeps its ``created_at``, its mentions and its embedding.
        """
        tenant = self._check(tenant)
        given = _check_chunks(chunks, "chunks")
        batch = _dedupe(given, lambda c: c.id)
        if not batch:
            return []
        stored = self._execute(lambda tx: self._upsert_chunks_tx(tx, tenant, batch), write=True)
        return [stored[chunk.id] for chunk in given]

    def _upsert_chunks_tx(
        self, tx: neo4j.ManagedTransaction, tenant: str, batch: Sequence[Chunk]
    ) -> dict[str, Chunk]:
        rows = [
            {"id": c.id, "created_at": wire_time(c.created_at), "props": chunk_props(c, tenant)}
            for c in batch
        ]
        created: dict[str, Any] = {}
        for part in _slices(rows):
            params = {"tenant": tenant, "rows": list(part)}
            for row in self._run(tx, "chunks/upsert_chunks", params):
                created[row["id"]] = row["created_at"]
        return {
            c.id: c.model_copy(update={"created_at": to_datetime(created[c.id])}) for c in batch
        }

    def get_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Return the chunks that exist among ``chunk_ids``, in the order asked; one query."""
        tenant = self._check(tenant)
        ids = check_ids(chunk_ids, "chunk_ids")
        if not ids:
            return []
        rows = self._read("chunks/get_chunks", {"tenant": tenant, "ids": list(dict.fromkeys(ids))})
        by_id = {row["chunk"]["id"]: chunk_from_row(row["chunk"]) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def delete_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> int:
        """Delete chunks with their mentions and embeddings; return how many existed."""
        tenant = self._check(tenant)
        ids = list(dict.fromkeys(check_ids(chunk_ids, "chunk_ids")))
        if not ids:
            return 0

        def work(tx: neo4j.ManagedTransaction) -> int:
            return sum(
                int(
                    self._run(tx, "chunks/delete_chunks", {"tenant": tenant, "ids": list(p)})[0][
                        "deleted"
                    ]
                )
                for p in _slices(ids)
            )

        return self._execute(work, write=True)

    def count_chunks(self, tenant: str) -> int:
        """The number of chunks."""
        tenant = self._check(tenant)
        return int(self._read("chunks/count_chunks", {"tenant": tenant})[0]["count"])

    def link_mentions(
        self, tenant: str, kind: NodeKind, mentions: Mapping[str, Sequence[str]]
    ) -> int:
        """Set the entities each turn or chunk mentions (replacing earlier mentions).

        One query (per 5,000 nodes, in one transaction) that checks every node and entity
        first and writes only when all exist; otherwise ``InvalidInput`` names them.
        """
        tenant = self._check(tenant)
        queries = _mention_queries(kind)
        if not isinstance(mentions, Mapping):
            raise InvalidInput("mentions must map node ids to lists of entity ids")
        links = [
            {
                "node_id": check_id(node_id, "a node id of mentions"),
                "entity_ids": list(dict.fromkeys(check_ids(entity_ids, f"mentions[{node_id!r}]"))),
            }
            for node_id, entity_ids in mentions.items()
        ]
        if not links:
            return 0

        def work(tx: neo4j.ManagedTransaction) -> None:
            for part in _slices(links):
                row = self._run(tx, queries.link, {"tenant": tenant, "links": list(part)})[0]
                missing_nodes = sorted(row["missing_nodes"])
                missing = sorted(row["missing_entities"])
                if missing_nodes or missing:
                    raise InvalidInput(
                        f"mentions name unknown {kind}s {missing_nodes[:10]} and unknown "
                        f"entities {missing[:10]}; store them first. Nothing was written.",
                        missing_node_ids=missing_nodes,
                        missing_ids=missing,
                    )

        self._execute(work, write=True)
        return sum(len(link["entity_ids"]) for link in links)

    def get_mentions(
        self, tenant: str, kind: NodeKind, node_ids: Sequence[str]
    ) -> dict[str, list[str]]:
        """The entity ids each turn or chunk mentions, sorted; nodes without any are absent."""
        tenant = self._check(tenant)
        queries = _mention_queries(kind)
        ids = check_ids(node_ids, "node_ids")
        if not ids:
            return {}
        rows = self._read(queries.get, {"tenant": tenant, "ids": list(dict.fromkeys(ids))})
        found = {row["node_id"]: sorted(row["entity_ids"]) for row in rows}
        return {n: found[n] for n in ids if n in found}

    def find_mentioning(
        self,
        tenant: str,
        kind: NodeKind,
        entity_ids: Sequence[str],
        *,
        limit: int | None = None,
    ) -> dict[str, list[str]]:
        """For each entity, the ids of the turns or chunks mentioning it (sorted, capped)."""
        tenant = self._check(tenant)
        queries = _mention_queries(kind)
        if limit is not None:
            check_positive(limit, "limit")
        ids = check_ids(entity_ids, "entity_ids")
        if not ids:
            return {}
        params = {
            "tenant": tenant,
            "entity_ids": list(dict.fromkeys(ids)),
            "limit": _limit(limit),
        }
        found = {
            row["entity_id"]: sorted(row["node_ids"]) for row in self._read(queries.find, params)
        }
        return {e: found[e] for e in ids if e in found}

    # ------------------------------------------------------------------ embeddings

    def put_embeddings(self, tenant: str, kind: NodeKind, ids: Sequence[str], vectors: Any) -> None:
        """Store one embedding per node (replacing any earlier one) in the kind's index.

        Shape, finiteness and zero vectors are checked here; unknown nodes and the
        per-(tenant, kind) dimension by the one write query, which then writes nothing.
        """
        tenant = self._check(tenant)
        spec = _node_kind(kind)
        node_ids = check_ids(ids, "ids")
        matrix = as_matrix(vectors, None, "embeddings")
        if matrix.shape[0] != len(node_ids):
            raise InvalidInput(
                f"{len(node_ids)} ids but {matrix.shape[0]} vectors; give one vector per id"
            )
        last = {node: row for row, node in enumerate(node_ids)}  # the last of an id wins
        if not last:
            return
        dimension = int(matrix.shape[1])
        rows = [{"id": node, "vector": matrix[row].tolist()} for node, row in last.items()]

        def work(tx: neo4j.ManagedTransaction) -> None:
            for part in _slices(rows, EMBEDDING_ROWS):
                params = {"tenant": tenant, "rows": list(part), "dimension": dimension}
                row = self._run(tx, spec.put_embeddings, params)[0]
                if row["missing"]:
                    missing = sorted(row["missing"])
                    raise InvalidInput(
                        f"embeddings for unknown {kind}s: {missing[:10]}; store them first. "
                        "Nothing was written.",
                        missing_ids=missing,
                    )
                _check_stored_dimension(row["stored_dimension"], dimension, "embeddings")

        self._execute(work, write=True)

    def _embedding_counts(self, tenant: str, kind: NodeKind) -> tuple[int, int | None]:
        tenant = self._check(tenant)
        spec = _node_kind(kind)
        row = self._read(spec.count_embeddings, {"tenant": tenant})[0]
        dimension = row["dimension"]
        return int(row["count"]), None if dimension is None else int(dimension)

    def embedding_dimension(self, tenant: str, kind: NodeKind) -> int | None:
        """The dimension of the kind's vectors in the tenant, or None while it has none."""
        return self._embedding_counts(tenant, kind)[1]

    def count_embeddings(self, tenant: str, kind: NodeKind) -> int:
        """How many nodes of the kind have an embedding."""
        return self._embedding_counts(tenant, kind)[0]

    # ------------------------------------------------------------------ search

    def _online_vector_index(self, label: str, dimension: int) -> str | None:
        """The name of the label's vector index if it is ONLINE with ``dimension``, else None.

        The index list is read once and kept for :data:`INDEX_CACHE_SECONDS`; a store that
        cannot read it (no SHOW INDEX privilege) scans exactly instead.
        """
        cached = self._index_cache
        if cached is None or time.monotonic() - cached[0] > INDEX_CACHE_SECONDS:
            try:
                listed = self.query("schema/list_indexes")
            except GraphmemError as exc:
                if not str(exc.data.get("code", "")).startswith("Neo.ClientError.Security."):
                    raise
                listed = []
            cached = (time.monotonic(), _vector_index_dimensions(listed))
            self._index_cache = cached
        name = VECTOR_INDEXES[label]
        return name if cached[1].get(name) == dimension else None

    def _vector_params(
        self,
        tenant: str,
        vector: Any,
        k: int,
        scope_ids: Sequence[str] | None,
    ) -> dict[str, Any]:
        """The checked parameters every vector query takes."""
        query = as_matrix(vector, None, "the query vector")
        if query.shape[0] != 1:
            raise InvalidInput(f"give one query vector, got {query.shape[0]}")
        return {
            "tenant": tenant,
            "vector": query[0].tolist(),
            "dimension": int(query.shape[1]),
            "k": k,
            "scope": _check_scope(scope_ids),
        }

    @staticmethod
    def _vector_hits_of(
        params: Mapping[str, Any], row: Mapping[str, Any] | None
    ) -> list[SearchHit] | None:
        """The hits of one vector query's row if they are final, None to fetch more.

        ``row`` is the answer to the query with ``params["fetch"]`` (None: none was run).
        Without a stored vector there are no hits; another stored dimension is refused.
        """
        if row is None:
            return None
        if row["dimension"] is None:
            return []
        _check_stored_dimension(row["dimension"], params["dimension"], "the query vector")
        if len(row["hits"]) >= params["k"] or row["fetched"] < params["fetch"]:
            return _vector_hits(row["hits"])
        return None

    def _vector_search_from(
        self, spec: _KindQueries, params: Mapping[str, Any], index: str | None, fetch: int
    ) -> list[SearchHit]:
        """Ask the vector index from ``fetch`` on (growing it), then scan exactly."""
        if index is not None:
            while fetch <= MAX_VECTOR_FETCH:
                query = {**params, "index": index, "fetch": fetch}
                try:
                    row = self._read(spec.query_vectors, query)[0]
                except GraphmemError as exc:
                    if exc.data.get("code") != _PROCEDURE_FAILED:
                        raise
                    self._index_cache = None  # the index went away: scan exactly
                    break
                hits = self._vector_hits_of(query, row)
                if hits is not None:
                    return hits
                if fetch >= MAX_VECTOR_FETCH:
                    break  # the index keeps giving other tenants' nodes: scan exactly
                fetch = min(fetch * OVERFETCH, MAX_VECTOR_FETCH)
        row = self._read(spec.scan_vectors, params)[0]
        if row["dimension"] is None:
            return []
        _check_stored_dimension(row["dimension"], params["dimension"], "the query vector")
        return _vector_hits(row["hits"])

    def vector_search(
        self,
        tenant: str,
        kind: NodeKind,
        vector: Any,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes nearest to ``vector`` by cosine similarity, best first (then by id).

        With an ONLINE vector index of the vector's dimension, the index is asked for
        ``k * OVERFETCH`` neighbours (at least :data:`MIN_FETCH`) and the query keeps the
        tenant's (and the scope's); while fewer than ``k`` are kept and the index had
        more, the fetch grows by ``OVERFETCH``, up to :data:`MAX_VECTOR_FETCH`, after
        which one exact scan answers. Without such an index the exact scan answers at
        once. Each attempt is one query. Scores are cosine similarities (-1..1).
        """
        tenant = self._check(tenant)
        spec = _node_kind(kind)
        params = self._vector_params(tenant, vector, check_positive(k, "k"), scope_ids)
        index = self._online_vector_index(spec.label, params["dimension"])
        return self._vector_search_from(spec, params, index, _first_fetch(params["k"]))

    def hybrid_search(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        *,
        vector: Any,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None = None,
    ) -> dict[NodeKind, SearchPair]:
        """:meth:`vector_search` and :meth:`fulltext_search` of every kind in one query.

        One round trip usually: each kind's vector index and full-text index are asked
        for their first fetch in one statement (``search/query_hybrid_nodes``). A ranking
        the first fetch does not fill (other tenants crowd the query, or a narrow scope)
        continues as :meth:`vector_search` / :meth:`fulltext_search` would, from the next
        fetch, one query per step; a kind whose vectors have no index of the query's
        dimension is answered by the exact scan, one query. The results are exactly what
        those methods give.
        """
        tenant = self._check(tenant)
        wanted = check_search_kinds(kinds, vector, text)
        k = check_positive(k, "k")
        if text is not None and not isinstance(text, str):
            raise InvalidInput(f"query must be a string, got {type(text).__name__}")
        vparams = None if vector is None else self._vector_params(tenant, vector, k, scope_ids)
        scope = _check_scope(scope_ids)
        lucene = None if text is None else lucene_query(text)
        fetch = _first_fetch(k)
        params: dict[str, Any] = {
            "tenant": tenant,
            "scope": scope,
            "k": k,
            "fetch": fetch,
            "vector": None if vparams is None else vparams["vector"],
            "text": lucene,
        }
        indexes: dict[str, str | None] = {}
        for kind in ("entity", "turn", "chunk"):
            spec = _KINDS[kind]
            use = kind in wanted
            indexes[f"{kind}_vector_index"] = (
                self._online_vector_index(spec.label, vparams["dimension"])
                if use and vparams is not None
                else None
            )
            indexes[f"{kind}_text_index"] = (
                FULLTEXT_INDEXES[spec.label] if use and lucene is not None else None
            )
        params.update(indexes)
        rows: dict[tuple[str, str], Mapping[str, Any]] = {}
        if any(indexes.values()):
            try:
                answered = self._read("search/query_hybrid_nodes", params)
            except GraphmemError as exc:
                if exc.data.get("code") != _PROCEDURE_FAILED:
                    raise
                # An index went away or is missing: each kind on its own says which.
                self._index_cache = None
                return search_each(
                    self, tenant, wanted, vector=vector, text=text, k=k, scope_ids=scope_ids
                )
            rows = {(row["kind"], row["how"]): row for row in answered}
        out: dict[NodeKind, SearchPair] = {}
        for kind in wanted:
            spec = _KINDS[kind]
            by_vector: list[SearchHit] = []
            if vparams is not None:
                index = indexes[f"{kind}_vector_index"]
                first = rows.get((kind, "vector")) if index is not None else None
                hits = self._vector_hits_of({**vparams, "fetch": fetch}, first)
                by_vector = (
                    hits
                    if hits is not None
                    else self._vector_search_from(
                        spec, vparams, index, fetch * OVERFETCH if first else fetch
                    )
                )
            by_text: list[SearchHit] = []
            if lucene is not None:
                row = rows[(kind, "text")]
                done = len(row["hits"]) >= k or row["fetched"] < fetch
                by_text = (
                    _text_hits(row["hits"])
                    if done
                    else self._fulltext_search_from(
                        kind, spec, {**params, "query": lucene}, fetch * OVERFETCH
                    )
                )
            out[kind] = SearchPair(by_vector, by_text)
        return out

    def _fulltext_search_from(
        self, kind: str, spec: _KindQueries, params: Mapping[str, Any], fetch: int
    ) -> list[SearchHit]:
        """Ask the full-text index from ``fetch`` on, growing it while hits are missing."""
        index = FULLTEXT_INDEXES[spec.label]
        query = {
            "tenant": params["tenant"],
            "index": index,
            "query": params["query"],
            "k": params["k"],
            "scope": params["scope"],
        }
        while True:
            try:
                row = self._read(spec.query_text, {**query, "fetch": fetch})[0]
            except GraphmemError as exc:
                if exc.data.get("code") != _PROCEDURE_FAILED:
                    raise
                raise UnsupportedOperation(
                    f"full-text search of {kind}s needs the index {index} on {self.url} "
                    f"({exc}); install the schema: graphmem schema install --store URL",
                    operation="fulltext_search",
                    index=index,
                    url=self.url,
                ) from exc
            hits = row["hits"]
            if len(hits) >= query["k"] or row["fetched"] < fetch:
                return _text_hits(hits)
            fetch *= OVERFETCH

    def fulltext_search(
        self,
        tenant: str,
        kind: NodeKind,
        query: str,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes whose text best matches the words of ``query``, best first.

        The words become an escaped Lucene ``OR`` query (:mod:`.fulltext`). The shared
        full-text index is asked for its best ``k * OVERFETCH`` (at least
        :data:`MIN_FETCH`) and the query keeps the tenant's (and the scope's); while
        fewer than ``k`` are kept and the index had more, the fetch grows by
        ``OVERFETCH``. Each attempt is one query.

        Raises:
            UnsupportedOperation: The full-text index is missing (run ``install_schema``).
        """
        tenant = self._check(tenant)
        spec = _node_kind(kind)
        k = check_positive(k, "k")
        if not isinstance(query, str):
            raise InvalidInput(f"query must be a string, got {type(query).__name__}")
        scope = _check_scope(scope_ids)
        lucene = lucene_query(query)
        if lucene is None:
            return []
        params = {"tenant": tenant, "query": lucene, "k": k, "scope": scope}
        return self._fulltext_search_from(str(kind), spec, params, _first_fetch(k))

    # ------------------------------------------------------------------ expand

    def expand(
        self,
        tenant: str,
        seed_ids: Sequence[str],
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
    ) -> Subgraph:
        """The seeds and the entities within ``depth`` hops of any, with the facts among them.

        One query. Seeds come first (by id), then the others nearest first, then by id;
        ``max_nodes`` caps them (seeds always included); relationships by key.
        """
        tenant = self._check(tenant)
        depth = check_depth(depth, "depth", minimum=0)
        if max_nodes is not None:
            check_positive(max_nodes, "max_nodes")
        params: dict[str, Any] = {
            "tenant": tenant,
            "direction": _check_direction(direction),
            "rel_types": check_safe_names(rel_types, "relationship type"),
            "seeds": list(dict.fromkeys(check_ids(seed_ids, "seed_ids"))),
            "within": None if within is None else list(dict.fromkeys(check_ids(within, "within"))),
            "depth": depth,
            "now": utcnow(),
        }
        cap = _limit(max_nodes)
        params["max_nodes"] = cap
        params["limit"] = max(0, cap - len(params["seeds"]))
        if not params["seeds"]:
            return Subgraph(entities=(), relationships=())
        row = self._read("traversal/expand_entities", params)[0]
        found = {seed["id"]: seed for seed in row["seeds"]}
        for seed_id in params["seeds"]:
            if seed_id not in found:
                raise NotFound(
                    f"no entity {seed_id!r} in tenant {tenant!r}", entity_id=seed_id, tenant=tenant
                )
        reached = sorted(row["reached"], key=lambda r: (r["hop"], r["id"]))
        entities = [entity_from_row(found[s]) for s in sorted(found)]
        entities += [entity_from_row(r) for r in reached]
        rels = {
            rel.key: rel
            for group in row["rels"]
            for rel in (relationship_from_row(r) for r in group)
        }
        return Subgraph(
            entities=tuple(entities), relationships=tuple(rels[k] for k in sorted(rels))
        )

    def clear(self, tenant: str) -> None:
        """Delete everything the tenant holds.

        In batches of 1,000 nodes, each committed on its own (``CALL ... IN
        TRANSACTIONS``), so a tenant of any size is cleared within the server's memory;
        one auto-commit query, retried on retryable errors, since running it again only
        deletes what is left. A failure part-way leaves part of the tenant: clear again.
        """
        tenant = self._check(tenant)
        try:
            self._autocommit("tenant/clear_tenant", {"tenant": tenant}, write=True)
        finally:
            self._entity_written(tenant)

    # ------------------------------------------------------------------ retrieval reads

    def entity_version(self, tenant: str) -> str:
        """This store's entity writes, and the tenant's entity count and latest update.

        One query. Writes by other processes are seen when they change the count or the
        latest ``updated_at``.
        """
        tenant = self._check(tenant)
        row = self._read("entities/get_entity_version", {"tenant": tenant})[0]
        with self._entity_writes_lock:
            written = self._entity_writes.get(tenant, 0)
        latest = row["latest"]
        return f"{written}:{row['count']}:{'' if latest is None else latest}"

    def search_context(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        *,
        vector: Any,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None = None,
        window_depth: int | None = None,
    ) -> SearchContext:
        """``hybrid_search``, the turn hits' window, the unknown scope, the entity version.

        Composed of those operations (:mod:`graphmem.backends.composed`): two round
        trips, one more for a window of turn hits and one more for a scope.
        """
        self._check(tenant)
        return composed.search_context(
            self._operation,
            tenant,
            kinds,
            vector=vector,
            text=text,
            k=k,
            scope_ids=scope_ids,
            window_depth=window_depth,
        )

    def gather(
        self,
        tenant: str,
        *,
        chunk_ids: Sequence[str] = (),
        turn_ids: Sequence[str] = (),
        entity_ids: Sequence[str] = (),
        mentions_of: Mapping[NodeKind, Sequence[str]] | None = None,
        seed_ids: Sequence[str] = (),
        seed_mentions: bool = False,
        depth: int = 0,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
        mentioning: Sequence[NodeKind] = (),
        mentioning_limit: int | None = None,
    ) -> Gathered:
        """Nodes, mentions, a walk from seeds and what mentions it.

        Composed of the operations each part stands for (:mod:`graphmem.backends.composed`):
        one round trip per part asked for, plus one to tell which seeds are entities.
        """
        self._check(tenant)
        return composed.gather(
            self._operation,
            tenant,
            chunk_ids=chunk_ids,
            turn_ids=turn_ids,
            entity_ids=entity_ids,
            mentions_of=mentions_of,
            seed_ids=seed_ids,
            seed_mentions=seed_mentions,
            depth=depth,
            rel_types=rel_types,
            direction=direction,
            within=within,
            max_nodes=max_nodes,
            mentioning=mentioning,
            mentioning_limit=mentioning_limit,
        )

    def _operation(self, name: str) -> Callable[..., Any]:
        """The public operation ``name`` (for :mod:`graphmem.backends.composed`)."""
        method: Callable[..., Any] = getattr(self, name)
        return method

    def list_tenants(self) -> list[str]:
        """Every tenant that holds something (an entity, turn, chunk or record), sorted."""
        self._check_open()
        return [row["tenant"] for row in self._read("admin/list_tenants", {})]


class _TurnPlan:
    """The turns of a load, checked and arranged into query rows."""

    def __init__(self) -> None:
        self.turn_ids: list[str] = []
        self.refs: list[dict[str, str]] = []
        self.sessions: list[dict[str, Any]] = []
        self.links: list[dict[str, str]] = []
        self.heads: list[dict[str, str]] = []

    def session_groups(self) -> Iterator[list[dict[str, Any]]]:
        """The ``$sessions`` parameter of each create_turns query: at most BATCH_ROWS turns."""
        group: list[dict[str, Any]] = []
        size = 0
        for session in self.sessions:
            for part in _slices(session["turns"]):
                if group and size + len(part) > BATCH_ROWS:
                    yield group
                    group, size = [], 0
                group.append({"session_id": session["session_id"], "turns": list(part)})
                size += len(part)
        if group:
            yield group


def _plan_mentions(mentions: object) -> dict[str, list[dict[str, str]]]:
    """A load's ``(kind, node_id, entity_id)`` triples, checked and grouped by kind."""
    if isinstance(mentions, str | Mapping) or not isinstance(mentions, Iterable):
        raise InvalidInput("dump.mentions takes a list of (kind, node_id, entity_id)")
    grouped: dict[str, dict[tuple[str, str], None]] = {}
    for index, mention in enumerate(mentions):
        if not isinstance(mention, tuple | list) or len(mention) != 3:
            raise InvalidInput(f"mentions[{index}] must be (kind, node_id, entity_id)")
        kind, node_id, entity_id = mention
        _mention_queries(kind)
        key = (
            check_id(node_id, f"mentions[{index}] node_id"),
            check_id(entity_id, f"mentions[{index}] entity_id"),
        )
        grouped.setdefault(kind, {})[key] = None
    return {
        kind: [{"node_id": n, "entity_id": e} for n, e in pairs] for kind, pairs in grouped.items()
    }


def _parents_first(turns: Sequence[Turn], by_id: Mapping[str, Turn]) -> list[Turn]:
    """The dump's turns with every parent in the dump before its children (else in order).

    The load numbers each session's turns in this order (``seq``), which keeps ``seq``
    increasing along every branch: the active branch is read newest first by ``seq``.
    Linear: each turn is walked once. A cycle of parents (which would never reach a
    root) is ``InvalidInput``.
    """
    done: set[str] = set()
    ordered: list[Turn] = []
    for turn in turns:
        path: list[Turn] = []
        on_path: set[str] = set()
        step: Turn | None = turn
        while step is not None and step.id not in done:
            if step.id in on_path:
                raise InvalidInput(f"the parents of turn {turn.id!r} form a cycle", turn_id=turn.id)
            on_path.add(step.id)
            path.append(step)
            step = by_id.get(step.parent_id) if step.parent_id else None
        for ancestor in reversed(path):
            done.add(ancestor.id)
            ordered.append(ancestor)
    return ordered


def _plan_turns(turns: Sequence[Turn], heads: Mapping[str, str | None]) -> _TurnPlan:
    """Check a load's turns and heads without the server; arrange them for the queries."""
    plan = _TurnPlan()
    by_id: dict[str, Turn] = {}
    for turn in turns:
        if turn.id in by_id:
            raise InvalidInput(f"turn id {turn.id!r} occurs twice in the dump", turn_id=turn.id)
        by_id[turn.id] = turn
    plan.turn_ids = list(by_id)
    for turn in turns:
        if turn.parent_id is None:
            continue
        parent = by_id.get(turn.parent_id)
        if parent is None:
            plan.refs.append({"id": turn.parent_id, "session": turn.session_id})
        elif parent.session_id != turn.session_id:
            raise InvalidInput(
                f"turn {turn.id!r} of session {turn.session_id!r} names parent "
                f"{turn.parent_id!r} of session {parent.session_id!r}",
                turn_id=turn.id,
            )
        plan.links.append({"id": turn.id, "parent_id": turn.parent_id})
    grouped: dict[str, list[dict[str, Any]]] = {}
    for turn in _parents_first(turns, by_id):
        props = turn_props(turn)
        props["created_at"] = wire_time(turn.created_at)  # stored as DateTime by the query
        grouped.setdefault(turn.session_id, []).append(props)
    last: dict[str, str] = {}
    for turn in turns:
        last[turn.session_id] = turn.id
    plan.sessions = [{"session_id": s, "turns": rows} for s, rows in grouped.items()]
    resolved: dict[str, str] = dict(last)
    for session_id, head_id in heads.items():
        check_id(session_id, "session id in heads")
        if head_id is None:
            continue  # the last turn of the session in the dump, if it has any
        check_id(head_id, "head id")
        head = by_id.get(head_id)
        if head is None:
            plan.refs.append({"id": head_id, "session": session_id})
        elif head.session_id != session_id:
            raise InvalidInput(
                f"the head of session {session_id!r} is turn {head_id!r} of session "
                f"{head.session_id!r}",
                session_id=session_id,
            )
        resolved[session_id] = head_id
    plan.heads = [{"session_id": s, "head_id": h} for s, h in resolved.items()]
    return plan


def open_neo4j(url: str, **options: Any) -> Neo4jStore:
    """Open a Neo4j store: ``neo4j://user:password@host:7687/database``.

    Args:
        url: ``neo4j://``, ``neo4j+s://``, ``bolt://`` or ``bolt+s://``; the database from
            the path or ``?database=``.
        **options: ``user``, ``password``, ``database`` (win over the URL); ``tracer``
            (a callable given a :class:`graphmem.store.TraceEvent` per query);
            ``ensure_schema`` (default True: create the uniqueness constraints if
            missing); ``bookmarks`` (another store's :attr:`Neo4jStore.bookmarks`: this
            store's first transactions wait for those writes); anything else goes to
            ``neo4j.GraphDatabase.driver`` (for example ``connection_timeout`` or
            ``max_transaction_retry_time``).

    Raises:
        InvalidInput: The URL or an option is not understood.
        BackendUnavailable: The server cannot be reached, refuses the credentials, or
            has no such database.
    """
    tracer: Tracer | None = options.pop("tracer", None)
    ensure_schema = bool(options.pop("ensure_schema", True))
    bookmarks: Iterable[str] | None = options.pop("bookmarks", None)
    initial = None if bookmarks is None else _check_bookmarks(bookmarks)
    settings = parse_connection(url, **options)
    driver = make_driver(settings)
    store = Neo4jStore(driver, settings, tracer=tracer, bookmarks=initial)
    try:
        store.ping()
        if ensure_schema:
            store.ensure_keys()
    except BaseException:
        store.close()
        raise
    return store


def make_driver(settings: ConnectionSettings) -> neo4j.Driver:
    """A driver for ``settings``; a bad URL or option raises ``InvalidInput``."""
    # graphmem's queries are its own: the server need not compute notifications for them
    # (a user who wants them passes notifications_min_severity=...).
    options = {"notifications_min_severity": "OFF", **settings.driver_options}
    try:
        return neo4j.GraphDatabase.driver(settings.uri, auth=settings.auth, **options)
    except (neo4j_errors.ConfigurationError, ValueError, TypeError) as exc:
        raise InvalidInput(
            f"cannot connect to {settings.redacted_url}: {exc}", url=settings.redacted_url
        ) from exc
