"""The persistence of ``file://`` stores: one SQLite database (WAL mode), shared by processes.

The networkx graph stays the store's index in memory; this module keeps the database and
the graph in step. The tables are documented in docs/data-model.md. In short: every row
holds one model as its JSON body (so fields added to models later need no schema change)
with CRC-32 checksums, since SQLite itself has none; entities and relationships carry a
row id assigned by graphmem, so that opening a store loads ids and adjacency only (the
models are decoded when first used) and a change addresses its rows without an index.

Who may open a file:

- one writer: it holds an exclusive ``flock`` on the database file for as long as it is
  open; a second writer (in any process) gets :class:`StoreLocked` at once;
- any number of readers (``read_only=True``), beside the writer or not: they take no lock,
  never create a file or a directory, and see every committed write. Each committed change
  appends a row to the ``change`` table naming what it touched; before each operation a
  reader reads the rows after the last one it saw and syncs what they name from the
  tables, inside one read transaction, so an operation sees one committed state.

Every change is one SQLite transaction: its rows, the ``change`` row and the row counts in
``meta``, committed before it is applied in memory and acknowledged (``synchronous=FULL``
unless ``?fsync=false``). Opening verifies the key checksums and row counts of every table
and graphmem's own invariants (no dangling reference, sound PARENT chains); a body's
checksum is verified when the body is read. Whatever is wrong is a :class:`StoreCorrupted`.

Before anything else, opening looks at the file's first bytes: a file that is neither
graphmem's database nor its older JSON Lines journal is refused with :class:`NotAStore`
and left as it was. A journal opened for writing is converted once: the new database is
built in a temporary file beside it and renamed over it (the commit point), so a crash
leaves either the journal or the complete database, never half of one.

The file is built in layers, one concern each, every layer a module of its own:
:mod:`.sqlite_open` (the lock, the file's kind, the schema, a journal's conversion),
:mod:`.sqlite_read` (the models read when first used), :mod:`.sqlite_load` (the tables
into the tenants; a reader's catch-up) and :mod:`.sqlite_commit` (one transaction per
change record); :class:`SQLiteFile` adds the warm-up (:mod:`.sqlite_warm`) and closing.
It sees its store only through :class:`~.protocols.StoreHost`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from graphmem.backends.networkx.protocols import StoreHost
from graphmem.backends.networkx.sqlite_commit import FileCommit
from graphmem.backends.networkx.sqlite_open import APPLICATION_ID, SCHEMA_VERSION
from graphmem.backends.networkx.sqlite_rows import translate
from graphmem.backends.networkx.sqlite_warm import Warmer

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "SQLiteFile"]


class SQLiteFile(FileCommit):
    """The database behind one open ``file://`` store (the writer, or a reader).

    Made by the store when it is opened; it loads the database into the store's tenants
    (:meth:`load`), persists each change record before the store applies it
    (:meth:`commit`), and for a reader brings the store up to date before each
    operation (:meth:`following`).
    """

    def __init__(self, store: StoreHost, path: Path, *, read_only: bool, fsync: bool) -> None:
        super().__init__(store, path, read_only=read_only, fsync=fsync)
        self._warmer: Warmer | None = None
        self._attach()

    # ------------------------------------------------------------------ warm-up and close

    def warm(self) -> None:
        """Start reading every model not read yet in the background (:mod:`.sqlite_warm`)."""
        if self._conn is None or self._warmer is not None:
            return
        if any(data.fill is not None for data in self._store._tenants.values()):
            self._warmer = Warmer(self)
            self._warmer.start()

    def stop_warming(self) -> None:
        """Stop the warm-up (if one runs) and wait for it: at most one small step."""
        if self._warmer is not None:
            self._warmer.stop()

    def close(self) -> None:
        """Close the database and release the file (even if closing fails)."""
        self.stop_warming()
        seal, self._seal = self._seal, None
        if seal is not None:
            seal.close()
        conn, self._conn = self._conn, None
        try:
            if conn is not None:
                conn.close()
            if seal is not None:
                seal.retire()
        except sqlite3.Error as exc:
            raise translate(self.path, exc, "closing it") from exc
        finally:
            self._release()
