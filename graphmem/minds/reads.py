"""Reading NPC minds: beliefs of any order, who knows a fact, events, the perspective.

The reads of :class:`graphmem.minds.core.Minds`, over the evidence of
:mod:`graphmem.minds.beliefs`: nothing is stored per belief, so every answer is folded
from the evidence of one slot (what was seen together, claimed, given, forgotten or
recalled), at whatever order is asked, under both clocks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import (
    FrozenDict,
    Provenance,
    Record,
    Relationship,
    check_safe_name,
    construct_trusted,
)
from graphmem.core.store import GraphStore, as_utc
from graphmem.minds import args as check
from graphmem.minds import beliefs as store_beliefs
from graphmem.minds import folding
from graphmem.minds.beliefs import visible_at
from graphmem.minds.models import Belief, Event, Fact, MindSettings, fact_from
from graphmem.minds.perspective import PerspectiveIdentity

__all__ = ["EVENT_KIND", "BeliefReads", "event_from_record", "may_name"]

EVENT_KIND = "event"
"""The record kind of events."""


def may_name(index: Mapping[str, Any], about: str) -> bool:
    """Whether beliefs of an index entry's slot may name ``about``.

    A single-valued slot's object varies, so only its subject rules it out.
    """
    return about == index.get("subject") or index.get("object", about) == about


class BeliefReads:
    """The reads of :class:`~graphmem.minds.core.Minds` (a base class: it holds no state)."""

    store: GraphStore
    tenant: str
    settings: MindSettings

    def _require(self, entity_id: str) -> None:
        self.store.get_entity(self.tenant, entity_id)  # NotFound when unknown

    # ------------------------------------------------------------------ reading beliefs

    def _chain(self, of: str | Sequence[str] | None) -> tuple[str, ...]:
        chain = tuple(check.ids(of, "of"))
        if len(chain) + 1 > self.settings.depth:
            raise InvalidInput(
                f"a belief of order {len(chain) + 1} is deeper than MindSettings.depth="
                f"{self.settings.depth}"
            )
        return chain

    def _object(self, fact: Fact) -> str | None:
        return None if self.settings.is_single_valued(fact.predicate) else fact.object

    def _versions(
        self,
        npc: str,
        chain: tuple[str, ...],
        slot: store_beliefs.Slot,
        now: bool = False,
    ) -> list[Belief]:
        """The versions ``npc`` held along ``chain``; ``now``: only the one it holds now."""
        if now:
            held = folding.held_now(slot, npc, chain)
            return [held] if held is not None else []
        versions = folding.fold(slot.all(), store_beliefs.collapse((npc, *chain)))
        return [folding.belief_of(v, npc, chain, slot.slot) for v in versions]

    def _slots(self, npc: str) -> list[Record]:
        return self.store.find_records(
            self.tenant, store_beliefs.INDEX_KIND, owner=npc, newest_first=False
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
        """What ``npc`` believes (or thinks ``of`` believes), oldest first.

        One indexed read of the slots it has evidence about, then one per slot.
        """
        npc = check.one_id(npc, "npc")
        chain = self._chain(of)
        world = as_utc(as_of, "as_of")
        memory = as_utc(recorded_as_of, "recorded_as_of")
        index = self._slots(npc)
        if not index:
            self._require(npc)
        found: list[Belief] = []
        wanted = [
            str(entry.data["slot"])
            for entry in index
            if (about is None or may_name(entry.data, about))
            and (predicate is None or entry.data.get("predicate") == predicate)
        ]
        latest = not history and world is None and memory is None
        for slot in store_beliefs.open_slots(self.store, self.tenant, wanted).values():
            for belief in self._versions(npc, chain, slot, latest):
                if about is not None and about not in belief.fact.entity_ids:
                    continue
                if history or visible_at(belief, world, memory):
                    found.append(belief)
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
        acquired last), or None when it has none. One indexed read (of the slot's
        evidence) whatever the order.
        """
        npc = check.one_id(npc, "npc")
        subject = check.one_id(subject, "subject")
        check.safe_name(predicate, "predicate")
        if object is not None:
            object = check.one_id(object, "object")
        chain = self._chain(of)
        single = self.settings.is_single_valued(predicate)
        if object is None and not single:
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
                if b.fact.subject == subject
            ]
            return candidates[-1] if candidates else None
        slot = store_beliefs.slot_key(subject, predicate, None if single else object)
        if as_of is None and recorded_as_of is None:  # now: the head, and what it keeps
            held = folding.held(self.store, self.tenant, slot, npc, chain)
            if held is None:
                self._require(npc)
            return held
        evidence = store_beliefs.open_slot(self.store, self.tenant, slot)
        world = as_utc(as_of, "as_of")
        memory = as_utc(recorded_as_of, "recorded_as_of")
        seen = [b for b in self._versions(npc, chain, evidence) if visible_at(b, world, memory)]
        if not seen:
            self._require(npc)
            return None
        return max(seen, key=lambda b: (b.valid_from, b.recorded_at))

    def who_knows(
        self,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str],
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> list[Belief]:
        """The first-order beliefs that ``fact`` holds (or, when it denies, that it does not).

        One indexed read: the evidence of the fact's slot, folded for each holder it names.
        """
        claim = fact_from(fact, "fact")
        slot = store_beliefs.slot_of(claim, self.settings)
        evidence = store_beliefs.open_slot(self.store, self.tenant, slot)
        world = as_utc(as_of, "as_of")
        memory = as_utc(recorded_as_of, "recorded_as_of")
        found = [
            b
            for holder in store_beliefs.holders(evidence.all())
            for b in self._versions(holder, (), evidence, world is None and memory is None)
            if visible_at(b, world, memory) and b.fact.same_claim(claim)
        ]
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
