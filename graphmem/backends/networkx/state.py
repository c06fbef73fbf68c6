"""What the embedded backend holds per tenant: the graph, turns, records, chunks, indexes.

One :class:`_Tenant` per tenant: a networkx ``MultiDiGraph`` (entities are nodes holding
the frozen model under ``e``, relationships edges keyed by type holding it under ``r``),
turns with a children index, sessions, records with an owner index, chunks, the mention
maps, and the vector, full-text and name indexes kept in step with every write.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import networkx as nx

from graphmem.backends.load_plan import MENTION_KINDS
from graphmem.core.models import (
    Chunk,
    Entity,
    Record,
    Turn,
)

if TYPE_CHECKING:
    from graphmem.backends.networkx.indexes import TextIndex, VectorIndex


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
        default_factory=lambda: {k: {} for k in MENTION_KINDS}
    )
    mentioned_by: dict[str, dict[str, set[str]]] = field(
        default_factory=lambda: {k: {} for k in MENTION_KINDS}
    )
    # kind -> entity id -> mentioning node ids, sorted: filled by reads, emptied by writes.
    sorted_mentions: dict[str, dict[str, list[str]]] = field(
        default_factory=lambda: {k: {} for k in MENTION_KINDS}
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
            for mention_kind in MENTION_KINDS:
                self.sorted_mentions[mention_kind].pop(node_id, None)
                for node in self.mentioned_by[mention_kind].pop(node_id, ()):
                    self.mentions[mention_kind][node].discard(node_id)
                    if not self.mentions[mention_kind][node]:
                        del self.mentions[mention_kind][node]


_EMPTY = _Tenant()


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


def _indexes() -> Any:
    # numpy is imported on first use of an index, not when the backend is opened.
    from graphmem.backends.networkx import indexes

    return indexes
