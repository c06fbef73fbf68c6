"""The search indexes of the embedded backend: exact vector search and SQLite FTS5.

``VectorIndex`` keeps one contiguous float32 matrix per (tenant, kind), rows unit-length,
with an id <-> row map. Inserts grow the matrix geometrically (amortised O(1) per row),
deletes move the last row into the hole (O(1)), so the live rows are always
``matrix[:size]`` and a search is one matrix-vector product plus ``argpartition``: the
same work as hand-written numpy brute force, with no Python loop over vectors.

``TextIndex`` is an FTS5 table (the BM25 ranking of SQLite's full-text engine, in the
standard library) in an in-memory SQLite database of the store. It is rebuilt from the
stored nodes when a store is opened, so it is never journaled; changes are queued and
applied in one batch before the next search, which keeps bulk ingest fast.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from graphmem.backends.search import as_matrix, query_words

__all__ = ["TextIndex", "VectorIndex", "as_matrix", "fts_query", "query_words"]

_MIN_CAPACITY = 64
_DF_CACHE = 100_000  # document frequencies kept per index before the cache starts over


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


def fts_query(text: str) -> str | None:
    """Turn user text into a safe FTS5 query: its words, each quoted, joined by OR.

    Operators (AND, NEAR, ``*``, ``^``, column filters) and quotes in the text become plain
    words or vanish, so no text is a syntax error. Common words are dropped unless the
    text has nothing else. None when no word is left.

    >>> fts_query('who owns "the Forge" NEAR(x) OR *')
    '"owns" OR "forge" OR "near" OR "x"'
    """
    unique = query_words(text)
    if not unique:
        return None
    return " OR ".join(f'"{w}"' for w in unique)


class TextIndex:
    """A full-text index of one kind of node of one tenant (an FTS5 table)."""

    def __init__(self, db: sqlite3.Connection, table: str) -> None:
        self._db = db
        self._table = table  # made by the store from a counter: never user text
        self._rowids: dict[str, int] = {}
        self._ids: dict[int, str] = {}
        self._next = 1
        self._pending: dict[str, str | None] = {}
        # Document frequency per indexed term, filled on demand (counting is O(df) in FTS5)
        # and emptied whenever the index changes.
        self._df: dict[str, int] = {}
        # The indexed terms of each query word (the tokenizer's stems), which never change.
        self._stems: dict[str, tuple[str, ...]] = {}
        tokenizer = "tokenize = 'porter unicode61 remove_diacritics 2'"
        db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(body, {tokenizer})")
        # Document frequency of each indexed term, and a scratch table that tokenizes query
        # words the same way, so terms found in most documents can be left out of a query.
        db.execute(f"CREATE VIRTUAL TABLE {table}_v USING fts5vocab({table}, 'row')")
        db.execute(f"CREATE VIRTUAL TABLE {table}_q USING fts5(body, {tokenizer})")
        db.execute(f"CREATE VIRTUAL TABLE {table}_qv USING fts5vocab({table}_q, 'instance')")

    def set(self, node_id: str, text: str) -> None:
        """Queue the node's text (replacing what it had)."""
        self._pending[node_id] = text

    def remove(self, node_id: str) -> None:
        """Queue the node's removal."""
        self._pending[node_id] = None

    def drop(self) -> None:
        """Delete the table."""
        for suffix in ("_qv", "_q", "_v", ""):
            self._db.execute(f"DROP TABLE IF EXISTS {self._table}{suffix}")
        self._pending.clear()

    def _flush(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        self._df.clear()
        stale = [self._rowids.pop(n) for n in pending if n in self._rowids]
        for rowid in stale:
            del self._ids[rowid]
        rows: list[tuple[int, str]] = []
        for node, text in pending.items():
            if text is None:
                continue
            rowid = self._next
            self._next += 1
            self._rowids[node] = rowid
            self._ids[rowid] = node
            rows.append((rowid, text))
        with self._db:
            if stale:
                self._db.executemany(
                    f"DELETE FROM {self._table} WHERE rowid = ?", [(r,) for r in stale]
                )
            if rows:
                self._db.executemany(f"INSERT INTO {self._table}(rowid, body) VALUES (?, ?)", rows)

    def _match(self, query: str) -> str | None:
        """The FTS5 query for the words of ``query``, without terms in most documents.

        A term in more than a fifth of a large index carries little BM25 weight (its IDF
        is small) but costs a score for most rows, so it is left out while rarer terms
        remain: the ranking barely moves and the search stays fast on 100k+ documents.
        """
        words = query_words(query)
        if not words:
            return None
        total = len(self._rowids)
        if total < 2000 or len(words) < 2:
            return " OR ".join(f'"{w}"' for w in words)
        db, table = self._db, self._table
        stem = self._stems
        if len(stem) > _DF_CACHE:
            stem.clear()
        new = [w for w in words if w not in stem]
        if new:
            with db:
                db.executemany(
                    f"INSERT INTO {table}_q(rowid, body) VALUES (?, ?)",
                    [(i + 1, w) for i, w in enumerate(new)],
                )
                terms: dict[str, list[str]] = {w: [] for w in new}
                for term, doc in db.execute(f"SELECT term, doc FROM {table}_qv"):
                    terms[new[doc - 1]].append(term)
                db.execute(f"DELETE FROM {table}_q")
            stem.update((w, tuple(t)) for w, t in terms.items())
        word_of = {term: w for w in words for term in stem[w]}
        if not word_of:
            return None
        df = self._df
        unknown = [t for t in word_of if t not in df]
        if unknown:
            if len(df) > _DF_CACHE:
                df.clear()
            marks = ",".join("?" * len(unknown))
            sql = f"SELECT term, doc FROM {table}_v WHERE term IN ({marks})"
            df.update(dict.fromkeys(unknown, 0))
            df.update(db.execute(sql, unknown))
        ranked = sorted(word_of, key=lambda t: df.get(t, 0))
        kept = [t for t in ranked if df.get(t, 0) <= total // 5] or ranked[:1]
        return " OR ".join(f'"{word_of[t]}"' for t in kept)

    def search(
        self, query: str, k: int, candidates: Iterable[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` best (id, score) for the words of ``query``; score = -bm25 (higher better)."""
        self._flush()
        match = self._match(query)
        if match is None:
            return []
        sql = f"SELECT rowid, -bm25({self._table}) FROM {self._table} WHERE {self._table} MATCH ?"
        params: list[Any] = [match]
        if candidates is not None:
            rowids = [self._rowids[c] for c in candidates if c in self._rowids]
            if not rowids:
                return []
            sql += " AND rowid IN (SELECT value FROM json_each(?))"
            params.append("[" + ",".join(map(str, rowids)) + "]")
        sql += " ORDER BY rank LIMIT ?"
        params.append(k)
        ids = self._ids
        return [(ids[rowid], float(score)) for rowid, score in self._db.execute(sql, params)]
