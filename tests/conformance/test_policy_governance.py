"""Governed writes, audit and lifecycle, on every backend."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from pii_cases import ISSUE_POSITIVES

from graphmem import (
    AuditChainBroken,
    EventBus,
    FactMemory,
    ForbiddenCategory,
    GovernancePolicy,
    GraphStore,
    IdentityRequired,
    InvalidInput,
    MalformedPrivacyTag,
    Memory,
    NotFound,
    PIIDetected,
    Record,
    SignatureMismatch,
)
from graphmem.core.events import Event
from graphmem.policy.governance import (
    ALWAYS_FORBIDDEN_CATEGORIES,
    AUDIT_KIND,
    FACT_KIND,
    SOURCE_TRUST,
    UNKNOWN_SOURCE_TRUST,
    Decision,
    strip_privacy_tags,
)
from graphmem.policy.pii import detect_pii


@pytest.fixture
def facts(mem: Memory, bus: EventBus) -> FactMemory:
    return mem.fact_memory(actor="agent-7", session="s1", bus=bus)


# ------------------------------------------------------------------ identity and input


def test_an_actor_is_required(mem: Memory, bus: EventBus, seen: list[Event]) -> None:
    with pytest.raises(IdentityRequired):
        mem.fact_memory(actor="  ", bus=bus)
    assert seen[0].name == "memory.identity_rejected"
    assert dict(seen[0].payload) == {
        "operation": "fact_memory",
        "missing": ["actor"],
        "invalid": [],
    }


def test_session_scope_needs_a_session(mem: Memory, bus: EventBus) -> None:
    facts = mem.fact_memory(actor="a", bus=bus)
    with pytest.raises(IdentityRequired):
        facts.learn("Mira", "mood", "calm", scope="session")
    assert mem.store.count_records(mem.tenant, FACT_KIND) == 0


@pytest.mark.parametrize(
    "kwargs",
    [{"memory_type": "dream"}, {"scope": "planet"}, {"category": "not safe!"}],
)
def test_bad_enums_are_invalid(facts: FactMemory, kwargs: dict[str, str]) -> None:
    with pytest.raises(InvalidInput):
        facts.learn("Mira", "mood", "calm", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("empty", ["", "  ", "<private>all of it</private>"])
def test_empty_parts_are_invalid(facts: FactMemory, empty: str) -> None:
    with pytest.raises(InvalidInput):
        facts.learn("Mira", "mood", empty)


# ------------------------------------------------------------------ trust and review


@pytest.mark.parametrize("source", sorted(SOURCE_TRUST))
def test_trust_by_source(facts: FactMemory, source: str) -> None:
    result = facts.learn(f"subject {source}", "is", "known", source_type=source)
    assert result.fact is not None
    assert result.fact.trust == SOURCE_TRUST[source]
    assert result.pending_review is (SOURCE_TRUST[source] < 0.5)


def test_unknown_source_gets_a_low_score_and_waits_for_review(facts: FactMemory) -> None:
    result = facts.learn("Mira", "mood", "calm", source_type="rumour_mill")
    assert result.fact is not None
    assert result.fact.trust == UNKNOWN_SOURCE_TRUST < 0.5
    assert result.pending_review
    assert facts.facts() == []
    assert [f.id for f in facts.facts(include_pending=True)] == [result.fact.id]

    approved = facts.approve(result.fact.id)
    assert approved.status == "active"
    assert [f.value for f in facts.facts()] == ["calm"]
    with pytest.raises(InvalidInput):
        facts.approve(result.fact.id)


def test_rejected_facts_are_kept_but_never_served(facts: FactMemory) -> None:
    result = facts.learn("Mira", "mood", "calm", source_type="webhook")
    assert result.fact is not None
    rejected = facts.reject(result.fact.id)
    assert rejected.status == "rejected"
    assert facts.facts(include_pending=True) == []
    assert facts.get(result.fact.id).status == "rejected"


# ------------------------------------------------------------------ categories, privacy, PII


@pytest.mark.parametrize("category", sorted(ALWAYS_FORBIDDEN_CATEGORIES))
def test_always_forbidden_categories(
    facts: FactMemory, category: str, seen: list[Event], mem: Memory
) -> None:
    with pytest.raises(ForbiddenCategory):
        facts.learn("server", "password", "hunter2", category=category)
    assert mem.store.count_records(mem.tenant, FACT_KIND) == 0
    assert [e.name for e in seen] == ["memory.fact_rejected"]
    assert "hunter2" not in repr(dict(seen[0].payload))


def test_policy_forbidden_categories(mem: Memory, bus: EventBus) -> None:
    policy = GovernancePolicy(forbidden_categories=frozenset({"Health"}))
    facts = mem.fact_memory(actor="a", policy=policy, bus=bus)
    with pytest.raises(ForbiddenCategory):
        facts.learn("Ada", "condition", "a cold", category="health")
    assert facts.learn("Ada", "likes", "apples", category="taste").decision is Decision.ADD


def test_private_sections_are_removed_before_storage(facts: FactMemory, mem: Memory) -> None:
    result = facts.learn("Mira", "hides", "the key <private>under the third stone</private>")
    assert result.fact is not None and result.fact.value == "the key"
    dumped = json.dumps([r.model_dump(mode="json") for r in mem.dump().records])
    assert "third stone" not in dumped


@pytest.mark.parametrize(
    "value",
    [
        "a <private>secret",
        "a secret</private>",
        "<private>a <private>b</private></private>",
        "<classified:tier_2>open",
        "closed</classified>",
        "<classified>no tier</classified>",
        "<private attr='x'>y</private>",
    ],
)
def test_malformed_privacy_tags_are_typed_errors(
    facts: FactMemory, value: str, mem: Memory
) -> None:
    with pytest.raises(MalformedPrivacyTag):
        facts.learn("Mira", "hides", value)
    assert mem.store.count_records(mem.tenant, FACT_KIND) == 0
    assert mem.store.count_records(mem.tenant, AUDIT_KIND) == 0


def test_classified_tags_are_stripped_with_the_highest_tier(facts: FactMemory) -> None:
    result = facts.learn(
        "Guild",
        "plans",
        "<classified:tier_1>a raid</classified> on <classified:tier_3>the mill</classified>",
    )
    assert result.fact is not None
    assert result.fact.value == "a raid on the mill"
    assert result.fact.tier == 3
    assert strip_privacy_tags("plain") == ("plain", None)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("reach me at ada@example.org", "email"),
        ("call +44 20 7946 0958", "phone"),
        ("card 4111 1111 1111 1111", "card"),
        ("iban GB82 WEST 1234 5698 7654 32", "iban"),
        ("ssn 123-45-6789", "national_id"),
    ],
)
def test_pii_is_rejected_by_default(
    facts: FactMemory, value: str, kind: str, mem: Memory, seen: list[Event]
) -> None:
    with pytest.raises(PIIDetected) as info:
        facts.learn("Ada", "contact", value)
    assert info.value.kinds == (kind,)
    assert mem.store.count_records(mem.tenant, FACT_KIND) == 0
    [event] = seen
    assert event.name == "memory.fact_rejected" and event.payload["kinds"] == [kind]
    assert value not in str(info.value) and value not in repr(dict(event.payload))


def test_pii_is_redacted_when_the_policy_says_so(mem: Memory, bus: EventBus) -> None:
    facts = mem.fact_memory(actor="a", policy=GovernancePolicy(pii="redact"), bus=bus)
    result = facts.learn("Ada", "contact", "mail ada@example.org or card 4111-1111-1111-1111")
    assert result.fact is not None
    assert result.fact.value == "mail [email] or card [card]"
    assert result.fact.redacted == ("card", "email")
    assert "ada@example.org" not in json.dumps(
        [r.model_dump(mode="json") for r in mem.dump().records]
    )


@pytest.mark.parametrize(("kind", "value", "redacted"), ISSUE_POSITIVES)
def test_pii_variants_the_issue_found_are_rejected(
    facts: FactMemory, mem: Memory, kind: str, value: str, redacted: str
) -> None:
    """Issue 17, item 4: these passed ``pii="reject"`` before detection was normalised."""
    with pytest.raises(PIIDetected) as info:
        facts.learn("Ada", "contact", value)
    assert info.value.kinds == (kind,)
    assert mem.store.count_records(mem.tenant, FACT_KIND) == 0


@pytest.mark.parametrize(("kind", "value", "redacted"), ISSUE_POSITIVES)
def test_pii_variants_are_redacted_to_nothing_detectable(
    mem: Memory, bus: EventBus, kind: str, value: str, redacted: str
) -> None:
    """Before, a card separated by no-break spaces was stored as a plain, detectable card."""
    facts = mem.fact_memory(actor="a", policy=GovernancePolicy(pii="redact"), bus=bus)
    result = facts.learn("Ada", "contact", value)
    assert result.fact is not None
    assert result.fact.value == " ".join(redacted.split())
    assert result.fact.redacted == (kind,)
    stored = json.dumps([r.model_dump(mode="json") for r in mem.dump().records])
    assert detect_pii(result.fact.value) == []
    # Ids, digests and signatures are hex: a card group counts only outside a hex word.
    assert re.search(r"(?<![0-9a-f])4111(?![0-9a-f])", stored) is None


def test_luhn_failing_numbers_are_not_cards(facts: FactMemory) -> None:
    assert facts.learn("Order", "number", "4111 1111 1111 1112").decision is Decision.ADD


# ------------------------------------------------------------------ consolidation


def test_near_duplicates_are_no_ops(facts: FactMemory) -> None:
    first = facts.learn("Mira", "lives_in", "the old mill house")
    again = facts.learn("mira", "LIVES_IN", "The old mill house.")
    assert again.decision is Decision.NOOP and again.reason == "near_duplicate"
    assert again.fact == first.fact
    assert again.audit_id is None
    assert len(facts.facts(include_all=True)) == 1


def test_same_input_within_the_window_is_a_no_op(facts: FactMemory, mem: Memory) -> None:
    first = facts.learn("Mira", "mood", "calm")
    second = facts.learn("Mira", "mood", "calm")
    assert second.decision is Decision.NOOP and second.reason == "duplicate_input"
    assert second.fact is not None and first.fact is not None
    assert second.fact.id == first.fact.id
    assert len(facts.audit_log()) == 1


def test_same_input_after_the_window_is_checked_again(mem: Memory, bus: EventBus) -> None:
    policy = GovernancePolicy(dedup_window=timedelta(microseconds=1))
    facts = mem.fact_memory(actor="a", policy=policy, bus=bus)
    facts.learn("Mira", "mood", "calm")
    again = facts.learn("Mira", "mood", "calm")
    assert again.reason == "near_duplicate"  # no longer an input duplicate, still no-op


def test_a_refinement_updates(facts: FactMemory) -> None:
    old = facts.learn("Mira", "lives_in", "Paris", source_type="agent_run")
    new = facts.learn("Mira", "lives_in", "Paris France", source_type="user_input")
    assert new.decision is Decision.UPDATE and new.reason == "refines"
    assert old.fact is not None and new.fact is not None
    assert [f.status for f in new.changed] == ["superseded"]
    assert new.changed[0].superseded_by == new.fact.id
    assert new.fact.supersedes == old.fact.id
    assert [f.value for f in facts.facts(subject="Mira")] == ["Paris France"]


def test_a_more_trusted_contradiction_invalidates_and_as_of_still_reads_it(
    facts: FactMemory,
) -> None:
    old = facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    assert old.fact is not None and old.fact.valid_at is not None
    between = old.fact.valid_at + timedelta(microseconds=1)
    new = facts.learn("Mira", "works_at", "the mill", source_type="manual")

    assert new.decision is Decision.INVALIDATE
    assert [f.status for f in new.changed] == ["invalidated"]
    assert [f.value for f in facts.facts(subject="Mira")] == ["the mill"]
    assert [f.value for f in facts.facts(subject="Mira", as_of=between)] == ["the forge"]
    assert facts.get(old.fact.id).status == "invalidated"


def test_a_less_trusted_contradiction_waits_for_review(facts: FactMemory) -> None:
    old = facts.learn("Mira", "works_at", "the forge", source_type="manual")
    new = facts.learn("Mira", "works_at", "the mill", source_type="agent_run")
    assert new.decision is Decision.ADD and new.reason == "contradiction_pending_review"
    assert new.pending_review
    assert old.fact is not None and new.fact is not None
    assert new.fact.conflicts_with == (old.fact.id,)
    assert [f.value for f in facts.facts(subject="Mira")] == ["the forge"]

    facts.approve(new.fact.id)  # the reviewer sides with the new fact
    assert [f.value for f in facts.facts(subject="Mira")] == ["the mill"]
    assert facts.get(old.fact.id).status == "invalidated"


def test_scopes_keep_facts_apart(mem: Memory, bus: EventBus) -> None:
    mine = mem.fact_memory(actor="a", session="s1", bus=bus)
    theirs = mem.fact_memory(actor="b", session="s2", bus=bus)
    mine.learn("Mira", "mood", "calm", scope="agent")
    mine.learn("Mira", "seen_at", "the well", scope="session")
    mine.learn("Village", "name", "Brindleford", scope="workspace")

    assert sorted(f.value for f in mine.facts()) == ["Brindleford", "calm", "the well"]
    assert [f.value for f in theirs.facts()] == ["Brindleford"]
    result = theirs.learn("Mira", "mood", "angry", scope="agent")
    assert result.decision is Decision.ADD and result.reason == "new"  # no cross-agent conflict


# ------------------------------------------------------------------ audit


def test_every_mutation_is_audited_with_hashed_keys(facts: FactMemory, seen: list[Event]) -> None:
    first = facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    facts.learn("Mira", "works_at", "the mill")
    log = facts.audit_log()

    assert [(e.seq, e.action, e.actor, e.session) for e in log] == [
        (1, "add", "agent-7", "s1"),
        (2, "invalidate", "agent-7", "s1"),
    ]
    assert log[0].key == log[1].key and log[0].key is not None
    assert first.audit_id == log[0].id
    audit_events = [e for e in seen if e.name.startswith("memory.audit.")]
    assert [e.name for e in audit_events] == ["memory.audit.add", "memory.audit.invalidate"]
    for event in audit_events:
        text = repr(dict(event.payload))
        assert "Mira" not in text and "forge" not in text and "agent-7" not in text
        assert event.payload["key"] == log[0].key


def test_rollback_undoes_later_entries_and_keeps_them(facts: FactMemory) -> None:
    first = facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    facts.learn("Mira", "works_at", "the mill")
    facts.learn("Tomas", "mood", "grumpy")
    assert first.audit_id is not None

    undone = facts.rollback_to(first.audit_id)

    assert undone == 2
    assert [(f.subject, f.value) for f in facts.facts()] == [("Mira", "the forge")]
    log = facts.audit_log()
    assert [(e.action, e.rolled_back) for e in log] == [
        ("add", False),
        ("invalidate", True),
        ("add", True),
        ("rollback", False),
    ]
    assert log[1].rolled_back_by == log[3].id
    assert facts.rollback_to(first.audit_id) == 0  # nothing left to undo


def test_rollback_to_an_unknown_or_rolled_back_entry(facts: FactMemory) -> None:
    with pytest.raises(NotFound):
        facts.rollback_to("nope")
    a = facts.learn("A", "is", "one")
    b = facts.learn("B", "is", "two")
    assert a.audit_id is not None and b.audit_id is not None
    facts.rollback_to(a.audit_id)
    with pytest.raises(InvalidInput):
        facts.rollback_to(b.audit_id)


# ------------------------------------------------------------------ retention


def test_purge_by_age_keeps_invalidated_and_rolled_back(facts: FactMemory) -> None:
    facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    facts.learn("Mira", "works_at", "the mill")  # invalidates the forge
    c = facts.learn("Tomas", "mood", "grumpy")
    d = facts.learn("Tomas", "home", "the mill house")
    assert c.audit_id is not None and d.fact is not None
    facts.rollback_to(c.audit_id)  # undoes d's add: entry kept, rolled back
    later = facts.get(facts.facts(subject="Mira")[0].id).created_at + timedelta(days=400)

    result = facts.purge(max_age=timedelta(days=30), now=later)

    remaining = facts.facts(include_all=True)
    assert [(f.value, f.status) for f in remaining] == [("the forge", "invalidated")]
    assert result.facts == 2
    actions = [(e.action, e.rolled_back) for e in facts.audit_log()]
    assert ("invalidate", False) in actions  # an invalidating entry is never purged
    assert ("add", True) in actions  # nor a rolled-back one
    assert actions[-1] == ("purge", False)


def test_purge_by_count_cap(facts: FactMemory) -> None:
    for i in range(6):
        facts.learn(f"subject {i}", "is", f"value {i}")
    result = facts.purge(max_entries=4)
    assert result.facts == 2
    assert [f.subject for f in facts.facts()] == [f"subject {i}" for i in range(2, 6)]
    assert result.audit_entries == 2
    assert len(facts.audit_log()) == 5  # 4 kept and the purge's own entry


@pytest.mark.parametrize(
    "kwargs", [{}, {"max_age": timedelta(0)}, {"max_entries": 0}, {"max_entries": -1}]
)
def test_purge_arguments(facts: FactMemory, kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        facts.purge(**kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------ signing


def test_signed_records_verify(mem: Memory, bus: EventBus) -> None:
    facts = mem.fact_memory(actor="a", policy=GovernancePolicy(signing_key=b"k" * 32), bus=bus)
    facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    facts.learn("Mira", "works_at", "the mill")
    assert facts.verify() == 5  # two facts, two audit entries and the log's head
    assert facts.stats().signed


def test_tampering_is_detected(mem: Memory, store: GraphStore, tenant: str, bus: EventBus) -> None:
    facts = mem.fact_memory(actor="a", policy=GovernancePolicy(signing_key=b"k" * 32), bus=bus)
    result = facts.learn("Mira", "works_at", "the forge")
    assert result.fact is not None
    record = store.get_record(tenant, FACT_KIND, result.fact.id)
    forged = Record(id=record.id, kind=FACT_KIND, data={**record.data, "value": "the vault"})
    store.put_records(tenant, FACT_KIND, [forged])

    with pytest.raises(SignatureMismatch) as info:
        facts.verify()
    assert info.value.record_ids == (result.fact.id,)
    with pytest.raises(SignatureMismatch):
        facts.facts()


def test_governed_writes_fail_closed_once_tampering_is_found(
    mem: Memory, store: GraphStore, tenant: str, bus: EventBus
) -> None:
    policy = GovernancePolicy(signing_key=b"k" * 32)
    facts = mem.fact_memory(actor="a", policy=policy, bus=bus)
    first = facts.learn("Mira", "works_at", "the forge")
    facts.learn("Tomas", "works_at", "the mill")
    assert first.fact is not None
    entries = store.find_records(tenant, "audit", newest_first=False)
    forged = entries[0].model_copy(update={"data": {**entries[0].data, "actor": "mallory"}})
    store.put_records(tenant, "audit", [forged])  # the oldest entry, rewritten
    facts.learn("Odile", "works_at", "the inn")  # not found yet: only verify walks the log
    # A check with another key fails too, but blocks only writes with that key.
    stranger = mem.fact_memory(actor="a", policy=GovernancePolicy(signing_key=b"x"), bus=bus)
    with pytest.raises(SignatureMismatch):
        stranger.verify()
    facts.learn("Odile", "lives_in", "the inn")
    dump = store.dump(tenant)
    with pytest.raises(SignatureMismatch):
        facts.verify()
    assert store.dump(tenant) == dump  # finding it wrote nothing
    with pytest.raises(AuditChainBroken) as info:
        facts.learn("Wren", "works_at", "the docks")
    assert forged.id in info.value.record_ids and info.value.found_at
    # Every governed write with that key is refused in this process, by any FactMemory.
    other = mem.fact_memory(actor="a", policy=policy, bus=bus)
    with pytest.raises(AuditChainBroken):
        other.forget(first.fact.id)
    with pytest.raises(AuditChainBroken):
        mem.learn("Wren", "works_at", "the docks", actor="c", policy=policy)
    assert store.dump(tenant) == dump  # nothing written


def test_a_rewritten_newest_entry_is_found_by_the_next_write(
    mem: Memory, store: GraphStore, tenant: str, bus: EventBus
) -> None:
    facts = mem.fact_memory(actor="a", bus=bus)  # unsigned: the hash chain still holds
    facts.learn("Mira", "works_at", "the forge")
    [newest] = store.find_records(tenant, "audit", limit=1)
    store.put_records(
        tenant, "audit", [newest.model_copy(update={"data": {**newest.data, "actor": "m"}})]
    )
    dump = store.dump(tenant)
    with pytest.raises(AuditChainBroken, match="newest audit entry"):
        facts.learn("Tomas", "works_at", "the mill")
    assert store.dump(tenant) == dump


def test_another_key_does_not_verify(mem: Memory, bus: EventBus) -> None:
    mem.fact_memory(actor="a", policy=GovernancePolicy(signing_key=b"one"), bus=bus).learn(
        "A", "is", "x"
    )
    other = mem.fact_memory(actor="a", policy=GovernancePolicy(signing_key=b"two"), bus=bus)
    with pytest.raises(SignatureMismatch):
        other.verify()


def test_verify_needs_a_key(facts: FactMemory) -> None:
    with pytest.raises(InvalidInput):
        facts.verify()


# ------------------------------------------------------------------ stats and recall


def test_health_statistics(facts: FactMemory) -> None:
    facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    facts.learn("Mira", "works_at", "the mill")
    facts.learn("Tomas", "mood", "grumpy", source_type="webhook", memory_type="episodic")
    stats = facts.stats()
    assert stats.facts == 3
    assert stats.by_status == {"invalidated": 1, "active": 1, "pending_review": 1}
    assert stats.by_memory_type == {"semantic": 2, "episodic": 1}
    assert stats.by_source_type == {"agent_run": 1, "manual": 1, "webhook": 1}
    assert stats.mean_trust == round((0.6 + 1.0 + 0.4) / 3, 4)
    assert stats.audit_entries == 3 and stats.rolled_back_entries == 0
    assert not stats.signed


def test_recall_scores_and_orders(facts: FactMemory) -> None:
    facts.learn("Mira", "works_at", "the forge")
    facts.learn("Mira", "knows", "how to temper steel", memory_type="procedural")
    facts.learn("Tomas", "grinds", "grain at the mill", source_type="user_input")
    facts.learn("Tomas", "saw", "Mira at the forge", memory_type="episodic")

    found = facts.recall("where does Mira work at the forge?")

    assert [s.fact.value for s in found] == [
        "the forge",
        "Mira at the forge",
        "how to temper steel",
    ]
    top = found[0]
    # query words less stop words: mira, work, forge; "Mira works_at the forge" has two
    assert top.relevance == pytest.approx(2 / 3)
    assert top.score == pytest.approx(0.4 * top.relevance + 0.3 * top.recency + 0.2 * 1.0 + 0.1)
    assert all(0.99 < s.recency <= 1.0 for s in found)


def test_recall_respects_the_token_budget(facts: FactMemory) -> None:
    for i in range(10):
        facts.learn(f"Mira{i}", "owns", f"sword number {i} with a long description")
    found = facts.recall("sword", max_tokens=30)
    assert sum(s.tokens for s in found) <= 30
    assert 0 < len(found) < 10
    with pytest.raises(InvalidInput):
        facts.recall("sword", max_tokens=0)


def test_recall_weighs_recency_and_memory_type(facts: FactMemory) -> None:
    facts.learn("Bell", "rings_at", "dawn", memory_type="episodic")
    facts.learn("Bell", "made_of", "bronze dawn", memory_type="semantic")
    later = facts.facts()[0].created_at + timedelta(days=14)
    found = facts.recall("bell dawn", now=later)
    assert [s.fact.value for s in found] == ["bronze dawn", "dawn"]
    assert found[0].recency == pytest.approx(0.25, rel=1e-3)


def test_concurrent_learns_keep_a_gap_free_audit_log(mem: Memory) -> None:
    import threading

    def work(worker: int) -> None:
        for i in range(10):
            mem.learn(f"subject {worker}-{i}", "is", f"value {i}", actor=f"agent-{worker}")

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log = mem.fact_memory(actor="auditor").audit_log()
    assert [e.seq for e in log] == list(range(1, 41))
    assert mem.store.count_records(mem.tenant, FACT_KIND) == 40
