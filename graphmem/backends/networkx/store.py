"""The embedded backend: one networkx ``MultiDiGraph`` per tenant, in this process.

Entities are nodes (attribute ``e`` holds the frozen :class:`Entity`), relationships are
edges keyed by their type (attribute ``r`` holds the frozen :class:`Relationship`), and
conversation turns live beside the graph with a parent pointer and a children index.
Stored models are immutable, so reads hand them out without copying.

Every mutation is expressed as a *change record* (a plain dict) that is applied by one
function, ``_apply``. A ``file://`` store first commits the record to its SQLite database
(:mod:`graphmem.backends.networkx.sqlite_file`), then applies it. Reopening loads the ids
and adjacency of the graph; the entity and relationship models are read on first use.
"""

from __future__ import annotations

import gc
import inspect
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial, wraps
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import parse_qs, unquote, urlsplit

import networkx as nx

from graphmem.backends import composed
from graphmem.checks import (
    check_arguments,
    check_depth,
    check_ids,
    check_limit,
    check_positive,
    check_safe_names,
)
from graphmem.errors import InvalidInput, NotFound, StoreClosed, StoreReadOnly
from graphmem.models import (
    NODE_KINDS,
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
    construct_trusted,
    entity_text,
    utcnow,
)
from graphmem.store import (
    WRITE_METHODS,
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
    stored_changes,
    traced,
)

if TYPE_CHECKING:
    from graphmem.backends.networkx.indexes import TextIndex, VectorIndex
    from graphmem.backends.networkx.sqlite_file import SQLiteFile

__all__ = ["NetworkXStore", "file_path", "open_networkx", "paused_gc"]

_P = ParamSpec("_P")
_R = TypeVar("_R")
_ONE_MICROSECOND = timedelta(microseconds=1)
_LAST_TIME = datetime.max.replace(tzinfo=UTC)
_REL_KEY = attrgetter("source_id", "target_id", "type")
_DIRECTIONS = ("out", "in", "both")
# Flags that are not operations (the operations are the rooms the store satisfies).
_CAPABILITIES = frozenset({"inline_reads"})
_WHOLE_FILE_CAPABILITIES = _CAPABILITIES | {"persistence"}
_FILE_CAPABILITIES = _WHOLE_FILE_CAPABILITIES - {"inline_reads"}
_MENTION_KINDS = ("turn", "chunk")


@dataclass(slots=True)
class _Session:
    head: str | None = None
    # Turn ids in the order they were stored (dict as an ordered set).
    order: dict[str, None] = field(default_factory=dict)


@dataclass(slots=True)
class _Tenant:
    graph: nx.MultiDiGraph = field(default_factory=nx.MultiDiGraph)
    turns: dict[str, Turn] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    sessions: dict[str, _Session] = field(default_factory=dict)
    # Generic records by kind, then id; and the ids of each owner's records, by kind.
    records: dict[str, dict[str, Record]] = field(default_factory=dict)
    owned: dict[str, dict[str, dict[str, None]]] = field(default_factory=dict)
    chunks: dict[str, Chunk] = field(default_factory=dict)
    # kind -> node id -> entity ids it mentions, and the reverse index.
    mentions: dict[str, dict[str, set[str]]] = field(
        default_factory=lambda: {k: {} for k in _MENTION_KINDS}
    )
    mentioned_by: dict[str, dict[str, set[str]]] = field(
        default_factory=lambda: {k: {} for k in _MENTION_KINDS}
    )
    # kind -> entity id -> mentioning node ids, sorted: filled by reads, emptied by writes.
    sorted_mentions: dict[str, dict[str, list[str]]] = field(
        default_factory=lambda: {k: {} for k in _MENTION_KINDS}
    )
    vectors: dict[str, VectorIndex] = field(default_factory=dict)
    # Built on the first full-text search of a kind, then kept up to date.
    texts: dict[str, TextIndex] = field(default_factory=dict)
    # Casefolded entity name -> ids of the entities of that name (EntityFilter.name):
    # None until the first lookup by name builds it (a reopened file store reads
    # names with the models, on first use), then kept in step by every entity write.
    names: dict[str, set[str]] | None = None
    name_keys: dict[str, str] = field(default_factory=dict)  # entity id -> its key in names
    # A reopened file store reads models on first use; this reads all the rest at once,
    # and near(entity_id) those of a node, its relationships and their other ends.
    fill: Callable[[], None] | None = None
    near: Callable[[str], None] | None = None
    # Summaries of the current facts (relationship_patterns, relationship_cooccurrence) as
    # last computed, each with until when it holds (None: until a write of entities or
    # facts; else the next instant a fact becomes or stops being current).
    summaries: dict[str, tuple[datetime | None, list[Any]]] = field(default_factory=dict)

    def named(self) -> dict[str, set[str]]:
        """The name index, built from every entity on first use."""
        if self.names is None:
            names: dict[str, set[str]] = {}
            keys: dict[str, str] = {}
            for entity_id, node in _whole(self).graph._node.items():
                key = keys[entity_id] = node["e"].name.casefold()
                names.setdefault(key, set()).add(entity_id)
            self.names, self.name_keys = names, keys
        return self.names

    def name_entity(self, entity: Entity) -> None:
        """Keep the name index (when built) in step with an entity written."""
        if self.names is None:
            return
        key = entity.name.casefold()
        if self.name_keys.get(entity.id) != key:
            self.unname(entity.id)
            self.name_keys[entity.id] = key
            self.names.setdefault(key, set()).add(entity.id)

    def unname(self, entity_id: str) -> None:
        """Take an entity out of the name index (when built); its model is not read."""
        key = self.name_keys.pop(entity_id, None)
        if self.names is None or key is None:
            return
        ids = self.names.get(key)
        if ids is not None:
            ids.discard(entity_id)
            if not ids:
                del self.names[key]

    def put_record(self, record: Record) -> None:
        """Store a record, keeping the owner index in step."""
        by_id = self.records.setdefault(record.kind, {})
        old = by_id.get(record.id)
        if old is not None and old.owner is not None and old.owner != record.owner:
            self.disown(old)
        by_id[record.id] = record
        if record.owner is not None:
            self.owned.setdefault(record.kind, {}).setdefault(record.owner, {})[record.id] = None

    def disown(self, record: Record) -> None:
        """Take a record out of the owner index."""
        owners = self.owned.get(record.kind, {})
        ids = owners.get(record.owner or "")
        if ids is not None:
            ids.pop(record.id, None)
            if not ids:
                del owners[record.owner or ""]

    def unlink(self, kind: str, node_id: str) -> None:
        """Forget what a node mentions."""
        self.sorted_mentions[kind].clear()
        for entity_id in self.mentions[kind].pop(node_id, ()):
            nodes = self.mentioned_by[kind][entity_id]
            nodes.discard(node_id)
            if not nodes:
                del self.mentioned_by[kind][entity_id]

    def forget_nodes(self, kind: str, node_ids: Sequence[str]) -> None:
        """Drop deleted nodes from the indexes and the mention maps."""
        vectors = self.vectors.get(kind)
        if vectors is not None:
            vectors.remove(node_ids)
        text = self.texts.get(kind)
        for node_id in node_ids:
            if text is not None:
                text.remove(node_id)
            if kind != "entity":
                self.unlink(kind, node_id)
                continue
            for mention_kind in _MENTION_KINDS:
                self.sorted_mentions[mention_kind].pop(node_id, None)
                for node in self.mentioned_by[mention_kind].pop(node_id, ()):
                    self.mentions[mention_kind][node].discard(node_id)
                    if not self.mentions[mention_kind][node]:
                        del self.mentions[mention_kind][node]


def _chunk_text(chunk: Chunk) -> str:
    title = chunk.attributes.get("title")
    return f"{title}\n{chunk.text}" if isinstance(title, str) and title else chunk.text


_EMPTY = _Tenant()
# Tenants that passed check_tenant once: the check is skipped on hot paths afterwards.
_valid_tenants: set[str] = set()


_PROMOTE = 100_000  # young objects after which paused_gc promotes instead of scanning


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector around a bulk change or a load.

    A batch allocates a dict and a model per item and frees none of them, which makes
    the collector scan every live object again and again: pausing it during writes more
    than doubled the ingest rate of ``graphmem bench --storage``. When a load made more
    than ``_PROMOTE`` objects (a million edges at open), they are then moved to the oldest
    generation unscanned (``gc.freeze`` + ``gc.unfreeze``, skipped if the program froze
    objects of its own) rather than scanned at the next allocation: they are live data.
    Smaller writes leave the collector to run as usual.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_count()[0] >= _PROMOTE and not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def _whole(data: _Tenant) -> _Tenant:
    """The tenant with every model in memory (a reopened file store reads them lazily)."""
    if data.fill is not None:
        data.fill()
    return data


