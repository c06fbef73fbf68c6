"""Opening a ``file://`` store's database: the file lock, the file's kind, the schema.

Part of :mod:`graphmem.backends.networkx.sqlite_file` (see it for the design). Who may open
a file:

- one writer: it holds an exclusive ``flock`` on the database file for as long as it is
  open; a second writer (in any process) gets :class:`StoreLocked` at once;
- any number of readers (``read_only=True``), beside the writer or not: they take no lock,
  never create a file or a directory, and see every committed write.

Before anything else, opening looks at the file's first bytes: a file that is neither
graphmem's database nor its older JSON Lines journal is refused with :class:`NotAStore`
and left as it was. A journal opened for writing is converted once: the new database is
built in a temporary file beside it and renamed over it (the commit point), so a crash
leaves either the journal or the complete database, never half of one.
"""

from __future__ import annotations

import fcntl
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.backends.networkx import journal
from graphmem.backends.networkx.protocols import StoreHost
from graphmem.backends.networkx.sqlite_rows import (
    TABLES,
    corrupt,
    raise_problems,
    reading,
    state_problems,
)
from graphmem.backends.networkx.sqlite_seal import STORE_ID_KEY, _fsync_dir, new_store_id
from graphmem.backends.networkx.sqlite_seal import seal_path as seal_of
from graphmem.core.errors import (
    BackendUnavailable,
    GraphmemError,
    InvalidInput,
    NotAStore,
    NotFound,
    StoreLocked,
)

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "FileOpen"]

APPLICATION_ID = 0x676D656D  # "gmem": PRAGMA application_id of every graphmem store
SCHEMA_VERSION = 1  # PRAGMA user_version: the layout of the tables below
_MAGIC = b"SQLite format 3\x00"
_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE TABLE entity (rid INTEGER PRIMARY KEY, tenant TEXT NOT NULL, id TEXT NOT NULL, "
    "body TEXT NOT NULL, crc INTEGER NOT NULL, key_crc INTEGER NOT NULL)",
    "CREATE TABLE relationship (rid INTEGER PRIMARY KEY, tenant TEXT NOT NULL, "
    "source TEXT NOT NULL, target TEXT NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, "
    "crc INTEGER NOT NULL, key_crc INTEGER NOT NULL)",
    "CREATE TABLE turn (tenant TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, "
    "crc INTEGER NOT NULL, PRIMARY KEY (tenant, id)) WITHOUT ROWID",
    "CREATE TABLE head (tenant TEXT NOT NULL, session TEXT NOT NULL, turn TEXT NOT NULL, "
    "crc INTEGER NOT NULL, PRIMARY KEY (tenant, session)) WITHOUT ROWID",
    "CREATE TABLE record (tenant TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, "
    "body TEXT NOT NULL, crc INTEGER NOT NULL, PRIMARY KEY (tenant, kind, id)) WITHOUT ROWID",
    "CREATE TABLE chunk (tenant TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, "
    "crc INTEGER NOT NULL, PRIMARY KEY (tenant, id)) WITHOUT ROWID",
    "CREATE TABLE mention (tenant TEXT NOT NULL, kind TEXT NOT NULL, node TEXT NOT NULL, "
    "entity TEXT NOT NULL, crc INTEGER NOT NULL, PRIMARY KEY (tenant, kind, node, entity)) "
    "WITHOUT ROWID",
    "CREATE TABLE embedding (tenant TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, "
    "vector BLOB NOT NULL, crc INTEGER NOT NULL, PRIMARY KEY (tenant, kind, id)) WITHOUT ROWID",
    "CREATE TABLE change (seq INTEGER PRIMARY KEY, tenant TEXT NOT NULL, "
    "record TEXT NOT NULL, crc INTEGER NOT NULL)",
)
# Forward migrations: _MIGRATIONS[v] upgrades a database of schema version v to v + 1,
# inside the transaction that also sets the new user_version.
_MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {}
# --------------------------------------------------------------------------- locks
#
# POSIX record locks (SQLite's) belong to the process and are all dropped when *any*
# descriptor of the file is closed. So this process opens one descriptor per store file
# (per inode), shared by every graphmem connection to it, and closes it only after the
# last of those connections is closed. The writer's flock is taken on that descriptor.


