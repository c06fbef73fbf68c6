"""Governed facts in the graph: the edge each shows as, kept in step by governance.

One model of a fact. A governed fact is a record of kind ``fact`` (the ledger: signed,
versioned, in the audit hash chain) and, when it is the tenant's (``workspace`` scope)
and about an entity, a :class:`~graphmem.Relationship` of the graph::

    (subject entity) -[relation]-> (the entity its value names | a value node)

carrying what governance knows of it: ``provenance.source`` the source type,
``confidence`` the trust, ``confirmed`` when an operator entered it (``manual``) or a
reviewer approved it, ``session_id`` the writer's session, ``attributes`` its
``fact_id`` and ``actor`` (and ``tier`` when classified); ``valid_at`` / ``invalid_at``
when it was believed, ``created_at`` when it was learned, ``expired_at`` when the memory
stopped believing it. So identity snapshots, traversal and retrieval see it like any
other fact, and the graph's ``as_of`` / ``recorded_as_of`` reads follow it.

The rules:

- **Which facts.** Workspace facts only: the graph is the tenant's shared world, and
  agent or session facts are one writer's or one scene's working memory (served by
  :class:`~graphmem.policy.FactMemory` to that writer or scene, as before).
- **The subject** names an entity when it is an entity's id, or the name of exactly one
  entity (case- and space-insensitive); otherwise the fact stays in the ledger only.
- **The relation** becomes the relationship type with each run of spaces an underscore;
  one that is still not a safe name keeps the fact in the ledger only.
- **The value** names an entity the same way; otherwise the fact gets a *value node* of
  its own: ``Entity(id="value:<fact id>", type="value", name=<value>)``, written and
  deleted with its edge.
- The graph form is decided once, when the fact is learned, and kept in the fact record
  (signed with it): ``edge``, plus ``edge_key`` and ``slot`` to look facts up by.
- **When.** A fact is in the graph from when it is believed (``valid_at`` set: active,
  or superseded or invalidated after that, kept for ``as_of``); a pending or rejected
  fact never is. One edge per key: it shows the fact of that key believed now, else the
  one whose belief ended last.
- **One write.** The edges (and value nodes) a governed change touches are written in
  the same :meth:`~graphmem.GraphStore.write_changes` call as its facts and audit entry.
  A fact that takes over a key holding an edge governance did not write keeps that edge
  in its audit entry's undo data, and a rollback that frees the key puts it back. An
  edge governance did not write is never deleted: when no fact shows at a key any more,
  only governance's own edge goes.

>>> edge_type("works at")
'works_at'
>>> edge_type("lives in (sometimes)") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.core.models import (
    SAFE_NAME_PATTERN,
    VALUE_ENTITY_TYPE,
    Entity,
    EntityFilter,
    Provenance,
    Record,
    Relationship,
    RelationshipFilter,
)
from graphmem.core.store import ChangeSet, GraphStore
from graphmem.policy.audit import FACT_KIND, FactWrite, canonical_json
from graphmem.policy.consolidation import norm
from graphmem.policy.facts import Fact
from graphmem.policy.rules import BELIEVED, FactStatus, SourceType

__all__ = ["VALUE_TYPE", "FactEdge", "FactGraph", "edge_fields", "edge_type", "relationship_of"]

VALUE_TYPE = VALUE_ENTITY_TYPE
"""The entity type of value nodes: the object of a fact whose value names no entity."""

_VALUE_PREFIX = "value:"
_SPACE_RUNS = re.compile(r"\s+")
_MAX_ID = 512

Key = tuple[str, str, str]
Check = Callable[[Sequence[Record]], None]


def edge_type(relation: str) -> str | None:
    """The relationship type of a relation: runs of spaces become ``_``; None if unsafe."""
    candidate = _SPACE_RUNS.sub("_", relation.strip())
    return candidate if SAFE_NAME_PATTERN.fullmatch(candidate) else None


@dataclass(frozen=True)
class FactEdge:
    """Where a governed fact shows in the graph.

    Attributes:
        source_id: The subject entity.
        type: The relationship type.
        target_id: The entity the value names, or the fact's value node.
        value_node: Whether the target is the fact's own value node.
    """

    source_id: str
    type: str
    target_id: str
    value_node: bool = False

    @property
    def key(self) -> Key:
        """The relationship key, ``(source_id, target_id, type)``."""
        return (self.source_id, self.target_id, self.type)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> FactEdge | None:
        """The edge a fact record's data keeps, or None."""
        raw = data.get("edge")
        if not isinstance(raw, Mapping):
            return None
        return cls(raw["source_id"], raw["type"], raw["target_id"], bool(raw.get("value_node")))


