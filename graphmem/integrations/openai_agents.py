"""An OpenAI Agents SDK ``Session`` whose history is a graphmem conversation.

::

    import graphmem
    from agents import Agent, Runner
    from graphmem.integrations.openai_agents import GraphmemSession

    with graphmem.open("file:///data/agents.graphmem", tenant="my-app") as mem:
        session = GraphmemSession("user-42", mem)
        result = await Runner.run(agent, "Where is the smithy?", session=session)

How the SDK's session maps onto graphmem (``pip install 'graphmem[openai-agents]'``):

- **The session is a conversation** (:meth:`graphmem.Memory.conversation`) of the same
  id: every input item is one turn, ``PARENT``-linked to the item before it, so the
  history is the conversation's active branch, found by retrieval (``kinds=["turn"]``),
  summarised, exported and shown in the inspector like any other conversation.
- **Items are kept losslessly.** A turn's ``content`` is the item's readable text (a
  message's text, a tool call as ``name(arguments)``, a tool's output), its ``role`` the
  item's role or type, and the item itself, as JSON, rides on the turn as an artifact
  (:data:`ITEM_ARTIFACT`) that :meth:`GraphmemSession.get_items` returns unchanged. A turn
  written by another door (an HTTP append, a game) comes back as a message
  ``{"role": ..., "content": ...}``.
- **``pop_item`` forks.** The newest item is not deleted: the conversation's head moves
  to the turn before it, so the popped item stays on a branch of its own
  (:meth:`graphmem.conversation.tree.Conversation.branches`) and the next ``add_items`` starts
  a new one. A conversation this session starts opens with a marker turn (role
  :data:`MARKER_ROLE`, empty content), so popping even the first item keeps it; it is never
  returned as an item.
- **``clear_session`` deletes** the conversation, every branch (that is what clearing
  means; to keep the history, start a new session id instead).

Every call runs the store work in a worker thread, so the event loop never waits on a
disk or a server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

try:
    from agents.memory.session_settings import SessionSettings, resolve_session_limit
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(
        "graphmem.integrations.openai_agents needs the OpenAI Agents SDK: "
        "pip install 'graphmem[openai-agents]'"
    ) from exc

from graphmem.conversation.tree import Conversation
from graphmem.core.checks import SAFE_NAME_PATTERN
from graphmem.core.errors import InvalidInput, UnsupportedOperation
from graphmem.core.models import Turn
from graphmem.memory import Memory

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

__all__ = ["ITEM_ARTIFACT", "ITEM_MEDIA_TYPE", "MARKER_ROLE", "GraphmemSession"]

ITEM_ARTIFACT = "openai-agents-item"
"""The artifact id under which a turn keeps its input item, as JSON."""
ITEM_MEDIA_TYPE = "application/json"
MARKER_ROLE = "session"
"""The role of the empty turn a session's conversation starts with."""
_MARKER_TURN_ID = "openai-agents-session-start"
_MESSAGE_ROLES = frozenset({"user", "assistant", "system", "developer"})
_ASSISTANT_ROLES = frozenset({"assistant", "npc", "gm", "agent", "ai"})


