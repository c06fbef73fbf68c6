"""What a chain holds, folded from the evidence of one slot (:mod:`graphmem.minds.beliefs`).

A read of "``h`` thinks ``c1`` thinks ... ``ck`` thinks X" folds the slot's evidence in
recording order through the rules the module docstring of :mod:`graphmem.minds.beliefs`
states. What is held *now* is usually read from the head's window alone (back to the
last change of claim); how far a fold got is kept in process, so a long run of the same
claim is folded once; the belief a chain holds now is kept per head record instance.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from graphmem.core.models import Record
from graphmem.core.store import GraphStore
from graphmem.minds.beliefs import (
    CACHE_LIMIT,
    CLAIM,
    FORGOT,
    GIVEN,
    HEAD_KIND,
    RECALLED,
    SEEN,
    Evidence,
    Slot,
    collapse,
    kept_window,
    open_heads,
    slot_owner,
)
from graphmem.minds.models import Belief, Fact

__all__ = ["advance", "belief_of", "current", "fold", "held", "held_now", "last_seen"]


def held(
    store: GraphStore, tenant: str, slot: str, holder: str, chain: tuple[str, ...]
) -> Belief | None:
    """The belief ``holder`` holds now along ``chain`` (as asked) of one slot, or None.

    One ``get_records`` of the slot's head; on the embedded store, the answer kept for
    that head instance (nothing is folded nor converted again), else the head's window.
    """
    owner = slot_owner(slot)
    found = store.get_records(tenant, HEAD_KIND, [owner])
    if not found:
        return None
    head = found[0]
    key = (id(head), holder, chain)
    hit = _held.get(key)
    if hit is not None and hit[0] is head:
        return hit[1]
    kept = kept_window(head)
    if kept is not None:
        window, whole = kept
        ordered = bool(head.data.get("ordered", False))
        opened = Slot(store, tenant, slot, window, whole, ordered, head)
    else:
        opened = open_heads(store, tenant, {owner: slot}, {owner: head})[slot]
    return _hold(opened, key, holder, chain)


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
    body: dict[str, Any] | None = None  # the fields of its beliefs but whose they are


# What a sighting makes every chain of its witnesses believe is one version (the same
# for all of them): kept per evidence instance, never changed (a fold makes its own).
_sightings: dict[int, tuple[Evidence, _Version]] = {}


def _sighting(e: Evidence) -> _Version:
    hit = _sightings.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    version = _Version(e, e.fact, "witnessed", None, (), e.confidence, e.importance, e.at,
                       e.recorded_at)  # fmt: skip
    if len(_sightings) >= CACHE_LIMIT:
        _sightings.clear()
    _sightings[id(e)] = (e, version)
    return version


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
        return _Version(e, e.fact, e.how, e.told_by, e.sources, e.confidence, e.importance, e.at,
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


def advance(
    evidence: Sequence[Evidence], chain: tuple[str, ...], held: _Version | None
) -> _Version | None:
    """The version ``chain`` holds after ``evidence``, from ``held`` (the rules of :func:`fold`).

    ``held`` is not changed (a recall marks a copy of it).
    """
    current = held
    holder = chain[0]
    for e in evidence:
        kind = e.kind
        if kind == FORGOT:
            if e.holder == holder:
                current = None
            continue
        if kind == RECALLED:
            if current is not None and e.chain == chain:
                current = replace(
                    current,
                    last_recalled_at=e.at,
                    recall_count=current.recall_count + 1,
                    body=None,
                )
            continue
        got = _acquired(e, chain)
        if got is None:
            continue
        if current is not None and (got.valid_from < current.valid_from or _same(current, got)):
            continue  # older news (history only), or nothing new
        current = got
    return current


# How far a fold of what a chain holds got, per store, tenant, slot and chain: the
# position (``q``) and id of the last evidence folded, and the version held then. A read
# that finds the head's window reaching back to that evidence folds only what came after
# (a long run of the same claim is not folded again at every read). Bounded.
_progress: dict[tuple[int, str, str, tuple[str, ...]], tuple[int, str, _Version | None]] = {}


_SHORT = 16
"""A walk back over at most this many evidence is not worth keeping progress for."""


def _resumed(slot: Slot, chain: tuple[str, ...]) -> tuple[bool, _Version | None]:
    """What ``chain`` holds, from the progress kept for it: (found, version)."""
    key = (id(slot.store), slot.tenant, slot.slot, chain)
    kept = _progress.get(key)
    if kept is None or slot.head is None:
        return False, None
    done, last_id, held = kept
    window = slot.window
    at = done - window[0].order[0] if window else -1  # the window runs on from its first
    if not 0 <= at < len(window) or window[at].id != last_id:
        return False, None  # out of the window, or another lineage (a rebuilt tenant)
    newer = window[at + 1 :]
    if len(newer) != int(slot.head.data.get("count", 0)) - 1 - done:
        return False, None  # the window has a gap
    version = advance(newer, chain, held) if newer else held
    _remember(slot, chain, window[-1], version)
    return True, version


def _remember(slot: Slot, chain: tuple[str, ...], last: Evidence, version: _Version | None) -> None:
    """Keep how far a fold got: to ``last``, holding ``version``."""
    if len(_progress) >= CACHE_LIMIT:
        _progress.clear()
    _progress[(id(slot.store), slot.tenant, slot.slot, chain)] = (last.order[0], last.id, version)


def current(slot: Slot, chain: tuple[str, ...]) -> _Version | None:
    """The version ``chain`` holds now, reading back only as far as it must.

    When the slot's evidence was recorded in world-time order (the common case), the
    version held now depends only on the evidence after the last one that ended the
    claim held before it (a different claim, or a forgetting): if the head's window
    reaches that far, nothing older is read. Else the whole slot is folded, once: how
    far a fold got is kept (in process), and a later read folds only what came since
    when the window reaches back to it.
    """
    found, version = _resumed(slot, chain)
    if found:
        return version
    if slot.ordered:
        suffix: list[Evidence] = []
        claim: tuple[Any, ...] | None = None
        bounded = False
        holder, believer = chain[0], chain[-1]
        inner = chain[-2] if len(chain) > 1 else None
        steps = 0
        for e in reversed(slot.window):  # who it reaches and adopts it, inlined
            steps += 1
            kind = e.kind
            if kind in (SEEN, CLAIM):
                if not e.members.issuperset(chain):
                    continue
                if kind == CLAIM:
                    who = believer if believer != e.speaker else inner
                    if who is None or who not in e.adopted:
                        continue
            elif kind == GIVEN:
                if e.chain != chain:
                    continue
            elif kind == FORGOT:
                if e.holder == holder:
                    bounded = True
                    break
                continue
            else:  # recalled
                if e.chain == chain:
                    suffix.append(e)
                continue
            if claim is None:
                claim = e.claim
            elif claim != e.claim:
                bounded = True
                break
            suffix.append(e)
        if bounded or slot.complete:
            if len(suffix) == 1 and suffix[0].kind == SEEN:  # one sighting: it
                version = _sighting(suffix[0])
            elif len(suffix) == 1 and suffix[0].kind != RECALLED:  # one acquisition: it
                version = _acquired(suffix[0], chain)
            else:
                suffix.reverse()
                version = advance(suffix, chain, None)
            if steps > _SHORT:  # a long walk: the next read folds only what comes next
                _remember(slot, chain, slot.window[-1], version)
            return version
    every = slot.all()
    version = advance(every, chain, None)
    if every:
        _remember(slot, chain, every[-1], version)
    return version


def last_seen(slot: Slot, holder: str) -> Evidence | None:
    """The newest evidence ``holder`` witnessed of the slot itself, if any."""
    for e in reversed(slot.window):
        if e.kind == SEEN and holder in e.members:
            return e
    if slot.complete:
        return None
    for e in reversed(slot.all()):
        if e.kind == SEEN and holder in e.members:
            return e
    return None


# What a chain holds now, kept per head record instance (as the windows are): a hot read
# of the same question converts nothing. Bounded (emptied when full).
_held: dict[tuple[int, str, tuple[str, ...]], tuple[Record, Belief | None]] = {}


def held_now(slot: Slot, holder: str, chain: tuple[str, ...]) -> Belief | None:
    """The belief ``holder`` holds now along ``chain`` (as asked) of the slot, or None."""
    head = slot.head
    key = (id(head), holder, chain)
    if head is not None:
        hit = _held.get(key)
        if hit is not None and hit[0] is head:
            return hit[1]
    return _hold(slot, key, holder, chain)


def _hold(
    slot: Slot, key: tuple[int, str, tuple[str, ...]], holder: str, chain: tuple[str, ...]
) -> Belief | None:
    """Work out what ``holder`` holds now along ``chain``, and keep it under ``key``."""
    version = current(slot, collapse((holder, *chain)))
    found = belief_of(version, holder, chain, slot.slot) if version is not None else None
    if slot.head is not None:
        if len(_held) >= CACHE_LIMIT:
            _held.clear()
        _held[key] = (slot.head, found)
    return found


# Every Belief built here has every field set: one set serves them all (never mutated;
# pydantic copies it on model_copy).
_BELIEF_FIELDS = set(Belief.model_fields)
_new = Belief.__new__
_set = object.__setattr__


def belief_of(version: _Version, holder: str, chain: tuple[str, ...], slot: str) -> Belief:
    """The :class:`Belief` of one folded version, as the caller asked for its chain.

    Call it once the version is final (a fold changes the versions it makes).
    """
    v = version
    body = v.body
    if body is None:
        body = v.body = {
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
        }
    belief = _new(Belief)
    _set(
        belief,
        "__dict__",
        {
            # ids hold no control characters and a slot is JSON (which escapes them)
            "id": "b"
            + hashlib.sha1(
                "\x1f".join((holder, *chain, "", slot, v.origin.id)).encode(),
                usedforsecurity=False,
            ).hexdigest(),
            "holder": holder,
            "chain": chain,
            **body,
        },
    )
    # construct_trusted inlined (this is the hot path of every belief a read works out)
    _set(belief, "__pydantic_fields_set__", _BELIEF_FIELDS)
    _set(belief, "__pydantic_extra__", None)
    _set(belief, "__pydantic_private__", None)
    return belief
