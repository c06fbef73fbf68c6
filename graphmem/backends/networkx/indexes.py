"""The search indexes of the embedded backend: exact vector search and tantivy full text.

``VectorIndex`` keeps one contiguous float32 matrix per (tenant, kind), rows unit-length,
with an id <-> row map. Inserts grow the matrix geometrically (amortised O(1) per row),
deletes move the last row into the hole (O(1)), so the live rows are always
``matrix[:size]`` and a search is one matrix-vector product plus ``argpartition``: the
same work as hand-written numpy brute force, with no Python loop over vectors.

``TextIndex`` is a tantivy index in memory (the Rust full-text engine behind Quickwit,
through its maintained Python binding): Lucene's BM25, exact, with block-max WAND so a
top-k query of common words does not score every matching document. It is rebuilt from
the stored nodes when a store is opened, so it is never journaled; changes are queued and
committed in one batch before the next search, which keeps bulk ingest fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from graphmem.backends.search import as_matrix, query_words

__all__ = ["TextIndex", "VectorIndex", "as_matrix", "query_terms", "query_words"]

_MIN_CAPACITY = 64
_ANALYZER = "graphmem"  # the name the text analyzer is registered under in each index
_WRITER_HEAP = 15_000_000  # tantivy's smallest writer arena; a writer lives for one commit


class VectorIndex:
    """Unit vectors of one kind of node, searched exactly by cosine similarity."""

    __slots__ = ("dimension", "ids", "matrix", "rows")

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.matrix: NDArray[np.float32] = np.empty((_MIN_CAPACITY, dimension), np.float32)
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def put(self, ids: Sequence[str], matrix: NDArray[np.float32]) -> None:
        """Store unit rows (already checked); a known id's row is overwritten in place."""
        rows = self.rows
        new = [i for i, node in enumerate(ids) if node not in rows]
        need = len(self.ids) + len(new)
        if need > self.matrix.shape[0]:
            capacity = max(need, self.matrix.shape[0] * 2)
            grown = np.empty((capacity, self.dimension), np.float32)
            grown[: len(self.ids)] = self.matrix[: len(self.ids)]
            self.matrix = grown
        for i, node in enumerate(ids):
            row = rows.get(node)
            if row is None:
                row = rows[node] = len(self.ids)
                self.ids.append(node)
            self.matrix[row] = matrix[i]

    def remove(self, ids: Iterable[str]) -> None:
        """Drop rows; the last row moves into each hole so the live rows stay contiguous."""
        rows = self.rows
        for node in ids:
            row = rows.pop(node, None)
            if row is None:
                continue
            last = len(self.ids) - 1
            if row != last:
                moved = self.ids[last]
                self.matrix[row] = self.matrix[last]
                self.ids[row] = moved
                rows[moved] = row
            self.ids.pop()

    def vectors(self, ids: Sequence[str]) -> tuple[list[str], NDArray[np.float32]]:
        """The stored unit vectors of the ids that have one, in the order asked."""
        found = [node for node in ids if node in self.rows]
        return found, self.matrix[[self.rows[n] for n in found]]

    def search(
        self, query: NDArray[np.float32], k: int, candidates: Iterable[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` best (id, cosine) among all rows, or among ``candidates`` when given."""
        size = len(self.ids)
        if candidates is None:
            scores = self.matrix[:size] @ query
            pick = None
        else:
            pick = np.fromiter((self.rows[c] for c in candidates if c in self.rows), dtype=np.intp)
            scores = self.matrix[pick] @ query
        n = scores.shape[0]
        if n == 0:
            return []
        top = np.argpartition(scores, n - k)[n - k :] if k < n else np.arange(n)
        top = top[np.argsort(-scores[top], kind="stable")]
        ids = self.ids
        if pick is not None:
            return [(ids[pick[i]], float(scores[i])) for i in top]
        return [(ids[i], float(scores[i])) for i in top]


@cache
def _engine() -> tuple[Any, Any, Any]:
    """tantivy, the schema and the text analyzer, made once (imported on first use)."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("rowid", indexed=True, fast=True)
    # Term frequencies, no positions: BM25 needs no more, and queries are bags of words.
    builder.add_text_field("body", tokenizer_name=_ANALYZER, index_option="freq")
    # Words split at anything not a letter or digit, lower-cased, accents folded, and
    # reduced to their English (Snowball) stem; words over 255 bytes (Lucene's limit) go.
    analyzer = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(255))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
    return tantivy, builder.build(), analyzer


def query_terms(text: str) -> list[str]:
    """The distinct index terms of the words of a query (stemmed as documents are).

    >>> query_terms("Who was running the rivers of Bogotá?")
    ['run', 'river', 'bogota']
    """
    analyzer = _engine()[2]
    return list(dict.fromkeys(t for word in query_words(text) for t in analyzer.analyze(word)))


def _new_index() -> Any:
    tantivy, schema, analyzer = _engine()
    index = tantivy.Index(schema)
    index.register_tokenizer(_ANALYZER, analyzer)
    # Searchers see a commit when the index reloads after it, not on a timer.
    index.config_reader(reload_policy="Manual", num_warmers=0)
    return index


class TextIndex:
    """A full-text index of one kind of node of one tenant (a tantivy index in memory).

    Like Lucene's, tantivy's BM25 statistics count a replaced or removed document until a
    merge drops it. Writing a node's unchanged text again is therefore skipped, and the
    store rebuilds an index once it holds more dead documents than live ones
    (``wasteful()``), so the scores stay those of the live documents within that bound.
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._index = _new_index()
        self._rowids: dict[str, int] = {}
        self._ids: dict[int, str] = {}
        self._digests: dict[str, int] = {}  # hash of each indexed node's text
        self._next = 1
        self._dead = 0  # documents deleted from the tantivy index since it was made
        self._reload = False
        self._pending: dict[str, str | None] = {}

    def wasteful(self) -> bool:
        """Whether more replaced or removed documents than live ones weigh on the scores."""
        self._flush()
        return self._dead > max(len(self._rowids), 100)

    def set(self, node_id: str, text: str) -> None:
        """Queue the node's text (replacing what it had)."""
        self._pending[node_id] = text

    def remove(self, node_id: str) -> None:
        """Queue the node's removal."""
        self._pending[node_id] = None

    def drop(self) -> None:
        """Forget every document."""
        self._reset()

    def _flush(self) -> None:
        """Commit the queued changes in one batch (nothing changes if the commit fails).

        The writer lives for this commit only: a live tantivy writer keeps threads, and a
        store holds an index per tenant and kind. Before it goes, it finishes the segment
        merges its commit started; without that, one small commit per search leaves a
        segment per commit behind (1,043 segments after 3,000 commits, measured) and
        searches slow down with them.
        """
        if not self._pending:
            return
        digests = self._digests
        changes: dict[str, tuple[str | None, int]] = {}  # node -> (text or None, its hash)
        for node, text in self._pending.items():
            digest = hash(text) if text is not None else 0
            if text is None or digests.get(node) != digest:
                changes[node] = (text, digest)
        if not changes:
            self._pending.clear()
            return
        stale = [self._rowids[n] for n in changes if n in self._rowids]
        added: list[tuple[str, int, int]] = []
        tantivy = _engine()[0]
        writer = self._index.writer(_WRITER_HEAP, 1)
        try:
            for rowid in stale:
                writer.delete_documents_by_term("rowid", rowid)
            rowid = self._next
            for node, (text, digest) in changes.items():
                if text is None:
                    continue
                doc = tantivy.Document()
                doc.add_integer("rowid", rowid)
                try:
                    doc.add_text("body", text)
                except UnicodeEncodeError:  # a lone surrogate: never valid UTF-8
                    doc.add_text("body", text.encode("utf-8", "replace").decode("utf-8"))
                writer.add_document(doc)
                added.append((node, rowid, digest))
                rowid += 1
            writer.commit()
        except BaseException:
            writer.rollback()
            del writer  # a traceback kept by the caller must not hold the index lock
            raise
        # Committed: the maps follow at once, before anything else can fail.
        self._pending.clear()
        self._reload = True
        self._next += len(added)
        self._dead += len(stale)
        for node in changes:
            old = self._rowids.pop(node, None)
            if old is not None:
                del self._ids[old]
                del digests[node]
        for node, rowid, digest in added:
            self._rowids[node] = rowid
            self._ids[rowid] = node
            digests[node] = digest
        writer.wait_merging_threads()

    def search(
        self, query: str, k: int, candidates: Iterable[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` best (id, BM25 score) for the words of ``query``, best first.

        Every word of the query counts (documents need not hold them all). Hits with equal
        scores are listed in the order they were written, and a tie at the k-th place is
        settled the same way, so an answer never depends on how tantivy laid out segments.
        """
        self._flush()
        if self._reload:
            self._index.reload()
            self._reload = False
        terms = query_terms(query)
        held = len(self._rowids)
        if not terms or not held:
            return []
        tantivy, schema, _analyzer = _engine()
        should = tantivy.Occur.Should
        match = tantivy.Query.boolean_query(
            [(should, tantivy.Query.term_query(schema, "body", t, "freq")) for t in terms]
        )
        if candidates is not None:
            rowids = [self._rowids[c] for c in candidates if c in self._rowids]
            if not rowids:
                return []
            scope = tantivy.Query.const_score_query(
                tantivy.Query.term_set_query(schema, "rowid", rowids), 0.0
            )
            must = tantivy.Occur.Must
            match = tantivy.Query.boolean_query([(must, match), (must, scope)])
        searcher = self._index.searcher()
        k = min(k, held)  # tantivy sizes its top-k heap by the limit
        limit = min(k + 1, held)
        while True:
            hits = searcher.search(match, limit, count=False).hits
            # One hit past the k-th tells whether a tie crosses the cut; if so, fetch more.
            if len(hits) < limit or limit == held or hits[-1][0] < hits[k - 1][0]:
                break
            limit = min(2 * limit, held)
        rowids = searcher.fast_field_values("rowid", [address for _score, address in hits])
        ids = self._ids
        found = sorted(zip(rowids, (s for s, _a in hits), strict=True), key=_best_first)
        return [(ids[rowid], float(score)) for rowid, score in found[:k]]


def _best_first(pair: tuple[int, float]) -> tuple[float, int]:
    return (-pair[1], pair[0])
