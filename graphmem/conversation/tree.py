"""Conversations: turns linked by PARENT edges, a head per conversation, forks.

A conversation is a tree of turns. Its active branch runs from the head back to the
root; ``fork`` moves the head to an earlier turn so that the next ``append`` starts a
new branch there. Nothing is lost by forking: every branch stays stored and countable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from graphmem.core.checks import check_identifier, check_limit, check_positive
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import Artifact, ArtifactRef, Branch, Role, Trajectory, Turn, new_id
from graphmem.core.store import GraphStore, TenantDump

__all__ = ["CONVERSATION_FORMAT", "Conversation"]

CONVERSATION_FORMAT = "graphmem.conversation"
_FORMAT_VERSION = 1


class Conversation:
    """One session's conversation, bound to a store and a tenant.

    Get one from :meth:`graphmem.Memory.conversation`.

    >>> import graphmem
    >>> with graphmem.open("memory://", tenant="doc") as mem:
    ...     chat = mem.conversation("s1")
    ...     first = chat.append("player", "Where is the smithy?")
    ...     _ = chat.append("npc", "By the river.", speaker="Mira")
    ...     _ = chat.fork(first.id)
    ...     _ = chat.append("npc", "Ask the miller.", speaker="Tomas")
    ...     [t.content for t in chat.history()]
    ['Where is the smithy?', 'Ask the miller.']
    """

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        session_id: str,
        *,
        max_history: int | None = None,
        on_append: Callable[[Sequence[Turn]], None] | None = None,
    ) -> None:
        if not isinstance(session_id, str) or not session_id.strip():
            raise InvalidInput("a conversation needs a non-empty session id")
        check_identifier(session_id, "the session id")
        check_limit(max_history, "max_history")
        self._store = store
        self._tenant = tenant
        self.session_id = session_id
        self.max_history = max_history
        # Told of every stored turn (the memory queues them for indexing).
        self._on_append = on_append

    def __repr__(self) -> str:
        return f"Conversation(session_id={self.session_id!r}, tenant={self._tenant!r})"

    # ------------------------------------------------------------------ writing

    def append(
        self,
        role: str | Role,
        content: str,
        *,
        speaker: str | None = None,
        turn_id: str | None = None,
        summary: str | None = None,
        created_at: datetime | None = None,
        trajectory: Trajectory | Mapping[str, Any] | None = None,
        artifacts: Iterable[Artifact | Mapping[str, Any]] = (),
        hidden_artifacts: Iterable[ArtifactRef | Mapping[str, Any]] = (),
    ) -> Turn:
        """Append a turn after the head; it becomes the head. One store call.

        Args:
            role: Who speaks: ``user``, ``assistant``, ``player``, ``gm``, ``npc``, ...
            content: What was said.
            speaker: The speaker's name (an NPC's name, a player's handle).
            turn_id: An id of your own for this turn (a game's message id).
            summary: A short summary to keep alongside.
            created_at: When it was said (default: now), for a log written down later;
                a time not after the previous turn's becomes one microsecond after it.
            trajectory: An agent's digest of the turn: tools invoked, a summary of its
                observations and of its reasoning (a :class:`~graphmem.Trajectory` or dict).
            artifacts: What the agent showed the user with the turn.
            hidden_artifacts: References to artifacts it kept hidden (never their content).
        """
        fields: dict[str, Any] = {} if created_at is None else {"created_at": created_at}
        turn = Turn(
            session_id=self.session_id,
            role=role,
            content=content,
            speaker=speaker,
            turn_id=turn_id,
            summary=summary,
            trajectory=trajectory,
            artifacts=_items(artifacts, "artifacts"),
            hidden_artifacts=_items(hidden_artifacts, "hidden_artifacts"),
            **fields,
        )
        stored = self._store.append_turn(self._tenant, turn)
        if self._on_append is not None:
            self._on_append([stored])
        return stored

    def extend(self, entries: Iterable[Mapping[str, Any] | Turn]) -> list[Turn]:
        """Append a list of entries as one chain after the head, in one batch.

        Each entry is a ``Turn`` or a mapping with ``role`` and ``content`` (and optionally
        ``speaker``, ``turn_id``, ``summary``, ``created_at``). All or nothing. The store
        reads the head and writes the chain in one transaction, so appends and batches
        from other threads, processes or servers never fork the conversation.
        """
        turns: list[Turn] = []
        for index, entry in enumerate(_items(entries, "entries")):
            if not isinstance(entry, Turn | Mapping):
                raise InvalidInput(
                    f"entry {index} is a {type(entry).__name__}; give a Turn or a dict",
                    index=index,
                )
            data = entry.model_dump() if isinstance(entry, Turn) else dict(entry)
            data.pop("id", None)
            data.pop("parent_id", None)
            data["session_id"] = self.session_id
            data["id"] = new_id()
            try:
                turn = Turn.model_validate(data)
            except InvalidInput as exc:
                raise InvalidInput(f"entry {index}: {exc.message}", index=index) from exc
            turns.append(turn)
        if not turns:
            return []
        stored = self._store.append_turns(self._tenant, self.session_id, turns)
        if self._on_append is not None:
            self._on_append(stored)
        return stored

    def fork(self, turn: Turn | str) -> Turn:
        """Move the head to an earlier turn of this conversation; return that turn.

        The next :meth:`append` starts a new branch there. ``turn`` is a ``Turn``, its
        ``id``, or the ``turn_id`` you gave it.

        Raises:
            NotFound: No such turn.
            InvalidInput: The turn belongs to another conversation.
        """
        key = turn.id if isinstance(turn, Turn) else turn
        try:
            return self._store.fork(self._tenant, self.session_id, key)
        except NotFound:
            matches = [t for t in self.turns() if t.turn_id == key]
            if len(matches) != 1:
                raise
            return self._store.fork(self._tenant, self.session_id, matches[0].id)

    def delete_turn(self, turn: Turn | str) -> bool:
        """Delete one turn; its children are re-linked to its parent. Missing is fine."""
        key = turn.id if isinstance(turn, Turn) else turn
        try:
            found = self._store.get_turn(self._tenant, key)
        except NotFound:
            return False
        if found.session_id != self.session_id:
            raise InvalidInput(
                f"turn {key!r} belongs to conversation {found.session_id!r}, "
                f"not {self.session_id!r}",
                turn_id=key,
            )
        return self._store.delete_turn(self._tenant, key)

    def delete(self) -> int:
        """Delete the whole conversation, every branch; return how many turns it had."""
        return self._store.delete_conversation(self._tenant, self.session_id)

    # ------------------------------------------------------------------ reading

    @property
    def head(self) -> Turn | None:
        """The newest turn of the active branch, or None before the first append."""
        return self._store.head(self._tenant, self.session_id)

    def history(self, limit: int | None = None) -> list[Turn]:
        """The active branch, oldest first: at most ``limit`` (and ``max_history``) newest turns."""
        check_limit(limit)
        caps = [c for c in (limit, self.max_history) if c is not None]
        return self._store.branch(self._tenant, self.session_id, limit=min(caps) if caps else None)

    def latest(self, n: int = 1) -> list[Turn]:
        """The ``n`` newest turns of the active branch, oldest first."""
        check_positive(n, "n")
        return self._store.branch(self._tenant, self.session_id, limit=n)

    def turns(self) -> list[Turn]:
        """Every turn on every branch, in the order they were created."""
        return self._store.list_turns(self._tenant, self.session_id)

    def branches(self) -> list[Branch]:
        """Every branch of the tree (root to a leaf), oldest leaf first. Two store calls.

        Each :class:`~graphmem.Branch` names its leaf, its fork point (the nearest turn
        on it with more than one child; None while the conversation never forked), its
        length, and whether the head lies on it.

        >>> import graphmem
        >>> with graphmem.open("memory://", tenant="doc") as mem:
        ...     chat = mem.conversation("s1")
        ...     ask = chat.append("player", "Can you take me across?")
        ...     _ = chat.append("npc", "Two coppers.")
        ...     _ = chat.fork(ask)
        ...     _ = chat.append("npc", "Not tonight.")
        ...     [(b.leaf.content, b.fork_point.content, b.length, b.active)
        ...      for b in chat.branches()]
        [('Two coppers.', 'Can you take me across?', 2, False), \
('Not tonight.', 'Can you take me across?', 2, True)]
        """
        turns = self._store.list_turns(self._tenant, self.session_id)
        if not turns:
            return []
        head = self._store.head(self._tenant, self.session_id)
        head_id = head.id if head is not None else None
        by_id = {t.id: t for t in turns}
        children: dict[str, int] = {}
        for t in turns:
            if t.parent_id is not None:
                children[t.parent_id] = children.get(t.parent_id, 0) + 1
        # Per turn, in one pass over the tree: its depth, the nearest fork at or above it,
        # and whether the head is at or above it.
        facts: dict[str, tuple[int, Turn | None, bool]] = {}
        for t in turns:
            pending: list[Turn] = []
            node: Turn | None = t
            while node is not None and node.id not in facts:
                pending.append(node)
                parent = node.parent_id
                node = by_id.get(parent) if parent is not None else None
            depth, fork, active = facts[node.id] if node is not None else (0, None, False)
            for item in reversed(pending):
                depth += 1
                if children.get(item.id, 0) > 1:
                    fork = item
                active = active or item.id == head_id
                facts[item.id] = (depth, fork, active)
        out: list[Branch] = []
        for leaf in turns:  # creation order, so the oldest leaf comes first
            if leaf.id not in children:
                depth, fork, active = facts[leaf.id]
                out.append(Branch(leaf=leaf, fork_point=fork, length=depth, active=active))
        return out

    def count(self) -> int:
        """How many turns the conversation holds, on all branches."""
        return self._store.count_turns(self._tenant, self.session_id)

    def __len__(self) -> int:
        return self.count()

    # ------------------------------------------------------------------ JSON

    def dump(self) -> dict[str, Any]:
        """The whole conversation tree (every branch and the head) as JSON-ready data."""
        head = self.head
        return {
            "format": CONVERSATION_FORMAT,
            "version": _FORMAT_VERSION,
            "session_id": self.session_id,
            "head_id": head.id if head else None,
            "turns": [t.model_dump(mode="json") for t in self.turns()],
        }


def _items(values: object, what: str) -> tuple[Any, ...]:
    """A list argument as a tuple; ``InvalidInput`` for one item alone or a non-list."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise InvalidInput(f"{what} takes a list; wrap a single item in [...]")
    return tuple(values)


def load_conversation(
    store: GraphStore, tenant: str, data: Mapping[str, Any], session_id: str | None = None
) -> Conversation:
    """Store a dumped conversation tree; return it as a Conversation.

    Under its own session id the turns keep their ids; under another one they get new
    ids (so a conversation can be copied). The target session must be empty.
    """
    if not isinstance(data, Mapping) or data.get("format") != CONVERSATION_FORMAT:
        raise InvalidInput(
            f"not a graphmem conversation dump (expected format {CONVERSATION_FORMAT!r})"
        )
    if data.get("version") != _FORMAT_VERSION:
        raise InvalidInput(f"unsupported conversation dump version {data.get('version')!r}")
    raw_turns = data.get("turns")
    if not isinstance(raw_turns, list):
        raise InvalidInput("conversation dump has no list of turns")
    source_session = data.get("session_id")
    target = session_id or source_session
    if not isinstance(target, str) or not target:
        raise InvalidInput("conversation dump names no session id; pass session_id=")
    existing = store.count_turns(tenant, target)
    if existing:
        raise InvalidInput(
            f"session {target!r} already holds {existing} turns; delete it first or load "
            "under another session_id",
            session_id=target,
        )
    remap = target != source_session
    ids: dict[str, str] = {}
    turns: list[Turn] = []
    for index, raw in enumerate(raw_turns):
        if not isinstance(raw, Mapping):
            raise InvalidInput(f"turn {index} of the dump is not an object", index=index)
        row = dict(raw)
        row["session_id"] = target
        if remap:
            old = str(row.get("id"))
            ids[old] = new_id()
            row["id"] = ids[old]
            parent = row.get("parent_id")
            row["parent_id"] = ids.get(parent) if parent is not None else None
            if parent is not None and row["parent_id"] is None:
                raise InvalidInput(
                    f"turn {index} names parent {parent!r}, which comes later or is missing"
                )
        try:
            turns.append(Turn.model_validate(row))
        except InvalidInput as exc:
            raise InvalidInput(f"turn {index}: {exc.message}", index=index) from exc
    head_id = data.get("head_id")
    if remap and head_id is not None:
        head_id = ids.get(head_id)
    store.load(tenant, TenantDump(turns=turns, heads={target: head_id}))
    return Conversation(store, tenant, target)
