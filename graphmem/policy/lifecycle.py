"""Planning rollback and retention: which facts come back, which records go.

Pure: these functions read audit entries and fact records handed to them and say what
to write and delete; :class:`~graphmem.policy.FactMemory` reads, commits and audits.

- **Undo data.** Every audited write keeps, for each fact it touches, how to undo it
  (:func:`undo_step`: the fact's data and ``created_at`` before, or ``None`` for a fact
  it added). Entries are never changed once written: whether one was rolled back is
  read from the rollback entry that lists it (:func:`undone_by`).
- **Rollback** (:func:`entries_to_undo`, :func:`rollback_changes`): every entry after
  the target that is not rolled back already and carries undo data, newest first; for
  each fact the oldest ``before`` wins. A fact that existed is written back as a new
  version with its old content (writing the old version back as it was would be the
  replay ``verify()`` refuses); a fact added since is deleted. An edge a governed fact
  replaced comes back when no fact shows at its key any more (:func:`edges_before`).
- **Retention** (:func:`plan_purge`): facts and audit entries older than ``max_age``,
  then the oldest until at most ``max_entries`` of each remain. Never purged: superseded
  or invalidated facts (they keep ``as_of`` history), rolled-back entries, entries that
  superseded or invalidated a fact, rollbacks and purges.

>>> from graphmem import Record
>>> undo_step(Record(id="f1", kind="fact", data={"status": "active"},
...                  created_at="2024-05-01T12:00:00+00:00"))
{'id': 'f1', 'before': {'status': 'active'}, 'created_at': '2024-05-01T12:00:00+00:00'}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.core.models import Record, Relationship, utcnow
from graphmem.policy.audit import FactWrite
from graphmem.policy.facts import iso, parse_time
from graphmem.policy.rules import Decision, FactStatus

__all__ = [
    "edges_before",
    "entries_to_undo",
    "plan_purge",
    "rollback_changes",
    "undo_step",
    "undone_by",
]


def undo_step(record: Record) -> dict[str, Any]:
    """How to undo a write of ``record``: its data and ``created_at`` before the write."""
    return {"id": record.id, "before": dict(record.data), "created_at": iso(record.created_at)}


def undone_by(entries: Sequence[Record]) -> dict[str, str]:
    """Which rollback entry undid each rolled-back entry (entry id -> rollback id)."""
    return {
        undone: entry.id
        for entry in entries
        if entry.data.get("action") == "rollback"
        for undone in entry.data.get("undone") or ()
    }


def entries_to_undo(since: Sequence[Record], target_seq: int) -> list[Record]:
    """The entries a rollback to entry ``target_seq`` undoes, newest first.

    ``since``: the audit entries from the target's time on (rollbacks among them say
    which entries are undone already).
    """
    undone = undone_by(since)
    later = [
        r
        for r in since
        if int(r.data["seq"]) > target_seq
        and r.id not in undone
        and not r.data.get("rolled_back")
        and r.data.get("undo") is not None
    ]
    later.sort(key=lambda r: int(r.data["seq"]), reverse=True)
    return later


def oldest_befores(later: Sequence[Record]) -> dict[str, dict[str, Any]]:
    """Each fact's undo step from the oldest of ``later`` (given newest first) touching it."""
    restore: dict[str, dict[str, Any]] = {}
    for record in later:
        for step in record.data["undo"]:
            if "id" in step:
                restore[step["id"]] = step  # the oldest 'before' wins
    return restore


def edges_before(later: Sequence[Record]) -> dict[tuple[str, str, str], Relationship]:
    """Edges a governed fact replaced, from the oldest of ``later`` (newest first) per key.

    A learn whose fact took over a relationship key that held an edge governance had not
    written keeps that edge in its undo data (``{"edge": key, "before": ...}``); a
    rollback puts it back when no fact shows at the key any more.
    """
    restore: dict[tuple[str, str, str], Relationship] = {}
    for record in later:
        for step in record.data["undo"]:
            if "edge" in step:
                source, target, type_ = step["edge"]
                restore[(source, target, type_)] = Relationship.model_validate(step["before"])
    return restore


def rollback_changes(
    restore: Mapping[str, Mapping[str, Any]], current: Mapping[str, Record]
) -> tuple[list[FactWrite], list[str]]:
    """The fact writes and deletes that bring the facts back to their ``before`` states.

    Args:
        restore: Each fact's undo step (:func:`oldest_befores`).
        current: The fact records as stored now, by id (a missing id: deleted since).
    """
    writes: list[FactWrite] = []
    deletes: list[str] = []
    for fact_id, step in restore.items():
        stored = current.get(fact_id)
        before = step["before"]
        if before is None:
            if stored is not None:
                deletes.append(fact_id)
            continue
        if stored is not None:
            # A new version with the old content: writing the old version back as it
            # was would be exactly the replay verify() refuses.
            version, created = stored.data.get("version"), stored.created_at
        else:
            version = before.get("version")
            created = parse_time(step.get("created_at")) or utcnow()
        writes.append(FactWrite(fact_id, {**before, "version": version}, created))
    return writes, deletes


def plan_purge(
    facts: Sequence[Record],
    audit: Sequence[Record],
    *,
    max_age: timedelta | None,
    max_entries: int | None,
    now: datetime,
) -> tuple[list[str], set[str]]:
    """The fact ids and audit entry ids a purge removes (see the module docstring).

    ``facts`` oldest first, ``audit`` in seq order.
    """
    undone = undone_by(audit)

    def keep_fact(r: Record) -> bool:
        return r.data.get("status") in (FactStatus.SUPERSEDED, FactStatus.INVALIDATED)

    def keep_entry(r: Record) -> bool:
        return (
            r.id in undone
            or bool(r.data.get("rolled_back"))
            or r.data.get("action") in (Decision.UPDATE, Decision.INVALIDATE, "rollback", "purge")
        )

    def doomed(records: Sequence[Record], keep: Callable[[Record], bool]) -> list[str]:
        gone: list[str] = []
        if max_age is not None and now - datetime.min.replace(tzinfo=UTC) > max_age:
            # (an age reaching back before year 1 keeps everything)
            cutoff = now - max_age
            gone = [r.id for r in records if r.created_at < cutoff and not keep(r)]
        if max_entries is not None:
            left = len(records) - len(gone)
            for r in records:
                if left <= max_entries:
                    break
                if r.id not in gone and not keep(r):
                    gone.append(r.id)
                    left -= 1
        return gone

    return doomed(facts, keep_fact), set(doomed(audit, keep_entry))
