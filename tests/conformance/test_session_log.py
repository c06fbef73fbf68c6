"""The session log: keyword search with filters, recent turns, counts, sessions, roles."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from graphmem import SPEAKER_ROLES, GraphStore, InvalidInput, Memory, Role, Turn, TurnFilter
from graphmem.core.models import utcnow

T0 = utcnow().replace(microsecond=0) - timedelta(days=1)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


@pytest.fixture
def log(mem: Memory) -> Memory:
    mem.conversation("alpha").extend(
        [
            {
                "role": "player",
                "speaker": "Ada",
                "content": "The dragon sleeps under the Old Mill",
                "created_at": at(0),
            },
            {
                "role": "gm",
                "speaker": "GM",
                "content": "Roll for perception near the mill",
                "created_at": at(1),
            },
            {
                "role": "gm_assistant",
                "speaker": "Bot",
                "content": "Reminder: the DRAGON hoards silver",
                "created_at": at(2),
            },
        ]
    )
    mem.conversation("beta").extend(
        [
            {
                "role": "player",
                "speaker": "Bren",
                "content": "I ask about the dragon's silver",
                "created_at": at(10),
            },
            {
                "role": "npc",
                "speaker": "Mira",
                "content": "Silver? Ask at the mill.",
                "created_at": at(11),
            },
            {
                "role": "player",
                "speaker": "Ada",
                "content": "Going to the mill",
                "created_at": at(12),
            },
        ]
    )
    return mem


def _contents(turns: list[Turn]) -> list[str]:
    return [t.content for t in turns]


def test_keywords_must_all_occur_case_insensitive(log: Memory) -> None:
    assert _contents(log.search_turns("dragon SILVER")) == [
        "I ask about the dragon's silver",
        "Reminder: the DRAGON hoards silver",
    ]


def test_single_keyword_matches_newest_first(log: Memory) -> None:
    assert _contents(log.search_turns("mill")) == [
        "Going to the mill",
        "Silver? Ask at the mill.",
        "Roll for perception near the mill",
        "The dragon sleeps under the Old Mill",
    ]


def test_no_match_is_empty(log: Memory) -> None:
    assert log.search_turns("unicorn") == []
    assert log.search_turns("dragon unicorn") == []


def test_filter_by_session(log: Memory) -> None:
    assert _contents(log.search_turns("mill", session_id="beta")) == [
        "Going to the mill",
        "Silver? Ask at the mill.",
    ]


def test_filter_by_speaker(log: Memory) -> None:
    assert _contents(log.search_turns(speaker="Ada")) == [
        "Going to the mill",
        "The dragon sleeps under the Old Mill",
    ]
    assert _contents(log.search_turns("dragon", speaker="Ada")) == [
        "The dragon sleeps under the Old Mill"
    ]


def test_filter_by_role(log: Memory) -> None:
    assert _contents(log.search_turns(role="gm")) == ["Roll for perception near the mill"]
    assert _contents(log.search_turns(role=Role.GM_ASSISTANT)) == [
        "Reminder: the DRAGON hoards silver"
    ]


def test_filter_by_time_range(log: Memory) -> None:
    found = log.search_turns(since=at(1), until=at(11))  # since inclusive, until exclusive

    assert _contents(found) == [
        "I ask about the dragon's silver",
        "Reminder: the DRAGON hoards silver",
        "Roll for perception near the mill",
    ]


def test_limit_keeps_the_newest(log: Memory) -> None:
    assert _contents(log.search_turns(limit=2)) == ["Going to the mill", "Silver? Ask at the mill."]
    assert _contents(log.search_turns("dragon", limit=1)) == ["I ask about the dragon's silver"]


def test_search_sees_every_branch(log: Memory) -> None:
    chat = log.conversation("alpha")
    root = chat.history()[0]
    chat.fork(root)
    chat.append("player", "A quiet branch about the dragon")

    found = log.search_turns("dragon", session_id="alpha")

    assert _contents(found) == [
        "A quiet branch about the dragon",
        "Reminder: the DRAGON hoards silver",
        "The dragon sleeps under the Old Mill",
    ]


def test_store_search_without_conditions_returns_all(
    log: Memory, store: GraphStore, tenant: str
) -> None:
    assert len(store.search_turns(tenant, TurnFilter())) == 6


def test_empty_search_text_is_invalid(log: Memory) -> None:
    with pytest.raises(InvalidInput):
        log.search_turns("   ")


def test_recent_turns_within_a_duration(log: Memory) -> None:
    log.conversation("gamma").append("player", "Just now")
    log.conversation("beta").append("npc", "Also now", speaker="Mira")

    assert _contents(log.recent_turns(timedelta(hours=1))) == ["Also now", "Just now"]
    assert _contents(log.recent_turns(timedelta(hours=1), session_id="gamma")) == ["Just now"]
    assert _contents(log.recent_turns(timedelta(hours=1), limit=1)) == ["Also now"]
    assert len(log.recent_turns(timedelta(days=2))) == 8


def test_recent_turns_needs_a_positive_duration(log: Memory) -> None:
    with pytest.raises(InvalidInput):
        log.recent_turns(timedelta(0))


def test_count_turns_per_session_and_in_all(log: Memory) -> None:
    assert log.count_turns("alpha") == 3
    assert log.count_turns("beta") == 3
    assert log.count_turns("nope") == 0
    assert log.count_turns() == 6


def test_sessions_newest_first_with_counts(log: Memory) -> None:
    gamma = log.conversation("gamma")
    first = gamma.append("player", "new session")
    gamma.append("npc", "hello")
    gamma.fork(first)

    sessions = log.sessions()

    assert [s.session_id for s in sessions] == ["gamma", "beta", "alpha"]
    assert [s.turn_count for s in sessions] == [2, 3, 3]
    alpha = sessions[2]
    assert (alpha.first_at, alpha.last_at) == (at(0), at(2))
    assert sessions[1].head_id == log.conversation("beta").head.id  # type: ignore[union-attr]
    assert sessions[0].head_id == first.id


def test_sessions_of_an_empty_tenant(mem: Memory) -> None:
    assert mem.sessions() == []
    assert mem.count_turns() == 0


def test_deleted_conversation_leaves_the_session_list(log: Memory) -> None:
    log.conversation("alpha").delete()

    assert [s.session_id for s in log.sessions()] == ["beta"]
    assert log.search_turns("hoards") == []


def test_speaker_roles() -> None:
    assert SPEAKER_ROLES == (Role.PLAYER, Role.GM, Role.GM_ASSISTANT)
    assert [str(r) for r in SPEAKER_ROLES] == ["player", "gm", "gm_assistant"]


@pytest.mark.parametrize("role", SPEAKER_ROLES)
def test_every_speaker_role_is_stored_and_searchable(mem: Memory, role: Role) -> None:
    turn = mem.conversation("game").append(role, f"spoken as {role.value}", speaker="x")

    assert turn.role == role.value
    assert mem.search_turns(role=role) == [turn]
