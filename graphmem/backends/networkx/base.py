"""The base of every room of ``NetworkXStore``: lifecycle, the operation wrapper, change records.

:class:`NetworkXBase` opens and closes the store (and the file it is given, seen through
:class:`~.protocols.StoreFile`) and holds the tenants' state. :func:`_operation` wraps
every public operation: the store is open, the tenant named, the lock held, a read-only
store refuses writes, the tracer is told. Every mutation is a *change record* (a plain
dict) made durable by :meth:`~NetworkXBase._commit` (a ``file://`` store commits it to
SQLite first) and applied by one method, :meth:`~NetworkXBase._apply` (its steps are in
:mod:`.changes`). Also the input checks every room uses.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial, wraps
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from graphmem.backends.networkx.changes import (
    apply_delete_records,
    apply_delete_turn,
    apply_put,
    remove_entities,
)
from graphmem.backends.networkx.protocols import StoreFile
from graphmem.backends.networkx.state import (
    _EMPTY,
    _indexes,
    _Tenant,
    _whole,
    paused_gc,
)
from graphmem.core.checks import check_arguments, check_safe_names
from graphmem.core.errors import InvalidInput, StoreClosed, StoreReadOnly
from graphmem.core.models import NODE_KINDS
from graphmem.core.store import (
    WRITE_METHODS,
    Tracer,
    check_tenant,
    traced,
)

_P = ParamSpec("_P")


_R = TypeVar("_R")
_S = TypeVar("_S", bound="NetworkXBase")


# Tenants that passed check_tenant once: the check is skipped on hot paths afterwards.
_valid_tenants: set[str] = set()


def _operation(
    method: Callable[Concatenate[_S, str, _P], _R],
) -> Callable[Concatenate[_S, str, _P], _R]:
    """Check the store is open and the tenant named, hold the lock, report to the tracer.

    A read-only store refuses writes here, before any work; a reader of a file first
    syncs what other processes committed, and runs the operation in one read transaction.
    """
    name = method.__name__
    writes = name in WRITE_METHODS
    texts = _text_parameters(method)

    @wraps(method)
    def wrapper(self: _S, tenant: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if self._closed:
            raise StoreClosed(f"the store {self._url} is closed; open it again", url=self._url)
        if writes and self._read_only:
            raise StoreReadOnly(
                f"the store {self._url} was opened with read_only=True; {name} writes. "
                "Open it without read_only to write (one writer at a time).",
                url=self._url,
            )
        if type(tenant) is not str or tenant not in _valid_tenants:
            _valid_tenants.add(check_tenant(tenant))
        check_arguments(args, kwargs, texts)
        with self._lock:
            self._ops += 1  # the warm-up of a reopened file backs off while this moves
            if writes:
                with paused_gc():
                    return self._run(method, name, tenant, args, kwargs)
            if self._follow is not None:
                with self._follow.following():
                    return self._run(method, name, tenant, args, kwargs)
            if self._tracer is None:
                return method(self, tenant, *args, **kwargs)
            return self._run(method, name, tenant, args, kwargs)

    return wrapper


def _params(tenant: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The parameters of a traced operation, as its TraceEvent holds them."""
    if kwargs:
        return {"tenant": tenant, "args": args, **kwargs}
    return {"tenant": tenant, "args": args}


def _text_parameters(method: Callable[..., Any]) -> dict[str, tuple[int, bool]]:
    """The parameters of a store method (after the tenant) annotated ``str`` or ``str | None``."""
    params = list(inspect.signature(method).parameters.values())[2:]
    return {
        p.name: (index, p.annotation != "str")
        for index, p in enumerate(params)
        if p.annotation in ("str", "str | None")
    }


def _check_kind(kind: str, allowed: Sequence[str] = NODE_KINDS) -> str:
    if kind not in allowed:
        raise InvalidInput(f"kind must be one of {tuple(allowed)}, got {kind!r}", kind=kind)
    return kind


def _check_types(types: Sequence[str] | None, what: str) -> frozenset[str] | None:
    names = check_safe_names(types, what)
    return None if names is None else frozenset(names)


