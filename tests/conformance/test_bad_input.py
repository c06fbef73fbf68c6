"""Bad input gets a typed error that says what to fix, and a failed batch writes nothing."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import graphmem
from graphmem import (
    BackendUnavailable,
    Entity,
    EntityFilter,
    GraphmemError,
    GraphStore,
    IdentityRequired,
    InvalidInput,
    InvalidSnapshot,
    Memory,
    NotFound,
    Provenance,
    Relationship,
    RelationshipFilter,
    StoreClosed,
    UnsupportedOperation,
    open_store,
)

from .helpers import EVERY, OUT, STORE_CALLS, canonical, ent, rel

INJECTION = "KNOWS]->(x) DETACH DELETE x //"
UNSAFE_NAMES = [
    INJECTION,
    "Entity) DETACH DELETE n //",
    "knows-well",
    "has space",
    "1knows",
    "_private",
    "",
    "x`y",
    "knöws",
    "a" * 65,
]


@pytest.fixture
def pair(store: GraphStore, tenant: str) -> GraphStore:
    store.upsert_entities(tenant, [ent("mira"), ent("tomas")])
    store.upsert_relationships(tenant, [rel("mira", "tomas")])
    return store


# --------------------------------------------------------------------------- unsafe names


@pytest.mark.parametrize("name", UNSAFE_NAMES)
def test_models_reject_unsafe_types(name: str) -> None:
    with pytest.raises(InvalidInput, match="safe name"):
        Relationship(source_id="a", target_id="b", type=name)
    with pytest.raises(InvalidInput, match="safe name"):
        Entity(id="a", type=name, name="A")
    with pytest.raises(InvalidInput):
        RelationshipFilter(types=(name,))
    with pytest.raises(InvalidInput):
        EntityFilter(type=name)


def test_longest_safe_name_is_accepted(pair: GraphStore, tenant: str) -> None:
    name = "K" + "a" * 63

    pair.upsert_relationships(tenant, [rel("mira", "tomas", name)])

    assert [r.type for r in pair.get_relationships(tenant, "mira", OUT)] == [name, "knows"]


@pytest.mark.parametrize("name", UNSAFE_NAMES)
def test_memory_rejects_unsafe_relationship_type_and_writes_nothing(
    pair: GraphStore, mem: Memory, name: str
) -> None:
    before = canonical(mem.dump())

    with pytest.raises(InvalidInput) as info:
        mem.upsert_relationships(
            [
                {"source_id": "tomas", "target_id": "mira", "type": "fine"},
                {"source_id": "mira", "target_id": "tomas", "type": name},
            ]
        )

    assert "relationships[1]" in str(info.value)
    assert canonical(mem.dump()) == before


@pytest.mark.parametrize("name", [INJECTION, "has space", "x`y"])
def test_store_rechecks_relationship_types(pair: GraphStore, tenant: str, name: str) -> None:
    # model_construct skips validation: the store must not trust what reaches it.
    sneaky = Relationship.model_construct(
        source_id="mira", target_id="tomas", type=name, attributes={}, provenance=Provenance()
    )
    before = canonical(pair.dump(tenant))

    with pytest.raises(InvalidInput):
        pair.upsert_relationships(tenant, [rel("tomas", "mira", "fine"), sneaky])

    assert canonical(pair.dump(tenant)) == before


@pytest.mark.parametrize("name", [INJECTION, "has space", "x`y"])
def test_store_rechecks_entity_types(pair: GraphStore, tenant: str, name: str) -> None:
    sneaky = Entity.model_construct(id="evil", type=name, name="Evil", attributes={})
    before = canonical(pair.dump(tenant))

    with pytest.raises(InvalidInput):
        pair.upsert_entities(tenant, [ent("fine"), sneaky])

    assert canonical(pair.dump(tenant)) == before


UNSAFE_TYPE_ARGUMENTS: dict[str, Callable[[GraphStore, str, str], Any]] = {
    "neighbors rel_types": lambda s, t, n: s.neighbors(t, "mira", rel_types=[n]),
    "neighbors node_types": lambda s, t, n: s.neighbors(t, "mira", node_types=[n]),
    "find_path rel_types": lambda s, t, n: s.find_path(t, "mira", "tomas", rel_types=[n]),
    "delete_relationship": lambda s, t, n: s.delete_relationship(t, "mira", "tomas", n),
    "invalidate_relationship": lambda s, t, n: s.invalidate_relationship(t, "mira", "tomas", n),
    "update_entity type": lambda s, t, n: s.update_entity(t, "mira", type=n),
}


@pytest.mark.parametrize("name", [INJECTION, "has space", ""])
@pytest.mark.parametrize("call", sorted(UNSAFE_TYPE_ARGUMENTS))
def test_store_rejects_unsafe_type_arguments(
    pair: GraphStore, tenant: str, call: str, name: str
) -> None:
    before = canonical(pair.dump(tenant))

    with pytest.raises(InvalidInput):
        UNSAFE_TYPE_ARGUMENTS[call](pair, tenant, name)

    assert canonical(pair.dump(tenant)) == before


def test_unsafe_role_is_rejected(mem: Memory) -> None:
    with pytest.raises(InvalidInput):
        mem.conversation("s").append(INJECTION, "hi")

    assert mem.count_turns() == 0


# --------------------------------------------------------------------------- confidence


@pytest.mark.parametrize("confidence", [-0.01, 1.01, 2, -1, math.nan, math.inf, -math.inf])
def test_confidence_outside_zero_to_one_is_invalid(confidence: float) -> None:
    with pytest.raises(InvalidInput, match="confidence"):
        Provenance(confidence=confidence)


@pytest.mark.parametrize("confidence", [1.5, math.nan])
def test_memory_rejects_bad_confidence_and_writes_nothing(
    pair: GraphStore, mem: Memory, confidence: float
) -> None:
    before = canonical(mem.dump())

    with pytest.raises(InvalidInput, match="confidence"):
        mem.upsert_relationships(
            [
                {"source_id": "tomas", "target_id": "mira", "type": "fine"},
                {
                    "source_id": "mira",
                    "target_id": "tomas",
                    "type": "trusts",
                    "provenance": {"confidence": confidence},
                },
            ]
        )

    assert canonical(mem.dump()) == before


@pytest.mark.parametrize("confidence", [0.0, 1.0])
def test_confidence_bounds_are_accepted(pair: GraphStore, tenant: str, confidence: float) -> None:
    pair.upsert_relationships(tenant, [rel("mira", "tomas", "trusts", confidence=confidence)])

    [trusts] = pair.get_relationships(tenant, "mira", RelationshipFilter(types=("trusts",)))
    assert trusts.provenance.confidence == confidence


# --------------------------------------------------------------------------- attributes


NOT_JSON: list[Any] = [
    object(),
    {1, 2},
    b"bytes",
    math.nan,
    math.inf,
    {"nested": {"deep": math.nan}},
    {1: "non-string key"},
    {"": "empty key"},
    [object()],
]


@pytest.mark.parametrize("value", NOT_JSON, ids=lambda v: type(v).__name__)
def test_non_json_attributes_are_invalid(value: Any) -> None:
    with pytest.raises(InvalidInput, match="attributes"):
        Entity(id="a", type="npc", name="A", attributes={"x": value})
    with pytest.raises(InvalidInput, match="attributes"):
        Relationship(source_id="a", target_id="b", type="knows", attributes={"x": value})


@pytest.mark.parametrize("value", NOT_JSON, ids=lambda v: type(v).__name__)
def test_update_with_non_json_attributes_changes_nothing(
    pair: GraphStore, tenant: str, value: Any
) -> None:
    before = pair.get_entity(tenant, "mira")

    with pytest.raises(InvalidInput):
        pair.update_entity(tenant, "mira", attributes={"ok": 1, "x": value})

    assert pair.get_entity(tenant, "mira") == before


@pytest.mark.parametrize("name", ["", "   "])
def test_update_with_empty_name_changes_nothing(pair: GraphStore, tenant: str, name: str) -> None:
    before = pair.get_entity(tenant, "mira")

    with pytest.raises(InvalidInput):
        pair.update_entity(tenant, "mira", name=name)

    assert pair.get_entity(tenant, "mira") == before


def test_memory_rejects_non_json_entity_and_writes_nothing(mem: Memory) -> None:
    with pytest.raises(InvalidInput) as info:
        mem.upsert_entities(
            [
                {"id": "ok", "type": "npc", "name": "Ok"},
                {"id": "bad", "type": "npc", "name": "Bad", "attributes": {"x": object()}},
            ]
        )

    assert "entities[1]" in str(info.value)
    assert mem.count_entities() == 0


def test_memory_wants_a_list(mem: Memory) -> None:
    with pytest.raises(InvalidInput, match="list"):
        mem.upsert_entities(ent("mira"))  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="list"):
        mem.upsert_relationships(rel("a", "b"))  # type: ignore[arg-type]


@pytest.mark.parametrize("bad_id", ["", "   ", "a\x00b", "line\nbreak", "x" * 513])
def test_bad_entity_ids_are_invalid(bad_id: str) -> None:
    with pytest.raises(InvalidInput):
        Entity(id=bad_id, type="npc", name="A")


# --------------------------------------------------------------------------- unknown ids


UNKNOWN_ENTITY_CALLS: dict[str, Callable[[GraphStore, str], Any]] = {
    "get_entity": lambda s, t: s.get_entity(t, "ghost"),
    "update_entity": lambda s, t: s.update_entity(t, "ghost", attributes={"a": 1}),
    "get_relationships": lambda s, t: s.get_relationships(t, "ghost", EVERY),
    "neighbors": lambda s, t: s.neighbors(t, "ghost", depth=2),
    "find_path from": lambda s, t: s.find_path(t, "ghost", "mira"),
    "find_path to": lambda s, t: s.find_path(t, "mira", "ghost"),
    "visible_subgraph": lambda s, t: s.visible_subgraph(t, "ghost"),
    "identity_snapshot": lambda s, t: s.identity_snapshot(t, "ghost"),
}


@pytest.mark.parametrize("call", sorted(UNKNOWN_ENTITY_CALLS))
def test_unknown_entity_is_not_found_with_its_id(pair: GraphStore, tenant: str, call: str) -> None:
    with pytest.raises(NotFound) as info:
        UNKNOWN_ENTITY_CALLS[call](pair, tenant)

    assert isinstance(info.value, KeyError)
    assert info.value.entity_id == "ghost"
    assert "ghost" in str(info.value)


def test_invalidating_a_missing_fact_is_not_found(pair: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound):
        pair.invalidate_relationship(tenant, "tomas", "mira", "knows")
    with pytest.raises(NotFound):
        pair.invalidate_relationship(tenant, "ghost", "mira", "knows")


def test_unknown_turn_is_not_found(store: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound):
        store.get_turn(tenant, "ghost-turn")
    with pytest.raises(NotFound):
        store.fork(tenant, "s", "ghost-turn")


# --------------------------------------------------------------------------- closed


@pytest.mark.parametrize("method", sorted(STORE_CALLS))
def test_closed_store_raises_store_closed(
    other_store: Callable[[], GraphStore], method: str
) -> None:
    closed = other_store()
    closed.close()

    with pytest.raises(StoreClosed):
        STORE_CALLS[method](closed, "some-tenant")


def test_closing_twice_is_fine(other_store: Callable[[], GraphStore]) -> None:
    store = other_store()
    store.close()
    store.close()


def test_closed_memory_raises_store_closed(store: GraphStore, tenant: str) -> None:
    mem = Memory(store, tenant, owns_store=False)
    mem.close()

    with pytest.raises(StoreClosed):
        mem.get_entity("mira")
    with pytest.raises(StoreClosed):
        mem.upsert_entities([ent("mira")])
    store.upsert_entities(tenant, [ent("mira")])  # the shared store stays open
    assert store.count_entities(tenant) == 1


def test_memory_that_owns_its_store_closes_it() -> None:
    with graphmem.open("memory://", tenant="t") as mem:
        store = mem.store

    with pytest.raises(StoreClosed):
        store.count_entities("t")


# --------------------------------------------------------------------------- error tree


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (NotFound, KeyError),
        (InvalidInput, ValueError),
        (InvalidSnapshot, InvalidInput),
        (UnsupportedOperation, NotImplementedError),
        (BackendUnavailable, ConnectionError),
        (IdentityRequired, PermissionError),
        (StoreClosed, RuntimeError),
    ],
)
def test_errors_subclass_the_builtins(error: type[GraphmemError], builtin: type) -> None:
    assert issubclass(error, GraphmemError)
    assert issubclass(error, builtin)
    exc = error("what to fix", entity_id="x")
    assert str(exc) == "what to fix"
    assert exc.entity_id == "x"  # type: ignore[attr-defined]


@pytest.mark.parametrize("url", ["nope", "", "zzz://somewhere"])
def test_bad_store_urls_are_invalid(url: str) -> None:
    with pytest.raises(InvalidInput):
        open_store(url)


def test_too_long_tenant_is_invalid(store: GraphStore) -> None:
    with pytest.raises(InvalidInput):
        store.count_entities("t" * 300)


NON_POSITIVE_ARGUMENTS: dict[str, Callable[[GraphStore, str, int], Any]] = {
    "neighbors depth": lambda s, t, n: s.neighbors(t, "mira", depth=n),
    "neighbors max_nodes": lambda s, t, n: s.neighbors(t, "mira", max_nodes=n),
    "find_path max_depth": lambda s, t, n: s.find_path(t, "mira", "tomas", max_depth=n),
    "visible_subgraph depth": lambda s, t, n: s.visible_subgraph(t, "mira", depth=n),
    "branch limit": lambda s, t, n: s.branch(t, "s", limit=n),
}


@pytest.mark.parametrize("value", [0, -1])
@pytest.mark.parametrize("call", sorted(NON_POSITIVE_ARGUMENTS))
def test_non_positive_sizes_are_invalid(
    pair: GraphStore, tenant: str, call: str, value: int
) -> None:
    with pytest.raises(InvalidInput):
        NON_POSITIVE_ARGUMENTS[call](pair, tenant, value)
