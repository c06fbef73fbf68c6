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
context text (:func:`context_text`: its content, plus an agent turn's trajectory digest
and the titles of the artifacts it showed); the summary the estimate of its text. Hidden
artifacts never reach a context or a summary. The summary is kept as lines: when it is
over its budget the oldest lines are dropped whole; lines are never rewritten, so a
restored summary comes back verbatim.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from graphmem.conversation import Conversation
from graphmem.errors import InvalidInput, InvalidSnapshot, StoreClosed
from graphmem.events import EventBus
from graphmem.events import bus as default_bus
from graphmem.models import Artifact, ArtifactRef, Role, Trajectory, Turn, estimate_tokens
from graphmem.policy.health import HealthMachine, HealthState
from graphmem.policy.identity import MemoryIdentity
from graphmem.store import GraphStore
from graphmem.summarize import summarize_trajectory, summarize_turn

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

SNAPSHOT_FORMAT = "graphmem.conversation_memory"
SNAPSHOT_VERSION = 1
SUMMARY_SHARE = 0.25
"""Share of ``max_tokens`` the rolling summary may use (at least one token)."""

CHAT_ROLES: Mapping[str, str] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "player": "user",
    "gm": "user",
    "npc": "assistant",
    "gm_assistant": "assistant",
    "tool": "user",
}
"""How :meth:`LLMContext.to_messages` maps turn roles onto the roles chat APIs accept.

The model speaks as the ``assistant``: an NPC it plays, the game master's assistant.
People are ``user``: players and the game master. Tool output becomes ``user`` text
(a ``tool`` message needs a call id the turn does not have). Other roles get the
``default`` of :meth:`LLMContext.to_messages` (``user``)."""


def _artifact_label(artifact: Artifact) -> str:
    label = artifact.title or artifact.id
    return f"{label} ({artifact.media_type})" if artifact.media_type else label


def context_text(turn: Turn) -> str:
    """A turn as an LLM's context shows it: the content, then what an agent turn adds.

    An agent turn adds one line with its trajectory digest (tools, observations,
    reasoning; :func:`graphmem.summarize.summarize_trajectory` without a length cap) and
    one naming the artifacts shown to the user (title and media type, not the content).
    Hidden artifacts are never mentioned.

    >>> from graphmem import Turn
    >>> print(context_text(Turn(session_id="s", role="assistant", content="1802.",
    ...     trajectory={"tools": [{"name": "search_lore"}]},
    ...     artifacts=[{"id": "a1", "title": "Bell chronicle"}],
    ...     hidden_artifacts=[{"id": "scratch-7"}])))
    1802.
    [trajectory: used search_lore]
    [shown to the user: Bell chronicle]
    """
    parts = [turn.content]
    if turn.trajectory is not None and not turn.trajectory.is_empty:
        parts.append(f"[trajectory: {summarize_trajectory(turn.trajectory, max_chars=None)}]")
    if turn.artifacts:
        shown = "; ".join(_artifact_label(a) for a in turn.artifacts)
        parts.append(f"[shown to the user: {shown}]")
    return "\n".join(parts)


def _without_hidden(turn: Turn) -> Turn:
    return turn.model_copy(update={"hidden_artifacts": ()}) if turn.hidden_artifacts else turn


@runtime_checkable
class Summarizer(Protocol):
    """Folds turns evicted from the recent window into the running summary.

    An LLM-backed summarizer implements this too; raising any ``Exception`` counts as a
    failure and drives the health state machine.
    """

    def summarize(self, previous: str, evicted: Sequence[Turn]) -> str:
        """Return the new summary, given the previous one ("" at first) and evicted turns."""
        ...


class LineSummarizer:
    """The default summarizer: deterministic, no LLM.

    The new summary is the previous one plus one line per evicted turn,
    ``"<speaker or role>: <turn summary>"``, using the summary stored with the turn (made
    by :func:`graphmem.summarize_turn` on append) and making one only if it is missing.

    >>> from graphmem import Turn
    >>> LineSummarizer().summarize("", [Turn(session_id="s", role="user", content="Hi.",
    ...                                      summary="Greets.")])
    'user: Greets.'
    """

    def __init__(self, max_chars_per_turn: int = 200) -> None:
        if max_chars_per_turn <= 0:
            raise InvalidInput(f"max_chars_per_turn must be positive, got {max_chars_per_turn}")
        self.max_chars_per_turn = max_chars_per_turn

    def summarize(self, previous: str, evicted: Sequence[Turn]) -> str:
        """Append one line per evicted turn to ``previous``.

        An agent turn's line ends with its trajectory digest in brackets
        (:func:`graphmem.summarize.summarize_trajectory`, cut to ``max_chars_per_turn``);
        hidden artifacts never appear.
        """
        lines = [previous] if previous else []
        for turn in evicted:
            text = turn.summary or summarize_turn(turn.content, self.max_chars_per_turn)
            if turn.trajectory is not None and not turn.trajectory.is_empty:
                digest = summarize_trajectory(turn.trajectory, self.max_chars_per_turn)
                text = f"{text} [{digest}]"
            lines.append(f"{turn.speaker or turn.role}: {text}")
        return "\n".join(lines)


