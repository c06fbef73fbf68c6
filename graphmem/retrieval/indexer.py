"""Indexing for retrieval: documents into chunks, entities and turns into the indexes.

One :class:`Indexer` per memory (``Memory.add_documents``, ``index_entities``,
``index_turns``, ``flush_index`` and ``pending_index`` delegate to it). It links what it
stores to the entities it names (the memory's :class:`~graphmem.retrieval.linking.Linking`)
and embeds it (the memory's embedder), in batches. Turns appended through the memory are
queued by :meth:`Indexer.queue` (the conversation's on-append hook) and indexed in a batch
before the next retrieval, or as soon as ``index_batch`` wait.

Importing this module is light (no numpy): the hook is in place from a memory's first
conversation on; the embedder is made only when something is embedded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from graphmem.core.batches import coerce_batch
from graphmem.core.checks import check_ids, check_positive
from graphmem.core.errors import GraphmemError, InvalidInput
from graphmem.core.models import (
    Chunk,
    Document,
    Entity,
    EntityFilter,
    Relationship,
    Turn,
    entity_text,
)
from graphmem.core.progress import progress_bar
from graphmem.retrieval.ingest import Extractor, IngestReport, NoExtractor, chunk_text
from graphmem.retrieval.ingest import title_entities as make_title_entities
from graphmem.retrieval.linking import Linking

if TYPE_CHECKING:
    from graphmem.core.store import GraphStore

__all__ = ["Indexer"]

_EMBED_BATCH = 512  # turns and entities per embedding call and per index write


def chunk_embed_text(chunk: Chunk) -> str:
    """What a chunk is embedded and linked as: its title, then its text."""
    title = chunk.attributes.get("title")
    return f"{title}: {chunk.text}" if isinstance(title, str) and title else chunk.text


def _documents(documents: Iterable[Document | Mapping[str, Any] | str]) -> list[Document]:
    out: list[Document] = coerce_batch(
        Document, documents, "documents", from_str=lambda text: Document(text=text)
    )
    ids = [d.id for d in out]
    if len(set(ids)) != len(ids):
        raise InvalidInput("documents repeat an id; give each document its own id")
    return out


class Indexer:
    """Writes what retrieval reads: chunks, mentions and embeddings, for one tenant.

    Args:
        store: The store.
        tenant: Whose memory.
        embedder: Gives the embedder when something is to be embedded (the memory's,
            made on first use).
        linking: The tenant's entity linking, shared with the memory's retrievers.
        index_batch: Index queued turns as soon as this many wait (None: only before a
            retrieval or :meth:`flush`).
        progress: Draw progress bars by default.
    """

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        *,
        embedder: Callable[[], Any],
        linking: Linking,
        index_batch: int | None = None,
        progress: bool = False,
    ) -> None:
        self._store = store
        self._tenant = tenant
        self._embedder = embedder
        self._linking = linking
        self._index_batch = index_batch
        self._progress = progress
        # Turns appended through the memory, waiting to be linked and embedded in a batch.
        self._pending: dict[str, Turn] = {}
        self._pending_lock = threading.Lock()

    def _embed(self, texts: Sequence[str]) -> Any:
        from graphmem.retrieval.steps import embed_texts

        return embed_texts(self._embedder(), texts)

    # ------------------------------------------------------------------ documents

    def add_documents(
        self,
        documents: Iterable[Document | Mapping[str, Any] | str],
        *,
        chunk_tokens: int = 200,
        overlap: int = 1,
        extractor: Extractor | None = None,
        embed: bool = True,
        batch_size: int = 256,
        nested_mentions: bool = True,
        progress: bool | None = None,
        title_entities: bool = False,
    ) -> IngestReport:
        """Chunk, link and embed documents; see :meth:`graphmem.Memory.add_documents`."""
        check_positive(chunk_tokens, "chunk_tokens")
        check_positive(overlap, "overlap", minimum=0)
        check_positive(batch_size, "batch_size")
        if not isinstance(title_entities, bool):
            raise InvalidInput(f"title_entities must be True or False, got {title_entities!r}")
        docs = _documents(documents)
        titles: list[Entity] = []
        if title_entities:
            titles, docs = make_title_entities(docs)
        extractor = extractor if extractor is not None else NoExtractor()
        if not callable(getattr(extractor, "extract", None)):
            raise InvalidInput(
                f"extractor must have an extract(text, known) method (an Extractor), got "
                f"{type(extractor).__name__}"
            )
        report = IngestReport(documents=len(docs), extractor=extractor.name)
        if isinstance(extractor, NoExtractor):
            report.notes.append(
                "no extractor: no entities or relationships were extracted, chunks were only "
                "linked to the entities already stored; pass extractor=... to add_documents"
            )
        made = {e.id for e in titles}
        explicit = sorted({e for d in docs for e in d.entity_ids if e not in made})
        if explicit:
            found = {e.id for e in self._store.get_entities(self._tenant, explicit)}
            unknown = [e for e in explicit if e not in found]
            if unknown:
                raise InvalidInput(
                    f"documents name unknown entity_ids {unknown[:10]}; upsert them first",
                    missing_ids=unknown,
                )
        if titles:  # one entity per title, written before the chunks that are about them
            self._store.upsert_entities(self._tenant, titles)
            report.entities += len(titles)
            if embed:
                self.index_entities(sorted(made))
        pending: list[tuple[Chunk, tuple[str, ...]]] = []
        for doc in docs:
            attributes = dict(doc.attributes)
            if doc.title:
                attributes["title"] = doc.title
            attributes["document_id"] = doc.id
            if doc.entity_ids:
                attributes["about"] = list(doc.entity_ids)
            for n, text in enumerate(
                chunk_text(doc.text, max_tokens=chunk_tokens, overlap=overlap)
            ):
                chunk = Chunk(
                    id=f"{doc.id}#{n}", text=text, source=doc.source, attributes=attributes
                )
                pending.append((chunk, doc.entity_ids))
        if not isinstance(extractor, NoExtractor):
            self._extract(pending, extractor, report, nested_mentions)
        enabled = self._progress if progress is None else progress
        with progress_bar(len(pending), "ingesting documents", enabled, "chunk") as bar:
            for start in range(0, len(pending), batch_size):
                part = pending[start : start + batch_size]
                self._ingest_batch(part, embed, report, nested_mentions)
                bar.update(len(part))
        return report

    def _chunk_links(
        self, batch: Sequence[tuple[Chunk, tuple[str, ...]]], nested: bool
    ) -> list[list[str]]:
        """Each chunk's entities: its document's ``entity_ids``, then those it names."""
        linker = self._linking.linker()
        return [
            list(dict.fromkeys([*ids, *linker.link(chunk_embed_text(chunk), nested=nested)]))
            for chunk, ids in batch
        ]

    def _ingest_batch(
        self,
        batch: list[tuple[Chunk, tuple[str, ...]]],
        embed: bool,
        report: IngestReport,
        nested: bool,
    ) -> None:
        chunks = [chunk for chunk, _ids in batch]
        vectors = self._embed([chunk_embed_text(c) for c in chunks]) if embed else None
        stored = self._store.upsert_chunks(self._tenant, chunks)
        report.chunk_ids.extend(c.id for c in stored)
        links = dict(zip((c.id for c in chunks), self._chunk_links(batch, nested), strict=True))
        report.mentions += self._store.link_mentions(self._tenant, "chunk", links)
        if vectors is not None:
            self._store.put_embeddings(self._tenant, "chunk", [c.id for c in stored], vectors)

    def _extract(
        self,
        pending: list[tuple[Chunk, tuple[str, ...]]],
        extractor: Extractor,
        report: IngestReport,
        nested: bool,
    ) -> None:
        """Run the extractor over every chunk before any is linked.

        So each chunk of the call is linked to every entity found in any of them (a name
        extracted from the tenth document links the first one too). Entities that exist
        already are left as they are, never overwritten by what an extractor returns.
        """
        linked = self._chunk_links(pending, nested)
        known = {
            e.id: e
            for e in self._store.get_entities(
                self._tenant, sorted({i for ids in linked for i in ids})
            )
        }
        found: dict[str, Entity] = {}
        rels: list[Relationship] = []
        for (chunk, _ids), ids in zip(pending, linked, strict=True):
            extraction = extractor.extract(chunk.text, [known[i] for i in ids if i in known])
            for entity in extraction.entities:
                found.setdefault(entity.id, entity)
            rels.extend(
                r.model_copy(
                    update={
                        "provenance": r.provenance.model_copy(
                            update={"evidence": (*r.provenance.evidence, chunk.id)}
                        )
                    }
                )
                for r in extraction.relationships
            )
        stored = {e.id for e in self._store.get_entities(self._tenant, list(found))}
        fresh = [entity for entity_id, entity in found.items() if entity_id not in stored]
        if fresh:
            self._store.upsert_entities(self._tenant, coerce_batch(Entity, fresh, "entities"))
            report.entities += len(fresh)
        if rels:
            batch = coerce_batch(Relationship, rels, "relationships")
            self._store.upsert_relationships(self._tenant, batch)
            report.relationships += len(rels)

    # ------------------------------------------------------------------ entities

    def index_entities(self, entity_ids: Sequence[str] | None = None) -> int:
        """Embed entities; see :meth:`graphmem.Memory.index_entities`."""
        if entity_ids is None:
            entities = self._store.find_entities(self._tenant, EntityFilter())
        else:
            entities = self._store.get_entities(self._tenant, check_ids(entity_ids, "entity_ids"))
        for start in range(0, len(entities), _EMBED_BATCH):
            part = entities[start : start + _EMBED_BATCH]
            vectors = self._embed([entity_text(e) for e in part])
            self._store.put_embeddings(self._tenant, "entity", [e.id for e in part], vectors)
        return len(entities)

    # ------------------------------------------------------------------ turns

    def index_turns(
        self,
        session_id: str | None = None,
        *,
        embed: bool = True,
        nested_mentions: bool = True,
        progress: bool | None = None,
    ) -> int:
        """(Re)index stored turns; see :meth:`graphmem.Memory.index_turns`."""
        sessions = (
            [session_id]
            if session_id is not None
            else [s.session_id for s in self._store.list_sessions(self._tenant)]
        )
        turns = [t for session in sessions for t in self._store.list_turns(self._tenant, session)]
        self._index_turn_batch(turns, embed, nested_mentions, relink=True, progress=progress)
        if embed:
            with self._pending_lock:
                for turn in turns:
                    self._pending.pop(turn.id, None)
        return len(turns)

    def _index_turn_batch(
        self,
        turns: Sequence[Turn],
        embed: bool,
        nested: bool,
        *,
        relink: bool,
        progress: bool | None = None,
    ) -> None:
        """Link and embed ``turns``: one link and one embedding write per 512 turns.

        ``relink`` writes the mentions even when no entity is known (to clear old ones).
        """
        linker = self._linking.linker()
        enabled = self._progress if progress is None else progress
        with progress_bar(len(turns), "indexing turns", enabled, "turn") as bar:
            for start in range(0, len(turns), _EMBED_BATCH):
                part = turns[start : start + _EMBED_BATCH]
                if relink or linker.size:
                    links = {t.id: linker.link(t.content, nested=nested) for t in part}
                    self._store.link_mentions(self._tenant, "turn", links)
                if embed:
                    vectors = self._embed([t.content for t in part])
                    self._store.put_embeddings(self._tenant, "turn", [t.id for t in part], vectors)
                bar.update(len(part))

    def queue(self, turns: Sequence[Turn]) -> None:
        """Queue appended turns for indexing (a conversation's on-append hook).

        With ``index_batch``, index them as soon as that many wait; an append never fails
        for want of an index (the turns stay queued and the next retrieve says what
        failed).
        """
        with self._pending_lock:
            for turn in turns:
                self._pending[turn.id] = turn
            full = self._index_batch is not None and len(self._pending) >= self._index_batch
        if full:
            with suppress(GraphmemError):
                self.flush()

    @property
    def pending(self) -> int:
        """How many queued turns wait to be indexed."""
        return len(self._pending)

    def flush(self, *, embed: bool = True) -> int:
        """Index the queued turns; see :meth:`graphmem.Memory.flush_index`."""
        with self._pending_lock:
            waiting = list(self._pending.values())
        if not waiting:
            return 0
        live = {t.id for t in self._store.get_turns(self._tenant, [t.id for t in waiting])}
        turns = [t for t in waiting if t.id in live]
        self._index_turn_batch(turns, embed, True, relink=False)
        if embed:
            with self._pending_lock:
                for turn in waiting:
                    self._pending.pop(turn.id, None)
        return len(turns)

    def flush_before_search(self, *, embed: bool) -> None:
        """Index what waits before a retrieval reads the indexes (nothing when none)."""
        if self._pending:
            self.flush(embed=embed)
