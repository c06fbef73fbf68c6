"""The ground every governed verb of :class:`~graphmem.policy.FactMemory` stands on.

One tenant's governed facts as one actor (optionally in one session) sees them: the
state (store, tenant, identity, policy, event bus), the lock shared per store and
tenant, the audit chain and its checks, the reads (:meth:`GovernedFacts.get`,
:meth:`GovernedFacts.facts`, :meth:`GovernedFacts.audit_log`) and the one path every
change is written through (``_commit``: facts, their edges and the audit entry in one
atomic write). The verbs extend it: :mod:`graphmem.policy.learning`,
:mod:`graphmem.policy.review` and :mod:`graphmem.policy.recall`; the module docstring of
:mod:`graphmem.policy.governance` is the reference for the rules.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from weakref import WeakKeyDictionary

from graphmem.core.checks import as_utc, check_text
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.events import EventBus, hash_key
from graphmem.core.events import bus as default_bus
from graphmem.core.models import Record, Relationship, utcnow
from graphmem.core.store import GraphStore
from graphmem.policy.audit import AUDIT_KIND, FACT_KIND, AuditChain, AuditHead, FactWrite
from graphmem.policy.consolidation import norm
from graphmem.policy.fact_graph import FactGraph
from graphmem.policy.facts import AuditEntry, Fact
from graphmem.policy.identity import check_identity
from graphmem.policy.lifecycle import undone_by
from graphmem.policy.rules import FactStatus, GovernancePolicy, Scope

# One lock per (store, tenant) in this process: audit sequence numbers stay gap-free and
# conflict checks see each other's writes, however many FactMemory objects there are.
_locks: WeakKeyDictionary[Any, dict[str, threading.RLock]] = WeakKeyDictionary()
_locks_guard = threading.Lock()
_fallback_locks: dict[int, dict[str, threading.RLock]] = {}


def _tenant_lock(store: GraphStore, tenant: str) -> threading.RLock:
    with _locks_guard:
        try:
            by_tenant = _locks.setdefault(store, {})
        except TypeError:  # a store that cannot be weakly referenced: one lock per object
            by_tenant = _fallback_locks.setdefault(id(store), {})
        return by_tenant.setdefault(tenant, threading.RLock())


class GovernedFacts:
    """What every verb of :class:`~graphmem.policy.FactMemory` shares: state, reads, commits."""

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        *,
        actor: str,
        session: str | None = None,
        policy: GovernancePolicy | None = None,
        bus: EventBus | None = None,
    ) -> None:
        self._bus = bus or default_bus
        parts = check_identity(
            "fact_memory",
            required={"tenant": tenant, "actor": actor},
            optional={"session": session},
            bus=self._bus,
        )
        assert parts["tenant"] is not None and parts["actor"] is not None
        self._store = store
        self._tenant = parts["tenant"]
        self.actor: str = parts["actor"]
        self.session: str | None = parts["session"]
        self.policy = policy or GovernancePolicy()
        if not isinstance(self.policy, GovernancePolicy):
            raise InvalidInput("policy must be a GovernancePolicy")
        self._lock = _tenant_lock(store, self._tenant)
        self._chain = AuditChain(store, self._tenant, self.policy.signing_key)
        self._graph = FactGraph(store, self._tenant, self._check)

    def __repr__(self) -> str:
        return f"FactMemory(tenant={self._tenant!r}, actor={self.actor!r})"

    # ------------------------------------------------------------------ signing

    def _check(self, records: Sequence[Record]) -> None:
        self._chain.check(records)

    def verify(self, *, anchor: AuditHead | None = None) -> int:
        """Check every fact, audit entry and the head; return how many records were checked.

        Signatures cover every field of a record (times included), facts carry a version,
        and the audit log is a hash chain with a signed head (:mod:`graphmem.policy.audit`),
        so a deleted, reordered, replayed or re-dated entry, an altered record, an older
        signed version of a fact written back, or a fact added or deleted outside
        governance fails here, with every such record named. Reads check only each
        record's own signature; this walks the whole log.

        Args:
            anchor: An :meth:`audit_head` kept from earlier (outside the store): also fail
                if the log no longer holds that entry unchanged (truncated or rewritten).

        Raises:
            InvalidInput: No signing key is configured.
            SignatureMismatch: Records out of place; ``record_ids`` names them,
                ``reasons`` says why for each.
        """
        if self.policy.signing_key is None:
            raise InvalidInput("verify needs a policy with a signing_key")
        if anchor is not None and not isinstance(anchor, AuditHead):
            raise InvalidInput("anchor must be an AuditHead from audit_head()")
        return self._chain.verify(anchor, self._graph.drift)

    def audit_head(self) -> AuditHead | None:
        """The audit log's signed head (checked): its last seq, entry id and digest.

        Keep it outside the store and pass it to :meth:`verify` later as ``anchor``.
        None before the first entry.
        """
        return self._chain.head()

    # ------------------------------------------------------------------ reading

    def _visible(self, fact: Fact) -> bool:
        if fact.scope == Scope.WORKSPACE:
            return True
        if fact.scope == Scope.AGENT:
            return fact.owner == self.actor
        return self.session is not None and fact.owner == self.session

    def _read_facts(self, where: Mapping[str, Any] | None = None) -> list[Fact]:
        records = self._store.find_records(self._tenant, FACT_KIND, where=where, newest_first=False)
        self._check(records)
        return [f for f in (Fact.from_record(r) for r in records) if self._visible(f)]

    def get(self, fact_id: str) -> Fact:
        """One fact by id; ``NotFound`` if unknown or not visible to this actor / session."""
        record = self._store.get_record(self._tenant, FACT_KIND, fact_id)
        self._check([record])
        fact = Fact.from_record(record)
        if not self._visible(fact):
            raise NotFound(f"no fact {fact_id!r} visible here", fact_id=fact_id)
        return fact

    def facts(
        self,
        *,
        subject: str | None = None,
        relation: str | None = None,
        as_of: datetime | None = None,
        include_pending: bool = False,
        include_all: bool = False,
    ) -> list[Fact]:
        """Visible facts, oldest first: those believed now, or at ``as_of``.

        Args:
            subject: Only this subject (case- and space-insensitive).
            relation: Only this relation (likewise).
            as_of: Facts believed at that time, including ones superseded or invalidated
                since.
            include_pending: Also facts waiting for review.
            include_all: Every fact, whatever its status and validity.
        """
        where: dict[str, Any] = {}
        if subject is not None:
            where["subject_key"] = norm(check_text(subject, "subject"))
        if relation is not None:
            where["relation_key"] = norm(check_text(relation, "relation"))
        found = self._read_facts(where)
        if include_all:
            return found
        when = as_utc(as_of, "as_of") or utcnow()
        return [
            f
            for f in found
            if f.believed_at(when) or (include_pending and f.status == FactStatus.PENDING_REVIEW)
        ]

    def audit_log(self, *, limit: int | None = None) -> list[AuditEntry]:
        """The tenant's audit entries, oldest first (the newest ``limit`` if given)."""
        records = self._store.find_records(self._tenant, AUDIT_KIND, limit=limit)
        self._check(records)
        undone = undone_by(records)  # a rollback is newer than what it undid
        entries = (AuditEntry.from_record(r, undone.get(r.id)) for r in records)
        return sorted(entries, key=lambda e: e.seq)

    # ------------------------------------------------------------------ audit

    def _commit(
        self,
        action: str,
        *,
        key: str | None,
        writes: Sequence[FactWrite] = (),
        deletes: Sequence[Record] = (),
        undo: list[dict[str, Any]] | None = None,
        detail: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        purge_entries: Sequence[Record] = (),
        restore: Mapping[tuple[str, str, str], Relationship] | None = None,
        known: Sequence[Fact] | None = None,
    ) -> tuple[str, list[Record]]:
        """Write facts, their edges and their audit entry in one atomic write; publish it.

        ``deletes``: the fact records to delete, as stored; ``restore``: edges to put
        back at keys no fact shows any more (rollback); ``known``: stored facts read
        already that may share their edges (:meth:`FactGraph.changes`).
        """
        fact_ids = list(dict.fromkeys([*(w.id for w in writes), *(r.id for r in deletes)]))
        graph, replaced = self._graph.changes(writes, deletes, restore, known)
        if undo is not None:
            undo = [*undo, *replaced]  # a rollback puts back what the edges replaced
        entry = {
            "action": action,
            "actor": self.actor,
            "session": self.session,
            "key": key,
            "fact_ids": fact_ids,
            "undo": undo,
            "detail": dict(detail or {}),
            **(extra or {}),
        }
        entry_id, stored = self._chain.commit(
            entry,
            writes=writes,
            deletes=[r.id for r in deletes],
            purge_entries=purge_entries,
            graph=graph,
        )
        self._bus.publish(
            f"memory.audit.{action}",
            entry_id=entry_id,
            action=action,
            actor=hash_key(self.actor),
            key=key,
            fact_ids=fact_ids,
        )
        return entry_id, stored