class _CallableSummarizer:
    def __init__(self, function: Callable[[str, Sequence[Turn]], str]) -> None:
        self._function = function

    def summarize(self, previous: str, evicted: Sequence[Turn]) -> str:
        return self._function(previous, evicted)


@dataclass(frozen=True, slots=True)
class LLMContext:
    """What to put into an LLM's context for one conversation.

    Attributes:
        strategy: The conversation's strategy (``none``, ``truncation``, ``rolling_summary``).
        mode: How this context was built: the strategy, or ``truncation`` when a
            rolling summary is not ``healthy`` (the fallback).
        summary: The running summary (``""`` unless ``mode`` is ``rolling_summary``).
        turns: The recent turns, oldest first (without their hidden artifacts).
        token_estimate: Estimated tokens of the summary and the turns; at most ``max_tokens``.
        max_tokens: The budget it was built for.
        health: The summarizer's health when it was built.
    """

    strategy: str
    mode: str
    summary: str
    turns: tuple[Turn, ...]
    token_estimate: int
    max_tokens: int
    health: HealthState

    def to_messages(
        self, roles: Mapping[str, str] | None = None, *, default: str = "user"
    ) -> list[dict[str, str]]:
        """Chat messages: a system message with the summary (if any), then one per turn.

        Chat APIs accept the roles ``user``, ``assistant`` and ``system`` only, so each
        turn's role is mapped: ``roles`` over :data:`CHAT_ROLES` (``player`` and ``gm``
        are ``user``, ``npc`` is ``assistant``, ...), and ``default`` for any other role.
        A message's content is the turn's :func:`context_text`.

        >>> from graphmem import Turn
        >>> from graphmem.policy import HealthState
        >>> ctx = LLMContext("truncation", "truncation", "", (
        ...     Turn(session_id="s", role="player", content="Hi."),
        ...     Turn(session_id="s", role="npc", content="Evening."),
        ... ), 4, 100, HealthState.HEALTHY)
        >>> [m["role"] for m in ctx.to_messages()]
        ['user', 'assistant']
        >>> [m["role"] for m in ctx.to_messages({"player": "system"})]
        ['system', 'assistant']

        Raises:
            InvalidInput: A mapped role or ``default`` is not a non-empty string.
        """
        mapping = {**CHAT_ROLES, **(roles or {})}
        for role in [default, *mapping.values()]:
            if not isinstance(role, str) or not role.strip():
                raise InvalidInput(f"chat roles must be non-empty strings, got {role!r}")
        messages: list[dict[str, str]] = []
        if self.summary:
            messages.append(
                {
                    "role": mapping.get("system", "system"),
                    "content": f"Summary of the conversation so far:\n{self.summary}",
                }
            )
        for turn in self.turns:
            messages.append(
                {"role": mapping.get(turn.role, default), "content": context_text(turn)}
            )
        return messages


def _turn_tokens(turn: Turn) -> int:
    return estimate_tokens(context_text(turn))


def _newest_that_fit(turns: Sequence[Turn], budget: int) -> list[Turn]:
    """The longest run of newest turns whose tokens add up to at most ``budget``."""
    kept: list[Turn] = []
    used = 0
    for turn in reversed(turns):
        cost = _turn_tokens(turn)
        if used + cost > budget:
            break
        kept.append(turn)
        used += cost
    kept.reverse()
    return kept


