"""The conversation room of ``NetworkXStore``: turns, PARENT trees, heads, forks, sessions."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.backends.networkx.base import NetworkXBase, _operation
from graphmem.core.checks import check_id, check_ids, check_limit
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import (
    SessionInfo,
    Turn,
    TurnFilter,
)
from graphmem.core.store import check_chain, check_window_depth

_ONE_MICROSECOND = timedelta(microseconds=1)
_LAST_TIME = datetime.max.replace(tzinfo=UTC)  # no turn can follow one made then


class ConversationRoom(NetworkXBase):
    """Conversation turns in process: PARENT-linked trees with a head per session."""

    def _turn(self, tenant: str, turn_id: str) -> Turn:
        turn = self._tenant(tenant).turns.get(turn_id)
        if turn is None:
            raise NotFound(
                f"no turn {turn_id!r} in tenant {tenant!r}", turn_id=turn_id, tenant=tenant
            )
        return turn

    @_operation
    def append_turn(self, tenant: str, turn: Turn) -> Turn:
        """Append after the session's head; the turn becomes the head."""
        if not isinstance(turn, Turn):
            raise InvalidInput(f"append_turn takes a Turn, not a {type(turn).__name__}")
        return self._append(tenant, turn.session_id, [turn])[0]

    @_operation
    def append_turns(self, tenant: str, session_id: str, turns: Sequence[Turn]) -> list[Turn]:
        """Append a chain after the session's head, under the store's lock; all or nothing."""
        return self._append(
            tenant, check_id(session_id, "session_id"), check_chain(session_id, turns)
        )

    def _append(self, tenant: str, session_id: str, turns: Sequence[Turn]) -> list[Turn]:
        data = self._tenant(tenant)
        for turn in turns:
            if turn.id in data.turns:
                raise InvalidInput(f"turn id {turn.id!r} is already stored", turn_id=turn.id)
        if not turns:
            return []
        session = data.sessions.get(session_id)
        parent = data.turns[session.head] if session and session.head else None
        stored: list[Turn] = []
        for turn in turns:
            update: dict[str, Any] = {"parent_id": parent.id if parent else None}
            if parent is not None and turn.created_at <= parent.created_at:
                # Keep time strictly increasing along a branch (same-microsecond appends).
                if parent.created_at == _LAST_TIME:
                    raise InvalidInput(
                        f"the head of session {session_id!r} was created at the last time "
                        f"there is ({_LAST_TIME.isoformat()}); no turn can follow it on its "
                        "branch",
                        turn_id=parent.id,
                    )
                update["created_at"] = parent.created_at + _ONE_MICROSECOND
            parent = turn.model_copy(update=update)
            stored.append(parent)
        self._commit(
            {
                "op": "put",
                "tenant": tenant,
                "turns": stored,
                "heads": {session_id: stored[-1].id},
            }
        )
        return stored

    @_operation
    def get_turn(self, tenant: str, turn_id: str) -> Turn:
        """Return a turn by id; ``NotFound`` if unknown."""
        return self._turn(tenant, turn_id)

    @_operation
    def get_turns(self, tenant: str, turn_ids: Sequence[str]) -> list[Turn]:
        """Return the turns that exist among ``turn_ids``, in the order asked."""
        turns = self._tenant(tenant).turns
        return [turns[i] for i in check_ids(turn_ids, "turn_ids") if i in turns]

    @_operation
    def head(self, tenant: str, session_id: str) -> Turn | None:
        """The head of the session's active branch, or None."""
        data = self._tenant(tenant)
        session = data.sessions.get(session_id)
        return data.turns[session.head] if session and session.head else None

    @_operation
    def turn_window(self, tenant: str, turn_ids: Sequence[str], *, depth: int = 1) -> list[Turn]:
        """The turns asked and those within ``depth`` PARENT edges before or after them."""
        ids = check_ids(turn_ids, "turn_ids")
        depth = check_window_depth(depth)
        data = self._tenant(tenant)
        turns, children = data.turns, data.children
        found: dict[str, Turn] = {}
        for turn_id in ids:
            turn = turns.get(turn_id)
            if turn is None:
                continue
            found[turn_id] = turn
            parent = turn.parent_id
            for _step in range(depth):  # back along PARENT
                if parent is None:
                    break
                above = turns[parent]
                found[parent] = above
                parent = above.parent_id
            frontier = [turn_id]
            for _step in range(depth):  # forward, every branch
                frontier = [child for node in frontier for child in children.get(node, ())]
                if not frontier:
                    break
                for child in frontier:
                    found[child] = turns[child]
        return sorted(found.values(), key=lambda t: (t.created_at, t.id))

    @_operation
    def fork(self, tenant: str, session_id: str, turn_id: str) -> Turn:
        """Move the session's head to an earlier turn of the same session."""
        turn = self._turn(tenant, turn_id)
        if turn.session_id != session_id:
            raise InvalidInput(
                f"turn {turn_id!r} belongs to conversation {turn.session_id!r}, not "
                f"{session_id!r}; fork only within one conversation",
                turn_id=turn_id,
                session_id=session_id,
            )
        self._commit({"op": "put", "tenant": tenant, "heads": {session_id: turn_id}})
        return turn

    @_operation
    def branch(self, tenant: str, session_id: str, *, limit: int | None = None) -> list[Turn]:
        """The active branch, oldest first; only the newest ``limit`` when given."""
        check_limit(limit)
        data = self._tenant(tenant)
        session = data.sessions.get(session_id)
        out: list[Turn] = []
        turn_id = session.head if session else None
        turns = data.turns
        while turn_id is not None and (limit is None or len(out) < limit):
            turn = turns[turn_id]
            out.append(turn)
            turn_id = turn.parent_id
        out.reverse()
        return out

    @_operation
    def list_turns(self, tenant: str, session_id: str) -> list[Turn]:
        """Every turn of the session, all branches, in creation order."""
        data = self._tenant(tenant)
        session = data.sessions.get(session_id)
        turns = [data.turns[t] for t in session.order] if session else []
        turns.sort(key=lambda t: t.created_at)
        return turns

    @_operation
    def count_turns(self, tenant: str, session_id: str | None = None) -> int:
        """Turns in one session (all branches), or in all sessions."""
        data = self._tenant(tenant)
        if session_id is None:
            return len(data.turns)
        session = data.sessions.get(session_id)
        return len(session.order) if session else 0

    @_operation
    def delete_turn(self, tenant: str, turn_id: str) -> bool:
        """Delete a turn; children re-link to its parent; a deleted head moves to its parent."""
        if turn_id not in self._tenant(tenant).turns:
            return False
        self._commit({"op": "delete_turn", "tenant": tenant, "id": turn_id})
        return True

    @_operation
    def delete_conversation(self, tenant: str, session_id: str) -> int:
        """Delete every turn of a session; return how many there were."""
        session = self._tenant(tenant).sessions.get(session_id)
        if session is None:
            return 0
        count = len(session.order)
        self._commit({"op": "delete_conversation", "tenant": tenant, "session_id": session_id})
        return count

    @_operation
    def search_turns(self, tenant: str, filter: TurnFilter) -> list[Turn]:
        """Turns matching every condition, newest first."""
        if not isinstance(filter, TurnFilter):
            raise InvalidInput("filter must be a TurnFilter")
        words = filter.text.casefold().split() if filter.text else []
        found = []
        for turn in self._tenant(tenant).turns.values():
            if filter.session_id is not None and turn.session_id != filter.session_id:
                continue
            if filter.speaker is not None and turn.speaker != filter.speaker:
                continue
            if filter.role is not None and turn.role != filter.role:
                continue
            if filter.since is not None and turn.created_at < filter.since:
                continue
            if filter.until is not None and turn.created_at >= filter.until:
                continue
            if words:
                content = turn.content.casefold()
                if not all(w in content for w in words):
                    continue
            found.append(turn)
        found.sort(key=lambda t: (t.created_at, t.id), reverse=True)
        return found[: filter.limit] if filter.limit else found

    @_operation
    def list_sessions(self, tenant: str) -> list[SessionInfo]:
        """Every session with turns, most recently active first."""
        data = self._tenant(tenant)
        infos = []
        for session_id, session in data.sessions.items():
            if not session.order:
                continue
            times = [data.turns[t].created_at for t in session.order]
            infos.append(
                SessionInfo(
                    session_id=session_id,
                    turn_count=len(times),
                    first_at=min(times),
                    last_at=max(times),
                    head_id=session.head,
                )
            )
        infos.sort(key=lambda s: (s.last_at, s.session_id), reverse=True)
        return infos
