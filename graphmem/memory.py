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
    Direction,
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
from graphmem.store import GraphStore, TenantDump, check_tenant, open_store

if TYPE_CHECKING:
    import networkx as nx

    from graphmem.events import EventBus
    from graphmem.policy.context import ConversationMemory, Summarizer
    from graphmem.policy.governance import FactMemory, GovernancePolicy, LearnResult

__all__ = ["Memory", "open"]


def _coerce(model: type[Entity] | type[Relationship], items: Iterable[Any], what: str) -> list[Any]:
    if isinstance(items, Entity | Relationship | Mapping | str):
        raise InvalidInput(f"{what} takes a list; wrap a single item in [...]")
    out: list[Any] = []
    for index, item in enumerate(items):
        if isinstance(item, model):
            out.append(item)
        elif isinstance(item, Mapping):
            try:
                out.append(model.model_validate(dict(item)))
            except InvalidInput as exc:
                raise InvalidInput(f"{what}[{index}]: {exc.message}", index=index) from exc
        else:
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}; give a {model.__name__} or a dict",
                index=index,
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

    def __init__(self, store: GraphStore, tenant: str, *, owns_store: bool = True) -> None:
        self._tenant = check_tenant(tenant)
        self._store = store
        self._owns_store = owns_store
        self._closed = False

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


def open(url: str = "memory://", *, tenant: str, **options: Any) -> Memory:  # noqa: A001
    """Open a graph memory for one tenant.

    Args:
        url: ``memory://`` (in-process), ``file:///path/world.graphmem`` (in-process,
            persisted to one file), ``neo4j://user:password@host`` / ``bolt://...``.
        tenant: Whose memory this is; every call is scoped to it. Required.
        **options: Backend options, e.g. ``tracer=print``.

    Raises:
        IdentityRequired: ``tenant`` is empty.
    """
    check_tenant(tenant)
    return Memory(open_store(url, **options), tenant)
