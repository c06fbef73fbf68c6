"""Review and lifecycle: approve or reject a held fact, roll back, purge, forget.

What rollback and retention write and delete is planned in
:mod:`graphmem.policy.lifecycle`; here each plan is checked, committed and audited.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graphmem.core.checks import as_utc
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.events import hash_key
from graphmem.core.models import utcnow
from graphmem.policy.audit import AUDIT_KIND, FACT_KIND, FactWrite
from graphmem.policy.consolidation import norm
from graphmem.policy.facts import AuditEntry, Fact, PurgeResult, iso
from graphmem.policy.governed import GovernedFacts
from graphmem.policy.lifecycle import (
    edges_before,
    entries_to_undo,
    oldest_befores,
    plan_purge,
    rollback_changes,
    undo_step,
    undone_by,
)
from graphmem.policy.rules import Decision, FactStatus


class FactReview(GovernedFacts):
    """The verbs that change facts already learned."""

    # ------------------------------------------------------------------ review

    def approve(self, fact_id: str) -> Fact:
        """Approve a fact waiting for review: it becomes active (valid from now).

        Active facts it was found to contradict (``conflicts_with``) are invalidated:
        the reviewer sided with the new fact.
        """
        return self._review(fact_id, approve=True)

    def reject(self, fact_id: str) -> Fact:
        """Reject a fact waiting for review: it is kept, as ``rejected``, never served."""
        return self._review(fact_id, approve=False)

    def _review(self, fact_id: str, *, approve: bool) -> Fact:
        with self._lock:
            fact = self.get(fact_id)
            if fact.status != FactStatus.PENDING_REVIEW:
                raise InvalidInput(f"fact {fact_id!r} is {fact.status}, not pending review")
            now = utcnow()
            record = self._store.get_record(self._tenant, FACT_KIND, fact_id)
            undo = [undo_step(record)]
            update: dict[str, Any] = {"status": FactStatus.REJECTED.value}
            if approve:
                update = {
                    "status": FactStatus.ACTIVE.value,
                    "valid_at": iso(now),
                    "reviewed_by": self.actor,
                }
            writes = [FactWrite(fact_id, {**record.data, **update}, record.created_at)]
            if approve:
                for other_id in fact.conflicts_with:
                    try:
                        other = self._store.get_record(self._tenant, FACT_KIND, other_id)
                    except NotFound:
                        continue
                    if other.data.get("status") != FactStatus.ACTIVE:
                        continue
                    self._check([other])
                    undo.append(undo_step(other))
                    changed = {"status": FactStatus.INVALIDATED.value, "invalid_at": iso(now)}
                    writes.append(FactWrite(other_id, {**other.data, **changed}, other.created_at))
            _, stored = self._commit(
                "approve" if approve else "reject",
                key=hash_key(norm(fact.subject), norm(fact.relation)),
                writes=writes,
                undo=undo,
            )
            return Fact.from_record(stored[0])

    # ------------------------------------------------------------------ lifecycle

    def rollback_to(self, entry_id: str) -> int:
        """Undo every audited change after ``entry_id``, newest first; return how many.

        The facts get back the state they had (as new versions: the audit chain records
        each), facts added since are deleted, and one ``rollback`` entry lists the entries
        it undid (``rolled_back`` / ``rolled_back_by`` of those read from it; entries are
        never changed). Purges, rollbacks and refused writes carry no undo data and are
        not undone.

        Raises:
            NotFound: No such audit entry.
            InvalidInput: That entry was itself rolled back.
        """
        with self._lock:
            target_record = self._store.get_record(self._tenant, AUDIT_KIND, entry_id)
            self._check([target_record])
            since = self._store.find_records(
                self._tenant, AUDIT_KIND, since=target_record.created_at
            )
            self._check(since)
            if entry_id in undone_by(since):
                raise InvalidInput(f"audit entry {entry_id!r} was rolled back itself")
            target = AuditEntry.from_record(target_record)
            later = entries_to_undo(since, target.seq)
            restore = oldest_befores(later)
            current = {
                r.id: r
                for r in (
                    self._store.get_records(self._tenant, FACT_KIND, list(restore))
                    if restore
                    else []
                )
            }
            writes, deletes = rollback_changes(restore, current)
            if later:
                self._commit(
                    "rollback",
                    key=None,
                    writes=writes,
                    deletes=[current[fact_id] for fact_id in deletes],
                    restore=edges_before(later),
                    detail={"to": entry_id, "entries": len(later)},
                    extra={"undone": [r.id for r in later]},
                )
            return len(later)

    def purge(
        self,
        *,
        max_age: timedelta | None = None,
        max_entries: int | None = None,
        now: datetime | None = None,
    ) -> PurgeResult:
        """Retention: delete old facts and audit entries, by age and by a count cap.

        Facts and audit entries are purged separately: those created before
        ``now - max_age``, then the oldest until at most ``max_entries`` of each remain.
        Never purged: superseded or invalidated facts (they keep ``as_of`` history),
        rolled-back audit entries, audit entries that invalidated or superseded a fact,
        rollbacks and purges (they say what was undone and what was purged). The cap
        counts those too, so fewer may go than the cap asks. The purge is itself audited,
        in the same atomic write: counts, and for each audit entry removed a tombstone
        (its seq, id, digest and the fact versions it wrote; none of its content) that
        keeps the hash chain whole.

        Raises:
            InvalidInput: Neither limit given, a non-positive ``max_age`` or ``max_entries``.
        """
        if max_age is None and max_entries is None:
            raise InvalidInput("purge needs max_age, max_entries or both")
        if max_age is not None and (not isinstance(max_age, timedelta) or max_age <= timedelta(0)):
            raise InvalidInput("max_age must be a positive timedelta")
        if max_entries is not None and (
            isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries <= 0
        ):
            raise InvalidInput("max_entries must be a positive integer")
        with self._lock:
            now = as_utc(now, "now") or utcnow()
            facts = self._store.find_records(self._tenant, FACT_KIND, newest_first=False)
            audit = self._store.find_records(self._tenant, AUDIT_KIND, newest_first=False)
            audit.sort(key=lambda r: int(r.data["seq"]))
            self._check(facts + audit)
            fact_ids, entry_ids = plan_purge(
                facts, audit, max_age=max_age, max_entries=max_entries, now=now
            )
            if fact_ids or entry_ids:
                doomed = set(fact_ids)
                self._commit(
                    "purge",
                    key=None,
                    deletes=[r for r in facts if r.id in doomed],
                    known=[Fact.from_record(r) for r in facts if r.id not in doomed],
                    detail={"facts": len(fact_ids), "audit_entries": len(entry_ids)},
                    purge_entries=[r for r in audit if r.id in entry_ids],
                )
            return PurgeResult(len(fact_ids), len(entry_ids))

    def apply_retention(self, *, now: datetime | None = None) -> PurgeResult | None:
        """Purge by the policy's retention settings; None when the policy sets none.

        :meth:`purge` with ``max_age=policy.retention_max_age`` and
        ``max_entries=policy.retention_max_entries``. ``graphmem serve`` runs it on a
        schedule for every tenant it serves.
        """
        if not self.policy.retention:
            return None
        return self.purge(
            max_age=self.policy.retention_max_age,
            max_entries=self.policy.retention_max_entries,
            now=now,
        )

    def forget(self, fact_id: str) -> Fact:
        """Stop believing a fact from now on: it becomes ``invalidated``, kept for ``as_of``.

        One governed change like any other (one atomic write of the fact's new version,
        its audit entry and the log's head): audited as ``invalidate`` with reason
        ``forgotten``, so :meth:`rollback_to` can bring it back and :meth:`verify`
        accounts for it.

        Raises:
            NotFound: No such fact visible to this actor / session.
            InvalidInput: The fact is not ``active`` or ``pending_review``.
        """
        with self._lock:
            fact = self.get(fact_id)
            if fact.status not in (FactStatus.ACTIVE, FactStatus.PENDING_REVIEW):
                raise InvalidInput(
                    f"fact {fact_id!r} is {fact.status}; only a live fact is forgotten"
                )
            record = self._store.get_record(self._tenant, FACT_KIND, fact_id)
            update = {"status": FactStatus.INVALIDATED.value, "invalid_at": iso(utcnow())}
            _, stored = self._commit(
                Decision.INVALIDATE.value,
                key=hash_key(norm(fact.subject), norm(fact.relation)),
                writes=[FactWrite(fact_id, {**record.data, **update}, record.created_at)],
                undo=[undo_step(record)],
                detail={"reason": "forgotten"},
            )
            return Fact.from_record(stored[0])
