"""Tamper-evident governance (issue 17, item 5), on every backend.

Each attack below passed ``verify()`` before: the signature left out ``created_at`` and
the tenant, facts had no version, and the audit log was a set of independently signed
entries. Now signatures cover every field, facts are versioned and the log is a hash
chain with a signed head, so each one fails with a ``SignatureMismatch`` that names the
record. Attacks that already failed (an edited value, a copy under another id) are in
test_policy_governance.py. The attacker here can write the store directly but does not
hold the signing key.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from graphmem import (
    BackendUnavailable,
    FactMemory,
    GovernancePolicy,
    GraphStore,
    Memory,
    Record,
    SignatureMismatch,
    UnsupportedOperation,
)
from graphmem.policy.governance import AUDIT_HEAD_KIND, AUDIT_KIND, FACT_KIND

KEY = b"k" * 32


@pytest.fixture
def facts(mem: Memory) -> FactMemory:
    return mem.fact_memory(actor="quest-agent", policy=GovernancePolicy(signing_key=KEY))


def entries(store: GraphStore, tenant: str) -> list[Record]:
    """The audit entries as stored, by seq."""
    found = store.find_records(tenant, AUDIT_KIND)
    return sorted(found, key=lambda r: int(r.data["seq"]))


def rewrite(store: GraphStore, tenant: str, record: Record, **changes: Any) -> None:
    """Put ``record`` back with ``changes`` (a new ``created_at`` needs a delete first)."""
    store.delete_records(tenant, record.kind, [record.id])
    changed = record.model_copy(update=changes)
    store.put_records(tenant, record.kind, [changed])


def fails_naming(facts: FactMemory, *record_ids: str) -> SignatureMismatch:
    with pytest.raises(SignatureMismatch) as info:
        facts.verify()
    for record_id in record_ids:
        assert record_id in info.value.record_ids, (record_id, info.value.message)
    return info.value


def history(facts: FactMemory) -> None:
    """A little governed history: add, invalidate, add, add."""
    facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    facts.learn("Mira", "works_at", "the mill")  # invalidates the forge
    facts.learn("Tomas", "mood", "grumpy")
    facts.learn("Ada", "home", "the old mill house")


# ------------------------------------------------------------------ facts


def test_an_older_signed_version_written_back_fails(
    facts: FactMemory, store: GraphStore, tenant: str
) -> None:
    old = facts.learn("Mira", "lives_in", "Paris", source_type="agent_run").fact
    assert old is not None
    stale = store.get_record(tenant, FACT_KIND, old.id)  # version 1, validly signed
    facts.learn("Mira", "lives_in", "Paris France", source_type="user_input")  # supersedes it
    assert facts.get(old.id).status == "superseded"

    store.put_records(tenant, FACT_KIND, [stale])  # the superseded fact is active again

    error = fails_naming(facts, old.id)
    assert "older version" in error.reasons[old.id]
    assert error.record_ids == (old.id,)


def test_a_re_dated_fact_fails(facts: FactMemory, store: GraphStore, tenant: str) -> None:
    fact = facts.learn("Mira", "works_at", "the forge").fact
    assert fact is not None
    record = store.get_record(tenant, FACT_KIND, fact.id)

    rewrite(store, tenant, record, created_at=record.created_at - timedelta(days=30))

    fails_naming(facts, fact.id)


def test_a_fact_deleted_outside_governance_fails(
    facts: FactMemory, store: GraphStore, tenant: str
) -> None:
    history(facts)
    gone = facts.facts(subject="Tomas")[0]
    store.delete_records(tenant, FACT_KIND, [gone.id])
    fails_naming(facts, gone.id)


# ------------------------------------------------------------------ the audit log


@pytest.mark.parametrize("position", [0, 1, 3], ids=["first", "middle", "last"])
def test_a_deleted_entry_fails_and_is_named(
    facts: FactMemory, store: GraphStore, tenant: str, position: int
) -> None:
    history(facts)
    victim = entries(store, tenant)[position]

    store.delete_records(tenant, AUDIT_KIND, [victim.id])

    fails_naming(facts, victim.id)


def test_the_issue_case_one_entry_of_many_deleted(
    facts: FactMemory, store: GraphStore, tenant: str
) -> None:
    for i in range(11):
        facts.learn(f"subject {i}", "is", f"value {i}")
    facts.verify()
    victim = entries(store, tenant)[5]
    store.delete_records(tenant, AUDIT_KIND, [victim.id])
    fails_naming(facts, victim.id)


def test_reordered_entries_fail(facts: FactMemory, store: GraphStore, tenant: str) -> None:
    history(facts)
    first, second = entries(store, tenant)[1:3]

    # Swap their times: read by time, the log is now in another order than its seqs.
    rewrite(store, tenant, first, created_at=second.created_at, updated_at=second.created_at)
    rewrite(store, tenant, second, created_at=first.created_at, updated_at=first.created_at)

    fails_naming(facts, first.id, second.id)


def test_a_re_dated_entry_fails(facts: FactMemory, store: GraphStore, tenant: str) -> None:
    history(facts)
    victim = entries(store, tenant)[1]
    later = victim.created_at + timedelta(microseconds=10)
    rewrite(store, tenant, victim, created_at=later, updated_at=later)
    fails_naming(facts, victim.id)


def test_an_entry_replayed_from_another_tenant_fails(
    mem: Memory, store: GraphStore, tenant: str, new_tenant: Callable[[], str]
) -> None:
    policy = GovernancePolicy(signing_key=KEY)
    other = new_tenant()
    theirs = FactMemory(store, other, actor="quest-agent", policy=policy)
    theirs.learn("Mira", "works_at", "the forge")
    theirs.learn("Tomas", "mood", "grumpy")
    ours = mem.fact_memory(actor="quest-agent", policy=policy)
    ours.learn("Mira", "works_at", "the forge")
    replayed = entries(store, other)[1]

    store.put_records(tenant, AUDIT_KIND, [replayed])

    fails_naming(ours, replayed.id)
    assert theirs.verify() == 5  # the other tenant is untouched


def test_a_purged_entry_written_back_fails(
    facts: FactMemory, store: GraphStore, tenant: str
) -> None:
    for i in range(5):
        facts.learn(f"subject {i}", "is", f"value {i}")
    first = entries(store, tenant)[0]
    assert facts.purge(max_entries=3).audit_entries == 2
    facts.verify()  # the chain closes over the purged entries: tombstones in the purge

    store.put_records(tenant, AUDIT_KIND, [first])  # replayed: it was purged

    fails_naming(facts, first.id)


def test_a_truncated_log_with_a_replayed_head_fails_against_an_anchor(
    facts: FactMemory, store: GraphStore, tenant: str
) -> None:
    history(facts)
    old_head = store.get_record(tenant, AUDIT_HEAD_KIND, "head")
    entry = facts.learn("Mira", "mood", "calm")
    anchor = facts.audit_head()
    assert anchor is not None and anchor.entry_id == entry.audit_id
    fact = entry.fact
    assert fact is not None

    # Roll the whole store back by one write: entry, its fact and the head.
    store.delete_records(tenant, AUDIT_KIND, [anchor.entry_id])
    store.delete_records(tenant, FACT_KIND, [fact.id])
    store.put_records(tenant, AUDIT_HEAD_KIND, [old_head])

    assert facts.verify() == 4 + 4 + 1  # consistent in itself: only an anchor can tell
    with pytest.raises(SignatureMismatch) as info:
        facts.verify(anchor=anchor)
    assert info.value.record_ids == (anchor.entry_id,)


def test_a_deleted_head_fails_and_stops_further_writes(
    facts: FactMemory, store: GraphStore, tenant: str
) -> None:
    history(facts)
    store.delete_records(tenant, AUDIT_HEAD_KIND, ["head"])
    fails_naming(facts, "head")
    with pytest.raises(SignatureMismatch):
        facts.learn("Mira", "mood", "calm")


# ------------------------------------------------------------------ legitimate history


def test_every_governed_operation_keeps_the_log_verifiable(
    facts: FactMemory, store: GraphStore, tenant: str
) -> None:
    facts.learn("Mira", "lives_in", "Paris", source_type="agent_run")
    refined = facts.learn("Mira", "lives_in", "Paris France", source_type="user_input")
    facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    facts.learn("Mira", "works_at", "the mill")  # invalidates
    pending = facts.learn("Tomas", "mood", "grumpy", source_type="webhook").fact
    doubtful = facts.learn("Tomas", "home", "the mill", source_type="webhook").fact
    assert pending is not None and doubtful is not None and refined.audit_id is not None
    facts.approve(pending.id)
    facts.reject(doubtful.id)
    facts.learn("Ada", "home", "the old mill house")
    facts.rollback_to(refined.audit_id)
    facts.learn("Bell", "rings_at", "dawn")
    facts.purge(max_entries=4)
    facts.learn("Bell", "made_of", "bronze")

    assert (
        facts.verify()
        == len(store.find_records(tenant, FACT_KIND))
        + len(store.find_records(tenant, AUDIT_KIND))
        + 1
    )
    log = facts.audit_log()
    assert [e.seq for e in log] == sorted(e.seq for e in log)
    assert any(e.rolled_back for e in log)


def test_versions_count_the_writes_of_a_fact(facts: FactMemory) -> None:
    fact = facts.learn("Tomas", "mood", "grumpy", source_type="webhook").fact
    assert fact is not None and fact.version == 1
    assert facts.approve(fact.id).version == 2
    newer = facts.learn("Tomas", "mood", "angry")  # more trusted: invalidates
    assert [f.version for f in newer.changed] == [3]


def test_the_log_verifies_after_a_reopen(
    mem: Memory, reopen: Callable[[], GraphStore], tenant: str
) -> None:
    facts = mem.fact_memory(actor="a", policy=GovernancePolicy(signing_key=KEY))
    history(facts)
    store = reopen()
    again = FactMemory(store, tenant, actor="a", policy=GovernancePolicy(signing_key=KEY))
    assert again.verify() == 4 + 4 + 1
    again.learn("Bell", "rings_at", "dawn")
    assert again.verify() == 5 + 5 + 1


# ------------------------------------------------------------------ one atomic write


class AuditWritesFail:
    """The real store, whose connection drops whenever a write carries an audit record."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def _refuse(self, records: Any) -> None:
        if any(getattr(r, "kind", None) == AUDIT_KIND for r in records):
            raise BackendUnavailable("connection lost")

    def put_records(self, tenant: str, kind: str, records: list[Record]) -> list[Record]:
        self._refuse(records)
        return self._store.put_records(tenant, kind, records)

    def write_records(self, tenant: str, put: Any = (), delete: Any = None) -> list[Record]:
        self._refuse(put)
        return self._store.write_records(tenant, put, delete)


