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

The store is composed of rooms, one concern each, over :mod:`.plumbing` (driver,
sessions, retries, error translation) and :mod:`.rows` (input checks and query rows):
:mod:`.graph` (entities, relationships), :mod:`.traversal` (walks, identity),
:mod:`.conversations`, :mod:`.records`, :mod:`.chunks` (chunks and mentions),
:mod:`.search` (embeddings, vector, full-text and hybrid search) and :mod:`.tenant`
(dump, load, clear). The load is planned by :mod:`graphmem.backends.load_plan`. How the
data is laid out is described in :mod:`graphmem.backends.neo4j.mapping`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import neo4j
from neo4j import exceptions as neo4j_errors

from graphmem.backends.neo4j.connection import ConnectionSettings, parse_connection
from graphmem.backends.neo4j.conversations import ConversationRoom
from graphmem.backends.neo4j.plumbing import (
    BATCH_ROWS,
    KEY_QUERIES,
    NO_LIMIT,
    _check_bookmarks,
)
from graphmem.backends.neo4j.plumbing import _translate as _translate
from graphmem.backends.neo4j.search import (
    EMBEDDING_ROWS,
    FULLTEXT_INDEXES,
    INDEX_CACHE_SECONDS,
    MAX_VECTOR_FETCH,
    MIN_FETCH,
    OVERFETCH,
    VECTOR_INDEXES,
    SearchRoom,
)
from graphmem.backends.neo4j.tenant import TenantRoom
from graphmem.backends.neo4j.traversal import TraversalRoom
from graphmem.core.checks import MAX_DEPTH
from graphmem.core.errors import InvalidInput
from graphmem.core.store import Tracer

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


# Flags that are not operations (the operations are the rooms the store satisfies).
_CAPABILITIES = frozenset({"persistence", "concurrent_writers"})


class Neo4jStore(TenantRoom, SearchRoom, TraversalRoom, ConversationRoom):
    """A :class:`graphmem.core.store.GraphStore` on a Neo4j 5.26+ server (Community is enough).

    Open one with :func:`open_neo4j` (or ``graphmem.open("neo4j://...", tenant=...)``).
    It is safe to share between threads: each call takes its own session from the
    driver's pool, and all sessions share one bookmark manager, so a read sees every
    write made before it through this store, even on a cluster.
    """

    @property
    def capabilities(self) -> frozenset[str]:
        """How this store behaves, as flags (its operations are the rooms it satisfies)."""
        return _CAPABILITIES


def open_neo4j(url: str, **options: Any) -> Neo4jStore:
    """Open a Neo4j store: ``neo4j://user:password@host:7687/database``.

    Args:
        url: ``neo4j://``, ``neo4j+s://``, ``bolt://`` or ``bolt+s://``; the database from
            the path or ``?database=``.
        **options: ``user``, ``password``, ``database`` (win over the URL); ``tracer``
            (a callable given a :class:`graphmem.core.store.TraceEvent` per query);
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
