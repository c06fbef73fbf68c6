"""search_scoped: several scoped hybrid searches (and their hits read) in one call.

The contract is that each answer equals ``hybrid_search`` of the same search, and that
``read`` gives the chunk and turn hits as ``get_chunks`` / ``get_turns`` would.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphmem import GraphStore, IdentityRequired, InvalidInput
from graphmem.core.store import ScopedHits, ScopedSearch

from .test_hybrid_search import same, world  # noqa: F401 - the fixture is used by name


def _searches() -> list[ScopedSearch]:
    rng = np.random.default_rng(11)
    return [
        ScopedSearch(["chunk"], rng.standard_normal(8), "forge bell", 5, ["e1", "e2", "e7"]),
        ScopedSearch(["chunk", "turn"], None, "river ferry", 3, ["e3"]),
        ScopedSearch(["entity", "chunk"], rng.standard_normal(8), None, 4, ["e0", "e5"]),
        ScopedSearch(["chunk"], rng.standard_normal(8), "market", 50, ["e4", "e4", "nobody"]),
    ]


def test_each_answer_equals_its_hybrid_search(world: GraphStore, tenant: str) -> None:  # noqa: F811
    searches = _searches()
    got = world.search_scoped(tenant, searches)
    assert isinstance(got, ScopedHits)
    assert len(got.hits) == len(searches)
    assert got.chunks == [] and got.turns == []
    for search, answer in zip(searches, got.hits, strict=True):
        expected = world.hybrid_search(
            tenant,
            search.kinds,
            vector=search.vector,
            text=search.text,
            k=search.k,
            scope_ids=search.scope_ids,
        )
        assert list(answer) == list(expected)
        for kind in expected:
            assert same(answer[kind], expected[kind]), (search, kind)
    assert got.hits[0]["chunk"].vector and got.hits[0]["chunk"].text


def test_read_gives_the_hits_as_get_chunks_would(world: GraphStore, tenant: str) -> None:  # noqa: F811
    got = world.search_scoped(tenant, _searches(), read=True)
    ids = sorted(
        {
            h.id
            for answer in got.hits
            for pair in [answer.get("chunk")]
            if pair is not None
            for h in (*pair.vector, *pair.text)
        }
    )
    assert ids, "the searches must hit some chunks"
    assert got.chunks == world.get_chunks(tenant, ids)
    assert got.turns == []


def test_no_searches_find_nothing(world: GraphStore, tenant: str) -> None:  # noqa: F811
    assert world.search_scoped(tenant, [], read=True) == ScopedHits()


@pytest.mark.parametrize(
    "search",
    [
        ScopedSearch(["chunk"], None, None, 3, ["e1"]),
        ScopedSearch([], None, "forge", 3, ["e1"]),
        ScopedSearch(["chunk"], None, "forge", 0, ["e1"]),
        ScopedSearch(["chunk"], [1.0, 2.0, 3.0], None, 3, ["e1"]),
        ScopedSearch(["chunk"], None, "forge", 3, None),  # type: ignore[arg-type]
        ScopedSearch(["chunk"], None, "forge", 3, [""]),
        "forge",
    ],
    ids=[
        "neither side",
        "no kinds",
        "k zero",
        "wrong dimension",
        "no scope",
        "empty id",
        "not a search",
    ],
)
def test_bad_searches_are_invalid_input(
    world: GraphStore,  # noqa: F811
    tenant: str,
    search: object,
) -> None:
    with pytest.raises(InvalidInput):
        world.search_scoped(tenant, [search])  # type: ignore[list-item]


def test_empty_tenant_fails_closed(world: GraphStore) -> None:  # noqa: F811
    with pytest.raises(IdentityRequired):
        world.search_scoped("", _searches())
