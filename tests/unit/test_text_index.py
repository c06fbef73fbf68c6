"""The embedded full-text index: common-term pruning on large indexes, and its df cache."""

from __future__ import annotations

import sqlite3

from graphmem.backends.networkx.indexes import TextIndex


def _index(texts: dict[str, str]) -> TextIndex:
    index = TextIndex(sqlite3.connect(":memory:"), "fts_test")
    for node, text in texts.items():
        index.set(node, text)
    return index


def test_small_index_keeps_every_query_word() -> None:
    index = _index({"a": "alpha river", "b": "common stone", "c": "common wall"})
    found = {node for node, _score in index.search("alpha common", 10)}
    assert found == {"a", "b", "c"}


def test_large_index_leaves_out_terms_found_in_most_documents() -> None:
    texts = {f"f{i}": f"common filler{i}" for i in range(2_500)}
    texts["a1"] = "alpha common"
    index = _index(texts)
    hits = index.search("alpha common", 10)
    # "common" is in every document: it is dropped, so only the rare word's match remains
    assert [node for node, _score in hits] == ["a1"]


def test_a_term_that_becomes_common_is_pruned_after_the_write() -> None:
    texts = {f"f{i}": f"filler{i}" for i in range(2_400)}
    texts.update({"a1": "alpha", "z1": "zeta"})
    index = _index(texts)
    assert {node for node, _s in index.search("alpha zeta", 10)} == {"a1", "z1"}
    for i in range(1_000):  # zeta now in more than a fifth of the documents
        index.set(f"z{i + 2}", f"zeta extra{i}")
    assert [node for node, _s in index.search("alpha zeta", 10)] == ["a1"]
    for i in range(1_000):  # and rare again once those documents are gone
        index.remove(f"z{i + 2}")
    assert {node for node, _s in index.search("alpha zeta", 10)} == {"a1", "z1"}
