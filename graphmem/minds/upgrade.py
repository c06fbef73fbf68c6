"""Beliefs saved by earlier graphmem versions, converted to evidence on first use.

Before nested beliefs were answered at read time, a belief was stored as one record per
*version* (record kind ``belief``): its holder and chain, the fact, how it came by it,
both clocks (``valid_from``/``valid_to``, ``recorded_at``/``retired_at``), why it was
retired and how often it was recalled. Saves written then (JSON Lines exports,
``file://`` stores) still hold such records. They are converted, all at once and in
one atomic write that also deletes them, into what a belief is now made of:

- each version becomes a belief *given* directly to its holder along its chain (the
  evidence of :meth:`graphmem.Memory.believe`), at its ``valid_from``, recorded at its
  ``recorded_at``, with its confidence, importance, ``how``, ``told_by``, sources and
  event;
- a version that was forgotten becomes a forgetting at its ``valid_to``, recorded at its
  ``retired_at`` (a forgetting now ends every chain of the holder on that slot);
- a version's recalls become as many recalls at its ``last_recalled_at``;
- a superseded version needs nothing: the next version of its chain supersedes it.

The evidence of one slot is written in world-time order, so reads at ``as_of`` and
``recorded_as_of`` and ``history`` give the versions as they were saved.
:class:`graphmem.minds.core.Minds` converts on first use; a read-only store holding old
records is refused (:class:`~graphmem.core.errors.StoreReadOnly`) with what to do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from graphmem.core.checks import check_identifier
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Record, utcnow
from graphmem.core.store import GraphStore, as_utc
from graphmem.minds import beliefs as evidence
from graphmem.minds.models import Fact, MindSettings

__all__ = ["OLD_KIND", "check", "convert", "pending"]

OLD_KIND = "belief"
"""The record kind of beliefs saved by earlier versions (one record per version)."""


def pending(store: GraphStore, tenant: str) -> bool:
    """Whether the tenant holds beliefs in the earlier format (one ``count_records``)."""
    return store.count_records(tenant, OLD_KIND) > 0


def _time(data: Mapping[str, Any], key: str, record: Record) -> datetime | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"belief record {record.id!r}: {key} is not a time, got {value!r}")
    try:
        return as_utc(datetime.fromisoformat(value), key)
    except ValueError as exc:
        raise InvalidInput(f"belief record {record.id!r}: {key} {value!r} is not a time") from exc


def _number(data: Mapping[str, Any], key: str, default: float, record: Record) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"belief record {record.id!r}: {key} must be within [0, 1]")
    return float(value)


def _steps(record: Record) -> list[tuple[datetime, datetime, int, Fact, dict[str, Any], list[str]]]:
    """The evidence one saved version becomes: ``(world time, memory time, rank, ...)``."""
    data = record.data
    try:
        holder = check_identifier(data["holder"], "holder")
        chain = [check_identifier(i, "chain member") for i in data.get("chain", ())]
        sources = [check_identifier(i, "source") for i in data.get("sources", ())]
        fact = Fact(
            subject=data["subject"],
            predicate=data["predicate"],
            object=data.get("object"),
            value=data.get("value"),
            holds=data.get("holds", True),
        )
        how = str(data.get("how", "inferred"))
    except KeyError as exc:
        raise InvalidInput(
            f"belief record {record.id!r} lacks {exc.args[0]!r}: it is not a belief saved by "
            "an earlier graphmem. Nothing was converted."
        ) from exc
    except InvalidInput as exc:
        raise InvalidInput(f"belief record {record.id!r}: {exc.message}") from exc
    start = _time(data, "valid_from", record) or record.created_at
    recorded = _time(data, "recorded_at", record) or record.created_at
    event = data.get("event")
    given = evidence.evidence_data(
        evidence.GIVEN,
        fact,
        start,
        holder=holder,
        chain=chain,
        how=how,
        confidence=_number(data, "confidence", 1.0, record),
        importance=_number(data, "importance", 0.5, record),
        sources=sources,
        event=check_identifier(event, "event") if event is not None else None,
    )
    told_by = data.get("told_by")
    given["told_by"] = check_identifier(told_by, "told_by") if told_by is not None else None
    steps = [(start, recorded, 0, fact, given, [holder])]
    recalls = data.get("recall_count", 0)
    last = _time(data, "last_recalled_at", record)
    if isinstance(recalls, int) and not isinstance(recalls, bool) and recalls > 0 and last:
        mark = evidence.evidence_data(evidence.RECALLED, fact, last, holder=holder, chain=chain)
        steps += [(last, record.updated_at, 1, fact, mark, [])] * recalls
    if data.get("retired_because") == "forgotten":
        ended = max(_time(data, "valid_to", record) or start, start)
        retired = _time(data, "retired_at", record) or record.updated_at
        gone = evidence.evidence_data(evidence.FORGOT, fact, ended, holder=holder)
        steps.append((ended, retired, 2, fact, gone, []))
    return steps


def check(records: Iterable[Record]) -> bool:
    """Whether ``records`` hold beliefs of the earlier format, all of them convertible.

    For a save about to be loaded: ``InvalidInput`` naming the first that is not.
    """
    found = False
    for record in records:
        if record.kind == OLD_KIND:
            _steps(record)
            found = True
    return found


def convert(store: GraphStore, tenant: str, settings: MindSettings) -> int:
    """Convert the tenant's beliefs of the earlier format; return how many versions.

    One ``find_records`` and one atomic write (the evidence, and the old records
    deleted). Nothing is written when any record is not a belief of that format
    (``InvalidInput`` naming it).
    """
    old = store.find_records(tenant, OLD_KIND, newest_first=False)
    if not old:
        return 0
    steps = [step for record in old for step in _steps(record)]
    steps.sort(key=lambda s: (s[0], s[1], s[2]))
    evidence.write(
        store,
        tenant,
        settings,
        [(fact, data, holders) for _, _, _, fact, data, holders in steps],
        utcnow(),
        recorded=[recorded for _, recorded, _, _, _, _ in steps],
        delete={OLD_KIND: [r.id for r in old]},
    )
    return len(old)
