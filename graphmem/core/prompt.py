"""Prompt rendering of an NPC identity under a token budget (pure, no I/O)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphmem.core.models import WELL_KNOWN_ATTRIBUTES, estimate_tokens

if TYPE_CHECKING:
    from graphmem.core.models import Entity, NPCIdentity


@dataclass(frozen=True, slots=True)
class _Fact:
    line: str
    confirmed: bool
    confidence: float
    learned_at: datetime


def _label(key: str) -> str:
    return key.replace("_", " ").capitalize()


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_value(v)}" for k, v in value.items())
    return str(value)


def _facts(identity: NPCIdentity) -> list[_Fact]:
    npc = identity.entity
    names: dict[str, Entity] = {e.id: e for e in identity.related_entities}
    names[npc.id] = npc
    facts: list[_Fact] = []
    for key in sorted(k for k in npc.attributes if k not in WELL_KNOWN_ATTRIBUTES):
        line = f"- {_label(key)}: {_value(npc.attributes[key])}"
        facts.append(_Fact(line, False, 1.0, npc.updated_at))
    for rel in identity.relationships:
        source = names.get(rel.source_id)
        target = names.get(rel.target_id)
        source_name = source.name if source else rel.source_id
        target_name = target.name if target else rel.target_id
        prov = rel.provenance
        marks = []
        if prov.confirmed:
            marks.append("confirmed")
        if prov.source != "stated":
            marks.append(prov.source)
        if prov.confidence < 1.0:
            marks.append(f"confidence {prov.confidence:.2f}")
        suffix = f" ({', '.join(marks)})" if marks else ""
        line = f"- {source_name} {rel.type.replace('_', ' ')} {target_name}{suffix}"
        facts.append(_Fact(line, prov.confirmed, prov.confidence, rel.created_at))
    # Most important first: confirmed, then more confident, then newer.
    facts.sort(key=lambda f: (not f.confirmed, -f.confidence, -f.learned_at.timestamp(), f.line))
    return facts


def header_lines(npc: Entity) -> list[str]:
    """The header of an NPC's prompt: name, type and well-known attributes, in order."""
    header = [f"{npc.name} ({npc.type})"]
    for key in WELL_KNOWN_ATTRIBUTES:
        if key in npc.attributes and npc.attributes[key] not in (None, ""):
            header.append(f"{_label(key)}: {_value(npc.attributes[key])}")
    return header


def render_identity(identity: NPCIdentity, max_tokens: int | None) -> str:
    """Render ``identity``; when over ``max_tokens``, drop facts from the least important end."""
    return fit(header_lines(identity.entity), [f.line for f in _facts(identity)], max_tokens)


def fit(
    header: list[str], facts: list[str], max_tokens: int | None, *, title: str = "Facts:"
) -> str:
    """Header, then ``title`` and the fact lines (most important first), within the budget.

    Over budget, fact lines are dropped from the end; the header is kept whole if it fits,
    else cut hard; a note says how many facts were left out when it costs no fact.
    """
    lines = list(header)
    if facts:
        lines.append(title)
    text = "\n".join(lines + facts)
    if max_tokens is None or estimate_tokens(text) <= max_tokens:
        return text
    # The header is the identity itself: keep it whole if it fits, else cut it hard.
    base = "\n".join(header)
    if estimate_tokens(base) >= max_tokens:
        return base[: max_tokens * 4].rstrip()
    kept: list[str] = []
    used = len(base) + len(title) + 1
    budget = max_tokens * 4
    for line in facts:
        cost = len(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    if not kept:
        return base
    lines = [*header, title, *kept]
    omitted = len(facts) - len(kept)
    note = f"- ({omitted} more facts omitted)"
    if used + len(note) + 1 <= budget:  # the note only if it costs no fact
        lines.append(note)
    return "\n".join(lines)
