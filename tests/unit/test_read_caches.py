"""Caches of the embedded backend's read paths: each write they depend on empties them."""

from __future__ import annotations

import pytest

from graphmem.core.models import Chunk, Entity
from graphmem.core.store import GraphStore, open_store
from graphmem.retrieval.steps import _graph_contenders


def _store_with_mentions() -> GraphStore:
    store = open_store("memory://")
    store.upsert_entities("t", [Entity(id=e, type="place", name=e) for e in ("mill", "ford")])
    store.upsert_chunks("t", [Chunk(id=c, text=f"text {c}") for c in ("c3", "c1", "c2")])
    store.link_mentions("t", "chunk", {"c3": ["mill"], "c1": ["mill", "ford"]})
    return store


def test_find_mentioning_sees_every_write_after_a_read() -> None:
    store = _store_with_mentions()
    assert store.find_mentioning("t", "chunk", ["mill", "ford"]) == {
        "mill": ["c1", "c3"],
        "ford": ["c1"],
    }
    store.link_mentions("t", "chunk", {"c2": ["mill"]})  # a new mention
    assert store.find_mentioning("t", "chunk", ["mill"]) == {"mill": ["c1", "c2", "c3"]}
    store.link_mentions("t", "chunk", {"c1": ["ford"]})  # replaced: c1 no longer names mill
    assert store.find_mentioning("t", "chunk", ["mill"], limit=2) == {"mill": ["c2", "c3"]}
    store.delete_chunks("t", ["c3"])
    assert store.find_mentioning("t", "chunk", ["ford", "mill"]) == {
        "ford": ["c1"],
        "mill": ["c2"],
    }
    store.delete_entities("t", ["ford"])
    assert store.find_mentioning("t", "chunk", ["ford", "mill"]) == {"mill": ["c2"]}
    assert store.get_mentions("t", "chunk", ["c1"]) == {}


def test_changing_a_returned_list_does_not_change_the_store() -> None:
    store = _store_with_mentions()
    store.find_mentioning("t", "chunk", ["mill"])["mill"].append("bogus")
    assert store.find_mentioning("t", "chunk", ["mill"]) == {"mill": ["c1", "c3"]}


def test_graph_contenders_keep_every_node_tied_with_the_kth() -> None:
    scores = {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0, "e": 0.5}
    assert sorted(_graph_contenders(scores, 2)) == ["a", "b", "c"]
    assert sorted(_graph_contenders(scores, 4)) == ["a", "b", "c", "d"]
    assert _graph_contenders(scores, 9) is scores


def test_full_text_scores_are_those_of_the_live_texts_after_many_rewrites() -> None:
    live, fresh = open_store("memory://"), open_store("memory://")
    final = {f"c{i}": f"mill{i % 7} wheel{i % 3} river" for i in range(150)}
    for round_ in range(3):  # every chunk rewritten twice: more dead documents than live
        texts = final if round_ == 2 else {c: f"draft{round_} {c} river" for c in final}
        live.upsert_chunks("t", [Chunk(id=c, text=t) for c, t in texts.items()])
        live.fulltext_search("t", "chunk", "river", 5)
    fresh.upsert_chunks("t", [Chunk(id=c, text=t) for c, t in final.items()])
    for query in ("mill3 wheel1", "river", "wheel2 mill0"):
        got = live.fulltext_search("t", "chunk", query, 10)
        want = fresh.fulltext_search("t", "chunk", query, 10)
        assert [h.id for h in got] == [h.id for h in want]
        assert [h.score for h in got] == pytest.approx([h.score for h in want])
