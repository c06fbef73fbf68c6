"""Beliefs kept as generic records (kind ``belief``), over the GraphStore protocol only.

One record per *version* of a belief. The version a holder holds now lives at an id made
from ``(holder, chain, slot)`` (so a batch of acquisitions reads the versions it may
replace with one ``get_records``), and its ``owner`` is the chain's current key, so
:func:`read_current` is one indexed ``find_records(owner=...)`` whose cost follows what
the NPC believes, never the whole store. A superseded or forgotten version is kept under
a fresh id with the chain's *past* key as owner: the audit trail, read by the two-clock
reads.

A *slot* is what one belief is about: ``(subject, predicate)`` for an attribute or a
single-valued relation (the sword is in one place at a time), ``(subject, predicate,
object)`` for a many-valued relation (Mira knows Tomas, and Ada too).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from graphmem.minds.models import Belief, Fact, MindSettings, same_value
from graphmem.models import FrozenDict, FrozenList, Record, construct_trusted, new_id
from graphmem.store import GraphStore

__all__ = [
    "KIND",
    "Acquisition",
    "acquire",
    "belief_from_record",
    "chain_key",
    "current_id",
    "mark_recalled",
    "read_current",
    "read_versions",
    "retire",
    "slot_of",
    "visible_at",
]

KIND = "belief"
"""The record kind of beliefs."""


@lru_cache(maxsize=65_536)
def chain_key(holder: str, chain: tuple[str, ...], past: bool = False) -> str:
    """The owner key of a holder's beliefs along a chain: ``c:`` now, ``p:`` past versions."""
    digest = hashlib.sha1(json.dumps([holder, *chain]).encode(), usedforsecurity=False)
    return ("p:" if past else "c:") + digest.hexdigest()


def slot_of(fact: Fact, settings: MindSettings) -> str:
    """What a belief about ``fact`` is about (see the module docstring), as a key."""
    if fact.object is None or settings.is_single_valued(fact.predicate):
        return json.dumps([fact.subject, fact.predicate])
    return json.dumps([fact.subject, fact.predicate, fact.object])


def current_id(holder: str, chain: tuple[str, ...], slot: str) -> str:
    """The record id of the version a holder holds now about a slot.

    Ids hold no control characters, so joining them with one is unambiguous.
    """
    raw = "\x1f".join((holder, *chain, "\x1e", slot)).encode()
    return "b" + hashlib.sha1(raw, usedforsecurity=False).hexdigest()


def _record(
    record_id: str, owner: str, data: dict[str, Any], now: datetime, created: datetime | None
) -> Record:
    """A belief record from data this module made (JSON already): frozen, not re-validated."""
    frozen = FrozenDict({k: FrozenList(v) if isinstance(v, list) else v for k, v in data.items()})
    return construct_trusted(
        Record,
        {
            "id": record_id,
            "kind": KIND,
            "data": frozen,
            "owner": owner,
            "blob": None,
            "created_at": created or now,
            "updated_at": now,
        },
    )


@dataclass(frozen=True, slots=True)
class Acquisition:
    """A belief a holder comes by: what, how, and when (world time)."""

    holder: str
    chain: tuple[str, ...]
    fact: Fact
    how: str
    at: datetime
    confidence: float
    importance: float
    told_by: str | None = None
    sources: tuple[str, ...] = ()
    event_id: str | None = None


def _iso(value: datetime) -> str:
    return value.isoformat()


def _data(item: Acquisition, slot: str, at: str, recorded_at: str) -> dict[str, Any]:
    fact = item.fact
    data: dict[str, Any] = {
        "holder": item.holder,
        "chain": list(item.chain),
        "depth": len(item.chain) + 1,
        "subject": fact.subject,
        "predicate": fact.predicate,
        "holds": fact.holds,
        "slot": slot,
        "how": item.how,
        "sources": list(item.sources),
        "confidence": item.confidence,
        "importance": item.importance,
        "valid_from": at,
        "recorded_at": recorded_at,
        "recall_count": 0,
        "current": True,
    }
    if fact.object is not None:
        data["object"] = fact.object
    else:
        data["value"] = fact.value
    if item.told_by is not None:
        data["told_by"] = item.told_by
    if item.event_id is not None:
        data["event"] = item.event_id
    return data


