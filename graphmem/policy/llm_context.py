r"""What an LLM's context holds for one conversation, and what each turn costs in it.

:class:`LLMContext` is the value :meth:`ConversationMemory.llm_context
<graphmem.policy.ConversationMemory.llm_context>` returns: the strategy, the summary and
the recent turns, their token estimate and the summarizer's health; ``to_messages()``
maps it onto chat messages (:data:`CHAT_ROLES`). A turn shows as its
:func:`context_text` (content, trajectory digest, the titles of the artifacts it showed;
never its hidden artifacts) and costs that text's :func:`graphmem.estimate_tokens`.
:func:`newest_that_fit` and :func:`fit_lines` cut turns and summary lines to a budget.

>>> fit_lines("first line\nsecond line", 3)
'second line'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graphmem.conversation.summarize import summarize_trajectory
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Artifact, Turn, estimate_tokens
from graphmem.policy.health import HealthState

__all__ = [
    "CHAT_ROLES",
    "LLMContext",
    "context_text",
    "fit_lines",
    "newest_that_fit",
    "turn_tokens",
    "without_hidden",
]

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
    reasoning; :func:`~graphmem.conversation.summarize_trajectory` without a length cap) and
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


def without_hidden(turn: Turn) -> Turn:
    """``turn`` without its hidden artifacts (what an LLM's context may hold)."""
    return turn.model_copy(update={"hidden_artifacts": ()}) if turn.hidden_artifacts else turn


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


def turn_tokens(turn: Turn) -> int:
    """The tokens a turn costs in a context: those of its :func:`context_text`."""
    return estimate_tokens(context_text(turn))


def newest_that_fit(turns: Sequence[Turn], budget: int) -> list[Turn]:
    """The longest run of newest turns whose tokens add up to at most ``budget``."""
    kept: list[Turn] = []
    used = 0
    for turn in reversed(turns):
        cost = turn_tokens(turn)
        if used + cost > budget:
            break
        kept.append(turn)
        used += cost
    kept.reverse()
    return kept


def fit_lines(summary: str, budget: int) -> str:
    """The newest whole lines of ``summary`` that fit ``budget`` tokens (never edited)."""
    if estimate_tokens(summary) <= budget:
        return summary
    kept: list[str] = []
    for line in reversed(summary.split("\n")):
        if estimate_tokens("\n".join([line, *kept])) > budget:
            break
        kept.insert(0, line)
    return "\n".join(kept)