@dataclass(slots=True)
class _Hold:
    fd: int
    users: int = 0
    writer: bool = False


_holds: dict[tuple[int, int], _Hold] = {}
_holds_lock = threading.Lock()


def _inode(st: os.stat_result) -> tuple[int, int]:
    return (st.st_dev, st.st_ino)


def _take(path: Path, *, create: bool, writer: bool) -> tuple[tuple[int, int], _Hold]:
    """Register one more user of the file at ``path`` (its shared descriptor)."""
    with _holds_lock:
        for _ in range(10):
            try:
                key = _inode(os.stat(path))
            except FileNotFoundError:
                if not create:
                    raise
                key = None
            hold = _holds.get(key) if key is not None else None
            if key is not None and hold is not None:
                if writer and hold.writer:
                    raise StoreLocked(
                        f"{path} is already open for writing in this process (another open "
                        "store); close it there first, or open with read_only=True",
                        path=str(path),
                    )
                hold.users += 1
                return key, hold
            flags = os.O_CLOEXEC | (os.O_RDWR if writer else os.O_RDONLY)
            fd = os.open(path, flags | (os.O_CREAT if create else 0), 0o666)
            opened = _inode(os.fstat(fd))
            if key is None or opened == key:
                hold = _holds[opened] = _Hold(fd, 1)
                return opened, hold
            os.close(fd)  # replaced between stat and open: nothing of ours used that inode
        raise BackendUnavailable(f"{path} keeps being replaced; try again", path=str(path))


def _give_back(key: tuple[int, int], *, writer: bool) -> None:
    """One user fewer: release the writer's flock, close the descriptor after the last."""
    with _holds_lock:
        hold = _holds.get(key)
        if hold is None:
            return
        try:
            if writer and hold.writer:
                hold.writer = False
                fcntl.flock(hold.fd, fcntl.LOCK_UN)
        finally:
            hold.users -= 1
            if hold.users <= 0:
                del _holds[key]
                os.close(hold.fd)


