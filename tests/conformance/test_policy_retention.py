"""Retention set by a governance policy, and forgetting one governed fact, on every backend."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from graphmem import (
    BackendUnavailable,
    FactMemory,
    GovernancePolicy,
    GraphStore,
    InvalidInput,
    Memory,
    NotFound,
    Record,
)
from graphmem.core.models import utcnow
from graphmem.policy.governance import AUDIT_HEAD_KIND, AUDIT_KIND, FACT_KIND


@pytest.mark.parametrize(
    "settings",
    [
        {"retention_max_age": timedelta(0)},
        {"retention_max_age": 30},
        {"retention_max_entries": 0},
        {"retention_max_entries": True},
    ],
)
def test_bad_retention_settings_are_invalid(settings: dict) -> None:
    with pytest.raises(InvalidInput):
        GovernancePolicy(**settings)


def test_no_retention_purges_nothing(mem: Memory) -> None:
    facts = mem.fact_memory(actor="gm")
    facts.learn("Mira", "works_at", "the forge")
    assert not facts.policy.retention
    assert facts.apply_retention() is None
    assert len(facts.facts()) == 1


def test_retention_purges_by_age_and_by_count(mem: Memory) -> None:
    policy = GovernancePolicy(retention_max_age=timedelta(days=30), retention_max_entries=2)
    facts = mem.fact_memory(actor="gm", policy=policy)
    for n in range(4):
        facts.learn(f"npc{n}", "lives_in", f"house {n}")

    result = facts.apply_retention()

    assert result is not None and result.facts == 2
    assert sorted(f.subject for f in facts.facts()) == ["npc2", "npc3"]
    later = facts.apply_retention(now=utcnow() + timedelta(days=31))
    assert later is not None and later.facts == 2
    assert facts.facts() == []


def test_forget_invalidates_audits_and_rolls_back(mem: Memory) -> None:
    facts = mem.fact_memory(actor="gm")
    learned = facts.learn("Mira", "works_at", "the forge")
    assert learned.fact is not None and learned.audit_id is not None

    forgotten = facts.forget(learned.fact.id)

    assert forgotten.status == "invalidated" and forgotten.invalid_at is not None
    assert facts.facts() == []
    assert [f.id for f in facts.facts(as_of=forgotten.invalid_at - timedelta(microseconds=1))] == [
        learned.fact.id
    ]
    entry = facts.audit_log()[-1]
    assert (entry.action, entry.detail["reason"]) == ("invalidate", "forgotten")
    with pytest.raises(InvalidInput):
        facts.forget(learned.fact.id)
    assert facts.rollback_to(learned.audit_id) == 1
    assert [f.id for f in facts.facts()] == [learned.fact.id]


def test_forget_sees_only_visible_facts(mem: Memory) -> None:
    mine = mem.fact_memory(actor="a").learn("Mira", "likes", "tea")
    assert mine.fact is not None
    with pytest.raises(NotFound):
        mem.fact_memory(actor="b").forget(mine.fact.id)
    with pytest.raises(NotFound):
        mem.fact_memory(actor="a").forget("no-such-fact")


# ------------------------------------------------------------------ the audit chain

KEY = b"r" * 32


class CountedWrites:
    """The real store, counting the write calls governance makes through it."""

    def __init__(self, store: GraphStore, *, fail_audit: bool = False) -> None:
        self._store = store
        self._fail_audit = fail_audit
        self.writes: list[list[str]] = []  # the kinds of each write_records call
        self.puts = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def put_records(self, tenant: str, kind: str, records: list[Record]) -> list[Record]:
        self.puts += 1
        return self._store.put_records(tenant, kind, records)

    def write_records(self, tenant: str, put: Any = (), delete: Any = None) -> list[Record]:
        self.writes.append(sorted({r.kind for r in put}))
        if self._fail_audit and any(r.kind == AUDIT_KIND for r in put):
            raise BackendUnavailable("connection lost")
        return self._store.write_records(tenant, put, delete)


def test_forget_is_one_signed_write_that_verify_accounts_for(
    store: GraphStore, tenant: str
) -> None:
    counted = CountedWrites(store)
    facts = FactMemory(counted, tenant, actor="gm", policy=GovernancePolicy(signing_key=KEY))  # type: ignore[arg-type]
    learned = facts.learn("Mira", "works_at", "the forge")
    facts.learn("Tomas", "mood", "grumpy")
    assert learned.fact is not None and learned.audit_id is not None
    counted.writes.clear()

    forgotten = facts.forget(learned.fact.id)

    assert counted.writes == [sorted([AUDIT_HEAD_KIND, AUDIT_KIND, FACT_KIND])]
    assert counted.puts == 0
    assert forgotten.version == 2  # a new signed version of the fact
    head = facts.audit_head()
    assert head is not None and head.entry_id == facts.audit_log()[-1].id
    assert facts.verify(anchor=head) == 2 + 3 + 1  # two facts, three entries, the head

    assert facts.rollback_to(learned.audit_id) == 2  # the forget and the second learn
    assert [f.id for f in facts.facts()] == [learned.fact.id]
    assert facts.verify(anchor=head) == 1 + 4 + 1


def test_a_forget_whose_audit_entry_is_lost_changes_nothing(store: GraphStore, tenant: str) -> None:
    facts = FactMemory(store, tenant, actor="gm", policy=GovernancePolicy(signing_key=KEY))
    learned = facts.learn("Mira", "works_at", "the forge")
    assert learned.fact is not None
    flaky = FactMemory(
        CountedWrites(store, fail_audit=True),  # type: ignore[arg-type]
        tenant,
        actor="gm",
        policy=GovernancePolicy(signing_key=KEY),
    )

    with pytest.raises(BackendUnavailable):
        flaky.forget(learned.fact.id)

    assert facts.get(learned.fact.id).status == "active"  # no fact without its entry
    assert facts.verify() == 1 + 1 + 1


def test_retention_keeps_the_chain_verifiable(mem: Memory, store: GraphStore, tenant: str) -> None:
    policy = GovernancePolicy(
        signing_key=KEY, retention_max_age=timedelta(days=30), retention_max_entries=3
    )
    facts = mem.fact_memory(actor="gm", policy=policy)
    for n in range(5):
        facts.learn(f"npc{n}", "lives_in", f"house {n}")
    doomed = facts.facts()[0]
    facts.forget(doomed.id)

    first = facts.apply_retention()
    # The cap keeps the invalidated fact and the entry that invalidated it (as_of history).
    assert first is not None and first.facts == 2 and first.audit_entries == 3
    anchor = facts.audit_head()
    later = facts.apply_retention(now=utcnow() + timedelta(days=31))
    assert later is not None and later.facts == 2 and later.audit_entries == 2

    stored = sum(len(store.find_records(tenant, kind)) for kind in (FACT_KIND, AUDIT_KIND))
    assert facts.verify(anchor=anchor) == stored + 1
    assert [e.action for e in facts.audit_log()][-2:] == ["purge", "purge"]
    assert facts.facts() == [] and facts.get(doomed.id).status == "invalidated"  # kept
