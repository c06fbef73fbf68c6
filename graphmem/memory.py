"""The one object a user holds: a store bound to a tenant, with the whole API on it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from graphmem import jsonl
from graphmem.conversation import Conversation, load_conversation
from graphmem.errors import InvalidInput, StoreClosed
from graphmem.models import (
    Chunk,
    ContextResult,
    Direction,
    Document,
    Entity,
    EntityFilter,
    NPCIdentity,
    Relationship,
    RelationshipFilter,
    SessionInfo,
    Subgraph,
    Turn,
    TurnFilter,
    entity_text,
    utcnow,
)
from graphmem.store import GraphStore, TenantDump, check_tenant, open_store

if TYPE_CHECKING:
    import networkx as nx
    from numpy.typing import ArrayLike

    from graphmem.events import EventBus
    from graphmem.policy.context import ConversationMemory, Summarizer
    from graphmem.policy.governance import FactMemory, GovernancePolicy, LearnResult
    from graphmem.retrieval import (
        Embedder,
        EntityLinker,
        Extractor,
        FusionSettings,
        IngestReport,
    )

__all__ = ["Memory", "open"]


def _coerce(
    model: type[Any],
    items: Iterable[Any],
    what: str,
    *,
    from_str: Callable[[str], Any] | None = None,
) -> list[Any]:
    """Models of a batch from models or dicts (and strings, given ``from_str``)."""
    if isinstance(items, model | Entity | Relationship | Mapping | str):
        raise InvalidInput(f"{what} takes a list; wrap a single item in [...]")
    accepted = f"a {model.__name__}, dict or str" if from_str else f"a {model.__name__} or a dict"
    out: list[Any] = []
    for index, item in enumerate(items):
        if isinstance(item, model):
            out.append(item)
        elif from_str is not None and isinstance(item, str):
            out.append(from_str(item))
        elif isinstance(item, Mapping):
            try:
                out.append(model.model_validate(dict(item)))
            except InvalidInput as exc:
                raise InvalidInput(f"{what}[{index}]: {exc.message}", index=index) from exc
        else:
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}; give {accepted}", index=index
            )
    return out


class Memory:
    """A graph memory bound to one tenant. Open one with :func:`graphmem.open`.

    >>> import graphmem
    >>> from graphmem import Entity, Relationship
    >>> with graphmem.open("memory://", tenant="village") as mem:
    ...     _ = mem.upsert_entities([
    ...         Entity(id="mira", type="npc", name="Mira", attributes={"occupation": "smith"}),
    ...         Entity(id="forge", type="location", name="The Forge"),
    ...     ])
    ...     works_at = Relationship(source_id="mira", target_id="forge", type="works_at")
    ...     _ = mem.upsert_relationships([works_at])
    ...     [e.name for e in mem.neighbors("mira")]
    ['The Forge']
    """

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        *,
        owns_store: bool = True,
        embedder: Embedder | None = None,
    ) -> None:
        self._tenant = check_tenant(tenant)
        self._store = store
        self._owns_store = owns_store
        self._closed = False
        self._embedder = embedder
        self._linker: EntityLinker | None = None
        self._linker_key: int | None = None

    def __repr__(self) -> str:
        return f"Memory(url={self._store.url!r}, tenant={self._tenant!r})"

    @property
    def tenant(self) -> str:
        """The tenant every call of this memory is scoped to."""
        return self._tenant

    @property
    def store(self) -> GraphStore:
        """The underlying store (shared by every tenant)."""
        self._check_open()
        return self._store

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed("this memory is closed; open a new one", tenant=self._tenant)

    def close(self) -> None:
        """Close the memory (and its store, if it opened it). Closing twice is fine."""
        if not self._closed:
            self._closed = True
            if self._owns_store:
                self._store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ entities

    def upsert_entities(self, entities: Iterable[Entity | Mapping[str, Any]]) -> list[Entity]:
        """Insert or replace entities by id, in one batch; return them as stored."""
        self._check_open()
        return self._store.upsert_entities(self._tenant, _coerce(Entity, entities, "entities"))

    def get_entity(self, entity_id: str) -> Entity:
        """Return one entity. Raises ``NotFound`` if there is none with that id."""
        self._check_open()
        return self._store.get_entity(self._tenant, entity_id)

    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        """Return the entities that exist among ``entity_ids``, in the order asked."""
        self._check_open()
        return self._store.get_entities(self._tenant, list(entity_ids))

    def update_entity(
        self,
        entity_id: str,
        *,
        name: str | None = None,
        type: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        remove_attributes: Sequence[str] = (),
    ) -> Entity:
        """Merge ``attributes`` into an entity (and rename / retype it); bump ``updated_at``."""
        self._check_open()
        return self._store.update_entity(
            self._tenant,
            entity_id,
            name=name,
            type=type,
            attributes=attributes,
            remove_attributes=remove_attributes,
        )

    def delete_entities(self, entity_ids: Sequence[str]) -> int:
        """Delete entities and their relationships; return how many existed."""
        self._check_open()
        if isinstance(entity_ids, str):
            entity_ids = [entity_ids]
        return self._store.delete_entities(self._tenant, list(entity_ids))

    def find_entities(
        self,
        *,
        type: str | None = None,
        name_contains: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> list[Entity]:
        """Entities by type, case-insensitive name substring and attribute equality."""
        self._check_open()
        flt = EntityFilter(
            type=type, name_contains=name_contains, attributes=dict(attributes or {}), limit=limit
        )
        return self._store.find_entities(self._tenant, flt)

    def count_entities(self) -> int:
        """How many entities the tenant holds."""
        self._check_open()
        return self._store.count_entities(self._tenant)

    # ------------------------------------------------------------------ relationships

    def upsert_relationships(
        self, relationships: Iterable[Relationship | Mapping[str, Any]]
    ) -> list[Relationship]:
        """Insert or replace relationships keyed by (source, target, type), in one batch."""
        self._check_open()
        rels = _coerce(Relationship, relationships, "relationships")
        return self._store.upsert_relationships(self._tenant, rels)

    def get_relationships(
        self,
        entity_id: str,
        *,
        direction: Direction = "out",
        types: Sequence[str] | None = None,
        as_of: datetime | None = None,
        include_invalid: bool = False,
        limit: int | None = None,
    ) -> list[Relationship]:
        """An entity's relationships: outgoing by default, current facts unless ``as_of``."""
        self._check_open()
        flt = RelationshipFilter(
            direction=direction,
            types=tuple(types) if types is not None else None,
            as_of=as_of,
            include_invalid=include_invalid,
            limit=limit,
        )
        return self._store.get_relationships(self._tenant, entity_id, flt)

    def delete_relationship(self, source_id: str, target_id: str, type: str) -> bool:
        """Delete one relationship; return whether it existed. Prefer :meth:`invalidate`."""
        self._check_open()
        return self._store.delete_relationship(self._tenant, source_id, target_id, type)

    def invalidate(
        self, source_id: str, target_id: str, type: str, *, at: datetime | None = None
    ) -> Relationship:
        """Mark a fact as no longer holding from ``at`` (default now); it stays readable."""
        self._check_open()
        return self._store.invalidate_relationship(self._tenant, source_id, target_id, type, at=at)

    def count_relationships(self) -> int:
        """How many relationships the tenant holds, invalidated ones included."""
        self._check_open()
        return self._store.count_relationships(self._tenant)

    # ------------------------------------------------------------------ graph questions

    def neighbors(
        self,
        entity_id: str,
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        node_types: Sequence[str] | None = None,
        max_nodes: int | None = None,
        direction: Direction = "both",
    ) -> list[Entity]:
        """Entities within ``depth`` hops over current facts, nearest first, start excluded."""
        self._check_open()
        return self._store.neighbors(
            self._tenant,
            entity_id,
            depth=depth,
            rel_types=rel_types,
            node_types=node_types,
            max_nodes=max_nodes,
            direction=direction,
        )

    def find_path(
        self,
        source_id: str,
        target_id: str,
        *,
        max_depth: int = 6,
        rel_types: Sequence[str] | None = None,
    ) -> list[Entity]:
        """The shortest directed path of current facts, both ends included; [] when none."""
        self._check_open()
        return self._store.find_path(
            self._tenant, source_id, target_id, max_depth=max_depth, rel_types=rel_types
        )

    def visible_subgraph(self, entity_id: str, *, depth: int = 1) -> Subgraph:
        """What an NPC can see: itself, the entities within ``depth`` hops and their facts."""
        self._check_open()
        return self._store.visible_subgraph(self._tenant, entity_id, depth=depth)

    def expand(
        self,
        seed_ids: Sequence[str],
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
    ) -> Subgraph:
        """The seeds and every entity within ``depth`` hops of any, with the facts among them.

        One store call whatever the number of seeds (a typed multi-source walk).
        """
        self._check_open()
        return self._store.expand(
            self._tenant,
            list(seed_ids),
            depth=depth,
            rel_types=rel_types,
            direction=direction,
            within=within,
            max_nodes=max_nodes,
        )

    def identity_snapshot(self, npc_id: str) -> NPCIdentity:
        """Who the NPC is now, in one store call; ``.to_prompt(max_tokens)`` renders it."""
        self._check_open()
        return self._store.identity_snapshot(self._tenant, npc_id)

    # ------------------------------------------------------------------ conversations

    def conversation(self, session_id: str, *, max_history: int | None = None) -> Conversation:
        """The conversation of a session (created by its first append)."""
        self._check_open()
        return Conversation(self._store, self._tenant, session_id, max_history=max_history)

    def conversation_memory(
        self,
        *,
        user: str,
        session: str,
        strategy: str = "rolling_summary",
        max_tokens: int = 2000,
        window_turns: int = 20,
        summarizer: Summarizer | Callable[[str, Sequence[Turn]], str] | None = None,
        bus: EventBus | None = None,
        run_id: str | None = None,
        max_retries: int = 1,
        max_backlog: int = 8,
        recovery_interval: int = 3,
    ) -> ConversationMemory:
        """A conversation of one (user, session) with a strategy for the LLM's context.

        Strategies: ``none``, ``truncation``, ``rolling_summary`` (see
        :mod:`graphmem.policy.context`). Fails closed: a missing user or session raises
        ``IdentityRequired`` (and publishes ``memory.identity_rejected`` on ``bus``).

        Raises:
            IdentityRequired: ``user`` or ``session`` is missing.
            InvalidInput: Unknown strategy, or a budget that is not positive.
        """
        self._check_open()
        from graphmem.policy.context import ConversationMemory
        from graphmem.policy.identity import require_identity

        identity = require_identity(
            "conversation_memory",
            tenant=self._tenant,
            user=user,
            session=session,
            run_id=run_id,
            bus=bus,
        )
        return ConversationMemory(
            self._store,
            identity,
            strategy=strategy,
            max_tokens=max_tokens,
            window_turns=window_turns,
            summarizer=summarizer,
            bus=bus,
            max_retries=max_retries,
            max_backlog=max_backlog,
            recovery_interval=recovery_interval,
        )

    # ------------------------------------------------------------------ governed facts

    def fact_memory(
        self,
        *,
        actor: str,
        session: str | None = None,
        policy: GovernancePolicy | None = None,
        bus: EventBus | None = None,
    ) -> FactMemory:
        """Governed facts of this tenant, written by ``actor``.

        See :mod:`graphmem.policy.governance` for the rules.

        Raises:
            IdentityRequired: ``actor`` is missing.
        """
        self._check_open()
        from graphmem.policy.governance import FactMemory

        return FactMemory(
            self._store, self._tenant, actor=actor, session=session, policy=policy, bus=bus
        )

    def learn(
        self,
        subject: str,
        relation: str,
        value: str,
        *,
        actor: str,
        session: str | None = None,
        source_type: str = "manual",
        memory_type: str = "semantic",
        scope: str = "agent",
        category: str | None = None,
        policy: GovernancePolicy | None = None,
        bus: EventBus | None = None,
    ) -> LearnResult:
        """Write one fact through the governance rules; see :meth:`FactMemory.learn`."""
        facts = self.fact_memory(actor=actor, session=session, policy=policy, bus=bus)
        return facts.learn(
            subject,
            relation,
            value,
            source_type=source_type,
            memory_type=memory_type,
            scope=scope,
            category=category,
        )

    def load_conversation(
        self, data: Mapping[str, Any], *, session_id: str | None = None
    ) -> Conversation:
        """Store a tree made by :meth:`Conversation.dump` (into an empty session)."""
        self._check_open()
        return load_conversation(self._store, self._tenant, data, session_id)

    def sessions(self) -> list[SessionInfo]:
        """Every session with turns, most recently active first."""
        self._check_open()
        return self._store.list_sessions(self._tenant)

    def search_turns(
        self,
        text: str | None = None,
        *,
        session_id: str | None = None,
        speaker: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[Turn]:
        """Keyword search over the session log (every keyword must occur), newest first."""
        self._check_open()
        if text is not None and not text.strip():
            raise InvalidInput("search text is empty; pass None to match every turn")
        flt = TurnFilter(
            text=text,
            session_id=session_id,
            speaker=speaker,
            role=role,
            since=since,
            until=until,
            limit=limit,
        )
        return self._store.search_turns(self._tenant, flt)

    def recent_turns(
        self, within: timedelta, *, session_id: str | None = None, limit: int | None = None
    ) -> list[Turn]:
        """Turns created within the last ``within``, newest first."""
        if within <= timedelta(0):
            raise InvalidInput(f"within must be a positive duration, got {within}")
        return self.search_turns(session_id=session_id, since=utcnow() - within, limit=limit)

    def count_turns(self, session_id: str | None = None) -> int:
        """Turns in one session (all branches), or in all of them."""
        self._check_open()
        return self._store.count_turns(self._tenant, session_id)

    # ------------------------------------------------------------------ whole tenant

    def dump(self) -> TenantDump:
        """Everything this tenant holds, as models."""
        self._check_open()
        return self._store.dump(self._tenant)

    def clear(self) -> None:
        """Delete everything this tenant holds."""
        self._check_open()
        self._store.clear(self._tenant)

    def export_jsonl(self, target: str | Path | IO[str]) -> int:
        """Write everything to JSON Lines (a path or a text file); return the line count."""
        self._check_open()
        return jsonl.write(self._store.dump(self._tenant), target, tenant=self._tenant)

    def import_jsonl(self, source: str | Path | IO[str]) -> TenantDump:
        """Read JSON Lines made by :meth:`export_jsonl`; all or nothing. Returns what was read."""
        self._check_open()
        dump = jsonl.read(source)
        self._store.load(self._tenant, dump)
        return dump

    # ------------------------------------------------------------------ retrieval (GraphRAG)

    @property
    def embedder(self) -> Embedder:
        """The embedder of this memory (the default one is made on first use).

        Raises:
            BackendUnavailable: No embedder was given and the ``embeddings`` extra is not
                installed; the message says what to install or pass.
        """
        if self._embedder is None:
            from graphmem.retrieval import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    def _embed(self, texts: Sequence[str]) -> Any:
        vectors = self.embedder.embed(list(texts))
        if len(texts) and getattr(vectors, "shape", (0,))[0] != len(texts):
            raise InvalidInput(
                f"the embedder returned {getattr(vectors, 'shape', None)} for {len(texts)} texts"
            )
        return vectors

    def entity_linker(self) -> EntityLinker:
        """The entity linker over every entity's name and aliases (rebuilt when they change)."""
        self._check_open()
        from graphmem.retrieval import EntityLinker

        # Cheap staleness key: the entity count, plus this memory's own entity writes.
        key = self._store.count_entities(self._tenant)
        if self._linker is None or self._linker_key != key:
            entities = self._store.find_entities(self._tenant, EntityFilter())
            self._linker = EntityLinker(entities)
            self._linker_key = key
        return self._linker

    def _entities_changed(self) -> None:
        self._linker = None

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
    ) -> IngestReport:
        """Chunk documents into ``Chunk`` nodes, link them to entities, embed them.

        Each document (a :class:`Document`, a dict of its fields, or plain text) is split
        into chunks of about ``chunk_tokens`` tokens (ids ``{doc id}#{n}``). Each chunk
        ``MENTIONS`` the entities whose names or aliases occur in it (Aho-Corasick entity
        linking, whole words, any case; a name inside a longer one counts too: "the
        Prague astronomical clock" mentions the clock and Prague) and the document's
        ``entity_ids``, which its attributes also keep as ``about`` (the ``multihop``
        preset treats a passage about an entity as that entity's page), beside ``title``
        and ``document_id``. An ``extractor`` may add entities and relationships
        (evidence: the chunk id); the default extracts none, and the report says so.

        Args:
            documents: What to ingest.
            chunk_tokens: Chunk size budget, in estimated tokens.
            overlap: Sentences repeated at the start of the next chunk.
            extractor: An :class:`graphmem.retrieval.Extractor`; default: none.
            embed: Embed the chunks (needs the embedder); False to add text only.
            batch_size: Chunks per store write and per embedding batch.
            nested_mentions: Link the names found inside longer names too; False keeps
                the longest match only (when your names nest without meaning it: a
                village "Haven" and the city "New Haven").

        Raises:
            InvalidInput: A document is malformed or names unknown entity ids; nothing of
                that batch is written.
        """
        self._check_open()
        from graphmem.retrieval import IngestReport, NoExtractor, chunk_text

        docs = _documents(documents)
        extractor = extractor if extractor is not None else NoExtractor()
        report = IngestReport(documents=len(docs), extractor=extractor.name)
        if isinstance(extractor, NoExtractor):
            report.notes.append(
                "no extractor: no entities or relationships were extracted, chunks were only "
                "linked to the entities already stored; pass extractor=... to add_documents"
            )
        explicit = sorted({e for d in docs for e in d.entity_ids})
        if explicit:
            found = {e.id for e in self._store.get_entities(self._tenant, explicit)}
            unknown = [e for e in explicit if e not in found]
            if unknown:
                raise InvalidInput(
                    f"documents name unknown entity_ids {unknown[:10]}; upsert them first",
                    missing_ids=unknown,
                )
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
        for start in range(0, len(pending), batch_size):
            self._ingest_batch(pending[start : start + batch_size], embed, report, nested_mentions)
        return report

    def _chunk_links(
        self, batch: Sequence[tuple[Chunk, tuple[str, ...]]], nested: bool
    ) -> list[list[str]]:
        """Each chunk's entities: its document's ``entity_ids``, then those it names."""
        linker = self.entity_linker()
        return [
            list(dict.fromkeys([*ids, *linker.link(_chunk_embed_text(chunk), nested=nested)]))
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
        vectors = self._embed([_chunk_embed_text(c) for c in chunks]) if embed else None
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
            self.upsert_entities(fresh)
            report.entities += len(fresh)
        if rels:
            self.upsert_relationships(rels)
            report.relationships += len(rels)

    def index_entities(self, entity_ids: Sequence[str] | None = None) -> int:
        """Embed entities (name, aliases, description) into the entity vector index.

        Args:
            entity_ids: Which entities; default: every entity of the tenant.

        Returns:
            How many were embedded.
        """
        self._check_open()
        if entity_ids is None:
            entities = self._store.find_entities(self._tenant, EntityFilter())
        else:
            entities = self._store.get_entities(self._tenant, list(entity_ids))
        for start in range(0, len(entities), 512):
            part = entities[start : start + 512]
            vectors = self._embed([entity_text(e) for e in part])
            self._store.put_embeddings(self._tenant, "entity", [e.id for e in part], vectors)
        return len(entities)

    def index_turns(
        self, session_id: str | None = None, *, embed: bool = True, nested_mentions: bool = True
    ) -> int:
        """Link conversation turns to the entities they name, and embed them.

        Args:
            session_id: One session's turns (all branches); default: every session.
            embed: Also embed the turns (needs the embedder).
            nested_mentions: Link names found inside longer names too, as
                :meth:`add_documents` does.

        Returns:
            How many turns were indexed.
        """
        self._check_open()
        sessions = (
            [session_id] if session_id is not None else [s.session_id for s in self.sessions()]
        )
        linker = self.entity_linker()
        count = 0
        for session in sessions:
            turns = self._store.list_turns(self._tenant, session)
            for start in range(0, len(turns), 512):
                part = turns[start : start + 512]
                links = {t.id: linker.link(t.content, nested=nested_mentions) for t in part}
                self._store.link_mentions(self._tenant, "turn", links)
                if embed:
                    vectors = self._embed([t.content for t in part])
                    self._store.put_embeddings(self._tenant, "turn", [t.id for t in part], vectors)
                count += len(part)
        return count

    def retrieve(
        self,
        query: str,
        k: int = 10,
        hops: int = 2,
        graph_scope: Sequence[str] | None = None,
        *,
        kinds: Sequence[str] | None = None,
        rel_types: Sequence[str] | None = None,
        preset: str | FusionSettings | None = None,
        **settings: Any,
    ) -> list[ContextResult]:
        """What the memory knows that helps answer ``query``: hybrid GraphRAG retrieval.

        Vector and full-text search over turns, chunks and entities, fused by reciprocal
        rank; the top hits (and the entities the query names) seed a walk of ``hops``
        hops through the entity graph, inside ``graph_scope`` when given; turns and chunks
        mentioning what was reached, the entities and the facts among them are reranked
        by text relevance, graph proximity, confidence and recency.

        Args:
            query: The question or topic, in plain words (operators and quotes are taken
                literally).
            k: How many results.
            hops: Depth of the graph walk (0: the seeds only).
            graph_scope: Entity ids: only these entities, facts among them, and turns and
                chunks mentioning them. Every id must exist.
            kinds: Result kinds wanted among ``chunk``, ``turn``, ``entity``,
                ``relationship`` (default: all).
            rel_types: Relationship types the walk may follow (default: any).
            preset: A name of :data:`graphmem.retrieval.PRESETS` (default ``hybrid``) or
                :class:`graphmem.retrieval.FusionSettings`.
            **settings: Overrides of single fusion settings (``graph_weight=1.0``, ...).

        Returns:
            Up to ``k`` results, best first, each with its provenance.

        Raises:
            InvalidInput: Empty query, ``k`` <= 0, negative ``hops``, unknown kinds or
                presets, or an embedder whose dimension differs from the stored vectors.
            NotFound: ``graph_scope`` names entities that do not exist.
        """
        from graphmem.retrieval.pipeline import Query, check_request

        text = _check_query(query)
        k, hops, wanted = check_request(k, hops, kinds)
        chosen = self._settings(preset, settings)
        scope = self._scope(graph_scope)
        vector = self._embed([text])[0] if chosen.vector_weight > 0 else None
        return self._run(Query(text, vector, k, hops, scope, wanted, _types(rel_types)), chosen)

    def query_with_context(
        self,
        text: str,
        graph_scope: Sequence[str] | None = None,
        *,
        k: int = 10,
        hops: int = 1,
        kinds: Sequence[str] | None = None,
    ) -> list[ContextResult]:
        """Full-text retrieval (no embedder needed), with the graph walk, inside a scope.

        Like :meth:`retrieve` with the vector search left out. Raises as it does.
        """
        from graphmem.retrieval import resolve_settings
        from graphmem.retrieval.pipeline import Query, check_request

        query = _check_query(text)
        k, hops, wanted = check_request(k, hops, kinds)
        chosen = resolve_settings("hybrid", {"vector_weight": 0.0})
        scope = self._scope(graph_scope)
        return self._run(Query(query, None, k, hops, scope, wanted), chosen)

    def query_with_embedding(
        self,
        vector: ArrayLike,
        k: int = 10,
        graph_scope: Sequence[str] | None = None,
        *,
        hops: int = 1,
        kinds: Sequence[str] | None = None,
    ) -> list[ContextResult]:
        """Vector retrieval with a query embedding you computed, with the graph walk.

        Like :meth:`retrieve` with the full-text search and query entity linking left
        out. Raises ``InvalidInput`` when the vector's dimension differs from the index's.
        """
        from graphmem.retrieval import resolve_settings
        from graphmem.retrieval.pipeline import Query, check_request

        k, hops, wanted = check_request(k, hops, kinds)
        chosen = resolve_settings("hybrid", {"fulltext_weight": 0.0, "link_query": False})
        scope = self._scope(graph_scope)
        return self._run(Query(None, vector, k, hops, scope, wanted), chosen)

    @staticmethod
    def render_context(results: Sequence[ContextResult], max_tokens: int | None = None) -> str:
        """Render retrieved results as prompt text within ``max_tokens`` (best kept first)."""
        from graphmem.retrieval import render_context

        return render_context(results, max_tokens)

    def _settings(
        self, preset: str | FusionSettings | None, overrides: Mapping[str, Any]
    ) -> FusionSettings:
        from graphmem.retrieval import resolve_settings

        return resolve_settings(preset, overrides)

    def _scope(self, graph_scope: Sequence[str] | None) -> list[str] | None:
        self._check_open()
        from graphmem.retrieval.pipeline import check_scope

        return check_scope(self._store, self._tenant, graph_scope)

    def _run(self, query: Any, settings: FusionSettings) -> list[ContextResult]:
        from graphmem.retrieval.pipeline import run_query

        self._check_open()
        embed = self._embed if query.vector is not None else None
        return run_query(self._store, self._tenant, query, settings, self.entity_linker, embed)

    def to_networkx(self, *, include_invalid: bool = False) -> nx.MultiDiGraph:
        """The entity graph as a networkx ``MultiDiGraph`` (for analysis and drawing).

        Nodes carry ``type``, ``name`` and the attributes; edges are keyed by type and carry
        ``confidence``, ``source``, ``confirmed`` and the validity times.
        """
        import networkx as nx

        dump = self.dump()
        graph = nx.MultiDiGraph()
        for e in dump.entities:
            graph.add_node(e.id, **{**dict(e.attributes), "type": e.type, "name": e.name})
        now = utcnow()
        for r in dump.relationships:
            if include_invalid or r.is_current(now):
                graph.add_edge(
                    r.source_id,
                    r.target_id,
                    key=r.type,
                    type=r.type,
                    confidence=r.provenance.confidence,
                    source=r.provenance.source,
                    confirmed=r.provenance.confirmed,
                    valid_at=r.valid_at,
                    invalid_at=r.invalid_at,
                )
        return graph


def _check_query(query: Any) -> str:
    if not isinstance(query, str):
        raise InvalidInput(f"the query must be a string, got {type(query).__name__}")
    if not query.strip():
        raise InvalidInput("the query is empty; ask something (e.g. 'who runs the mill?')")
    return query


def _types(rel_types: Sequence[str] | None) -> tuple[str, ...] | None:
    if rel_types is None:
        return None
    return (rel_types,) if isinstance(rel_types, str) else tuple(rel_types)


def _chunk_embed_text(chunk: Chunk) -> str:
    title = chunk.attributes.get("title")
    return f"{title}: {chunk.text}" if isinstance(title, str) and title else chunk.text


def _documents(documents: Iterable[Document | Mapping[str, Any] | str]) -> list[Document]:
    out: list[Document] = _coerce(
        Document, documents, "documents", from_str=lambda text: Document(text=text)
    )
    ids = [d.id for d in out]
    if len(set(ids)) != len(ids):
        raise InvalidInput("documents repeat an id; give each document its own id")
    return out


def open(  # noqa: A001
    url: str = "memory://",
    *,
    tenant: str,
    embedder: Embedder | None = None,
    **options: Any,
) -> Memory:
    """Open a graph memory for one tenant.

    Args:
        url: ``memory://`` (in-process), ``file:///path/world.graphmem`` (in-process,
            persisted to one file), ``neo4j://user:password@host`` / ``bolt://...``.
        tenant: Whose memory this is; every call is scoped to it. Required.
        embedder: What embeds text for retrieval (a :class:`graphmem.retrieval.Embedder`).
            Default: all-MiniLM-L6-v2 when the ``embeddings`` extra is installed, made on
            first use; without the extra, retrieval that needs embeddings raises
            ``BackendUnavailable`` saying so.
        **options: Backend options, e.g. ``tracer=print``; ``read_only=True`` to read a
            store (beside its writer) and never write or create anything.

    Raises:
        IdentityRequired: ``tenant`` is empty.
    """
    check_tenant(tenant)
    return Memory(open_store(url, **options), tenant, embedder=embedder)