def _lock(path: Path, hold: _Hold) -> None:
    with _holds_lock:
        if hold.writer:
            raise StoreLocked(
                f"{path} is already open for writing in this process; close it there first",
                path=str(path),
            )
        try:
            fcntl.flock(hold.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreLocked(
                f"{path} is already open for writing in another process; close it there "
                "first, or open it with read_only=True to read it meanwhile",
                path=str(path),
            ) from None
        hold.writer = True


# --------------------------------------------------------------------------- file kinds


def _kind(path: Path, fd: int) -> str:
    """``empty``, ``sqlite`` or ``journal``; anything else raises NotAStore."""
    size = os.fstat(fd).st_size
    if size == 0:
        return "empty"
    head = os.pread(fd, 4096, 0)
    if head.startswith(_MAGIC):
        if len(head) < 100:
            raise corrupt(path, "its SQLite header is cut short")
        application = int.from_bytes(head[68:72], "big")
        if application != APPLICATION_ID:
            raise NotAStore(
                f"{path} is an SQLite database of another application (application_id "
                f"{application:#x}), not a graphmem store; it was left unchanged",
                path=str(path),
                kind="sqlite",
            )
        return "sqlite"
    if journal.is_journal(head):
        return "journal"
    raise NotAStore(
        f"{path} is not a graphmem store (neither graphmem's SQLite database nor its "
        "older journal); it was left unchanged. Name a new file, or the right one.",
        path=str(path),
        kind="other",
    )


# --------------------------------------------------------------------------- the file


class FileOpen:
    """A ``file://`` store's database, opened: the file held, the schema checked or made.

    The first layer of :class:`~graphmem.backends.networkx.sqlite_file.SQLiteFile`:
    :meth:`_attach` takes the file (and the writer's lock), converts an old journal and
    connects; :meth:`_release` lets go of it.
    """

    def __init__(self, store: StoreHost, path: Path, *, read_only: bool, fsync: bool) -> None:
        self.path = path
        self.read_only = read_only
        self.fsync = fsync
        self._store = store
        self._conn: sqlite3.Connection | None = None
        self._key: tuple[int, int] | None = None
        self._legacy = False  # a journal read in place (read-only open of an old file)
        self._ready = False  # the schema exists (a reader may open a file still empty)
        self._json_each = False  # SQLite has JSON1 (to read a node's models in one query)

    # ------------------------------------------------------------------ open

    def _attach(self) -> None:
        path = self.path
        writer = not self.read_only
        try:
            if writer:
                path.parent.mkdir(parents=True, exist_ok=True)
            key, hold = _take(path, create=writer, writer=writer)
        except GraphmemError:  # StoreLocked (a ConnectionError, so an OSError too)
            raise
        except FileNotFoundError:
            raise NotFound(
                f"no store at {path}: read-only opens never create one; check the path",
                path=str(path),
            ) from None
        except PermissionError as exc:
            raise BackendUnavailable(
                f"cannot open {path}: {exc.strerror}"
                + ("; open it with read_only=True to read it" if writer else ""),
                path=str(path),
            ) from exc
        except IsADirectoryError:
            raise InvalidInput(f"{path} is a directory; a file:// store is one file") from None
        except OSError as exc:
            raise BackendUnavailable(f"cannot open {path}: {exc}", path=str(path)) from exc
        self._key = key
        try:
            kind = _kind(path, hold.fd)
            if writer:
                _lock(path, hold)
                if _inode(os.stat(path)) != key:  # a conversion renamed a database over it
                    self._release()
                    self._attach()
                    return
                self._sweep()
                if kind == "journal":
                    self._convert(hold)
            elif kind == "journal":
                self._legacy = True
                return
            self._connect()
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        key, self._key = self._key, None
        if key is not None:
            _give_back(key, writer=not self.read_only)

    def _sweep(self) -> None:
        """Remove what a killed conversion (or an old journal compaction) left beside us."""
        pattern = re.compile(
            rf"^\.{re.escape(self.path.name)}\.[\w.-]+\.tmp(-wal|-shm|-journal|-commit)?$"
        )
        with suppress(OSError):
            for entry in os.scandir(self.path.parent):
                if pattern.match(entry.name):
                    with suppress(OSError):
                        os.unlink(entry.path)

    def _connect(self) -> None:
        path = self.path
        with reading(path, "opening it"):
            conn = self._conn = _connection(path, read_only=self.read_only)
            if not self.read_only:
                conn.execute(f"PRAGMA synchronous = {'FULL' if self.fsync else 'NORMAL'}")
            self._json_each = self._has_json_each()
            self._prepare()
            if not self.read_only:
                # After _prepare: a new store's first transaction (application_id, schema) is
                # written in place, so the file's header names graphmem from the start.
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise BackendUnavailable(
                        f"{path}: SQLite cannot use WAL mode here (got {mode!r})", path=str(path)
                    )

    def _has_json_each(self) -> bool:
        try:
            self._connection().execute("SELECT value FROM json_each('[1]')").fetchall()
        except sqlite3.OperationalError:  # an SQLite built without JSON1: one row at a time
            return False
        return True

    def _prepare(self) -> None:
        """Check the application id and schema version; create or migrate (writer)."""
        conn = self._connection()
        application = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if application == 0 and version == 0 and tables == 0:
            if self.read_only:
                return  # an empty file: an empty store until a writer creates the schema
            self._create()
            self._ready = True
            return
        if application != APPLICATION_ID:
            raise NotAStore(
                f"{self.path} is an SQLite database of another application (application_id "
                f"{application:#x}), not a graphmem store; it was left unchanged",
                path=str(self.path),
                kind="sqlite",
            )
        if version > SCHEMA_VERSION:
            raise BackendUnavailable(
                f"{self.path} has schema version {version}, written by a newer graphmem; "
                f"this one reads up to {SCHEMA_VERSION}. Upgrade graphmem.",
                path=str(self.path),
            )
        if version < SCHEMA_VERSION:
            if self.read_only:
                raise BackendUnavailable(
                    f"{self.path} has schema version {version}; open it once for writing to "
                    f"upgrade it to {SCHEMA_VERSION} (a read-only open changes nothing)",
                    path=str(self.path),
                )
            self._migrate(version)
        self._ready = True

    def _create(self) -> None:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [(f"rows.{t}", 0) for t in TABLES]
                + [("next.entity", 1), ("next.relationship", 1), (STORE_ID_KEY, new_store_id())],
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _migrate(self, version: int) -> None:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            while version < SCHEMA_VERSION:
                step = _MIGRATIONS.get(version)
                if step is None:
                    raise BackendUnavailable(
                        f"{self.path} has schema version {version}, which this graphmem "
                        "cannot upgrade",
                        path=str(self.path),
                    )
                step(conn)
                version += 1
                conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _convert(self, hold: _Hold) -> None:
        """Convert the journal at ``self.path`` (locked by us) into a database, atomically."""
        path = self.path
        old = self._store._scratch()
        journal.replay(path, old._apply)
        raise_problems(path, state_problems(old._tenants))
        tmp = path.with_name(f".{path.name}.convert-{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        try:
            new = self._store._scratch(tmp)
            try:
                for tenant in sorted(old._tenants):
                    for record in _state_records(old, tenant):
                        new._commit(record)
            finally:
                new.close()
                seal_of(tmp).unlink(missing_ok=True)
            fd = os.open(tmp, os.O_RDWR | os.O_CLOEXEC)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.fsync(fd)
            os.replace(tmp, path)  # the commit point: the journal is replaced whole
            _fsync_dir(path.parent)
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        # Hold the new file as ours (locked) and let go of the journal's descriptor.
        with _holds_lock:
            _holds[_inode(os.fstat(fd))] = _Hold(fd, 1, writer=True)
        old_key, self._key = self._key, _inode(os.fstat(fd))
        assert old_key is not None
        _give_back(old_key, writer=True)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise BackendUnavailable(f"{self.path} is closed", path=str(self.path))
        return self._conn

    def side_connection(self) -> sqlite3.Connection:
        """A read-only connection of its own to this file (for the warm-up thread)."""
        conn = _connection(self.path, read_only=True)
        conn.execute("PRAGMA cell_size_check = ON")
        return conn


_CONNECT: dict[str, Any] = {"isolation_level": None, "check_same_thread": False, "timeout": 10.0}


def _connection(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """An SQLite connection to ``path`` (autocommit: transactions are explicit).

    A reader connects read-write with ``query_only`` where it may, so that the last
    connection to close folds the write-ahead log back into the file and removes it
    (a ``mode=ro`` connection would leave the ``-wal`` and ``-shm`` files behind); it
    connects ``mode=ro`` where it may not write.
    """
    conn: sqlite3.Connection
    if read_only and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, **_CONNECT)
    else:
        conn = sqlite3.connect(path, **_CONNECT)
    try:
        conn.execute("PRAGMA cell_size_check = ON")
        if read_only:
            conn.execute("PRAGMA query_only = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def _state_records(store: StoreHost, tenant: str) -> Iterator[dict[str, Any]]:
    """Change records that rebuild a tenant of ``store`` (to convert a journal)."""
    data = store._tenants[tenant]
    dump = store._dump(data)
    yield {
        "op": "put",
        "tenant": tenant,
        "entities": dump.entities,
        "relationships": dump.relationships,
        "turns": dump.turns,
        "heads": {s: h for s, h in dump.heads.items() if h is not None},
        "records": dump.records,
        "chunks": dump.chunks,
        "mentions": [list(m) for m in dump.mentions],
    }
    for kind, index in sorted(data.vectors.items()):
        if len(index):
            yield {
                "op": "embed",
                "tenant": tenant,
                "kind": kind,
                "ids": list(index.ids),
                "vectors": index.matrix[: len(index)],
            }
