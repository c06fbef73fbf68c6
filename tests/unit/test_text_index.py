"""The embedded full-text index (tantivy): exact BM25, stemming, batched writes, scopes."""

from __future__ import annotations

import math

import pytest

from graphmem.backends.networkx.indexes import TextIndex, query_terms


def _index(texts: dict[str, str]) -> TextIndex:
    index = TextIndex()
    for node, text in texts.items():
        index.set(node, text)
    return index


def _bm25(tf: int, df: int, docs: int, length: int, mean_length: float) -> float:
    """Lucene's BM25 (k1 1.2, b 0.75), which tantivy implements."""
    idf = math.log(1 + (docs - df + 0.5) / (df + 0.5))
    return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / mean_length))


def test_every_query_word_counts_and_documents_need_not_hold_them_all() -> None:
    index = _index({"a": "alpha river", "b": "common stone", "c": "common wall"})
    found = {node for node, _score in index.search("alpha common", 10)}
    assert found == {"a", "b", "c"}


def test_scores_are_lucene_bm25_over_the_whole_index() -> None:
    texts = {"a": "mill mill wheel", "b": "mill", "c": "river bank stones", "d": "wheel"}
    hits = dict(_index(texts).search("mill", 10))
    mean = (3 + 1 + 3 + 1) / 4
    assert hits["a"] == pytest.approx(_bm25(2, 2, 4, 3, mean), rel=1e-5)
    assert hits["b"] == pytest.approx(_bm25(1, 2, 4, 1, mean), rel=1e-5)
    assert set(hits) == {"a", "b"}


def test_a_word_in_every_document_still_counts_on_a_large_index() -> None:
    texts = {f"f{i}": f"common filler{i}" for i in range(2_500)}
    texts["a1"] = "alpha common"
    texts["a2"] = "alpha other"  # same length as a1
    hits = _index(texts).search("alpha common", 3)
    # exact BM25: the common word adds a little, so the document holding both comes first
    assert [node for node, _score in hits[:2]] == ["a1", "a2"]
    assert hits[0][1] > hits[1][1] > hits[2][1] > 0


def test_query_words_are_stemmed_and_split_as_documents_are() -> None:
    index = _index({"a": "running water mill", "b": "the river_bank stones", "c": "Bogotá"})
    found = {node for node, _s in index.search("runs riverbank bank BOGOTA", 10)}
    assert found == {"a", "b", "c"}
    assert query_terms("the river_bank") == ["river", "bank"]
    assert query_terms("the of") == ["the", "of"]  # only common words: they are kept


def test_operators_and_quotes_are_plain_words() -> None:
    index = _index({"a": "near the forge", "b": "owns a boat"})
    assert {n for n, _s in index.search('who owns "the Forge" NEAR(x) OR *', 10)} == {"a", "b"}
    assert index.search('"" * ^ :', 10) == []


def test_writes_replace_and_remove_and_are_seen_by_the_next_search() -> None:
    index = _index({"a": "alpha", "b": "beta"})
    assert [n for n, _s in index.search("alpha", 10)] == ["a"]
    index.set("a", "gamma")
    index.set("c", "alpha again")
    index.remove("b")
    assert [n for n, _s in index.search("alpha", 10)] == ["c"]
    assert [n for n, _s in index.search("gamma", 10)] == ["a"]
    assert index.search("beta", 10) == []
    index.remove("missing")  # removing what is not there is a no-op
    index.drop()
    assert index.search("alpha gamma", 10) == []


def test_candidates_scope_the_search_without_changing_scores() -> None:
    index = _index({"a": "mill wheel", "b": "mill", "c": "mill river", "d": "river"})
    everything = dict(index.search("mill", 10))
    scoped = index.search("mill", 10, candidates=["b", "d", "zzz"])
    assert [n for n, _s in scoped] == ["b"]
    assert scoped[0][1] == pytest.approx(everything["b"])
    assert index.search("mill", 10, candidates=[]) == []
    assert index.search("mill", 10, candidates=["zzz"]) == []


def test_ties_come_in_write_order_and_k_cuts() -> None:
    index = _index({f"n{i}": "same words here" for i in range(20)})
    hits = index.search("words", 5)
    assert [n for n, _s in hits] == [f"n{i}" for i in range(5)]
    assert len({s for _n, s in hits}) == 1
    assert len(index.search("words", 10**15)) == 20  # a huge k is cut to what is held


def test_a_failed_commit_keeps_the_queued_changes() -> None:
    index = _index({"a": "alpha"})
    index.search("alpha", 1)
    index.set("b", "alpha beta")
    real = index._index

    class Broken:
        def writer(self, *args: object) -> object:
            raise RuntimeError("disk on fire")

    index._index = Broken()
    with pytest.raises(RuntimeError):
        index.search("beta", 10)
    index._index = real
    assert [n for n, _s in index.search("beta", 10)] == ["b"]


def test_a_failure_after_the_writer_opened_leaves_the_index_usable(monkeypatch) -> None:
    import graphmem.backends.networkx.indexes as indexes

    index = _index({"a": "alpha"})
    index.search("alpha", 1)
    index.set("b", "alpha beta")
    real = indexes._engine
    tantivy, schema, analyzer = real()

    class Interrupted:  # tantivy, except that making a document fails (the writer is open)
        def __getattr__(self, name: str) -> object:
            return getattr(tantivy, name)

        def Document(self) -> object:  # noqa: N802 - tantivy's name
            raise RuntimeError("interrupted")

    monkeypatch.setattr(indexes, "_engine", lambda: (Interrupted(), schema, analyzer))
    kept = []
    try:
        index.search("beta", 10)
    except RuntimeError as error:
        kept.append(error)  # a caller keeping the traceback must not keep the writer's lock
    assert kept
    monkeypatch.setattr(indexes, "_engine", real)
    assert [n for n, _s in index.search("beta", 10)] == ["b"]
    assert [n for n, _s in index.search("alpha", 10)] == ["a", "b"]


def test_text_that_is_not_valid_unicode_is_indexed_and_later_searches_work() -> None:
    index = _index({"a": "bad \ud800 surrogate mill", "b": "river"})
    assert [n for n, _s in index.search("mill", 10)] == ["a"]
    assert [n for n, _s in index.search("river", 10)] == ["b"]


def test_a_tie_at_the_kth_place_is_settled_by_write_order_across_segments() -> None:
    index = TextIndex()
    for i in range(30):  # one commit, so one segment, per write
        index.set(f"n{i}", "same words here")
        index.search("words", 1)
    index.set("n7", "other text")
    index.search("words", 1)
    index.set("n7", "same words here")  # rewritten: n7 now comes after every other node
    for k in (1, 3, 7, 29):
        want = [f"n{i}" for i in range(30) if i != 7][:k]
        assert [n for n, _s in index.search("words", k)] == want


def test_writing_the_same_text_again_leaves_no_dead_document() -> None:
    index = _index({"a": "mill wheel", "b": "river"})
    before = index.search("mill", 10)
    for _ in range(5):
        index.set("a", "mill wheel")
        index.search("mill", 10)
    assert index._dead == 0 and not index.wasteful()
    assert index.search("mill", 10) == before


def test_long_words_up_to_lucenes_limit_are_found() -> None:
    word = "donaudampfschifffahrtsgesellschaftskapitän" * 5  # 215 bytes
    index = _index({"de": f"der {word}", "x": "x" * 300})
    assert [n for n, _s in index.search(word, 10)] == ["de"]
