"""The portable snapshot of a conversation memory's context state, written and read back.

:func:`make_snapshot` builds the JSON envelope :meth:`ConversationMemory.snapshot
<graphmem.policy.ConversationMemory.snapshot>` returns: the format name and version, the
strategy, a hash of the identity (never the identity itself), the budgets, the summary
text, the recent window, the health and the recovery backlog. The stored turns are not
in it. :func:`read_snapshot` checks one, all of it, before anything is replaced.

>>> read_snapshot("[]", strategy="truncation", conversation="c", session_id="s")
Traceback (most recent call last):
...
graphmem.core.errors.InvalidSnapshot: not a graphmem conversation-memory snapshot ...
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphmem.core.errors import InvalidInput, InvalidSnapshot
from graphmem.core.models import Turn
from graphmem.policy.health import HealthState

__all__ = ["SNAPSHOT_FORMAT", "SNAPSHOT_VERSION", "SnapshotState", "make_snapshot", "read_snapshot"]

SNAPSHOT_FORMAT = "graphmem.conversation_memory"
SNAPSHOT_VERSION = 1


@dataclass(frozen=True)
class SnapshotState:
    """The context state a snapshot holds, checked.

    Attributes:
        summary: The running summary, verbatim.
        window: The recent turns, oldest first.
        backlog: Evicted batches waiting for recovery, oldest first.
        summarized: How many turns were folded into the summary.
        dropped: How many queued turns were dropped.
        health: ``healthy`` or ``degraded``.
    """

    summary: str
    window: list[Turn]
    backlog: list[list[Turn]]
    summarized: int
    dropped: int
    health: HealthState


def make_snapshot(
    state: SnapshotState,
    *,
    strategy: str,
    conversation: str,
    max_tokens: int,
    window_turns: int,
) -> dict[str, Any]:
    """The JSON envelope of ``state`` (``json.dumps`` takes it as is)."""
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "strategy": strategy,
        "conversation": conversation,
        "max_tokens": max_tokens,
        "window_turns": window_turns,
        "health": state.health.value,
        "summary": state.summary,
        "summarized_turns": state.summarized,
        "dropped_turns": state.dropped,
        "window": [t.model_dump(mode="json") for t in state.window],
        "backlog": [[t.model_dump(mode="json") for t in b] for b in state.backlog],
    }


def read_snapshot(
    snapshot: Mapping[str, Any] | str | bytes,
    *,
    strategy: str,
    conversation: str,
    session_id: str,
) -> SnapshotState:
    """Check a snapshot for a conversation memory and return the state it holds.

    Args:
        snapshot: The envelope, or its JSON text.
        strategy: The strategy of the memory it is restored into.
        conversation: That memory's identity hash.
        session_id: That memory's stored session id (every turn must be of it).

    Raises:
        InvalidSnapshot: Not a graphmem conversation-memory snapshot (format, version,
            bad fields), made with another strategy, for another conversation, or a
            non-empty snapshot for ``none``.
    """
    data = _envelope(snapshot, strategy, conversation)
    window = _turns(data.get("window", []), "window", session_id)
    raw_backlog = data.get("backlog", [])
    if not isinstance(raw_backlog, list):
        raise InvalidSnapshot("snapshot backlog must be a list of lists of turns")
    backlog = [_turns(b, "backlog batch", session_id) for b in raw_backlog]
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
    if strategy == "none" and (summary or window or backlog or any(counts)):
        raise InvalidSnapshot("a non-empty snapshot cannot be restored into 'none'")
    if strategy != "rolling_summary" and (summary or backlog or health is not HealthState.HEALTHY):
        raise InvalidSnapshot(f"a {strategy} snapshot holds no summary or backlog")
    if health is HealthState.HEALTHY and backlog:
        raise InvalidSnapshot("a healthy snapshot has no recovery backlog")
    return SnapshotState(summary, window, backlog, counts[0], counts[1], health)


def _envelope(
    snapshot: Mapping[str, Any] | str | bytes, strategy: str, conversation: str
) -> Mapping[str, Any]:
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
    if data.get("strategy") != strategy:
        raise InvalidSnapshot(
            f"snapshot of strategy {data.get('strategy')!r} cannot be restored into a "
            f"{strategy!r} conversation memory",
            strategy=data.get("strategy"),
        )
    if data.get("conversation") != conversation:
        raise InvalidSnapshot(
            "snapshot belongs to another conversation (tenant, user or session differ)"
        )
    return data


def _turns(raw: object, what: str, session_id: str) -> list[Turn]:
    if not isinstance(raw, list):
        raise InvalidSnapshot(f"snapshot {what} must be a list of turns")
    turns: list[Turn] = []
    for index, row in enumerate(raw):
        try:
            turn = Turn.model_validate(row)
        except InvalidInput as exc:
            raise InvalidSnapshot(f"snapshot {what} turn {index}: {exc.message}") from exc
        if turn.session_id != session_id:
            raise InvalidSnapshot(f"snapshot {what} turn {index} is of another session")
        turns.append(turn)
    return turns
