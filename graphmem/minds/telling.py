"""Claims: what a speaker says to one listener (``tell``) or to all present (``announce``).

A claim is not a belief. The speaker's own belief is untouched (it may be lying); each
listener's :class:`~graphmem.minds.TrustPolicy` decides, at the moment it hears it,
whether the claim becomes its belief. The claim is stored once (:mod:`graphmem.minds.beliefs`)
with its audience and the listeners who adopted it; who thinks whom believes it is read
from that, at any order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Entity, FrozenList, new_id, utcnow
from graphmem.core.store import GraphStore, as_utc
from graphmem.minds import args as check
from graphmem.minds import beliefs as evidence
from graphmem.minds import folding
from graphmem.minds.models import Belief, Event, Fact, Hearing, MindSettings, fact_from

__all__ = ["Minds", "claim", "hearers"]


class Minds(Protocol):
    """What a claim needs of :class:`graphmem.minds.core.Minds` (which calls it)."""

    store: GraphStore
    tenant: str
    settings: MindSettings

    def _entities(self, ids: Iterable[str]) -> dict[str, Entity]: ...

    def _place_of(self, entity_id: str) -> str | None: ...

    def _present(self, place: str) -> list[str]: ...

    def _object(self, fact: Fact) -> str | None: ...

    def _store_event(
        self, event: Event, items: Sequence[tuple[Fact, dict[str, Any], Iterable[str]]] = ()
    ) -> Event: ...

    def beliefs(self, npc: str, about: str | None = None) -> list[Belief]:
        """What ``npc`` believes (about ``about``)."""
        ...

    def belief(
        self, npc: str, subject: str, predicate: str, object: str | None = None
    ) -> Belief | None:
        """What ``npc`` believes of one subject and predicate."""
        ...


def _claims(minds: Minds, speaker: str, fact: Any, about: str | None) -> list[Fact]:
    if about is None:
        return [fact_from(fact, "fact")]
    held = minds.beliefs(speaker, about)
    if not held:
        raise InvalidInput(f"{speaker!r} believes nothing about {about!r} to tell")
    return [b.fact for b in held]


def _away(found: evidence.Slot, viewer: str, origin: Any) -> Any:
    """When ``viewer`` saw the slot's subject leave the place of ``origin`` since, or None."""
    moved = folding.current(found, (viewer,))
    if moved is None or moved.valid_from < origin.at or moved.origin.id == origin.id:
        return None
    fact = moved.fact
    if fact.holds and origin.place is not None and fact.object == origin.place:
        return None
    return moved.valid_from


def _known_at(found: evidence.Slot, viewer: str, when: Any) -> Any:
    """What ``viewer`` believed of the slot at world time ``when`` (a version), or None."""
    for version in reversed(folding.fold(found.all(), (viewer,))):
        if version.valid_from <= when and (version.valid_to is None or when < version.valid_to):
            return version
    return None


def _saw_more(
    listener: str,
    speaker: str,
    origin: evidence.Evidence | None,
    presence: Mapping[str, evidence.Slot],
) -> bool:
    """Whether, as the listener knows, the speaker may have seen more of the slot than it.

    The listener has left the place where it last saw it (``origin``), and the speaker
    was there when it left: it was there at that sighting, or the listener saw it come
    since, and the listener did not see it go. (Never saw it: always.)
    """
    if origin is None:
        return True
    left = _away(presence[listener], listener, origin)
    if left is None:
        return False  # still there, seeing all the speaker sees
    known = _known_at(presence[speaker], listener, left) if origin.place else None
    if known is not None:
        fact = known.fact
        if not (fact.holds and fact.object == origin.place):
            return False  # it had gone (or was elsewhere) when the listener left
        return speaker in origin.members or known.valid_from >= origin.at
    if speaker not in origin.members:
        return False
    before = _away(presence[speaker], listener, origin)
    return before is None or before > left


def hearers(
    minds: Minds, speaker: str, place: str | None, audience: Sequence[str] | None
) -> tuple[list[str], str | None]:
    """Who hears an announcement (the observers named, or those present), and where."""
    if audience is not None:
        named = check.ids(audience, "audience")
        known = minds._entities([speaker, *named])
        observers = set(minds.settings.observers)
        heard = [i for i in dict.fromkeys(named) if i != speaker and known[i].type in observers]
        return heard, None
    speaker = check.one_id(speaker, "speaker")
    place = check.one_id(place, "place") if place is not None else None
    minds._entities([speaker, *([place] if place else [])])
    where = place if place is not None else minds._place_of(speaker)
    if where is None:
        raise InvalidInput(
            f"{speaker!r} is nowhere the world state knows; give place= or audience="
        )
    return [i for i in minds._present(where) if i != speaker], where


