"""Chunks, MENTIONS, embeddings, vector and full-text search, and expand: every backend."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from graphmem import Chunk, GraphStore, InvalidInput, NotFound, Turn

from .helpers import canonical, ent, ids, keys, rel


def chunk(chunk_id: str, text: str, **attributes: object) -> Chunk:
    return Chunk(id=chunk_id, text=text, attributes=attributes)


def unit(*values: float) -> list[float]:
    return list(values)


@pytest.fixture
def world(store: GraphStore, tenant: str) -> GraphStore:
    store.upsert_entities(
        tenant,
        [
            ent("mira", name="Mira", aliases=["the smith"]),
            ent("forge", "location", "The Forge"),
            ent("halden", name="Halden Crook"),
            ent("mill", "location", "The Mill"),
        ],
    )
    store.upsert_relationships(
        tenant,
        [rel("mira", "forge", "works_at"), rel("halden", "mill", "runs"), rel("halden", "mira")],
    )
    store.upsert_chunks(
        tenant,
        [
            chunk("c1", "Mira hammers blades at the forge all day."),
            chunk("c2", "The miller Halden cheats on every sack of flour.", title="Mill"),
            chunk("c3", "The Drowned Bell rings when the river floods."),
        ],
    )
    store.link_mentions(tenant, "chunk", {"c1": ["mira", "forge"], "c2": ["halden", "mill"]})
    return store


# ----------------------------------------------------------------------------- chunks


def test_chunks_round_trip(world: GraphStore, tenant: str) -> None:
    assert world.count_chunks(tenant) == 3
    assert ids(world.get_chunks(tenant, ["c3", "nope", "c1"])) == ["c3", "c1"]
    assert world.get_chunks(tenant, ["c2"])[0].attributes == {"title": "Mill"}


def test_replacing_a_chunk_keeps_created_at_and_mentions(world: GraphStore, tenant: str) -> None:
    before = world.get_chunks(tenant, ["c1"])[0]
    [after] = world.upsert_chunks(tenant, [chunk("c1", "Mira sharpens blades.")])
    assert after.created_at == before.created_at
    assert after.text == "Mira sharpens blades."
    assert world.get_mentions(tenant, "chunk", ["c1"]) == {"c1": ["forge", "mira"]}


def test_delete_chunks_removes_mentions_and_embeddings(world: GraphStore, tenant: str) -> None:
    world.put_embeddings(tenant, "chunk", ["c1", "c2"], [[1, 0], [0, 1]])
    assert world.delete_chunks(tenant, ["c1", "missing"]) == 1
    assert world.count_chunks(tenant) == 2
    assert world.get_mentions(tenant, "chunk", ["c1"]) == {}
    assert world.find_mentioning(tenant, "chunk", ["mira"]) == {}
    assert world.count_embeddings(tenant, "chunk") == 1
    assert [h.id for h in world.vector_search(tenant, "chunk", [1, 0], 5)] == ["c2"]


# ----------------------------------------------------------------------------- mentions


def test_mentions_both_ways(world: GraphStore, tenant: str) -> None:
    assert world.get_mentions(tenant, "chunk", ["c1", "c2", "c3"]) == {
        "c1": ["forge", "mira"],
        "c2": ["halden", "mill"],
    }
    assert world.find_mentioning(tenant, "chunk", ["mira", "halden", "nobody"]) == {
        "mira": ["c1"],
        "halden": ["c2"],
    }


def test_link_mentions_replaces(world: GraphStore, tenant: str) -> None:
    assert world.link_mentions(tenant, "chunk", {"c1": ["halden"]}) == 1
    assert world.get_mentions(tenant, "chunk", ["c1"]) == {"c1": ["halden"]}
    assert world.find_mentioning(tenant, "chunk", ["mira"]) == {}
    world.link_mentions(tenant, "chunk", {"c1": []})
    assert world.get_mentions(tenant, "chunk", ["c1"]) == {}


def test_find_mentioning_limit(world: GraphStore, tenant: str) -> None:
    world.link_mentions(tenant, "chunk", {"c3": ["mira"]})
    assert world.find_mentioning(tenant, "chunk", ["mira"], limit=1) == {"mira": ["c1"]}


def test_turns_mention_entities(world: GraphStore, tenant: str) -> None:
    turn = world.append_turn(tenant, Turn(session_id="s", role="player", content="Mira?"))
    world.link_mentions(tenant, "turn", {turn.id: ["mira"]})
    assert world.find_mentioning(tenant, "turn", ["mira"]) == {"mira": [turn.id]}
    world.delete_turn(tenant, turn.id)
    assert world.find_mentioning(tenant, "turn", ["mira"]) == {}


def test_deleting_an_entity_removes_its_mentions(world: GraphStore, tenant: str) -> None:
    world.delete_entities(tenant, ["mira"])
    assert world.get_mentions(tenant, "chunk", ["c1"]) == {"c1": ["forge"]}


def test_mentions_of_unknown_nodes_write_nothing(world: GraphStore, tenant: str) -> None:
    with pytest.raises(InvalidInput, match="ghost"):
        world.link_mentions(tenant, "chunk", {"c3": ["mira"], "c1": ["ghost"]})
    with pytest.raises(InvalidInput, match="c9"):
        world.link_mentions(tenant, "chunk", {"c9": ["mira"]})
    with pytest.raises(InvalidInput):
        world.link_mentions(tenant, "entity", {"mira": ["forge"]})  # type: ignore[arg-type]
    assert world.get_mentions(tenant, "chunk", ["c3"]) == {}


def test_dump_and_load_carry_chunks_and_mentions(
    world: GraphStore, tenant: str, new_tenant: Callable[[], str]
) -> None:
    dump = world.dump(tenant)
    assert ids(dump.chunks) == ["c1", "c2", "c3"]
    assert ("chunk", "c1", "mira") in dump.mentions
    copy = new_tenant()
    world.load(copy, dump)
    assert canonical(world.dump(copy)) == canonical(dump)
    assert sorted(world.dump(copy).mentions) == sorted(dump.mentions)


# ----------------------------------------------------------------------------- vectors


def test_vector_search_is_exact_cosine(world: GraphStore, tenant: str) -> None:
    world.put_embeddings(tenant, "entity", ["mira", "forge", "halden"], [[1, 0], [1, 1], [0, 2]])
    hits = world.vector_search(tenant, "entity", [3, 0.1], 2)
    assert [h.id for h in hits] == ["mira", "forge"]
    assert hits[0].score == pytest.approx(3 / np.hypot(3, 0.1), rel=1e-5)
    assert world.embedding_dimension(tenant, "entity") == 2
    assert world.count_embeddings(tenant, "entity") == 3


def test_vector_search_replaces_and_scopes(world: GraphStore, tenant: str) -> None:
    world.put_embeddings(tenant, "chunk", ["c1", "c2", "c3"], [[1, 0], [0.9, 0.1], [0, 1]])
    world.put_embeddings(tenant, "chunk", ["c1"], [[0, 1]])  # replaced
    assert [h.id for h in world.vector_search(tenant, "chunk", [1, 0], 1)] == ["c2"]
    scoped = world.vector_search(tenant, "chunk", [0, 1], 5, scope_ids=["halden"])
    assert [h.id for h in scoped] == ["c2"]
    world.put_embeddings(tenant, "entity", ["mira", "forge"], [[1, 0], [1, 0.1]])
    scoped = world.vector_search(tenant, "entity", [1, 0], 5, scope_ids=["forge", "ghost"])
    assert [h.id for h in scoped] == ["forge"]


def test_empty_index_finds_nothing(world: GraphStore, tenant: str) -> None:
    assert world.vector_search(tenant, "turn", [1.0, 2.0], 3) == []
    assert world.embedding_dimension(tenant, "turn") is None


@pytest.mark.parametrize(
    "vectors",
    [[[1, 0, 0]], [[float("nan"), 1]], [[float("inf"), 1]], [[0, 0]], [[1, 0], [0, 1]], "x"],
    ids=["dimension", "nan", "inf", "zero", "count", "text"],
)
def test_bad_embeddings_write_nothing(world: GraphStore, tenant: str, vectors: object) -> None:
    world.put_embeddings(tenant, "entity", ["mira"], [[1, 0]])
    with pytest.raises(InvalidInput):
        world.put_embeddings(tenant, "entity", ["forge"], vectors)
    assert world.count_embeddings(tenant, "entity") == 1


def test_embeddings_of_unknown_nodes_write_nothing(world: GraphStore, tenant: str) -> None:
    with pytest.raises(InvalidInput, match="ghost"):
        world.put_embeddings(tenant, "entity", ["mira", "ghost"], [[1, 0], [0, 1]])
    assert world.count_embeddings(tenant, "entity") == 0


@pytest.mark.parametrize("k", [0, -1])
def test_k_must_be_positive(world: GraphStore, tenant: str, k: int) -> None:
    with pytest.raises(InvalidInput):
        world.vector_search(tenant, "entity", [1, 0], k)
    with pytest.raises(InvalidInput):
        world.fulltext_search(tenant, "entity", "mira", k)


def test_query_vector_of_the_wrong_dimension(world: GraphStore, tenant: str) -> None:
    world.put_embeddings(tenant, "entity", ["mira"], [[1, 0]])
    with pytest.raises(InvalidInput, match="dimension"):
        world.vector_search(tenant, "entity", [1, 0, 0], 3)
    with pytest.raises(InvalidInput):
        world.vector_search(tenant, "entity", [float("nan"), 0], 3)


def test_unknown_kind(world: GraphStore, tenant: str) -> None:
    with pytest.raises(InvalidInput):
        world.vector_search(tenant, "rumour", [1, 0], 3)  # type: ignore[arg-type]


def test_embeddings_are_per_tenant(
    world: GraphStore, tenant: str, new_tenant: Callable[[], str]
) -> None:
    world.put_embeddings(tenant, "entity", ["mira"], [[1, 0]])
    other = new_tenant()
    world.upsert_entities(other, [ent("mira")])
    assert world.vector_search(other, "entity", [1, 0, 0], 3) == []
    world.put_embeddings(other, "entity", ["mira"], [[1, 0, 0]])  # its own dimension
    assert [h.id for h in world.vector_search(tenant, "entity", [1, 0], 3)] == ["mira"]


def test_deleting_entities_and_clear_drop_vectors(world: GraphStore, tenant: str) -> None:
    world.put_embeddings(tenant, "entity", ["mira", "forge"], [[1, 0], [0, 1]])
    world.delete_entities(tenant, ["mira"])
    assert [h.id for h in world.vector_search(tenant, "entity", [1, 0], 3)] == ["forge"]
    world.clear(tenant)
    assert world.vector_search(tenant, "entity", [1, 0], 3) == []


def test_many_vectors_grow_and_shrink(store: GraphStore, tenant: str) -> None:
    rng = np.random.default_rng(1)
    store.upsert_entities(tenant, [ent(f"e{i}") for i in range(300)])
    vectors = rng.normal(size=(300, 16)).astype(np.float32)
    for start in range(0, 300, 70):
        names = [f"e{i}" for i in range(start, min(300, start + 70))]
        store.put_embeddings(tenant, "entity", names, vectors[start : start + 70])
    store.delete_entities(tenant, [f"e{i}" for i in range(0, 300, 3)])
    query = rng.normal(size=16)
    keep = [i for i in range(300) if i % 3]
    unit_rows = vectors[keep] / np.linalg.norm(vectors[keep], axis=1, keepdims=True)
    expected = [f"e{keep[i]}" for i in np.argsort(-(unit_rows @ query))[:10]]
    assert [h.id for h in store.vector_search(tenant, "entity", query, 10)] == expected


# ----------------------------------------------------------------------------- full text


def test_fulltext_finds_words_and_titles(world: GraphStore, tenant: str) -> None:
    assert world.fulltext_search(tenant, "chunk", "flour", 3)[0].id == "c2"
    assert world.fulltext_search(tenant, "chunk", "mill", 3)[0].id == "c2"  # the title
    assert world.fulltext_search(tenant, "chunk", "floods", 3)[0].id == "c3"  # stemmed
    assert world.fulltext_search(tenant, "chunk", "dragons", 3) == []


def test_fulltext_over_entities_names_and_aliases(world: GraphStore, tenant: str) -> None:
    assert world.fulltext_search(tenant, "entity", "smith", 3)[0].id == "mira"
    assert world.fulltext_search(tenant, "entity", "crook", 3)[0].id == "halden"


def test_fulltext_follows_changes(world: GraphStore, tenant: str) -> None:
    assert world.fulltext_search(tenant, "chunk", "bell", 3)[0].id == "c3"
    world.upsert_chunks(tenant, [chunk("c3", "Nothing rings here.")])
    assert world.fulltext_search(tenant, "chunk", "bell", 3) == []
    world.update_entity(tenant, "forge", name="The Anvil")
    assert world.fulltext_search(tenant, "entity", "anvil", 3)[0].id == "forge"
    world.delete_entities(tenant, ["forge"])
    assert world.fulltext_search(tenant, "entity", "anvil", 3) == []
    turn = world.append_turn(tenant, Turn(session_id="s", role="gm", content="A wyvern lands."))
    assert world.fulltext_search(tenant, "turn", "wyvern", 3)[0].id == turn.id


@pytest.mark.parametrize(
    "query",
    ['"', '"flour', "flour AND", "NEAR(flour sack)", "flour*", "^flour", "body:flour", "-(", "'"],
)
def test_fulltext_operators_are_literal(world: GraphStore, tenant: str, query: str) -> None:
    hits = world.fulltext_search(tenant, "chunk", query, 3)
    if "flour" in query:
        assert hits[0].id == "c2"


def test_fulltext_scope(world: GraphStore, tenant: str) -> None:
    assert (
        world.fulltext_search(tenant, "chunk", "mira halden", 5, scope_ids=["mira"])[0].id == "c1"
    )
    assert world.fulltext_search(tenant, "chunk", "flour", 5, scope_ids=["mira"]) == []


def test_fulltext_is_per_tenant(
    world: GraphStore, tenant: str, new_tenant: Callable[[], str]
) -> None:
    assert world.fulltext_search(new_tenant(), "chunk", "flour", 3) == []


# ----------------------------------------------------------------------------- expand


def test_expand_walks_from_many_seeds(world: GraphStore, tenant: str) -> None:
    sub = world.expand(tenant, ["forge"], depth=2)
    assert ids(sub.entities) == ["forge", "mira", "halden"]
    assert keys(sub.relationships) == [
        ("halden", "mira", "knows"),
        ("mira", "forge", "works_at"),
    ]
    assert ids(world.expand(tenant, ["forge", "mill"], depth=0).entities) == ["forge", "mill"]


def test_expand_types_direction_and_scope(world: GraphStore, tenant: str) -> None:
    assert ids(world.expand(tenant, ["halden"], rel_types=["runs"]).entities) == ["halden", "mill"]
    assert ids(world.expand(tenant, ["mira"], direction="out").entities) == ["mira", "forge"]
    within = world.expand(tenant, ["halden"], depth=3, within=["mira", "forge"])
    assert ids(within.entities) == ["halden", "mira", "forge"]
    assert len(world.expand(tenant, ["halden"], depth=3, max_nodes=2).entities) == 2


def test_expand_unknown_seed(world: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound):
        world.expand(tenant, ["ghost"])
    with pytest.raises(InvalidInput):
        world.expand(tenant, ["mira"], depth=-1)


# ----------------------------------------------------------------------------- persistence


def test_reopen_keeps_chunks_mentions_and_vectors(
    world: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    world.put_embeddings(tenant, "chunk", ["c1", "c2"], [[0.25, 1.5], [1, 0]])
    world.put_embeddings(tenant, "entity", ["mira"], [[1, 2, 3]])
    before = world.vector_search(tenant, "chunk", [0.1, 1], 2)
    store = reopen()
    assert store.count_chunks(tenant) == 3
    assert store.get_mentions(tenant, "chunk", ["c1"]) == {"c1": ["forge", "mira"]}
    assert store.vector_search(tenant, "chunk", [0.1, 1], 2) == before
    assert store.embedding_dimension(tenant, "entity") == 3
    assert store.fulltext_search(tenant, "chunk", "flour", 1)[0].id == "c2"
