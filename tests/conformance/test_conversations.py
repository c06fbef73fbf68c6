"""Conversations: turns linked by PARENT, a head, forks, history, delete, dump/load."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Conversation, GraphStore, InvalidInput, Memory, NotFound, Turn

from .helpers import ids

LONG_AGO = datetime(2001, 1, 1, tzinfo=UTC)


def _contents(turns: list[Turn]) -> list[str]:
    return [t.content for t in turns]


@pytest.fixture
def chat(mem: Memory) -> Conversation:
    return mem.conversation("s1")


def test_first_append_is_the_root_and_head(chat: Conversation) -> None:
    assert chat.head is None
    assert chat.history() == []

    first = chat.append("player", "Hello?", speaker="Ada")

    assert first.parent_id is None
    assert first.session_id == "s1"
    assert (first.role, first.content, first.speaker) == ("player", "Hello?", "Ada")
    assert chat.head == first


def test_append_links_parent_to_previous_head(chat: Conversation) -> None:
    first = chat.append("player", "one")
    second = chat.append("npc", "two", speaker="Mira")
    third = chat.append("player", "three")

    assert second.parent_id == first.id
    assert third.parent_id == second.id
    assert chat.head == third


def test_append_keeps_every_field(chat: Conversation, store: GraphStore, tenant: str) -> None:
    turn = chat.append("gm", "The bell tolls.", speaker="GM", turn_id="msg-17", summary="bell")

    got = store.get_turn(tenant, turn.id)

    assert got == turn
    assert (got.turn_id, got.summary, got.role) == ("msg-17", "bell", "gm")


def test_store_append_sets_the_parent(store: GraphStore, tenant: str) -> None:
    first = store.append_turn(tenant, Turn(session_id="s", role="user", content="a"))
    second = store.append_turn(tenant, Turn(session_id="s", role="user", content="b"))

    assert first.parent_id is None
    assert second.parent_id == first.id
    assert store.head(tenant, "s") == second


def test_history_is_oldest_first(chat: Conversation) -> None:
    for word in ["one", "two", "three", "four"]:
        chat.append("player", word)

    assert _contents(chat.history()) == ["one", "two", "three", "four"]
    assert _contents(chat.history(limit=2)) == ["three", "four"]


def test_latest_returns_the_newest_oldest_first(chat: Conversation) -> None:
    for word in ["one", "two", "three", "four"]:
        chat.append("player", word)

    assert _contents(chat.latest()) == ["four"]
    assert _contents(chat.latest(3)) == ["two", "three", "four"]
    assert _contents(chat.latest(10)) == ["one", "two", "three", "four"]


def test_fork_moves_the_head_and_next_append_branches(chat: Conversation) -> None:
    first = chat.append("player", "Where is the smithy?")
    chat.append("npc", "By the river.")
    chat.append("player", "Thanks.")

    forked = chat.fork(first.id)
    assert forked == first
    assert chat.head == first
    assert _contents(chat.history()) == ["Where is the smithy?"]

    branch = chat.append("npc", "Ask the miller.")

    assert branch.parent_id == first.id
    assert _contents(chat.history()) == ["Where is the smithy?", "Ask the miller."]
    assert chat.count() == 4  # nothing lost by forking


def test_fork_back_to_the_old_branch(chat: Conversation) -> None:
    first = chat.append("player", "a")
    old_tip = chat.append("npc", "b")
    chat.fork(first)
    chat.append("npc", "c")

    chat.fork(old_tip)

    assert _contents(chat.history()) == ["a", "b"]


def test_fork_by_caller_turn_id(chat: Conversation) -> None:
    chat.append("player", "a", turn_id="m1")
    chat.append("npc", "b", turn_id="m2")
    chat.append("player", "c", turn_id="m3")

    forked = chat.fork("m2")

    assert forked.content == "b"
    assert _contents(chat.history()) == ["a", "b"]


def test_fork_to_unknown_turn_is_not_found(
    chat: Conversation, store: GraphStore, tenant: str
) -> None:
    chat.append("player", "a")

    with pytest.raises(NotFound):
        chat.fork("no-such-turn")
    with pytest.raises(NotFound):
        store.fork(tenant, "s1", "no-such-turn")

    assert _contents(chat.history()) == ["a"]


def test_fork_to_a_turn_of_another_conversation_is_invalid(
    mem: Memory, store: GraphStore, tenant: str
) -> None:
    ours = mem.conversation("ours")
    theirs = mem.conversation("theirs")
    ours.append("player", "mine")
    foreign = theirs.append("player", "theirs")

    with pytest.raises(InvalidInput):
        ours.fork(foreign.id)
    with pytest.raises(InvalidInput):
        store.fork(tenant, "ours", foreign.id)

    assert _contents(ours.history()) == ["mine"]
    assert _contents(theirs.history()) == ["theirs"]


def test_count_spans_every_branch(chat: Conversation) -> None:
    root = chat.append("player", "root")
    chat.append("npc", "a1")
    chat.append("npc", "a2")
    chat.fork(root)
    chat.append("npc", "b1")
    chat.fork(root)
    chat.append("npc", "c1")

    assert chat.count() == 5
    assert len(chat) == 5
    assert len(chat.turns()) == 5
    assert len(chat.history()) == 2


def test_turns_lists_every_branch_in_creation_order(chat: Conversation) -> None:
    root = chat.append("player", "root")
    chat.append("npc", "a1")
    chat.fork(root)
    chat.append("npc", "b1")

    assert _contents(chat.turns()) == ["root", "a1", "b1"]


def test_created_at_strictly_increases_along_a_branch(chat: Conversation) -> None:
    for i in range(60):
        chat.append("player", f"turn {i}")
    root = chat.history()[0]
    chat.fork(root)
    chat.append("npc", "branch")

    for turns in (chat.turns()[:60], chat.history()):
        stamps = [t.created_at for t in turns]
        assert all(a < b for a, b in zip(stamps, stamps[1:], strict=False)), stamps


def test_delete_turn_relinks_children_to_its_parent(chat: Conversation) -> None:
    first = chat.append("player", "one")
    second = chat.append("npc", "two")
    chat.append("player", "three")
    chat.fork(second)
    chat.append("player", "three-b")

    assert chat.delete_turn(second) is True

    assert chat.count() == 3
    assert _contents(chat.history()) == ["one", "three-b"]
    for turn in chat.turns():
        if turn.content.startswith("three"):
            assert turn.parent_id == first.id


def test_delete_head_moves_the_head_to_its_parent(chat: Conversation) -> None:
    chat.append("player", "one")
    second = chat.append("npc", "two")
    third = chat.append("player", "three")

    assert chat.delete_turn(third.id) is True

    assert chat.head == second
    assert chat.append("player", "again").parent_id == second.id


def test_delete_root_makes_its_child_the_root(chat: Conversation) -> None:
    first = chat.append("player", "one")
    chat.append("npc", "two")
    chat.append("player", "three")

    assert chat.delete_turn(first) is True

    history = chat.history()
    assert _contents(history) == ["two", "three"]
    assert history[0].parent_id is None


def test_delete_only_turn_empties_the_conversation(chat: Conversation) -> None:
    only = chat.append("player", "one")

    assert chat.delete_turn(only) is True

    assert chat.head is None
    assert chat.history() == []
    assert chat.count() == 0
    assert chat.append("player", "fresh").parent_id is None


def test_delete_missing_turn_returns_false(
    chat: Conversation, store: GraphStore, tenant: str
) -> None:
    chat.append("player", "one")

    assert chat.delete_turn("no-such-turn") is False
    assert store.delete_turn(tenant, "no-such-turn") is False
    assert chat.count() == 1


def test_delete_conversation(mem: Memory, store: GraphStore, tenant: str) -> None:
    chat = mem.conversation("gone")
    kept = mem.conversation("kept")
    root = chat.append("player", "a")
    chat.append("npc", "b")
    chat.fork(root)
    chat.append("npc", "c")
    kept.append("player", "stay")

    assert chat.delete() == 3

    assert chat.count() == 0 and chat.head is None
    with pytest.raises(NotFound):
        store.get_turn(tenant, root.id)
    assert _contents(kept.history()) == ["stay"]


def test_get_unknown_turn_is_not_found(store: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound) as info:
        store.get_turn(tenant, "no-such-turn")

    assert "no-such-turn" in str(info.value)


def test_max_history_caps_history(mem: Memory) -> None:
    capped = mem.conversation("s1", max_history=3)
    for i in range(7):
        capped.append("player", str(i))

    assert _contents(capped.history()) == ["4", "5", "6"]
    assert _contents(capped.history(limit=2)) == ["5", "6"]
    assert capped.count() == 7  # the cap limits reads, never storage
    assert _contents(mem.conversation("s1").history()) == [str(i) for i in range(7)]


def test_extend_builds_a_chain_after_the_head(chat: Conversation) -> None:
    first = chat.append("gm", "Session zero.")

    added = chat.extend(
        [
            {"role": "player", "content": "I enter.", "speaker": "Ada"},
            {"role": "npc", "content": "Welcome.", "speaker": "Mira", "turn_id": "m9"},
            Turn(session_id="ignored", role="player", content="Thanks."),
        ]
    )

    assert _contents(added) == ["I enter.", "Welcome.", "Thanks."]
    assert added[0].parent_id == first.id
    assert [t.parent_id for t in added[1:]] == ids(added[:2])
    assert all(t.session_id == "s1" for t in added)
    assert chat.head == added[-1]
    assert chat.history() == [first, *added]


def test_extend_keeps_given_times(chat: Conversation) -> None:
    added = chat.extend(
        [
            {"role": "player", "content": "a", "created_at": LONG_AGO},
            {"role": "player", "content": "b", "created_at": LONG_AGO + timedelta(minutes=1)},
        ]
    )

    assert [t.created_at for t in chat.history()] == [t.created_at for t in added]
    assert chat.history()[0].created_at == LONG_AGO


def test_extend_is_all_or_nothing(chat: Conversation) -> None:
    chat.append("gm", "start")

    with pytest.raises(InvalidInput):
        chat.extend([{"role": "player", "content": "ok"}, {"role": "not a role!", "content": "x"}])

    assert chat.count() == 1
    assert _contents(chat.history()) == ["start"]


def _branchy(chat: Conversation) -> None:
    root = chat.append("gm", "root", speaker="GM")
    chat.append("player", "a1", turn_id="m1")
    chat.append("npc", "a2", summary="s")
    chat.fork(root)
    chat.append("player", "b1")


def test_dump_and_load_round_trip_in_another_tenant(
    mem: Memory, store: GraphStore, new_tenant: Callable[[], str]
) -> None:
    chat = mem.conversation("s1")
    _branchy(chat)
    data = chat.dump()
    other = Memory(store, new_tenant(), owns_store=False)

    loaded = other.load_conversation(data)

    assert loaded.session_id == "s1"
    assert loaded.turns() == chat.turns()
    assert loaded.head == chat.head
    assert loaded.history() == chat.history()
    assert loaded.dump() == data


def test_load_under_another_session_copies_the_tree(mem: Memory) -> None:
    chat = mem.conversation("s1")
    _branchy(chat)

    copy = mem.load_conversation(chat.dump(), session_id="s2")

    assert copy.session_id == "s2"
    assert copy.count() == 4
    assert _contents(copy.history()) == ["root", "b1"]
    assert not set(ids(copy.turns())) & set(ids(chat.turns()))
    parents = {t.content: t.parent_id for t in copy.turns()}
    by_content = {t.content: t.id for t in copy.turns()}
    assert parents == {
        "root": None,
        "a1": by_content["root"],
        "a2": by_content["a1"],
        "b1": by_content["root"],
    }
    assert all(t.session_id == "s2" for t in copy.turns())
    # The original is untouched, and the copy branches on its own.
    copy.fork(by_content["a2"])
    copy.append("npc", "a3")
    assert _contents(chat.history()) == ["root", "b1"]
    assert chat.count() == 4


def test_load_into_a_non_empty_session_is_invalid(mem: Memory) -> None:
    chat = mem.conversation("s1")
    _branchy(chat)
    target = mem.conversation("s2")
    target.append("player", "already here")

    with pytest.raises(InvalidInput):
        mem.load_conversation(chat.dump(), session_id="s2")
    with pytest.raises(InvalidInput):
        mem.load_conversation(chat.dump())

    assert _contents(target.turns()) == ["already here"]
    assert chat.count() == 4


def test_load_rejects_ids_already_in_the_store(mem: Memory, store: GraphStore, tenant: str) -> None:
    chat = mem.conversation("s1")
    _branchy(chat)
    data = chat.dump()
    data["session_id"] = "s2"
    data["turns"] = [dict(t, session_id="s2") for t in data["turns"]]
    # Same session id in the dump as the target, so ids are kept: they clash with s1's.

    with pytest.raises(InvalidInput):
        mem.load_conversation(data)

    assert store.count_turns(tenant, "s2") == 0
    assert store.count_turns(tenant) == 4


def test_concurrent_appends_lose_nothing(mem: Memory) -> None:
    threads_n, per_thread = 8, 25
    errors: list[BaseException] = []

    def work(n: int) -> None:
        chat = mem.conversation("busy")
        try:
            for i in range(per_thread):
                chat.append("player", f"{n}-{i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    chat = mem.conversation("busy")
    history = chat.history()
    assert chat.count() == threads_n * per_thread
    # Every append saw the previous head: one linear chain, no lost or forked turn.
    assert len(history) == threads_n * per_thread
    assert history[0].parent_id is None
    assert [t.parent_id for t in history[1:]] == ids(history[:-1])
    assert sorted(_contents(history)) == sorted(
        f"{n}-{i}" for n in range(threads_n) for i in range(per_thread)
    )
    for n in range(threads_n):  # each thread's own turns stay in its order
        mine = [t.content for t in history if t.content.startswith(f"{n}-")]
        assert mine == [f"{n}-{i}" for i in range(per_thread)]
