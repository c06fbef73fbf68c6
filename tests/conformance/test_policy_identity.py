"""Identity parts of the policy layer are printable names; session facts are shared by session.

Issue 17, item 6: ``user``, ``session`` (conversation memory), ``actor`` and ``session``
(fact memory) and the tenant pass the same printable-name check as tenants; a value made
of a zero-width space, NUL, a BOM or the Hangul filler is refused (``InvalidInput``), is
published as ``memory.identity_rejected`` (names only), and writes nothing.
"""

from __future__ import annotations

import pytest
from printable_cases import NOT_PRINTABLE_TENANTS

from graphmem import EventBus, FactMemory, GraphStore, IdentityRequired, InvalidInput, Memory
from graphmem.core.events import Event
from graphmem.policy.governance import AUDIT_KIND, FACT_KIND
from graphmem.policy.identity import require_identity

# The four the issue names first, then the rest of the shared table.
ISSUE_VALUES = {
    "zero-width space": "\u200b",
    "NUL": "ada\x00",
    "byte order mark": "\ufeffada",
    "Hangul filler": "\u3164",
}
BAD = {**ISSUE_VALUES, **NOT_PRINTABLE_TENANTS}


def events(bus: EventBus) -> list[Event]:
    seen: list[Event] = []
    bus.subscribe("*", seen.append)
    return seen


def nothing_written(mem: Memory) -> bool:
    return (
        mem.count_turns() == 0
        and mem.store.count_records(mem.tenant, FACT_KIND) == 0
        and mem.store.count_records(mem.tenant, AUDIT_KIND) == 0
    )


@pytest.mark.parametrize("part", ["user", "session"])
@pytest.mark.parametrize("name", sorted(BAD))
def test_conversation_identity_parts_must_be_printable(mem: Memory, part: str, name: str) -> None:
    bus = EventBus()
    seen = events(bus)
    parts = {"user": "ada", "session": "evening", part: BAD[name]}

    with pytest.raises(InvalidInput) as info:
        mem.conversation_memory(**parts, bus=bus)

    assert info.value.invalid == (part,)
    assert part in str(info.value)
    [event] = seen
    assert event.name == "memory.identity_rejected"
    assert dict(event.payload) == {
        "operation": "conversation_memory",
        "missing": [],
        "invalid": [part],
    }
    assert nothing_written(mem)


def test_the_issue_session_id_cannot_be_made(mem: Memory) -> None:
    # `policy:%E2%80%8B:s` was the session id of user "\u200b", session "s".
    with pytest.raises(InvalidInput):
        mem.conversation_memory(user="\u200b", session="s")
    assert all(not s.session_id.startswith("policy:%E2%80%8B") for s in mem.sessions())


def test_a_bad_run_id_is_refused_and_a_blank_one_is_none(mem: Memory) -> None:
    with pytest.raises(InvalidInput) as info:
        mem.conversation_memory(user="ada", session="s", run_id="run\u200b1")
    assert info.value.invalid == ("run_id",)
    assert mem.conversation_memory(user="ada", session="s", run_id="  ").identity.run_id is None


def test_missing_and_invalid_together_fail_closed_as_missing() -> None:
    bus = EventBus()
    seen = events(bus)
    with pytest.raises(IdentityRequired) as info:
        require_identity("op", tenant="t", user="", session="\u3164", bus=bus)
    assert info.value.missing == ("user",)
    assert dict(seen[0].payload) == {"operation": "op", "missing": ["user"], "invalid": ["session"]}


def test_events_and_errors_never_carry_the_values(mem: Memory) -> None:
    bus = EventBus()
    seen = events(bus)
    with pytest.raises(InvalidInput) as info:
        mem.conversation_memory(user="secret-name\x00", session="s", bus=bus)
    assert "secret-name" not in repr(dict(seen[0].payload))
    assert "secret-name" not in str(info.value)


@pytest.mark.parametrize("part", ["actor", "session"])
@pytest.mark.parametrize("name", sorted(BAD))
def test_fact_identity_parts_must_be_printable(mem: Memory, part: str, name: str) -> None:
    bus = EventBus()
    seen = events(bus)
    parts = {"actor": "quest-agent", "session": "s1", part: BAD[name]}

    with pytest.raises(InvalidInput) as info:
        mem.fact_memory(**parts, bus=bus)
    with pytest.raises(InvalidInput):
        mem.learn("Mira", "mood", "calm", **parts, bus=bus)

    assert info.value.invalid == (part,)
    assert dict(seen[0].payload) == {"operation": "fact_memory", "missing": [], "invalid": [part]}
    assert nothing_written(mem)


@pytest.mark.parametrize("name", sorted(ISSUE_VALUES))
def test_fact_memory_checks_its_tenant(store: GraphStore, name: str) -> None:
    with pytest.raises(InvalidInput):
        FactMemory(store, ISSUE_VALUES[name], actor="a")
    with pytest.raises(IdentityRequired):
        FactMemory(store, " ", actor="a")


def test_a_blank_session_is_no_session(mem: Memory) -> None:
    assert mem.fact_memory(actor="a", session="  ").session is None


# ------------------------------------------------------------------ who reads session facts


def test_session_facts_are_shared_by_every_actor_of_the_session(mem: Memory) -> None:
    """The documented decision (docs/policy.md, "Identity"): a session-scoped fact belongs
    to the session, not to its writer. Actors and sessions are labels inside a tenant, not
    credentials; the tenant is the access boundary."""
    writer = mem.fact_memory(actor="quest-agent", session="scene-4")
    written = writer.learn("Mira", "seen_at", "the well", scope="session")
    assert written.fact is not None

    same_session = mem.fact_memory(actor="bard-agent", session="scene-4")
    other_session = mem.fact_memory(actor="quest-agent", session="scene-5")
    no_session = mem.fact_memory(actor="quest-agent")

    assert [f.value for f in same_session.facts()] == ["the well"]
    assert same_session.get(written.fact.id).actor == "quest-agent"
    assert [s.fact.value for s in same_session.recall("where was Mira seen")] == ["the well"]
    assert other_session.facts() == [] and no_session.facts() == []

    # One truth per session: the other actor's write consolidates with the writer's fact.
    again = same_session.learn("Mira", "seen_at", "the well", scope="session")
    assert again.decision.value == "no_op" and again.fact == written.fact


def test_session_facts_stay_inside_their_tenant(mem: Memory, store: GraphStore) -> None:
    mem.fact_memory(actor="a", session="scene-4").learn("Mira", "seen_at", "well", scope="session")
    other = Memory(store, tenant=f"{mem.tenant}-other")
    try:
        assert other.fact_memory(actor="a", session="scene-4").facts() == []
    finally:
        store.clear(other.tenant)
