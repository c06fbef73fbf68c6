"""Beliefs answered at read time from evidence records, over the GraphStore protocol only.

Nothing is written per belief. What happens is written once, as *evidence* (record kind
``evidence``, one per event and fact): a fact seen by a witness set, a claim made to an
audience (and which listeners adopted it), a belief given directly, a forgetting, a
recall. Its ``owner`` is the key of the fact's *slot*, so everything known about one
slot is one indexed ``find_records(owner=...)``. An *index* record per ``(holder, slot)``
(kind ``belief_slot``, owner the holder) lists the slots a holder has evidence about; it
is written once, the first time.

A read of "``h`` thinks ``c1`` thinks ... ``ck`` thinks X" (a *chain*, consecutive
repeats collapsed: ``h`` knows what ``h`` believes) folds the slot's evidence, oldest
recorded first, through the rules that applied when beliefs were materialised:

- a fact seen together is common knowledge among its witnesses: evidence applies when
  every member of the chain was a witness (those who left did not see it, and those who
  stayed know they did not);
- a claim applies to chains of its audience whose innermost believer (the last member,
  or the one before the speaker when the speaker is last) adopted it; the speaker's own
  belief is never changed by what it says;
- a belief given directly applies to its exact chain; a forgetting ends every chain of
  its holder on the slot; a recall marks the holder's first-order version.

Within the fold, a newer acquisition (world time) replaces the version held, one that
adds nothing (same claim, no firmer footing) changes nothing, and an older one goes to
the history only. The versions carry both clocks (``valid_from``/``valid_to`` in world
time; ``recorded_at``/``retired_at`` in memory time: the recording times of the evidence
that began and ended them), so ``as_of``, ``recorded_as_of`` and ``history`` read as
before. The cost of a read follows the evidence of one slot, whatever the order.

A *slot* is what one belief is about: ``(subject, predicate)`` for an attribute or a
single-valued relation (the sword is in one place at a time), ``(subject, predicate,
object)`` for a many-valued relation (Mira knows Tomas, and Ada too).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from graphmem.core.models import FrozenDict, FrozenList, Record, construct_trusted, new_id
from graphmem.core.store import GraphStore
from graphmem.minds.models import Belief, Fact, MindSettings, same_value

__all__ = [
    "HEAD_KIND",
    "INDEX_KIND",
    "KIND",
    "WINDOW",
    "Evidence",
    "Slot",
    "CACHE_LIMIT",
    "collapse",
    "index_id",
    "kept_window",
    "open_heads",
    "open_slot",
    "open_slots",
    "read_slot",
    "slot_key",
    "slot_of",
    "slot_owner",
    "visible_at",
    "write",
]

KIND = "evidence"
"""The record kind of evidence (what was seen, said, given, forgotten or recalled)."""
INDEX_KIND = "belief_slot"
"""The record kind of the ``(holder, slot)`` index."""
HEAD_KIND = "belief_head"
"""The record kind of a slot's head: the ids of its newest evidence, with their order."""
WINDOW = 64
"""How many of a slot's newest evidence ids its head keeps, per kind (seen, the rest)."""

SEEN, CLAIM, GIVEN, FORGOT, RECALLED = "seen", "claim", "given", "forgot", "recalled"

CACHE_LIMIT = 65_536
"""The most entries each in-process cache of this module keeps (emptied when full)."""


def slot_of(fact: Fact, settings: MindSettings) -> str:
    """What a belief about ``fact`` is about (see the module docstring), as a key."""
    if fact.object is None or settings.is_single_valued(fact.predicate):
        return slot_key(fact.subject, fact.predicate)
    return slot_key(fact.subject, fact.predicate, fact.object)


@lru_cache(maxsize=65_536)
def slot_key(subject: str, predicate: str, object: str | None = None) -> str:
    """The slot key of ``(subject, predicate)``, or of a many-valued relation's object."""
    if object is None:
        return json.dumps([subject, predicate])
    return json.dumps([subject, predicate, object])


def _digest(*parts: str) -> str:
    return hashlib.sha1(json.dumps(parts).encode(), usedforsecurity=False).hexdigest()


