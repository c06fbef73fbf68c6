"""Retention set by a governance policy, and forgetting one governed fact, on every backend."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graphmem import GovernancePolicy, InvalidInput, Memory, NotFound
from graphmem.models import utcnow


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