def claim(
    minds: Minds,
    speaker: str,
    listeners: list[str],
    fact: Fact | Mapping[str, Any] | tuple[str, str, str] | None,
    about: str | None,
    at: datetime | None,
    decay: float | None,
    importance: float | None,
    session_id: str | None,
    place: str | None,
    public: bool,
) -> tuple[Event, list[Belief]]:
    """Record a claim heard by ``listeners`` (one: ``told``; any: ``announced``).

    Returns the event and the first listener's beliefs about the claims afterwards.
    """
    settings = minds.settings
    when = as_utc(at, "at") or utcnow()
    keep = settings.tell_decay if decay is None else decay
    if isinstance(keep, bool) or not isinstance(keep, int | float) or not 0 < keep <= 1:
        raise InvalidInput(f"decay must be within (0, 1], got {keep!r}")
    if importance is not None and (
        isinstance(importance, bool)
        or not isinstance(importance, int | float)
        or not 0 <= importance <= 1
    ):
        raise InvalidInput(f"importance must be a number within [0, 1], got {importance!r}")
    minds._entities([speaker, *listeners, *([about] if about else [])])
    facts = _claims(minds, speaker, fact, about)
    minds._entities([i for f in facts for i in f.entity_ids])
    # where each of them is: the presence relation is single-valued (one slot per subject)
    where = {who: evidence.slot_key(who, settings.presence) for who in (speaker, *listeners)}
    opened = evidence.open_slots(minds.store, minds.tenant, where.values())
    presence = {who: opened[slot] for who, slot in where.items()}
    members = FrozenList(sorted({speaker, *listeners}))
    items = []
    adopted: list[tuple[str, ...]] = []
    weights = []
    for claimed in facts:
        slot = evidence.slot_of(claimed, settings)
        found = evidence.open_slot(minds.store, minds.tenant, slot)
        own = folding.current(found, (speaker,))
        if own is not None and own.fact.same_claim(claimed):
            confidence, sources, weight = own.confidence, own.sources, own.importance
        else:  # a claim the speaker does not hold: said on its own word
            confidence, sources, weight = 1.0, (), 0.5
        weight = weight if importance is None else float(importance)
        weights.append(weight)
        took = []
        trust = settings.trust
        for listener in listeners:
            held = folding.current(found, (listener,))
            if trust.settled(listener, speaker, claimed, held.fact if held else None):
                took.append(listener)  # it holds nothing of it, or the same: nothing to weigh
                continue
            holding = folding.belief_of(held, listener, (), slot) if held else None
            origin = folding.last_seen(found, listener)
            seen = None
            if origin is not None and held is not None and held.origin is origin:
                seen = holding
            elif origin is not None:
                sight = folding.fold([origin], (listener,))[0]
                seen = folding.belief_of(sight, listener, (), slot)
            hearing = Hearing(
                listener=listener,
                speaker=speaker,
                fact=claimed,
                public=public,
                held=holding,
                seen=seen,
                speaker_saw_more=_saw_more(listener, speaker, origin, presence),
            )
            if trust.adopts(hearing):
                took.append(listener)
        adopted.append(tuple(took))
        data = evidence.evidence_data(
            evidence.CLAIM,
            claimed,
            when,
            members=members,
            speaker=speaker,
            adopted=took,
            how="told",
            confidence=confidence * keep,
            importance=weight,
            sources=[*sources, speaker],
        )
        if took:  # a claim no one believed changes no belief at any order: the event says it
            items.append((claimed, data, members))
    event = Event(
        id=new_id(),
        type="announced" if public else "told",
        at=when,
        place=place,
        actor=speaker,
        participants=tuple(listeners),
        witnesses=tuple(members),
        claims=tuple(facts),
        adopted=tuple(adopted),
        importance=max(weights),
        session_id=session_id,
    )
    for _, data, _ in items:
        data["event"] = event.id
    event = minds._store_event(event, items)
    first = listeners[0] if listeners else speaker
    slots = {evidence.slot_of(f, settings): f for f in facts}
    after = [minds.belief(first, f.subject, f.predicate, minds._object(f)) for f in slots.values()]
    return event, [b for b in after if b is not None]