class GraphmemSession:
    """Conversation history of the OpenAI Agents SDK, kept as a graphmem conversation.

    Satisfies ``agents.memory.Session`` (``get_items``, ``add_items``, ``pop_item``,
    ``clear_session``); pass it to ``Runner.run(..., session=...)``.

    Args:
        session_id: The session, and the graphmem conversation's id.
        memory: The graphmem memory (one tenant) that keeps it.
        session_settings: The SDK's session settings (``limit``: how many items
            ``get_items`` returns when the caller names no limit).
    """

    def __init__(
        self,
        session_id: str,
        memory: Memory,
        *,
        session_settings: SessionSettings | None = None,
    ) -> None:
        if not isinstance(memory, Memory):
            raise InvalidInput(f"memory must be a graphmem.Memory, got {type(memory).__name__}")
        self.session_id = session_id
        self.session_settings = session_settings
        self._memory = memory
        self._conversation: Conversation = memory.conversation(session_id)
        # One mutation at a time through this object (pop reads the head, then forks).
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"GraphmemSession(session_id={self.session_id!r}, tenant={self._memory.tenant!r})"

    @property
    def conversation(self) -> Conversation:
        """The graphmem conversation behind the session: branches, fork, dump."""
        return self._conversation

    # ------------------------------------------------------------------ the protocol

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The active branch's items, oldest first; the newest ``limit`` when given."""
        wanted = resolve_session_limit(limit, self.session_settings)
        return await asyncio.to_thread(self._get, wanted)

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` after the newest one, as one chain of turns (all or nothing)."""
        entries = [_entry(item, i) for i, item in enumerate(_listed(items))]
        if not entries:
            return
        async with self._lock:
            await asyncio.to_thread(self._add, entries)

    async def pop_item(self) -> TResponseInputItem | None:
        """Return the newest item and fork the conversation to the one before it."""
        async with self._lock:
            return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        """Delete the conversation, every branch of it."""
        async with self._lock:
            await asyncio.to_thread(self._conversation.delete)

    # ------------------------------------------------------------------ the work

    def _get(self, limit: int | None) -> list[TResponseInputItem]:
        if limit is not None and limit == 0:
            return []
        if limit is None or limit < 0:  # the SDK's SQLite session: a negative limit is none
            turns = self._conversation.history()
        else:
            turns = self._conversation.history(limit + 1)  # one more: the marker may be first
        items = [_item(t) for t in turns if not _is_marker(t)]
        return items[-limit:] if limit is not None and limit > 0 else items

    def _add(self, entries: list[dict[str, Any]]) -> None:
        if self._conversation.head is None:
            # Written through the store, not the conversation: nothing to index, so
            # retrieval never returns it (an empty text matches no words).
            marker = Turn(
                session_id=self.session_id, role=MARKER_ROLE, content="", turn_id=_MARKER_TURN_ID
            )
            self._memory.store.append_turn(self._memory.tenant, marker)
        self._conversation.extend(entries)

    def _pop(self) -> TResponseInputItem | None:
        head = self._conversation.head
        if head is None or _is_marker(head):
            return None
        if head.parent_id is not None:
            self._conversation.fork(head.parent_id)
        elif self._conversation.count() == 1:
            self._conversation.delete_turn(head)  # nothing else to keep
        else:
            raise UnsupportedOperation(
                f"the newest item of session {self.session_id!r} is the first turn of a "
                "conversation started outside this session, and other branches hang off it: "
                "popping it would drop them; fork the conversation instead",
                session_id=self.session_id,
            )
        return _item(head)


# --------------------------------------------------------------------------- items <-> turns


def _listed(items: object) -> Sequence[Any]:
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence):
        raise InvalidInput(f"items must be a list of input items, got {type(items).__name__}")
    return items


def _entry(item: Any, index: int) -> dict[str, Any]:
    """The turn of one input item: readable content, a role, the item as a JSON artifact."""
    if not isinstance(item, Mapping):
        raise InvalidInput(
            f"item {index} is a {type(item).__name__}; input items are dicts", index=index
        )
    try:
        encoded = json.dumps(item, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"item {index} is not JSON: {exc}", index=index) from exc
    return {
        "role": _role(item),
        "content": _text(item),
        "artifacts": [{"id": ITEM_ARTIFACT, "media_type": ITEM_MEDIA_TYPE, "content": encoded}],
    }


def _role(item: Mapping[str, Any]) -> str:
    for key in ("role", "type"):
        value = item.get(key)
        if isinstance(value, str) and SAFE_NAME_PATTERN.fullmatch(value):
            return value
    return "item"


def _text(item: Mapping[str, Any]) -> str:
    kind = item.get("type")
    if kind == "function_call" or ("name" in item and "arguments" in item):
        return f"{item.get('name', '')}({item.get('arguments', '')})"
    output = item.get("output")
    if output is not None:
        return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    content = item.get("content")
    if isinstance(content, str):
        return content
    texts = _texts(content if content is not None else item.get("summary"))
    return "\n".join(texts) if texts else f"[{kind or 'item'}]"


def _texts(value: Any) -> list[str]:
    """The text and refusal strings of a list of content parts (any depth)."""
    out: list[str] = []
    if isinstance(value, Mapping):
        for key in ("text", "refusal"):
            found = value.get(key)
            if isinstance(found, str) and found:
                out.append(found)
        for nested in value.values():
            if isinstance(nested, list | Mapping):
                out.extend(_texts(nested))
    elif isinstance(value, list):
        for part in value:
            out.extend(_texts(part))
    return out


def _is_marker(turn: Turn) -> bool:
    return turn.role == MARKER_ROLE and turn.turn_id == _MARKER_TURN_ID


def _item(turn: Turn) -> TResponseInputItem:
    for artifact in turn.artifacts:
        if artifact.id == ITEM_ARTIFACT and artifact.content is not None:
            item: TResponseInputItem = json.loads(artifact.content)
            return item
    role = turn.role if turn.role in _MESSAGE_ROLES else None
    if role is None:
        role = "assistant" if turn.role in _ASSISTANT_ROLES else "user"
    message: Any = {"role": role, "content": turn.content}
    return message  # type: ignore[no-any-return]
