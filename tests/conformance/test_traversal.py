"""Traversal over current facts: neighbors, find_path, visible_subgraph."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graphmem import GraphStore, NotFound
from graphmem.core.models import utcnow

from .helpers import ent, ids, keys, rel


@pytest.fixture
def chain(store: GraphStore, tenant: str) -> GraphStore:
    """a -> b -> c -> d -> e, plus a -> x (an item) -> e and a -> f (a location)."""
    store.upsert_entities(
        tenant,
        [ent(i) for i in "abcde"] + [ent("x", "item"), ent("f", "location")],
    )
    store.upsert_relationships(
        tenant,
        [
            rel("a", "b"),
            rel("b", "c"),
            rel("c", "d"),
            rel("d", "e"),
            rel("a", "x", "owns"),
            rel("x", "e", "cursed_by"),
            rel("a", "f", "lives_in"),
        ],
    )
    return store


def test_neighbors_depth_one_ordered_by_id(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.neighbors(tenant, "a")) == ["b", "f", "x"]


def test_neighbors_breadth_first_by_hop_then_id(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.neighbors(tenant, "a", depth=2)) == ["b", "f", "x", "c", "e"]
    assert ids(chain.neighbors(tenant, "a", depth=3)) == ["b", "f", "x", "c", "e", "d"]


def test_neighbors_counts_hops_by_shortest_walk(chain: GraphStore, tenant: str) -> None:
    # e is two hops from a (through x) although the chain a-b-c-d-e is four.
    assert ids(chain.neighbors(tenant, "a", depth=6)) == ["b", "f", "x", "c", "e", "d"]


def test_neighbors_returns_entities(chain: GraphStore, tenant: str) -> None:
    [x] = chain.neighbors(tenant, "a", node_types=["item"])

    assert x == chain.get_entity(tenant, "x")


def test_neighbors_rel_types_restrict_the_walk(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.neighbors(tenant, "a", depth=5, rel_types=["knows"])) == ["b", "c", "d", "e"]
    assert ids(chain.neighbors(tenant, "a", depth=5, rel_types=["owns", "cursed_by"])) == [
        "x",
        "e",
    ]
    assert chain.neighbors(tenant, "a", depth=5, rel_types=["hates"]) == []


def test_neighbors_node_types_filter_output_but_walk_through(
    chain: GraphStore, tenant: str
) -> None:
    # c and d are only reachable through b (an npc); e through x (an item).
    assert ids(chain.neighbors(tenant, "a", depth=2, node_types=["npc"])) == ["b", "c", "e"]
    assert ids(chain.neighbors(tenant, "e", depth=2, node_types=["npc"])) == ["d", "a", "c"]
    assert ids(chain.neighbors(tenant, "a", depth=3, node_types=["location", "item"])) == ["f", "x"]


def test_neighbors_max_nodes_keeps_the_nearest(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.neighbors(tenant, "a", depth=3, max_nodes=4)) == ["b", "f", "x", "c"]
    assert ids(chain.neighbors(tenant, "a", depth=3, max_nodes=1)) == ["b"]


def test_neighbors_max_nodes_counts_returned_entities(chain: GraphStore, tenant: str) -> None:
    found = chain.neighbors(tenant, "a", depth=3, node_types=["npc"], max_nodes=2)

    assert ids(found) == ["b", "c"]


def test_neighbors_direction(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.neighbors(tenant, "c", direction="out", depth=5)) == ["d", "e"]
    assert ids(chain.neighbors(tenant, "c", direction="in", depth=5)) == ["b", "a"]
    assert ids(chain.neighbors(tenant, "c", direction="both", depth=1)) == ["b", "d"]
    assert ids(chain.neighbors(tenant, "e", direction="in", depth=2)) == ["d", "x", "a", "c"]


def test_neighbors_default_direction_is_both(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.neighbors(tenant, "c")) == ["b", "d"]


def test_neighbors_do_not_walk_invalidated_edges(chain: GraphStore, tenant: str) -> None:
    chain.invalidate_relationship(tenant, "a", "x", "owns")
    chain.invalidate_relationship(tenant, "b", "c", "knows")

    assert ids(chain.neighbors(tenant, "a", depth=2)) == ["b", "f"]


def test_neighbors_do_not_walk_future_edges(chain: GraphStore, tenant: str) -> None:
    later = utcnow() + timedelta(days=2)
    chain.upsert_relationships(tenant, [rel("a", "d", "will_meet", valid_at=later)])

    assert ids(chain.neighbors(tenant, "a")) == ["b", "f", "x"]


def test_neighbors_exclude_the_start_even_in_a_cycle(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("p"), ent("q"), ent("r")])
    store.upsert_relationships(tenant, [rel("p", "q"), rel("q", "r"), rel("r", "p"), rel("p", "p")])

    assert ids(store.neighbors(tenant, "p", depth=5)) == ["q", "r"]
    assert ids(store.neighbors(tenant, "p", depth=5, direction="out")) == ["q", "r"]


def test_neighbors_of_isolated_entity_are_empty(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("hermit")])

    assert store.neighbors(tenant, "hermit", depth=3) == []


def test_neighbors_of_unknown_entity_is_not_found(chain: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound) as info:
        chain.neighbors(tenant, "nobody")

    assert info.value.entity_id == "nobody"


def test_find_path_shortest_directed(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.find_path(tenant, "a", "e")) == ["a", "x", "e"]
    assert ids(chain.find_path(tenant, "b", "e")) == ["b", "c", "d", "e"]


def test_find_path_returns_entities(chain: GraphStore, tenant: str) -> None:
    path = chain.find_path(tenant, "a", "x")

    assert path == [chain.get_entity(tenant, "a"), chain.get_entity(tenant, "x")]


def test_find_path_follows_direction(chain: GraphStore, tenant: str) -> None:
    assert chain.find_path(tenant, "e", "a") == []
    assert chain.find_path(tenant, "f", "a") == []


def test_find_path_none_is_empty(chain: GraphStore, tenant: str) -> None:
    chain.upsert_entities(tenant, [ent("hermit")])

    assert chain.find_path(tenant, "a", "hermit") == []


def test_find_path_beyond_max_depth_is_empty(chain: GraphStore, tenant: str) -> None:
    assert chain.find_path(tenant, "b", "e", max_depth=2) == []
    assert ids(chain.find_path(tenant, "b", "e", max_depth=3)) == ["b", "c", "d", "e"]


def test_find_path_rel_types(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.find_path(tenant, "a", "e", rel_types=["knows"])) == ["a", "b", "c", "d", "e"]
    assert chain.find_path(tenant, "a", "e", rel_types=["owns"]) == []


def test_find_path_skips_invalidated_edges(chain: GraphStore, tenant: str) -> None:
    chain.invalidate_relationship(tenant, "x", "e", "cursed_by")

    assert ids(chain.find_path(tenant, "a", "e")) == ["a", "b", "c", "d", "e"]


def test_find_path_to_itself_is_the_entity(chain: GraphStore, tenant: str) -> None:
    assert ids(chain.find_path(tenant, "c", "c")) == ["c"]


def test_find_path_unknown_ids_are_not_found(chain: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound) as source_info:
        chain.find_path(tenant, "nobody", "a")
    with pytest.raises(NotFound) as target_info:
        chain.find_path(tenant, "a", "nobody")

    assert source_info.value.entity_id == "nobody"
    assert target_info.value.entity_id == "nobody"


def test_visible_subgraph_has_induced_edges(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(
        tenant, [ent("npc"), ent("friend"), ent("rival"), ent("far"), ent("home", "location")]
    )
    store.upsert_relationships(
        tenant,
        [
            rel("npc", "friend"),
            rel("rival", "npc", "hates"),
            rel("npc", "home", "lives_in"),
            rel("friend", "rival", "hates"),  # between two visible entities: included
            rel("rival", "far", "knows"),  # far is two hops away: excluded
            rel("friend", "home", "visits"),
        ],
    )
    store.invalidate_relationship(tenant, "friend", "home", "visits")  # not current

    sub = store.visible_subgraph(tenant, "npc")

    assert sorted(ids(sub.entities)) == ["friend", "home", "npc", "rival"]
    assert sorted(keys(sub.relationships)) == [
        ("friend", "rival", "hates"),
        ("npc", "friend", "knows"),
        ("npc", "home", "lives_in"),
        ("rival", "npc", "hates"),
    ]


def test_visible_subgraph_depth(chain: GraphStore, tenant: str) -> None:
    sub = chain.visible_subgraph(tenant, "c", depth=2)

    assert sorted(ids(sub.entities)) == ["a", "b", "c", "d", "e"]
    assert sorted(keys(sub.relationships)) == [
        ("a", "b", "knows"),
        ("b", "c", "knows"),
        ("c", "d", "knows"),
        ("d", "e", "knows"),
    ]


def test_visible_subgraph_of_unknown_entity_is_not_found(store: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound):
        store.visible_subgraph(tenant, "nobody")
