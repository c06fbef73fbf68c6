"""Tenancy: an empty tenant fails closed everywhere; tenants never see each other."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import graphmem
from graphmem import (
    EntityFilter,
    GraphStore,
    IdentityRequired,
    InvalidInput,
    Memory,
    NotFound,
    TenantDump,
    Turn,
    TurnFilter,
)

from .helpers import EVERY, STORE_CALLS, canonical, ent, ids, rel

NOT_TENANT_SCOPED = {"url", "capabilities", "close", "list_tenants"}


def test_every_store_method_is_covered() -> None:
    methods = {name for name in dir(GraphStore) if not name.startswith("_")}

    assert methods - NOT_TENANT_SCOPED == set(STORE_CALLS)


@pytest.mark.parametrize("bad_tenant", ["", "   ", "\t \n"], ids=["empty", "spaces", "blank"])
@pytest.mark.parametrize("method", sorted(STORE_CALLS))
def test_empty_tenant_fails_closed(
    store: GraphStore, tenant: str, method: str, bad_tenant: str
) -> None:
    store.upsert_entities(tenant, [ent("a"), ent("b")])

    with pytest.raises(IdentityRequired):
        STORE_CALLS[method](store, bad_tenant)

    assert store.count_entities(tenant) == 2


@pytest.mark.parametrize("bad_tenant", ["", "   "])
def test_open_needs_a_tenant(bad_tenant: str) -> None:
    with pytest.raises(IdentityRequired):
        graphmem.open("memory://", tenant=bad_tenant)


@pytest.mark.parametrize("bad_tenant", ["", "   "])
def test_memory_needs_a_tenant(store: GraphStore, bad_tenant: str) -> None:
    with pytest.raises(IdentityRequired):
        Memory(store, bad_tenant, owns_store=False)


def test_identity_required_is_a_permission_error() -> None:
    with pytest.raises(PermissionError):
        graphmem.open("memory://", tenant="")


@pytest.fixture
def two(store: GraphStore, new_tenant: Callable[[], str]) -> tuple[str, str]:
    """Tenant a holds a small world with a conversation; tenant b holds nothing."""
    a, b = new_tenant(), new_tenant()
    store.upsert_entities(
        a, [ent("mira", occupation="smith"), ent("tomas"), ent("forge", "location")]
    )
    store.upsert_relationships(a, [rel("mira", "tomas"), rel("mira", "forge", "works_at")])
    store.append_turn(a, Turn(session_id="s1", role="player", content="hello dragon"))
    return a, b


def test_reads_of_another_tenant_see_nothing(store: GraphStore, two: tuple[str, str]) -> None:
    a, b = two
    turn = store.head(a, "s1")
    assert turn is not None

    for call in (
        lambda: store.get_entity(b, "mira"),
        lambda: store.update_entity(b, "mira", name="Stolen"),
        lambda: store.get_relationships(b, "mira", EVERY),
        lambda: store.invalidate_relationship(b, "mira", "tomas", "knows"),
        lambda: store.neighbors(b, "mira"),
        lambda: store.find_path(b, "mira", "tomas"),
        lambda: store.visible_subgraph(b, "mira"),
        lambda: store.identity_snapshot(b, "mira"),
        lambda: store.get_turn(b, turn.id),
        lambda: store.fork(b, "s1", turn.id),
    ):
        with pytest.raises(NotFound):
            call()
    assert store.get_entities(b, ["mira", "tomas"]) == []
    assert store.find_entities(b, EntityFilter()) == []
    assert store.find_entities(b, EntityFilter(name_contains="mira")) == []
    assert store.count_entities(b) == 0
    assert store.count_relationships(b) == 0
    assert store.head(b, "s1") is None
    assert store.branch(b, "s1") == []
    assert store.list_turns(b, "s1") == []
    assert store.count_turns(b) == 0
    assert store.count_turns(b, "s1") == 0
    assert store.search_turns(b, TurnFilter(text="dragon")) == []
    assert store.list_sessions(b) == []
    assert canonical(store.dump(b)) == canonical(TenantDump())


def test_writes_of_another_tenant_touch_nothing(store: GraphStore, two: tuple[str, str]) -> None:
    a, b = two
    before = canonical(store.dump(a))
    turn = store.head(a, "s1")
    assert turn is not None

    assert store.delete_entities(b, ["mira", "tomas"]) == 0
    assert store.delete_relationship(b, "mira", "tomas", "knows") is False
    assert store.delete_turn(b, turn.id) is False
    assert store.delete_conversation(b, "s1") == 0
    with pytest.raises(InvalidInput):  # a's entities are not ends b can use
        store.upsert_relationships(b, [rel("mira", "tomas", "hates")])
    store.clear(b)

    assert canonical(store.dump(a)) == before


def test_same_ids_in_two_tenants_are_separate(store: GraphStore, two: tuple[str, str]) -> None:
    a, b = two
    store.upsert_entities(b, [ent("mira", type="player", name="Other Mira"), ent("tomas")])
    store.upsert_relationships(b, [rel("tomas", "mira", "hates")])
    store.append_turn(b, Turn(session_id="s1", role="gm", content="b's own turn"))

    assert store.get_entity(a, "mira").name == "Mira"
    assert store.get_entity(b, "mira").name == "Other Mira"
    assert ids(store.neighbors(a, "mira")) == ["forge", "tomas"]
    assert ids(store.neighbors(b, "mira")) == ["tomas"]
    assert [r.key for r in store.get_relationships(b, "tomas", EVERY)] == [
        ("tomas", "mira", "hates")
    ]
    assert [t.content for t in store.branch(a, "s1")] == ["hello dragon"]
    assert [t.content for t in store.branch(b, "s1")] == ["b's own turn"]
    assert store.count_turns(a) == 1 and store.count_turns(b) == 1


def test_clear_leaves_other_tenants(store: GraphStore, two: tuple[str, str]) -> None:
    a, b = two
    store.upsert_entities(b, [ent("x")])
    store.append_turn(b, Turn(session_id="s9", role="gm", content="b"))
    before = canonical(store.dump(a))

    store.clear(b)

    assert canonical(store.dump(b)) == canonical(TenantDump())
    assert canonical(store.dump(a)) == before


def test_clear_removes_everything_of_the_tenant(store: GraphStore, two: tuple[str, str]) -> None:
    a, _ = two

    store.clear(a)

    assert store.count_entities(a) == 0
    assert store.count_relationships(a) == 0
    assert store.count_turns(a) == 0
    assert store.list_sessions(a) == []
    assert store.head(a, "s1") is None
    # The tenant is usable again.
    store.upsert_entities(a, [ent("mira")])
    assert store.neighbors(a, "mira") == []
