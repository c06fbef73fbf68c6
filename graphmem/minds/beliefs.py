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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.minds.models import Belief, Fact, MindSettings, same_value
from graphmem.models import FrozenDict, FrozenList, Record, construct_trusted, new_id
from graphmem.store import GraphStore

__all__ = [
    "INDEX_KIND",
    "KIND",
    "Evidence",
    "collapse",
    "current",
    "fold",
    "index_id",
    "read_slot",
    "slot_of",
    "slot_owner",
    "visible_at",
    "write",
]

KIND = "evidence"
"""The record kind of evidence (what was seen, said, given, forgotten or recalled)."""
INDEX_KIND = "belief_slot"
"""The record kind of the ``(holder, slot)`` index."""

SEEN, CLAIM, GIVEN, FORGOT, RECALLED = "seen", "claim", "given", "forgot", "recalled"


def slot_of(fact: Fact, settings: MindSettings) -> str:
    """What a belief about ``fact`` is about (see the module docstring), as a key."""
    if fact.object is None or settings.is_single_valued(fact.predicate):
        return json.dumps([fact.subject, fact.predicate])
    return json.dumps([fact.subject, fact.predicate, fact.object])


def _digest(*parts: str) -> str:
    return hashlib.sha1(json.dumps(parts).encode(), usedforsecurity=False).hexdigest()


def slot_owner(slot: str) -> str:
    """The owner key of a slot's evidence."""
    return "s" + _digest(slot)


def index_id(holder: str, slot: str) -> str:
    """The record id of the index entry of ``(holder, slot)``."""
    return "i" + _digest(holder, slot)


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
    return FrozenDict({k: FrozenList(v) if isinstance(v, list) else v for k, v in data.items()})


def _record(kind: str, record_id: str, owner: str, data: dict[str, Any], now: datetime) -> Record:
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


def write(
    store: GraphStore,
    tenant: str,
    settings: MindSettings,
    items: Sequence[tuple[Fact, dict[str, Any], Iterable[str]]],
    now: datetime,
    extra: Sequence[Record] = (),
) -> list[Record]:
    """Write evidence, the index entries it needs and ``extra`` records in one atomic write.

    ``items``: ``(fact, data, holders)``: the evidence data (from :func:`evidence_data`)
    and who holds a belief chain that it may reach (the index entries to make). One
    ``get_records`` finds the index entries that exist; only the missing are written.
    """
    records: list[Record] = list(extra)
    wanted: dict[str, tuple[str, str, Fact]] = {}
    for n, (fact, data, holders) in enumerate(items):
        slot = slot_of(fact, settings)
        data = {**data, "slot": slot, "n": n}
        records.append(_record(KIND, new_id(), slot_owner(slot), data, now))
        for holder in holders:
            wanted.setdefault(index_id(holder, slot), (holder, slot, fact))
    if wanted:
        have = {r.id for r in store.get_records(tenant, INDEX_KIND, list(wanted))}
        for record_id, (holder, slot, fact) in wanted.items():
            if record_id not in have:
                data = {"holder": holder, "slot": slot, "subject": fact.subject}
                data["predicate"] = fact.predicate
                if len(json.loads(slot)) == 3:  # a many-valued relation: one slot per object
                    data["object"] = fact.object
                records.append(_record(INDEX_KIND, record_id, holder, data, now))
    if records:
        store.write_records(tenant, records)
    return records


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class Evidence:
    """One evidence record, read: who it reaches and what it says."""

    id: str
    kind: str
    fact: Fact
    at: datetime
    recorded_at: datetime
    order: tuple[datetime, int, str]
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


_LIMIT = 65_536
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
    parsed = Evidence(
        id=record.id,
        kind=data["k"],
        fact=fact,
        at=datetime.fromisoformat(data["at"]),
        recorded_at=record.created_at,
        order=(record.created_at, int(data.get("n", 0)), record.id),
        members=frozenset(data.get("members", ())),
        adopted=frozenset(data.get("adopted", ())),
        speaker=data.get("speaker"),
        holder=holder,
        chain=collapse([holder, *data.get("chain", ())]) if holder else (),
        how=str(data.get("how", data["k"])),
        confidence=float(data.get("confidence", 1.0)),
        importance=float(data.get("importance", 0.5)),
        sources=tuple(data.get("sources", ())),
        event_id=data.get("event"),
        place=data.get("place"),
    )
    if len(_parsed) >= _LIMIT:
        _parsed.clear()
    _parsed[id(record)] = (record, parsed)
    return parsed


def read_slot(store: GraphStore, tenant: str, slot: str) -> list[Evidence]:
    """The evidence of one slot, in recording order: one indexed read."""
    found = store.find_records(tenant, KIND, owner=slot_owner(slot), newest_first=False)
    evidence = [evidence_from_record(r) for r in found]
    evidence.sort(key=lambda e: e.order)
    return evidence


@dataclass(slots=True)
class _Version:
    origin: Evidence
    fact: Fact
    how: str
    told_by: str | None
    sources: tuple[str, ...]
    confidence: float
    importance: float
    valid_from: datetime
    recorded_at: datetime
    valid_to: datetime | None = None
    retired_at: datetime | None = None
    retired_because: str | None = None
    last_recalled_at: datetime | None = None
    recall_count: int = 0


