"""The conversation room of ``Neo4jStore``: turns, PARENT trees, heads, forks, sessions.

Append, fork, the active branch and a turn's deletion are each one query; what only the
server can see (a turn id that is taken, a parent of another session) is checked inside
the write transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import neo4j

from graphmem.backends.neo4j.mapping import (
    to_datetime,
    turn_from_row,
    turn_from_values,
    turn_props,
    wire_time,
)
from graphmem.backends.neo4j.plumbing import Neo4jBase
from graphmem.backends.neo4j.rows import _limit
from graphmem.core.checks import (
    check_id,
    check_ids,
    check_positive,
)
from graphmem.core.errors import (
    GraphmemError,
    InvalidInput,
    NotFound,
)
from graphmem.core.models import (
    SessionInfo,
    Turn,
    TurnFilter,
)
from graphmem.core.store import check_chain, check_window_depth


class ConversationRoom(Neo4jBase):
    """Conversation turns on Neo4j: PARENT-linked trees with a HEAD per session."""

    def append_turn(self, tenant: str, turn: Turn) -> Turn:
        """Append ``turn`` after its session's head and make it the head; one round trip.

        Its ``created_at`` is moved to just after the parent's if it is not later already.
        A turn id that is taken raises ``InvalidInput``.
        """
        tenant = self._check(tenant)
        if not isinstance(turn, Turn):
            raise InvalidInput(f"append_turn takes a Turn, got {type(turn).__name__}")
        return self._append(tenant, turn.session_id, [turn])[0]

    def append_turns(self, tenant: str, session_id: str, turns: Sequence[Turn]) -> list[Turn]:
        """Append a chain after the session's head in one statement; all or nothing."""
        tenant = self._check(tenant)
        session_id = check_id(session_id, "session_id")
        chain = check_chain(session_id, turns)
        return self._append(tenant, session_id, chain) if chain else []

    def _append(self, tenant: str, session_id: str, turns: Sequence[Turn]) -> list[Turn]:
        """One auto-commit statement: one network round trip.

        ``conversations/append_turn`` for one turn (the common case, and a third less
        work on the server), ``conversations/append_turns`` for a chain. Not repeated
        after a lost connection (it may have been applied; the next attempt would append
        the turns again under new sequence numbers, or fail on their ids).
        """
        rows = []
        for turn in turns:
            props = turn_props(turn)
            rows.append({"props": props, "created_at": wire_time(props.pop("created_at"))})
        found: list[dict[str, Any]]
        params: dict[str, Any]
        if len(rows) == 1:
            params = {"tenant": tenant, "session_id": session_id, **rows[0]}
            # No row: the time would pass the last one (nothing was written).
            found = self._autocommit(
                "conversations/append_turn", params, write=True, repeat=False
            ) or [{"past_last_time": True}]
        else:
            params = {"tenant": tenant, "session_id": session_id, "rows": rows}
            found = self._autocommit("conversations/append_turns", params, write=True, repeat=False)
        [row] = found
        if row["past_last_time"]:
            raise InvalidInput(
                f"the head of session {session_id!r} was created at the last time there is "
                "(9999-12-31T23:59:59.999999Z); no turn can follow it on its branch",
                turn_id=turns[0].id,
            )
        parent_id = row["parent_id"]
        stored = []
        for turn, created_at in zip(turns, row["created"], strict=True):
            stored.append(
                turn.model_copy(
                    update={"parent_id": parent_id, "created_at": to_datetime(created_at)}
                )
            )
            parent_id = turn.id
        return stored

    def get_turn(self, tenant: str, turn_id: str) -> Turn:
        """Return a turn by id; ``NotFound`` if unknown."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "turn_id": check_id(turn_id, "turn id")}
        rows = self._read("conversations/get_turn", params)
        if not rows:
            raise NotFound(
                f"no turn {turn_id!r} in tenant {tenant!r}", turn_id=turn_id, tenant=tenant
            )
        return turn_from_row(rows[0]["turn"])

    def head(self, tenant: str, session_id: str) -> Turn | None:
        """The head of the session's active branch, or None before the first turn."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "session_id": check_id(session_id, "session id")}
        rows = self._read("conversations/get_head", params)
        return turn_from_row(rows[0]["turn"]) if rows else None

    def fork(self, tenant: str, session_id: str, turn_id: str) -> Turn:
        """Move the session's head to an earlier turn; one query.

        ``NotFound`` for an unknown turn; ``InvalidInput`` for a turn of another session.
        """
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "session_id": check_id(session_id, "session id"),
            "turn_id": check_id(turn_id, "turn id"),
        }

        def work(tx: neo4j.ManagedTransaction) -> Turn:
            row = self._run(tx, "conversations/fork_conversation", params)[0]
            if row["turn"] is None:
                raise NotFound(
                    f"no turn {turn_id!r} in tenant {tenant!r}", turn_id=turn_id, tenant=tenant
                )
            found = turn_from_row(row["turn"])
            if found.session_id != session_id:
                raise InvalidInput(
                    f"turn {turn_id!r} belongs to conversation {found.session_id!r}, not "
                    f"{session_id!r}; fork only to a turn of the same conversation",
                    turn_id=turn_id,
                    session_id=session_id,
                )
            if not row["moved"]:
                raise GraphmemError(
                    f"turn {turn_id!r} names session {session_id!r}, which has no "
                    "conversation node (data not written by graphmem?)",
                    turn_id=turn_id,
                    session_id=session_id,
                )
            return found

        return self._execute(work, write=True)

    def branch(self, tenant: str, session_id: str, *, limit: int | None = None) -> list[Turn]:
        """The active branch (head back to root), oldest first; the last ``limit`` if given."""
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "session_id": check_id(session_id, "session id"),
            "limit": _limit(None if limit is None else check_positive(limit, "limit")),
        }
        [row] = self._read("conversations/get_branch", params)
        # Newest first; each turn's parent is the one after it, the oldest's is `beyond`.
        rows = row["turns"]
        if not rows:
            return []
        parents = [turn[0] for turn in rows[1:]] + [row["beyond"]]
        return [
            turn_from_values(turn, parent)
            for turn, parent in zip(reversed(rows), reversed(parents), strict=True)
        ]

    def list_turns(self, tenant: str, session_id: str) -> list[Turn]:
        """Every turn of the session, all branches, in the order they were created."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "session_id": check_id(session_id, "session id")}
        return [
            turn_from_row(row["turn"]) for row in self._read("conversations/list_turns", params)
        ]

    def count_turns(self, tenant: str, session_id: str | None = None) -> int:
        """Turns in one session (all branches), or in every session of the tenant."""
        tenant = self._check(tenant)
        if session_id is not None:
            check_id(session_id, "session id")
        params = {"tenant": tenant, "session_id": session_id}
        return int(self._read("conversations/count_turns", params)[0]["count"])

    def delete_turn(self, tenant: str, turn_id: str) -> bool:
        """Delete a turn, re-linking its children to its parent; one query."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "turn_id": check_id(turn_id, "turn id")}
        return bool(self._write("conversations/delete_turn", params)[0]["deleted"])

    def delete_conversation(self, tenant: str, session_id: str) -> int:
        """Delete every turn of a session and its head; return how many turns there were."""
        tenant = self._check(tenant)
        params = {"tenant": tenant, "session_id": check_id(session_id, "session id")}
        return int(self._write("conversations/delete_conversation", params)[0]["deleted"])

    def search_turns(self, tenant: str, filter: TurnFilter) -> list[Turn]:
        """Turns across sessions matching every condition of ``filter``, newest first."""
        tenant = self._check(tenant)
        if not isinstance(filter, TurnFilter):
            raise InvalidInput("search_turns takes a TurnFilter")
        params = {
            "tenant": tenant,
            "session_id": filter.session_id,
            "speaker": filter.speaker,
            "role": filter.role,
            "since": filter.since,
            "until": filter.until,
            "keywords": filter.text.lower().split() if filter.text else [],
            "limit": _limit(filter.limit),
        }
        return [turn_from_row(row["turn"]) for row in self._read("sessions/search_turns", params)]

    def list_sessions(self, tenant: str) -> list[SessionInfo]:
        """Every session with at least one turn, most recently active first."""
        tenant = self._check(tenant)
        return [
            SessionInfo(
                session_id=row["session_id"],
                turn_count=row["turn_count"],
                first_at=to_datetime(row["first_at"]),
                last_at=to_datetime(row["last_at"]),
                head_id=row["head_id"],
            )
            for row in self._read("sessions/list_sessions", {"tenant": tenant})
        ]

    def get_turns(self, tenant: str, turn_ids: Sequence[str]) -> list[Turn]:
        """Return the turns that exist among ``turn_ids``, in the order asked; one query."""
        tenant = self._check(tenant)
        ids = check_ids(turn_ids, "turn_ids")
        if not ids:
            return []
        rows = self._read(
            "conversations/get_turns", {"tenant": tenant, "ids": list(dict.fromkeys(ids))}
        )
        by_id = {row["turn"]["id"]: turn_from_row(row["turn"]) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def turn_window(self, tenant: str, turn_ids: Sequence[str], *, depth: int = 1) -> list[Turn]:
        """The turns asked and those within ``depth`` PARENT edges of them; one query."""
        tenant = self._check(tenant)
        ids = check_ids(turn_ids, "turn_ids")
        params = {
            "tenant": tenant,
            "ids": list(dict.fromkeys(ids)),
            "depth": check_window_depth(depth),
        }
        if not ids:
            return []
        rows = self._read("conversations/get_turn_window", params)
        return [turn_from_row(row["turn"]) for row in rows]
