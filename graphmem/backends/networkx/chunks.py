"""The chunk room of ``NetworkXStore``: document chunks and the mentions of turns and chunks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.backends.load_plan import MENTION_KINDS
from graphmem.backends.model_checks import check_models
from graphmem.backends.networkx.base import (
    NetworkXBase,
    _check_kind,
    _operation,
)
from graphmem.backends.networkx.state import _Tenant
from graphmem.core.checks import check_ids, check_limit
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Chunk, NodeKind


class ChunkRoom(NetworkXBase):
    """Chunks, and the mentions that tie turns and chunks to entities."""

    @_operation
    def upsert_chunks(self, tenant: str, chunks: Sequence[Chunk]) -> list[Chunk]:
        """Insert or replace chunks by id, in one batch; return them as stored."""
        batch = check_models(chunks, Chunk, "chunks")
        known = self._tenant(tenant).chunks
        stored: dict[str, Chunk] = {}
        for chunk in batch:
            old = known.get(chunk.id)
            if old is not None and old.created_at != chunk.created_at:
                chunk = chunk.model_copy(update={"created_at": old.created_at})
            stored[chunk.id] = chunk
        if stored:
            self._commit({"op": "put", "tenant": tenant, "chunks": list(stored.values())})
        return [stored[c.id] for c in batch]

    @_operation
    def get_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Return the chunks that exist among ``chunk_ids``, in the order asked."""
        known = self._tenant(tenant).chunks
        return [known[i] for i in check_ids(chunk_ids, "chunk_ids") if i in known]

    @_operation
    def delete_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> int:
        """Delete chunks with their mentions and embeddings; return how many existed."""
        known = self._tenant(tenant).chunks
        present = [i for i in dict.fromkeys(check_ids(chunk_ids, "chunk_ids")) if i in known]
        if present:
            self._commit({"op": "delete_chunks", "tenant": tenant, "ids": present})
        return len(present)

    @_operation
    def count_chunks(self, tenant: str) -> int:
        """The number of chunks."""
        return len(self._tenant(tenant).chunks)

    def _node_ids(self, data: _Tenant, kind: str) -> Mapping[str, Any]:
        if kind == "entity":
            nodes: Mapping[str, Any] = data.graph._node
            return nodes
        return data.turns if kind == "turn" else data.chunks

    @_operation
    def link_mentions(
        self, tenant: str, kind: NodeKind, mentions: Mapping[str, Sequence[str]]
    ) -> int:
        """Set the entities each turn or chunk mentions (replacing earlier mentions)."""
        _check_kind(kind, MENTION_KINDS)
        if not isinstance(mentions, Mapping):
            raise InvalidInput("mentions must map node ids to lists of entity ids")
        data = self._tenant(tenant)
        nodes = self._node_ids(data, kind)
        entities = data.graph._node
        links: dict[str, list[str]] = {}
        for node_id, entity_ids in mentions.items():
            links[node_id] = list(dict.fromkeys(check_ids(entity_ids, f"mentions[{node_id!r}]")))
        missing_nodes = sorted(n for n in links if n not in nodes)
        missing = sorted({e for ids in links.values() for e in ids if e not in entities})
        if missing_nodes or missing:
            raise InvalidInput(
                f"mentions name unknown {kind}s {missing_nodes[:10]} and unknown entities "
                f"{missing[:10]}; store them first. Nothing was written.",
                missing_node_ids=missing_nodes,
                missing_ids=missing,
            )
        if links:
            self._commit({"op": "mentions", "tenant": tenant, "kind": kind, "links": links})
        return sum(len(ids) for ids in links.values())

    @_operation
    def get_mentions(
        self, tenant: str, kind: NodeKind, node_ids: Sequence[str]
    ) -> dict[str, list[str]]:
        """The entity ids each turn or chunk mentions, sorted; nodes without any are absent."""
        _check_kind(kind, MENTION_KINDS)
        known = self._tenant(tenant).mentions[kind]
        return {n: sorted(known[n]) for n in check_ids(node_ids, "node_ids") if n in known}

    @_operation
    def find_mentioning(
        self,
        tenant: str,
        kind: NodeKind,
        entity_ids: Sequence[str],
        *,
        limit: int | None = None,
    ) -> dict[str, list[str]]:
        """For each entity, the ids of the turns or chunks mentioning it (sorted, capped)."""
        _check_kind(kind, MENTION_KINDS)
        check_limit(limit)
        data = self._tenant(tenant)
        known, ordered = data.mentioned_by[kind], data.sorted_mentions[kind]
        out: dict[str, list[str]] = {}
        for entity_id in check_ids(entity_ids, "entity_ids"):
            nodes = ordered.get(entity_id)
            if nodes is None:
                found = known.get(entity_id)
                if not found:
                    continue
                nodes = ordered[entity_id] = sorted(found)
            out[entity_id] = nodes[:limit] if limit else nodes[:]
        return out
