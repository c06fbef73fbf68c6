"""Change records to SQL (the writer), and committed changes back into a reader's graph.

See :mod:`graphmem.backends.networkx.sqlite_file` for the design; :mod:`.sqlite_commit` and
:mod:`.sqlite_load` use them.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from zlib import crc32

from graphmem.backends.networkx.codec import encode, encode_all, key_crc
from graphmem.backends.networkx.protocols import StoreHost
from graphmem.backends.networkx.sqlite_rows import (
    KEY_COLUMNS,
    SQL,
    TABLES,
    corrupt,
    merged,
    ranges,
)
from graphmem.backends.networkx.state import _Tenant
from graphmem.core.models import Chunk, Entity, Record, Relationship, Turn

__all__ = ["Sync", "SyncFile", "Touched", "Write", "WriteFile"]


class WriteFile(Protocol):
    """The file a change is written to (:class:`~.sqlite_commit.FileCommit`)."""

    path: Path
    _store: StoreHost
    _next: dict[str, int]  # the next row id of each table with row ids

    def _connection(self) -> sqlite3.Connection: ...

    def allocate(self, table: str, count: int) -> int:
        """The first of ``count`` fresh row ids of ``table``."""


class SyncFile(Protocol):
    """The file a reader syncs from (:class:`~.sqlite_load.FileLoad`)."""

    path: Path
    _store: StoreHost

    def _connection(self) -> sqlite3.Connection: ...

    def _entity(self, row: tuple[Any, ...], tenant: str) -> Entity: ...

    def _relationship(self, row: tuple[Any, ...], tenant: str) -> Relationship: ...

    def _model(self, model: type[Any], raw: bytes, what: str) -> Any: ...


class Write:
    """The SQL of one change record, worked out from the store before it is applied."""

    def __init__(self, file: WriteFile, tenant: str, data: _Tenant | None) -> None:
        self.file = file
        self.conn = file._connection()
        self.tenant = tenant
        self.data = data
        self.log: dict[str, Any] = {}
        self.deltas: Counter[str] = Counter()
        # The first row id of the new nodes and edges, which the graph's factories give
        # them as the store applies the record; and what they were given to, to verify.
        self.feed = {"entity": 0, "relationship": 0}
        self._made: list[tuple[str, int, list[Any]]] = []

    def settle(self, fed: dict[str, int]) -> None:
        """After the store applied the record: check the new dicts got their row ids.

        They always should (the store makes one per new item, in order); if a change to
        the store ever broke that, the ids are set here one by one instead.
        """
        if not self._made:
            return
        graph = self.file._store._tenants[self.tenant].graph
        for table, end, keys in self._made:
            if fed[table] == end and self._rid(graph, table, keys[-1]) == end - 1:
                continue
            for rid, key in enumerate(keys, start=end - len(keys)):
                if table == "entity":
                    graph._node[key].rid = rid
                else:
                    source, target, type_ = key
                    graph._succ[source][target][type_].rid = rid

    @staticmethod
    def _rid(graph: Any, table: str, key: Any) -> int | None:
        made = graph._node[key] if table == "entity" else graph._succ[key[0]][key[1]][key[2]]
        return getattr(made, "rid", None)

    # -- helpers

    def _run(self, sql: str, rows: list[tuple[Any, ...]], table: str, expect: int | None) -> int:
        if not rows:
            return 0
        count = self.conn.executemany(sql, rows).rowcount
        if expect is not None and count != expect:
            raise corrupt(
                self.file.path,
                f"table {table} holds {count} of the {expect} rows graphmem expected to change",
            )
        return count

    def _insert(self, sql: str, rows: list[tuple[Any, ...]], table: str) -> None:
        self._run(sql, rows, table, len(rows))
        self.deltas[table] += len(rows)

    def _delete(self, sql: str, rows: list[tuple[Any, ...]], table: str, expect: int) -> None:
        self.deltas[table] -= self._run(sql, rows, table, expect)

    def _touch(self, key: str, items: Iterable[Any]) -> None:
        self.log.setdefault(key, []).extend(items)

    # -- operations (named after the change records of the store)

    def put(self, record: dict[str, Any]) -> None:
        """The rows of a ``put`` record (deletes first, as the store applies them)."""
        data, tenant = self.data, self.tenant
        gone = record.get("delete_entities", ())  # write_changes
        ends = set(gone)
        for key in record.get("delete_relationships", ()):  # write_changes
            if key[0] not in ends and key[1] not in ends:  # else gone with its entity
                self.delete_relationship({"key": key})
        if gone:
            self.delete_entities({"ids": gone})
        if record.get("entities"):
            self._put_entities(record["entities"])
        if record.get("relationships"):
            self._put_relationships(record["relationships"])
        if record.get("turns"):
            turns = data.turns if data is not None else {}
            ids = [(t.id,) for t in record["turns"]]
            self._put_bodies("turn", record["turns"], ids, lambda key: key[0] in turns)
            self._touch("turns", [t.id for t in record["turns"]])
        if record.get("records"):
            stored = data.records if data is not None else {}
            keys = [(r.kind, r.id) for r in record["records"]]
            self._put_bodies(
                "record", record["records"], keys, lambda k: k[1] in stored.get(k[0], {})
            )
            self._touch("records", [list(k) for k in keys])
        for kind, ids in record.get("delete_records", {}).items():  # write_records
            self.delete_records({"kind": kind, "ids": ids})
        if record.get("chunks"):
            chunks = data.chunks if data is not None else {}
            ids = [(c.id,) for c in record["chunks"]]
            self._put_bodies("chunk", record["chunks"], ids, lambda key: key[0] in chunks)
            self._touch("chunks", [c.id for c in record["chunks"]])
        if record.get("heads"):
            self._heads(record["heads"])
        if record.get("mentions"):
            mentions = data.mentions if data is not None else {"turn": {}, "chunk": {}}
            rows = {
                (tenant, kind, node, entity, key_crc(tenant, kind, node, entity))
                for kind, node, entity in record["mentions"]
                if entity not in mentions[kind].get(node, ())
            }
            self._insert(SQL["mention.insert"], sorted(rows), "mention")
            self._touch("mentions", sorted({(k, n) for k, n, _e in record["mentions"]}))

    def _put_bodies(
        self,
        table: str,
        items: Sequence[Any],
        keys: Sequence[tuple[str, ...]],
        stored: Callable[[tuple[str, ...]], bool],
    ) -> None:
        """Insert or update models of a table keyed by (tenant, *key)."""
        tenant = self.tenant
        inserts: list[tuple[Any, ...]] = []
        updates: list[tuple[Any, ...]] = []
        for key, (body, body_crc) in zip(keys, encode_all(items), strict=True):
            check = body_crc ^ key_crc(tenant, *key)
            if stored(key):
                updates.append((body, check, tenant, *key))
            else:
                inserts.append((tenant, *key, body, check))
        self._insert(SQL[f"{table}.insert"], inserts, table)
        self._run(SQL[f"{table}.update"], updates, table, len(updates))

    def _put_entities(self, entities: Sequence[Entity]) -> None:
        tenant = self.tenant
        nodes = self.data.graph._node if self.data is not None else {}
        first = rid = self.file._next["entity"]
        inserts: list[tuple[Any, ...]] = []
        updates: list[tuple[Any, ...]] = []
        for entity, (body, check) in zip(entities, encode_all(entities), strict=True):
            entity_id = entity.id
            node = nodes.get(entity_id)
            if node is None:
                row_crc = crc32(f"{rid}\x1f{tenant}\x1f{entity_id}".encode())
                inserts.append((rid, tenant, entity_id, body, check, row_crc))
                rid += 1
            else:
                updates.append((body, check, node.rid))
        self._put_rows("entity", first, rid, inserts, updates, [i[2] for i in inserts])

    def _put_relationships(self, rels: Sequence[Relationship]) -> None:
        tenant = self.tenant
        succ = self.data.graph._succ if self.data is not None else {}
        empty: dict[str, Any] = {}
        first = rid = self.file._next["relationship"]
        inserts: list[tuple[Any, ...]] = []
        updates: list[tuple[Any, ...]] = []
        for rel, (body, check) in zip(rels, encode_all(rels), strict=True):
            source, target, type_ = rel.source_id, rel.target_id, rel.type
            edge = succ.get(source, empty).get(target, empty).get(type_)
            if edge is None:
                row_crc = crc32(f"{rid}\x1f{tenant}\x1f{source}\x1f{target}\x1f{type_}".encode())
                inserts.append((rid, tenant, source, target, type_, body, check, row_crc))
                rid += 1
            else:
                updates.append((body, check, edge.rid))
        self._put_rows("relationship", first, rid, inserts, updates, [i[2:5] for i in inserts])

    def _put_rows(
        self,
        table: str,
        first: int,
        end: int,
        inserts: list[tuple[Any, ...]],
        updates: list[tuple[Any, ...]],
        keys: list[Any],
    ) -> None:
        """Write the rows of new and replaced entities (or relationships), ids first..end-1."""
        self.file.allocate(table, end - first)
        self._insert(SQL[f"{table}.insert"], inserts, table)
        self._run(SQL[f"{table}.update"], updates, table, len(updates))
        touched = "entities" if table == "entity" else "relationships"
        self._touch(touched, ranges([u[2] for u in updates]))
        if end > first:
            self._touch(touched, [[first, end - 1]])
            self.feed[table] = first
            self._made.append((table, end, keys))

    def _heads(self, heads: dict[str, str | None]) -> None:
        tenant = self.tenant
        sessions = self.data.sessions if self.data is not None else {}
        inserts, updates, deletes = [], [], []
        for session_id, head in heads.items():
            session = sessions.get(session_id)
            had = session is not None and session.head is not None
            if head is None:
                if had:
                    deletes.append((tenant, session_id))
            elif had:
                updates.append((head, key_crc(tenant, session_id, head), tenant, session_id))
            else:
                inserts.append((tenant, session_id, head, key_crc(tenant, session_id, head)))
        self._insert(SQL["head.insert"], inserts, "head")
        self._run(SQL["head.update"], updates, "head", len(updates))
        self._delete(SQL["head.delete"], deletes, "head", len(deletes))
        self._touch("sessions", list(heads))

    def _forget(self, kind: str, node_ids: Sequence[str]) -> None:
        """Delete the mentions and embeddings of deleted nodes (as the store forgets them)."""
        data, tenant = self.data, self.tenant
        assert data is not None
        index = data.vectors.get(kind)
        vectors = [(tenant, kind, n) for n in node_ids if index is not None and n in index.rows]
        self._delete(SQL["embedding.delete"], vectors, "embedding", len(vectors))
        if kind == "entity":
            rows = [
                (tenant, mention_kind, node, entity)
                for entity in node_ids
                for mention_kind in ("turn", "chunk")
                for node in data.mentioned_by[mention_kind].get(entity, ())
            ]
            self._delete(SQL["mention.delete"], rows, "mention", len(rows))
            return
        known = data.mentions[kind]
        expect = sum(len(known.get(n, ())) for n in node_ids)
        self._delete(
            SQL["mention.delete_node"], [(tenant, kind, n) for n in node_ids], "mention", expect
        )

    def delete_entities(self, record: dict[str, Any]) -> None:
        """The rows of a ``delete_entities`` record."""
        data = self.data
        assert data is not None
        graph = data.graph
        ids = record["ids"]
        edges = {
            edge.rid
            for entity_id in ids
            for adjacency in (graph._succ[entity_id], graph._pred[entity_id])
            for keydict in adjacency.values()
            for edge in keydict.values()
        }
        self._delete(SQL["relationship.delete"], [(r,) for r in edges], "relationship", len(edges))
        nodes = graph._node
        self._delete(SQL["entity.delete"], [(nodes[i].rid,) for i in ids], "entity", len(ids))
        self._forget("entity", ids)
        self._touch("entities_deleted", ids)

    def delete_chunks(self, record: dict[str, Any]) -> None:
        """The rows of a ``delete_chunks`` record."""
        ids = record["ids"]
        rows = [(self.tenant, i) for i in ids]
        self._delete(SQL["chunk.delete"], rows, "chunk", len(ids))
        self._forget("chunk", ids)
        self._touch("chunks_deleted", ids)

    def mentions(self, record: dict[str, Any]) -> None:
        """The rows of a ``mentions`` record."""
        data, tenant, kind = self.data, self.tenant, record["kind"]
        assert data is not None
        links: dict[str, list[str]] = record["links"]
        known = data.mentions[kind]
        expect = sum(len(known.get(n, ())) for n in links)
        self._delete(
            SQL["mention.delete_node"], [(tenant, kind, n) for n in links], "mention", expect
        )
        rows = [
            (tenant, kind, node, entity, key_crc(tenant, kind, node, entity))
            for node, entities in links.items()
            for entity in entities
        ]
        self._insert(SQL["mention.insert"], rows, "mention")
        self._touch("mentions", [[kind, n] for n in links])

    def embed(self, record: dict[str, Any]) -> None:
        """The rows of a ``embed`` record."""
        tenant, kind = self.tenant, record["kind"]
        index = self.data.vectors.get(kind) if self.data is not None else None
        matrix = record["vectors"].astype("<f4")
        inserts: list[tuple[Any, ...]] = []
        updates: list[tuple[Any, ...]] = []
        for row, node_id in enumerate(record["ids"]):
            vector = matrix[row].tobytes()
            check = crc32(vector, key_crc(tenant, kind, node_id))
            if index is not None and node_id in index.rows:
                updates.append((vector, check, tenant, kind, node_id))
            else:
                inserts.append((tenant, kind, node_id, vector, check))
        self._insert(SQL["embedding.insert"], inserts, "embedding")
        self._run(SQL["embedding.update"], updates, "embedding", len(updates))
        self._touch("embeddings", [[kind, n] for n in record["ids"]])

    def delete_relationship(self, record: dict[str, Any]) -> None:
        """The rows of a ``delete_relationship`` record."""
        assert self.data is not None
        source, target, type_ = record["key"]
        edge = self.data.graph._succ[source][target][type_]
        self._delete(SQL["relationship.delete"], [(edge.rid,)], "relationship", 1)
        self._touch("relationships_deleted", [[source, target, type_]])

    def delete_turn(self, record: dict[str, Any]) -> None:
        """The rows of a ``delete_turn`` record."""
        data, tenant = self.data, self.tenant
        assert data is not None
        turn_id = record["id"]
        turn = data.turns[turn_id]
        parent = turn.parent_id
        children = data.children.get(turn_id, [])
        updates = []
        for child_id in children:
            moved = data.turns[child_id].model_copy(update={"parent_id": parent})
            body, body_crc = encode(moved)
            updates.append((body, body_crc ^ key_crc(tenant, child_id), tenant, child_id))
        self._run(SQL["turn.update"], updates, "turn", len(updates))
        self._delete(SQL["turn.delete"], [(tenant, turn_id)], "turn", 1)
        session = data.sessions[turn.session_id]
        if session.head == turn_id:
            self._heads({turn.session_id: parent})
        self._forget("turn", [turn_id])
        self._touch("turns", children)
        self._touch("turns_deleted", [turn_id])
        self._touch("sessions", [turn.session_id])

    def delete_conversation(self, record: dict[str, Any]) -> None:
        """The rows of a ``delete_conversation`` record."""
        data, tenant = self.data, self.tenant
        assert data is not None
        session_id = record["session_id"]
        session = data.sessions[session_id]
        ids = list(session.order)
        self._delete(SQL["turn.delete"], [(tenant, i) for i in ids], "turn", len(ids))
        if session.head is not None:
            self._delete(SQL["head.delete"], [(tenant, session_id)], "head", 1)
        self._forget("turn", ids)
        self._touch("turns_deleted", ids)
        self._touch("sessions", [session_id])

    def delete_records(self, record: dict[str, Any]) -> None:
        """The rows of a ``delete_records`` record."""
        kind, ids = record["kind"], record["ids"]
        rows = [(self.tenant, kind, i) for i in ids]
        self._delete(SQL["record.delete"], rows, "record", len(ids))
        self._touch("records_deleted", [[kind, i] for i in ids])

    def clear(self, record: dict[str, Any]) -> None:
        """The rows of a ``clear`` record."""
        for table in TABLES:
            count = self.conn.execute(f"DELETE FROM {table} WHERE tenant = ?", (self.tenant,))
            self.deltas[table] -= count.rowcount
        self.log["clear"] = True


@dataclass
class Touched:
    """What the changes a reader has not seen yet did to one tenant."""

    cleared: bool = False
    keys: dict[str, list[Any]] = field(default_factory=dict)

    def add(self, log: dict[str, Any]) -> None:
        """Add what one change touched."""
        for key, items in log.items():
            if key != "clear":
                self.keys.setdefault(key, []).extend(items)

    def get(self, key: str) -> list[Any]:
        """The keys of one kind touched so far (with repeats)."""
        return self.keys.get(key, [])


class Sync:
    """Make a reader's tenant match the tables for every key the new changes touched.

    Deleted keys are deleted in memory first (with what the store deletes with them), then
    every touched key that is in the tables is read and put, so the order of the changes
    does not matter: the tenant ends as the tables are in this read transaction.
    """

    def __init__(self, file: SyncFile, tenant: str, touched: Touched) -> None:
        self.file = file
        self.store = file._store
        self.conn = file._connection()
        self.tenant = tenant
        self.touched = touched

    def run(self) -> None:
        """Delete what is gone, then read and put what is there."""
        store, tenant, touched = self.store, self.tenant, self.touched
        store._revision += 1  # heads, mentions and embeddings are put without _apply
        if touched.cleared and tenant in store._tenants:
            store._apply({"op": "clear", "tenant": tenant})
        self._deletes()
        put: dict[str, Any] = {"op": "put", "tenant": tenant}
        data = store._tenants.get(tenant)
        entities = self._rows(
            "SELECT tenant, id, CAST(body AS BLOB), crc FROM entity WHERE rid BETWEEN ? AND ?",
            merged(touched.get("entities")),
        )
        if entities:
            put["entities"] = [self.file._entity(row, tenant) for row in entities]
        known = {e.id for e in put.get("entities", ())} | set(data.graph._node if data else ())
        rels = self._rows(
            "SELECT tenant, source, target, type, CAST(body AS BLOB), crc "
            "FROM relationship WHERE rid BETWEEN ? AND ?",
            merged(touched.get("relationships")),
        )
        if rels:
            put["relationships"] = [
                self.file._relationship(row, tenant)
                for row in rels
                if row[1] in known and row[2] in known
            ]
        turns = self._bodies(Turn, "turn", [(i,) for i in dict.fromkeys(touched.get("turns"))])
        if turns:
            put["turns"] = sorted(turns, key=lambda t: (t.created_at, t.id))
        records = self._bodies(
            Record, "record", [tuple(k) for k in {tuple(k): None for k in touched.get("records")}]
        )
        if records:
            put["records"] = records
        chunks = self._bodies(Chunk, "chunk", [(i,) for i in dict.fromkeys(touched.get("chunks"))])
        if chunks:
            put["chunks"] = chunks
        if len(put) > 2:
            store._apply(put)
        self._heads(dict.fromkeys(touched.get("sessions")))
        self._mentions({tuple(k): None for k in touched.get("mentions")})
        self._embeddings({tuple(k): None for k in touched.get("embeddings")})

    def _rows(self, sql: str, ranges: list[list[int]]) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        for first, last in ranges:
            rows.extend(self.conn.execute(sql, (first, last)))
        return [row for row in rows if row[0] == self.tenant]

    def _bodies(self, model: type[Any], table: str, keys: list[tuple[Any, ...]]) -> list[Any]:
        out = []
        where = " AND ".join(f"{column} = ?" for column in KEY_COLUMNS[table])
        sql = f"SELECT CAST(body AS BLOB), crc FROM {table} WHERE tenant = ? AND {where}"
        for key in keys:
            row = self.conn.execute(sql, (self.tenant, *key)).fetchone()
            if row is None:
                continue
            raw, check = row
            if crc32(raw) ^ key_crc(self.tenant, *key) != check:
                raise corrupt(self.file.path, f"{table} {key} fails its checksum")
            out.append(self.file._model(model, raw, f"{table} {key}"))
        return out

    def _deletes(self) -> None:
        store, tenant, touched = self.store, self.tenant, self.touched
        data = store._tenants.get(tenant)
        if data is None:
            return
        gone = [i for i in dict.fromkeys(touched.get("entities_deleted")) if i in data.graph._node]
        if gone:
            store._apply({"op": "delete_entities", "tenant": tenant, "ids": gone})
        for source, target, type_ in touched.get("relationships_deleted"):
            if data.graph.has_edge(source, target, key=type_):
                store._apply(
                    {"op": "delete_relationship", "tenant": tenant, "key": [source, target, type_]}
                )
        gone = [i for i in dict.fromkeys(touched.get("chunks_deleted")) if i in data.chunks]
        if gone:
            store._apply({"op": "delete_chunks", "tenant": tenant, "ids": gone})
        for turn_id in dict.fromkeys(touched.get("turns_deleted")):
            if turn_id in data.turns:
                store._apply({"op": "delete_turn", "tenant": tenant, "id": turn_id})
        by_kind: dict[str, list[str]] = {}
        for kind, record_id in touched.get("records_deleted"):
            if record_id in data.records.get(kind, {}):
                by_kind.setdefault(kind, []).append(record_id)
        for kind, ids in by_kind.items():
            store._apply({"op": "delete_records", "tenant": tenant, "kind": kind, "ids": ids})

    def _heads(self, sessions: dict[str, None]) -> None:
        data = self.store._tenants.get(self.tenant)
        if data is None:
            return
        for session_id in sessions:
            session = data.sessions.get(session_id)
            if session is None:
                continue
            row = self.conn.execute(
                "SELECT turn, crc FROM head WHERE tenant = ? AND session = ?",
                (self.tenant, session_id),
            ).fetchone()
            if row is not None and key_crc(self.tenant, session_id, row[0]) != row[1]:
                raise corrupt(self.file.path, f"the head of {session_id!r} fails its checksum")
            session.head = row[0] if row is not None else None

    def _mentions(self, nodes: dict[tuple[Any, ...], None]) -> None:
        data = self.store._tenants.get(self.tenant)
        if data is None or not nodes:
            return
        links: dict[str, dict[str, list[str]]] = {}
        for kind, node in nodes:
            present = data.chunks if kind == "chunk" else data.turns
            if node not in present:
                continue
            entities = []
            for entity, check in self.conn.execute(
                "SELECT entity, crc FROM mention WHERE tenant = ? AND kind = ? AND node = ?",
                (self.tenant, kind, node),
            ):
                if key_crc(self.tenant, kind, node, entity) != check:
                    raise corrupt(self.file.path, f"a mention by {kind} {node!r} is damaged")
                entities.append(entity)
            links.setdefault(kind, {})[node] = entities
        for kind, by_node in links.items():
            self.store._apply(
                {"op": "mentions", "tenant": self.tenant, "kind": kind, "links": by_node}
            )

    def _embeddings(self, keys: dict[tuple[Any, ...], None]) -> None:
        import numpy as np

        if not keys or self.tenant not in self.store._tenants:
            return
        by_kind: dict[str, tuple[list[str], list[bytes]]] = {}
        for kind, node_id in keys:
            row = self.conn.execute(
                "SELECT vector, crc FROM embedding WHERE tenant = ? AND kind = ? AND id = ?",
                (self.tenant, kind, node_id),
            ).fetchone()
            if row is None:
                continue
            if crc32(row[0], key_crc(self.tenant, kind, node_id)) != row[1]:
                raise corrupt(self.file.path, f"the embedding of {node_id!r} fails its checksum")
            ids, vectors = by_kind.setdefault(kind, ([], []))
            ids.append(node_id)
            vectors.append(row[0])
        for kind, (ids, vectors) in by_kind.items():
            matrix = np.frombuffer(b"".join(vectors), dtype="<f4").astype(np.float32)
            self.store._apply(
                {
                    "op": "embed",
                    "tenant": self.tenant,
                    "kind": kind,
                    "ids": ids,
                    "vectors": matrix.reshape(len(ids), -1),
                }
            )
