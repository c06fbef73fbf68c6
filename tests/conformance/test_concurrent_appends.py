"""Concurrent appends and batches keep one conversation on one branch (issue 29).

The store reads the head and moves it in the same transaction (``append_turn``,
``append_turns``), so single appends and whole batches from many threads, and from many
processes where a backend lets several processes write, form one linear chain: no
acknowledged turn falls off the active branch and nothing forks.
"""

from __future__ import annotations

import multiprocessing
import threading

import pytest

import graphmem
from graphmem import GraphStore, Memory, Turn

from .conftest import Harness


def _check_one_chain(store: GraphStore, tenant: str, session: str, acknowledged: list[str]) -> None:
    history = store.branch(tenant, session)
    every = store.list_turns(tenant, session)
    # Nothing forked: every stored turn is on the active branch, once.
    assert len(every) == len(history)
    assert history[0].parent_id is None
    assert [t.parent_id for t in history[1:]] == [t.id for t in history[:-1]]
    assert sorted(t.content for t in history) == sorted(acknowledged)
    times = [t.created_at for t in history]
    assert times == sorted(times) and len(set(times)) == len(times)


def _work(chat_of: object, n: int, rounds: int, acknowledged: list[str]) -> None:
    chat = chat_of("busy")  # type: ignore[operator]
    for i in range(rounds):
        if i % 3 == 2:
            batch = [{"role": "npc", "content": f"{n}-{i}-{j}"} for j in range(3)]
            acknowledged.extend(t.content for t in chat.extend(batch))
        else:
            acknowledged.append(chat.append("player", f"{n}-{i}").content)


def test_threads_appending_and_extending_stay_on_one_branch(
    mem: Memory, store: GraphStore, tenant: str
) -> None:
    acknowledged: list[str] = []
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            _work(mem.conversation, n, 12, acknowledged)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    assert len(acknowledged) == 8 * (8 + 4 * 3)
    _check_one_chain(store, tenant, "busy", acknowledged)


def test_a_batch_is_one_chain_after_the_head(store: GraphStore, tenant: str) -> None:
    first = store.append_turn(tenant, Turn(session_id="s", role="user", content="a"))
    batch = [Turn(session_id="s", role="npc", content=c) for c in ("b", "c")]
    # A parent the caller set is ignored: the store links the chain after the head.
    batch[0] = batch[0].model_copy(update={"parent_id": "somewhere"})

    stored = store.append_turns(tenant, "s", batch)

    assert [t.parent_id for t in stored] == [first.id, stored[0].id]
    assert store.head(tenant, "s") == stored[-1]
    assert [t.content for t in store.branch(tenant, "s")] == ["a", "b", "c"]
    assert store.append_turns(tenant, "s", []) == []


@pytest.mark.parametrize(
    "turns",
    [
        "not a list",
        [Turn(session_id="other", role="user", content="x")],
        [{"role": "user", "content": "x"}],
    ],
    ids=["string", "another session", "a dict"],
)
def test_a_bad_batch_writes_nothing(store: GraphStore, tenant: str, turns: object) -> None:
    store.append_turn(tenant, Turn(session_id="s", role="user", content="a"))

    with pytest.raises(graphmem.InvalidInput):
        store.append_turns(tenant, "s", turns)  # type: ignore[arg-type]

    assert [t.content for t in store.list_turns(tenant, "s")] == ["a"]


def test_a_taken_id_in_a_batch_writes_nothing(store: GraphStore, tenant: str) -> None:
    first = store.append_turn(tenant, Turn(session_id="s", role="user", content="a"))
    again = Turn(id=first.id, session_id="s", role="user", content="b")

    with pytest.raises(graphmem.InvalidInput):
        store.append_turns(tenant, "s", [Turn(session_id="s", role="user", content="c"), again])

    assert [t.content for t in store.list_turns(tenant, "s")] == ["a"]
    assert store.head(tenant, "s") == first


def _process(url: str, tenant: str, n: int, rounds: int, out: multiprocessing.Queue) -> None:
    acknowledged: list[str] = []
    with graphmem.open(url, tenant=tenant) as mem:
        _work(mem.conversation, n, rounds, acknowledged)
    out.put(acknowledged)


def test_processes_appending_and_extending_stay_on_one_branch(
    harness: Harness, store: GraphStore, tenant: str
) -> None:
    if not harness.spec.shared:
        pytest.skip(f"{harness.spec.id}:// has one writer process (it serves the others)")
    context = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = context.Queue()
    workers = [
        context.Process(target=_process, args=(harness.url, tenant, n, 9, out)) for n in range(3)
    ]
    for w in workers:
        w.start()
    acknowledged = [c for _ in workers for c in out.get(timeout=300)]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0

    assert len(acknowledged) == 3 * (6 + 3 * 3)
    _check_one_chain(store, tenant, "busy", acknowledged)
