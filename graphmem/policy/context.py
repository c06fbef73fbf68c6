"""What goes into an LLM's context window: ``ConversationMemory`` and its strategies.

A conversation memory is bound to one identity (tenant, user, session; see
:mod:`graphmem.policy.identity`). Its turns are stored in a normal
:class:`~graphmem.Conversation` whose session id encodes the user and the session
(:attr:`MemoryIdentity.session_id`), each with a deterministic one-line summary
(:func:`graphmem.summarize_turn`) made once, when it is appended.

Strategies (chosen per conversation):

- ``none``: appending is a no-op and stores nothing; the context is empty (0 tokens).
- ``truncation``: the newest turns that fit ``max_tokens``; oldest dropped first. At most
  ``window_turns`` turns are kept in memory (all turns stay in the store).
- ``rolling_summary``: a running summary plus a recent window. The summary may use up to
  a quarter of ``max_tokens`` (:data:`SUMMARY_SHARE`), the window the rest and at most
  ``window_turns`` turns. Turns pushed out of the window are folded into the summary by
  a :class:`Summarizer` (previous summary + evicted turns -> new summary); the default,
  :class:`LineSummarizer`, is deterministic and needs no LLM. Summarizer failures drive
  the health state machine of :mod:`graphmem.policy.health`: ``retry`` (the batch is
  tried again, ``max_retries`` times), then ``degraded``: the context falls back to
  truncation (no summary; the newest turns that fit, queued ones included) and evicted
  batches queue for recovery, at most ``max_backlog`` batches (an overflow drops the
  oldest batch and publishes ``memory.recovery_dropped``). Recovery (``recovering``)
  is tried by :meth:`ConversationMemory.flush` and automatically every
  ``recovery_interval`` appends while degraded; it folds the queue oldest batch first.

Token counts use :func:`graphmem.estimate_tokens`: a turn costs the estimate of its
context text (:func:`~graphmem.policy.llm_context.context_text`: its content, plus an
agent turn's trajectory digest and the titles of the artifacts it showed); the summary
the estimate of its text. Hidden
artifacts never reach a context or a summary. The summary is kept as lines: when it is
over its budget the oldest lines are dropped whole; lines are never rewritten, so a
restored summary comes back verbatim.

The pieces live in their own modules: :mod:`graphmem.policy.llm_context` (what a context
holds and what a turn costs), :mod:`graphmem.policy.summarizers` (the summarizer
protocol and the default), :mod:`graphmem.policy.health` (the state machine) and
:mod:`graphmem.policy.snapshots` (the portable snapshot).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.conversation.summarize import summarize_turn
from graphmem.conversation.tree import Conversation
from graphmem.core.errors import InvalidInput, StoreClosed
from graphmem.core.events import EventBus
from graphmem.core.events import bus as default_bus
from graphmem.core.models import Artifact, ArtifactRef, Role, Trajectory, Turn, estimate_tokens
from graphmem.core.store import GraphStore
from graphmem.policy.health import HealthMachine, HealthState
from graphmem.policy.identity import MemoryIdentity
from graphmem.policy.llm_context import (
    CHAT_ROLES,
    LLMContext,
    context_text,
    fit_lines,
    newest_that_fit,
    turn_tokens,
    without_hidden,
)
from graphmem.policy.snapshots import (
    SNAPSHOT_FORMAT,
    SNAPSHOT_VERSION,
    SnapshotState,
    make_snapshot,
    read_snapshot,
)
from graphmem.policy.summarizers import LineSummarizer, Summarizer, as_summarizer

__all__ = [
    "CHAT_ROLES",
    "SNAPSHOT_FORMAT",
    "SNAPSHOT_VERSION",
    "STRATEGIES",
    "SUMMARY_SHARE",
    "ConversationMemory",
    "LLMContext",
    "LineSummarizer",
    "Summarizer",
    "context_text",
]

_log = logging.getLogger("graphmem.policy")

STRATEGIES = ("none", "truncation", "rolling_summary")
"""The strategy names :class:`ConversationMemory` accepts."""

SUMMARY_SHARE = 0.25
"""Share of ``max_tokens`` the rolling summary may use (at least one token)."""


def _positive(value: object, what: str, *, allow_zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if allow_zero else 1):
        raise InvalidInput(
            f"{what} must be a {'non-negative' if allow_zero else 'positive'} integer, "
            f"got {value!r}"
        )
    return value


class ConversationMemory:
    """One identity's conversation, with a strategy for what the LLM sees.

    Get one from :meth:`graphmem.Memory.conversation_memory`. Safe to share across
    threads (one lock serialises its calls). After :meth:`close` every call raises
    ``StoreClosed``.

    >>> import graphmem
    >>> with graphmem.open("memory://", tenant="doc") as mem:
    ...     chat = mem.conversation_memory(user="ada", session="s1", max_tokens=40,
    ...                                    window_turns=2)
    ...     for text in ["Where is the smithy?", "By the river.", "And the mill?"]:
    ...         _ = chat.append("user", text)
    ...     ctx = chat.llm_context()
    ...     ctx.summary, [t.content for t in ctx.turns]
    ('user: Where is the smithy?', ['By the river.', 'And the mill?'])
    """

    def __init__(
        self,
        store: GraphStore,
        identity: MemoryIdentity,
        *,
        strategy: str = "rolling_summary",
        max_tokens: int = 2000,
        window_turns: int = 20,
        summarizer: Summarizer | Callable[[str, Sequence[Turn]], str] | None = None,
        bus: EventBus | None = None,
        max_retries: int = 1,
        max_backlog: int = 8,
        recovery_interval: int = 3,
    ) -> None:
        if strategy not in STRATEGIES:
            raise InvalidInput(
                f"unknown memory strategy {strategy!r}; use one of {', '.join(STRATEGIES)}",
                strategy=strategy,
            )
        self.strategy = strategy
        self.max_tokens = _positive(max_tokens, "max_tokens")
        self.window_turns = _positive(window_turns, "window_turns")
        self.max_retries = _positive(max_retries, "max_retries", allow_zero=True)
        self.max_backlog = _positive(max_backlog, "max_backlog")
        self.recovery_interval = _positive(recovery_interval, "recovery_interval")
        self._summarizer = as_summarizer(summarizer)
        self.identity = identity
        self._bus = bus or default_bus
        self._store = store
        self._conversation = Conversation(store, identity.tenant, identity.session_id)
        self._lock = threading.RLock()
        self._closed = False
        self._health = HealthMachine(bus=self._bus, conversation=identity.key_hash)
        self._summary = ""
        self._window: list[Turn] = []
        self._backlog: deque[list[Turn]] = deque()
        self._summarized = 0
        self._dropped = 0
        self._appends_while_degraded = 0
        if strategy != "none":
            # Pick up a conversation already stored (e.g. by another process): its newest
            # turns become the window; older ones are not re-summarised (use snapshots).
            stored = self._conversation.latest(self.window_turns)
            self._window = newest_that_fit(stored, self._window_budget())

    def __repr__(self) -> str:
        return (
            f"ConversationMemory(strategy={self.strategy!r}, "
            f"session_id={self.identity.session_id!r}, health={self._health.state.value!r})"
        )

    # ------------------------------------------------------------------ budgets

    @property
    def summary_budget(self) -> int:
        """Tokens the rolling summary may use: ``max(1, int(max_tokens * SUMMARY_SHARE))``."""
        return max(1, int(self.max_tokens * SUMMARY_SHARE))

    def _window_budget(self) -> int:
        if self.strategy == "rolling_summary":
            return max(1, self.max_tokens - self.summary_budget)
        return self.max_tokens

    # ------------------------------------------------------------------ lifecycle

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed(
                "this conversation memory is closed; get a new one from Memory.conversation_memory",
                session_id=self.identity.session_id,
            )

    def close(self) -> None:
        """Close it; every later call raises ``StoreClosed``. Closing twice is fine."""
        with self._lock:
            self._closed = True

    def __enter__(self) -> ConversationMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def conversation(self) -> Conversation:
        """The stored conversation (every turn, all branches)."""
        self._check_open()
        return self._conversation

    @property
    def health(self) -> HealthState:
        """The summarizer's health (always ``healthy`` for ``none`` and ``truncation``)."""
        with self._lock:
            self._check_open()
            return self._health.state

    @property
    def summarized_turns(self) -> int:
        """How many turns have been folded into the summary."""
        with self._lock:
            self._check_open()
            return self._summarized

    @property
    def backlog_turns(self) -> int:
        """How many evicted turns wait for recovery (while degraded)."""
        with self._lock:
            self._check_open()
            return sum(len(batch) for batch in self._backlog)

    @property
    def dropped_turns(self) -> int:
        """How many queued turns were dropped because the backlog overflowed."""
        with self._lock:
            self._check_open()
            return self._dropped

    # ------------------------------------------------------------------ writing

    def append(
        self,
        role: str | Role,
        content: str,
        *,
        speaker: str | None = None,
        turn_id: str | None = None,
        trajectory: Trajectory | Mapping[str, Any] | None = None,
        artifacts: Sequence[Artifact | Mapping[str, Any]] = (),
        hidden_artifacts: Sequence[ArtifactRef | Mapping[str, Any]] = (),
    ) -> Turn | None:
        """Store a turn (with its one-line summary) and update the context.

        An agent turn may carry its ``trajectory`` digest, the ``artifacts`` shown to
        the user and ``hidden_artifacts`` references (see :meth:`Conversation.append`);
        the context and the summary use the digest, never the hidden artifacts.

        Returns the stored turn, or None with the ``none`` strategy (nothing is stored).
        """
        with self._lock:
            self._check_open()
            if self.strategy == "none":
                return None
            if not isinstance(content, str):
                raise InvalidInput(f"content must be a str, not {type(content).__name__}")
            turn = self._conversation.append(
                role,
                content,
                speaker=speaker,
                turn_id=turn_id,
                summary=summarize_turn(content),
                trajectory=trajectory,
                artifacts=artifacts,
                hidden_artifacts=hidden_artifacts,
            )
            self._window.append(turn)
            evicted = self._trim_window()
            if self.strategy == "rolling_summary":
                if self._health.state is HealthState.DEGRADED:
                    if evicted:
                        self._queue(evicted)
                    self._appends_while_degraded += 1
                    if self._appends_while_degraded >= self.recovery_interval:
                        self._recover()
                elif evicted:
                    self._fold(evicted)
            return turn

    def _trim_window(self) -> list[Turn]:
        budget = self._window_budget()
        evicted: list[Turn] = []
        tokens = sum(turn_tokens(t) for t in self._window)
        while self._window and (len(self._window) > self.window_turns or tokens > budget):
            oldest = self._window.pop(0)
            tokens -= turn_tokens(oldest)
            evicted.append(oldest)
        return evicted

    def _summarize(self, evicted: Sequence[Turn]) -> str:
        new = self._summarizer.summarize(self._summary, tuple(evicted))
        if not isinstance(new, str):
            raise TypeError(f"the summarizer returned a {type(new).__name__}, not a str")
        budget = self.summary_budget
        fitted = fit_lines(new, budget)
        if not fitted and new.strip():
            # One line longer than the whole budget (an LLM's paragraph): shorten it once.
            fitted = summarize_turn(new.split("\n")[-1], max_chars=budget * 4)
        return fitted

    def _fold(self, evicted: list[Turn]) -> None:
        """Fold evicted turns into the summary, through retry and degraded on failure."""
        try:
            self._summary = self._summarize(evicted)
            self._summarized += len(evicted)
            return
        except Exception as exc:
            _log.warning("summarizer failed (%s); retrying", type(exc).__name__)
        self._health.transition(HealthState.RETRY, "summarizer_failed")
        for _attempt in range(self.max_retries):
            try:
                self._summary = self._summarize(evicted)
            except Exception as exc:
                _log.warning("summarizer failed again (%s)", type(exc).__name__)
                continue
            self._summarized += len(evicted)
            self._health.transition(HealthState.HEALTHY, "retry_succeeded")
            return
        self._health.transition(HealthState.DEGRADED, "retries_exhausted")
        self._appends_while_degraded = 0
        self._queue(evicted)

    def _queue(self, batch: list[Turn]) -> None:
        self._backlog.append(batch)
        while len(self._backlog) > self.max_backlog:
            dropped = self._backlog.popleft()
            self._dropped += len(dropped)
            self._bus.publish(
                "memory.recovery_dropped",
                conversation=self.identity.key_hash,
                dropped_turns=len(dropped),
                backlog_batches=len(self._backlog),
            )

    def _recover(self) -> bool:
        """Fold the backlog, oldest batch first; back to degraded at the first failure."""
        self._appends_while_degraded = 0
        self._health.transition(HealthState.RECOVERING, "recovery_started")
        while self._backlog:
            batch = self._backlog[0]
            try:
                self._summary = self._summarize(batch)
            except Exception as exc:
                _log.warning("summarizer failed during recovery (%s)", type(exc).__name__)
                self._health.transition(HealthState.DEGRADED, "recovery_failed")
                return False
            self._backlog.popleft()
            self._summarized += len(batch)
        self._health.transition(HealthState.HEALTHY, "recovered")
        return True

    def flush(self) -> HealthState:
        """Do pending summary work now: while degraded, try to recover the backlog.

        Returns the health afterwards (``healthy`` when the backlog was folded in).
        """
        with self._lock:
            self._check_open()
            if self._health.state is HealthState.DEGRADED:
                self._recover()
            return self._health.state

    # ------------------------------------------------------------------ reading

    def llm_context(self) -> LLMContext:
        """The summary and recent turns to give the LLM, within ``max_tokens``."""
        with self._lock:
            self._check_open()
            state = self._health.state
            if self.strategy == "none":
                return LLMContext("none", "none", "", (), 0, self.max_tokens, state)
            if self.strategy == "truncation" or state is not HealthState.HEALTHY:
                candidates = [t for batch in self._backlog for t in batch] + self._window
                turns = newest_that_fit(candidates, self.max_tokens)
                tokens = sum(turn_tokens(t) for t in turns)
                return LLMContext(
                    self.strategy,
                    "truncation",
                    "",
                    tuple(without_hidden(t) for t in turns),
                    tokens,
                    self.max_tokens,
                    state,
                )
            summary = fit_lines(self._summary, self.summary_budget)
            used = estimate_tokens(summary)
            turns = newest_that_fit(self._window, self.max_tokens - used)
            tokens = used + sum(turn_tokens(t) for t in turns)
            return LLMContext(
                self.strategy,
                self.strategy,
                summary,
                tuple(without_hidden(t) for t in turns),
                tokens,
                self.max_tokens,
                state,
            )

    def estimate_tokens(self) -> int:
        """Estimated tokens of :meth:`llm_context` (0 with the ``none`` strategy)."""
        return self.llm_context().token_estimate

    # ------------------------------------------------------------------ snapshots

    def snapshot(self) -> dict[str, Any]:
        """The context state as a portable JSON envelope (``json.dumps`` takes it as is).

        Holds the format name and version, the strategy, a hash of the identity (never
        the identity itself), the budgets, the summary text, the recent window, the
        health and the recovery backlog (:mod:`graphmem.policy.snapshots`). The stored
        turns are not in it: they stay in the store.
        """
        with self._lock:
            self._check_open()
            state = SnapshotState(
                self._summary,
                self._window,
                list(self._backlog),
                self._summarized,
                self._dropped,
                self._health.state,
            )
            return make_snapshot(
                state,
                strategy=self.strategy,
                conversation=self.identity.key_hash,
                max_tokens=self.max_tokens,
                window_turns=self.window_turns,
            )

    def restore(self, snapshot: Mapping[str, Any] | str | bytes) -> None:
        """Replace the context state with a snapshot made by :meth:`snapshot`.

        The summary comes back verbatim (it is never summarised again). All or nothing.

        Raises:
            InvalidSnapshot: Not a graphmem conversation-memory snapshot (format, version,
                bad fields), made with another strategy, for another conversation
                (tenant, user, session), or a non-empty snapshot for ``none``.
        """
        with self._lock:
            self._check_open()
            state = read_snapshot(
                snapshot,
                strategy=self.strategy,
                conversation=self.identity.key_hash,
                session_id=self.identity.session_id,
            )
            self._summary = state.summary
            self._window = list(state.window)
            self._backlog = deque(state.backlog)
            self._summarized, self._dropped = state.summarized, state.dropped
            self._health.reset(state.health)
            self._appends_while_degraded = 0