@lru_cache(maxsize=65_536)
def slot_owner(slot: str) -> str:
    """The owner key of a slot's evidence."""
    return "s" + _digest(slot)


def index_id(holder: str, slot: str, owner: str | None = None) -> str:
    """The record id of the index entry of ``(holder, slot)`` (``owner``: the slot's key)."""
    key = owner or slot_owner(slot)
    if len(holder) + len(key) < 500:  # the key has a fixed length: no separator is needed
        return f"i{key}.{holder}"
    return "i" + _digest(holder, key)


def collapse(chain: Sequence[str]) -> tuple[str, ...]:
    """A chain without consecutive repeats (what ``a`` thinks ``a`` believes, ``a`` believes).

    >>> collapse(["a", "a", "b", "a", "a"])
    ('a', 'b', 'a')
    """
    out: list[str] = []
    for member in chain:
        if not out or out[-1] != member:
            out.append(member)
    return tuple(out)


def _iso(value: datetime) -> str:
    return value.isoformat()


def _frozen(data: dict[str, Any]) -> FrozenDict:
    return FrozenDict({k: _frozen_value(v) for k, v in data.items()})


def _frozen_value(value: Any) -> Any:
    kind = type(value)
    if kind is FrozenList or kind is FrozenDict:
        return value  # frozen already (a witness set: not walked again)
    if isinstance(value, dict):
        return _frozen(value)
    if isinstance(value, list):
        if any(isinstance(v, dict | list) for v in value):
            return FrozenList([_frozen_value(v) for v in value])
        return FrozenList(value)
    return value


def _record(
    kind: str, record_id: str, owner: str | None, data: dict[str, Any], now: datetime
) -> Record:
    """A record from data this module made (JSON already): frozen, not re-validated."""
    return construct_trusted(
        Record,
        {
            "id": record_id,
            "kind": kind,
            "data": _frozen(data),
            "owner": owner,
            "blob": None,
            "created_at": now,
            "updated_at": now,
        },
    )


record_of = _record
"""A record of JSON data made from validated models (an event's dump): not re-validated."""


def fact_data(fact: Fact) -> dict[str, Any]:
    """The fields of a fact as evidence data."""
    data: dict[str, Any] = {
        "subject": fact.subject,
        "predicate": fact.predicate,
        "holds": fact.holds,
    }
    if fact.object is not None:
        data["object"] = fact.object
    else:
        data["value"] = fact.value
    return data


def evidence_data(kind: str, fact: Fact, at: datetime, **fields: Any) -> dict[str, Any]:
    """The data of one evidence record (``fields``: members, speaker, adopted, ...)."""
    data = {"k": kind, **fact_data(fact), "at": _iso(at)}
    data.update({k: v for k, v in fields.items() if v is not None})
    return data


# The holders known to have an index entry for a slot, kept per head record instance (as
# the windows are): an event seen by a crowd looks up only the holders new to the slot.
# A subset of those indexed; a head not kept (another process, a reload, a server store
# that makes new records per read) falls back to one ``get_records``. Bounded.
_indexed: dict[int, tuple[Record, frozenset[str]]] = {}


def _known_indexed(head: Record | None) -> frozenset[str]:
    if head is None:
        return frozenset()
    hit = _indexed.get(id(head))
    return hit[1] if hit is not None and hit[0] is head else frozenset()


