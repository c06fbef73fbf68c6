"""Summarizers: what folds the turns evicted from the recent window into the summary.

:class:`Summarizer` is the protocol (an LLM-backed summarizer implements it too; raising
any ``Exception`` counts as a failure and drives :mod:`graphmem.policy.health`);
:class:`LineSummarizer` the deterministic default, no LLM; :func:`as_summarizer` takes
either, or a plain ``(previous, evicted) -> str`` callable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from graphmem.conversation.summarize import summarize_trajectory, summarize_turn
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Turn

__all__ = ["LineSummarizer", "Summarizer", "as_summarizer"]


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
        (:func:`~graphmem.conversation.summarize_trajectory`, cut to ``max_chars_per_turn``);
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


def as_summarizer(
    summarizer: Summarizer | Callable[[str, Sequence[Turn]], str] | None,
) -> Summarizer:
    """The summarizer to use: ``summarizer``, a callable wrapped, or the default.

    Raises:
        InvalidInput: Neither a :class:`Summarizer` nor a callable.
    """
    if summarizer is None:
        return LineSummarizer()
    if isinstance(summarizer, Summarizer):
        return summarizer
    if callable(summarizer):
        return _CallableSummarizer(summarizer)
    raise InvalidInput("summarizer must have a summarize(previous, evicted) method")
