"""The session log: turns (with an agent's trajectory and artifacts), branches, sessions."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import AfterValidator, Field, field_validator, model_validator

from graphmem.core.models.base import (
    _CONTROL_CHARS,
    Identifier,
    Limit,
    SafeName,
    Timestamp,
    _check_name_length,
    _check_text,
    _Model,
    new_id,
    utcnow,
)

_MAX_LABEL_LENGTH = 200


def _check_label(value: str) -> str:
    value = _check_text(value)
    if len(value) > _MAX_LABEL_LENGTH:
        raise ValueError(f"is {len(value)} characters long; at most {_MAX_LABEL_LENGTH}")
    if _CONTROL_CHARS.search(value):
        raise ValueError("contains control characters")
    return value


Label = Annotated[str, AfterValidator(_check_label)]
"""A short one-line name (a tool name, a media type): 1 to 200 characters, no control ones."""


class ToolCall(_Model):
    """One tool an agent invoked during a turn, as a digest (not the full call).

    >>> ToolCall(name="search_lore", summary="looked up the Drowned Bell").name
    'search_lore'
    """

    name: Label
    summary: str | None = None


class Trajectory(_Model):
    """What an agent did to produce a turn, digested: tools, observations, reasoning.

    Agent runtimes record far more (every call's arguments and raw output); keep here what
    a later reader (a summariser, an LLM's context, a human) should know. The summariser and
    :meth:`graphmem.policy.ConversationMemory.llm_context` use it.

    Attributes:
        tools: The tools invoked, in order.
        observations: A summary of what the agent observed (tool results, retrieved facts).
        reasoning: A summary of its reasoning.
    """

    tools: tuple[ToolCall, ...] = ()
    observations: str | None = None
    reasoning: str | None = None

    @property
    def is_empty(self) -> bool:
        """Whether the digest says nothing (no tools, observations or reasoning)."""
        return not self.tools and not self.observations and not self.reasoning


class Artifact(_Model):
    """Something an agent showed the user with a turn: a file, an image, a table, a snippet.

    Attributes:
        id: The artifact's id in the agent runtime.
        title: What to call it.
        media_type: Its media type (``text/markdown``, ``image/png``, ...).
        uri: Where it lives, when it is not inline.
        content: Inline text content, when small enough to keep.
    """

    id: Identifier
    title: str | None = None
    media_type: Label | None = None
    uri: str | None = None
    content: str | None = None


class ArtifactRef(_Model):
    """A reference to an artifact kept hidden from the user (a scratch file, raw tool output).

    Only a reference is stored, never the content. Hidden artifacts never reach an LLM's
    context or a summary: :class:`graphmem.policy.LLMContext` strips them from its turns.
    """

    id: Identifier
    media_type: Label | None = None
    uri: str | None = None


class Turn(_Model):
    """One conversation entry. ``parent_id`` is the entry before it on its branch.

    ``id`` is graphmem's id for the turn; ``turn_id`` is an optional id of the caller's own
    (a game's message id, say) kept alongside it.

    An agent's turn may also carry a ``trajectory`` (the digest of the tools it invoked,
    what it observed and how it reasoned), the ``artifacts`` it showed the user and
    ``hidden_artifacts``: references to those it kept hidden. All three are optional and
    empty by default.
    """

    id: Identifier = Field(default_factory=new_id)
    parent_id: Identifier | None = None
    session_id: Identifier
    role: SafeName
    speaker: Annotated[str | None, AfterValidator(_check_name_length)] = None
    content: str
    summary: str | None = None
    turn_id: Identifier | None = None
    created_at: Timestamp = Field(default_factory=utcnow)
    trajectory: Trajectory | None = None
    artifacts: tuple[Artifact, ...] = ()
    hidden_artifacts: tuple[ArtifactRef, ...] = ()

    @field_validator("role", mode="before")
    @classmethod
    def _role_value(cls, value: Any) -> Any:
        return value.value if isinstance(value, StrEnum) else value

    @model_validator(mode="after")
    def _artifact_ids_unique(self) -> Self:
        ids = [a.id for a in self.artifacts] + [a.id for a in self.hidden_artifacts]
        if len(set(ids)) != len(ids):
            raise ValueError("artifact ids repeat (shown and hidden artifacts share one id space)")
        return self


class Branch(_Model):
    """One branch of a conversation tree: the path from the root to a leaf.

    Attributes:
        leaf: The newest turn of the branch (a turn without children).
        fork_point: The turn after which this branch goes its own way: the nearest
            earlier turn on it with more than one child; None for a conversation that
            never forked.
        length: How many turns the branch holds, root and leaf included.
        active: Whether the conversation's head lies on this branch (the head is its
            leaf or an earlier turn of it; right after a fork, several branches share it).
    """

    leaf: Turn
    fork_point: Turn | None = None
    length: int = Field(gt=0)
    active: bool = False


class SessionInfo(_Model):
    """What the session log knows of one session."""

    session_id: str
    turn_count: int
    first_at: datetime
    last_at: datetime
    head_id: str | None


class TurnFilter(_Model):
    """Which turns of the session log to read; every given condition must hold.

    Attributes:
        session_id: One session only.
        speaker: Turns by this speaker (exact).
        role: Turns with this role.
        since: Created at or after this time.
        until: Created before this time.
        text: Every whitespace-separated keyword occurs in the content (case-insensitive).
        limit: At most this many, newest first.
    """

    session_id: Identifier | None = None
    speaker: str | None = None
    role: SafeName | None = None
    since: Timestamp | None = None
    until: Timestamp | None = None
    text: str | None = None
    limit: Limit | None = None

    @field_validator("role", mode="before")
    @classmethod
    def _role_value(cls, value: Any) -> Any:
        return value.value if isinstance(value, StrEnum) else value