def write(
    store: GraphStore,
    tenant: str,
    settings: MindSettings,
    items: Sequence[tuple[Fact, dict[str, Any], Iterable[str]]],
    now: datetime,
    extra: Sequence[Record] = (),
    *,
    recorded: Sequence[datetime] | None = None,
    delete: Mapping[str, Sequence[str]] | None = None,
) -> list[Record]:
    """Write evidence, its slots' heads, the index entries it needs and ``extra`` at once.

    ``items``: ``(fact, data, holders)``: the evidence data (from :func:`evidence_data`)
    and who holds a belief chain that it may reach (the index entries to make);
    ``recorded``: each item's memory time (default ``now``); ``delete``: records to
    delete in the same write (kind -> ids). One
    ``get_records`` finds the heads; one more the index entries of holders not known to
    have one (none, on the embedded store, for a crowd that was indexed before); only
    missing index entries are written. One atomic ``write_records``.
    """
    records: list[Record] = list(extra)
    slots = [slot_of(fact, settings) for fact, _, _ in items]
    owners = {slot: slot_owner(slot) for slot in slots}
    heads = {r.id: r for r in store.get_records(tenant, HEAD_KIND, list(set(owners.values())))}
    state: dict[str, dict[str, Any]] = {}
    wanted: dict[str, tuple[str, str, Fact]] = {}
    indexed: dict[str, set[str]] = {}  # per slot owner: the holders indexed after this write
    for n, ((fact, data, holders), slot) in enumerate(zip(items, slots, strict=True)):
        owner = owners[slot]
        head = state.get(owner)
        if head is None:
            old = heads.get(owner)
            head = state[owner] = (
                dict(old.data) if old is not None else {"slot": slot, "count": 0, "ordered": True}
            )
            indexed[owner] = set(_known_indexed(old))
            for part in ("seen", "rest"):
                head[part] = list(head.get(part, ()))
                head[f"{part}_q"] = list(head.get(f"{part}_q", ()))
        at = str(data["at"])
        last = head.get("last_at")
        if last is not None and datetime.fromisoformat(at) < datetime.fromisoformat(last):
            head["ordered"] = False
        else:
            head["last_at"] = at
        record_id = new_id()
        part = "seen" if data["k"] == SEEN else "rest"  # each kind keeps its own window
        head[part] = [*head[part][-(WINDOW - 1) :], record_id]
        head[f"{part}_q"] = [*head[f"{part}_q"][-(WINDOW - 1) :], head["count"]]
        data = {**data, "slot": slot, "n": n, "q": head["count"]}
        head["count"] += 1
        records.append(_record(KIND, record_id, owner, data, recorded[n] if recorded else now))
        known = indexed[owner]
        for holder in holders:
            if holder not in known:
                wanted.setdefault(index_id(holder, slot, owner), (holder, slot, fact))
        known.update(holders)
    for owner, head in state.items():
        for part in ("seen", "seen_q", "rest", "rest_q"):  # ids and numbers: no walk
            head[part] = FrozenList(head[part])
        records.append(_record(HEAD_KIND, owner, owner, head, now))
    if wanted:
        have = {r.id for r in store.get_records(tenant, INDEX_KIND, list(wanted))}
        for record_id, (holder, slot, fact) in wanted.items():
            if record_id not in have:
                data = {"holder": holder, "slot": slot, "subject": fact.subject}
                data["predicate"] = fact.predicate
                if len(json.loads(slot)) == 3:  # a many-valued relation: one slot per object
                    data["object"] = fact.object
                records.append(_record(INDEX_KIND, record_id, holder, data, now))
    if not records and not delete:
        return records
    written = store.write_records(tenant, records, delete)
    for record in written:
        if record.kind == HEAD_KIND and record.id in indexed:
            if len(_indexed) >= CACHE_LIMIT:
                _indexed.clear()
            _indexed[id(record)] = (record, frozenset(indexed[record.id]))
    return written


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class Evidence:
    """One evidence record, read: who it reaches and what it says."""

    id: str
    kind: str
    fact: Fact
    at: datetime
    recorded_at: datetime
    order: tuple[int, datetime, str]
    members: frozenset[str]
    adopted: frozenset[str]
    speaker: str | None
    holder: str | None
    chain: tuple[str, ...]
    how: str
    confidence: float
    importance: float
    sources: tuple[str, ...]
    event_id: str | None
    place: str | None
    claim: tuple[Any, ...]  # what it states, as a key: equal when the claims are the same
    told_by: str | None  # given: who told it (the last source, unless the data says)


def claim_key(fact: Fact) -> tuple[Any, ...]:
    """A fact's claim as a hashable key: equal keys for the same claim (:meth:`Fact.same_claim`).

    >>> claim_key(Fact(subject="a", predicate="p", value=1)) == claim_key(
    ...     Fact(subject="a", predicate="p", value=1.0))
    True
    >>> claim_key(Fact(subject="a", predicate="p", value=1)) == claim_key(
    ...     Fact(subject="a", predicate="p", value=True))
    False
    """
    value = fact.value
    return (fact.subject, fact.predicate, fact.object, type(value) is bool, value, fact.holds)


