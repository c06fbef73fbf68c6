"""NPC minds over the GraphStore protocol: events, witnessing, telling, beliefs, forgetting.

The mechanism, for every world (no rule knows any story):

- An event happens at a place. Its *witnesses* are the observers the world state places
  there (``MindSettings.presence``), plus its actor and participants, unless the caller
  names who was present. The world state takes the facts it *changes*.
- Every witness comes to believe each fact the event changes or reveals, and, being
  there together, believes each other witness believes it, recursively up to
  ``MindSettings.depth``: for witnesses ``W`` every chain ``w1, w2, ..., wk`` of ``W``
  (``k <= depth``, no one twice in a row) gets the belief "w1 thinks w2 thinks ... it".
  Those absent keep what they believed (now perhaps false), and so do the models others
  hold of them.
- ``tell`` passes the speaker's belief to the listener with its source chain and a
  confidence multiplied by ``tell_decay``; both then know the listener was told.
- ``observe`` is an event that changes nothing and reveals what is at a place.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from graphmem.checks import check_id, check_ids
from graphmem.errors import InvalidInput, NotFound
from graphmem.minds import beliefs as store_beliefs
from graphmem.minds.beliefs import Acquisition, belief_from_record, visible_at
from graphmem.minds.models import (
    Belief,
    Event,
    Fact,
    MindSettings,
    PerspectiveIdentity,
    Recollection,
    fact_from,
)
from graphmem.minds.salience import relevance_by_words, salience, score
from graphmem.models import (
    Entity,
    FrozenDict,
    Provenance,
    Record,
    Relationship,
    RelationshipFilter,
    check_safe_name,
    construct_trusted,
    new_id,
    utcnow,
)
from graphmem.store import GraphStore, as_utc

__all__ = ["EVENT_KIND", "Minds", "chains", "event_from_record"]

EVENT_KIND = "event"
"""The record kind of events."""

_R = TypeVar("_R")
_P = ParamSpec("_P")


def chains(members: Sequence[str], depth: int) -> list[tuple[str, ...]]:
    """Every chain of ``members`` up to ``depth`` long with no one twice in a row.

    >>> chains(["a", "b"], 2)
    [('a',), ('b',), ('a', 'b'), ('b', 'a')]
    """
    out: list[tuple[str, ...]] = [(m,) for m in members]
    layer = out
    for _ in range(depth - 1):
        layer = [(*c, m) for c in layer for m in members if m != c[-1]]
        out.extend(layer)
    return out


def _chain_count(witnesses: int, depth: int) -> int:
    return sum(witnesses * (witnesses - 1) ** (k - 1) for k in range(1, depth + 1))


def _ids(values: Any, what: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out = check_ids(values, what)
    for value in out:
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput(f"{what}: {value!r} is not an entity id")
    return out


def _chain(of: str | Sequence[str] | None) -> tuple[str, ...]:
    return tuple(_ids(of, "of"))


def _one_id(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} must be an entity id, got {value!r}")
    return check_id(value, what)


def _fraction(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"{what} must be a number within [0, 1], got {value!r}")
    return float(value)


def _facts(values: Any, what: str) -> list[Fact]:
    if values is None:
        return []
    if isinstance(values, Fact | Mapping) or not isinstance(values, Iterable):
        raise InvalidInput(f"{what} takes a list of facts; wrap a single fact in [...]")
    return [fact_from(v, f"{what}[{i}]") for i, v in enumerate(values)]


def _at(value: datetime | None, what: str = "at") -> datetime:
    return as_utc(value, what) or utcnow()


# Belief writes read the versions they replace, then write: in one process, the writes
# to one tenant of one store take turns, so two events at once never lose a version.
_write_locks: dict[tuple[int, str], threading.RLock] = {}
_write_locks_guard = threading.Lock()


def _write_lock(store: GraphStore, tenant: str) -> threading.RLock:
    key = (id(store), tenant)
    with _write_locks_guard:
        lock = _write_locks.get(key)
        if lock is None:
            lock = _write_locks[key] = threading.RLock()
        return lock


def _writes(method: Callable[Concatenate[Minds, _P], _R]) -> Callable[Concatenate[Minds, _P], _R]:
    """Run a writing operation of :class:`Minds` under the tenant's write lock."""

    @wraps(method)
    def locked(self: Minds, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked


class Minds:
    """What the NPCs of one tenant know; :class:`graphmem.Memory` exposes it as verbs."""

    def __init__(self, store: GraphStore, tenant: str, settings: MindSettings) -> None:
        self.store = store
        self.tenant = tenant
        self.settings = settings
        self._lock = _write_lock(store, tenant)

    # ------------------------------------------------------------------ entities

    def _entities(self, ids: Iterable[str]) -> dict[str, Entity]:
        """The entities among ``ids``; ``InvalidInput`` naming those that do not exist."""
        wanted = list(dict.fromkeys(ids))
        found = {e.id: e for e in self.store.get_entities(self.tenant, wanted)} if wanted else {}
        missing = [i for i in wanted if i not in found]
        if missing:
            raise InvalidInput(
                f"unknown entities {missing[:10]}; upsert them first. Nothing was written.",
                missing_ids=missing,
            )
        return found

    def _require(self, entity_id: str) -> None:
        self.store.get_entity(self.tenant, entity_id)  # NotFound when unknown

    def _place_of(self, entity_id: str) -> str | None:
        """Where the world state places an entity now (its newest presence fact)."""
        flt = RelationshipFilter(types=(self.settings.presence,))
        found = self.store.get_relationships(self.tenant, entity_id, flt)
        if not found:
            return None
        newest = max(found, key=lambda r: (r.valid_at or r.created_at, r.target_id))
        return newest.target_id

    def _present(self, place: str) -> list[str]:
        """The observers the world state places at ``place`` now."""
        return [
            e.id
            for e in self.store.neighbors(
                self.tenant,
                place,
                depth=1,
                rel_types=[self.settings.presence],
                node_types=list(self.settings.observers),
                direction="in",
            )
        ]

    # ------------------------------------------------------------------ events

    @_writes
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
        """Record an event, apply its changes to the world, update its witnesses' beliefs."""
        check_safe_name(type, "event type")
        if attributes is not None and not isinstance(attributes, Mapping):
            raise InvalidInput(
                f"attributes takes a mapping of names to values, got {type_name(attributes)}"
            )
        when = _at(at)
        weight = _fraction(importance, "importance")
        changed = _facts(changes, "changes")
        revealed = _facts(reveals, "reveals")
        people = _ids(participants, "participants")
        named = _ids(present, "present") if present is not None else None
        actor = _one_id(actor, "actor") if actor is not None else None
        place = _one_id(place, "place") if place is not None else None
        ids = [i for i in (actor, place) if i is not None] + people + (named or [])
        ids += [i for fact in (*changed, *revealed) for i in fact.entity_ids]
        known = self._entities(ids)
        if event_id is not None and self.store.get_records(self.tenant, EVENT_KIND, [event_id]):
            raise InvalidInput(
                f"event id {event_id!r} is taken: events are never replaced. Nothing was written."
            )
        if place is None and actor is not None:
            place = self._place_of(actor)
        observers = set(self.settings.observers)
        everyone = [*([actor] if actor else []), *people, *(named or [])]
        witnesses = {i for i in everyone if known[i].type in observers}
        if named is None and place is not None:
            witnesses.update(self._present(place))
        facts = [*changed, *revealed]
        self._check_budget(len(witnesses), len(facts))
        event = Event(
            id=event_id or new_id(),
            type=type,
            at=when,
            place=place,
            actor=actor,
            participants=tuple(people),
            witnesses=tuple(sorted(witnesses)),
            changes=tuple(changed),
            reveals=tuple(revealed),
            importance=weight,
            session_id=session_id,
            summary=summary,
            attributes=dict(attributes or {}),
        )
        event = self._store_event(event)
        self._apply(changed, event)
        self._witness(event, event.witnesses, facts)
        return event

    def _check_budget(self, witnesses: int, facts: int) -> None:
        count = _chain_count(witnesses, self.settings.depth) * facts
        if count > self.settings.max_beliefs_per_event:
            raise InvalidInput(
                f"this event would write up to {count:,} beliefs ({witnesses} witnesses, "
                f"{facts} facts, depth {self.settings.depth}), more than "
                f"max_beliefs_per_event={self.settings.max_beliefs_per_event:,}; lower the "
                "depth or name fewer witnesses. Nothing was written."
            )

    def _store_event(self, event: Event) -> Event:
        data = event.model_dump(mode="json", exclude={"id", "recorded_at"})
        record = Record(id=event.id, kind=EVENT_KIND, owner=event.session_id, data=data)
        [stored] = self.store.put_records(self.tenant, EVENT_KIND, [record])
        return event.model_copy(update={"recorded_at": stored.created_at})

    def _apply(self, changes: Sequence[Fact], event: Event) -> None:
        """Apply an event's changes to the world state (facts already newer are left)."""
        store, tenant, at = self.store, self.tenant, event.at
        provenance = Provenance(
            session_id=event.session_id, source="observed", evidence=(event.id,)
        )
        fresh: list[Relationship] = []
        attributes: dict[str, dict[str, Any]] = {}
        removed: dict[str, list[str]] = {}
        for fact in changes:
            if fact.object is None:
                if fact.holds:
                    attributes.setdefault(fact.subject, {})[fact.predicate] = fact.value
                else:
                    removed.setdefault(fact.subject, []).append(fact.predicate)
                continue
            held = store.get_relationships(
                tenant, fact.subject, RelationshipFilter(types=(fact.predicate,))
            )
            if not self.settings.is_single_valued(fact.predicate):
                held = [r for r in held if r.target_id == fact.object]
            if any(r.valid_at is not None and r.valid_at > at for r in held):
                continue  # the world already holds a later state of this
            for rel in held:
                if (rel.target_id == fact.object) != fact.holds:  # the fact this one ends
                    store.invalidate_relationship(
                        tenant, rel.source_id, rel.target_id, rel.type, at=at
                    )
            if fact.holds and not any(r.target_id == fact.object for r in held):
                fresh.append(
                    Relationship(
                        source_id=fact.subject,
                        target_id=fact.object,
                        type=fact.predicate,
                        provenance=provenance,
                        valid_at=at,
                    )
                )
        if fresh:
            store.upsert_relationships(tenant, fresh)
        for subject in dict.fromkeys([*attributes, *removed]):
            store.update_entity(
                tenant,
                subject,
                attributes=attributes.get(subject),
                remove_attributes=removed.get(subject, ()),
            )

    def _witness(self, event: Event, witnesses: Sequence[str], facts: Sequence[Fact]) -> None:
        confidence = self.settings.witness_confidence
        items = [
            Acquisition(
                holder=chain[0],
                chain=chain[1:],
                fact=fact,
                how="witnessed",
                at=event.at,
                confidence=confidence,
                importance=event.importance,
                event_id=event.id,
            )
            for chain in chains(witnesses, self.settings.depth)
            for fact in facts
        ]
        store_beliefs.acquire(self.store, self.tenant, items, self.settings, utcnow())

    @_writes
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
        """Those at ``place`` see what is there: an ``observed`` event revealing the world.

        What is there: everything within ``depth`` steps of ``place`` along ``predicates``
        (default: the presence relation; a chest in the room, the sword in the chest),
        as the world state holds it now.
        """
        place = _one_id(place, "place")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise InvalidInput(f"depth must be a positive integer, got {depth!r}")
        types = _ids(predicates, "predicates") or [self.settings.presence]
        for name in types:
            check_safe_name(name, "predicate")
        self._entities([place])
        scene = self.store.expand(
            self.tenant, [place], depth=depth, rel_types=types, direction="in"
        )
        seen = [
            Fact(subject=r.source_id, predicate=r.type, object=r.target_id)
            for r in scene.relationships
        ]
        return self.record_event(
            "observed",
            place=place,
            reveals=seen,
            present=present,
            at=at,
            importance=importance,
            session_id=session_id,
        )

    @_writes
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
        """Pass the speaker's beliefs (one fact, or all it holds ``about`` an entity) on.

        Returns the listener's beliefs about them afterwards.
        """
        speaker = _one_id(speaker, "speaker")
        listener = _one_id(listener, "listener")
        if speaker == listener:
            raise InvalidInput("an NPC cannot tell itself; give two different NPCs")
        if (fact is None) == (about is None):
            raise InvalidInput("tell takes a fact or about=entity (one of them)")
        when = _at(at)
        keep = self.settings.tell_decay if decay is None else decay
        if isinstance(keep, bool) or not isinstance(keep, int | float) or not 0 < keep <= 1:
            raise InvalidInput(f"decay must be within (0, 1], got {keep!r}")
        self._entities([speaker, listener, *([about] if about else [])])
        passed = self._to_tell(speaker, fact, about)
        weight = (
            max(b.importance for b in passed)
            if importance is None
            else _fraction(importance, "importance")
        )
        event = self._store_event(
            Event(
                id=new_id(),
                type="told",
                at=when,
                actor=speaker,
                participants=(listener,),
                witnesses=tuple(sorted((speaker, listener))),
                claims=tuple(b.fact for b in passed),
                importance=weight,
                session_id=session_id,
            )
        )
        items = []
        for chain in chains([speaker, listener], self.settings.depth):
            if chain == (speaker,):
                continue  # the speaker's own belief is what it passed on
            hears = chain[0] == listener
            for belief in passed:
                items.append(
                    Acquisition(
                        holder=chain[0],
                        chain=chain[1:],
                        fact=belief.fact,
                        how="told" if hears else "inferred",
                        at=when,
                        confidence=belief.confidence * keep,
                        importance=weight,
                        told_by=speaker if hears else None,
                        sources=(*belief.sources, speaker),
                        event_id=event.id,
                    )
                )
        store_beliefs.acquire(self.store, self.tenant, items, self.settings, utcnow())
        slots = [store_beliefs.slot_of(b.fact, self.settings) for b in passed]
        ids = [store_beliefs.current_id(listener, (), slot) for slot in slots]
        held = self.store.get_records(self.tenant, store_beliefs.KIND, ids)
        return [belief_from_record(r) for r in held]

    def _to_tell(self, speaker: str, fact: Any, about: str | None) -> list[Belief]:
        if about is not None:
            known = [
                belief_from_record(r)
                for r in store_beliefs.read_current(self.store, self.tenant, speaker, ())
            ]
            passed = [b for b in known if about in b.fact.entity_ids]
            if not passed:
                raise InvalidInput(f"{speaker!r} believes nothing about {about!r} to tell")
            return passed
        claim = fact_from(fact, "fact")
        slot = store_beliefs.slot_of(claim, self.settings)
        record_id = store_beliefs.current_id(speaker, (), slot)
        found = self.store.get_records(self.tenant, store_beliefs.KIND, [record_id])
        held = belief_from_record(found[0]) if found else None
        if held is None or not held.current or not held.fact.same_claim(claim):
            believed = f"; it believes {held.fact.text()!r}" if held and held.current else ""
            raise InvalidInput(
                f"{speaker!r} does not believe {claim.text()!r}{believed}: tell passes on "
                "what the speaker believes (use believe() to give it that belief first)"
            )
        return [held]

    @_writes
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
        """Give an NPC a belief directly (an inference, a rumour, what the game decides)."""
        npc = _one_id(npc, "npc")
        claim = fact_from(fact, "fact")
        check_safe_name(how, "how")
        chain = _chain(of)
        self._entities([npc, *claim.entity_ids, *chain, *([told_by] if told_by else [])])
        item = Acquisition(
            holder=npc,
            chain=chain,
            fact=claim,
            how=how,
            at=_at(at),
            confidence=_fraction(confidence, "confidence"),
            importance=_fraction(importance, "importance"),
            told_by=told_by,
            sources=(told_by,) if told_by else (),
        )
        store_beliefs.acquire(self.store, self.tenant, [item], self.settings, utcnow())
        slot = store_beliefs.slot_of(claim, self.settings)
        [record] = self.store.get_records(
            self.tenant, store_beliefs.KIND, [store_beliefs.current_id(npc, chain, slot)]
        )
        return belief_from_record(record)

    # ------------------------------------------------------------------ reading beliefs

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
        """What ``npc`` believes (or thinks ``of`` believes), oldest first."""
        npc = _one_id(npc, "npc")
        chain = _chain(of)
        if as_of is not None or recorded_as_of is not None or history:
            world = as_utc(as_of, "as_of")
            memory = as_utc(recorded_as_of, "recorded_as_of")
            records = store_beliefs.read_versions(self.store, self.tenant, npc, chain)
            found = [belief_from_record(r) for r in records]
            if not history:
                found = [b for b in found if visible_at(b, world, memory)]
        else:
            records = store_beliefs.read_current(self.store, self.tenant, npc, chain)
            found = [belief_from_record(r) for r in records]
        if about is not None:
            found = [b for b in found if about in b.fact.entity_ids]
        if predicate is not None:
            found = [b for b in found if b.fact.predicate == predicate]
        if not records:
            self._require(npc)
        found.sort(key=lambda b: (b.valid_from, b.recorded_at, b.id))
        return found

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
        """What ``npc`` believes (or thinks ``of`` believes) of one subject and predicate.

        The newest such belief (for a many-valued relation without ``object``, the one
        acquired last), or None when it has none.
        """
        npc = _one_id(npc, "npc")
        chain = _chain(of)
        if (
            as_of is None
            and recorded_as_of is None
            and (object is not None or self.settings.is_single_valued(predicate))
        ):
            probe = Fact(subject=subject, predicate=predicate, object=object or subject)
            slot = store_beliefs.slot_of(probe, self.settings)
            record_id = store_beliefs.current_id(npc, chain, slot)
            found = self.store.get_records(self.tenant, store_beliefs.KIND, [record_id])
            if found and found[0].data.get("current") is True:
                return belief_from_record(found[0])
            self._require(npc)
            return None
        candidates = [
            b
            for b in self.beliefs(
                npc,
                subject,
                of=chain,
                predicate=predicate,
                as_of=as_of,
                recorded_as_of=recorded_as_of,
            )
            if b.fact.subject == subject and (object is None or b.fact.object == object)
        ]
        return candidates[-1] if candidates else None

    def who_knows(
        self,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str],
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> list[Belief]:
        """The first-order beliefs that ``fact`` holds (or, when it denies, that it does not)."""
        claim = fact_from(fact, "fact")
        slot = store_beliefs.slot_of(claim, self.settings)
        where: dict[str, Any] = {"slot": slot, "depth": 1}
        timed = as_of is not None or recorded_as_of is not None
        if not timed:
            where["current"] = True
        records = self.store.find_records(
            self.tenant, store_beliefs.KIND, where=where, newest_first=False
        )
        found = [belief_from_record(r) for r in records]
        if timed:
            world = as_utc(as_of, "as_of")
            memory = as_utc(recorded_as_of, "recorded_as_of")
            found = [b for b in found if visible_at(b, world, memory)]
        found = [b for b in found if b.fact.same_claim(claim)]
        found.sort(key=lambda b: (b.holder, b.valid_from))
        return found

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
        """Events, oldest first (world time); each condition given must hold."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
        if limit is not None and limit <= 0:
            raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
        where: dict[str, Any] = {}
        if place is not None:
            where["place"] = place
        if type is not None:
            where["type"] = check_safe_name(type, "event type")
        records = self.store.find_records(
            self.tenant,
            EVENT_KIND,
            where=where,
            owner=session_id,
            newest_first=False,
        )
        low, high = as_utc(since, "since"), as_utc(until, "until")
        found = []
        for record in records:
            event = event_from_record(record)
            if low is not None and event.at < low:
                continue
            if high is not None and event.at >= high:
                continue
            if witness is not None and witness not in event.witnesses:
                continue
            if about is not None and about not in event.entity_ids:
                continue
            found.append(event)
        found.sort(key=lambda e: (e.at, e.recorded_at, e.id))
        return found[-limit:] if limit else found

    # ------------------------------------------------------------------ salience

    @_writes
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
        """The ``k`` beliefs ``npc`` recalls first (see :mod:`graphmem.minds.salience`)."""
        if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
            raise InvalidInput(f"k must be a positive integer, got {k!r}")
        if query is not None and not isinstance(query, str):
            raise InvalidInput(f"query must be a string, got {type(query).__name__}")
        if relevance is not None:
            relevance = _checked_relevance(relevance)
        when = _at(at)
        held = self.beliefs(npc)
        topics = set(_ids(about, "about"))
        if relevance is None and topics:
            relevance = lambda b: 1.0 if topics & set(b.fact.entity_ids) else 0.0  # noqa: E731
        elif relevance is None and query:
            named = {i for b in held for i in b.fact.entity_ids}
            names = {e.id: e.name for e in self.store.get_entities(self.tenant, sorted(named))}
            relevance = relevance_by_words(query, names)
        ranked = score(held, when, self.settings, relevance)[:k]
        if mark and ranked:
            ids = [r.belief.id for r in ranked]
            records = self.store.get_records(self.tenant, store_beliefs.KIND, ids)
            store_beliefs.mark_recalled(self.store, self.tenant, records, at=when, now=utcnow())
        return ranked

    @_writes
    def forget(
        self,
        npc: str | None = None,
        *,
        below: float | None = None,
        older_than: timedelta | None = None,
        about: str | None = None,
        at: datetime | None = None,
    ) -> list[Belief]:
        """Retire the beliefs meeting every policy given; their versions stay readable."""
        if below is None and older_than is None:
            raise InvalidInput("forget needs a policy: below=<salience floor>, older_than=<age>")
        floor = _fraction(below, "below") if below is not None else None
        if older_than is not None and (
            not isinstance(older_than, timedelta) or older_than < timedelta(0)
        ):
            raise InvalidInput(f"older_than must be a non-negative timedelta, got {older_than!r}")
        when = _at(at)
        where: dict[str, Any] = {"current": True}
        if npc is not None:
            where["holder"] = _one_id(npc, "npc")
            self._require(npc)
        records = self.store.find_records(
            self.tenant, store_beliefs.KIND, where=where, newest_first=False
        )
        chosen = []
        for record in records:
            belief = belief_from_record(record)
            if about is not None and about not in belief.fact.entity_ids:
                continue
            if floor is not None and salience(belief, when, self.settings) >= floor:
                continue
            if older_than is not None and when - belief.touched_at <= older_than:
                continue
            chosen.append(record)
        retired = store_beliefs.retire(self.store, self.tenant, chosen, at=when, now=utcnow())
        return [belief_from_record(r) for r in retired]

    # ------------------------------------------------------------------ perspective

    def perspective(
        self,
        npc: str,
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> PerspectiveIdentity:
        """The NPC as it sees things: itself, what it believes, and whom it heard it from.

        Two store reads: its beliefs, and the entities they name.
        """
        held = self.beliefs(npc, as_of=as_of, recorded_as_of=recorded_as_of)
        named = sorted({npc, *(i for b in held for i in (*b.fact.entity_ids, *b.sources))})
        entities = {e.id: e for e in self.store.get_entities(self.tenant, named)}
        if npc not in entities:
            raise NotFound(f"no entity {npc!r} in tenant {self.tenant!r}", entity_id=npc)
        rels: dict[tuple[str, str, str], Relationship] = {}
        for belief in held:
            fact = belief.fact
            if fact.object is None or not fact.holds:
                continue
            provenance = construct_trusted(
                Provenance,
                {
                    "session_id": None,
                    "confidence": belief.confidence,
                    "source": belief.how,
                    "confirmed": False,
                    "evidence": (belief.event_id,) if belief.event_id else (),
                },
            )
            rel = construct_trusted(
                Relationship,
                {
                    "source_id": fact.subject,
                    "target_id": fact.object,
                    "type": fact.predicate,
                    "attributes": FrozenDict(),
                    "provenance": provenance,
                    "valid_at": belief.valid_from,
                    "invalid_at": None,
                    "created_at": belief.recorded_at,
                    "expired_at": None,
                },
            )
            rels[rel.key] = rel
        return construct_trusted(
            PerspectiveIdentity,
            {
                "entity": entities[npc],
                "relationships": tuple(rels[k] for k in sorted(rels)),
                "related_entities": tuple(entities[i] for i in named if i != npc and i in entities),
                "beliefs": tuple(held),
            },
        )


def event_from_record(record: Record) -> Event:
    """The :class:`Event` an event record holds."""
    return Event.model_validate({**record.data, "id": record.id, "recorded_at": record.created_at})


def type_name(value: object) -> str:
    """The name of ``value``'s type, for messages."""
    return type(value).__name__


def _checked_relevance(relevance: object) -> Callable[[Belief], float]:
    """A caller's ``relevance(belief) -> 0..1``, whose answers are checked as they come.

    Raises:
        InvalidInput: ``relevance`` is not callable (and, when called, an answer that is
            not a finite number).
    """
    if not callable(relevance):
        raise InvalidInput(
            f"relevance must be a function of a belief returning 0..1, got {type_name(relevance)}"
        )

    def checked(belief: Belief) -> float:
        value = relevance(belief)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise InvalidInput(
                f"relevance(belief) must return a finite number from 0 to 1, got {value!r}"
            )
        return float(value)

    return checked
