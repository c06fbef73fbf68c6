"""Committing to a ``file://`` store: one SQLite transaction per change record.

Part of :mod:`graphmem.backends.networkx.sqlite_file` (see it for the design). Every change
is one transaction: its rows (worked out by :class:`~.sqlite_changes.Write`), the
``change`` row readers sync from and the row counts in ``meta``, committed before it is
applied in memory and acknowledged (``synchronous=FULL`` unless ``?fsync=false``).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import suppress
from typing import Any
from zlib import crc32

from graphmem.backends.networkx.sqlite_changes import Write
from graphmem.backends.networkx.sqlite_load import FileLoad
from graphmem.backends.networkx.sqlite_rows import translate

__all__ = ["FileCommit"]

_KEEP_CHANGES = 10_000  # change rows kept for readers; one further behind reloads in full
_TRIM_EVERY = 1_000


class FileCommit(FileLoad):
    """An open file that persists each change record before its store applies it."""

    def commit(self, record: dict[str, Any]) -> None:
        """Persist one change record in one transaction, then apply it to the store."""
        store = self._store
        conn = self._connection()
        write = Write(self, record["tenant"], store._tenants.get(record["tenant"]))
        saved = dict(self._next)
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                getattr(write, record["op"])(record)
                seq = self._seq + 1
                body = json.dumps(write.log, separators=(",", ":"), ensure_ascii=False)
                conn.execute(
                    "INSERT INTO change (seq, tenant, record, crc) VALUES (?, ?, ?, ?)",
                    (seq, record["tenant"], body, crc32(body.encode(), seq)),
                )
                conn.executemany(
                    "UPDATE meta SET value = value + ? WHERE key = ?",
                    [(delta, f"rows.{table}") for table, delta in write.deltas.items() if delta],
                )
                if self._next != saved:
                    conn.executemany(
                        "UPDATE meta SET value = ? WHERE key = ?",
                        [(value, f"next.{table}") for table, value in self._next.items()],
                    )
                if seq % _TRIM_EVERY == 0:
                    conn.execute("DELETE FROM change WHERE seq <= ?", (seq - _KEEP_CHANGES,))
                conn.execute("COMMIT")
            except BaseException:
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            self._next = saved
            raise translate(self.path, exc, "writing; the change was not applied") from exc
        except BaseException:
            self._next = saved
            raise
        self._seq = seq
        if self._seal is not None:
            self._seal.record(seq)  # before the write is acknowledged (sqlite_seal)
        self._counts.update(write.deltas)
        self._feed.update(write.feed)
        try:
            store._apply(record)
        finally:
            fed = dict(self._feed)
            self._feed.update(entity=0, relationship=0)
        write.settle(fed)

    def allocate(self, table: str, count: int) -> int:
        """The first of ``count`` fresh row ids of ``table`` (never reused)."""
        first = self._next[table]
        self._next[table] = first + count
        return first