class NetworkXBase:
    """The store's lifecycle, its tenants, and the change records every write goes through."""

    def __init__(
        self,
        url: str = "memory://",
        *,
        read_only: bool = False,
        tracer: Tracer | None = None,
    ) -> None:
        self._url = url
        self._tracer = tracer
        # A tracer's fast path (see traced), looked up once
        self._observe: Callable[[str, Mapping[str, Any], float, int], object] | None = getattr(
            tracer, "observe", None
        )
        self._lock = threading.RLock()
        self._closed = False
        self._read_only = read_only
        self._ops = 0  # operations run (read by the warm-up thread of a file store)
        self._tenants: dict[str, _Tenant] = {}
        self._file: StoreFile | None = None
        self._follow: StoreFile | None = None  # a reader syncs from its file per operation
        # Entity writes applied per tenant (entity_version): kept across clear(); and how
        # often the whole store was (re)loaded from its file (a reader far behind reloads).
        self._entity_writes: dict[str, int] = {}
        self._loads = 0
        # Moves on before any change is applied (revision): a cached answer is stale when
        # it moved. Read without the lock: an int assignment is atomic.
        self._revision = 0

    def _open_file(self, file: StoreFile, *, preload: bool, warm: bool) -> None:
        """Load the store from ``file``, which then makes every change durable.

        The file is closed again if loading fails.
        """
        self._file = file
        try:
            file.load()
            if preload:
                with paused_gc():
                    for data in self._tenants.values():
                        _whole(data)
        except BaseException:
            file.close()
            raise
        if self._read_only:
            self._follow = file
        if warm:
            file.warm()

    @property
    def url(self) -> str:
        """The URL this store was opened with."""
        return self._url

    def close(self) -> None:
        """Release the store (and its file); later calls raise ``StoreClosed``.

        The file is released even when closing it fails (the error is raised after).
        """
        if self._file is not None:
            self._file.stop_warming()  # before the lock: the warm-up takes it to put models in
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for data in self._tenants.values():
                data.texts.clear()  # the full-text indexes are rebuilt when a store opens
            if self._file is not None:
                self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, method: Callable[..., _R], name: str, tenant: str, args: Any, kwargs: Any) -> _R:
        observe = self._observe
        if observe is not None:  # traced() inlined: no object per operation
            start = time.perf_counter()
            try:
                return method(self, tenant, *args, **kwargs)
            finally:
                observe(name, _params(tenant, args, kwargs), time.perf_counter() - start, 0)
        if self._tracer is None:
            return method(self, tenant, *args, **kwargs)
        with traced(self._tracer, name, _params(tenant, args, kwargs)):
            return method(self, tenant, *args, **kwargs)

    def _tenant(self, tenant: str) -> _Tenant:
        return self._tenants.get(tenant, _EMPTY)

    def _make_tenant(self, tenant: str) -> _Tenant:
        if self._file is None:
            return _Tenant()
        return _Tenant(graph=self._file.new_graph(tenant))

    def _commit(self, record: dict[str, Any]) -> None:
        """Make a change durable (file stores: one SQLite transaction), then apply it."""
        if self._file is not None:
            self._file.commit(record)
        else:
            self._apply(record)

    def _apply(self, record: dict[str, Any]) -> None:
        self._revision += 1  # first: a reader that saw the old number read the old data
        op = record["op"]
        tenant = record["tenant"]
        data = self._tenants.get(tenant)
        if data is None:
            if op != "put":
                return
            data = self._tenants[tenant] = self._make_tenant(tenant)
        written = ("entities", "relationships", "delete_entities", "delete_relationships")
        if op in ("delete_entities", "delete_relationship") or (
            op == "put" and any(record.get(part) for part in written)
        ):
            data.summaries.clear()
        if op in ("delete_entities", "clear") or (op == "put" and record.get("entities")):
            self._entity_writes[tenant] = self._entity_writes.get(tenant, 0) + 1
        if op == "put":
            for source, target, type_ in record.get("delete_relationships", ()):  # write_changes
                data.graph.remove_edge(source, target, key=type_)
            if record.get("delete_entities"):  # write_changes
                remove_entities(data, record["delete_entities"])
            apply_put(data, record)
            for kind, ids in record.get("delete_records", {}).items():  # write_records
                apply_delete_records(data, kind, ids)
        elif op == "delete_entities":
            remove_entities(data, record["ids"])
        elif op == "delete_chunks":
            for chunk_id in record["ids"]:
                del data.chunks[chunk_id]
            data.forget_nodes("chunk", record["ids"])
        elif op == "mentions":
            kind = record["kind"]
            for node_id, entity_ids in record["links"].items():
                data.unlink(kind, node_id)
                if entity_ids:
                    data.mentions[kind][node_id] = set(entity_ids)
                    for entity_id in entity_ids:
                        data.mentioned_by[kind].setdefault(entity_id, set()).add(node_id)
        elif op == "embed":
            kind = record["kind"]
            index = data.vectors.get(kind)
            if index is None or len(index) == 0:
                index = data.vectors[kind] = _indexes().VectorIndex(record["vectors"].shape[1])
            index.put(record["ids"], record["vectors"])
        elif op == "delete_relationship":
            source, target, type_ = record["key"]
            data.graph.remove_edge(source, target, key=type_)
        elif op == "delete_turn":
            apply_delete_turn(data, record["id"])
            data.forget_nodes("turn", [record["id"]])
        elif op == "delete_conversation":
            session = data.sessions.pop(record["session_id"], None)
            data.forget_nodes("turn", list(session.order) if session else [])
            for turn_id in session.order if session else ():
                turn = data.turns.pop(turn_id)
                data.children.pop(turn_id, None)
                if turn.parent_id is not None and turn.parent_id in data.children:
                    data.children[turn.parent_id].remove(turn_id)
        elif op == "delete_records":
            apply_delete_records(data, record["kind"], record["ids"])
        elif op == "clear":
            for text in data.texts.values():
                text.drop()
            del self._tenants[tenant]
        else:  # pragma: no cover - records are made by this module only
            raise AssertionError(f"unknown change record {op!r}")

    def _unwrapped(self, name: str) -> Callable[..., Any]:
        """The operation ``name`` without its lock and tracer (for a caller that holds them)."""
        method: Callable[..., Any] = getattr(type(self), name).__wrapped__
        return partial(method, self)