def _fit_lines(summary: str, budget: int) -> str:
    """The newest whole lines of ``summary`` that fit ``budget`` tokens (never edited)."""
    if estimate_tokens(summary) <= budget:
        return summary
    kept: list[str] = []
    for line in reversed(summary.split("\n")):
        if estimate_tokens("\n".join([line, *kept])) > budget:
            break
        kept.insert(0, line)
    return "\n".join(kept)


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
        if summarizer is None:
            self._summarizer: Summarizer = LineSummarizer()
        elif isinstance(summarizer, Summarizer):
            self._summarizer = summarizer
        elif callable(summarizer):
            self._summarizer = _CallableSummarizer(summarizer)
        else:
            raise InvalidInput("summarizer must have a summarize(previous, evicted) method")
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
            self._window = _newest_that_fit(stored, self._window_budget())

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
        tokens = sum(_turn_tokens(t) for t in self._window)
        while self._window and (len(self._window) > self.window_turns or tokens > budget):
            oldest = self._window.pop(0)
            tokens -= _turn_tokens(oldest)
            evicted.append(oldest)
        return evicted

    def _summarize(self, evicted: Sequence[Turn]) -> str:
        new = self._summarizer.summarize(self._summary, tuple(evicted))
        if not isinstance(new, str):
            raise TypeError(f"the summarizer returned a {type(new).__name__}, not a str")
        budget = self.summary_budget
        fitted = _fit_lines(new, budget)
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
                turns = _newest_that_fit(candidates, self.max_tokens)
                tokens = sum(_turn_tokens(t) for t in turns)
                return LLMContext(
                    self.strategy,
                    "truncation",
                    "",
                    tuple(_without_hidden(t) for t in turns),
                    tokens,
                    self.max_tokens,
                    state,
                )
            summary = _fit_lines(self._summary, self.summary_budget)
            used = estimate_tokens(summary)
            turns = _newest_that_fit(self._window, self.max_tokens - used)
            tokens = used + sum(_turn_tokens(t) for t in turns)
            return LLMContext(
                self.strategy,
                self.strategy,
                summary,
                tuple(_without_hidden(t) for t in turns),
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
        health and the recovery backlog. The stored turns are not in it: they stay in the
        store.
        """
        with self._lock:
            self._check_open()
            return {
                "format": SNAPSHOT_FORMAT,
                "version": SNAPSHOT_VERSION,
                "strategy": self.strategy,
                "conversation": self.identity.key_hash,
                "max_tokens": self.max_tokens,
                "window_turns": self.window_turns,
                "health": self._health.state.value,
                "summary": self._summary,
                "summarized_turns": self._summarized,
                "dropped_turns": self._dropped,
                "window": [t.model_dump(mode="json") for t in self._window],
                "backlog": [[t.model_dump(mode="json") for t in b] for b in self._backlog],
            }

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
            data = self._parse(snapshot)
            window = self._turns(data.get("window", []), "window")
            raw_backlog = data.get("backlog", [])
            if not isinstance(raw_backlog, list):
                raise InvalidSnapshot("snapshot backlog must be a list of lists of turns")
            backlog = [self._turns(b, "backlog batch") for b in raw_backlog]
            summary = data.get("summary", "")
            if not isinstance(summary, str):
                raise InvalidSnapshot("snapshot summary must be a string")
            counts = [data.get("summarized_turns", 0), data.get("dropped_turns", 0)]
            if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts):
                raise InvalidSnapshot("snapshot turn counts must be non-negative integers")
            try:
                health = HealthState(data.get("health", "healthy"))
            except ValueError as exc:
                raise InvalidSnapshot(f"unknown health {data.get('health')!r}") from exc
            if health not in (HealthState.HEALTHY, HealthState.DEGRADED):
                raise InvalidSnapshot(f"a snapshot cannot be taken in state {health}")
            if self.strategy == "none" and (summary or window or backlog or any(counts)):
                raise InvalidSnapshot("a non-empty snapshot cannot be restored into 'none'")
            if self.strategy != "rolling_summary" and (
                summary or backlog or health is not HealthState.HEALTHY
            ):
                raise InvalidSnapshot(f"a {self.strategy} snapshot holds no summary or backlog")
            if health is HealthState.HEALTHY and backlog:
                raise InvalidSnapshot("a healthy snapshot has no recovery backlog")
            self._summary = summary
            self._window = window
            self._backlog = deque(backlog)
            self._summarized, self._dropped = counts
            self._health.reset(health)
            self._appends_while_degraded = 0

    def _parse(self, snapshot: Mapping[str, Any] | str | bytes) -> Mapping[str, Any]:
        data: Any = snapshot
        if isinstance(snapshot, str | bytes | bytearray):
            try:
                data = json.loads(snapshot)
            except (ValueError, UnicodeDecodeError) as exc:
                raise InvalidSnapshot(f"snapshot is not JSON ({exc})") from exc
        if not isinstance(data, Mapping) or data.get("format") != SNAPSHOT_FORMAT:
            raise InvalidSnapshot(
                f"not a graphmem conversation-memory snapshot (format {SNAPSHOT_FORMAT!r})"
            )
        if data.get("version") != SNAPSHOT_VERSION:
            raise InvalidSnapshot(
                f"snapshot version {data.get('version')!r}; this graphmem reads "
                f"version {SNAPSHOT_VERSION}"
            )
        if data.get("strategy") != self.strategy:
            raise InvalidSnapshot(
                f"snapshot of strategy {data.get('strategy')!r} cannot be restored into a "
                f"{self.strategy!r} conversation memory",
                strategy=data.get("strategy"),
            )
        if data.get("conversation") != self.identity.key_hash:
            raise InvalidSnapshot(
                "snapshot belongs to another conversation (tenant, user or session differ)"
            )
        return data

    def _turns(self, raw: object, what: str) -> list[Turn]:
        if not isinstance(raw, list):
            raise InvalidSnapshot(f"snapshot {what} must be a list of turns")
        turns: list[Turn] = []
        for index, row in enumerate(raw):
            try:
                turn = Turn.model_validate(row)
            except InvalidInput as exc:
                raise InvalidSnapshot(f"snapshot {what} turn {index}: {exc.message}") from exc
            if turn.session_id != self.identity.session_id:
                raise InvalidSnapshot(f"snapshot {what} turn {index} is of another session")
            turns.append(turn)
        return turns