def _retired(record: Record, *, ended: datetime, now: datetime, because: str) -> dict[str, Any]:
    """The data of a version once retired (superseded or forgotten)."""
    data = dict(record.data)
    if "valid_to" not in data:
        start = datetime.fromisoformat(data["valid_from"])
        data["valid_to"] = _iso(max(ended, start))
    data.setdefault("retired_at", _iso(now))
    data.setdefault("retired_because", because)
    data["current"] = False
    return data


def _same(old: Record, item: Acquisition) -> bool:
    """Whether ``item`` adds nothing to the version held (same claim, no firmer footing)."""
    data = old.data
    fact = item.fact
    if data.get("holds") != fact.holds or data.get("object") != fact.object:
        return False
    if fact.object is None and not same_value(data.get("value"), fact.value):
        return False
    if item.confidence > float(data.get("confidence", 0.0)):
        return False
    return not (item.how == "witnessed" and data.get("how") != "witnessed")


def acquire(
    store: GraphStore,
    tenant: str,
    items: Sequence[Acquisition],
    settings: MindSettings,
    now: datetime,
) -> list[Record]:
    """Write what holders come to believe: one ``get_records`` and one atomic ``put_records``.

    For each item, the version held now about its slot is replaced (and kept as a past
    version) unless the item adds nothing to it. An item older (world time) than the
    version held is kept as a past version ending where the held one begins. Returns the
    records written for the items (not the past copies); unchanged items write nothing.
    """
    wanted: dict[str, tuple[Acquisition, str]] = {}
    slots: dict[int, str] = {}  # items share facts: one slot key per fact
    for item in items:
        slot = slots.get(id(item.fact))
        if slot is None:
            slot = slots[id(item.fact)] = slot_of(item.fact, settings)
        wanted[current_id(item.holder, item.chain, slot)] = (item, slot)
    if not wanted:
        return []
    held = {r.id: r for r in store.get_records(tenant, KIND, list(wanted))}
    writes: list[Record] = []
    fresh: list[Record] = []
    stamp = _iso(now)
    times: dict[datetime, str] = {}
    for record_id, (item, slot) in wanted.items():
        old = held.get(record_id)
        at = times.get(item.at)
        if at is None:
            at = times[item.at] = _iso(item.at)
        data = _data(item, slot, at, stamp)
        current_owner = chain_key(item.holder, item.chain)
        past_owner = chain_key(item.holder, item.chain, past=True)
        if old is not None and old.data.get("current") is True:
            start = datetime.fromisoformat(old.data["valid_from"])
            if item.at < start:  # older news: history only, the held version stays
                data.update(
                    valid_to=_iso(start),
                    retired_at=_iso(now),
                    retired_because="superseded",
                    current=False,
                )
                writes.append(_record(new_id(), past_owner, data, now, None))
                continue
            if _same(old, item):
                continue
            past = _retired(old, ended=item.at, now=now, because="superseded")
            writes.append(_record(new_id(), past_owner, past, now, old.created_at))
        elif old is not None:  # a forgotten version still sits at this id: move it aside
            writes.append(_record(new_id(), past_owner, dict(old.data), now, old.created_at))
        record = _record(record_id, current_owner, data, now, None)
        writes.append(record)
        fresh.append(record)
    if writes:
        store.put_records(tenant, KIND, writes)
    return fresh