def _edge_key(key: Key) -> str:
    return canonical_json(list(key))


def _slot(source_id: str, type_: str) -> str:
    return canonical_json([source_id, type_.casefold()])


def edge_fields(edge: FactEdge | None) -> dict[str, Any]:
    """What a fact record keeps of its edge: nothing for a fact the graph does not show."""
    if edge is None:
        return {}
    return {
        "edge": {
            "source_id": edge.source_id,
            "type": edge.type,
            "target_id": edge.target_id,
            "value_node": edge.value_node,
        },
        "edge_key": _edge_key(edge.key),
        "slot": _slot(edge.source_id, edge.type),
    }


def relationship_of(fact: Fact, edge: FactEdge) -> Relationship | None:
    """The relationship that shows ``fact``; None while it is not believed (or never was)."""
    if fact.valid_at is None or fact.status not in BELIEVED:
        return None
    ended = fact.invalid_at if fact.status != FactStatus.ACTIVE else None
    attributes: dict[str, Any] = {"fact_id": fact.id, "actor": fact.actor}
    if fact.tier is not None:
        attributes["tier"] = fact.tier
    source = fact.source_type if SAFE_NAME_PATTERN.fullmatch(fact.source_type) else "unknown"
    return Relationship(
        source_id=edge.source_id,
        target_id=edge.target_id,
        type=edge.type,
        attributes=attributes,
        provenance=Provenance(
            session_id=fact.session,
            confidence=fact.trust,
            source=source,
            confirmed=fact.source_type == SourceType.MANUAL or fact.reviewed_by is not None,
        ),
        valid_at=fact.valid_at,
        invalid_at=fact.invalid_at,
        created_at=fact.created_at,
        expired_at=ended,
    )


def _value_node(fact: Fact, edge: FactEdge) -> Entity:
    return Entity(
        id=edge.target_id,
        type=VALUE_TYPE,
        name=fact.value,
        attributes={"fact_id": fact.id},
        created_at=fact.created_at,
        updated_at=fact.created_at,
    )


def _winner(facts: Iterable[Fact]) -> Fact | None:
    """The fact an edge shows: the one believed now, else the one whose belief ended last."""
    believed = [f for f in facts if f.valid_at is not None and f.status in BELIEVED]
    active = [f for f in believed if f.status == FactStatus.ACTIVE]
    if active:
        return max(active, key=lambda f: (f.valid_at, f.created_at, f.id))
    if believed:
        return max(believed, key=lambda f: (f.invalid_at or f.valid_at, f.created_at, f.id))
    return None


def _as_fact(write: FactWrite) -> Fact:
    return Fact.from_record(
        Record(id=write.id, kind=FACT_KIND, data=dict(write.data), created_at=write.created_at)
    )


def _usable_id(text: str) -> bool:
    return 0 < len(text) <= _MAX_ID


def _same(have: Relationship, want: Relationship) -> bool:
    """Whether a stored edge says what governance holds (the store owns ``created_at``)."""
    skip = {"created_at"}
    return have.model_dump(exclude=skip) == want.model_dump(exclude=skip)


