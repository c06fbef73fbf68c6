"""``search_context``, ``gather`` and ``entity_version``: what one retrieve reads, every backend.

The contract is that each part of ``search_context`` and ``gather`` equals the separate
protocol call it stands for with the same arguments, and that the entity version changes
with every entity write (a rename included).
"""

from __future__ import annotations

import numpy as np
import pytest

from graphmem import Chunk, GraphStore, InvalidInput, Memory, Relationship, Turn
from graphmem.retrieval import MAX_QUERY_LENGTH

from .helpers import ent


@pytest.fixture
def world(store: GraphStore, tenant: str) -> GraphStore:
    rng = np.random.default_rng(5)
    store.upsert_entities(tenant, [ent(f"e{i}", name=f"Smith {i}") for i in range(6)])
    store.upsert_relationships(
        tenant,
        [Relationship(source_id=f"e{i}", target_id=f"e{i + 1}", type="knows") for i in range(5)],
    )
    words = ["forge", "river", "bell", "mill", "flour", "blade"]
    chunks = [Chunk(id=f"c{i}", text=f"{words[i % 6]} {words[(i + 1) % 6]}") for i in range(8)]
    store.upsert_chunks(tenant, chunks)
    store.link_mentions(
        tenant, "chunk", {f"c{i}": [f"e{i % 6}", f"e{(i + 2) % 6}"] for i in range(8)}
    )
    parent = None
    for i, word in enumerate(["the forge bell", "river ferry", "a mill", "flour and blade"]):
        turn = store.append_turn(
            tenant, Turn(id=f"t{i}", session_id="s", role="user", content=word, parent_id=parent)
        )
        parent = turn.id
    store.link_mentions(tenant, "turn", {"t0": ["e1"], "t2": ["e3"]})
    store.put_embeddings(tenant, "chunk", [c.id for c in chunks], rng.standard_normal((8, 4)))
    store.put_embeddings(tenant, "turn", [f"t{i}" for i in range(4)], rng.standard_normal((4, 4)))
    store.put_embeddings(tenant, "entity", [f"e{i}" for i in range(6)], rng.standard_normal((6, 4)))
    return store


def test_search_context_is_hybrid_search_with_its_window_scope_and_version(
    world: GraphStore, tenant: str
) -> None:
    vector = [0.3, -0.2, 0.9, 0.1]
    kinds = ["entity", "turn", "chunk"]
    got = world.search_context(tenant, kinds, vector=vector, text="forge mill", k=3, window_depth=1)
    assert got.hits == world.hybrid_search(tenant, kinds, vector=vector, text="forge mill", k=3)
    pair = got.hits["turn"]
    ids = list(dict.fromkeys([*(h.id for h in pair.text), *(h.id for h in pair.vector)]))
    assert ids and got.window == world.turn_window(tenant, ids, depth=1)
    assert got.entity_version == world.entity_version(tenant)
    assert got.unknown_scope == []

    scoped = world.search_context(
        tenant, ["chunk"], vector=None, text="forge", k=5, scope_ids=["e0", "ghost", "e1"]
    )
    assert scoped.unknown_scope == ["ghost"]
    assert scoped.window == []
    assert scoped.hits == world.hybrid_search(
        tenant, ["chunk"], vector=None, text="forge", k=5, scope_ids=["e0", "ghost", "e1"]
    )
    with pytest.raises(InvalidInput):
        world.search_context(tenant, ["turn"], vector=None, text="x", k=3, window_depth=-1)


