"""The plumbing under every room of ``Neo4jStore``: driver, sessions, retries, errors.

:class:`Neo4jBase` holds the driver, the bookmark manager and the tracer, and runs query
files: :meth:`~Neo4jBase._run` inside a managed transaction, :meth:`~Neo4jBase._read` as
one auto-commit round trip (retried with backoff), :meth:`~Neo4jBase._write` as one
pipelined managed transaction. :func:`_translate` turns a driver error into graphmem's
error tree at this boundary. The rooms (:mod:`.graph`, :mod:`.conversations`,
:mod:`.records`, :mod:`.chunks`, :mod:`.search`, :mod:`.tenant`) build on it, and
:class:`~graphmem.backends.neo4j.store.Neo4jStore` is their union.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, LiteralString, Self, TypeVar

import neo4j
from neo4j import exceptions as neo4j_errors

from graphmem.backends.neo4j.connection import ConnectionSettings
from graphmem.backends.neo4j.queries import load_query, load_typed_query
from graphmem.core.checks import check_arguments
from graphmem.core.errors import (
    BackendUnavailable,
    GraphmemError,
    InvalidInput,
    StoreClosed,
    UnsupportedOperation,
)
from graphmem.core.store import (
    Tracer,
    check_tenant,
    traced,
)

T = TypeVar("T")


Rows = list[dict[str, Any]]

Statement = tuple[str, Mapping[str, Any], str | None]
"""A statement of :meth:`Neo4jBase._run_pipelined`: query file, parameters, relationship type."""

_Prepared = tuple[str, LiteralString, Mapping[str, Any], dict[str, Any]]
"""A statement ready to send: query file, query text, parameters, parameters as sent."""


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


DEFAULT_RETRY_SECONDS = 30.0
"""How long a retryable error is retried when ``max_transaction_retry_time`` is not given
(the driver's default)."""


RETRY_DELAY = 0.05
"""The first wait before an auto-commit read is retried (doubling, up to 1 s, with jitter,
for up to the driver's ``max_transaction_retry_time``, 30 s unless given)."""


NO_LIMIT = 2**31 - 1
"""The "no limit" value of ``$limit`` / ``$max_nodes`` parameters, and the cap of any limit
a caller gives: Neo4j takes a list index or slice bound only as a 32-bit integer
(``[..$limit]`` fails with "Expected an integer between -2147483648 and 2147483647"), so
a larger value is never sent. No query returns that many rows."""


_ALREADY_EXISTS = (
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.ConstraintAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists",
)


def _check_bookmarks(bookmarks: object) -> list[str]:
    if isinstance(bookmarks, str) or not isinstance(bookmarks, Iterable):
        raise InvalidInput("bookmarks takes a list of bookmark strings (store.bookmarks)")
    values = list(bookmarks)
    for value in values:
        if not isinstance(value, str) or not value:
            raise InvalidInput(f"a bookmark is a non-empty string, got {value!r}")
    return values


def _result_rows(result: neo4j.Result) -> Rows:
    """Every record of a result as a dict (the result transformer of ``execute_query``).

    ``dict(record)``, not ``record.data()``: every query returns maps, lists and scalars
    that the driver has already decoded, and ``data()`` walks each value again (half the
    time of a 10,000-turn history).
    """
    return [dict(record) for record in result]


class _Rows(list[Any]):
    """A list parameter whose ``repr`` is short.

    The driver builds its debug line for every RUN message, ``repr`` of every parameter
    included, before it asks the logger whether debug is on: about 10 microseconds a
    row of a relationship batch (half a second for 50,000 rows), for a line nobody reads.
    The codec packs it as the list it is.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} values>"


def _wire_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as sent: each list as a :class:`_Rows` (see there)."""
    return {
        key: _Rows(value) if type(value) is list and len(value) > 8 else value
        for key, value in params.items()
    }


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


def _translate_once(exc: Exception, url: str, query_name: str | None) -> GraphmemError:
    """:func:`_translate` for a write that is not repeated.

    A lost connection may have left it applied, so it is not reported as "nothing was
    written".
    """
    if isinstance(exc, _CONNECTION_ERRORS) and not isinstance(exc, neo4j_errors.Neo4jError):
        return BackendUnavailable(
            f"the connection to Neo4j at {url} failed during query {query_name} "
            f"({type(exc).__name__}: {exc}); the write may or may not have been applied: "
            "read before you repeat it",
            url=url,
            query_name=query_name,
        )
    return _translate(exc, url, query_name)


MINIMUM_VERSION = (5, 26)
"""The oldest Neo4j graphmem runs on: its queries use Cypher of 5.26 (``SHORTEST``,
``CALL (x) { ... }``, ``OPTIONAL CALL``, ``COLLECT { ... }``). Every 5.26 patch release
serves (the 5.26.0 bugs graphmem met are worked around: see
:data:`~graphmem.backends.neo4j.queries.TYPE_SLOT` and ``traversal/find_path``), as do
the calendar-versioned releases after it (2025.01 and on)."""


def check_server_version(version: object, url: str) -> None:
    """Refuse a server older than :data:`MINIMUM_VERSION` with ``UnsupportedOperation``.

    >>> check_server_version("5.26.0", "bolt://db")
    >>> check_server_version("2025.06.2", "bolt://db")
    >>> check_server_version("5.13.0", "bolt://db")
    Traceback (most recent call last):
    ...
    graphmem.core.errors.UnsupportedOperation: Neo4j at bolt://db is 5.13.0; graphmem needs ...
    """
    parts = str(version).split(".")
    try:
        found = (int(parts[0]), int(parts[1]))
    except (IndexError, ValueError):
        return  # a version string of a form we do not know: let the queries speak
    if found < MINIMUM_VERSION:
        raise UnsupportedOperation(
            f"Neo4j at {url} is {version}; graphmem needs Neo4j 5.26 or newer (any 5.26.x "
            "patch release, or 2025.01 and later): upgrade the server",
            url=url,
            version=str(version),
        )


class Neo4jBase:
    """The driver, the bookmarks and the tracer of a store, and the running of query files."""

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
        self.server_version: str | None = None
        """The server's Neo4j version (``5.26.0``), read when the store opens."""
        # (when read, ONLINE vector index name -> dimension); see _online_vector_index.
        self._index_cache: tuple[float, dict[str, int]] | None = None
        # Entity writes made through this store, per tenant (see entity_version).
        self._entity_writes: dict[str, int] = {}
        self._entity_writes_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Neo4jStore({self.url!r})"

    def __enter__(self) -> Self:
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

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed(f"the store {self.url} is closed; open a new one", url=self.url)

    def _check(self, tenant: str) -> str:
        self._check_open()
        return check_tenant(tenant)

    def _run(
        self,
        tx: neo4j.ManagedTransaction,
        name: str,
        params: Mapping[str, Any],
        *,
        rel_type: str | None = None,
    ) -> Rows:
        """Run the query file ``name`` in ``tx``: one round trip, reported to the tracer.

        ``rel_type``: the relationship type written into the file's type slot
        (:func:`~graphmem.backends.neo4j.queries.load_typed_query`).
        """
        # The driver types queries as LiteralString to discourage building them from
        # input; ours come from the packaged files, a type only after the safe-name check.
        query: LiteralString = (
            load_query(name) if rel_type is None else load_typed_query(name, rel_type)
        )
        check_arguments((), params)  # the driver cannot encode a lone surrogate
        with traced(self._tracer, name, params, round_trips=1):
            try:
                result = tx.run(query, _wire_params(params))
                return _result_rows(result)
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
                # Attach the query name; the transaction function re-raises it to the
                # driver (which decides about retries) and _execute translates it.
                exc.add_note(f"graphmem query: {name}")
                raise

    def _run_pipelined(
        self, tx: neo4j.ManagedTransaction, statements: Sequence[Callable[[], Statement]]
    ) -> list[Rows]:
        """Run ``statements`` in ``tx`` in order, overlapping the client's work with the server's.

        A batch write is many statements of one transaction; run one after the other, the
        client builds a statement's rows while the server waits, then the server runs it
        while the client waits: on one machine the time is the sum of the two. Here each
        statement is built (``statements[k]()``) on a worker thread while the server runs
        the one before, and sent before the results of the one before are read, so the
        server has the next one when it finishes (the driver buffers the earlier
        results): the time is about the longer of the two. A single statement runs
        without the thread. Still one transaction: all or nothing as before. An error of
        building a statement (``InvalidInput``) or of the server stops the rest and is
        raised here, inside the transaction, which then rolls back.
        """

        def prepare(k: int) -> _Prepared:
            name, params, rel_type = statements[k]()
            query: LiteralString = (
                load_query(name) if rel_type is None else load_typed_query(name, rel_type)
            )
            check_arguments((), params)  # the driver cannot encode a lone surrogate
            return name, query, params, _wire_params(params)

        if len(statements) == 1:
            return [self._finish(*self._send(tx, prepare(0), None))]
        done: list[Rows] = []
        pending: tuple[traced, neo4j.Result, str] | None = None
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-rows") as worker:
            upcoming = worker.submit(prepare, 0) if statements else None
            for k in range(len(statements)):
                assert upcoming is not None
                prepared = upcoming.result()
                upcoming = worker.submit(prepare, k + 1) if k + 1 < len(statements) else None
                sent = self._send(tx, prepared, pending)
                previous, pending = pending, sent
                if previous is not None:
                    try:
                        done.append(self._finish(*previous))
                    except BaseException:
                        sent[0].__exit__(None, None, None)
                        raise
            if pending is not None:
                done.append(self._finish(*pending))
        return done

    def _send(
        self,
        tx: neo4j.ManagedTransaction,
        prepared: _Prepared,
        pending: tuple[traced, neo4j.Result, str] | None,
    ) -> tuple[traced, neo4j.Result, str]:
        """Send one statement of :meth:`_run_pipelined`; its trace event starts here.

        On an error the events of this statement and of ``pending`` (sent, not yet read)
        end, and the error is named after ``pending``'s query when there is one: the
        failure of the statement before arrives first.
        """
        name, query, params, wired = prepared
        timer = traced(self._tracer, name, params, round_trips=1)
        timer.__enter__()
        try:
            result = tx.run(query, wired)
        except BaseException as exc:
            timer.__exit__(None, None, None)
            if pending is not None:
                pending[0].__exit__(None, None, None)
            if isinstance(exc, neo4j_errors.Neo4jError | neo4j_errors.DriverError):
                exc.add_note(f"graphmem query: {pending[2] if pending else name}")
            raise
        return timer, result, name

    @staticmethod
    def _finish(timer: traced, result: neo4j.Result, name: str) -> Rows:
        """The rows of a statement of :meth:`_run_pipelined`; its trace event ends here."""
        try:
            return _result_rows(result)
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
            exc.add_note(f"graphmem query: {name}")
            raise
        finally:
            timer.__exit__(None, None, None)

    def _execute(self, work: Callable[[neo4j.ManagedTransaction], T], *, write: bool) -> T:
        """Run ``work`` in one managed transaction (retried on transient errors).

        On the wire a managed transaction is BEGIN, then each query (RUN and PULL
        together), then COMMIT: its queries' round trips plus two, which the tracer is
        told as one ``transaction`` event.
        """
        self._check_open()
        try:
            with (
                traced(self._tracer, "transaction", {"write": write}, round_trips=2),
                self._driver.session(
                    database=self._settings.database,
                    default_access_mode=neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS,
                    bookmark_manager=self._bookmarks,
                ) as session,
            ):
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

    def _autocommit(
        self,
        name: str,
        params: Mapping[str, Any],
        *,
        write: bool,
        repeat: bool = True,
        rel_type: str | None = None,
    ) -> Rows:
        """Run one query file as an auto-commit transaction: one network round trip.

        The driver sends RUN and PULL together and the server commits when the result is
        consumed: no BEGIN and no COMMIT message, one round trip where a managed
        transaction takes three. A single statement is atomic on its own. Only for
        reads, and for writes that can be repeated (``clear``, ``CALL { ... } IN
        TRANSACTIONS``): an error the driver calls retryable, a lost connection
        included, is retried here with backoff for up to ``max_transaction_retry_time``
        (the driver's own rule for managed transactions), which for a write is only safe
        when repeating it changes nothing. ``repeat=False``, for a write that must not be
        applied twice (``append_turns``): only what the server says it rolled back
        (``Neo.TransientError.*``: a deadlock, a leader switch) is tried again; a
        connection lost on the way is ``BackendUnavailable`` saying the write may or may
        not have been applied.
        """
        self._check_open()
        query: LiteralString = (
            load_query(name) if rel_type is None else load_typed_query(name, rel_type)
        )
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
                        return _result_rows(session.run(query, _wire_params(params)))
                except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
                    now = time.monotonic()
                    deadline = now + self._retry_seconds if deadline is None else deadline
                    rolled_back = isinstance(exc, neo4j_errors.TransientError)
                    if not repeat and not rolled_back:
                        raise _translate_once(exc, self.url, name) from exc
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
        # BEGIN, RUN and PULL go together, then COMMIT: two network round trips.
        with traced(self._tracer, name, params, round_trips=2):
            try:
                records: Rows = self._driver.execute_query(
                    query,
                    _wire_params(params),
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
            UnsupportedOperation: The server is older than :data:`MINIMUM_VERSION`.
        """
        try:
            # Fails at once when nothing listens; a query would be retried for 30 s first.
            self._driver.verify_connectivity()
        except Exception as exc:
            raise self.translate(exc) from exc
        rows = self._read("admin/ping_database", {})
        self.server_version = rows[0]["version"] if rows else None
        check_server_version(self.server_version, self.url)

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

    def _entity_written(self, tenant: str) -> None:
        """Count an entity write of this store (see :meth:`entity_version`)."""
        with self._entity_writes_lock:
            self._entity_writes[tenant] = self._entity_writes.get(tenant, 0) + 1

    def _operation(self, name: str) -> Callable[..., Any]:
        """The public operation ``name`` (for :mod:`graphmem.backends.composed`)."""
        method: Callable[..., Any] = getattr(self, name)
        return method
