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
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING, Any
from zlib import crc32

from graphmem.backends.networkx import journal
from graphmem.backends.networkx.codec import Decoder, decode, key_crc
from graphmem.backends.networkx.protocols import StoreHost
from graphmem.backends.networkx.sqlite_changes import Sync, Touched, Write
from graphmem.backends.networkx.sqlite_rows import (
    KEY_COLUMNS,
    SQL,
    TABLES,
    corrupt,
    raise_problems,
    reading,
    state_problems,
    translate,
)
from graphmem.backends.networkx.sqlite_seal import (
    STORE_ID_KEY,
    Seal,
    SealRecord,
    damaged_record,
    keep_wal,
    missing,
    new_store_id,
    problem,
    read_seal,
)
from graphmem.backends.networkx.sqlite_seal import seal_path as seal_of
from graphmem.backends.networkx.state import _Tenant, paused_gc
from graphmem.core.errors import (
    BackendUnavailable,
    GraphmemError,
    InvalidInput,
    NotAStore,
    NotFound,
    StoreLocked,
)
from graphmem.core.models import Chunk, Entity, Record, Relationship, Turn

if TYPE_CHECKING:
    from graphmem.backends.networkx.sqlite_warm import Warmer

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "SQLiteFile"]

APPLICATION_ID = 0x676D656D  # "gmem": PRAGMA application_id of every graphmem store
SCHEMA_VERSION = 1  # PRAGMA user_version: the layout of the tables below
_MAGIC = b"SQLite format 3\x00"
_KEEP_CHANGES = 10_000  # change rows kept for readers; one further behind reloads in full
_TRIM_EVERY = 1_000
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


def _lazy_classes(file: SQLiteFile, tenant: str) -> tuple[type[_LazyNode], type[_LazyEdge]]:
    """Node and edge attribute dicts of one tenant that read their model when first used."""

    class Node(_LazyNode):
        __slots__ = ()
        _read = staticmethod(partial(file.read_entity, tenant))

    class Edge(_LazyEdge):
        __slots__ = ()
        _read = staticmethod(partial(file.read_relationship, tenant))

    return Node, Edge


class _Lazy(dict[str, Any]):
    """An attribute dict whose model (under ``_key``) is read from row ``rid`` on first use."""

    __slots__ = ("rid",)
    _key: str
    _read: Callable[[int], Any]
    rid: int

    def __missing__(self, key: str) -> Any:
        if key != self._key:
            raise KeyError(key)
        model = self[key] = self._read(self.rid)
        return model


class _LazyNode(_Lazy):
    """A node's attribute dict: ``["e"]`` is its entity.

    ``near`` is set once the models around the node (its relationships and their other
    ends) have all been read, so an identity snapshot reads them in one go only once.
    """

    __slots__ = ("near",)
    _key = "e"
    near: bool


class _LazyEdge(_Lazy):
    """An edge's attribute dict: ``["r"]`` is its relationship."""

    __slots__ = ()
    _key = "r"


# --------------------------------------------------------------------------- the file