_parsed: dict[int, tuple[Record, Evidence]] = {}


def evidence_from_record(record: Record) -> Evidence:
    """The :class:`Evidence` a record holds (kept per record instance, bounded)."""
    hit = _parsed.get(id(record))
    if hit is not None and hit[0] is record:
        return hit[1]
    data = record.data
    fact = construct_trusted(
        Fact,
        {
            "subject": data["subject"],
            "predicate": data["predicate"],
            "object": data.get("object"),
            "value": data.get("value"),
            "holds": data["holds"],
        },
    )
    holder = data.get("holder")
    sources = tuple(data.get("sources", ()))
    told_by = data["told_by"] if "told_by" in data else (sources[-1] if sources else None)
    parsed = Evidence(
        id=record.id,
        kind=data["k"],
        fact=fact,
        at=datetime.fromisoformat(data["at"]),
        recorded_at=record.created_at,
        order=(int(data.get("q", 0)), record.created_at, record.id),
        members=frozenset(data.get("members", ())),
        adopted=frozenset(data.get("adopted", ())),
        speaker=data.get("speaker"),
        holder=holder,
        chain=collapse([holder, *data.get("chain", ())]) if holder else (),
        how=str(data.get("how", data["k"])),
        confidence=float(data.get("confidence", 1.0)),
        importance=float(data.get("importance", 0.5)),
        sources=sources,
        event_id=data.get("event"),
        place=data.get("place"),
        claim=claim_key(fact),
        told_by=told_by,
    )
    if len(_parsed) >= CACHE_LIMIT:
        _parsed.clear()
    _parsed[id(record)] = (record, parsed)
    return parsed


def read_slot(store: GraphStore, tenant: str, slot: str) -> list[Evidence]:
    """The evidence of one slot, in recording order: one indexed read of all of it."""
    found = store.find_records(tenant, KIND, owner=slot_owner(slot), newest_first=False)
    evidence = [evidence_from_record(r) for r in found]
    evidence.sort(key=lambda e: e.order)
    return evidence


class Slot:
    """The evidence of one slot as a read needs it: its newest first, the rest on demand.

    A read of what is held *now* usually needs only the newest evidence (its head's
    window: one ``get_records``); the whole slot is read (one indexed ``find_records``)
    only when the window does not reach back far enough, or for history and the clocks.
    """

    __slots__ = ("_all", "complete", "head", "ordered", "slot", "store", "tenant", "window")

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        slot: str,
        window: list[Evidence],
        complete: bool,
        ordered: bool,
        head: Record | None = None,
    ) -> None:
        self.store, self.tenant, self.slot = store, tenant, slot
        self.window, self.complete, self.ordered = window, complete, ordered
        self.head = head
        self._all: list[Evidence] | None = window if complete else None

    def all(self) -> list[Evidence]:
        """Every evidence of the slot, in recording order."""
        if self._all is None:
            self._all = read_slot(self.store, self.tenant, self.slot)
        return self._all


# The embedded store hands out the immutable records it holds: a slot's window read
# once is kept, keyed by its head record instance (a new head is a new instance), so a
# hot read is one ``get_records`` of the head. Bounded (emptied when full).
_windows: dict[int, tuple[Record, tuple[list[Evidence], bool]]] = {}


def _window_ids(head: Record) -> tuple[list[str], bool]:
    """The ids of a head's window, oldest first, and whether it holds the whole slot.

    Each kind keeps its newest ``WINDOW``; merged, they cover every evidence of the slot
    from the newer of the two oldest kept (when a kind's window is full).
    """
    data = head.data
    start = 0
    merged: list[tuple[int, str]] = []  # (order in the slot, evidence id)
    for part in ("seen", "rest"):
        entries = list(zip(data.get(f"{part}_q", ()), data.get(part, ()), strict=True))
        if len(entries) >= WINDOW:
            start = max(start, entries[0][0])
        merged.extend(entries)
    merged.sort()
    return [i for q, i in merged if q >= start], start == 0


