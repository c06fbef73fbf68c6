"""The chunk room of ``Neo4jStore``: document chunks and the MENTIONS edges of turns and chunks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import neo4j

from graphmem.backends.model_checks import check_models, dedupe
from graphmem.backends.neo4j.mapping import (
    chunk_from_row,
    chunk_props,
    to_datetime,
    wire_time,
)
from graphmem.backends.neo4j.plumbing import Neo4jBase
from graphmem.backends.neo4j.rows import (
    _limit,
    _mention_queries,
    _slices,
)
from graphmem.core.checks import (
    check_id,
    check_ids,
    check_positive,
)
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Chunk, NodeKind


class ChunkRoom(Neo4jBase):
    """Chunks, and the mentions that tie turns and chunks to entities."""

    def upsert_chunks(self, tenant: str, chunks: Sequence[Chunk]) -> list[Chunk]:
        """Insert or replace chunks by id, in one batch; return them as stored.

        A replaced chunk keeps its ``created_at``, its mentions and its embedding.
        """
        tenant = self._check(tenant)
        given = check_models(chunks, Chunk, "chunks")
        batch = dedupe(given, lambda c: c.id)
        if not batch:
            return []
        stored = self._execute(lambda tx: self._upsert_chunks_tx(tx, tenant, batch), write=True)
        return [stored[chunk.id] for chunk in given]

    def _upsert_chunks_tx(
        self, tx: neo4j.ManagedTransaction, tenant: str, batch: Sequence[Chunk]
    ) -> dict[str, Chunk]:
        rows = [
            {"id": c.id, "created_at": wire_time(c.created_at), "props": chunk_props(c, tenant)}
            for c in batch
        ]
        created: dict[str, Any] = {}
        for part in _slices(rows):
            params = {"tenant": tenant, "rows": list(part)}
            for row in self._run(tx, "chunks/upsert_chunks", params):
                created[row["id"]] = row["created_at"]
        return {
            c.id: c.model_copy(update={"created_at": to_datetime(created[c.id])}) for c in batch
        }

    def get_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Return the chunks that exist among ``chunk_ids``, in the order asked; one query."""
        tenant = self._check(tenant)
        ids = check_ids(chunk_ids, "chunk_ids")
        if not ids:
            return []
        rows = self._read("chunks/get_chunks", {"tenant": tenant, "ids": list(dict.fromkeys(ids))})
        by_id = {row["chunk"]["id"]: chunk_from_row(row["chunk"]) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def delete_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> int:
        """Delete chunks with their mentions and embeddings; return how many existed."""
        tenant = self._check(tenant)
        ids = list(dict.fromkeys(check_ids(chunk_ids, "chunk_ids")))
        if not ids:
            return 0

        def work(tx: neo4j.ManagedTransaction) -> int:
            return sum(
                int(
                    self._run(tx, "chunks/delete_chunks", {"tenant": tenant, "ids": list(p)})[0][
                        "deleted"
                    ]
                )
                for p in _slices(ids)
            )

        return self._execute(work, write=True)

    def count_chunks(self, tenant: str) -> int:
        """The number of chunks."""
        tenant = self._check(tenant)
        return int(self._read("chunks/count_chunks", {"tenant": tenant})[0]["count"])

    def link_mentions(
        self, tenant: str, kind: NodeKind, mentions: Mapping[str, Sequence[str]]
    ) -> int:
        """Set the entities each turn or chunk mentions (replacing earlier mentions).

        One query (per 5,000 nodes, in one transaction) that checks every node and entity
        first and writes only when all exist; otherwise ``InvalidInput`` names them.
        """
        tenant = self._check(tenant)
        queries = _mention_queries(kind)
        if not isinstance(mentions, Mapping):
            raise InvalidInput("mentions must map node ids to lists of entity ids")
        links = [
            {
                "node_id": check_id(node_id, "a node id of mentions"),
                "entity_ids": list(dict.fromkeys(check_ids(entity_ids, f"mentions[{node_id!r}]"))),
            }
            for node_id, entity_ids in mentions.items()
        ]
        if not links:
            return 0

        def work(tx: neo4j.ManagedTransaction) -> None:
            for part in _slices(links):
                row = self._run(tx, queries.link, {"tenant": tenant, "links": list(part)})[0]
                missing_nodes = sorted(row["missing_nodes"])
                missing = sorted(row["missing_entities"])
                if missing_nodes or missing:
                    raise InvalidInput(
                        f"mentions name unknown {kind}s {missing_nodes[:10]} and unknown "
                        f"entities {missing[:10]}; store them first. Nothing was written.",
                        missing_node_ids=missing_nodes,
                        missing_ids=missing,
                    )

        self._execute(work, write=True)
        return sum(len(link["entity_ids"]) for link in links)

    def get_mentions(
        self, tenant: str, kind: NodeKind, node_ids: Sequence[str]
    ) -> dict[str, list[str]]:
        """The entity ids each turn or chunk mentions, sorted; nodes without any are absent."""
        tenant = self._check(tenant)
        queries = _mention_queries(kind)
        ids = check_ids(node_ids, "node_ids")
        if not ids:
            return {}
        rows = self._read(queries.get, {"tenant": tenant, "ids": list(dict.fromkeys(ids))})
        found = {row["node_id"]: sorted(row["entity_ids"]) for row in rows}
        return {n: found[n] for n in ids if n in found}

    def find_mentioning(
        self,
        tenant: str,
        kind: NodeKind,
        entity_ids: Sequence[str],
        *,
        limit: int | None = None,
    ) -> dict[str, list[str]]:
        """For each entity, the ids of the turns or chunks mentioning it (sorted, capped)."""
        tenant = self._check(tenant)
        queries = _mention_queries(kind)
        if limit is not None:
            check_positive(limit, "limit")
        ids = check_ids(entity_ids, "entity_ids")
        if not ids:
            return {}
        params = {
            "tenant": tenant,
            "entity_ids": list(dict.fromkeys(ids)),
            "limit": _limit(limit),
        }
        found = {
            row["entity_id"]: sorted(row["node_ids"]) for row in self._read(queries.find, params)
        }
        return {e: found[e] for e in ids if e in found}
