"""The one object a user holds: a store bound to a tenant, with the whole API on it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from graphmem.conversation.tree import Conversation, load_conversation
from graphmem.core.batches import coerce_batch
from graphmem.core.checks import (
    check_ids,
    check_limit,
    check_safe_names,
    check_text,
)
from graphmem.core.errors import InvalidInput, StoreClosed
from graphmem.core.models import (
    VALUE_ENTITY_TYPE,
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
    utcnow,
)
from graphmem.core.store import GraphStore, TenantDump, check_tenant, open_store
from graphmem.exchange import jsonl

if TYPE_CHECKING:
    import networkx as nx
    from numpy.typing import ArrayLike

    from graphmem.core.events import EventBus
    from graphmem.minds import (
        Belief,
        Event,
        Fact,
        MindSettings,
        Recap,
        RecapSummarizer,
        Recollection,
    )
    from graphmem.minds.core import Minds
    from graphmem.minds.truth import BeliefCheck
    from graphmem.policy.context import ConversationMemory, Summarizer
    from graphmem.policy.governance import FactMemory, GovernancePolicy, LearnResult
    from graphmem.retrieval import (
        Embedder,
        EntityLinker,
        Extractor,
        FusionSettings,
        IngestReport,
    )
    from graphmem.retrieval.graphqa import GraphAnswers, GraphQASettings
    from graphmem.retrieval.schema import GraphSchema
    from graphmem.retrieval.service import Retrieval

__all__ = ["Memory", "open"]


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
        minds: MindSettings | None = None,
        auto_index: bool = True,
        index_batch: int | None = None,
        progress: bool = False,
    ) -> None:
        if index_batch is not None and (
            not isinstance(index_batch, int) or isinstance(index_batch, bool) or index_batch <= 0
        ):
            raise InvalidInput(
                f"index_batch must be a positive integer or None, got {index_batch!r}"
            )
        self._tenant = check_tenant(tenant)
        self._store = store
        self._owns_store = owns_store
        self._closed = False
        self._embedder = embedder
        self._mind_settings = minds
        self._minds_obj: Minds | None = None
        self._auto_index = bool(auto_index)
        self._index_batch = index_batch
        self._progress = bool(progress)
        # Retrieval and indexing (graphmem.retrieval.service), made on first use.
        self._retrieval_obj: Retrieval | None = None

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
        return self._store.upsert_entities(self._tenant, coerce_batch(Entity, entities, "entities"))

    def get_entity(self, entity_id: str) -> Entity:
        """Return one entity. Raises ``NotFound`` if there is none with that id."""
        self._check_open()
        return self._store.get_entity(self._tenant, entity_id)

    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        """Return the entities that exist among ``entity_ids``, in the order asked."""
        self._check_open()
        return self._store.get_entities(self._tenant, check_ids(entity_ids, "entity_ids"))

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
        return self._store.delete_entities(self._tenant, check_ids(entity_ids, "entity_ids"))

    def find_entities(
        self,
        *,
        type: str | None = None,
        name: str | None = None,
        name_contains: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> list[Entity]:
        """Entities by type, whole name or name substring (any case) and attribute equality."""
        self._check_open()
        flt = EntityFilter(
            type=type,
            name=name,
            name_contains=name_contains,
            attributes={} if attributes is None else attributes,
            limit=limit,
        )
        return self._store.find_entities(self._tenant, flt)

    def resolve_entity(self, text: str) -> Entity | None:
        """The entity ``text`` names: its id, else the one entity of that name (any case).

        None when no entity has that id or name; the names are compared as governed facts
        compare them (spaces collapsed, casefolded), and a fact's value node names nothing.

        Raises:
            InvalidInput: ``text`` is empty, or several entities share the name (the
                error lists their ids: use one of them).
        """
        self._check_open()
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("an entity id or name must be a non-empty string")
        from graphmem.policy.consolidation import norm

        if len(text) <= 512:
            found = self._store.get_entities(self._tenant, [text])
            if found and found[0].type != VALUE_ENTITY_TYPE:
                return found[0]
        key = norm(text)
        named = [
            e
            for e in self._store.find_entities(self._tenant, EntityFilter(name=text))
            if e.type != VALUE_ENTITY_TYPE and norm(e.name) == key
        ]
        if len(named) > 1:
            ids = [e.id for e in named]
            raise InvalidInput(
                f"{len(named)} entities are named {text!r}: {ids}; name one by its id",
                entity_ids=ids,
            )
        return named[0] if named else None

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
        rels = coerce_batch(Relationship, relationships, "relationships")
        return self._store.upsert_relationships(self._tenant, rels)

    def get_relationships(
        self,
        entity_id: str,
        *,
        direction: Direction = "out",
        types: Sequence[str] | None = None,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        include_invalid: bool = False,
        limit: int | None = None,
    ) -> list[Relationship]:
        """An entity's relationships: outgoing by default, current facts unless a clock is given.

        ``as_of`` is world time (facts that held then, invalidated since or not);
        ``recorded_as_of`` memory time (what the store held then); see
        :meth:`graphmem.Relationship.held` for the rules of each and of both.
        """
        self._check_open()
        flt = RelationshipFilter(
            direction=direction,
            types=_types(types),
            as_of=as_of,
            recorded_as_of=recorded_as_of,
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
        """Mark a fact as no longer holding from ``at`` (default now); it stays readable.

        Raises:
            InvalidInput: ``at`` is at or before the fact's start (its ``valid_at``, or
                ``created_at`` without one), which would leave it no validity at all;
                nothing is written.
            NotFound: No such fact.
        """
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

    def neighborhood(
        self,
        entity_id: str,
        *,
        rel_types: Sequence[str] | None = None,
        node_types: Sequence[str] | None = None,
        direction: Direction = "both",
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        include_invalid: bool = False,
        limit: int | None = None,
    ) -> Subgraph:
        """An entity, its facts (with provenance and validity) and their other ends.

        Under both clocks, in two store calls: see
        :func:`graphmem.retrieval.neighborhood.neighborhood`.
        """
        self._check_open()
        from graphmem.retrieval.neighborhood import neighborhood

        return neighborhood(
            self._store,
            self._tenant,
            entity_id,
            rel_types=_types(rel_types),
            node_types=check_safe_names(node_types, "entity type"),
            direction=direction,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            include_invalid=include_invalid,
            limit=limit,
        )

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
            check_ids(seed_ids, "seed_ids"),
            depth=depth,
            rel_types=rel_types,
            direction=direction,
            within=within,
            max_nodes=max_nodes,
        )

    def identity_snapshot(
        self,
        npc_id: str,
        *,
        perspective: bool = False,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> NPCIdentity:
        """Who the NPC is, in one store call; ``.to_prompt(max_tokens)`` renders it.

        Now by default; at world time ``as_of`` and / or as the memory stood at
        ``recorded_as_of`` (the rules of :meth:`graphmem.Relationship.held`).

        With ``perspective=True``, who the NPC is *as it sees things*: a
        :class:`graphmem.minds.PerspectiveIdentity` of its own beliefs at those clocks
        (two store reads), rendered with "heard from X" where it matters, under the same
        token budget rules.
        """
        self._check_open()
        if perspective:
            return self._minds().perspective(npc_id, as_of=as_of, recorded_as_of=recorded_as_of)
        if as_of is None and recorded_as_of is None:
            return self._store.identity_snapshot(self._tenant, npc_id)
        return self._store.identity_snapshot(
            self._tenant, npc_id, as_of=as_of, recorded_as_of=recorded_as_of
        )

    # ------------------------------------------------------------------ conversations

    def conversation(self, session_id: str, *, max_history: int | None = None) -> Conversation:
        """The conversation of a session (created by its first append).

        With ``auto_index`` (the default), what is appended through it is indexed for
        :meth:`retrieve` in batches: linked to the entities it names and embedded before
        the next retrieval (or every ``index_batch`` turns); see :meth:`flush_index`.
        """
        self._check_open()
        return Conversation(
            self._store,
            self._tenant,
            session_id,
            max_history=max_history,
            on_append=self._queue_turns if self._auto_index else None,
        )

    def _queue_turns(self, turns: Sequence[Turn]) -> None:
        self._retrieval().indexer.queue(turns)

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
            InvalidInput: ``user``, ``session`` or ``run_id`` is not a printable name,
                unknown strategy, or a budget that is not positive.
        """
        self._check_open()
        from graphmem.policy.context import ConversationMemory
        from graphmem.policy.identity import require_identity

        _check_bus(bus)
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
            InvalidInput: ``actor`` or ``session`` is not a printable name.
        """
        self._check_open()
        from graphmem.policy.governance import FactMemory

        _check_bus(bus)
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
        """Write one fact through the governance rules; see :meth:`FactMemory.learn`.

        A ``scope="workspace"`` fact about an entity shows in the graph (identity
        snapshots, traversal, :meth:`retrieve`) once believed.
        """
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

    def relate(
        self,
        source_id: str,
        type: str,
        target_id: str,
        *,
        actor: str,
        session: str | None = None,
        source_type: str = "manual",
        memory_type: str = "semantic",
        category: str | None = None,
        policy: GovernancePolicy | None = None,
        bus: EventBus | None = None,
    ) -> LearnResult:
        """Write one relationship through the governance rules; see :meth:`FactMemory.relate`.

        The governed twin of :meth:`upsert_relationships`: trust, personal data,
        poisoning, consolidation and the audit trail apply, and the edge carries the
        fact's provenance and identity once it is believed.
        """
        facts = self.fact_memory(actor=actor, session=session, policy=policy, bus=bus)
        return facts.relate(
            source_id,
            type,
            target_id,
            source_type=source_type,
            memory_type=memory_type,
            category=category,
        )

    def load_conversation(
        self, data: Mapping[str, Any], *, session_id: str | None = None
    ) -> Conversation:
        """Store a tree made by :meth:`Conversation.dump` (into an empty session)."""
        self._check_open()
        loaded = load_conversation(self._store, self._tenant, data, session_id)
        if self._auto_index:
            self._queue_turns(loaded.turns())
        return self.conversation(loaded.session_id, max_history=loaded.max_history)

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
        if text is not None and not check_text(text, "text").strip():
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
        if not isinstance(within, timedelta) or within <= timedelta(0):
            raise InvalidInput(f"within must be a positive timedelta, got {within!r}")
        try:
            since: datetime | None = utcnow() - within
        except OverflowError:  # further back than year 1: every turn is within it
            since = None
        return self.search_turns(session_id=session_id, since=since, limit=limit)

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

    def _retrieval(self) -> Retrieval:
        """Everything retrieval does for this memory (:mod:`graphmem.retrieval.service`)."""
        self._check_open()
        if self._retrieval_obj is None:
            from graphmem.retrieval.service import Retrieval

            self._retrieval_obj = Retrieval(
                self._store,
                self._tenant,
                embedder=self._embedder,
                index_batch=self._index_batch,
                progress=self._progress,
            )
        return self._retrieval_obj

    @property
    def embedder(self) -> Embedder:
        """The embedder of this memory (the default one is made on first use).

        Raises:
            BackendUnavailable: No embedder was given and the ``embeddings`` extra is not
                installed; the message says what to install or pass.
        """
        return self._retrieval().embedder

    def entity_linker(self) -> EntityLinker:
        """The entity linker over every entity's name and aliases.

        Rebuilt when the tenant's entities change: any write through this memory's store
        (this memory, another sharing the store, the policy and minds layers), and on a
        server backend the writes of other processes that change the entity count or the
        latest update time (:meth:`graphmem.GraphStore.entity_version`).
        """
        return self._retrieval().linking.linker()

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
        """Chunk documents into ``Chunk`` nodes, link them to entities, embed them.

        Each document (a :class:`Document`, a dict of its fields, or plain text) is split
        into chunks of about ``chunk_tokens`` tokens (ids ``{doc id}#{n}``). Each chunk
        ``MENTIONS`` the entities whose names or aliases occur in it (entity linking,
        whole words, any case; a name inside a longer one counts too: "the Prague
        astronomical clock" mentions the clock and Prague) and the document's
        ``entity_ids``, which its attributes also keep as ``about`` (the ``multihop``
        preset treats a passage about an entity as that entity's page), beside ``title``
        and ``document_id``. An ``extractor`` may add entities and relationships
        (evidence: the chunk id); the default extracts none, and the report says so.
        The work is done by the memory's :class:`graphmem.retrieval.Indexer`.

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
            progress: Draw a progress bar on a terminal (default: the memory's
                ``progress`` option).
            title_entities: Make each distinct title an entity first (type ``concept``,
                id ``title:<title>``, alias: the title without a trailing parenthetical)
                and every titled document *about* its title's entity
                (:func:`graphmem.retrieval.ingest.title_entities`): for a corpus of
                titled passages, so that passages naming a title lead to its page (what
                ``graphmem eval`` loads MuSiQue and HotpotQA with).

        Raises:
            InvalidInput: A document is malformed or names unknown entity ids; nothing of
                that batch is written.
        """
        return self._retrieval().indexer.add_documents(
            documents,
            chunk_tokens=chunk_tokens,
            overlap=overlap,
            extractor=extractor,
            embed=embed,
            batch_size=batch_size,
            nested_mentions=nested_mentions,
            progress=progress,
            title_entities=title_entities,
        )

    def index_entities(self, entity_ids: Sequence[str] | None = None) -> int:
        """Embed entities (name, aliases, description) into the entity vector index.

        Args:
            entity_ids: Which entities; default: every entity of the tenant.

        Returns:
            How many were embedded.
        """
        return self._retrieval().indexer.index_entities(entity_ids)

    def index_turns(
        self,
        session_id: str | None = None,
        *,
        embed: bool = True,
        nested_mentions: bool = True,
        progress: bool | None = None,
    ) -> int:
        """Link conversation turns to the entities they name, and embed them.

        Turns appended through this memory are indexed by themselves (``auto_index``);
        this (re)indexes what is stored, e.g. after an import or with a new embedder.

        Args:
            session_id: One session's turns (all branches); default: every session.
            embed: Also embed the turns (needs the embedder).
            nested_mentions: Link names found inside longer names too, as
                :meth:`add_documents` does.
            progress: Draw a progress bar on a terminal (default: the memory's
                ``progress`` option).

        Returns:
            How many turns were indexed.
        """
        return self._retrieval().indexer.index_turns(
            session_id, embed=embed, nested_mentions=nested_mentions, progress=progress
        )

    @property
    def pending_index(self) -> int:
        """How many appended turns wait to be indexed (see :meth:`flush_index`)."""
        if self._retrieval_obj is None:
            return 0
        return self._retrieval_obj.indexer.pending

    def flush_index(self, *, embed: bool = True) -> int:
        """Index the turns appended through this memory since the last flush, in batches.

        Each waiting turn is linked to the entities it names (when any are known) and
        embedded, 512 turns per embedding call, so a long conversation is embedded at the
        model's batch speed. :meth:`retrieve` calls this first, so what was said is found
        right away; call it yourself to pay the cost at a moment of your choosing. Turns
        deleted since they were appended are left out.

        Args:
            embed: Embed them too; False links only (they stay waiting for embedding).

        Returns:
            How many turns were indexed.
        """
        return self._retrieval().indexer.flush(embed=embed)

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
        by text relevance, graph proximity, confidence and recency. The retriever that
        runs is chosen by the settings (:mod:`graphmem.retrieval.service`); the default
        presets make three store calls (docs/retrieval.md).

        Args:
            query: The question or topic, in plain words (operators and quotes are taken
                literally), at most :data:`graphmem.retrieval.MAX_QUERY_LENGTH` (10,000)
                characters.
            k: How many results.
            hops: Depth of the graph walk (0: the seeds only).
            graph_scope: Entity ids: only these entities, facts among them, and turns and
                chunks mentioning them. Every id must exist.
            kinds: Result kinds wanted among ``chunk``, ``turn``, ``entity``,
                ``relationship`` (default: all).
            rel_types: Relationship types the walk may follow (default: any).
            preset: A name of :data:`graphmem.retrieval.PRESETS` (default ``hybrid``;
                ``conversation`` when ``kinds`` is turns alone) or
                :class:`graphmem.retrieval.FusionSettings`.
            **settings: Overrides of single fusion settings (``graph_weight=1.0``, ...).

        Returns:
            Up to ``k`` results, best first, each with its provenance.

        Raises:
            InvalidInput: Empty or too long a query, ``k`` <= 0, negative ``hops``,
                unknown kinds or presets, or an embedder whose dimension differs from the
                stored vectors.
            NotFound: ``graph_scope`` names entities that do not exist.
        """
        return self._retrieval().retrieve(
            query,
            k,
            hops,
            graph_scope,
            kinds=kinds,
            rel_types=rel_types,
            preset=preset,
            overrides=settings,
        )

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
        return self._retrieval().query_with_context(text, graph_scope, k=k, hops=hops, kinds=kinds)

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
        return self._retrieval().query_with_embedding(
            vector, k, graph_scope, hops=hops, kinds=kinds
        )

    @staticmethod
    def render_context(results: Sequence[ContextResult], max_tokens: int | None = None) -> str:
        """Render retrieved results as prompt text within ``max_tokens`` (best kept first)."""
        from graphmem.retrieval import render_context

        if isinstance(results, str | bytes | Mapping | ContextResult) or not isinstance(
            results, Iterable
        ):
            raise InvalidInput("render_context takes a list of ContextResult (from retrieve)")
        results = list(results)
        for index, result in enumerate(results):
            if not isinstance(result, ContextResult):
                raise InvalidInput(
                    f"results[{index}] is a {type(result).__name__}, not a ContextResult"
                )
        return render_context(results, check_limit(max_tokens, "max_tokens"))

    # ------------------------------------------------------------------ NPC minds

    @property
    def mind_settings(self) -> MindSettings:
        """How NPC minds work in this memory (``graphmem.open(..., minds=MindSettings())``)."""
        return self._minds().settings

    def _minds(self) -> Minds:
        self._check_open()
        if self._minds_obj is None:
            from graphmem.minds import MindSettings
            from graphmem.minds.core import Minds

            settings = self._mind_settings or MindSettings()
            if not isinstance(settings, MindSettings):
                raise InvalidInput("minds takes a graphmem.minds.MindSettings")
            self._minds_obj = Minds(self._store, self._tenant, settings)
        return self._minds_obj

    def record_event(
        self,
        type: str,
        *,
        actor: str | None = None,
        participants: Sequence[str] = (),
        place: str | None = None,
        changes: Sequence[Fact | Mapping[str, Any] | tuple[str, str, str]] = (),
        reveals: Sequence[Fact | Mapping[str, Any] | tuple[str, str, str]] = (),
        present: Sequence[str] | None = None,
        at: datetime | None = None,
        importance: float = 0.5,
        session_id: str | None = None,
        summary: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        event_id: str | None = None,
    ) -> Event:
        """Record that something happened; the world and its witnesses' beliefs follow.

        The event is stored as its own record (two alike events stay two), once, with its
        witness set. Its ``changes`` are applied to the world state at world time ``at``
        (default now): a relation of a single-valued type (``MindSettings.single_valued``,
        the presence relation ``located_in`` by default) ends the subject's other one; a
        fact the world already holds from a later time is left as it is. Its witnesses
        come to believe the changes and ``reveals``, and that each other witness believes
        them, at any order (read from shared witnessing; nothing is written per order);
        NPCs absent keep their old beliefs. The write is linear in the witnesses.

        Args:
            type: What happened (a safe name: ``moved``, ``entered``, ``hid``...).
            actor: Who did it; ``place`` defaults to where the world state places them.
            participants: Who else took part (they witness it).
            place: Where it happened.
            changes: Facts it makes true (or false: ``holds=False``) in the world:
                :class:`graphmem.minds.Fact`, dicts of its fields, or
                ``(subject, predicate, object)`` tuples.
            reveals: Facts the witnesses see without the event changing them.
            present: Who was there (those of an observer type witness it). Default:
                the observers (``MindSettings.observers``) the world state places at
                ``place`` now.
            at: World (game) time it happened; default now.
            importance: 0..1; the importance of the memories it makes.
            session_id: The game session (recaps gather its events).
            summary: A line for people (made from the facts when not given).
            attributes: Any other JSON data kept with it.
            event_id: Its id (default: a fresh one); an id already taken is refused.

        Raises:
            InvalidInput: A bad or unknown id, a taken event id, a bad fact, or more
                witnesses x facts than ``MindSettings.max_beliefs_per_event``; nothing is
                written.
        """
        return self._minds().record_event(
            type,
            actor=actor,
            participants=participants,
            place=place,
            changes=changes,
            reveals=reveals,
            present=present,
            at=at,
            importance=importance,
            session_id=session_id,
            summary=summary,
            attributes=attributes,
            event_id=event_id,
        )

    def observe(
        self,
        place: str,
        *,
        present: Sequence[str] | None = None,
        depth: int = 2,
        predicates: Sequence[str] | None = None,
        at: datetime | None = None,
        importance: float = 0.2,
        session_id: str | None = None,
    ) -> Event:
        """Those at ``place`` see what is there now (an ``observed`` event; nothing changes).

        What is there: the entities within ``depth`` steps along ``predicates`` (default
        the presence relation: the chest in the room, the sword in the chest) and the
        facts placing them. A game calls it when an NPC arrives somewhere it can see.
        """
        return self._minds().observe(
            place,
            present=present,
            depth=depth,
            predicates=predicates,
            at=at,
            importance=importance,
            session_id=session_id,
        )

    def tell(
        self,
        speaker: str,
        listener: str,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str] | None = None,
        *,
        about: str | None = None,
        at: datetime | None = None,
        decay: float | None = None,
        importance: float | None = None,
        session_id: str | None = None,
    ) -> list[Belief]:
        """The speaker claims ``fact`` (or all it believes ``about`` an entity) to a listener.

        A claim is not a belief: the speaker's own belief is untouched, and it may be a
        lie. The listener's trust policy (``MindSettings.trust``, a
        :class:`graphmem.minds.TrustPolicy`; by default what it saw beats hearsay unless
        the speaker stayed to see more) decides whether it comes to believe it, ``told``
        by the speaker, with the source chain (who had it from whom) and the speaker's
        confidence (1.0 for a claim it does not hold) times ``decay`` (default
        ``MindSettings.tell_decay``). When it does, both know it does (nested beliefs).
        A ``told`` event is recorded either way (``adopted`` says who believed it).
        Returns the listener's beliefs about it afterwards.

        Raises:
            InvalidInput: The speaker believes nothing ``about`` the entity, or an id is
                unknown.
        """
        return self._minds().tell(
            speaker,
            listener,
            fact,
            about=about,
            at=at,
            decay=decay,
            importance=importance,
            session_id=session_id,
        )

    def announce(
        self,
        speaker: str,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str],
        *,
        place: str | None = None,
        audience: Sequence[str] | None = None,
        at: datetime | None = None,
        decay: float | None = None,
        importance: float | None = None,
        session_id: str | None = None,
    ) -> Event:
        """The speaker claims ``fact`` in public: to everyone present, or to ``audience``.

        Everyone at ``place`` (default: where the speaker is) hears it, or the observers
        named in ``audience``; that they all heard it is common knowledge among them.
        Each listener's trust policy decides whether it believes it (as :meth:`tell`),
        and every listener knows who did. Returns the ``announced`` event (``adopted``:
        who came to believe the claim).
        """
        return self._minds().announce(
            speaker,
            fact,
            place=place,
            audience=audience,
            at=at,
            decay=decay,
            importance=importance,
            session_id=session_id,
        )

    def believe(
        self,
        npc: str,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str],
        *,
        how: str = "inferred",
        confidence: float = 1.0,
        importance: float = 0.5,
        at: datetime | None = None,
        told_by: str | None = None,
        of: str | Sequence[str] | None = None,
    ) -> Belief:
        """Give an NPC a belief directly: an inference, a ``rumour``, a game's own rule.

        ``of`` makes it nested (what ``npc`` thinks ``of`` believes).
        """
        return self._minds().believe(
            npc,
            fact,
            how=how,
            confidence=confidence,
            importance=importance,
            at=at,
            told_by=told_by,
            of=of,
        )

    def beliefs(
        self,
        npc: str,
        about: str | None = None,
        *,
        of: str | Sequence[str] | None = None,
        predicate: str | None = None,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        history: bool = False,
    ) -> list[Belief]:
        """What an NPC believes now, or at world time ``as_of`` / memory time ``recorded_as_of``.

        Args:
            npc: Whose beliefs.
            about: Only beliefs naming this entity (as subject or object).
            of: Nested beliefs: what ``npc`` thinks ``of`` believes (a list for deeper
                orders: ``["b", "c"]`` is what npc thinks b thinks c believes).
            predicate: Only beliefs of this predicate.
            as_of: World time: the beliefs held then (superseded or forgotten since).
            recorded_as_of: Memory time: the beliefs as the store held them then.
            history: Every version ever held (an audit trail), whatever the clocks.

        Returns:
            Beliefs oldest first (by when they were acquired). Current reads are one
            indexed store read.

        Raises:
            NotFound: ``npc`` is not an entity.
        """
        return self._minds().beliefs(
            npc,
            about,
            of=of,
            predicate=predicate,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            history=history,
        )

    def belief(
        self,
        npc: str,
        subject: str,
        predicate: str,
        object: str | None = None,
        *,
        of: str | Sequence[str] | None = None,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> Belief | None:
        """What an NPC believes of one subject and predicate (``"where is the sword?"``).

        With ``of``: what it thinks another believes ("where does Aria think Aiden thinks
        the apple is?" is ``belief("aria", "apple", "located_in", of="aiden")``), or a
        list for any order (``of=["aiden", "mira"]``: Aria thinks Aiden thinks Mira
        believes), answered from the last evidence all of them shared. None when it
        believes nothing of it.
        """
        return self._minds().belief(
            npc,
            subject,
            predicate,
            object,
            of=of,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
        )

    def who_knows(
        self,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str],
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> list[Belief]:
        """The NPCs' beliefs that ``fact`` holds (first order), by holder."""
        return self._minds().who_knows(fact, as_of=as_of, recorded_as_of=recorded_as_of)

    def check_beliefs(
        self,
        npc: str,
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> list[BeliefCheck]:
        """An NPC's beliefs beside the world's truth: false beliefs have ``agrees=False``.

        See :func:`graphmem.minds.truth.check_beliefs` (what counts as the truth).

        Raises:
            NotFound: ``npc`` is not an entity.
        """
        from graphmem.minds.truth import check_beliefs

        held = self.beliefs(npc, as_of=as_of, recorded_as_of=recorded_as_of)
        return check_beliefs(
            self._store, self._tenant, held, as_of=as_of, recorded_as_of=recorded_as_of
        )

    def events(
        self,
        *,
        about: str | None = None,
        witness: str | None = None,
        session_id: str | None = None,
        place: str | None = None,
        type: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[Event]:
        """Recorded events, oldest first (world time); every condition given must hold.

        ``about``: events naming an entity anywhere; ``witness``: events an NPC saw;
        ``since`` / ``until``: world-time bounds; ``limit``: the last ``limit``.
        """
        return self._minds().events(
            about=about,
            witness=witness,
            session_id=session_id,
            place=place,
            type=type,
            since=since,
            until=until,
            limit=limit,
        )

    def recall(
        self,
        npc: str,
        query: str | None = None,
        *,
        about: str | Sequence[str] | None = None,
        k: int = 10,
        at: datetime | None = None,
        mark: bool = True,
        relevance: Callable[[Belief], float] | None = None,
    ) -> list[Recollection]:
        """The ``k`` beliefs an NPC recalls first: recency x importance x relevance.

        The Generative Agents memory stream score (see :mod:`graphmem.minds.salience`):
        recency decays per game hour since a belief was acquired or last recalled;
        relevance is 1 for beliefs naming ``about``, the share of ``query``'s words in a
        belief otherwise, or your own ``relevance(belief) -> 0..1``. ``mark`` records the
        recall (last-recall time ``at``, count), which refreshes recency.
        """
        return self._minds().recall(
            npc, query, about=about, k=k, at=at, mark=mark, relevance=relevance
        )

    def forget(
        self,
        npc: str | None = None,
        *,
        below: float | None = None,
        older_than: timedelta | None = None,
        about: str | None = None,
        at: datetime | None = None,
    ) -> list[Belief]:
        """Retire beliefs (of one NPC, or of all) meeting every policy given.

        ``below``: salience (importance x recency at ``at``) under this floor;
        ``older_than``: not acquired nor recalled within this much game time before
        ``at``. Retired beliefs are kept as past versions (``beliefs(..., history=True)``
        and the two-clock reads still find them). Returns them, retired.
        """
        return self._minds().forget(npc, below=below, older_than=older_than, about=about, at=at)

    def save_recap(
        self,
        session_id: str,
        text: str | None = None,
        *,
        campaign: str | None = None,
        audio: bytes | None = None,
        audio_type: str | None = None,
        summarizer: RecapSummarizer | Callable[..., str] | None = None,
    ) -> Recap:
        """Save a session's recap ("previously on..."), replacing an earlier one.

        Without ``text`` it is written from the session (its active conversation branch
        and its events) by ``summarizer`` when given, else deterministically
        (:func:`graphmem.minds.default_recap`). ``audio``: rendered audio bytes, at most
        ``MindSettings.max_audio_bytes``, stored as bytes.
        """
        from graphmem.minds import recaps

        minds = self._minds()
        return recaps.save_recap(
            self._store,
            self._tenant,
            session_id,
            text,
            campaign=campaign,
            audio=audio,
            audio_type=audio_type,
            summarizer=summarizer,
            max_audio_bytes=minds.settings.max_audio_bytes,
        )

    def draft_recap(
        self,
        session_id: str,
        *,
        campaign: str | None = None,
        summarizer: RecapSummarizer | Callable[..., str] | None = None,
    ) -> Recap:
        """A recap of a session as :meth:`save_recap` would write it, not saved."""
        from graphmem.minds import recaps

        self._check_open()
        return recaps.draft_recap(
            self._store, self._tenant, session_id, campaign=campaign, summarizer=summarizer
        )

    def recap(self, session_id: str) -> Recap:
        """A session's saved recap; ``NotFound`` when it has none."""
        from graphmem.minds import recaps

        self._check_open()
        return recaps.get_recap(self._store, self._tenant, session_id)

    def recaps(self, campaign: str | None = None, *, limit: int | None = None) -> list[Recap]:
        """Saved recaps, newest first: all of them, or one campaign's."""
        from graphmem.minds import recaps

        self._check_open()
        return recaps.list_recaps(self._store, self._tenant, campaign, limit)

    # ------------------------------------------------------------------ graph questions

    def ask(
        self,
        question: str,
        k: int = 10,
        *,
        max_hops: int | None = None,
        semantic: bool | None = None,
        settings: GraphQASettings | None = None,
    ) -> GraphAnswers:
        """Answer a question about the entity graph: the entities at the end of a typed walk.

        The entity the question names is linked; relation paths of up to ``max_hops``
        steps are scored by how well the question's words match the relationship types
        the store holds (their names, and descriptions set with
        :meth:`describe_relationship_type`); the best are walked. Each answer carries the
        path and one chain of facts from the named entity to it, each fact with its own
        provenance. See :mod:`graphmem.retrieval.graphqa` and docs/retrieval.md.

        >>> import graphmem
        >>> from graphmem import Entity, Relationship
        >>> with graphmem.open("memory://", tenant="doc") as mem:
        ...     _ = mem.upsert_entities([Entity(id="mira", type="npc", name="Mira"),
        ...                              Entity(id="forge", type="location", name="The Forge")])
        ...     _ = mem.upsert_relationships([
        ...         Relationship(source_id="mira", target_id="forge", type="works_at")])
        ...     [a.entity.name for a in mem.ask("where does Mira work?", semantic=False)]
        ['The Forge']

        Args:
            question: The question, in plain words, naming an entity of the graph.
            k: How many answers at most.
            max_hops: The longest path considered (default: the settings', 3).
            semantic: Compare words by embedding too (the memory's embedder), so that
                "wrote" matches ``written_by``; False: by stem only; None (default): when
                the memory has an embedder or the ``embeddings`` extra is installed.
            settings: :class:`graphmem.retrieval.GraphQASettings` (weights and limits).

        Returns:
            Up to ``k`` answers, best first, as a list that also says how sure it is
            (``confidence``, 0..1), which names were ambiguous (``ambiguity``), and, when
            it abstains (``abstained``: an empty list), why (``reason``): the question
            names no known entity, no relationship explains its words ("husband" where
            no fact is about marriage), or no fact leads anywhere.

        Raises:
            InvalidInput: Empty question, or ``k`` / ``max_hops`` not a positive integer.
            BackendUnavailable: ``semantic=True`` and no embedder can be had.
        """
        return self._retrieval().answerer(semantic, settings).answer(question, k, max_hops=max_hops)

    def describe_relationship_type(self, type: str, description: str | None) -> None:
        """Say what a relationship type means, in words a question might use.

        :meth:`ask` matches questions against a type's name and this description
        (``written_by``: "the writer or screenwriter of the film"). Kept per tenant;
        ``None`` or a blank string removes it.

        Raises:
            InvalidInput: ``type`` is not a safe name, or the description is not a string
                or is too long (2,000 characters). Nothing is written.
        """
        self._check_open()
        from graphmem.retrieval.schema import describe_type

        describe_type(self._store, self._tenant, "relationship", type, description)

    def describe_entity_type(self, type: str, description: str | None) -> None:
        """Say what an entity type is ("npc": "a character: a person or a creature").

        :meth:`ask` uses it to tell what a question asks for ("who ..." a person,
        "which rooms ..." a room). Kept per tenant; ``None`` or a blank string removes it.

        Raises:
            InvalidInput: As :meth:`describe_relationship_type`.
        """
        self._check_open()
        from graphmem.retrieval.schema import describe_type

        describe_type(self._store, self._tenant, "entity", type, description)

    def schema(self) -> GraphSchema:
        """What :meth:`ask` plans with: fact shapes, roles that go together, descriptions."""
        self._check_open()
        from graphmem.retrieval.schema import GraphSchema, read_descriptions

        return GraphSchema(
            patterns=tuple(self._store.relationship_patterns(self._tenant)),
            cooccurrence=tuple(self._store.relationship_cooccurrence(self._tenant)),
            relationship_types=read_descriptions(self._store, self._tenant, "relationship"),
            entity_types=read_descriptions(self._store, self._tenant, "entity"),
        )

    def to_networkx(self, *, include_invalid: bool = False) -> nx.MultiDiGraph:
        """The entity graph as a networkx ``MultiDiGraph`` (for analysis and drawing).

        Nodes carry ``type``, ``name`` and the attributes; edges are keyed by type and carry
        ``confidence``, ``source``, ``confirmed`` and the validity times. See
        :func:`graphmem.exchange.analysis.to_networkx`.
        """
        from graphmem.exchange.analysis import to_networkx

        return to_networkx(self.dump(), include_invalid=include_invalid)


def _check_bus(bus: object) -> None:
    from graphmem.core.events import EventBus

    if bus is not None and not isinstance(bus, EventBus):
        raise InvalidInput(f"bus must be a graphmem.EventBus or None, got {type(bus).__name__}")


def _types(rel_types: Sequence[str] | None) -> tuple[str, ...] | None:
    names = check_safe_names(rel_types, "relationship type")
    return None if names is None else tuple(names)


def open(  # noqa: A001
    url: str = "memory://",
    *,
    tenant: str,
    embedder: Embedder | None = None,
    minds: MindSettings | None = None,
    auto_index: bool = True,
    index_batch: int | None = None,
    progress: bool = False,
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
        minds: How NPC minds work (:class:`graphmem.minds.MindSettings`; default:
            second-order beliefs, ``located_in`` as presence).
        auto_index: Index the turns appended through this memory for retrieval by
            themselves: linked and embedded in batches before the next retrieval (see
            :meth:`Memory.flush_index`). False: call :meth:`Memory.index_turns` yourself.
        index_batch: With ``auto_index``, also index as soon as this many turns wait
            (an append then pays for the batch); None: only before a retrieval.
        progress: Draw progress bars (tqdm, on stderr, only when it is a terminal) for
            long work: document ingest and turn indexing.
        **options: Backend options, e.g. ``tracer=print``; ``read_only=True`` to read a
            store (beside its writer) and never write or create anything.

    Raises:
        IdentityRequired: ``tenant`` is empty.
        InvalidInput: ``index_batch`` is not a positive integer.
    """
    check_tenant(tenant)
    store = open_store(url, **options)
    try:
        return Memory(
            store,
            tenant,
            embedder=embedder,
            minds=minds,
            auto_index=auto_index,
            index_batch=index_batch,
            progress=progress,
        )
    except BaseException:
        store.close()
        raise