def open_slots(store: GraphStore, tenant: str, slots: Iterable[str]) -> dict[str, Slot]:
    """The slots asked for, each with its newest evidence: at most two ``get_records``."""
    wanted = {slot_owner(slot): slot for slot in dict.fromkeys(slots)}
    heads = {r.id: r for r in store.get_records(tenant, HEAD_KIND, list(wanted))}
    return open_heads(store, tenant, wanted, heads)


def open_heads(
    store: GraphStore, tenant: str, wanted: dict[str, str], heads: dict[str, Record]
) -> dict[str, Slot]:
    """The slots of ``wanted`` (owner -> slot) from their heads: their windows read.

    At most one ``get_records`` (the windows not kept yet).
    """
    kept: dict[str, tuple[list[Evidence], bool]] = {}
    missing: dict[str, tuple[list[str], bool]] = {}
    for owner, head in heads.items():
        hit = _windows.get(id(head))
        if hit is not None and hit[0] is head:
            kept[owner] = hit[1]
        else:
            missing[owner] = _window_ids(head)
    ids = [i for window_ids, _ in missing.values() for i in window_ids]
    found = {r.id: r for r in store.get_records(tenant, KIND, ids)} if ids else {}
    out: dict[str, Slot] = {}
    for owner, slot in wanted.items():
        top = heads.get(owner)
        if top is None:
            out[slot] = Slot(store, tenant, slot, [], True, True)
            continue
        head = top
        if owner in kept:
            window, whole = kept[owner]
        else:
            window_ids, whole = missing[owner]
            window = [evidence_from_record(found[i]) for i in window_ids if i in found]
            whole = whole and len(window) == len(window_ids)
            if len(window) == len(window_ids):
                if len(_windows) >= CACHE_LIMIT:
                    _windows.clear()
                _windows[id(head)] = (head, (window, whole))
        ordered = bool(head.data.get("ordered", False))
        out[slot] = Slot(store, tenant, slot, window, whole, ordered, head)
    return out


def kept_window(head: Record) -> tuple[list[Evidence], bool] | None:
    """The window kept for a head record instance (its evidence, whether it is all), if any."""
    hit = _windows.get(id(head))
    return hit[1] if hit is not None and hit[0] is head else None


def open_slot(store: GraphStore, tenant: str, slot: str) -> Slot:
    """One slot with its newest evidence (see :func:`open_slots`)."""
    return open_slots(store, tenant, [slot])[slot]


def holders(evidence: Iterable[Evidence]) -> set[str]:
    """Everyone some evidence of a slot may reach as a first-order holder."""
    out: set[str] = set()
    for e in evidence:
        out.update(e.members)
        if e.holder is not None:
            out.add(e.holder)
    return out


def same_claim_data(data: Any, fact: Fact) -> bool:
    """Whether evidence data states ``fact`` (subject, predicate, object or value, holds)."""
    return (
        data.get("subject") == fact.subject
        and data.get("predicate") == fact.predicate
        and data.get("object") == fact.object
        and same_value(data.get("value"), fact.value)
        and data.get("holds") == fact.holds
    )


def visible_at(belief: Belief, as_of: datetime | None, recorded_as_of: datetime | None) -> bool:
    """Whether a version was held at world time ``as_of`` and as recorded at ``recorded_as_of``.

    World time: ``valid_from <= as_of < valid_to``. Memory time: ``recorded_at <=
    recorded_as_of < retired_at``. Each clock given is checked; none given means now.
    With both, the world as the memory told it then: a version retired after
    ``recorded_as_of`` had no ``valid_to`` yet (its end was recorded when it was retired).
    """
    if as_of is None and recorded_as_of is None:
        return belief.retired_at is None
    ends = belief.valid_to
    if recorded_as_of is not None:
        if belief.recorded_at > recorded_as_of:
            return False
        if belief.retired_at is not None and recorded_as_of >= belief.retired_at:
            return False
        ends = None
    return as_of is None or (belief.valid_from <= as_of and (ends is None or as_of < ends))
