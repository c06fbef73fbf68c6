"""NPC minds over the GraphStore protocol: events, witnessing, claims, trust, beliefs.

The mechanism, for every world (no rule knows any story):

- An event happens at a place. Its *witnesses* are the observers the world state places
  there (``MindSettings.presence``), plus its actor and participants, unless the caller
  names who was present. The world state takes the facts it *changes*.
- The event is stored once with its witness set (:mod:`graphmem.minds.beliefs`): what a
  group saw together is common knowledge among them, so "w1 thinks w2 thinks ... wk
  thinks X" is answered at read time from the last evidence all of them shared, at any
  order, and the write costs one record per fact whatever the number of witnesses.
  Those absent keep what they believed (now perhaps false), and so do the models others
  hold of them.
- ``tell`` and ``announce`` record what was *claimed*: the speaker's own belief is
  untouched (lies are ordinary); each listener's :class:`~graphmem.minds.TrustPolicy`
  decides whether the claim becomes its belief. Whether or not it does, the listener
  knows it was claimed (the event); when it does, speaker and listeners know it does
  (an announcement: every listener knows every other heard it).
- ``observe`` is an event that changes nothing and reveals what is at a place.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from graphmem.core.checks import check_ids
from graphmem.core.errors import InvalidInput, StoreReadOnly
from graphmem.core.models import (
    Entity,
    FrozenList,
    RelationshipFilter,
    check_safe_name,
    new_id,
    utcnow,
)
from graphmem.core.store import GraphStore, check_owner
from graphmem.minds import args as check
from graphmem.minds import beliefs as store_beliefs
from graphmem.minds import telling, upgrade, world
from graphmem.minds.models import Belief, Event, Fact, MindSettings, Recollection, fact_from
from graphmem.minds.reads import EVENT_KIND, BeliefReads, event_from_record, may_name
from graphmem.minds.salience import relevance_by_words, salience, score

__all__ = ["EVENT_KIND", "Minds", "event_from_record"]

_R = TypeVar("_R")
_P = ParamSpec("_P")

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


class Minds(BeliefReads):
    """What the NPCs of one tenant know; :class:`graphmem.Memory` exposes it as verbs.

    >>> import graphmem
    >>> mem = graphmem.open("memory://", tenant="doc")
    >>> _ = mem.upsert_entities([{"id": "inn", "type": "location", "name": "the inn"},
    ...     {"id": "key", "type": "item", "name": "the key"},
    ...     {"id": "jar", "type": "item", "name": "the jar"},
    ...     *({"id": n, "type": "npc", "name": n.title()} for n in ("ana", "bo", "cy"))])
    >>> _ = mem.upsert_relationships([{"source_id": n, "target_id": "inn",
    ...     "type": "located_in"} for n in ("ana", "bo", "cy")])
    >>> _ = mem.record_event("hid", actor="ana", changes=[("key", "located_in", "jar")])
    >>> mem.belief("bo", "key", "located_in", of=["cy", "ana", "cy"]).fact.object
    'jar'
    >>> _ = mem.tell("ana", "bo", ("key", "located_in", "inn"))  # a lie, not believed
    >>> mem.belief("bo", "key", "located_in").fact.object
    'jar'
    """

    def __init__(self, store: GraphStore, tenant: str, settings: MindSettings) -> None:
        self.store = store
        self.tenant = tenant
        self.settings = settings
        self._lock = _write_lock(store, tenant)
        if upgrade.pending(store, tenant):  # beliefs saved by an earlier graphmem
            with self._lock:
                try:
                    upgrade.convert(store, tenant, settings)
                except StoreReadOnly as exc:
                    raise StoreReadOnly(
                        f"tenant {tenant!r} holds NPC beliefs saved by an earlier graphmem "
                        "(record kind 'belief'), converted on first use; open the store once "
                        "without read_only=True to convert them. Nothing was written.",
                        tenant=tenant,
                    ) from exc

    # ------------------------------------------------------------------ entities

    def _entities(self, ids: Iterable[str]) -> dict[str, Entity]:
        """The entities among ``ids``; ``InvalidInput`` naming those that do not exist.

        Every id is checked first (``InvalidInput`` for one that is not an id), so a verb
        that passes its arguments here unchecked still refuses them with a typed error.
        """
        wanted = list(dict.fromkeys(check_ids(list(ids), "entity ids")))
        found = {e.id: e for e in self.store.get_entities(self.tenant, wanted)} if wanted else {}
        missing = [i for i in wanted if i not in found]
        if missing:
            raise InvalidInput(
                f"unknown entities {missing[:10]}; upsert them first. Nothing was written.",
                missing_ids=missing,
            )
        return found

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
                f"attributes takes a mapping of names to values, got {check.type_name(attributes)}"
            )
        when = check.world_time(at)
        weight = check.fraction(importance, "importance")
        changed = check.facts(changes, "changes")
        revealed = check.facts(reveals, "reveals")
        people = check.ids(participants, "participants")
        named = check.ids(present, "present") if present is not None else None
        actor = check.one_id(actor, "actor") if actor is not None else None
        place = check.one_id(place, "place") if place is not None else None
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
            changes=tuple(changed),
            reveals=tuple(revealed),
            importance=weight,
            session_id=session_id,
            summary=summary,
            attributes=dict(attributes or {}),
        )
        # the witnesses are entities the store holds (valid ids): not validated again
        members = FrozenList(sorted(witnesses))
        event = event.model_copy(update={"witnesses": tuple(members)})
        items = [
            (
                fact,
                store_beliefs.evidence_data(
                    store_beliefs.SEEN,
                    fact,
                    when,
                    members=members,
                    confidence=self.settings.witness_confidence,
                    importance=weight,
                    event=event.id,
                    place=place,
                ),
                members,
            )
            for fact in facts
        ]
        event = self._store_event(event, items)
        world.apply(self.store, self.tenant, self.settings, changed, event)
        return event

    def _check_budget(self, witnesses: int, facts: int) -> None:
        count = witnesses * facts
        if count > self.settings.max_beliefs_per_event:
            raise InvalidInput(
                f"this event has {witnesses} witnesses of {facts} facts ({count:,}), more "
                f"than max_beliefs_per_event={self.settings.max_beliefs_per_event:,}; name "
                "fewer witnesses. Nothing was written."
            )

    def _store_event(
        self, event: Event, items: Sequence[tuple[Fact, dict[str, Any], Iterable[str]]] = ()
    ) -> Event:
        """Write an event with its evidence (and the index entries it needs) atomically."""
        now = utcnow()
        data = event.model_dump(mode="json", exclude={"id", "recorded_at"})
        data["witnesses"] = FrozenList(data["witnesses"])  # ids: frozen without a walk
        if event.session_id is not None:  # the owner key is checked as the store would
            check_owner(event.session_id)
        record = store_beliefs.record_of(EVENT_KIND, event.id, event.session_id, data, now)
        store_beliefs.write(self.store, self.tenant, self.settings, items, now, [record])
        return event.model_copy(update={"recorded_at": now})

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
        place = check.one_id(place, "place")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise InvalidInput(f"depth must be a positive integer, got {depth!r}")
        types = check.ids(predicates, "predicates") or [self.settings.presence]
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
        """The speaker claims a fact (or all it believes ``about`` an entity) to a listener.

        Returns the listener's beliefs about them afterwards (its trust policy decides).
        """
        speaker = check.one_id(speaker, "speaker")
        listener = check.one_id(listener, "listener")
        if speaker == listener:
            raise InvalidInput("an NPC cannot tell itself; give two different NPCs")
        if (fact is None) == (about is None):
            raise InvalidInput("tell takes a fact or about=entity (one of them)")
        return telling.claim(
            self, speaker, [listener], fact, about, at, decay, importance, session_id, None, False
        )[1]

    @_writes
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
        """The speaker claims a fact to everyone present (or to ``audience``), in public.

        Everyone present hears it, and that they all heard it is common knowledge among
        them. Returns the ``announced`` event (``adopted``: who came to believe it).
        """
        speaker = check.one_id(speaker, "speaker")
        if place is not None and audience is not None:
            raise InvalidInput("announce takes place= or audience= (one of them, or neither)")
        if fact is None:
            raise InvalidInput("announce takes a fact")
        listeners, where = telling.hearers(self, speaker, place, audience)
        return telling.claim(
            self, speaker, listeners, fact, None, at, decay, importance, session_id, where, True
        )[0]

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
        npc = check.one_id(npc, "npc")
        claim = fact_from(fact, "fact")
        check_safe_name(how, "how")
        chain = self._chain(of)
        self._entities([npc, *claim.entity_ids, *chain, *([told_by] if told_by else [])])
        data = store_beliefs.evidence_data(
            store_beliefs.GIVEN,
            claim,
            check.world_time(at),
            holder=npc,
            chain=list(chain),
            how=how,
            confidence=check.fraction(confidence, "confidence"),
            importance=check.fraction(importance, "importance"),
            sources=[told_by] if told_by else [],
        )
        store_beliefs.write(
            self.store, self.tenant, self.settings, [(claim, data, [npc])], utcnow()
        )
        held = self.belief(npc, claim.subject, claim.predicate, self._object(claim), of=chain)
        assert held is not None  # the evidence just written reaches this chain
        return held

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
            relevance = check.checked_relevance(relevance)
        when = check.world_time(at)
        held = self.beliefs(npc)
        topics = set(check.ids(about, "about"))
        if relevance is None and topics:
            relevance = lambda b: 1.0 if topics & set(b.fact.entity_ids) else 0.0  # noqa: E731
        elif relevance is None and query:
            named = {i for b in held for i in b.fact.entity_ids}
            names = {e.id: e.name for e in self.store.get_entities(self.tenant, sorted(named))}
            relevance = relevance_by_words(query, names)
        ranked = score(held, when, self.settings, relevance)[:k]
        if mark and ranked:
            items = [
                (
                    r.belief.fact,
                    store_beliefs.evidence_data(
                        store_beliefs.RECALLED, r.belief.fact, when, holder=r.belief.holder
                    ),
                    (),
                )
                for r in ranked
            ]
            store_beliefs.write(self.store, self.tenant, self.settings, items, utcnow())
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
        floor = check.fraction(below, "below") if below is not None else None
        if older_than is not None and (
            not isinstance(older_than, timedelta) or older_than < timedelta(0)
        ):
            raise InvalidInput(f"older_than must be a non-negative timedelta, got {older_than!r}")
        when = check.world_time(at)
        if npc is not None:
            npc = check.one_id(npc, "npc")
            self._require(npc)
            index = self._slots(npc)
        else:
            index = self.store.find_records(
                self.tenant, store_beliefs.INDEX_KIND, newest_first=False
            )
        slots: dict[str, list[str]] = {}
        for entry in index:
            data = entry.data
            if about is not None and not may_name(data, about):
                continue
            slots.setdefault(str(data["slot"]), []).append(str(data["holder"]))
        chosen: list[Belief] = []
        opened = store_beliefs.open_slots(self.store, self.tenant, slots)
        for slot, holders in slots.items():
            for holder in holders:
                for belief in self._versions(holder, (), opened[slot], True):
                    if not belief.current:
                        continue
                    if about is not None and about not in belief.fact.entity_ids:
                        continue
                    if floor is not None and salience(belief, when, self.settings) >= floor:
                        continue
                    if older_than is not None and when - belief.touched_at <= older_than:
                        continue
                    chosen.append(belief)
        now = utcnow()
        items = [
            (
                b.fact,
                store_beliefs.evidence_data(store_beliefs.FORGOT, b.fact, when, holder=b.holder),
                (),
            )
            for b in chosen
        ]
        store_beliefs.write(self.store, self.tenant, self.settings, items, now)
        return [
            b.model_copy(
                update={
                    "valid_to": max(when, b.valid_from),
                    "retired_at": now,
                    "retired_because": "forgotten",
                }
            )
            for b in chosen
        ]
