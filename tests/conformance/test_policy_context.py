"""Conversation memory strategies, identity, health, snapshots and threads, on every backend."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence

import pytest

from graphmem import (
    ConversationMemory,
    EventBus,
    HealthState,
    IdentityRequired,
    InvalidInput,
    InvalidSnapshot,
    Memory,
    StoreClosed,
    Turn,
    estimate_tokens,
)
from graphmem.core.events import Event
from graphmem.policy.identity import MemoryIdentity


class FlakySummarizer:
    """A real summarizer that fails while ``down`` is set (the LLM is unreachable)."""

    def __init__(self) -> None:
        self.down = False
        self.calls = 0

    def summarize(self, previous: str, evicted: Sequence[Turn]) -> str:
        self.calls += 1
        if self.down:
            raise ConnectionError("summarizer service unreachable")
        lines = [previous] if previous else []
        lines.extend(f"{t.role}: {t.summary}" for t in evicted)
        return "\n".join(lines)


class FailsOnceSummarizer(FlakySummarizer):
    """Fails on its first call only."""

    def summarize(self, previous: str, evicted: Sequence[Turn]) -> str:
        self.down = self.calls == 0
        return super().summarize(previous, evicted)


def events(bus: EventBus, pattern: str = "*") -> list[Event]:
    seen: list[Event] = []
    bus.subscribe(pattern, seen.append)
    return seen


# ------------------------------------------------------------------ identity


@pytest.mark.parametrize(
    ("user", "session", "missing"),
    [
        (None, "s", ["user"]),
        ("", "s", ["user"]),
        ("u", "   ", ["session"]),
        (None, None, ["user", "session"]),
    ],
)
def test_missing_identity_fails_closed_and_is_published(
    mem: Memory, user: str | None, session: str | None, missing: list[str]
) -> None:
    bus = EventBus()
    seen = events(bus)

    with pytest.raises(IdentityRequired) as info:
        mem.conversation_memory(user=user, session=session, bus=bus)  # type: ignore[arg-type]

    assert list(info.value.missing) == missing
    [event] = seen
    assert event.name == "memory.identity_rejected"
    assert dict(event.payload) == {
        "operation": "conversation_memory",
        "missing": missing,
        "invalid": [],
    }
    assert mem.count_turns() == 0


def test_identity_rejection_never_carries_values(mem: Memory) -> None:
    bus = EventBus()
    seen = events(bus)
    with pytest.raises(IdentityRequired):
        mem.conversation_memory(user="secret-user-name", session="", bus=bus)
    assert "secret-user-name" not in repr(dict(seen[0].payload))


def test_turns_live_in_a_conversation_keyed_by_user_and_session(mem: Memory) -> None:
    a = mem.conversation_memory(user="ada:1", session="s", strategy="truncation")
    b = mem.conversation_memory(user="ada", session="1:s", strategy="truncation")
    a.append("user", "from a")
    b.append("user", "from b")

    assert a.identity.session_id != b.identity.session_id
    assert [t.content for t in mem.conversation(a.identity.session_id).history()] == ["from a"]
    assert [t.content for t in mem.conversation(b.identity.session_id).history()] == ["from b"]
    assert a.identity.session_id == "policy:ada%3A1:s"


def test_run_id_is_optional_and_not_part_of_the_key(mem: Memory) -> None:
    one = mem.conversation_memory(user="u", session="s", run_id="run-1")
    two = mem.conversation_memory(user="u", session="s")
    assert one.identity.run_id == "run-1" and two.identity.run_id is None
    assert one.identity.session_id == two.identity.session_id


# ------------------------------------------------------------------ bad arguments


@pytest.mark.parametrize("strategy", ["", "summary", "ROLLING_SUMMARY", "none "])
def test_unknown_strategy_is_invalid(mem: Memory, strategy: str) -> None:
    with pytest.raises(InvalidInput):
        mem.conversation_memory(user="u", session="s", strategy=strategy)


@pytest.mark.parametrize("field", ["max_tokens", "window_turns"])
@pytest.mark.parametrize("value", [0, -5])
def test_budgets_must_be_positive(mem: Memory, field: str, value: int) -> None:
    with pytest.raises(InvalidInput):
        mem.conversation_memory(user="u", session="s", **{field: value})  # type: ignore[arg-type]


# ------------------------------------------------------------------ strategies


def test_none_stores_nothing_and_gives_an_empty_context(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", strategy="none")

    assert chat.append("user", "hello there") is None
    ctx = chat.llm_context()
    assert (ctx.strategy, ctx.summary, ctx.turns, ctx.token_estimate) == ("none", "", (), 0)
    assert chat.estimate_tokens() == 0
    assert mem.count_turns() == 0


def test_turns_are_stored_with_a_deterministic_summary(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", strategy="truncation")
    content = "Sure, I'll help with that. The **mill** is north of the river."

    turn = chat.append("assistant", content, speaker="Mira")

    assert turn is not None
    stored = mem.conversation(chat.identity.session_id).history()
    assert [(t.content, t.summary, t.speaker) for t in stored] == [
        (content, "The mill is north of the river.", "Mira")
    ]


def test_truncation_keeps_the_newest_turns_that_fit(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", strategy="truncation", max_tokens=10)
    for text in ["aaaa aaaa", "bbbb bbbb", "cccc cccc", "dddd dddd"]:  # 3 tokens each
        chat.append("user", text)

    ctx = chat.llm_context()

    assert [t.content for t in ctx.turns] == ["bbbb bbbb", "cccc cccc", "dddd dddd"]
    assert ctx.token_estimate == 9 <= 10
    assert ctx.summary == "" and ctx.mode == "truncation"
    assert mem.count_turns() == 4  # nothing is deleted from the store


def test_truncation_respects_window_turns(mem: Memory) -> None:
    chat = mem.conversation_memory(
        user="u", session="s", strategy="truncation", max_tokens=1000, window_turns=2
    )
    for i in range(5):
        chat.append("user", f"turn {i}")
    assert [t.content for t in chat.llm_context().turns] == ["turn 3", "turn 4"]


def test_a_turn_bigger_than_the_budget_is_left_out(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", strategy="truncation", max_tokens=5)
    chat.append("user", "x" * 100)
    assert chat.llm_context().turns == ()
    assert chat.estimate_tokens() == 0


def test_rolling_summary_folds_evicted_turns(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", max_tokens=400, window_turns=2)
    chat.append("user", "Where is the smithy?")
    chat.append("assistant", "Sure! The smithy is by the river.", speaker="Mira")
    chat.append("user", "And the mill?")
    chat.append("assistant", "North, past the bridge.", speaker="Mira")

    ctx = chat.llm_context()

    assert ctx.mode == "rolling_summary"
    assert ctx.summary == "user: Where is the smithy?\nMira: The smithy is by the river."
    assert [t.content for t in ctx.turns] == ["And the mill?", "North, past the bridge."]
    assert ctx.token_estimate == estimate_tokens(ctx.summary) + sum(
        estimate_tokens(t.content) for t in ctx.turns
    )
    assert chat.summarized_turns == 2


def test_rolling_summary_stays_within_budget(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", max_tokens=60, window_turns=3)
    for i in range(40):
        chat.append("user", f"Message number {i} about the harvest festival in the village.")
        assert chat.estimate_tokens() <= 60
    ctx = chat.llm_context()
    assert estimate_tokens(ctx.summary) <= chat.summary_budget
    assert ctx.summary.split("\n")[-1].startswith("user: Message number 36")


def test_llm_context_messages(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", max_tokens=400, window_turns=1)
    chat.append("user", "Hello.")
    chat.append("assistant", "Welcome.")
    assert chat.llm_context().to_messages() == [
        {"role": "system", "content": "Summary of the conversation so far:\nuser: Hello."},
        {"role": "assistant", "content": "Welcome."},
    ]


def test_a_new_memory_picks_up_stored_turns(mem: Memory) -> None:
    first = mem.conversation_memory(user="u", session="s", strategy="truncation")
    for i in range(3):
        first.append("user", f"turn {i}")
    again = mem.conversation_memory(user="u", session="s", strategy="truncation")
    assert [t.content for t in again.llm_context().turns] == ["turn 0", "turn 1", "turn 2"]


# ------------------------------------------------------------------ health


def _rolling(mem: Memory, summarizer: object, bus: EventBus, **kw: object) -> ConversationMemory:
    options: dict[str, object] = {"max_tokens": 400, "window_turns": 2, **kw}
    return mem.conversation_memory(
        user="u",
        session="s",
        summarizer=summarizer,  # type: ignore[arg-type]
        bus=bus,
        **options,  # type: ignore[arg-type]
    )


def test_one_failure_retries_and_recovers(mem: Memory) -> None:
    bus = EventBus()
    seen = events(bus, "memory.health_changed")
    chat = _rolling(mem, FailsOnceSummarizer(), bus)
    for i in range(3):
        chat.append("user", f"turn {i}.")

    assert chat.health is HealthState.HEALTHY
    assert [(e.payload["from"], e.payload["to"], e.payload["reason"]) for e in seen] == [
        ("healthy", "retry", "summarizer_failed"),
        ("retry", "healthy", "retry_succeeded"),
    ]
    assert chat.llm_context().summary == "user: turn 0."


def test_repeated_failures_degrade_to_truncation_then_recover(mem: Memory) -> None:
    bus = EventBus()
    seen = events(bus, "memory.health_changed")
    summarizer = FlakySummarizer()
    chat = _rolling(mem, summarizer, bus, recovery_interval=100)
    chat.append("user", "turn 0.")
    chat.append("user", "turn 1.")
    chat.append("user", "turn 2.")  # evicts turn 0: healthy
    summarizer.down = True
    chat.append("user", "turn 3.")  # evicts turn 1: fails twice

    assert chat.health is HealthState.DEGRADED
    ctx = chat.llm_context()
    assert ctx.mode == "truncation" and ctx.summary == ""
    assert [t.content for t in ctx.turns] == ["turn 1.", "turn 2.", "turn 3."]
    assert chat.backlog_turns == 1

    assert chat.flush() is HealthState.DEGRADED  # still down: recovery fails
    summarizer.down = False
    assert chat.flush() is HealthState.HEALTHY

    assert chat.llm_context().summary == "user: turn 0.\nuser: turn 1."
    assert chat.backlog_turns == 0
    assert [(e.payload["from"], e.payload["to"]) for e in seen] == [
        ("healthy", "retry"),
        ("retry", "degraded"),
        ("degraded", "recovering"),
        ("recovering", "degraded"),
        ("degraded", "recovering"),
        ("recovering", "healthy"),
    ]
    assert all(e.payload["conversation"] == chat.identity.key_hash for e in seen)


def test_recovery_is_tried_automatically_after_some_appends(mem: Memory) -> None:
    bus = EventBus()
    summarizer = FlakySummarizer()
    chat = _rolling(mem, summarizer, bus, recovery_interval=2, max_retries=0)
    summarizer.down = True
    for i in range(3):
        chat.append("user", f"turn {i}.")
    assert chat.health is HealthState.DEGRADED
    summarizer.down = False
    chat.append("user", "turn 3.")
    assert chat.health is HealthState.DEGRADED  # one append since degrading
    chat.append("user", "turn 4.")
    assert chat.health is HealthState.HEALTHY
    assert chat.llm_context().summary == "user: turn 0.\nuser: turn 1.\nuser: turn 2."


def test_backlog_overflow_drops_the_oldest_batch(mem: Memory) -> None:
    bus = EventBus()
    dropped = events(bus, "memory.recovery_dropped")
    summarizer = FlakySummarizer()
    summarizer.down = True
    chat = _rolling(mem, summarizer, bus, window_turns=1, max_backlog=2, recovery_interval=99)
    for i in range(5):
        chat.append("user", f"turn {i}.")  # evicts turns 0..3, one batch each

    assert chat.backlog_turns == 2
    assert chat.dropped_turns == 2
    assert [dict(e.payload)["dropped_turns"] for e in dropped] == [1, 1]
    summarizer.down = False
    chat.flush()
    assert chat.llm_context().summary == "user: turn 2.\nuser: turn 3."


def test_a_summarizer_returning_garbage_counts_as_a_failure(mem: Memory) -> None:
    chat = _rolling(mem, lambda previous, evicted: 42, EventBus(), max_retries=0)
    for i in range(3):
        chat.append("user", f"turn {i}.")
    assert chat.health is HealthState.DEGRADED


def test_health_is_always_healthy_without_a_summary(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", strategy="truncation")
    chat.append("user", "x")
    assert chat.health is HealthState.HEALTHY
    assert chat.flush() is HealthState.HEALTHY


# ------------------------------------------------------------------ snapshots


def test_snapshot_round_trip_brings_the_summary_back_verbatim(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", max_tokens=400, window_turns=2)
    for i in range(5):
        chat.append("user", f"Message {i}: the **harvest** is near.")
    snap = json.loads(json.dumps(chat.snapshot()))
    before = chat.llm_context()

    class Exploding:
        def summarize(self, previous: str, evicted: Sequence[Turn]) -> str:
            raise AssertionError("restore must not summarise again")

    other = mem.conversation_memory(user="u", session="s", summarizer=Exploding())
    other.restore(json.dumps(snap))

    after = other.llm_context()
    assert after.summary == before.summary == snap["summary"]
    assert [t.id for t in after.turns] == [t.id for t in before.turns]
    assert snap["format"] == "graphmem.conversation_memory" and snap["version"] == 1


def test_snapshot_keeps_degraded_state_and_backlog(mem: Memory) -> None:
    summarizer = FlakySummarizer()
    summarizer.down = True
    chat = _rolling(mem, summarizer, EventBus(), recovery_interval=99)
    for i in range(4):
        chat.append("user", f"turn {i}.")
    snap = chat.snapshot()

    fresh = _rolling(mem, FlakySummarizer(), EventBus())
    fresh.restore(snap)

    assert fresh.health is HealthState.DEGRADED
    assert fresh.backlog_turns == chat.backlog_turns == 2
    assert fresh.flush() is HealthState.HEALTHY


@pytest.mark.parametrize(
    "bad",
    [
        "not json",
        "[]",
        {"format": "other", "version": 1},
        {"format": "graphmem.conversation_memory", "version": 99},
        {"format": "graphmem.conversation", "version": 1, "turns": []},
    ],
)
def test_snapshots_that_are_not_ours_are_rejected(mem: Memory, bad: object) -> None:
    chat = mem.conversation_memory(user="u", session="s")
    with pytest.raises(InvalidSnapshot):
        chat.restore(bad)  # type: ignore[arg-type]


def test_restore_into_another_strategy_is_rejected(mem: Memory) -> None:
    rolling = mem.conversation_memory(user="u", session="s")
    rolling.append("user", "hello")
    truncation = mem.conversation_memory(user="u", session="s", strategy="truncation")
    with pytest.raises(InvalidSnapshot):
        truncation.restore(rolling.snapshot())
    with pytest.raises(InvalidSnapshot):
        rolling.restore(truncation.snapshot())


def test_non_empty_snapshot_into_none_is_rejected(mem: Memory) -> None:
    none = mem.conversation_memory(user="u", session="s", strategy="none")
    empty = none.snapshot()
    none.restore(empty)  # an empty one is fine
    tampered = dict(empty, summary="user: something")
    with pytest.raises(InvalidSnapshot):
        none.restore(tampered)
    with pytest.raises(InvalidSnapshot):
        none.restore(mem.conversation_memory(user="u", session="s").snapshot())


def test_snapshot_of_another_conversation_is_rejected(mem: Memory) -> None:
    theirs = mem.conversation_memory(user="eve", session="s")
    theirs.append("user", "private talk")
    mine = mem.conversation_memory(user="u", session="s")
    with pytest.raises(InvalidSnapshot):
        mine.restore(theirs.snapshot())


def test_a_bad_turn_in_a_snapshot_changes_nothing(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s", max_tokens=400, window_turns=1)
    chat.append("user", "one")
    chat.append("user", "two")
    snap = chat.snapshot()
    before = chat.llm_context()
    broken = dict(snap, summary="new", window=[{"role": "user"}])
    with pytest.raises(InvalidSnapshot):
        chat.restore(broken)
    assert chat.llm_context() == before


def test_the_snapshot_holds_no_identity_values(mem: Memory) -> None:
    chat = mem.conversation_memory(user="user-name-xyz", session="session-xyz")
    text = json.dumps(chat.snapshot())
    assert "user-name-xyz" not in text


# ------------------------------------------------------------------ close and threads


def test_every_call_after_close_raises(mem: Memory) -> None:
    chat = mem.conversation_memory(user="u", session="s")
    chat.append("user", "x")
    chat.close()
    chat.close()
    calls = [
        lambda: chat.append("user", "y"),
        chat.llm_context,
        chat.estimate_tokens,
        chat.flush,
        chat.snapshot,
        lambda: chat.restore({}),
        lambda: chat.health,
    ]
    for call in calls:
        with pytest.raises(StoreClosed):
            call()
    assert mem.count_turns() == 1


@pytest.mark.parametrize("strategy", ["truncation", "rolling_summary"])
def test_concurrent_appends_from_several_threads(mem: Memory, strategy: str) -> None:
    chat = mem.conversation_memory(
        user="u", session="s", strategy=strategy, max_tokens=100_000, window_turns=5
    )
    threads_n, per_thread = 6, 25
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(per_thread):
                chat.append("user", f"w{worker} m{i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    total = threads_n * per_thread
    history = mem.conversation(chat.identity.session_id).history()
    assert len(history) == total == mem.count_turns()
    assert sorted(t.content for t in history) == sorted(
        f"w{w} m{i}" for w in range(threads_n) for i in range(per_thread)
    )
    ctx = chat.llm_context()
    assert [t.id for t in ctx.turns] == [t.id for t in history[-5:]]
    if strategy == "rolling_summary":
        assert chat.summarized_turns == total - 5
        lines = ctx.summary.split("\n")
        assert lines == [f"user: {t.content}" for t in history[: total - 5]]


def test_identity_value_type() -> None:
    identity = MemoryIdentity("t", "u", "s")
    assert identity.key_hash == MemoryIdentity("t", "u", "s", run_id="r").key_hash
    assert identity.key_hash != MemoryIdentity("t2", "u", "s").key_hash
