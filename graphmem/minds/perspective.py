"""Who an NPC is *as it sees things*: the identity snapshot of its own beliefs."""

from __future__ import annotations

from typing import ClassVar

from graphmem.core.errors import InvalidInput
from graphmem.core.models import NPCIdentity
from graphmem.minds.models import Belief
from graphmem.minds.render import render_perspective

__all__ = ["PerspectiveIdentity"]


class PerspectiveIdentity(NPCIdentity):
    """Who an NPC is *as it sees things*: its first-order beliefs, not the world's facts.

    ``relationships`` are the relations it believes hold (provenance: how it came by
    each, its confidence, the event as evidence); ``related_entities`` the entities its
    beliefs name; ``beliefs`` every belief rendered, denials and attribute beliefs
    included. :meth:`to_prompt` renders them with "heard from X" where it matters.
    """

    beliefs: tuple[Belief, ...] = ()

    _FACT_ORDER: ClassVar[str] = "higher confidence first, then more important, then newer"

    def to_prompt(self, max_tokens: int | None = None) -> str:
        """Render what the NPC believes as prompt text, within ``max_tokens`` when given.

        The header is the NPC's own (as :meth:`NPCIdentity.to_prompt`), then one line per
        belief; over budget, the least confident, least important and oldest go first.

        Raises:
            InvalidInput: ``max_tokens`` is not positive.
        """
        if max_tokens is not None and max_tokens <= 0:
            raise InvalidInput(f"max_tokens must be positive, got {max_tokens}")
        return render_perspective(self.entity, self.beliefs, self.names(), max_tokens)

    def names(self) -> dict[str, str]:
        """Entity names by id: the NPC and every entity its beliefs name."""
        out = {e.id: e.name for e in self.related_entities}
        out[self.entity.id] = self.entity.name
        return out