class FactGraph:
    """Keeps one tenant's graph in step with its governed facts.

    Args:
        store: The store.
        tenant: The tenant.
        check: Checks fact records read back (their signatures) before they are used.
    """

    def __init__(self, store: GraphStore, tenant: str, check: Check) -> None:
        self._store = store
        self._tenant = tenant
        self._check = check

    # ------------------------------------------------------------------ learning

    def _named(self, text: str, by_id: Mapping[str, Entity]) -> Entity | None:
        """The entity ``text`` names: its id, or the one entity of that name (else None)."""
        found = by_id.get(text)
        if found is not None and found.type != VALUE_TYPE:
            return found
        key = norm(text)
        named = [
            e
            for e in self._store.find_entities(self._tenant, EntityFilter(name=text))
            if e.type != VALUE_TYPE and norm(e.name) == key
        ]
        return named[0] if len(named) == 1 else None

    def plan(self, subject: str, relation: str, value: str, fact_id: str) -> FactEdge | None:
        """Where a new workspace fact will show (see the module docstring), or None."""
        type_ = edge_type(relation)
        if type_ is None:
            return None
        asked = [t for t in dict.fromkeys((subject, value)) if _usable_id(t)]
        by_id = {e.id: e for e in self._store.get_entities(self._tenant, asked)}
        source = self._named(subject, by_id)
        if source is None:
            return None
        target = self._named(value, by_id)
        if target is None:
            return FactEdge(source.id, type_, f"{_VALUE_PREFIX}{fact_id}", value_node=True)
        return FactEdge(source.id, type_, target.id)

    def same_slot(self, edge: FactEdge) -> list[Fact]:
        """The facts about the same subject entity and relationship type (any case)."""
        records = self._store.find_records(
            self._tenant,
            FACT_KIND,
            where={"slot": _slot(edge.source_id, edge.type)},
            newest_first=False,
        )
        self._check(records)
        return [Fact.from_record(r) for r in records]

    # ------------------------------------------------------------------ writing

    def _others(self, keys: Iterable[Key], known: Sequence[Fact] | None) -> list[Fact]:
        """Stored facts of the given edge keys: from ``known`` when given, else read."""
        wanted = set(keys)
        if known is not None:
            return [f for f in known if f.edge in wanted]
        found: list[Fact] = []
        for key in sorted(wanted):
            records = self._store.find_records(
                self._tenant, FACT_KIND, where={"edge_key": _edge_key(key)}, newest_first=False
            )
            self._check(records)
            found.extend(Fact.from_record(r) for r in records)
        return found

    def _current(self, keys: Iterable[Key]) -> dict[Key, Relationship]:
        """The edges stored at ``keys`` (one read per source entity)."""
        by_source: dict[str, set[str]] = {}
        for source, _target, type_ in keys:
            by_source.setdefault(source, set()).add(type_)
        found: dict[Key, Relationship] = {}
        for source, types in sorted(by_source.items()):
            flt = RelationshipFilter(
                direction="out", types=tuple(sorted(types)), include_invalid=True
            )
            for rel in self._store.get_relationships(self._tenant, source, flt):
                found[rel.key] = rel
        return found

    def changes(
        self,
        written: Sequence[FactWrite],
        deleted: Sequence[Record],
        restore: Mapping[Key, Relationship] | None = None,
        known: Sequence[Fact] | None = None,
    ) -> tuple[ChangeSet, list[dict[str, Any]]]:
        """The graph changes that keep the graph in step with a governed change.

        Args:
            written: The facts the change writes (their new data).
            deleted: The facts it deletes (as stored).
            restore: Edges to put back at keys no fact shows any more (rollback).
            known: The stored facts that may share an edge key with those (every fact of
                the same subject entity and type, or more), when the caller read them
                already; else they are looked up by key.

        Returns:
            The changes, and an undo step (``{"edge": key, "before": ...}``) for each
            edge not written by governance that a shown fact replaces. An edge
            governance did not write (no ``fact_id`` of a fact at its key) is never
            deleted or overwritten when a key frees: only governance's own edge goes,
            or gives way to the edge in ``restore``.
        """
        final: dict[str, Fact | None] = {}
        edges: dict[str, FactEdge] = {}
        for write in written:
            edge = FactEdge.of(write.data)
            if edge is not None:
                edges[write.id], final[write.id] = edge, _as_fact(write)
        for record in deleted:
            edge = FactEdge.of(record.data)
            if edge is not None:
                edges[record.id], final[record.id] = edge, None
        if not edges:
            return ChangeSet(), []
        by_key: dict[Key, list[Fact]] = {}
        ids_of: dict[Key, set[str]] = {}
        of_key: dict[Key, FactEdge] = {}
        for fact_id, edge in edges.items():
            of_key[edge.key] = edge
            ids_of.setdefault(edge.key, set()).add(fact_id)
            fact = final[fact_id]
            by_key.setdefault(edge.key, [])
            if fact is not None:
                by_key[edge.key].append(fact)
        shared = [key for key, edge in of_key.items() if not edge.value_node]
        for other in self._others(shared, known):
            if other.id not in final and other.edge is not None:
                by_key[other.edge].append(other)
                ids_of[other.edge].add(other.id)
        ends = sorted({end for key in of_key for end in key[:2]})
        existing = {e.id for e in self._store.get_entities(self._tenant, ends)}
        current = self._current(k for k in shared if k[0] in existing)
        out: dict[str, list[Any]] = {"entities": [], "del_entities": [], "rels": [], "del_rels": []}
        replaced: list[dict[str, Any]] = []
        for key, edge in of_key.items():
            winner = _winner(by_key[key])
            shown = relationship_of(winner, edge) if winner is not None else None
            there = current.get(key)
            ours = there is None or there.attributes.get("fact_id") in ids_of[key]
            if shown is not None:
                if edge.source_id in existing and (edge.value_node or edge.target_id in existing):
                    if edge.value_node and edge.target_id not in existing:
                        assert winner is not None
                        out["entities"].append(_value_node(winner, edge))
                    if not ours:
                        assert there is not None
                        before = there.model_dump(mode="json")
                        replaced.append({"edge": list(key), "before": before})
                    out["rels"].append(shown)
                continue  # an end is gone (deleted by hand): the fact stays in the ledger
            if edge.value_node:
                out["del_entities"].append(edge.target_id)  # with its edge
                continue
            if not ours:
                continue  # written (or rewritten) outside governance: left as it is
            kept = (restore or {}).get(key)
            if kept is not None and key[0] in existing and key[1] in existing:
                out["rels"].append(kept)
            elif there is not None:
                out["del_rels"].append(key)
        changes = ChangeSet(
            entities=out["entities"],
            delete_entities=out["del_entities"],
            relationships=out["rels"],
            delete_relationships=out["del_rels"],
        )
        return changes, replaced

    # ------------------------------------------------------------------ verifying

    def drift(self, records: Sequence[Record]) -> dict[str, str]:
        """Facts whose edge does not say what governance holds: fact id -> why.

        Facts whose subject or target entity is gone (deleted outside governance, as
        entities may be) are not counted: they stay in the ledger only.
        """
        edges = {r.id: e for r in records if (e := FactEdge.of(r.data)) is not None}
        if not edges:
            return {}
        by_key: dict[Key, list[Fact]] = {}
        of_key: dict[Key, FactEdge] = {}
        for record in records:
            if record.id in edges:
                edge = edges[record.id]
                of_key[edge.key] = edge
                by_key.setdefault(edge.key, []).append(Fact.from_record(record))
        ends = sorted({end for key in of_key for end in key[:2]})
        existing = {e.id: e for e in self._store.get_entities(self._tenant, ends)}
        stored: dict[Key, Relationship] = {}
        everything = RelationshipFilter(direction="out", include_invalid=True)
        for source in sorted({key[0] for key in of_key if key[0] in existing}):
            for rel in self._store.get_relationships(self._tenant, source, everything):
                stored[rel.key] = rel
        bad: dict[str, str] = {}
        for key, edge in of_key.items():
            source, target, type_ = key
            if source not in existing or (not edge.value_node and target not in existing):
                continue
            winner = _winner(by_key[key])
            want = relationship_of(winner, edge) if winner is not None else None
            have = stored.get(key)
            named = f"({source})-[{type_}]->({target})"
            if want is None:
                fact_id = have.attributes.get("fact_id") if have is not None else None
                if isinstance(fact_id, str) and fact_id in edges:
                    bad.setdefault(fact_id, f"its edge {named} is in the graph, not believed")
                continue
            assert winner is not None
            if have is None:
                bad.setdefault(winner.id, f"its edge {named} is missing: deleted by hand")
            elif not _same(have, want):
                bad.setdefault(winner.id, f"its edge {named} was changed outside governance")
            elif edge.value_node and (
                target not in existing or existing[target].name != winner.value
            ):
                bad.setdefault(winner.id, f"its value node {target!r} was changed by hand")
        return bad