def _operation(
    method: Callable[Concatenate[NetworkXStore, str, _P], _R],
) -> Callable[Concatenate[NetworkXStore, str, _P], _R]:
    """Check the store is open and the tenant named, hold the lock, report to the tracer.

    A read-only store refuses writes here, before any work; a reader of a file first
    syncs what other processes committed, and runs the operation in one read transaction.
    """
    name = method.__name__
    writes = name in WRITE_METHODS
    texts = _text_parameters(method)

    @wraps(method)
    def wrapper(self: NetworkXStore, tenant: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
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
            with traced(self._tracer, name, {"tenant": tenant, "args": args, **kwargs}):
                return method(self, tenant, *args, **kwargs)

    return wrapper


def _text_parameters(method: Callable[..., Any]) -> dict[str, tuple[int, bool]]:
    """The parameters of a store method (after the tenant) annotated ``str`` or ``str | None``."""
    params = list(inspect.signature(method).parameters.values())[2:]
    return {
        p.name: (index, p.annotation != "str")
        for index, p in enumerate(params)
        if p.annotation in ("str", "str | None")
    }


def _check_models(items: Sequence[Any], model: type[Any], what: str) -> list[Any]:
    if isinstance(items, model | str | Mapping):
        raise InvalidInput(f"{what} takes a list; wrap a single item in [...]")
    out = list(items)
    for index, item in enumerate(out):
        if not isinstance(item, model):
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}, not a {model.__name__}", index=index
            )
        # model_construct skips validation: names that may reach a query are checked again.
        if isinstance(item, Entity | Relationship):
            check_safe_name(item.type, f"{what}[{index}].type")
        elif isinstance(item, Turn):
            check_safe_name(item.role, f"{what}[{index}].role")
        elif isinstance(item, Record):
            check_safe_name(item.kind, f"{what}[{index}].kind")
            if item.owner is not None:
                check_owner(item.owner)
            if item.blob is not None and not isinstance(item.blob, bytes):
                raise InvalidInput(f"{what}[{index}].blob must be bytes", index=index)
    return out


def _check_kind(kind: str, allowed: Sequence[str] = NODE_KINDS) -> str:
    if kind not in allowed:
        raise InvalidInput(f"kind must be one of {tuple(allowed)}, got {kind!r}", kind=kind)
    return kind


def _query_vector(data: _Tenant, kind: str, vector: Any) -> tuple[VectorIndex | None, Any]:
    """The kind's vector index (None while empty) and the checked unit query vector."""
    index = data.vectors.get(kind)
    dimension = index.dimension if index is not None and len(index) else None
    query = _indexes().as_matrix(vector, dimension, "the query vector")
    if query.shape[0] != 1:
        raise InvalidInput(f"give one query vector, got {query.shape[0]}")
    return (index if dimension is not None else None), query[0]


def _indexes() -> Any:
    # numpy is imported on first use of an index, not when the backend is opened.
    from graphmem.backends.networkx import indexes

    return indexes


def _check_types(types: Sequence[str] | None, what: str) -> frozenset[str] | None:
    names = check_safe_names(types, what)
    return None if names is None else frozenset(names)


def _is_current(rel: Relationship, now: datetime) -> bool:
    # Inlined fast path of Relationship.is_current: most facts carry no validity bounds.
    if rel.expired_at is None and rel.invalid_at is None and rel.valid_at is None:
        return True
    return rel.is_current(now)


