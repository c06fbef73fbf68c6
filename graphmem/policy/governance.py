"""Governed writes: the facts an agent learns, checked, consolidated, audited.

:class:`FactMemory` is where the rules meet the store. Each rule lives in its own
module, readable on its own:

- :mod:`graphmem.policy.rules`: source trust, memory types, scopes, statuses and
  :class:`GovernancePolicy` (every threshold);
- :mod:`graphmem.policy.facts`: :class:`Fact` and what each call returns;
- :mod:`graphmem.policy.sanitize`: privacy tags, personal data, model-directed
  instructions;
- :mod:`graphmem.policy.consolidation`: the add / update / invalidate / no-op decision;
- :mod:`graphmem.policy.audit`: signatures, fact versions, the audit hash chain;
- :mod:`graphmem.policy.lifecycle`: what rollback and retention write and delete;
- :mod:`graphmem.policy.scoring`: recall scoring.

Facts are :class:`~graphmem.Record` s of kind ``fact``; the audit trail is records of
kind ``audit``. Both go through the store's generic record collection, so governance
works the same on every backend.

What :meth:`FactMemory.learn` does, in order (nothing is written when a step fails):

1. **Identity.** An ``actor`` is required (who writes); ``scope="session"`` also needs a
   session. Missing parts raise ``IdentityRequired`` (fail closed).
2. **Category.** ``ALWAYS_FORBIDDEN_CATEGORIES`` and the policy's own forbidden ones raise
   ``ForbiddenCategory``.
3. **Input de-duplication.** The SHA-256 of the raw input (subject, relation, value,
   source type, scope, owner) is kept with the fact; the same input again within
   ``dedup_window`` (default 10 minutes) is a no-op (``duplicate_input``).
4. **Privacy tags, personal data, memory poisoning** (:func:`~graphmem.policy.sanitize.sanitise`):
   ``<private>`` sections removed, ``<classified:tier_N>`` tags stripped (``tier``);
   personal data rejected (``PIIDetected``, policy ``pii="reject"``, the default) or
   redacted (``"redact"``); instructions aimed at the model held for review (policy
   ``poisoning="review"``, the default: ``pending_review``, reason
   ``suspected_poisoning``, ``memory.fact_held`` published), refused (``"reject"``:
   ``PoisoningDetected``, ``memory.fact_rejected``, the refusal audited as a ``refuse``
   entry) or not looked for (``"off"``). Both are counted by :meth:`FactMemory.stats`.
5. **Trust** by source type (:data:`SOURCE_TRUST`; an unknown source gets
   :data:`UNKNOWN_SOURCE_TRUST`). Below ``review_below`` (default 0.5) the fact is
   stored ``pending_review``: not served by reads or retrieval until approved.
6. **Conflicts and consolidation** (:func:`~graphmem.policy.consolidation.consolidate`)
   against the current facts with the same subject and relation (case- and
   space-insensitive) in the same scope and owner: no-op, update (the old fact
   ``superseded``), invalidate (the old fact ``invalidated``, still readable through
   ``as_of``) or add (``pending_review`` with ``conflicts_with`` when it contradicts a
   fact it may not replace). Facts are single-valued per subject and relation within a
   scope: a second value is a refinement or a contradiction, never a second truth.
7. **Audit.** Every mutation appends an audit entry (who, when, which key as a hash,
   which fact ids, how to undo it), written with its facts in one atomic write, and
   publishes ``memory.audit.<action>`` with hashed keys only. Facts are versioned and the
   audit log is a signed hash chain (:mod:`graphmem.policy.audit`): :meth:`FactMemory.verify`
   names any record deleted, reordered, replayed, re-dated or written back.

Scopes: ``agent`` facts belong to their actor, ``session`` facts to their session,
``workspace`` facts to the whole tenant. A fact memory sees workspace facts, its actor's
agent facts and its session's session facts, whoever wrote them: actors and sessions are
labels inside a tenant, not credentials (docs/policy.md, "Who reads a session-scoped
fact").

Retrieval (:meth:`FactMemory.recall`) ranks the visible current facts by relevance,
recency, memory type and trust (:mod:`graphmem.policy.scoring`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NoReturn
from weakref import WeakKeyDictionary

from graphmem.core.checks import MAX_NAME_LENGTH, as_utc, check_text
from graphmem.core.errors import (
    ForbiddenCategory,
    IdentityRequired,
    InvalidInput,
    NotFound,
    PoisoningDetected,
)
from graphmem.core.events import EventBus, hash_key
from graphmem.core.events import bus as default_bus
from graphmem.core.models import Record, Relationship, check_safe_name, new_id, utcnow
from graphmem.core.store import GraphStore
from graphmem.policy.audit import (
    AUDIT_HEAD_KIND,
    AUDIT_KIND,
    FACT_KIND,
    AuditChain,
    AuditHead,
    FactWrite,
    canonical_json,
)
from graphmem.policy.consolidation import consolidate, norm, similarity
from graphmem.policy.fact_graph import FactEdge, FactGraph, edge_fields
from graphmem.policy.facts import (
    AuditEntry,
    Fact,
    GovernanceStats,
    LearnResult,
    PurgeResult,
    ScoredFact,
    iso,
)
from graphmem.policy.identity import check_identity
from graphmem.policy.lifecycle import (
    edges_before,
    entries_to_undo,
    oldest_befores,
    plan_purge,
    rollback_changes,
    undo_step,
    undone_by,
)
from graphmem.policy.rules import (
    ALWAYS_FORBIDDEN_CATEGORIES,
    MEMORY_TYPE_WEIGHT,
    SCORE_WEIGHTS,
    SOURCE_TRUST,
    UNKNOWN_SOURCE_TRUST,
    Decision,
    FactStatus,
    GovernancePolicy,
    MemoryType,
    Scope,
    SourceType,
)
from graphmem.policy.sanitize import sanitise, strip_privacy_tags
from graphmem.policy.scoring import check_recall, rank_facts

__all__ = [
    "ALWAYS_FORBIDDEN_CATEGORIES",
    "AUDIT_HEAD_KIND",
    "AUDIT_KIND",
    "FACT_KIND",
    "MEMORY_TYPE_WEIGHT",
    "SCORE_WEIGHTS",
    "SOURCE_TRUST",
    "UNKNOWN_SOURCE_TRUST",
    "AuditEntry",
    "AuditHead",
    "Decision",
    "Fact",
    "FactMemory",
    "FactStatus",
    "GovernancePolicy",
    "GovernanceStats",
    "LearnResult",
    "MemoryType",
    "PurgeResult",
    "Scope",
    "ScoredFact",
    "SourceType",
    "similarity",
    "strip_privacy_tags",
]

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


class FactMemory:
    """Governed facts of one tenant, written by one actor (optionally in one session).

    Get one from :meth:`graphmem.Memory.fact_memory`, or learn one fact with
    :meth:`graphmem.Memory.learn`.

    >>> import graphmem
    >>> with graphmem.open("memory://", tenant="doc") as mem:
    ...     facts = mem.fact_memory(actor="quest-agent")
    ...     first = facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    ...     second = facts.learn("Mira", "works_at", "the mill", source_type="manual")
    ...     (first.decision.value, second.decision.value, second.reason)
    ...     [f.value for f in facts.facts(subject="Mira")]
    ('add', 'invalidate', 'contradiction_more_trusted')
    ['the mill']
    """

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

    def _refuse_poisoning(self, key: str, kinds: list[str]) -> NoReturn:
        """Refuse a write that carries instructions aimed at the model; audit the refusal."""
        self._reject("poisoning", key, kinds)
        with self._lock:
            self._commit("refuse", key=key, detail={"rule": "poisoning", "kinds": kinds})
        raise PoisoningDetected(
            f"the fact carries instructions aimed at the model ({', '.join(kinds)}); it was "
            "refused. Rephrase it as a fact, or use a policy with poisoning='review'",
            rule="poisoning",
            kinds=tuple(kinds),
        )

    def _reject(self, rule: str, key: str, kinds: Sequence[str] = ()) -> None:
        self._bus.publish("memory.fact_rejected", rule=rule, key=key, kinds=list(kinds))

    # ------------------------------------------------------------------ learning

    def learn(
        self,
        subject: str,
        relation: str,
        value: str,
        *,
        source_type: str = SourceType.MANUAL,
        memory_type: str = MemoryType.SEMANTIC,
        scope: str = Scope.AGENT,
        category: str | None = None,
    ) -> LearnResult:
        """Write one fact through every governance rule (see the module docstring).

        A ``workspace`` fact whose subject names an entity is also shown in the graph
        once believed (:mod:`graphmem.policy.fact_graph`): ``Fact.edge`` says where.

        Raises:
            IdentityRequired: ``scope="session"`` without a session.
            InvalidInput: Empty subject, relation or value (after sanitising), an unknown
                memory type or scope, a category that is not a safe name.
            ForbiddenCategory: The category is forbidden.
            MalformedPrivacyTag: A privacy tag is malformed.
            PIIDetected: Personal data, and the policy rejects it.
        """
        for name, text in (("subject", subject), ("relation", relation), ("value", value)):
            if not isinstance(text, str) or not text.strip():
                raise InvalidInput(f"a fact needs a non-empty {name}")
            check_text(text, f"the fact's {name}")
        return self._learn(
            {"subject": subject, "relation": relation, "value": value},
            source_type=source_type,
            memory_type=memory_type,
            scope=scope,
            category=category,
        )

    def relate(
        self,
        source_id: str,
        type: str,
        target_id: str,
        *,
        source_type: str = SourceType.MANUAL,
        memory_type: str = MemoryType.SEMANTIC,
        category: str | None = None,
    ) -> LearnResult:
        """Write one relationship between two entities through every governance rule.

        The governed form of :meth:`graphmem.Memory.upsert_relationships`: a workspace
        fact ``"<source name> <type> <target name>"`` that shows in the graph as
        ``(source_id)-[type]->(target_id)`` once believed, with its trust, identity and
        lifecycle on the edge. It passes the steps :meth:`learn` does (category, privacy
        tags, personal data and poisoning in the names, trust, consolidation against the
        facts about the same entity and type, audit); a single-valued type, like any
        governed relation: a second target refines or contradicts the first.

        Raises:
            InvalidInput: ``type`` is not a safe name; an end is not an entity (the
                error names the missing ids); what :meth:`learn` raises for.
            ForbiddenCategory, MalformedPrivacyTag, PIIDetected, PoisoningDetected: As
                :meth:`learn`.
        """
        check_safe_name(type, "relationship type")
        ids = [source_id, target_id]
        for what, value in zip(("source_id", "target_id"), ids, strict=True):
            if not isinstance(value, str) or not value:
                raise InvalidInput(f"{what} must be an entity id (a non-empty string)")
        found = {e.id: e for e in self._store.get_entities(self._tenant, ids)}
        missing = [i for i in dict.fromkeys(ids) if i not in found]
        if missing:
            raise InvalidInput(
                f"relate needs two entities; not in tenant {self._tenant!r}: {missing}; "
                "upsert them first. Nothing was written.",
                missing_ids=missing,
            )
        source, target = found[source_id], found[target_id]
        return self._learn(
            {"subject": source.name, "relation": type, "value": target.name},
            source_type=source_type,
            memory_type=memory_type,
            scope=Scope.WORKSPACE,
            category=category,
            pinned=(source.id, type, target.id),
        )

    def _learn(
        self,
        parts: Mapping[str, str],
        *,
        source_type: str,
        memory_type: str,
        scope: str,
        category: str | None,
        pinned: tuple[str, str, str] | None = None,
    ) -> LearnResult:
        """:meth:`learn` and :meth:`relate` after their input checks.

        ``pinned``: the edge's ``(source_id, type, target_id)``, given by :meth:`relate`.
        """
        try:
            memory_type = MemoryType(memory_type).value
            scope = Scope(scope).value
        except ValueError as exc:
            raise InvalidInput(
                f"{exc}; memory types: {', '.join(MemoryType)}; scopes: {', '.join(Scope)}"
            ) from exc
        if not isinstance(source_type, str) or not source_type.strip():
            raise InvalidInput("source_type must be a non-empty string")
        source_type = check_text(str(source_type), "source_type", max_length=MAX_NAME_LENGTH)
        if scope == Scope.SESSION and self.session is None:
            self._bus.publish("memory.identity_rejected", operation="learn", missing=["session"])
            raise IdentityRequired(
                "a session-scoped fact needs a session: open the fact memory with session=...",
                missing=("session",),
                operation="learn",
            )
        owner = {Scope.AGENT: self.actor, Scope.SESSION: self.session or "", Scope.WORKSPACE: ""}[
            Scope(scope)
        ]
        key = hash_key(norm(parts["subject"]), norm(parts["relation"]))
        if category is not None:
            category = check_safe_name(category, "category").casefold()
            if (
                category in ALWAYS_FORBIDDEN_CATEGORIES
                or category in self.policy.forbidden_categories
            ):
                self._reject("forbidden_category", key)
                raise ForbiddenCategory(
                    f"facts of category {category!r} may not be stored",
                    rule="forbidden_category",
                    category=category,
                )
        raw: list[Any] = [parts["subject"], parts["relation"], parts["value"]]
        raw += [source_type, scope, owner]
        if pinned is not None:  # two entities may share a name: the ids tell them apart
            raw.append(list(pinned))
        input_hash = hashlib.sha256(canonical_json(raw).encode("utf-8")).hexdigest()

        # Sanitise before the lock: all of it is pure and may raise.
        done = sanitise(parts, self.policy, lambda rule, kinds: self._reject(rule, key, kinds))
        clean = done.clean
        trust = SOURCE_TRUST.get(source_type, UNKNOWN_SOURCE_TRUST)
        poison = list(done.poisoning)
        if poison and self.policy.poisoning == "reject":
            self._refuse_poisoning(key, poison)

        with self._lock:
            now = utcnow()
            recent = self._store.find_records(
                self._tenant,
                FACT_KIND,
                where={"input_hash": input_hash},
                since=now - self.policy.dedup_window,
                limit=1,
            )
            if recent:
                self._check(recent)
                return LearnResult(Decision.NOOP, "duplicate_input", Fact.from_record(recent[0]))
            fact_id = new_id()
            edge: FactEdge | None = None
            if pinned is not None:
                edge = FactEdge(*pinned)
            elif scope == Scope.WORKSPACE:
                edge = self._graph.plan(
                    clean["subject"], clean["relation"], clean["value"], fact_id
                )
            same, slot = self._same(clean, scope, owner, edge)
            plan = consolidate(
                same, clean["value"], trust, poisoned=bool(poison), policy=self.policy
            )
            if plan.decision is Decision.NOOP:
                return LearnResult(Decision.NOOP, plan.reason, plan.duplicate)
            decision, reason, new_status = plan.decision, plan.reason, plan.status
            changed, conflicts, old_status = plan.changed, list(plan.conflicts), plan.old_status
            data: dict[str, Any] = {
                "subject": clean["subject"],
                "relation": clean["relation"],
                "value": clean["value"],
                "subject_key": norm(clean["subject"]),
                "relation_key": norm(clean["relation"]),
                "memory_type": memory_type,
                "scope": scope,
                "owner": owner,
                "session": self.session,
                "actor": self.actor,
                "source_type": source_type,
                "trust": trust,
                "category": category,
                "status": new_status.value,
                "tier": done.tier,
                "redacted": list(done.redacted),
                "valid_at": iso(now) if new_status == FactStatus.ACTIVE else None,
                "invalid_at": None,
                "supersedes": changed[0].id if decision is Decision.UPDATE else None,
                "superseded_by": None,
                "conflicts_with": conflicts,
                "input_hash": input_hash,
                "poisoning": poison,
                **edge_fields(edge),
            }
            writes = [FactWrite(fact_id, data, now)]
            undo: list[dict[str, Any]] = [{"id": fact_id, "before": None}]
            for old in changed:
                record = self._store.get_record(self._tenant, FACT_KIND, old.id)
                undo.append(undo_step(record))
                update: dict[str, Any] = {"status": old_status.value, "invalid_at": iso(now)}
                if old_status == FactStatus.SUPERSEDED:
                    update["superseded_by"] = fact_id
                writes.append(FactWrite(old.id, {**record.data, **update}, record.created_at))
            audit_id, stored = self._commit(
                decision.value,
                key=key,
                writes=writes,
                undo=undo,
                detail={"reason": reason, "status": new_status.value},
                known=slot,
            )
            facts = [Fact.from_record(r) for r in stored]
            if poison:
                self._bus.publish(
                    "memory.fact_held", rule="poisoning", key=key, kinds=poison, fact_id=fact_id
                )
            return LearnResult(decision, reason, facts[0], tuple(facts[1:]), audit_id)

    def _same(
        self, clean: Mapping[str, str], scope: str, owner: str, edge: FactEdge | None
    ) -> tuple[list[Fact], list[Fact] | None]:
        """The facts a new one consolidates with, and those of its edge's slot (if any).

        Same subject and relation, scope and owner. A fact the graph shows is about an
        entity: it meets the facts about the same entity and relationship type (whatever
        name the subject was given), and those of the same subject text that the graph
        does not show.
        """
        found = self._read_facts(
            {"subject_key": norm(clean["subject"]), "relation_key": norm(clean["relation"])}
        )
        slot: list[Fact] | None = None
        if edge is not None:
            slot = self._graph.same_slot(edge)
            found = [f for f in found if f.edge is None]
            seen = {f.id for f in found}
            found += [f for f in slot if f.id not in seen and self._visible(f)]
        return [f for f in found if f.scope == scope and f.owner == owner], slot

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

    # ------------------------------------------------------------------ statistics

    def stats(self) -> GovernanceStats:
        """Counts by status, memory type and source, mean trust, audit size."""
        records = self._store.find_records(self._tenant, FACT_KIND, newest_first=False)
        audit = self._store.find_records(self._tenant, AUDIT_KIND)
        self._check(records + audit)
        undone = undone_by(audit)
        facts = [Fact.from_record(r) for r in records]
        return GovernanceStats(
            facts=len(facts),
            by_status=dict(Counter(f.status for f in facts)),
            by_memory_type=dict(Counter(f.memory_type for f in facts)),
            by_source_type=dict(Counter(f.source_type for f in facts)),
            mean_trust=round(sum(f.trust for f in facts) / len(facts), 4) if facts else 0.0,
            audit_entries=len(audit),
            rolled_back_entries=sum(
                1 for r in audit if r.id in undone or r.data.get("rolled_back")
            ),
            signed=self.policy.signing_key is not None,
            poisoning_held=sum(1 for f in facts if f.poisoning),
            poisoning_rejected=sum(
                1
                for r in audit
                if r.data.get("action") == "refuse"
                and (r.data.get("detail") or {}).get("rule") == "poisoning"
            ),
            oldest_fact_at=min((f.created_at for f in facts), default=None),
            newest_fact_at=max((f.created_at for f in facts), default=None),
        )

    # ------------------------------------------------------------------ retrieval

    def recall(
        self,
        query: str,
        *,
        max_tokens: int = 500,
        limit: int | None = None,
        memory_types: Sequence[str] | None = None,
        now: datetime | None = None,
    ) -> list[ScoredFact]:
        """The visible current facts that best answer ``query``, within ``max_tokens``.

        Scored as :mod:`graphmem.policy.scoring` says; ties broken by newer first, then id.

        Raises:
            InvalidInput: ``max_tokens`` or ``limit`` not positive; unknown memory type.
        """
        types = check_recall(query, max_tokens, limit, memory_types)
        return rank_facts(
            self.facts(),
            query,
            half_life=self.policy.half_life,
            now=as_utc(now, "now") or utcnow(),
            max_tokens=max_tokens,
            limit=limit,
            memory_types=types,
        )
