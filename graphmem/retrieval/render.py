"""Prompt text from retrieved context, under a token budget."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.core.errors import InvalidInput
from graphmem.core.models import ContextResult, estimate_tokens

__all__ = ["render_context"]

_LABELS = {"chunk": "doc", "turn": "said", "entity": "entity", "relationship": "fact"}


def render_context(
    results: Sequence[ContextResult],
    max_tokens: int | None = None,
    *,
    header: str = "Relevant memory:",
) -> str:
    """Render results as prompt lines, best first, within ``max_tokens`` when given.

    Each line is ``- [label id] content`` (label: doc, said, entity, fact; a turn's id is
    the caller's ``turn_id`` when it has one), facts with their confidence. Over budget,
    the lowest-scoring results are left out first; a result that does not fit is skipped
    and smaller ones after it may still be kept. Tokens are counted with
    :func:`graphmem.estimate_tokens`.

    >>> from graphmem import ContextResult
    >>> r = ContextResult(kind="entity", source_id="mira", content="Mira [npc]", score=1.0)
    >>> print(render_context([r]))
    Relevant memory:
    - [entity mira] Mira [npc]

    Raises:
        InvalidInput: ``max_tokens`` is not positive.
    """
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens <= 0):
        raise InvalidInput(f"max_tokens must be a positive integer, got {max_tokens!r}")
    lines = [header] if header else []
    used = estimate_tokens(header) if header else 0
    for result in sorted(results, key=lambda r: -r.score):
        shown = result.turn_id if result.turn_id is not None else result.source_id
        line = f"- [{_LABELS[result.kind]} {shown}] {result.content}"
        if result.kind == "relationship" and result.provenance is not None:
            mark = ", confirmed" if result.provenance.confirmed else ""
            line += f" (confidence {result.provenance.confidence:.2f}{mark})"
        cost = estimate_tokens(line) + 1
        if max_tokens is not None and used + cost > max_tokens:
            continue
        lines.append(line)
        used += cost
    return "\n".join(lines)