def retire(
    store: GraphStore,
    tenant: str,
    records: Iterable[Record],
    *,
    at: datetime,
    now: datetime,
    because: str = "forgotten",
) -> list[Record]:
    """Retire current versions in place (one atomic put): their owner becomes the past key."""
    writes = []
    for record in records:
        holder = str(record.data["holder"])
        chain = tuple(str(i) for i in record.data.get("chain", ()))
        owner = chain_key(holder, chain, past=True)
        data = _retired(record, ended=at, now=now, because=because)
        writes.append(_record(record.id, owner, data, now, record.created_at))
    if writes:
        store.put_records(tenant, KIND, writes)
    return writes


def mark_recalled(
    store: GraphStore, tenant: str, records: Iterable[Record], *, at: datetime, now: datetime
) -> None:
    """Note that current versions were recalled at world time ``at`` (one atomic put)."""
    writes = []
    for record in records:
        data = dict(record.data)
        data["last_recalled_at"] = _iso(at)
        data["recall_count"] = int(data.get("recall_count", 0)) + 1
        writes.append(_record(record.id, record.owner or "", data, now, record.created_at))
    if writes:
        store.put_records(tenant, KIND, writes)


# --------------------------------------------------------------------------- reading


# Records are immutable, and the embedded store hands out the instances it holds: the
# belief made from one is kept, so a hot read of an NPC's beliefs converts each version
# once (the conversion costs more than the indexed read). Keyed by id(record) and checked
# by identity; bounded (emptied when full). A server store makes new records per read:
# they pass through it without benefit and without harm.
_CACHE_LIMIT = 65_536
_beliefs: dict[int, tuple[Record, Belief]] = {}


def belief_from_record(record: Record) -> Belief:
    """The :class:`Belief` a stored record holds.

    Built without re-validation: this module wrote the record, and the store validated it.
    """
    hit = _beliefs.get(id(record))
    if hit is not None and hit[0] is record:
        return hit[1]
    belief = _convert(record)
    if len(_beliefs) >= _CACHE_LIMIT:
        _beliefs.clear()
    _beliefs[id(record)] = (record, belief)
    return belief


def _convert(record: Record) -> Belief:
    data = record.data
    fact_values = {
        "subject": data["subject"],
        "predicate": data["predicate"],
        "object": data.get("object"),
        "value": data.get("value"),
        "holds": data["holds"],
    }
    values = {
        "id": record.id,
        "holder": data["holder"],
        "chain": tuple(data.get("chain", ())),
        "fact": construct_trusted(Fact, fact_values),
        "how": data["how"],
        "told_by": data.get("told_by"),
        "sources": tuple(data.get("sources", ())),
        "event_id": data.get("event"),
        "confidence": float(data["confidence"]),
        "importance": float(data["importance"]),
        "valid_from": datetime.fromisoformat(data["valid_from"]),
        "valid_to": _time(data.get("valid_to")),
        "recorded_at": datetime.fromisoformat(data["recorded_at"]),
        "retired_at": _time(data.get("retired_at")),
        "retired_because": data.get("retired_because"),
        "last_recalled_at": _time(data.get("last_recalled_at")),
        "recall_count": int(data.get("recall_count", 0)),
    }
    return construct_trusted(Belief, values)


def _time(value: Any) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def read_current(
    store: GraphStore, tenant: str, holder: str, chain: tuple[str, ...]
) -> list[Record]:
    """The versions a holder holds now along a chain: one indexed read."""
    found = store.find_records(tenant, KIND, owner=chain_key(holder, chain), newest_first=False)
    return [r for r in found if r.data.get("current") is True]


def read_versions(
    store: GraphStore, tenant: str, holder: str, chain: tuple[str, ...]
) -> list[Record]:
    """Every version a holder ever held along a chain, current and past: two indexed reads."""
    now = store.find_records(tenant, KIND, owner=chain_key(holder, chain), newest_first=False)
    past = store.find_records(
        tenant, KIND, owner=chain_key(holder, chain, past=True), newest_first=False
    )
    return [*past, *now]


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