class NetworkXStore:
    """The embedded GraphStore. Open it with ``graphmem.open_store("memory://")``.

    Thread-safe: one lock serialises operations, so concurrent appends lose nothing.
    """

    def __init__(
        self,
        url: str = "memory://",
        *,
        path: Path | None = None,
        fsync: bool = True,
        read_only: bool = False,
        preload: bool = False,
        warm: bool = False,
        tracer: Tracer | None = None,
    ) -> None:
        self._url = url
        self._tracer = tracer
        self._lock = threading.RLock()
        self._closed = False
        self._read_only = read_only
        self._ops = 0  # operations run (read by the warm-up thread of a file store)
        self._tenants: dict[str, _Tenant] = {}
        self._file: SQLiteFile | None = None
        self._follow: SQLiteFile | None = None  # a reader syncs from its file per operation
        # Entity writes applied per tenant (entity_version): kept across clear(); and how
        # often the whole store was (re)loaded from its file (a reader far behind reloads).
        self._entity_writes: dict[str, int] = {}
        self._loads = 0
        if path is not None:
            from graphmem.backends.networkx.sqlite_file import SQLiteFile

            self._file = SQLiteFile(self, path, read_only=read_only, fsync=fsync)
            try:
                self._file.load()
                if preload:
                    with paused_gc():
                        for data in self._tenants.values():
                            _whole(data)
            except BaseException:
                self._file.close()
                raise
            if read_only:
                self._follow = self._file
            if warm:
                self._file.warm()

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        """The URL this store was opened with."""
        return self._url

    @property
    def capabilities(self) -> frozenset[str]:
        """How this store behaves, as flags (its operations are the rooms it satisfies).

        ``persistence`` for ``file://``. ``inline_reads`` (reads answered from memory,
        without I/O) holds for ``memory://`` and for a ``file://`` writer once every model
        is in memory (after its warm-up, or ``preload``); a reader syncs from the file
        before each operation, so never.
        """
        if self._file is None:
            return _CAPABILITIES
        if self._read_only or any(d.fill is not None for d in list(self._tenants.values())):
            return _FILE_CAPABILITIES
        return _WHOLE_FILE_CAPABILITIES

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

    def __enter__(self) -> NetworkXStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ change records

    def _run(self, method: Callable[..., _R], name: str, tenant: str, args: Any, kwargs: Any) -> _R:
        if self._tracer is None:
            return method(self, tenant, *args, **kwargs)
        with traced(self._tracer, name, {"tenant": tenant, "args": args, **kwargs}):
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
                self._remove_entities(data, record["delete_entities"])
            self._apply_put(data, record)
            for kind, ids in record.get("delete_records", {}).items():  # write_records
                self._apply_delete_records(data, kind, ids)
        elif op == "delete_entities":
            self._remove_entities(data, record["ids"])
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
            self._apply_delete_turn(data, record["id"])
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
            self._apply_delete_records(data, record["kind"], record["ids"])
        elif op == "clear":
            for text in data.texts.values():
                text.drop()
            del self._tenants[tenant]
        else:  # pragma: no cover - records are made by this module only
            raise AssertionError(f"unknown change record {op!r}")

    @staticmethod
    def _remove_entities(data: _Tenant, ids: Sequence[str]) -> None:
        for entity_id in ids if data.names is not None else ():
            data.unname(entity_id)
        data.graph.remove_nodes_from(ids)
        data.forget_nodes("entity", ids)

    @staticmethod
    def _apply_put(data: _Tenant, record: dict[str, Any]) -> None:
        graph = data.graph
        nodes = graph._node  # direct dict access: this is the hot path of bulk ingest
        texts = data.texts
        entity_index = texts.get("entity")
        named = data.names is not None  # else the index is built from the models when asked
        for entity in record.get("entities", ()):
            if named:
                data.name_entity(entity)
            if entity.id in nodes:
                nodes[entity.id]["e"] = entity
            else:
                graph.add_node(entity.id, e=entity)
            if entity_index is not None:
                entity_index.set(entity.id, entity_text(entity))
        chunk_index = texts.get("chunk")
        for chunk in record.get("chunks", ()):
            data.chunks[chunk.id] = chunk
            if chunk_index is not None:
                chunk_index.set(chunk.id, _chunk_text(chunk))
        turn_index = texts.get("turn")
        rels = record.get("relationships")
        if rels:
            # Straight into networkx's adjacency (what add_edge does, at a third of the cost);
            # both ends are stored entities, checked before the record was made.
            succ, pred, factory = graph._succ, graph._pred, graph.edge_attr_dict_factory
            for rel in rels:
                source, target = rel.source_id, rel.target_id
                keydict = succ[source].get(target)
                if keydict is None:
                    keydict = succ[source][target] = pred[target][source] = {}
                edge = keydict.get(rel.type)
                if edge is None:
                    edge = keydict[rel.type] = factory()
                edge["r"] = rel
            nx._clear_cache(graph)
        for turn in record.get("turns", ()):
            old = data.turns.get(turn.id)
            if old is not None and old.parent_id is not None and old.parent_id != turn.parent_id:
                data.children[old.parent_id].remove(turn.id)
            data.turns[turn.id] = turn
            if turn_index is not None and (old is None or old.content != turn.content):
                turn_index.set(turn.id, turn.content)
            if turn.parent_id is not None and (old is None or old.parent_id != turn.parent_id):
                data.children.setdefault(turn.parent_id, []).append(turn.id)
            session = data.sessions.get(turn.session_id)
            if session is None:
                session = data.sessions[turn.session_id] = _Session()
            session.order[turn.id] = None
        for stored in record.get("records", ()):
            data.put_record(stored)
        for session_id, head in record.get("heads", {}).items():
            session = data.sessions.get(session_id)
            if session is None:
                session = data.sessions[session_id] = _Session()
            session.head = head
        for kind, node_id, entity_id in record.get("mentions", ()):  # added to what is there
            data.sorted_mentions[kind].pop(entity_id, None)
            data.mentions[kind].setdefault(node_id, set()).add(entity_id)
            data.mentioned_by[kind].setdefault(entity_id, set()).add(node_id)

    @staticmethod
    def _apply_delete_records(data: _Tenant, kind: str, ids: Sequence[str]) -> None:
        by_id = data.records.get(kind, {})
        for record_id in ids:
            gone = by_id.pop(record_id, None)
            if gone is not None and gone.owner is not None:
                data.disown(gone)
        if not by_id:
            data.records.pop(kind, None)

    @staticmethod
    def _apply_delete_turn(data: _Tenant, turn_id: str) -> None:
        turn = data.turns.pop(turn_id)
        session = data.sessions[turn.session_id]
        del session.order[turn_id]
        parent = turn.parent_id
        for child_id in data.children.pop(turn_id, []):
            data.turns[child_id] = data.turns[child_id].model_copy(update={"parent_id": parent})
            if parent is not None:
                data.children.setdefault(parent, []).append(child_id)
        if parent is not None:
            data.children[parent].remove(turn_id)
        if session.head == turn_id:
            session.head = parent
        if not session.order:
            del data.sessions[turn.session_id]

    # ------------------------------------------------------------------ entities

    @staticmethod
    def _stored_entities(data: _Tenant, batch: Sequence[Entity]) -> dict[str, Entity]:
        """The entities of a batch as they will be stored (last of an id wins)."""
        nodes = data.graph._node
        now = utcnow()
        stored: dict[str, Entity] = {}
        for entity in batch:
            old = nodes.get(entity.id)
            if old is not None:
                created = old["e"].created_at
                entity = entity.model_copy(
                    update={"created_at": created, "updated_at": max(now, created)}
                )
            stored[entity.id] = entity
        return stored

    @_operation
    def upsert_entities(self, tenant: str, entities: Sequence[Entity]) -> list[Entity]:
        """Insert or replace entities by id, in one batch; return them as stored."""
        batch = _check_models(entities, Entity, "entities")
        stored = self._stored_entities(self._tenant(tenant), batch)
        if stored:
            self._commit({"op": "put", "tenant": tenant, "entities": list(stored.values())})
        return [stored[e.id] for e in batch]

    @_operation
    def get_entity(self, tenant: str, entity_id: str) -> Entity:
        """Return one entity; ``NotFound`` if unknown."""
        return self._entity(tenant, entity_id)

    def _entity(self, tenant: str, entity_id: str) -> Entity:
        node = self._tenant(tenant).graph._node.get(entity_id)
        if node is None:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        entity: Entity = node["e"]
        return entity

    @_operation
    def get_entities(self, tenant: str, entity_ids: Sequence[str]) -> list[Entity]:
        """Return the entities that exist among ``entity_ids``, in the order asked."""
        nodes = self._tenant(tenant).graph._node
        return [nodes[i]["e"] for i in check_ids(entity_ids, "entity_ids") if i in nodes]

    @_operation
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
        """Merge attributes into an entity, rename or retype it; bump ``updated_at``."""
        old = self._entity(tenant, entity_id)
        if isinstance(remove_attributes, str):
            remove_attributes = [remove_attributes]
        merged = {**old.attributes, **(attributes or {})}
        for key in remove_attributes:  # removal wins over a value set in the same call
            merged.pop(key, None)
        data = old.model_dump()
        data.update(
            name=old.name if name is None else name,
            type=old.type if type is None else type,
            attributes=merged,
            updated_at=max(utcnow(), old.created_at),
        )
        entity = Entity.model_validate(data)
        self._commit({"op": "put", "tenant": tenant, "entities": [entity]})
        return entity

    @_operation
    def delete_entities(self, tenant: str, entity_ids: Sequence[str]) -> int:
        """Delete entities and their relationships; return how many existed."""
        nodes = self._tenant(tenant).graph._node
        present = [i for i in dict.fromkeys(check_ids(entity_ids, "entity_ids")) if i in nodes]
        if present:
            self._commit({"op": "delete_entities", "tenant": tenant, "ids": present})
        return len(present)

    @_operation
    def find_entities(self, tenant: str, filter: EntityFilter) -> list[Entity]:
        """Entities matching every condition of ``filter``, ordered by id."""
        if not isinstance(filter, EntityFilter):
            raise InvalidInput("filter must be an EntityFilter")
        needle = filter.name_contains.casefold() if filter.name_contains else None
        wanted = filter.attributes.items()
        found = []
        data = self._tenant(tenant)
        nodes: Iterable[Any]
        if filter.name is not None:
            named = data.named().get(filter.name.casefold(), ())
            nodes = [data.graph._node[entity_id] for entity_id in named]
        else:
            nodes = _whole(data).graph._node.values()
        for node in nodes:
            entity: Entity = node["e"]
            if filter.type is not None and entity.type != filter.type:
                continue
            if needle is not None and needle not in entity.name.casefold():
                continue
            attrs = entity.attributes
            if any(k not in attrs or not _same_json(attrs[k], v) for k, v in wanted):
                continue
            found.append(entity)
        found.sort(key=lambda e: e.id)
        return found[: filter.limit] if filter.limit else found

    @_operation
    def count_entities(self, tenant: str) -> int:
        """The number of entities."""
        return int(self._tenant(tenant).graph.number_of_nodes())

    # ------------------------------------------------------------------ relationships

    @staticmethod
    def _stored_relationships(
        data: _Tenant,
        tenant: str,
        batch: Sequence[Relationship],
        added: Mapping[str, Entity] | None = None,
        gone: frozenset[str] = frozenset(),
    ) -> dict[tuple[str, str, str], Relationship]:
        """The relationships of a batch as they will be stored (last of a key wins).

        ``added``: entities the same write puts; ``gone``: entities it deletes (with their
        relationships, so a replaced one is new again).

        Raises:
            InvalidInput: An end is not an entity (nothing is written).
        """
        graph = data.graph
        added = added or {}
        missing = sorted(
            {
                end
                for r in batch
                for end in (r.source_id, r.target_id)
                if end not in added and (end not in graph._node or end in gone)
            }
        )
        if missing:
            raise InvalidInput(
                f"relationships point at entities that do not exist: {missing[:10]}"
                + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
                + "; upsert the entities first. Nothing was written.",
                missing_ids=missing,
                tenant=tenant,
            )
        stored: dict[tuple[str, str, str], Relationship] = {}
        succ = graph._succ
        for rel in batch:
            old = succ.get(rel.source_id, {}).get(rel.target_id, {}).get(rel.type)
            if old is not None and old["r"].created_at != rel.created_at:
                created = old["r"].created_at
                if rel.expired_at is not None and rel.expired_at < created:
                    created = rel.expired_at
                rel = rel.model_copy(update={"created_at": created})
            stored[rel.key] = rel
        return stored

    @_operation
    def upsert_relationships(
        self, tenant: str, relationships: Sequence[Relationship]
    ) -> list[Relationship]:
        """Insert or replace relationships keyed by (source, target, type), in one batch."""
        batch = _check_models(relationships, Relationship, "relationships")
        stored = self._stored_relationships(self._tenant(tenant), tenant, batch)
        if stored:
            self._commit({"op": "put", "tenant": tenant, "relationships": list(stored.values())})
        return [stored[r.key] for r in batch]

    def _edge(self, tenant: str, source_id: str, target_id: str, type: str) -> Relationship:
        check_safe_name(type, "relationship type")
        edge = self._tenant(tenant).graph._succ.get(source_id, {}).get(target_id, {}).get(type)
        if edge is None:
            raise NotFound(
                f"no relationship ({source_id!r})-[{type}]->({target_id!r}) in tenant {tenant!r}",
                source_id=source_id,
                target_id=target_id,
                type=type,
                tenant=tenant,
            )
        rel: Relationship = edge["r"]
        return rel

    @_operation
    def get_relationships(
        self, tenant: str, entity_id: str, filter: RelationshipFilter
    ) -> list[Relationship]:
        """An entity's relationships by direction, type and validity, ordered by key."""
        if not isinstance(filter, RelationshipFilter):
            raise InvalidInput("filter must be a RelationshipFilter")
        self._entity(tenant, entity_id)
        graph = self._tenant(tenant).graph
        types = filter.types
        now = utcnow()
        timed = filter.as_of is not None or filter.recorded_as_of is not None
        found = []
        adjacencies = []
        if filter.direction in ("out", "both"):
            adjacencies.append(graph._succ[entity_id])
        if filter.direction in ("in", "both"):
            adjacencies.append(graph._pred[entity_id])
        seen: set[tuple[str, str, str]] = set()
        for adjacency in adjacencies:
            for keydict in adjacency.values():
                for type_, edge in keydict.items():
                    rel: Relationship = edge["r"]
                    if types is not None and type_ not in types:
                        continue
                    if not filter.include_invalid:
                        if timed:
                            if not rel.held(filter.as_of, filter.recorded_as_of):
                                continue
                        elif not _is_current(rel, now):
                            continue
                    if rel.key not in seen:  # a self-loop is both out and in
                        seen.add(rel.key)
                        found.append(rel)
        found.sort(key=lambda r: r.key)
        return found[: filter.limit] if filter.limit else found

    @_operation
    def delete_relationship(self, tenant: str, source_id: str, target_id: str, type: str) -> bool:
        """Delete one relationship; return whether it existed."""
        try:
            self._edge(tenant, source_id, target_id, type)
        except NotFound:
            return False
        self._commit(
            {"op": "delete_relationship", "tenant": tenant, "key": [source_id, target_id, type]}
        )
        return True

    @_operation
    def invalidate_relationship(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        type: str,
        *,
        at: datetime | None = None,
    ) -> Relationship:
        """End a fact at ``at`` (default now), expire it now; the edge stays readable."""
        old = self._edge(tenant, source_id, target_id, type)
        now = utcnow()
        data = old.model_dump()
        if at is not None:
            data["invalid_at"] = at
        elif old.invalid_at is None:
            data["invalid_at"] = max(now, old.valid_at) if old.valid_at else now
        if old.expired_at is None:
            data["expired_at"] = max(now, old.created_at)
        try:
            rel = Relationship.model_validate(data)
        except InvalidInput as exc:
            raise InvalidInput(f"cannot invalidate at {at}: {exc.message}") from exc
        self._commit({"op": "put", "tenant": tenant, "relationships": [rel]})
        return rel

    @_operation
    def count_relationships(self, tenant: str) -> int:
        """The number of relationships, invalidated ones included."""
        return int(self._tenant(tenant).graph.number_of_edges())

    def _current_facts(
        self, data: _Tenant, name: str, now: datetime
    ) -> tuple[list[Any] | None, Iterator[tuple[str, str, str]], list[datetime | None]]:
        """A cached summary, or the current facts ``(source, type, target)`` to make it from.

        ``until`` (a one-item list) is set, as the facts are read, to the next instant a
        fact becomes or stops being current, for the summary's cache.
        """
        cached = data.summaries.get(name)
        if cached is not None and (cached[0] is None or now < cached[0]):
            return cached[1], iter(()), [None]
        until: list[datetime | None] = [None]

        def facts() -> Iterator[tuple[str, str, str]]:
            for source, targets in data.graph._succ.items():
                for target, keydict in targets.items():
                    for type_, edge in keydict.items():
                        rel = edge["r"]
                        for bound in (rel.valid_at, rel.invalid_at, rel.expired_at):
                            later = bound is not None and bound > now
                            if later and (until[0] is None or bound < until[0]):
                                until[0] = bound
                        if _is_current(rel, now):
                            yield source, type_, target

        return None, facts(), until

    def _keep(
        self, data: _Tenant, name: str, until: list[datetime | None], value: list[Any]
    ) -> list[Any]:
        if data is not _EMPTY:
            data.summaries[name] = (until[0], value)
        return list(value)

    @_operation
    def relationship_patterns(self, tenant: str) -> list[RelationshipPattern]:
        """Each (source type, type, target type) of the current facts, with its count.

        Kept until the next write of entities or facts (or until the next instant a fact
        with validity bounds becomes or stops being current), so asking again is free.
        """
        data = _whole(self._tenant(tenant))
        cached, facts, until = self._current_facts(data, "patterns", utcnow())
        if cached is not None:
            return list(cached)
        nodes = data.graph._node
        counts: dict[tuple[str, str, str], int] = {}
        for source, type_, target in facts:
            key = (type_, nodes[source]["e"].type, nodes[target]["e"].type)
            counts[key] = counts.get(key, 0) + 1
        patterns = [
            RelationshipPattern(source_type, type_, target_type, count)
            for (type_, source_type, target_type), count in sorted(counts.items())
        ]
        return self._keep(data, "patterns", until, patterns)

    @_operation
    def relationship_cooccurrence(self, tenant: str) -> list[RoleCooccurrence]:
        """For every two roles some entity has both of, how many entities have both.

        Kept as :meth:`relationship_patterns` is.
        """
        data = _whole(self._tenant(tenant))
        cached, facts, until = self._current_facts(data, "cooccurrence", utcnow())
        if cached is not None:
            return list(cached)
        roles: dict[str, set[tuple[str, str]]] = {}
        for source, type_, target in facts:
            roles.setdefault(source, set()).add((type_, "out"))
            roles.setdefault(target, set()).add((type_, "in"))
        counts: dict[tuple[str, str, str, str], int] = {}
        for held in roles.values():
            ordered = sorted(held)
            for i, first in enumerate(ordered):
                for second in ordered[i:]:
                    key = (*first, *second)
                    counts[key] = counts.get(key, 0) + 1
        pairs = [RoleCooccurrence(*key, count) for key, count in sorted(counts.items())]
        return self._keep(data, "cooccurrence", until, pairs)

    # ------------------------------------------------------------------ traversal

    def _steps(
        self,
        graph: nx.MultiDiGraph,
        direction: str,
        types: frozenset[str] | None,
        now: datetime,
    ) -> Callable[[str], Iterator[str]]:
        """A function giving the nodes one current, type-allowed step away from a node."""
        adjacencies = []
        if direction in ("out", "both"):
            adjacencies.append(graph._succ)
        if direction in ("in", "both"):
            adjacencies.append(graph._pred)

        def step(node: str) -> Iterator[str]:
            for adjacency in adjacencies:
                for other, keydict in adjacency[node].items():
                    for type_, edge in keydict.items():
                        if (types is None or type_ in types) and _is_current(edge["r"], now):
                            yield other
                            break

        return step

    @_operation
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
        """Breadth-first neighbours up to ``depth`` hops, start excluded, by hop then id."""
        check_depth(depth)
        check_limit(max_nodes, "max_nodes")
        if direction not in _DIRECTIONS:
            raise InvalidInput(f"direction must be one of {_DIRECTIONS}, got {direction!r}")
        types = _check_types(rel_types, "relationship type")
        kinds = _check_types(node_types, "entity type")
        self._entity(tenant, entity_id)
        graph = self._tenant(tenant).graph
        nodes = graph._node
        step = self._steps(graph, direction, types, utcnow())
        seen = {entity_id}
        frontier = [entity_id]
        found: list[Entity] = []
        for _hop in range(depth):
            reached: list[str] = []
            for node in frontier:
                for other in step(node):
                    if other not in seen:
                        seen.add(other)
                        reached.append(other)
            reached.sort()
            for node in reached:
                entity: Entity = nodes[node]["e"]
                if kinds is None or entity.type in kinds:
                    found.append(entity)
                    if max_nodes is not None and len(found) >= max_nodes:
                        return found
            if not reached:
                break
            frontier = reached
        return found

    @_operation
    def find_path(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        *,
        max_depth: int = 6,
        rel_types: Sequence[str] | None = None,
    ) -> list[Entity]:
        """Shortest directed path over current facts, both ends included; [] when none."""
        check_positive(max_depth, "max_depth")
        types = _check_types(rel_types, "relationship type")
        self._entity(tenant, source_id)
        self._entity(tenant, target_id)
        graph = self._tenant(tenant).graph
        nodes = graph._node
        if source_id == target_id:
            return [nodes[source_id]["e"]]
        step = self._steps(graph, "out", types, utcnow())
        parents: dict[str, str] = {source_id: source_id}
        frontier = [source_id]
        for _hop in range(max_depth):
            reached: list[str] = []
            for node in frontier:
                for other in sorted(step(node)):
                    if other in parents:
                        continue
                    parents[other] = node
                    if other == target_id:
                        path = [other]
                        while path[-1] != source_id:
                            path.append(parents[path[-1]])
                        return [nodes[n]["e"] for n in reversed(path)]
                    reached.append(other)
            if not reached:
                break
            frontier = reached
        return []

    @_operation
    def visible_subgraph(self, tenant: str, entity_id: str, *, depth: int = 1) -> Subgraph:
        """The entity, everything within ``depth`` hops, and the current facts among them."""
        check_depth(depth)
        center = self._entity(tenant, entity_id)
        graph = self._tenant(tenant).graph
        nodes = graph._node
        now = utcnow()
        step = self._steps(graph, "both", None, now)
        members = {entity_id}
        frontier = [entity_id]
        for _hop in range(depth):
            reached = {o for n in frontier for o in step(n) if o not in members}
            if not reached:
                break
            members.update(reached)
            frontier = list(reached)
        rels = [
            edge["r"]
            for source in members
            for target, keydict in graph._succ[source].items()
            if target in members
            for edge in keydict.values()
            if _is_current(edge["r"], now)
        ]
        rels.sort(key=lambda r: r.key)
        others = sorted(members - {entity_id})
        return construct_trusted(
            Subgraph,
            {"entities": (center, *(nodes[n]["e"] for n in others)), "relationships": tuple(rels)},
        )

    @_operation
    def identity_snapshot(
        self,
        tenant: str,
        entity_id: str,
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> NPCIdentity:
        """The entity, its relationships (both directions) and their other ends.

        Current facts, or those :meth:`Relationship.held` at ``as_of`` / ``recorded_as_of``.
        """
        data = self._tenant(tenant)
        graph = data.graph
        nodes = graph._node
        node = nodes.get(entity_id)
        if node is None:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        if data.near is not None:
            data.near(entity_id)
        now = utcnow()
        timed = as_of is not None or recorded_as_of is not None
        if timed:
            as_of = as_utc(as_of, "as_of")
            recorded_as_of = as_utc(recorded_as_of, "recorded_as_of")
        rels: list[Relationship] = []
        related: set[str] = set()
        for adjacency in (graph._succ[entity_id], graph._pred[entity_id]):
            for other, keydict in adjacency.items():
                for edge in keydict.values():
                    rel: Relationship = edge["r"]
                    if timed:
                        if rel.held(as_of, recorded_as_of):
                            rels.append(rel)
                            related.add(other)
                    # Inlined _is_current: this loop is the hot path of game engines.
                    elif (
                        rel.expired_at is None and rel.invalid_at is None and rel.valid_at is None
                    ) or rel.is_current(now):
                        rels.append(rel)
                        related.add(other)
        if entity_id in related:  # a self-loop is seen both as out- and as in-edge
            related.discard(entity_id)
            rels = list({r.key: r for r in rels}.values())
        rels.sort(key=_REL_KEY)
        return construct_trusted(
            NPCIdentity,
            {
                "entity": node["e"],
                "relationships": tuple(rels),
                "related_entities": tuple([nodes[o]["e"] for o in sorted(related)]),
            },
        )

    # ------------------------------------------------------------------ conversations

    def _turn(self, tenant: str, turn_id: str) -> Turn:
        turn = self._tenant(tenant).turns.get(turn_id)
        if turn is None:
            raise NotFound(
                f"no turn {turn_id!r} in tenant {tenant!r}", turn_id=turn_id, tenant=tenant
            )
        return turn

    @_operation
    def append_turn(self, tenant: str, turn: Turn) -> Turn:
        """Append after the session's head; the turn becomes the head."""
        if not isinstance(turn, Turn):
            raise InvalidInput(f"append_turn takes a Turn, not a {type(turn).__name__}")
        data = self._tenant(tenant)
        if turn.id in data.turns:
            raise InvalidInput(f"turn id {turn.id!r} is already stored", turn_id=turn.id)
        session = data.sessions.get(turn.session_id)
        head = data.turns[session.head] if session and session.head else None
        update: dict[str, Any] = {"parent_id": head.id if head else None}
        if head is not None and turn.created_at <= head.created_at:
            # Keep time strictly increasing along a branch (same-microsecond appends).
            if head.created_at == _LAST_TIME:
                raise InvalidInput(
                    f"the head of session {turn.session_id!r} was created at the last time "
                    f"there is ({_LAST_TIME.isoformat()}); no turn can follow it on its branch",
                    turn_id=head.id,
                )
            update["created_at"] = head.created_at + _ONE_MICROSECOND
        stored = turn.model_copy(update=update)
        self._commit(
            {
                "op": "put",
                "tenant": tenant,
                "turns": [stored],
                "heads": {turn.session_id: stored.id},
            }
        )
        return stored

    @_operation
    def get_turn(self, tenant: str, turn_id: str) -> Turn:
        """Return a turn by id; ``NotFound`` if unknown."""
        return self._turn(tenant, turn_id)

    @_operation
    def get_turns(self, tenant: str, turn_ids: Sequence[str]) -> list[Turn]:
        """Return the turns that exist among ``turn_ids``, in the order asked."""
        turns = self._tenant(tenant).turns
        return [turns[i] for i in check_ids(turn_ids, "turn_ids") if i in turns]

    @_operation
    def head(self, tenant: str, session_id: str) -> Turn | None:
        """The head of the session's active branch, or None."""
        data = self._tenant(tenant)
        session = data.sessions.get(session_id)
        return data.turns[session.head] if session and session.head else None

    @_operation
    def turn_window(self, tenant: str, turn_ids: Sequence[str], *, depth: int = 1) -> list[Turn]:
        """The turns asked and those within ``depth`` PARENT edges before or after them."""
        ids = check_ids(turn_ids, "turn_ids")
        depth = check_window_depth(depth)
        data = self._tenant(tenant)
        turns, children = data.turns, data.children
        found: dict[str, Turn] = {}
        for turn_id in ids:
            turn = turns.get(turn_id)
            if turn is None:
                continue
            found[turn_id] = turn
            parent = turn.parent_id
            for _step in range(depth):  # back along PARENT
                if parent is None:
                    break
                above = turns[parent]
                found[parent] = above
                parent = above.parent_id
            frontier = [turn_id]
            for _step in range(depth):  # forward, every branch
                frontier = [child for node in frontier for child in children.get(node, ())]
                if not frontier:
                    break
                for child in frontier:
                    found[child] = turns[child]
        return sorted(found.values(), key=lambda t: (t.created_at, t.id))

    @_operation
    def fork(self, tenant: str, session_id: str, turn_id: str) -> Turn:
        """Move the session's head to an earlier turn of the same session."""
        turn = self._turn(tenant, turn_id)
        if turn.session_id != session_id:
            raise InvalidInput(
                f"turn {turn_id!r} belongs to conversation {turn.session_id!r}, not "
                f"{session_id!r}; fork only within one conversation",
                turn_id=turn_id,
                session_id=session_id,
            )
        self._commit({"op": "put", "tenant": tenant, "heads": {session_id: turn_id}})
        return turn

    @_operation
    def branch(self, tenant: str, session_id: str, *, limit: int | None = None) -> list[Turn]:
        """The active branch, oldest first; only the newest ``limit`` when given."""
        check_limit(limit)
        data = self._tenant(tenant)
        session = data.sessions.get(session_id)
        out: list[Turn] = []
        turn_id = session.head if session else None
        turns = data.turns
        while turn_id is not None and (limit is None or len(out) < limit):
            turn = turns[turn_id]
            out.append(turn)
            turn_id = turn.parent_id
        out.reverse()
        return out

    @_operation
    def list_turns(self, tenant: str, session_id: str) -> list[Turn]:
        """Every turn of the session, all branches, in creation order."""
        data = self._tenant(tenant)
        session = data.sessions.get(session_id)
        turns = [data.turns[t] for t in session.order] if session else []
        turns.sort(key=lambda t: t.created_at)
        return turns

    @_operation
    def count_turns(self, tenant: str, session_id: str | None = None) -> int:
        """Turns in one session (all branches), or in all sessions."""
        data = self._tenant(tenant)
        if session_id is None:
            return len(data.turns)
        session = data.sessions.get(session_id)
        return len(session.order) if session else 0

    @_operation
    def delete_turn(self, tenant: str, turn_id: str) -> bool:
        """Delete a turn; children re-link to its parent; a deleted head moves to its parent."""
        if turn_id not in self._tenant(tenant).turns:
            return False
        self._commit({"op": "delete_turn", "tenant": tenant, "id": turn_id})
        return True

    @_operation
    def delete_conversation(self, tenant: str, session_id: str) -> int:
        """Delete every turn of a session; return how many there were."""
        session = self._tenant(tenant).sessions.get(session_id)
        if session is None:
            return 0
        count = len(session.order)
        self._commit({"op": "delete_conversation", "tenant": tenant, "session_id": session_id})
        return count

    @_operation
    def search_turns(self, tenant: str, filter: TurnFilter) -> list[Turn]:
        """Turns matching every condition, newest first."""
        if not isinstance(filter, TurnFilter):
            raise InvalidInput("filter must be a TurnFilter")
        words = filter.text.casefold().split() if filter.text else []
        found = []
        for turn in self._tenant(tenant).turns.values():
            if filter.session_id is not None and turn.session_id != filter.session_id:
                continue
            if filter.speaker is not None and turn.speaker != filter.speaker:
                continue
            if filter.role is not None and turn.role != filter.role:
                continue
            if filter.since is not None and turn.created_at < filter.since:
                continue
            if filter.until is not None and turn.created_at >= filter.until:
                continue
            if words:
                content = turn.content.casefold()
                if not all(w in content for w in words):
                    continue
            found.append(turn)
        found.sort(key=lambda t: (t.created_at, t.id), reverse=True)
        return found[: filter.limit] if filter.limit else found

    @_operation
    def list_sessions(self, tenant: str) -> list[SessionInfo]:
        """Every session with turns, most recently active first."""
        data = self._tenant(tenant)
        infos = []
        for session_id, session in data.sessions.items():
            if not session.order:
                continue
            times = [data.turns[t].created_at for t in session.order]
            infos.append(
                SessionInfo(
                    session_id=session_id,
                    turn_count=len(times),
                    first_at=min(times),
                    last_at=max(times),
                    head_id=session.head,
                )
            )
        infos.sort(key=lambda s: (s.last_at, s.session_id), reverse=True)
        return infos

    # ------------------------------------------------------------------ records

    @staticmethod
    def _stored_records(
        data: _Tenant, batch: list[Record], kind: str | None, what: str
    ) -> list[Record]:
        """The records of a batch as they will be stored (last of an id wins)."""
        now = utcnow()
        stored: dict[tuple[str, str], Record] = {}
        for index, item in enumerate(batch):
            if kind is not None and item.kind != kind:
                raise InvalidInput(
                    f"{what}[{index}] is of kind {item.kind!r}, not {kind!r}; "
                    "put records of one kind per call. Nothing was written.",
                    index=index,
                )
            old = data.records.get(item.kind, {}).get(item.id)
            if old is not None:
                created = old.created_at
                item = item.model_copy(
                    update={"created_at": created, "updated_at": max(now, created)}
                )
            stored[(item.kind, item.id)] = item
        return list(stored.values())

    @_operation
    def put_records(self, tenant: str, kind: str, records: Sequence[Record]) -> list[Record]:
        """Insert or replace records of one kind by id, in one atomic batch."""
        check_safe_name(kind, "record kind")
        batch = _check_models(records, Record, "records")
        stored = self._stored_records(self._tenant(tenant), batch, kind, "records")
        if stored:
            self._commit({"op": "put", "tenant": tenant, "records": stored})
        by_id = {r.id: r for r in stored}
        return [by_id[r.id] for r in batch]

    @_operation
    def write_records(
        self,
        tenant: str,
        put: Sequence[Record] = (),
        delete: Mapping[str, Sequence[str]] | None = None,
    ) -> list[Record]:
        """Put records of any kinds and delete records by kind and id, in one atomic write."""
        batch = _check_models(put, Record, "put")
        deletes = check_record_deletes(delete, batch)
        written = self._write_checked(tenant, ChangeSet(records=batch, delete_records=deletes))
        return list(written.records)

    @_operation
    def write_changes(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """Put and delete records, entities and relationships, in one atomic write."""
        return self._write_checked(tenant, check_changes(changes))

    def _write_checked(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """One change record for a checked change set: all of it is durable, or none."""
        records = _check_models(changes.records, Record, "records")
        entities = _check_models(changes.entities, Entity, "entities")
        rels = _check_models(changes.relationships, Relationship, "relationships")
        data = self._tenant(tenant)
        graph = data.graph
        gone = frozenset(i for i in changes.delete_entities if i in graph._node)
        dropped = [
            key
            for key in changes.delete_relationships
            if key[0] not in gone
            and key[1] not in gone
            and key[2] in graph._succ.get(key[0], {}).get(key[1], {})
        ]
        added = self._stored_entities(data, entities)
        stored_rels = self._stored_relationships(data, tenant, rels, added, gone)
        stored = self._stored_records(data, records, None, "records")
        present = {
            kind: [i for i in ids if i in data.records.get(kind, {})]
            for kind, ids in changes.delete_records.items()
        }
        present = {kind: ids for kind, ids in present.items() if ids}
        change: dict[str, Any] = {"op": "put", "tenant": tenant}
        for name, value in (
            ("entities", list(added.values())),
            ("relationships", list(stored_rels.values())),
            ("records", stored),
            ("delete_records", present),
            ("delete_entities", sorted(gone)),
            ("delete_relationships", [list(key) for key in dropped]),
        ):
            if value:
                change[name] = value
        if len(change) > 2:
            self._commit(change)
        return stored_changes(changes, stored, added.values(), stored_rels.values())

    @_operation
    def get_record(self, tenant: str, kind: str, record_id: str) -> Record:
        """Return one record; ``NotFound`` if unknown."""
        check_safe_name(kind, "record kind")
        found = self._tenant(tenant).records.get(kind, {}).get(record_id)
        if found is None:
            raise NotFound(
                f"no record {record_id!r} of kind {kind!r} in tenant {tenant!r}",
                record_id=record_id,
                kind=kind,
                tenant=tenant,
            )
        return found

    @_operation
    def get_records(self, tenant: str, kind: str, record_ids: Sequence[str]) -> list[Record]:
        """Return the records of ``kind`` that exist among ``record_ids``, in the order asked."""
        check_safe_name(kind, "record kind")
        by_id = self._tenant(tenant).records.get(kind, {})
        return [by_id[i] for i in check_ids(record_ids, "record_ids") if i in by_id]

    @_operation
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
        """Records of a kind by owner, data equality and creation time, newest first."""
        check_safe_name(kind, "record kind")
        check_limit(limit)
        wanted = list(check_where(where).items())
        low = as_utc(since, "since")
        high = as_utc(until, "until")
        found = []
        data = self._tenant(tenant)
        candidates: Any
        if owner is None:
            candidates = data.records.get(kind, {}).values()
        else:
            by_id = data.records.get(kind, {})
            ids = data.owned.get(kind, {}).get(check_owner(owner), {})
            candidates = [by_id[i] for i in ids]
        for item in candidates:
            if low is not None and item.created_at < low:
                continue
            if high is not None and item.created_at >= high:
                continue
            values = item.data
            if any(k not in values or not _same_json(values[k], v) for k, v in wanted):
                continue
            found.append(item)
        found.sort(key=lambda r: (r.created_at, r.id), reverse=newest_first)
        return found[:limit] if limit else found

    @_operation
    def delete_records(self, tenant: str, kind: str, ids: Sequence[str]) -> int:
        """Delete records of a kind by id; return how many existed. Missing is fine."""
        check_safe_name(kind, "record kind")
        by_id = self._tenant(tenant).records.get(kind, {})
        present = [i for i in dict.fromkeys(check_ids(ids, "ids")) if i in by_id]
        if present:
            self._commit({"op": "delete_records", "tenant": tenant, "kind": kind, "ids": present})
        return len(present)

    @_operation
    def count_records(self, tenant: str, kind: str) -> int:
        """The number of records of a kind."""
        check_safe_name(kind, "record kind")
        return len(self._tenant(tenant).records.get(kind, {}))

    # ------------------------------------------------------------------ chunks and mentions

    @_operation
    def upsert_chunks(self, tenant: str, chunks: Sequence[Chunk]) -> list[Chunk]:
        """Insert or replace chunks by id, in one batch; return them as stored."""
        batch = _check_models(chunks, Chunk, "chunks")
        known = self._tenant(tenant).chunks
        stored: dict[str, Chunk] = {}
        for chunk in batch:
            old = known.get(chunk.id)
            if old is not None and old.created_at != chunk.created_at:
                chunk = chunk.model_copy(update={"created_at": old.created_at})
            stored[chunk.id] = chunk
        if stored:
            self._commit({"op": "put", "tenant": tenant, "chunks": list(stored.values())})
        return [stored[c.id] for c in batch]

    @_operation
    def get_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Return the chunks that exist among ``chunk_ids``, in the order asked."""
        known = self._tenant(tenant).chunks
        return [known[i] for i in check_ids(chunk_ids, "chunk_ids") if i in known]

    @_operation
    def delete_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> int:
        """Delete chunks with their mentions and embeddings; return how many existed."""
        known = self._tenant(tenant).chunks
        present = [i for i in dict.fromkeys(check_ids(chunk_ids, "chunk_ids")) if i in known]
        if present:
            self._commit({"op": "delete_chunks", "tenant": tenant, "ids": present})
        return len(present)

    @_operation
    def count_chunks(self, tenant: str) -> int:
        """The number of chunks."""
        return len(self._tenant(tenant).chunks)

    def _node_ids(self, data: _Tenant, kind: str) -> Mapping[str, Any]:
        if kind == "entity":
            nodes: Mapping[str, Any] = data.graph._node
            return nodes
        return data.turns if kind == "turn" else data.chunks

    @_operation
    def link_mentions(
        self, tenant: str, kind: NodeKind, mentions: Mapping[str, Sequence[str]]
    ) -> int:
        """Set the entities each turn or chunk mentions (replacing earlier mentions)."""
        _check_kind(kind, _MENTION_KINDS)
        if not isinstance(mentions, Mapping):
            raise InvalidInput("mentions must map node ids to lists of entity ids")
        data = self._tenant(tenant)
        nodes = self._node_ids(data, kind)
        entities = data.graph._node
        links: dict[str, list[str]] = {}
        for node_id, entity_ids in mentions.items():
            links[node_id] = list(dict.fromkeys(check_ids(entity_ids, f"mentions[{node_id!r}]")))
        missing_nodes = sorted(n for n in links if n not in nodes)
        missing = sorted({e for ids in links.values() for e in ids if e not in entities})
        if missing_nodes or missing:
            raise InvalidInput(
                f"mentions name unknown {kind}s {missing_nodes[:10]} and unknown entities "
                f"{missing[:10]}; store them first. Nothing was written.",
                missing_node_ids=missing_nodes,
                missing_ids=missing,
            )
        if links:
            self._commit({"op": "mentions", "tenant": tenant, "kind": kind, "links": links})
        return sum(len(ids) for ids in links.values())

    @_operation
    def get_mentions(
        self, tenant: str, kind: NodeKind, node_ids: Sequence[str]
    ) -> dict[str, list[str]]:
        """The entity ids each turn or chunk mentions, sorted; nodes without any are absent."""
        _check_kind(kind, _MENTION_KINDS)
        known = self._tenant(tenant).mentions[kind]
        return {n: sorted(known[n]) for n in check_ids(node_ids, "node_ids") if n in known}

    @_operation
    def find_mentioning(
        self,
        tenant: str,
        kind: NodeKind,
        entity_ids: Sequence[str],
        *,
        limit: int | None = None,
    ) -> dict[str, list[str]]:
        """For each entity, the ids of the turns or chunks mentioning it (sorted, capped)."""
        _check_kind(kind, _MENTION_KINDS)
        check_limit(limit)
        data = self._tenant(tenant)
        known, ordered = data.mentioned_by[kind], data.sorted_mentions[kind]
        out: dict[str, list[str]] = {}
        for entity_id in check_ids(entity_ids, "entity_ids"):
            nodes = ordered.get(entity_id)
            if nodes is None:
                found = known.get(entity_id)
                if not found:
                    continue
                nodes = ordered[entity_id] = sorted(found)
            out[entity_id] = nodes[:limit] if limit else nodes[:]
        return out

    # ------------------------------------------------------------------ embeddings and search

    @_operation
    def put_embeddings(self, tenant: str, kind: NodeKind, ids: Sequence[str], vectors: Any) -> None:
        """Store one embedding per node in the kind's index (replacing earlier ones)."""
        _check_kind(kind)
        node_ids = check_ids(ids, "ids")
        data = self._tenant(tenant)
        index = data.vectors.get(kind)
        dimension = index.dimension if index is not None and len(index) else None
        matrix = _indexes().as_matrix(vectors, dimension, "embeddings")
        if matrix.shape[0] != len(node_ids):
            raise InvalidInput(
                f"{len(node_ids)} ids but {matrix.shape[0]} vectors; give one vector per id"
            )
        nodes = self._node_ids(data, kind)
        missing = sorted({n for n in node_ids if n not in nodes})
        if missing:
            raise InvalidInput(
                f"embeddings for unknown {kind}s: {missing[:10]}; store them first. "
                "Nothing was written.",
                missing_ids=missing,
            )
        if len(set(node_ids)) != len(node_ids):  # the last of a repeated id wins
            last = {node: row for row, node in enumerate(node_ids)}
            node_ids, matrix = list(last), matrix[list(last.values())]
        if not node_ids:
            return
        self._commit(
            {"op": "embed", "tenant": tenant, "kind": kind, "ids": node_ids, "vectors": matrix}
        )

    @_operation
    def embedding_dimension(self, tenant: str, kind: NodeKind) -> int | None:
        """The dimension of the kind's vector index, or None while it holds no vector."""
        _check_kind(kind)
        index = self._tenant(tenant).vectors.get(kind)
        return index.dimension if index is not None and len(index) else None

    @_operation
    def count_embeddings(self, tenant: str, kind: NodeKind) -> int:
        """How many nodes of the kind have an embedding."""
        _check_kind(kind)
        index = self._tenant(tenant).vectors.get(kind)
        return len(index) if index is not None else 0

    def _scope(self, data: _Tenant, kind: str, scope_ids: Sequence[str] | None) -> Any:
        """The candidate node ids of a graph scope (None: every node)."""
        if scope_ids is None:
            return None
        scope = check_ids(scope_ids, "scope_ids")
        if kind == "entity":
            return dict.fromkeys(scope)
        by_entity = data.mentioned_by[kind]
        out: dict[str, None] = {}
        for entity_id in scope:
            out.update(dict.fromkeys(by_entity.get(entity_id, ())))
        return out

    @_operation
    def vector_search(
        self,
        tenant: str,
        kind: NodeKind,
        vector: Any,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nearest nodes of the kind by cosine similarity (exact), best first."""
        _check_kind(kind)
        check_positive(k, "k")
        data = self._tenant(tenant)
        index, query = _query_vector(data, kind, vector)
        if index is None:
            return []
        found = index.search(query, k, self._scope(data, kind, scope_ids))
        return [SearchHit(node, score) for node, score in found]

    @_operation
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
        """Vector and full-text search of each kind, checked up front, under one lock.

        Running the matrix products on a second thread beside the full-text queries was
        measured and dropped: OpenBLAS already spreads a product over both cores, and held
        to one core it made ``graphmem bench --retrieval`` slower (docs/retrieval.md).
        """
        wanted = check_search_kinds(kinds, vector, text)
        check_positive(k, "k")
        if text is not None and not isinstance(text, str):
            raise InvalidInput(f"query must be a string, got {type(text).__name__}")
        data = self._tenant(tenant)
        scopes = {kind: self._scope(data, kind, scope_ids) for kind in wanted}
        jobs = (
            [(kind, *_query_vector(data, kind, vector)) for kind in wanted]
            if vector is not None
            else []
        )
        by_vector = {
            kind: [SearchHit(n, score) for n, score in index.search(q, k, scopes[kind])]
            for kind, index, q in jobs
            if index is not None
        }
        by_text: dict[NodeKind, list[SearchHit]] = {}
        if text is not None and data is not _EMPTY:
            for kind in wanted:
                found = self._text_index(data, tenant, kind).search(text, k, scopes[kind])
                by_text[kind] = [SearchHit(node, score) for node, score in found]
        return {kind: SearchPair(by_vector.get(kind, []), by_text.get(kind, [])) for kind in wanted}

    def _text_index(self, data: _Tenant, tenant: str, kind: str) -> TextIndex:
        existing = data.texts.get(kind)
        if existing is not None and not existing.wasteful():
            return existing
        # made on first use, and made again from the stored nodes when replaced or removed
        # documents outnumber the live ones in its BM25 statistics
        index: TextIndex = _indexes().TextIndex()
        if data is _EMPTY:  # nothing to index; do not keep an index on the shared empty tenant
            return index
        data.texts[kind] = index
        if kind == "entity":
            for node_id, node in _whole(data).graph._node.items():
                index.set(node_id, entity_text(node["e"]))
        elif kind == "turn":
            for turn_id, turn in data.turns.items():
                index.set(turn_id, turn.content)
        else:
            for chunk_id, chunk in data.chunks.items():
                index.set(chunk_id, _chunk_text(chunk))
        return index

    @_operation
    def fulltext_search(
        self,
        tenant: str,
        kind: NodeKind,
        query: str,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes of the kind whose text best matches the words of ``query``."""
        _check_kind(kind)
        check_positive(k, "k")
        if not isinstance(query, str):
            raise InvalidInput(f"query must be a string, got {type(query).__name__}")
        data = self._tenant(tenant)
        if data is _EMPTY:
            return []
        index = self._text_index(data, tenant, kind)
        found = index.search(query, k, self._scope(data, kind, scope_ids))
        return [SearchHit(node, score) for node, score in found]

    @_operation
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
        """The seeds and the entities within ``depth`` hops of any, with the facts among them."""
        check_depth(depth, minimum=0)
        check_limit(max_nodes, "max_nodes")
        if direction not in _DIRECTIONS:
            raise InvalidInput(f"direction must be one of {_DIRECTIONS}, got {direction!r}")
        types = _check_types(rel_types, "relationship type")
        seeds = list(dict.fromkeys(check_ids(seed_ids, "seed_ids")))
        allowed = set(check_ids(within, "within")) if within is not None else None
        for seed in seeds:
            self._entity(tenant, seed)
        graph = self._tenant(tenant).graph
        nodes = graph._node
        now = utcnow()
        step = self._steps(graph, direction, types, now)
        seen = dict.fromkeys(sorted(seeds))
        frontier = list(seen)
        for _hop in range(depth):
            if max_nodes is not None and len(seen) >= max_nodes:
                break
            reached = sorted(
                {
                    other
                    for node in frontier
                    for other in step(node)
                    if other not in seen and (allowed is None or other in allowed)
                }
            )
            if max_nodes is not None:
                reached = reached[: max(0, max_nodes - len(seen))]
            seen.update(dict.fromkeys(reached))
            if not reached:
                break
            frontier = reached
        rels = [
            edge["r"]
            for source in seen
            for target, keydict in graph._succ[source].items()
            if target in seen
            for type_, edge in keydict.items()
            if (types is None or type_ in types) and _is_current(edge["r"], now)
        ]
        rels.sort(key=_REL_KEY)
        return construct_trusted(
            Subgraph,
            {"entities": tuple(nodes[n]["e"] for n in seen), "relationships": tuple(rels)},
        )

    # ------------------------------------------------------------------ whole tenant

    @_operation
    def dump(self, tenant: str) -> TenantDump:
        """Everything the tenant holds."""
        return self._dump(self._tenant(tenant))

    def _dump(self, data: _Tenant) -> TenantDump:
        graph = _whole(data).graph
        entities = sorted((n["e"] for n in graph._node.values()), key=lambda e: e.id)
        rels = sorted((d["r"] for _s, _t, d in graph.edges(data=True)), key=lambda r: r.key)
        turns: list[Turn] = []
        heads: dict[str, str | None] = {}
        for session_id in sorted(data.sessions):
            session = data.sessions[session_id]
            turns.extend(sorted((data.turns[t] for t in session.order), key=lambda t: t.created_at))
            heads[session_id] = session.head
        records = sorted(
            (r for by_id in data.records.values() for r in by_id.values()),
            key=lambda r: (r.kind, r.created_at, r.id),
        )
        chunks = sorted(data.chunks.values(), key=lambda c: c.id)
        mentions = [
            (kind, node_id, entity_id)
            for kind in _MENTION_KINDS
            for node_id, entity_ids in sorted(data.mentions[kind].items())
            for entity_id in sorted(entity_ids)
        ]
        return TenantDump(
            entities=entities,
            relationships=rels,
            turns=turns,
            heads=heads,
            records=records,
            chunks=chunks,
            mentions=mentions,
        )

    @_operation
    def load(self, tenant: str, dump: TenantDump) -> None:
        """Write a dump at once: all of it or nothing."""
        if not isinstance(dump, TenantDump):
            raise InvalidInput("load takes a TenantDump")
        data = self._tenant(tenant)
        entities = {e.id: e for e in _check_models(dump.entities, Entity, "entities")}
        rels = _check_models(dump.relationships, Relationship, "relationships")
        turns = _check_models(dump.turns, Turn, "turns")
        records = self._stored_records(
            data, _check_models(dump.records, Record, "records"), None, "records"
        )
        missing = sorted(
            {
                end
                for r in rels
                for end in (r.source_id, r.target_id)
                if end not in entities and end not in data.graph._node
            }
        )
        if missing:
            raise InvalidInput(
                f"relationships point at entities that do not exist: {missing[:10]}",
                missing_ids=missing,
            )
        heads = _check_turn_tree(data, turns, dump.heads)
        chunks = {c.id: c for c in _check_models(dump.chunks, Chunk, "chunks")}
        mentions = _check_dump_mentions(data, dump, entities, chunks, turns)
        record: dict[str, Any] = {"op": "put", "tenant": tenant}
        if entities:
            record["entities"] = list(entities.values())
        if rels:
            record["relationships"] = list({r.key: r for r in rels}.values())
        if turns:
            record["turns"] = turns
        if heads:
            record["heads"] = heads
        if records:
            record["records"] = records
        if chunks:
            record["chunks"] = list(chunks.values())
        if mentions:
            record["mentions"] = mentions
        if len(record) > 2:
            self._commit(record)

    @_operation
    def clear(self, tenant: str) -> None:
        """Delete everything the tenant holds."""
        if tenant in self._tenants:
            self._commit({"op": "clear", "tenant": tenant})

    # ------------------------------------------------------------------ retrieval reads

    def _unwrapped(self, name: str) -> Callable[..., Any]:
        """The operation ``name`` without its lock and tracer (for a caller that holds them)."""
        method: Callable[..., Any] = getattr(type(self), name).__wrapped__
        return partial(method, self)

    @_operation
    def entity_version(self, tenant: str) -> str:
        """How many entity writes this store has applied to the tenant (a version)."""
        return f"{self._loads}.{self._entity_writes.get(tenant, 0)}"

    @_operation
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
        """``hybrid_search``, the turn hits' window, the entity version: one operation."""
        return composed.search_context(
            self._unwrapped,
            tenant,
            kinds,
            vector=vector,
            text=text,
            k=k,
            scope_ids=scope_ids,
            window_depth=window_depth,
        )

    @_operation
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
        """Nodes, mentions, a walk from seeds and what mentions it: one operation."""
        return composed.gather(
            self._unwrapped,
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
            is_entity=self._tenant(tenant).graph._node.__contains__,
        )

    def list_tenants(self) -> list[str]:
        """Every tenant that holds something (an entity, turn, chunk or record), sorted."""
        with self._lock:
            if self._closed:
                raise StoreClosed(f"the store {self._url} is closed; open it again", url=self._url)
            # A reader first syncs what the writer committed, as before any operation.
            following = self._follow.following() if self._follow is not None else nullcontext()
            with traced(self._tracer, "list_tenants", {}), following:
                return sorted(
                    name
                    for name, data in self._tenants.items()
                    if data.graph.number_of_nodes()
                    or data.turns
                    or data.chunks
                    or any(data.records.values())
                )


def _check_dump_mentions(
    data: _Tenant,
    dump: TenantDump,
    entities: Mapping[str, Entity],
    chunks: Mapping[str, Chunk],
    turns: Sequence[Turn],
) -> list[list[str]]:
    """Check the mentions of a dump name known nodes; return them as journal rows."""
    turn_ids = {t.id for t in turns}
    rows: list[list[str]] = []
    for index, mention in enumerate(dump.mentions):
        if not isinstance(mention, tuple | list) or len(mention) != 3:
            raise InvalidInput(f"mentions[{index}] must be (kind, node_id, entity_id)")
        kind, node_id, entity_id = (str(part) for part in mention)
        _check_kind(kind, _MENTION_KINDS)
        known = (
            node_id in chunks or node_id in data.chunks
            if kind == "chunk"
            else node_id in turn_ids or node_id in data.turns
        )
        if not known:
            raise InvalidInput(f"mentions[{index}] names an unknown {kind} {node_id!r}")
        if entity_id not in entities and entity_id not in data.graph._node:
            raise InvalidInput(f"mentions[{index}] names an unknown entity {entity_id!r}")
        rows.append([kind, node_id, entity_id])
    return rows


def _check_turn_tree(
    data: _Tenant, turns: list[Turn], heads: Mapping[str, str | None]
) -> dict[str, str | None]:
    """Check that ``turns`` extend the stored trees soundly; return the heads to set."""
    batch: dict[str, Turn] = {}
    for turn in turns:
        if turn.id in data.turns or turn.id in batch:
            raise InvalidInput(
                f"turn id {turn.id!r} is already stored or repeated", turn_id=turn.id
            )
        batch[turn.id] = turn
    for turn in turns:
        parent_id = turn.parent_id
        if parent_id is None:
            continue
        parent = batch.get(parent_id) or data.turns.get(parent_id)
        if parent is None:
            raise InvalidInput(
                f"turn {turn.id!r} names parent {parent_id!r}, which is neither stored nor in "
                "the batch",
                turn_id=turn.id,
            )
        if parent.session_id != turn.session_id:
            raise InvalidInput(
                f"turn {turn.id!r} of session {turn.session_id!r} names a parent in session "
                f"{parent.session_id!r}",
                turn_id=turn.id,
            )
    # A cycle can only form inside the batch: walk each chain with a bound.
    for turn in turns:
        steps, current = 0, turn.parent_id
        while current is not None and current in batch:
            steps += 1
            if steps > len(batch):
                raise InvalidInput(f"the parents of turn {turn.id!r} form a cycle")
            current = batch[current].parent_id
    last: dict[str, str] = {}
    for turn in turns:
        last[turn.session_id] = turn.id
    out: dict[str, str | None] = {}
    for session_id in dict.fromkeys([*last, *heads]):
        head = heads.get(session_id)
        if head is None:
            head = last.get(session_id)
            if head is None:
                continue
        found = batch.get(head) or data.turns.get(head)
        if found is None or found.session_id != session_id:
            raise InvalidInput(
                f"head {head!r} of session {session_id!r} is not a turn of that session",
                session_id=session_id,
            )
        out[session_id] = head
    return out


def _same_json(stored: Any, wanted: Any) -> bool:
    """JSON equality: 1 equals 1.0, but True is not 1 (bool is an int in Python)."""
    if isinstance(stored, bool) or isinstance(wanted, bool):
        return type(stored) is type(wanted) and stored == wanted
    return bool(stored == wanted)


def open_networkx(url: str = "memory://", **options: Any) -> NetworkXStore:
    """Open an embedded store: ``memory://`` or ``file:///path/world.graphmem[?fsync=false]``.

    Every ``memory://`` open is a new, empty store. A ``file://`` URL names one SQLite
    database; a writer creates it if missing and holds it exclusively while open; with
    ``read_only=True`` it is read beside the writer (a missing file is ``NotFound``).

    Options: ``tracer``, ``read_only`` (refuse writes; never create anything), ``fsync``
    (default true: each write is on disk before it returns), ``preload`` (default false:
    read every entity and relationship model at open, not when first used), ``warm``
    (default false: read the models nobody used yet in a background thread after open,
    backing off while operations run; the store then holds what ``preload`` holds, in
    memory too; see :mod:`~graphmem.backends.networkx.sqlite_warm`). ``fsync``,
    ``preload`` and ``warm`` may also be given in the URL
    (``?fsync=false&preload=true&warm=true``).
    """
    tracer = options.pop("tracer", None)
    fsync = options.pop("fsync", None)
    preload = options.pop("preload", None)
    warm = options.pop("warm", None)
    read_only = options.pop("read_only", False)
    if options:
        raise InvalidInput(f"unknown options for {url.split(':', 1)[0]}://: {sorted(options)}")
    if not isinstance(read_only, bool):
        raise InvalidInput(f"read_only must be True or False, got {read_only!r}")
    parts = urlsplit(url)
    if parts.scheme.lower() == "memory":
        return NetworkXStore(url, read_only=read_only, tracer=tracer)
    path = file_path(url)
    query = parse_qs(parts.query)
    if fsync is None:
        fsync = query.get("fsync", ["true"])[-1].lower() not in ("0", "false", "no")
    if preload is None:
        preload = query.get("preload", ["false"])[-1].lower() in ("1", "true", "yes")
    if warm is None:
        warm = query.get("warm", ["false"])[-1].lower() in ("1", "true", "yes")
    return NetworkXStore(
        url,
        path=path,
        fsync=bool(fsync),
        read_only=read_only,
        preload=bool(preload),
        warm=bool(warm),
        tracer=tracer,
    )


def file_path(url: str) -> Path:
    """The path a ``file://`` URL names (relative to the working directory without ``///``)."""
    parts = urlsplit(url)
    host = "" if parts.netloc in ("", "localhost") else parts.netloc
    raw_path = unquote(host + parts.path)
    if not raw_path:
        raise InvalidInput(f"file URL {url!r} names no file; use file:///path/world.graphmem")
    path = Path(raw_path).expanduser()
    if path.is_dir():
        raise InvalidInput(f"{path} is a directory; a file:// store is one file")
    return path
