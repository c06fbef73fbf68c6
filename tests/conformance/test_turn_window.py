"""``turn_window``: a turn with the turns next to it along PARENT, in one call."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem import GraphStore, InvalidInput, Memory, Turn

T0 = datetime(2024, 1, 5, 9, 0, tzinfo=UTC)


def _chain(mem: Memory, session: str, words: list[str]) -> list[Turn]:
    chat = mem.conversation(session)
    return [
        chat.append("user", word, speaker="Ada", created_at=T0 + timedelta(minutes=i))
        for i, word in enumerate(words)
    ]


def _words(turns: list[Turn]) -> list[str]:
    return [t.content for t in turns]


def test_window_of_one_turn_in_a_chain(mem: Memory, store: GraphStore, tenant: str) -> None:
    turns = _chain(mem, "s", ["a", "b", "c", "d", "e", "f"])

    assert _words(store.turn_window(tenant, [turns[2].id], depth=1)) == ["b", "c", "d"]
    assert _words(store.turn_window(tenant, [turns[2].id], depth=2)) == ["a", "b", "c", "d", "e"]
    assert _words(store.turn_window(tenant, [turns[2].id], depth=0)) == ["c"]
    assert _words(store.turn_window(tenant, [turns[0].id], depth=8)) == list("abcdef")


def test_windows_of_several_turns_are_merged_once_each_in_time_order(
    mem: Memory, store: GraphStore, tenant: str
) -> None:
    turns = _chain(mem, "s", ["a", "b", "c", "d", "e", "f", "g"])

    got = store.turn_window(tenant, [turns[5].id, turns[1].id, turns[2].id, "nope"], depth=1)

    assert _words(got) == ["a", "b", "c", "d", "e", "f", "g"]
    assert got[1] == turns[1]  # whole turns, parent ids included
    assert got[1].parent_id == turns[0].id


def test_window_follows_every_branch_forward_but_not_siblings(
    mem: Memory, store: GraphStore, tenant: str
) -> None:
    chat = mem.conversation("s")
    root = chat.append("user", "root", created_at=T0)
    fork = chat.append("user", "fork", created_at=T0 + timedelta(minutes=1))
    left = chat.append("user", "left", created_at=T0 + timedelta(minutes=2))
    chat.fork(fork)
    right = chat.append("user", "right", created_at=T0 + timedelta(minutes=3))

    assert _words(store.turn_window(tenant, [fork.id])) == ["root", "fork", "left", "right"]
    assert _words(store.turn_window(tenant, [left.id])) == ["fork", "left"]
    assert _words(store.turn_window(tenant, [root.id], depth=2)) == [
        "root",
        "fork",
        "left",
        "right",
    ]
    assert right.parent_id == fork.id


def test_window_stays_in_its_conversation_and_tenant(
    mem: Memory, store: GraphStore, tenant: str, new_tenant: object
) -> None:
    first = _chain(mem, "s1", ["a", "b"])
    _chain(mem, "s2", ["x", "y"])

    assert _words(store.turn_window(tenant, [first[1].id], depth=3)) == ["a", "b"]
    assert store.turn_window(new_tenant(), [first[1].id]) == []  # type: ignore[operator]
    assert store.turn_window(tenant, []) == []


@pytest.mark.parametrize("depth", [-1, 9, 1.5, True, "1"])
def test_window_depth_is_checked(
    mem: Memory, store: GraphStore, tenant: str, depth: object
) -> None:
    turns = _chain(mem, "s", ["a"])

    with pytest.raises(InvalidInput, match="depth"):
        store.turn_window(tenant, [turns[0].id], depth=depth)  # type: ignore[arg-type]