class SQLiteFile:
    """The database behind one open ``file://`` store (the writer, or a reader).

    Made by the store when it is opened; it loads the database into the store's tenants
    (:meth:`load`), persists each change record before the store applies it
    (:meth:`commit`), and for a reader brings the store up to date before each
    operation (:meth:`following`).
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
        self._seq = 0
        self._next = {"entity": 1, "relationship": 1}
        # The next row id to give a node or edge dict made while a write is applied (0: none).
        self._feed = {"entity": 0, "relationship": 0}
        self._classes: dict[str, tuple[type[_LazyNode], type[_LazyEdge]]] = {}
        self._counts: Counter[str] = Counter()
        self._decoder = Decoder()
        self._warmer: Warmer | None = None
        self._store_id = 0  # meta's store.id (0: a store written before it had one)
        self._seal: Seal | None = None  # the writer's commit record (sqlite_seal)
        self._attach()

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

    # ------------------------------------------------------------------ load

    def load(self) -> None:
        """Fill the store's tenants from the file (ids and adjacency; models on first use)."""
        store = self._store
        if self._legacy:
            journal.replay(self.path, store._apply)
            raise_problems(self.path, state_problems(store._tenants))
            return
        if not self._ready:
            return
        conn = self._connection()
        # Read before the read transaction starts: a commit made meanwhile then only puts
        # the database ahead of the record, never behind it (no false alarm in a reader).
        sealed = read_seal(self.path)
        try:
            with reading(self.path, "reading it"):
                conn.execute("BEGIN")
                try:
                    with paused_gc():
                        self._load_tables()
                finally:
                    conn.execute("COMMIT")
            self._verify_seal(sealed)
        except BaseException:
            store._tenants.clear()
            raise

    def _verify_seal(self, sealed: SealRecord | None) -> None:
        """Compare the database with its commit record; the writer then keeps the record."""
        path = self.path
        what = problem(path, sealed, self._store_id, self._seq)
        if sealed is not None and what is not None:
            if sealed.damaged:
                raise damaged_record(path)
            kept = keep_wal(path)  # the evidence, before a checkpoint on close folds it
            if kept is not None:
                what += f" (a copy of the damaged log is kept as {kept.name})"
            raise missing(path, what, recorded=sealed.seq, found=self._seq)
        if self.read_only:
            return
        if not self._store_id:  # a store written before store ids: give it one
            store_id = new_store_id()
            conn = self._connection()
            with reading(path, "naming it"):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.execute(
                        "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                        (STORE_ID_KEY, store_id),
                    )
                    conn.execute("COMMIT")
                except BaseException:
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                    raise
            self._store_id = store_id
        seal = Seal(path, fsync=self.fsync)
        seal.open(self._store_id, self._seq)
        self._seal = seal

    def _load_tables(self) -> None:
        store = self._store
        conn = self._connection()
        path = self.path
        store._tenants.clear()
        store._loads += 1  # every entity may have changed: entity_version moves on
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        self._next = {table: meta.get(f"next.{table}", 1) for table in ("entity", "relationship")}
        self._store_id = meta.get(STORE_ID_KEY) or 0
        counts: Counter[str] = Counter()
        tenants = store._tenants
        counts["entity"] = self._load_entities(conn)
        counts["relationship"] = self._load_relationships(conn)
        puts: dict[str, dict[str, Any]] = {}

        def put(tenant: str, key: str) -> Any:
            record = puts.get(tenant)
            if record is None:
                record = puts[tenant] = {"op": "put", "tenant": tenant}
            return record.setdefault(key, {} if key == "heads" else [])

        for tenant, turn in self._bodies(conn, "turn", Turn, lambda t: (t.id,)):
            put(tenant, "turns").append(turn)
            counts["turn"] += 1
        for tenant, session, turn_id, check in conn.execute(
            "SELECT tenant, session, turn, crc FROM head"
        ):
            if key_crc(tenant, session, turn_id) != check:
                raise corrupt(path, f"the head of conversation {session!r} fails its checksum")
            put(tenant, "heads")[session] = turn_id
            counts["head"] += 1
        for tenant, stored in self._bodies(conn, "record", Record, lambda r: (r.kind, r.id)):
            put(tenant, "records").append(stored)
            counts["record"] += 1
        for tenant, chunk in self._bodies(conn, "chunk", Chunk, lambda c: (c.id,)):
            put(tenant, "chunks").append(chunk)
            counts["chunk"] += 1
        for tenant, kind, node, entity_id, check in conn.execute(
            "SELECT tenant, kind, node, entity, crc FROM mention"
        ):
            if key_crc(tenant, kind, node, entity_id) != check or kind not in ("turn", "chunk"):
                raise corrupt(path, f"a mention of {entity_id!r} by {kind} {node!r} is damaged")
            put(tenant, "mentions").append((kind, node, entity_id))
            counts["mention"] += 1
        for tenant, record in puts.items():
            if "turns" in record:
                record["turns"].sort(key=lambda t: (t.created_at, t.id))
            if tenant not in tenants:
                self._tenant(tenant)
            store._apply(record)
        counts["embedding"] = self._load_embeddings()
        for table in TABLES:
            expected = meta.get(f"rows.{table}")
            if expected != counts[table]:
                raise corrupt(
                    path, f"table {table} has {counts[table]} rows where {expected} were written"
                )
        raise_problems(path, state_problems(tenants))
        self._counts = counts
        row = conn.execute("SELECT max(seq) FROM change").fetchone()
        self._seq = row[0] or 0
        for tenant, data in tenants.items():
            if data.graph._node:
                data.fill = self._filler(tenant)
                data.near = partial(self._near, tenant) if self._json_each else None

    def _bodies(
        self,
        conn: sqlite3.Connection,
        table: str,
        model: type[Any],
        key: Callable[[Any], tuple[str, ...]],
    ) -> Iterator[tuple[str, Any]]:
        """The tenant and model of every row of a table read whole (checksums verified)."""
        columns = ", ".join(KEY_COLUMNS[table])
        for tenant, *keys, raw, check in conn.execute(
            f"SELECT tenant, {columns}, CAST(body AS BLOB), crc FROM {table}"
        ):
            where = f"{table} {'/'.join(map(repr, keys))} of tenant {tenant!r}"
            if crc32(raw) ^ key_crc(tenant, *keys) != check:
                raise corrupt(self.path, f"{where} fails its checksum")
            item = self._model(model, raw, where)
            if key(item) != tuple(keys):
                raise corrupt(self.path, f"the row of {where} holds another {model.__name__}")
            yield tenant, item

    def _load_entities(self, conn: sqlite3.Connection) -> int:
        """Every entity id, as a node whose model is read on first use (the hot loop of open)."""
        tenants, path = self._store._tenants, self.path
        count = 0
        current = None
        for rid, tenant, entity_id, check in conn.execute(
            "SELECT rid, tenant, id, key_crc FROM entity"
        ):
            if crc32(f"{rid}\x1f{tenant}\x1f{entity_id}".encode()) != check:
                raise corrupt(path, f"entity row {rid} fails its key checksum")
            entity_id = intern(entity_id)
            if tenant != current:
                current = tenant
                data = tenants.get(tenant) or self._tenant(tenant)
                node_class = self._classes[tenant][0]
                nodes, succ, pred = data.graph._node, data.graph._succ, data.graph._pred
            if entity_id in nodes:
                raise corrupt(path, f"entity {entity_id!r} of tenant {tenant!r} is stored twice")
            node = nodes[entity_id] = node_class()
            node.rid = rid
            succ[entity_id] = {}
            pred[entity_id] = {}
            count += 1
        return count

    def _load_relationships(self, conn: sqlite3.Connection) -> int:
        """Every relationship key, as an edge whose model is read on first use."""
        tenants, path = self._store._tenants, self.path
        count = 0
        current = None
        for rid, tenant, source, target, type_, check in conn.execute(
            "SELECT rid, tenant, source, target, type, key_crc FROM relationship"
        ):
            if crc32(f"{rid}\x1f{tenant}\x1f{source}\x1f{target}\x1f{type_}".encode()) != check:
                raise corrupt(path, f"relationship row {rid} fails its key checksum")
            # The node's own key strings (interned at load), not a copy per edge.
            source, target, type_ = intern(source), intern(target), intern(type_)
            if tenant != current:
                current = tenant
                data = tenants.get(tenant) or self._tenant(tenant)
                edge_class = self._classes[tenant][1]
                succ, pred = data.graph._succ, data.graph._pred
            out = succ.get(source)
            if out is None or target not in pred:
                raise corrupt(
                    path,
                    f"relationship ({source!r})-[{type_}]->({target!r}) of tenant {tenant!r} "
                    "names an entity that is not stored",
                )
            keydict = out.get(target)
            if keydict is None:
                keydict = out[target] = pred[target][source] = {}
            elif type_ in keydict:
                raise corrupt(
                    path, f"relationship ({source!r})-[{type_}]->({target!r}) is stored twice"
                )
            edge = keydict[type_] = edge_class()
            edge.rid = rid
            count += 1
        return count

    def _load_embeddings(self) -> int:
        import numpy as np

        conn = self._connection()
        groups: dict[tuple[str, str], tuple[list[str], list[bytes]]] = {}
        count = 0
        for tenant, kind, node_id, vector, check in conn.execute(
            "SELECT tenant, kind, id, vector, crc FROM embedding"
        ):
            if crc32(vector, key_crc(tenant, kind, node_id)) != check:
                raise corrupt(self.path, f"the embedding of {kind} {node_id!r} fails its checksum")
            ids, rows = groups.setdefault((tenant, kind), ([], []))
            if rows and len(rows[0]) != len(vector) or not vector or len(vector) % 4:
                raise corrupt(self.path, f"the embedding of {kind} {node_id!r} has a bad size")
            ids.append(node_id)
            rows.append(vector)
            count += 1
        for (tenant, kind), (ids, rows) in groups.items():
            matrix = np.frombuffer(b"".join(rows), dtype="<f4").astype(np.float32)
            self._store._apply(
                {
                    "op": "embed",
                    "tenant": tenant,
                    "kind": kind,
                    "ids": ids,
                    "vectors": matrix.reshape(len(ids), -1),
                }
            )
        return count

    def _tenant(self, tenant: str) -> _Tenant:
        data = self._store._tenants[tenant] = _Tenant(graph=self.new_graph(tenant))
        return data

    def new_graph(self, tenant: str) -> Any:
        """An empty graph for a tenant of this file (its attribute dicts carry row ids)."""
        import networkx as nx

        graph = nx.MultiDiGraph()
        node, edge = self._classes[tenant] = _lazy_classes(self, tenant)
        graph.node_attr_dict_factory = self._maker(node, "entity")
        graph.edge_attr_dict_factory = self._maker(edge, "relationship")
        return graph

    def _maker(self, cls: type[_LazyNode | _LazyEdge], table: str) -> Callable[[], Any]:
        """A factory of a graph's node (or edge) attribute dicts.

        While a write is applied, the dicts it makes for new nodes (or edges) take the row
        ids the write gave them, in order.
        """
        feed = self._feed

        def make() -> Any:
            made = cls()
            rid = feed[table]
            if rid:
                made.rid = rid
                feed[table] = rid + 1
            return made

        return make

    def _model(self, model: type[Any], raw: bytes, what: str) -> Any:
        try:
            return decode(model, raw)
        except (InvalidInput, ValueError) as exc:
            raise corrupt(
                self.path,
                f"{what} is not a valid {model.__name__} ({exc}); if a newer graphmem wrote "
                "it, upgrade graphmem",
            ) from exc

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise BackendUnavailable(f"{self.path} is closed", path=str(self.path))
        return self._conn

    # ------------------------------------------------------------------ lazy models

    def read_entity(self, tenant: str, rid: int) -> Entity:
        """The entity stored in row ``rid`` (checksums verified)."""
        with reading(self.path, "reading an entity"):
            row = (
                self._connection()
                .execute(
                    "SELECT tenant, id, CAST(body AS BLOB), crc FROM entity WHERE rid = ?", (rid,)
                )
                .fetchone()
            )
            if row is None:
                raise corrupt(self.path, f"entity row {rid} has disappeared")
            return self._entity(row, tenant)

    def _entity(self, row: tuple[Any, ...], tenant: str) -> Entity:
        row_tenant, entity_id, raw, check = row
        if crc32(raw) != check:
            raise corrupt(self.path, f"the body of entity {entity_id!r} fails its checksum")
        try:
            entity = self._decoder.entity(raw)
        except (InvalidInput, ValueError, KeyError, TypeError) as exc:
            raise corrupt(self.path, f"entity {entity_id!r} cannot be read ({exc})") from exc
        if entity.id != entity_id or row_tenant != tenant:
            raise corrupt(self.path, f"the row of entity {entity_id!r} holds another entity")
        return entity

    def read_relationship(self, tenant: str, rid: int) -> Relationship:
        """The relationship stored in row ``rid`` (checksums verified)."""
        with reading(self.path, "reading a relationship"):
            row = (
                self._connection()
                .execute(
                    "SELECT tenant, source, target, type, CAST(body AS BLOB), crc "
                    "FROM relationship WHERE rid = ?",
                    (rid,),
                )
                .fetchone()
            )
            if row is None:
                raise corrupt(self.path, f"relationship row {rid} has disappeared")
            return self._relationship(row, tenant)

    def _relationship(self, row: tuple[Any, ...], tenant: str) -> Relationship:
        row_tenant, source, target, type_, raw, check = row
        if crc32(raw) != check:
            raise corrupt(
                self.path,
                f"the body of relationship ({source!r})-[{type_}]->({target!r}) fails its checksum",
            )
        try:
            rel = self._decoder.relationship(raw)
        except (InvalidInput, ValueError, KeyError, TypeError) as exc:
            raise corrupt(self.path, f"a relationship cannot be read ({exc})") from exc
        if rel.key != (source, target, type_) or row_tenant != tenant:
            raise corrupt(
                self.path, f"the row of ({source!r})-[{type_}]->({target!r}) holds another fact"
            )
        return rel

    def _near(self, tenant: str, entity_id: str) -> None:
        """Read the models around a node that are not read yet, in one query."""
        data = self._store._tenants[tenant]
        graph = data.graph
        nodes = graph._node
        node = nodes[entity_id]
        if getattr(node, "near", False):
            return
        succ, pred = graph._succ[entity_id], graph._pred[entity_id]
        edges = {
            edge.rid: edge
            for adjacency in (succ, pred)
            for keydict in adjacency.values()
            for edge in keydict.values()
            if "r" not in edge
        }
        ends = {n.rid: n for other in (entity_id, *succ, *pred) if "e" not in (n := nodes[other])}
        if ends or edges:
            entity, relationship = self._entity, self._relationship
            with reading(self.path, "reading an identity"):
                for (
                    rid,
                    tenant_,
                    first,
                    source,
                    target,
                    type_,
                    raw,
                    check,
                ) in self._connection().execute(
                    SQL["near"], (json.dumps(list(ends)), json.dumps(list(edges)))
                ):
                    if first is None:
                        edges.pop(rid)["r"] = relationship(
                            (tenant_, source, target, type_, raw, check), tenant
                        )
                    else:
                        ends.pop(rid)["e"] = entity((tenant_, first, raw, check), tenant)
            if ends or edges:
                raise corrupt(self.path, f"{len(ends) + len(edges)} rows have disappeared")
        with suppress(AttributeError):  # a node made by a write here has every model already
            node.near = True

    def _filler(self, tenant: str) -> Callable[[], None]:
        def fill() -> None:
            self._fill(tenant)

        return fill

    def _fill(self, tenant: str) -> None:
        """Read every model of a tenant not read yet, in two scans (for whole-tenant reads)."""
        data = self._store._tenants.get(tenant)
        if data is None:
            return
        graph = data.graph
        conn = self._connection()
        with reading(self.path, "reading a tenant"):
            nodes = {n.rid: n for n in graph._node.values() if "e" not in n}
            if nodes:
                for rid, *row in conn.execute(
                    "SELECT rid, tenant, id, CAST(body AS BLOB), crc FROM entity WHERE tenant = ?",
                    (tenant,),
                ):
                    node = nodes.pop(rid, None)
                    if node is not None:
                        node["e"] = self._entity(tuple(row), tenant)
            edges = {
                e.rid: e
                for keydicts in graph._succ.values()
                for keydict in keydicts.values()
                for e in keydict.values()
                if "r" not in e
            }
            if edges:
                for rid, *row in conn.execute(
                    "SELECT rid, tenant, source, target, type, CAST(body AS BLOB), crc "
                    "FROM relationship WHERE tenant = ?",
                    (tenant,),
                ):
                    edge = edges.pop(rid, None)
                    if edge is not None:
                        edge["r"] = self._relationship(tuple(row), tenant)
        if nodes or edges:
            raise corrupt(self.path, f"{len(nodes) + len(edges)} rows have disappeared")
        data.fill = None
        data.near = None  # every model is in memory: nothing left to read around a node

    # ------------------------------------------------------------------ writing

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

    # ------------------------------------------------------------------ following (readers)

    @contextmanager
    def following(self) -> Iterator[None]:
        """One read transaction around an operation, after syncing what others committed."""
        conn = self._conn
        if conn is None or conn.in_transaction:  # a journal read in place; or nested
            yield
            return
        with reading(self.path, "reading what was committed"):
            conn.execute("BEGIN")
            try:
                self._catch_up()
            except BaseException:
                conn.execute("COMMIT")
                raise
        try:
            yield
        finally:
            with suppress(sqlite3.Error):
                conn.execute("COMMIT")

    def _catch_up(self) -> None:
        conn = self._connection()
        if not self._ready:
            if not conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                return
            self._prepare()
            self._load_tables()
            return
        last = conn.execute("SELECT max(seq) FROM change").fetchone()[0] or 0
        if last == self._seq:
            return
        first = conn.execute("SELECT min(seq) FROM change").fetchone()[0] or 0
        if last < self._seq or first > self._seq + 1:
            self._load_tables()  # fell behind the kept changes (or the file was replaced)
            return
        touched: dict[str, Touched] = {}
        for seq, tenant, body, check in conn.execute(
            "SELECT seq, tenant, record, crc FROM change WHERE seq > ? ORDER BY seq", (self._seq,)
        ):
            if crc32(body.encode(), seq) != check:
                raise corrupt(self.path, f"change {seq} fails its checksum")
            log = json.loads(body)
            if log.get("clear"):
                touched[tenant] = Touched(cleared=True)
            touched.setdefault(tenant, Touched()).add(log)
            self._seq = seq
        for tenant, changes in touched.items():
            Sync(self, tenant, changes).run()

    # ------------------------------------------------------------------ close

    def warm(self) -> None:
        """Start reading every model not read yet in the background (:mod:`.sqlite_warm`)."""
        from graphmem.backends.networkx.sqlite_warm import Warmer

        if self._conn is None or self._warmer is not None:
            return
        if any(data.fill is not None for data in self._store._tenants.values()):
            self._warmer = Warmer(self)
            self._warmer.start()

    def stop_warming(self) -> None:
        """Stop the warm-up (if one runs) and wait for it: at most one small step."""
        if self._warmer is not None:
            self._warmer.stop()

    def side_connection(self) -> sqlite3.Connection:
        """A read-only connection of its own to this file (for the warm-up thread)."""
        conn = _connection(self.path, read_only=True)
        conn.execute("PRAGMA cell_size_check = ON")
        return conn

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


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