def test_a_learn_and_its_audit_entry_are_one_write(store: GraphStore, tenant: str) -> None:
    flaky = FactMemory(AuditWritesFail(store), tenant, actor="a")  # type: ignore[arg-type]

    with pytest.raises(BackendUnavailable):
        flaky.learn("Mira", "works_at", "the forge")

    assert store.count_records(tenant, FACT_KIND) == 0  # no fact without its audit entry
    assert store.count_records(tenant, AUDIT_KIND) == 0


class NoAtomicWrites:
    """The real store, as a plugin backend without multi-kind atomic writes would be."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store
        self.calls: list[tuple[str, str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def write_records(self, tenant: str, put: Any = (), delete: Any = None) -> list[Record]:
        raise UnsupportedOperation("this backend writes one kind per call")

    def put_records(self, tenant: str, kind: str, records: list[Record]) -> list[Record]:
        self.calls.append(("put", kind))
        return self._store.put_records(tenant, kind, records)

    def delete_records(self, tenant: str, kind: str, ids: list[str]) -> int:
        self.calls.append(("delete", kind))
        return self._store.delete_records(tenant, kind, ids)


def test_without_atomic_writes_the_entry_comes_last(store: GraphStore, tenant: str) -> None:
    plain = NoAtomicWrites(store)
    facts = FactMemory(plain, tenant, actor="a", policy=GovernancePolicy(signing_key=KEY))  # type: ignore[arg-type]

    facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    facts.learn("Mira", "works_at", "the mill")

    assert plain.calls[-3:] == [("put", FACT_KIND), ("put", AUDIT_KIND), ("put", AUDIT_HEAD_KIND)]
    assert facts.verify() == 5
