"""Safe names end at the end of the string, and tenants are printable, on every backend."""

from __future__ import annotations

import pytest
from printable_cases import NOT_PRINTABLE_TENANTS, PRINTABLE_TENANTS, TRAILING_BREAKS

from graphmem import (
    Entity,
    GraphStore,
    IdentityRequired,
    InvalidInput,
    Memory,
    Provenance,
    Relationship,
)

from .helpers import OUT, canonical, ent, rel


@pytest.mark.parametrize("name", TRAILING_BREAKS)
def test_stores_refuse_types_with_a_line_break(store: GraphStore, tenant: str, name: str) -> None:
    store.upsert_entities(tenant, [ent("mira"), ent("tomas")])
    store.upsert_relationships(tenant, [rel("mira", "tomas")])
    before = canonical(store.dump(tenant))
    sneaky_rel = Relationship.model_construct(
        source_id="mira", target_id="tomas", type=name, attributes={}, provenance=Provenance()
    )
    sneaky_ent = Entity.model_construct(id="evil", type=name, name="Evil", attributes={})

    with pytest.raises(InvalidInput):
        store.upsert_relationships(tenant, [sneaky_rel])
    with pytest.raises(InvalidInput):
        store.upsert_entities(tenant, [sneaky_ent])
    with pytest.raises(InvalidInput):
        store.neighbors(tenant, "mira", rel_types=[name])
    with pytest.raises(InvalidInput):
        store.put_records(tenant, name, [])

    assert canonical(store.dump(tenant)) == before
    assert [r.type for r in store.get_relationships(tenant, "mira", OUT)] == ["knows"]


@pytest.mark.parametrize("name", sorted(NOT_PRINTABLE_TENANTS))
def test_tenants_must_be_printable(store: GraphStore, name: str) -> None:
    tenant = NOT_PRINTABLE_TENANTS[name]
    with pytest.raises(InvalidInput, match="tenant"):
        Memory(store, tenant=tenant)
    with pytest.raises(InvalidInput, match="tenant"):
        store.upsert_entities(tenant, [ent("mira")])
    with pytest.raises(InvalidInput, match="tenant"):
        store.count_entities(tenant)


@pytest.mark.parametrize("tenant", ["", "   ", "\t\n"])
def test_blank_tenants_are_missing(store: GraphStore, tenant: str) -> None:
    with pytest.raises(IdentityRequired):
        store.count_entities(tenant)


@pytest.mark.parametrize("tenant", PRINTABLE_TENANTS)
def test_printable_tenants_are_accepted(store: GraphStore, tenant: str) -> None:
    try:
        store.upsert_entities(tenant, [ent("mira")])
        assert store.count_entities(tenant) == 1
    finally:
        store.clear(tenant)
