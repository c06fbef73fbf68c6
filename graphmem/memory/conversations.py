"""Conversations and the session log of :class:`graphmem.Memory`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from graphmem.conversation.tree import Conversation, load_conversation
from graphmem.core.checks import check_text
from graphmem.core.errors import InvalidInput
from graphmem.core.models import (
    SessionInfo,
    Turn,
    TurnFilter,
    utcnow,
)
from graphmem.memory.base import MemoryBase, _check_bus

if TYPE_CHECKING:
    from graphmem.core.events import EventBus
    from graphmem.policy.context import ConversationMemory, Summarizer


class ConversationMethods(MemoryBase):
    """Conversations (turn trees), their memory strategies and the session log."""

    def conversation(self, session_id: str, *, max_history: int | None = None) -> Conversation:
        """The conversation of a session (created by its first append).

        With ``auto_index`` (the default), what is appended through it is indexed for
        :meth:`retrieve` in batches: linked to the entities it names and embedded before
        the next retrieval (or every ``index_batch`` turns); see :meth:`flush_index`.
        """
        self._check_open()
        return Conversation(
            self._store,
            self._tenant,
            session_id,
            max_history=max_history,
            on_append=self._queue_turns if self._auto_index else None,
        )

    def conversation_memory(
        self,
        *,
        user: str,
        session: str,
        strategy: str = "rolling_summary",
        max_tokens: int = 2000,
        window_turns: int = 20,
        summarizer: Summarizer | Callable[[str, Sequence[Turn]], str] | None = None,
        bus: EventBus | None = None,
        run_id: str | None = None,
        max_retries: int = 1,
        max_backlog: int = 8,
        recovery_interval: int = 3,
    ) -> ConversationMemory:
        """A conversation of one (user, session) with a strategy for the LLM's context.

        Strategies: ``none``, ``truncation``, ``rolling_summary`` (see
        :mod:`graphmem.policy.context`). Fails closed: a missing user or session raises
        ``IdentityRequired`` (and publishes ``memory.identity_rejected`` on ``bus``).

        Raises:
            IdentityRequired: ``user`` or ``session`` is missing.
            InvalidInput: ``user``, ``session`` or ``run_id`` is not a printable name,
                unknown strategy, or a budget that is not positive.
        """
        self._check_open()
        from graphmem.policy.context import ConversationMemory
        from graphmem.policy.identity import require_identity

        _check_bus(bus)
        identity = require_identity(
            "conversation_memory",
            tenant=self._tenant,
            user=user,
            session=session,
            run_id=run_id,
            bus=bus,
        )
        return ConversationMemory(
            self._store,
            identity,
            strategy=strategy,
            max_tokens=max_tokens,
            window_turns=window_turns,
            summarizer=summarizer,
            bus=bus,
            max_retries=max_retries,
            max_backlog=max_backlog,
            recovery_interval=recovery_interval,
        )

    def load_conversation(
        self, data: Mapping[str, Any], *, session_id: str | None = None
    ) -> Conversation:
        """Store a tree made by :meth:`Conversation.dump` (into an empty session)."""
        self._check_open()
        loaded = load_conversation(self._store, self._tenant, data, session_id)
        if self._auto_index:
            self._queue_turns(loaded.turns())
        return self.conversation(loaded.session_id, max_history=loaded.max_history)

    def sessions(self) -> list[SessionInfo]:
        """Every session with turns, most recently active first."""
        self._check_open()
        return self._store.list_sessions(self._tenant)

    def search_turns(
        self,
        text: str | None = None,
        *,
        session_id: str | None = None,
        speaker: str | None = None,
        role: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[Turn]:
        """Keyword search over the session log (every keyword must occur), newest first."""
        self._check_open()
        if text is not None and not check_text(text, "text").strip():
            raise InvalidInput("search text is empty; pass None to match every turn")
        flt = TurnFilter(
            text=text,
            session_id=session_id,
            speaker=speaker,
            role=role,
            since=since,
            until=until,
            limit=limit,
        )
        return self._store.search_turns(self._tenant, flt)

    def recent_turns(
        self, within: timedelta, *, session_id: str | None = None, limit: int | None = None
    ) -> list[Turn]:
        """Turns created within the last ``within``, newest first."""
        if not isinstance(within, timedelta) or within <= timedelta(0):
            raise InvalidInput(f"within must be a positive timedelta, got {within!r}")
        try:
            since: datetime | None = utcnow() - within
        except OverflowError:  # further back than year 1: every turn is within it
            since = None
        return self.search_turns(session_id=session_id, since=since, limit=limit)

    def count_turns(self, session_id: str | None = None) -> int:
        """Turns in one session (all branches), or in all of them."""
        self._check_open()
        return self._store.count_turns(self._tenant, session_id)
