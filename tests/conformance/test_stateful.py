"""Random operation sequences against a plain-Python reference model (hypothesis)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from graphmem import Entity, GraphStore, InvalidInput, NotFound, Provenance, Relationship, Turn

from .helpers import EVERY, OUT

IDS = ["a", "b", "c", "d", "e"]
TYPES = ["npc", "location", "item"]
REL_TYPES = ["knows", "owns", "hates"]
SESSION = "s"

SETTINGS = settings(
    max_examples=30,
    stateful_step_count=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

entity_ids = st.sampled_from(IDS)
attribute_maps = st.dictionaries(
    st.sampled_from(["mood", "level", "tags"]),
    st.one_of(st.integers(-3, 3), st.sampled_from(["calm", "angry"]), st.lists(st.booleans())),
    max_size=2,
)
entity_rows = st.tuples(
    entity_ids, st.sampled_from(TYPES), st.sampled_from(["X", "Y"]), attribute_maps
)
rel_keys = st.tuples(entity_ids, entity_ids, st.sampled_from(REL_TYPES)).filter(
    lambda k: k[0] != k[1]
)


@dataclass
class Model:
    """What the store should hold: plain dicts."""

    entities: dict[str, tuple[str, str, dict[str, Any]]] = field(default_factory=dict)
    rels: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    current: set[tuple[str, str, str]] = field(default_factory=set)
    parents: dict[str, str | None] = field(default_factory=dict)  # turn id -> parent id
    contents: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # turn ids in creation order
    head: str | None = None

    def neighbors(self, start: str, depth: int) -> list[str]:
        adjacent: dict[str, set[str]] = {i: set() for i in self.entities}
        for s, t, _ in self.current:
            adjacent[s].add(t)
            adjacent[t].add(s)
        seen = {start}
        frontier = [start]
        out: list[str] = []
        for _ in range(depth):
            nxt = sorted({n for f in frontier for n in adjacent[f]} - seen)
            seen.update(nxt)
            out.extend(nxt)
            frontier = nxt
        return out

    def branch(self) -> list[str]:
        chain: list[str] = []
        node = self.head
        while node is not None:
            chain.append(node)
            node = self.parents[node]
        return chain[::-1]


class StoreMachine(RuleBasedStateMachine):
    """Drives one backend; the store is handed in by the test."""

    store: GraphStore

    def __init__(self) -> None:
        super().__init__()
        self.tenant = f"t-{uuid.uuid4().hex}"
        self.model = Model()
        self.counter = 0

    def teardown(self) -> None:
        self.store.clear(self.tenant)

    # ------------------------------------------------------------------ entities

    @rule(rows=st.lists(entity_rows, min_size=1, max_size=3))
    def upsert_entities(self, rows: list[tuple[str, str, str, dict[str, Any]]]) -> None:
        batch = [Entity(id=i, type=t, name=n, attributes=a) for i, t, n, a in rows]
        stored = self.store.upsert_entities(self.tenant, batch)
        # One result per input position: the entity as stored for that id (the last wins).
        assert [e.id for e in stored] == [e.id for e in batch]
        last = {e.id: e for e in batch}
        assert [(e.name, e.attributes) for e in stored] == [
            (last[e.id].name, last[e.id].attributes) for e in batch
        ]
        for i, t, n, a in rows:
            self.model.entities[i] = (t, n, a)

    @rule(chosen=st.lists(entity_ids, max_size=3, unique=True))
    def delete_entities(self, chosen: list[str]) -> None:
        existed = sum(1 for i in chosen if i in self.model.entities)
        assert self.store.delete_entities(self.tenant, chosen) == existed
        for i in chosen:
            self.model.entities.pop(i, None)
        gone = {k for k in self.model.rels if k[0] in chosen or k[1] in chosen}
        for k in gone:
            del self.model.rels[k]
        self.model.current -= gone

    @rule(entity_id=entity_ids, attributes=attribute_maps, remove=st.sampled_from([(), ("mood",)]))
    def update_entity(
        self, entity_id: str, attributes: dict[str, Any], remove: tuple[str, ...]
    ) -> None:
        if entity_id not in self.model.entities:
            try:
                self.store.update_entity(self.tenant, entity_id, attributes=attributes)
            except NotFound:
                return
            raise AssertionError("update of a missing entity did not raise NotFound")
        self.store.update_entity(
            self.tenant, entity_id, attributes=attributes, remove_attributes=remove
        )
        t, n, a = self.model.entities[entity_id]
        merged = {**a, **attributes}
        for key in remove:
            merged.pop(key, None)
        self.model.entities[entity_id] = (t, n, merged)

    # ------------------------------------------------------------------ relationships

    @rule(
        batch=st.lists(rel_keys, min_size=1, max_size=3, unique=True),
        confidence=st.sampled_from([0.0, 0.5, 1.0]),
    )
    def upsert_relationships(self, batch: list[tuple[str, str, str]], confidence: float) -> None:
        rels = [
            Relationship(
                source_id=s,
                target_id=t,
                type=k,
                attributes={"n": self.counter},
                provenance=Provenance(confidence=confidence),
            )
            for s, t, k in batch
        ]
        self.counter += 1
        dangling = any(
            s not in self.model.entities or t not in self.model.entities for s, t, _ in batch
        )
        if dangling:
            try:
                self.store.upsert_relationships(self.tenant, rels)
            except InvalidInput:
                return
            raise AssertionError("a dangling relationship was accepted")
        self.store.upsert_relationships(self.tenant, rels)
        for r in rels:
            self.model.rels[r.key] = {"n": r.attributes["n"], "confidence": confidence}
            self.model.current.add(r.key)

    @rule(key=rel_keys)
    def delete_relationship(self, key: tuple[str, str, str]) -> None:
        assert self.store.delete_relationship(self.tenant, *key) is (key in self.model.rels)
        self.model.rels.pop(key, None)
        self.model.current.discard(key)

    @rule(key=rel_keys)
    def invalidate_relationship(self, key: tuple[str, str, str]) -> None:
        if key not in self.model.rels:
            try:
                self.store.invalidate_relationship(self.tenant, *key)
            except NotFound:
                return
            raise AssertionError("invalidating a missing relationship did not raise NotFound")
        if key not in self.model.current:
            return  # invalidating twice is left to the example tests
        result = self.store.invalidate_relationship(self.tenant, *key)
        assert result.key == key and result.invalid_at is not None
        self.model.current.discard(key)

    # ------------------------------------------------------------------ conversation

    @rule(content=st.sampled_from(["hi", "bye", "hm"]))
    def append(self, content: str) -> None:
        turn = self.store.append_turn(
            self.tenant, Turn(session_id=SESSION, role="player", content=content)
        )
        assert turn.parent_id == self.model.head
        self.model.parents[turn.id] = self.model.head
        self.model.contents[turn.id] = content
        self.model.order.append(turn.id)
        self.model.head = turn.id

    @precondition(lambda self: bool(self.model.order))
    @rule(data=st.data())
    def fork(self, data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(self.model.order))
        assert self.store.fork(self.tenant, SESSION, target).id == target
        self.model.head = target

    @precondition(lambda self: bool(self.model.order))
    @rule(data=st.data())
    def delete_turn(self, data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(self.model.order))
        assert self.store.delete_turn(self.tenant, target) is True
        parent = self.model.parents.pop(target)
        for child, p in self.model.parents.items():
            if p == target:
                self.model.parents[child] = parent
        if self.model.head == target:
            self.model.head = parent
        self.model.order.remove(target)
        del self.model.contents[target]

    # ------------------------------------------------------------------ checks

    @invariant()
    def entities_match(self) -> None:
        for i in IDS:
            if i in self.model.entities:
                t, n, a = self.model.entities[i]
                got = self.store.get_entity(self.tenant, i)
                assert (got.type, got.name, got.attributes) == (t, n, a)
            else:
                try:
                    self.store.get_entity(self.tenant, i)
                except NotFound:
                    continue
                raise AssertionError(f"entity {i} should be gone")
        assert self.store.count_entities(self.tenant) == len(self.model.entities)

    @invariant()
    def relationships_match(self) -> None:
        assert self.store.count_relationships(self.tenant) == len(self.model.rels)
        for i in self.model.entities:
            every = self.store.get_relationships(self.tenant, i, EVERY)
            expected = sorted(k for k in self.model.rels if i in (k[0], k[1]))
            assert [r.key for r in every] == expected
            for r in every:
                assert r.attributes["n"] == self.model.rels[r.key]["n"]
                assert r.provenance.confidence == self.model.rels[r.key]["confidence"]
            out = self.store.get_relationships(self.tenant, i, OUT)
            assert [r.key for r in out] == sorted(k for k in self.model.current if k[0] == i)

    @invariant()
    def neighbors_match(self) -> None:
        for i in self.model.entities:
            for depth in (1, 2):
                got = [e.id for e in self.store.neighbors(self.tenant, i, depth=depth)]
                assert got == self.model.neighbors(i, depth), (i, depth)

    @invariant()
    def conversation_matches(self) -> None:
        branch = self.store.branch(self.tenant, SESSION)
        assert [t.id for t in branch] == self.model.branch()
        assert [t.content for t in branch] == [self.model.contents[i] for i in self.model.branch()]
        assert [t.parent_id for t in branch] == [self.model.parents[t.id] for t in branch]
        head = self.store.head(self.tenant, SESSION)
        assert (head.id if head else None) == self.model.head
        assert self.store.count_turns(self.tenant, SESSION) == len(self.model.order)
        assert self.store.count_turns(self.tenant) == len(self.model.order)
        listed = self.store.list_turns(self.tenant, SESSION)
        assert [t.id for t in listed] == self.model.order


def test_store_matches_the_reference_model(store: GraphStore) -> None:
    machine = type("Machine", (StoreMachine,), {"store": store})

    run_state_machine_as_test(machine, settings=SETTINGS)


def test_model_neighbors_is_breadth_first() -> None:
    model = Model(entities={i: ("npc", i, {}) for i in "abcd"})
    model.current = {("a", "c", "knows"), ("c", "d", "knows"), ("b", "a", "knows")}

    assert model.neighbors("a", 1) == ["b", "c"]
    assert model.neighbors("a", 2) == ["b", "c", "d"]
    assert model.neighbors("d", 3) == ["c", "a", "b"]