def _acquired(e: Evidence, q: tuple[str, ...]) -> _Version | None:
    """What evidence ``e`` makes the chain ``q`` believe, or None when it does not reach it."""
    if e.kind == SEEN:
        if not e.members.issuperset(q):
            return None
        return _Version(e, e.fact, "witnessed", None, (), e.confidence, e.importance, e.at,
                        e.recorded_at)  # fmt: skip
    if e.kind == CLAIM:
        if not e.members.issuperset(q):
            return None
        believer = q[-1]
        if believer == e.speaker:
            if len(q) == 1:
                return None  # what a speaker says never changes what it believes
            believer = q[-2]
        if believer not in e.adopted:
            return None
        hears = q[0] != e.speaker
        return _Version(
            e,
            e.fact,
            e.how if hears else "inferred",
            e.speaker if hears else None,
            e.sources,
            e.confidence,
            e.importance,
            e.at,
            e.recorded_at,
        )
    if e.kind == GIVEN and e.chain == q:
        told = e.sources[-1] if e.sources else None
        return _Version(e, e.fact, e.how, told, e.sources, e.confidence, e.importance, e.at,
                        e.recorded_at)  # fmt: skip
    return None


def _same(old: _Version, new: _Version) -> bool:
    """Whether ``new`` adds nothing to ``old`` (same claim, no firmer footing)."""
    if not old.fact.same_claim(new.fact):
        return False
    if new.confidence > old.confidence:
        return False
    return not (new.how == "witnessed" and old.how != "witnessed")


def fold(evidence: Sequence[Evidence], chain: tuple[str, ...]) -> list[_Version]:
    """Every version the (collapsed) ``chain`` held of one slot, in the order they began."""
    current: _Version | None = None
    out: list[_Version] = []
    holder = chain[0]
    for e in evidence:
        if e.kind == FORGOT:
            if e.holder == holder and current is not None:
                current.valid_to = max(e.at, current.valid_from)
                current.retired_at = e.recorded_at
                current.retired_because = "forgotten"
                current = None
            continue
        if e.kind == RECALLED:
            if current is not None and e.chain == chain:
                current.last_recalled_at = e.at
                current.recall_count += 1
            continue
        got = _acquired(e, chain)
        if got is None:
            continue
        if current is not None:
            if got.valid_from < current.valid_from:  # older news: history only
                got.valid_to = current.valid_from
                got.retired_at = e.recorded_at
                got.retired_because = "superseded"
                out.append(got)
                continue
            if _same(current, got):
                continue
            current.valid_to = got.valid_from
            current.retired_at = e.recorded_at
            current.retired_because = "superseded"
        out.append(got)
        current = got
    return out


def _reaches(e: Evidence, chain: tuple[str, ...]) -> bool:
    """Whether evidence ``e`` may change what ``chain`` holds (a superset test, no fold)."""
    if e.kind in (SEEN, CLAIM):
        return e.members.issuperset(chain)
    if e.kind == GIVEN or e.kind == RECALLED:
        return e.chain == chain
    return e.kind == FORGOT and e.holder == chain[0]


def current(evidence: Sequence[Evidence], chain: tuple[str, ...]) -> _Version | None:
    """The version ``chain`` holds now, reading back only as far as it must.

    When the evidence was recorded in world-time order (the common case), the version
    held now depends only on the evidence after the last one that ended the claim held
    before it (a different claim, or a forgetting); older evidence is not folded. Else
    the whole slot is folded.
    """
    times = [e.at for e in evidence]
    if any(later < earlier for earlier, later in zip(times, times[1:], strict=False)):
        versions = fold(evidence, chain)
        live = [v for v in versions if v.retired_at is None]
        return live[-1] if live else None
    suffix: list[Evidence] = []
    claim: Fact | None = None
    for e in reversed(evidence):
        if not _reaches(e, chain):
            continue
        if e.kind == FORGOT:
            break
        if e.kind in (SEEN, CLAIM, GIVEN):
            if _acquired(e, chain) is None:
                continue
            if claim is None:
                claim = e.fact
            elif not claim.same_claim(e.fact):
                break
        suffix.append(e)
    suffix.reverse()
    versions = fold(suffix, chain)
    return versions[-1] if versions and versions[-1].retired_at is None else None


def belief_of(version: _Version, holder: str, chain: tuple[str, ...], slot: str) -> Belief:
    """The :class:`Belief` of one folded version, as the caller asked for its chain."""
    v = version
    return construct_trusted(
        Belief,
        {
            "id": "b" + _digest(holder, *chain, "", slot, v.origin.id),
            "holder": holder,
            "chain": chain,
            "fact": v.fact,
            "how": v.how,
            "told_by": v.told_by,
            "sources": v.sources,
            "event_id": v.origin.event_id,
            "confidence": v.confidence,
            "importance": v.importance,
            "valid_from": v.valid_from,
            "valid_to": v.valid_to,
            "recorded_at": v.recorded_at,
            "retired_at": v.retired_at,
            "retired_because": v.retired_because,
            "last_recalled_at": v.last_recalled_at,
            "recall_count": v.recall_count,
        },
    )


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
