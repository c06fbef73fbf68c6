"""A LangGraph ``BaseStore`` over graphmem: long-term memory of LangGraph agents in a graph memory.

::

    import graphmem
    from graphmem.integrations.langgraph import GraphmemStore

    with graphmem.open("file:///data/agents.graphmem", tenant="my-app") as mem:
        store = GraphmemStore(mem)
        store.put(("memories", "user-1"), "likes", {"text": "Ada likes tea"})
        store.search(("memories", "user-1"), query="what does Ada drink")

How LangGraph's items map onto graphmem (``pip install 'graphmem[langgraph]'``):

- **One store, one tenant.** A ``GraphmemStore`` is bound to one :class:`graphmem.Memory`,
  so to one tenant; every namespace lives inside it. graphmem never reads across tenants,
  and LangGraph's ``list_namespaces`` and prefix ``search`` would have to: a tenant per
  user (say) is one store per tenant, opened on the same graphmem store.
- **An item is a record** of kind :data:`RECORD_KIND`: ``data`` holds the ``namespace``
  (a list of labels), the ``key`` and the ``value`` (graphmem's JSON rules: string keys,
  finite numbers; other values are ``InvalidInput``); the record's id is a digest of the
  namespace and key, its ``created_at`` is kept when the item is replaced. One batch's
  puts and deletes are one atomic :meth:`~graphmem.core.contract.RecordStore.write_records`.
- **Search.** Without a query: the items under the prefix that pass the filter, most
  recently updated first. With a query: the item's text (the fields it indexes, the
  whole value by default) is also stored as a document whose chunks ``retrieve`` finds
  by words and vectors (the memory's embedder); the items come back in retrieval's order
  with its score, then those under the prefix that are not indexed (score None), as
  LangGraph's own in-memory store does. Indexing needs the memory's embedder (the
  ``embeddings`` extra, or ``embedder=HashingEmbedder()``): without one an indexed put is
  ``BackendUnavailable`` and writes nothing. Filters are LangGraph's: equality, nested
  maps, lists, and ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``.
- **TTL** is not supported (``supports_ttl`` is False): ``put(..., ttl=...)`` raises
  LangGraph's ``NotImplementedError``, as its other stores without TTL do.

Reads in a batch see the store as it was before the batch's writes (LangGraph's rule);
``abatch`` runs the batch in a worker thread.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        get_text_at_path,
        validate_op_namespace,
    )
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(
        "graphmem.integrations.langgraph needs LangGraph: pip install 'graphmem[langgraph]'"
    ) from exc

from graphmem.core.errors import InvalidInput, UnsupportedOperation
from graphmem.core.models import Document, Record
from graphmem.memory import Memory
from graphmem.memory import open as open_memory

__all__ = ["RECORD_KIND", "GraphmemStore"]

RECORD_KIND = "langgraph_item"
"""The record kind of LangGraph items."""

_ID_PREFIX = "langgraph-"
_WHOLE_VALUE = "$"


class GraphmemStore(BaseStore):
    """A LangGraph store whose items are records of one graphmem tenant.

    Args:
        memory: The graphmem memory (one tenant) that holds the items.
        index_fields: What of a value is indexed for ``search(query=...)`` by default:
            LangGraph JSON paths (``"text"``, ``"notes[*].body"``), ``"$"`` for the whole
            value (the default). A put's own ``index`` (a list of paths, or False for
            none) overrides it.
        owns_memory: Close ``memory`` when this store is closed.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Memory,
        *,
        index_fields: Sequence[str] | None = None,
        owns_memory: bool = False,
    ) -> None:
        if not isinstance(memory, Memory):
            raise InvalidInput(f"memory must be a graphmem.Memory, got {type(memory).__name__}")
        fields = [_WHOLE_VALUE] if index_fields is None else list(index_fields)
        if isinstance(index_fields, str) or not all(isinstance(f, str) and f for f in fields):
            raise InvalidInput("index_fields must be a list of non-empty JSON paths")
        self._memory = memory
        self._fields = fields
        self._owns = owns_memory

    @classmethod
    def open(cls, url: str, *, tenant: str, **options: Any) -> GraphmemStore:
        """Open a graphmem memory at ``url`` for ``tenant`` and a store over it (closed with it).

        ``options`` go to :func:`graphmem.open` (``embedder=...``, backend options), except
        ``index_fields``, which goes to the store.
        """
        fields = options.pop("index_fields", None)
        return cls(
            open_memory(url, tenant=tenant, **options), index_fields=fields, owns_memory=True
        )

    @property
    def memory(self) -> Memory:
        """The graphmem memory holding the items."""
        return self._memory

    def close(self) -> None:
        """Close the memory when this store opened it (:meth:`open`)."""
        if self._owns:
            self._memory.close()

    def __enter__(self) -> GraphmemStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ batches

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph operations: reads first (on the store as it was), then the writes."""
        ops = list(ops)
        puts: dict[str, PutOp] = {}
        for op in ops:
            if not isinstance(op, GetOp | SearchOp | ListNamespacesOp | PutOp):
                raise InvalidInput(f"unknown LangGraph operation {type(op).__name__}")
            validate_op_namespace(op)
            if isinstance(op, PutOp):
                if op.ttl is not None:
                    raise UnsupportedOperation(
                        "GraphmemStore does not support TTL (supports_ttl is False); put "
                        "without ttl, or delete the item yourself"
                    )
                puts[_record_id(op.namespace, op.key)] = op  # the last put of a key wins
        results: list[Result] = [None] * len(ops)
        gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            wanted = list(dict.fromkeys(_record_id(op.namespace, op.key) for _, op in gets))
            found = {r.id: r for r in self._store.get_records(self._tenant, RECORD_KIND, wanted)}
            for i, op in gets:
                record = found.get(_record_id(op.namespace, op.key))
                results[i] = _item(record) if record is not None else None
        scans = [i for i, op in enumerate(ops) if isinstance(op, SearchOp | ListNamespacesOp)]
        if scans:
            records = self._store.find_records(self._tenant, RECORD_KIND)
            for i in scans:
                op = ops[i]
                if isinstance(op, ListNamespacesOp):
                    results[i] = _namespaces(records, op)
                elif isinstance(op, SearchOp):
                    results[i] = self._search(records, op)
        if puts:
            self._write(puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread (the store may wait on a disk or a server)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # ------------------------------------------------------------------ the parts

    @property
    def _store(self) -> Any:
        return self._memory.store

    @property
    def _tenant(self) -> str:
        return self._memory.tenant

    def _write(self, puts: Mapping[str, PutOp]) -> None:
        stored = {r.id: r for r in self._store.get_records(self._tenant, RECORD_KIND, list(puts))}
        records: list[Record] = []
        documents: list[Document] = []
        deleted: list[str] = []
        stale: list[str] = []
        for record_id, op in puts.items():
            old = stored.get(record_id)
            if old is not None:
                stale.extend(f"{record_id}#{n}" for n in range(int(old.data.get("chunks", 0))))
            if op.value is None:
                if old is not None:
                    deleted.append(record_id)
                continue
            value = _value(op)
            text = _index_text(value, self._fields if op.index is None else op.index)
            data = {"namespace": list(op.namespace), "key": str(op.key), "value": value}
            document = None
            if text:
                document = Document(id=record_id, text=text, source="langgraph")
            records.append(Record(id=record_id, kind=RECORD_KIND, data=data))
            if document is not None:
                documents.append(document)
        # Every value was checked above (Record validates), so the chunks are written
        # first and the items, with their chunk counts, in one atomic write after them: a
        # chunk whose item is missing is never found (search keeps items only).
        if stale:
            self._store.delete_chunks(self._tenant, stale)
        counts: dict[str, int] = {}
        if documents:
            for chunk_id in self._memory.add_documents(documents).chunk_ids:
                doc = chunk_id.rpartition("#")[0]
                counts[doc] = counts.get(doc, 0) + 1
        counted = [
            Record(id=r.id, kind=RECORD_KIND, data={**r.data, "chunks": counts[r.id]})
            if r.id in counts
            else r
            for r in records
        ]
        self._store.write_records(self._tenant, counted, {RECORD_KIND: deleted})

    def _search(self, records: Sequence[Record], op: SearchOp) -> list[SearchItem]:
        under = [
            r
            for r in records
            if _under(r, op.namespace_prefix) and _matches(r.data.get("value"), op.filter)
        ]
        if op.offset < 0 or op.limit < 0:
            raise InvalidInput("search limit and offset must not be negative")
        if not op.query:
            under.sort(key=lambda r: (r.updated_at, r.id), reverse=True)
            window = under[op.offset : op.offset + op.limit]
            return [_search_item(r, None) for r in window]
        by_id = {r.id: r for r in under}
        wanted = op.offset + op.limit
        ranked: dict[str, float] = {}
        k = max(wanted * 2, 20)
        while True:
            results = self._memory.retrieve(op.query, k=k, hops=0, kinds=["chunk"])
            ranked = {}
            for result in results:
                record_id = result.source_id.rpartition("#")[0]
                if record_id in by_id and record_id not in ranked:
                    ranked[record_id] = result.score
            if len(ranked) >= wanted or len(results) < k:
                break
            k *= 4
        hits = [_search_item(by_id[i], score) for i, score in ranked.items()]
        if len(hits) < wanted:  # then the items not indexed, as LangGraph's own store does
            unindexed = [r for r in under if r.id not in ranked and not r.data.get("chunks")]
            unindexed.sort(key=lambda r: (r.updated_at, r.id), reverse=True)
            hits.extend(_search_item(r, None) for r in unindexed)
        return hits[op.offset : op.offset + op.limit]


# --------------------------------------------------------------------------- helpers


def _record_id(namespace: Sequence[str], key: str) -> str:
    digest = hashlib.sha256(json.dumps([list(namespace), str(key)]).encode("utf-8"))
    return _ID_PREFIX + digest.hexdigest()


def _value(op: PutOp) -> dict[str, Any]:
    if not isinstance(op.value, Mapping):
        raise InvalidInput(
            f"a LangGraph item's value must be a mapping, got {type(op.value).__name__}",
            key=str(op.key),
        )
    return dict(op.value)


def _index_text(value: Mapping[str, Any], fields: Any) -> str:
    if fields is False or fields is None:
        return ""
    if isinstance(fields, str) or not isinstance(fields, Sequence):
        raise InvalidInput("a put's index must be False or a list of JSON paths")
    texts: list[str] = []
    for path in fields:
        texts.extend(t for t in get_text_at_path(value, path) if t.strip())
    return "\n".join(texts)


def _thaw(value: Any) -> Any:
    """A stored value as plain, mutable JSON data (records hand out read-only copies)."""
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_thaw(v) for v in value]
    return value


def _namespace(record: Record) -> tuple[str, ...]:
    return tuple(record.data.get("namespace", ()))


def _item(record: Record) -> Item:
    return Item(
        value=_thaw(record.data.get("value", {})),
        key=str(record.data.get("key", "")),
        namespace=_namespace(record),
        created_at=record.created_at,
        updated_at=record.updated_at,
    )


def _search_item(record: Record, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=_namespace(record),
        key=str(record.data.get("key", "")),
        value=_thaw(record.data.get("value", {})),
        created_at=record.created_at,
        updated_at=record.updated_at,
        score=score,
    )


def _under(record: Record, prefix: Sequence[str]) -> bool:
    namespace = _namespace(record)
    return namespace[: len(prefix)] == tuple(prefix)


def _fits(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(path, namespace, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(path), reversed(namespace), strict=False)
    else:
        raise InvalidInput(f"unknown namespace match type {condition.match_type!r}")
    return all(want == "*" or want == have for want, have in pairs)


def _namespaces(records: Sequence[Record], op: ListNamespacesOp) -> list[tuple[str, ...]]:
    if op.offset < 0 or op.limit < 0 or (op.max_depth is not None and op.max_depth < 1):
        raise InvalidInput("list_namespaces limit and offset must be >= 0, max_depth >= 1")
    found = {_namespace(r) for r in records}
    conditions = op.match_conditions or ()
    kept = {ns for ns in found if all(_fits(c, ns) for c in conditions)}
    if op.max_depth is not None:
        kept = {ns[: op.max_depth] for ns in kept}
    return sorted(kept)[op.offset : op.offset + op.limit]


def _matches(value: Any, flt: Mapping[str, Any] | None) -> bool:
    if not flt:
        return True
    if not isinstance(value, Mapping):
        return False
    return all(_compare(value.get(key), wanted) for key, wanted in flt.items())


_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def _compare(have: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics (JSONB-like): nested maps, lists and comparison operators."""
    if isinstance(wanted, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in wanted):
            return all(_operator(have, op, arg) for op, arg in wanted.items())
        if not isinstance(have, Mapping):
            return False
        return all(_compare(have.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(have, list | tuple)
            and len(have) == len(wanted)
            and all(_compare(h, w) for h, w in zip(have, wanted, strict=True))
        )
    return bool(have == wanted)


def _operator(have: Any, op: str, arg: Any) -> bool:
    if op not in _OPERATORS:
        raise InvalidInput(
            f"unknown filter operator {op!r}; LangGraph's are {', '.join(_OPERATORS)}"
        )
    if op == "$eq":
        return bool(have == arg)
    if op == "$ne":
        return bool(have != arg)
    try:
        left, right = float(have), float(arg)
    except (TypeError, ValueError):
        return False  # a missing or non-numeric value never compares
    if op == "$gt":
        return left > right
    if op == "$gte":
        return left >= right
    if op == "$lt":
        return left < right
    return left <= right
