"""The writing verbs of :class:`~graphmem.policy.FactMemory`: learn, relate, refusals.

:meth:`~graphmem.policy.FactMemory.learn` writes one fact,
:meth:`~graphmem.policy.FactMemory.relate` one relationship between two entities, both
through the same steps (identity, category, input de-duplication, sanitising, trust,
consolidation, audit), described in :mod:`graphmem.policy.governance`. A write that
breaks a rule is refused and the refusal published (and audited, for poisoning).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from graphmem.core.checks import MAX_NAME_LENGTH, check_text
from graphmem.core.errors import (
    ForbiddenCategory,
    IdentityRequired,
    InvalidInput,
    PoisoningDetected,
)
from graphmem.core.events import hash_key
from graphmem.core.models import check_safe_name, new_id, utcnow
from graphmem.policy.audit import FACT_KIND, FactWrite, canonical_json
from graphmem.policy.consolidation import consolidate, norm
from graphmem.policy.fact_graph import FactEdge, edge_fields
from graphmem.policy.facts import Fact, LearnResult, iso
from graphmem.policy.governed import GovernedFacts
from graphmem.policy.lifecycle import undo_step
from graphmem.policy.rules import (
    ALWAYS_FORBIDDEN_CATEGORIES,
    SOURCE_TRUST,
    UNKNOWN_SOURCE_TRUST,
    Decision,
    FactStatus,
    MemoryType,
    Scope,
    SourceType,
)
from graphmem.policy.sanitize import sanitise


class FactLearning(GovernedFacts):
    """The writing verbs: a fact or a relationship through every governance rule."""

    # ------------------------------------------------------------------ refusals

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
