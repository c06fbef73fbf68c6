"""The conversations room: :class:`ConversationStore` (turn trees, branches, the session log)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from graphmem.core.models import (
    SessionInfo,
    Turn,
    TurnFilter,
)


@runtime_checkable
class ConversationStore(Protocol):
    """Conversations: PARENT-linked turn trees, their active branch, and the session log.

    A conversation is the tree of one session's turns; its head marks the active branch
    (head back to root), and :meth:`fork` moves the head so the next turn branches from
    an older one.
    """

    def append_turn(self, tenant: str, turn: Turn) -> Turn:
        """Append ``turn`` after the head of its session's conversation; it becomes the head.

        The stored turn's ``parent_id`` is the previous head (``None`` for the first), and
        its ``created_at`` is bumped to one microsecond after the parent's if it is not
        later already, so time increases strictly along a branch. Concurrent appends to
        one conversation serialise: they form one chain and none is lost.
        """
        ...

    def append_turns(self, tenant: str, session_id: str, turns: Sequence[Turn]) -> list[Turn]:
        """Append ``turns`` as one chain after the session's head, atomically; the last is the head.

        The head is read and moved in the same transaction, so concurrent appends and
        batches to one conversation stay on one branch (never a silent fork): the first
        turn's parent is the head at the time of the write, each later turn's parent the
        turn before it; the parents the turns carry are ignored. Times increase strictly
        along the chain as in :meth:`append_turn`. All or nothing: a turn of another
        session, a repeated id or one that is taken raises ``InvalidInput`` and writes
        nothing. An empty list writes nothing and returns ``[]``.
        """
        ...

    def get_turn(self, tenant: str, turn_id: str) -> Turn:
        """Return a turn by id; ``NotFound`` if unknown."""
        ...

    def get_turns(self, tenant: str, turn_ids: Sequence[str]) -> list[Turn]:
        """Return the turns that exist among ``turn_ids``, in the order asked."""
        ...

    def head(self, tenant: str, session_id: str) -> Turn | None:
        """The head of the session's active branch, or None before the first turn."""
        ...

    def turn_window(self, tenant: str, turn_ids: Sequence[str], *, depth: int = 1) -> list[Turn]:
        """The turns asked and the turns next to them along PARENT, in one call.

        Every turn within ``depth`` PARENT edges of an asked turn: its ancestors up to
        ``depth`` steps back and its descendants up to ``depth`` steps forward on every
        branch (not its siblings). Each turn once, ordered by ``(created_at, id)``;
        unknown ids are skipped. Conversation recall reads a turn with its context
        through this (a reply ranks by the question it answers).

        Raises:
            InvalidInput: ``depth`` is not an integer within 0..``MAX_TURN_WINDOW``.
        """
        ...

    def fork(self, tenant: str, session_id: str, turn_id: str) -> Turn:
        """Move the session's head to an earlier turn; the next append branches from it.

        ``NotFound`` for an unknown turn; ``InvalidInput`` for a turn of another session.
        """
        ...

    def branch(self, tenant: str, session_id: str, *, limit: int | None = None) -> list[Turn]:
        """The active branch (head back to root), oldest first; the last ``limit`` if given."""
        ...

    def list_turns(self, tenant: str, session_id: str) -> list[Turn]:
        """Every turn of the session, all branches, in the order they were created."""
        ...

    def count_turns(self, tenant: str, session_id: str | None = None) -> int:
        """Turns in one session (all branches), or in every session of the tenant."""
        ...

    def delete_turn(self, tenant: str, turn_id: str) -> bool:
        """Delete a turn; its children are re-linked to its parent, so no branch breaks.

        If it was the head, the head moves to its parent (``None`` for a root).
        Returns whether it existed.
        """
        ...

    def delete_conversation(self, tenant: str, session_id: str) -> int:
        """Delete every turn of a session and its head; return how many turns there were."""
        ...

    def search_turns(self, tenant: str, filter: TurnFilter) -> list[Turn]:
        """Turns across sessions matching every condition of ``filter``, newest first."""
        ...

    def list_sessions(self, tenant: str) -> list[SessionInfo]:
        """Every session with at least one turn, most recently active first."""
        ...
