"""Loading a ``file://`` store: its tables into the tenants, and a reader's catch-up.

Part of :mod:`graphmem.backends.networkx.sqlite_file` (see it for the design). Opening
loads ids and adjacency only (the models are read when first used, :mod:`.sqlite_read`),
verifies the key checksums and row counts of every table and graphmem's own invariants,
and compares the database with its commit record (:mod:`.sqlite_seal`). Before each
operation a reader reads the ``change`` rows after the last one it saw and syncs what
they name from the tables (:class:`~.sqlite_changes.Sync`), inside one read transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from sys import intern
from typing import Any
from zlib import crc32

from graphmem.backends.networkx import journal
from graphmem.backends.networkx.codec import key_crc
from graphmem.backends.networkx.protocols import StoreHost
from graphmem.backends.networkx.sqlite_changes import Sync, Touched
from graphmem.backends.networkx.sqlite_read import FileRead
from graphmem.backends.networkx.sqlite_rows import (
    KEY_COLUMNS,
    TABLES,
    corrupt,
    raise_problems,
    reading,
    state_problems,
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
from graphmem.backends.networkx.state import _Tenant, paused_gc
from graphmem.core.models import Chunk, Record, Turn

__all__ = ["FileLoad"]


class FileLoad(FileRead):
    """The tables of an open file loaded into its store's tenants, and kept in step."""

    def __init__(self, store: StoreHost, path: Path, *, read_only: bool, fsync: bool) -> None:
        super().__init__(store, path, read_only=read_only, fsync=fsync)
        self._seq = 0
        self._next = {"entity": 1, "relationship": 1}
        self._counts: Counter[str] = Counter()
        self._store_id = 0  # meta's store.id (0: a store written before it had one)
        self._seal: Seal | None = None  # the writer's commit record (sqlite_seal)

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
        store._revision += 1
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
