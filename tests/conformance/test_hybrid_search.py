"""hybrid_search: vector and full-text search of several kinds in one call, every backend.

The contract is that each kind's answer equals the separate ``vector_search`` and
``fulltext_search`` calls with the same arguments.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphmem import Chunk, GraphStore, IdentityRequired, InvalidInput, SearchPair, Turn

from .helpers import ent


@pytest.fixture
def world(store: GraphStore, tenant: str) -> GraphStore:
    rng = np.random.default_rng(3)
    store.upsert_entities(
        tenant, [ent(f"e{i}", name=f"Smith {i}", aliases=[f"forge {i}"]) for i in range(12)]
    )
    words = ["forge", "river", "bell", "mill", "flour", "blade", "ferry", "market"]
    chunks = [
        Chunk(id=f"c{i}", text=" ".join(rng.choice(words, size=6)), attributes={})
        for i in range(40)
    ]
    store.upsert_chunks(tenant, chunks)
    store.link_mentions(tenant, "chunk", {f"c{i}": [f"e{i % 12}"] for i in range(40)})
    store.append_turn(tenant, Turn(id="t1", session_id="s", role="user", content="the forge bell"))
    store.append_turn(tenant, Turn(id="t2", session_id="s", role="npc", content="river ferry"))
    store.put_embeddings(tenant, "chunk", [c.id for c in chunks], rng.standard_normal((40, 8)))
    store.put_embeddings(
        tenant, "entity", [f"e{i}" for i in range(12)], rng.standard_normal((12, 8))
    )
    store.put_embeddings(tenant, "turn", ["t1", "t2"], rng.standard_normal((2, 8)))
    return store


def separately(
    store: GraphStore,
    tenant: str,
    kind: str,
    vector: object,
    text: str | None,
    k: int,
    scope: list[str] | None = None,
) -> SearchPair:
    return SearchPair(
        store.vector_search(tenant, kind, vector, k, scope_ids=scope) if vector is not None else [],  # type: ignore[arg-type]
        store.fulltext_search(tenant, kind, text, k, scope_ids=scope) if text is not None else [],  # type: ignore[arg-type]
    )


def same(a: SearchPair, b: SearchPair) -> bool:
    def rounded(hits: list) -> list:  # type: ignore[type-arg]
        return [(h.id, round(h.score, 5)) for h in hits]

    return rounded(a.vector) == rounded(b.vector) and rounded(a.text) == rounded(b.text)


@pytest.mark.parametrize("scope", [None, ["e1", "e2", "e7"]])
@pytest.mark.parametrize("sides", ["both", "vector", "text"])
def test_equals_the_separate_searches(
    world: GraphStore, tenant: str, scope: list[str] | None, sides: str
) -> None:
    vector = np.random.default_rng(9).standard_normal(8) if sides != "text" else None
    text = "forge bell river" if sides != "vector" else None
    kinds = ["entity", "turn", "chunk"]
    got = world.hybrid_search(tenant, kinds, vector=vector, text=text, k=7, scope_ids=scope)
    assert list(got) == kinds
    for kind in kinds:
        assert same(got[kind], separately(world, tenant, kind, vector, text, 7, scope)), kind
    if sides != "text":
        assert got["chunk"].vector, "the chunk index has vectors: the search must find some"
    if sides != "vector":
        assert got["chunk"].text, "chunks hold these words: the search must find some"


def test_kinds_asked_twice_answer_once(world: GraphStore, tenant: str) -> None:
    got = world.hybrid_search(tenant, ["chunk", "chunk"], vector=None, text="mill", k=3)
    assert list(got) == ["chunk"]


def test_an_empty_tenant_finds_nothing(store: GraphStore, tenant: str) -> None:
    got = store.hybrid_search(tenant, ["chunk", "entity"], vector=[1.0, 0.0], text="x", k=3)
    assert got == {"chunk": SearchPair([], []), "entity": SearchPair([], [])}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kinds": ["chunk"], "vector": None, "text": None, "k": 3},
        {"kinds": [], "vector": None, "text": "forge", "k": 3},
        {"kinds": "chunk", "vector": None, "text": "forge", "k": 3},
        {"kinds": ["chunk", "relationship"], "vector": None, "text": "forge", "k": 3},
        {"kinds": ["chunk"], "vector": None, "text": "forge", "k": 0},
        {"kinds": ["chunk"], "vector": None, "text": 42, "k": 3},
        {"kinds": ["chunk"], "vector": [1.0, 2.0, 3.0], "text": None, "k": 3},
        {"kinds": ["chunk"], "vector": [float("nan")] * 8, "text": None, "k": 3},
        {"kinds": ["chunk"], "vector": [0.0] * 8, "text": "forge", "k": 3},
    ],
    ids=[
        "neither side",
        "no kinds",
        "bare kind",
        "unknown kind",
        "k zero",
        "text not a string",
        "wrong dimension",
        "nan",
        "zero vector",
    ],
)
def test_bad_requests_are_invalid_input(
    world: GraphStore, tenant: str, kwargs: dict[str, object]
) -> None:
    with pytest.raises(InvalidInput):
        world.hybrid_search(tenant, **kwargs)  # type: ignore[arg-type]


def test_empty_tenant_fails_closed(world: GraphStore) -> None:
    with pytest.raises(IdentityRequired):
        world.hybrid_search("", ["chunk"], vector=None, text="forge", k=3)