def test_gather_parts_equal_the_calls_they_stand_for(world: GraphStore, tenant: str) -> None:
    got = world.gather(
        tenant,
        chunk_ids=["c1", "nope", "c0"],
        turn_ids=["t2"],
        entity_ids=["e5", "ghost"],
        mentions_of={"chunk": ["c0", "c3"], "turn": ["t0"]},
        seed_ids=["e0", "ghost"],
        seed_mentions=True,
        depth=1,
        within=["e0", "e1", "e2", "e3", "e5"],
        mentioning=["chunk", "turn"],
        mentioning_limit=3,
    )
    assert got.chunks == world.get_chunks(tenant, ["c1", "nope", "c0"])
    assert got.turns == world.get_turns(tenant, ["t2"])
    assert got.entities == world.get_entities(tenant, ["e5", "ghost"])
    assert got.mentions == {
        "chunk": world.get_mentions(tenant, "chunk", ["c0", "c3"]),
        "turn": world.get_mentions(tenant, "turn", ["t0"]),
    }
    # seeds: e0 and what c0, c3 and t0 mention within the scope (e0, e2, e3, e5, e1)
    within = ["e0", "e1", "e2", "e3", "e5"]
    assert got.subgraph == world.expand(
        tenant, ["e0", "e2", "e3", "e5", "e1"], depth=1, within=within
    )
    members = sorted(e.id for e in got.subgraph.entities)
    for kind in ("chunk", "turn"):
        assert got.mentioning[kind] == world.find_mentioning(tenant, kind, members, limit=3)  # type: ignore[arg-type]


def test_gather_of_nothing_and_bad_arguments(world: GraphStore, tenant: str) -> None:
    empty = world.gather(tenant)
    assert (empty.chunks, empty.turns, empty.entities, empty.mentions, empty.mentioning) == (
        [],
        [],
        [],
        {},
        {},
    )
    assert empty.subgraph.entities == ()
    with pytest.raises(InvalidInput):
        world.gather(tenant, chunk_ids="c1")
    with pytest.raises(InvalidInput):
        world.gather(tenant, mentioning=["entity"])  # type: ignore[list-item]
    with pytest.raises(InvalidInput):
        world.gather(tenant, seed_ids=["e0"], depth=-1)
    with pytest.raises(InvalidInput):
        world.gather(tenant, mentioning=["chunk"], mentioning_limit=0)


def test_entity_version_changes_with_every_entity_write(store: GraphStore, tenant: str) -> None:
    versions = [store.entity_version(tenant)]
    store.upsert_entities(tenant, [ent("mira"), ent("tomas")])
    versions.append(store.entity_version(tenant))
    store.update_entity(tenant, "mira", name="Mira the smith")  # a rename: same count
    versions.append(store.entity_version(tenant))
    store.upsert_entities(tenant, [ent("tomas", name="Tomas of the mill")])
    versions.append(store.entity_version(tenant))
    store.delete_entities(tenant, ["tomas"])
    versions.append(store.entity_version(tenant))
    assert len(set(versions)) == len(versions)
    assert store.entity_version(tenant) == versions[-1]  # a read changes nothing
    store.upsert_chunks(tenant, [Chunk(id="c", text="not an entity")])
    assert store.entity_version(tenant) == versions[-1]


def test_a_renamed_entity_is_linked_by_its_new_name(
    mem: Memory, store: GraphStore, tenant: str
) -> None:
    mem.upsert_entities([ent("mira"), ent("tomas")])
    assert mem.entity_linker().link("Where is Mira?") == ["mira"]
    mem.update_entity("mira", name="Mirabel")  # the entity count does not change
    assert mem.entity_linker().link("Where is Mirabel?") == ["mira"]
    store.upsert_entities(tenant, [ent("tomas", name="Old Tom")])  # another writer of the store
    assert mem.entity_linker().link("Old Tom and Mirabel") == ["tomas", "mira"]
    assert mem.entity_linker().link("Tomas") == []


def test_a_query_longer_than_the_limit_is_refused(mem: Memory) -> None:
    mem.upsert_entities([ent("echo", name=" ".join(["echo"] * 4000))])
    with pytest.raises(InvalidInput, match="characters long; the limit is 10,000"):
        mem.retrieve("echo " * (MAX_QUERY_LENGTH // 5 + 1), preset="keyword")
