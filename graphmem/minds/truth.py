"""What an NPC believes beside what is true: each belief checked against the world state.

The world state is the entity graph (an event's changes are applied to it, see
:mod:`graphmem.minds.world`): a relation fact is a relationship whose type is the
predicate, an attribute fact an entity attribute. A belief *agrees* with the world when
the world holds what it says (or, for a denial, does not). Read as of the clocks given:
relations at world time ``as_of`` and memory time ``recorded_as_of``; attributes are
kept without history, so they are compared with their current value.

One store read per subject the beliefs name, plus one for the subjects' attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graphmem.core.models import RelationshipFilter, _Model
from graphmem.core.store import GraphStore
from graphmem.minds.models import Belief, FactValue, same_value

__all__ = ["BeliefCheck", "check_beliefs"]


class BeliefCheck(_Model):
    """One belief beside the world's truth.

    Attributes:
        belief: The belief (how the NPC came by it, from whom, how sure it is).
        truth: What the world holds for the belief's subject and predicate: the objects
            of a relation, or the value of an attribute (empty: nothing).
        agrees: Whether the world holds what the belief says; false marks a false belief.
    """

    belief: Belief
    truth: tuple[FactValue, ...] = ()
    agrees: bool


def check_beliefs(
    store: GraphStore,
    tenant: str,
    beliefs: Sequence[Belief],
    *,
    as_of: datetime | None = None,
    recorded_as_of: datetime | None = None,
) -> list[BeliefCheck]:
    """Check each belief against the world state, in the order given."""
    relations: dict[str, set[str]] = {}
    attributes: set[str] = set()
    for belief in beliefs:
        fact = belief.fact
        if fact.object is None:
            attributes.add(fact.subject)
        else:
            relations.setdefault(fact.subject, set()).add(fact.predicate)
    held: dict[tuple[str, str], list[str]] = {}
    for subject, predicates in relations.items():
        flt = RelationshipFilter(
            types=tuple(sorted(predicates)), as_of=as_of, recorded_as_of=recorded_as_of
        )
        for rel in store.get_relationships(tenant, subject, flt):
            held.setdefault((subject, rel.type), []).append(rel.target_id)
    values = (
        {e.id: e.attributes for e in store.get_entities(tenant, sorted(attributes))}
        if attributes
        else {}
    )
    checked: list[BeliefCheck] = []
    for belief in beliefs:
        fact = belief.fact
        truth: tuple[FactValue, ...]
        if fact.object is None:
            value = values.get(fact.subject, {}).get(fact.predicate)
            truth = (value,) if isinstance(value, bool | int | float | str) else ()
            said = any(same_value(v, fact.value) for v in truth)
        else:
            truth = tuple(sorted(held.get((fact.subject, fact.predicate), [])))
            said = fact.object in truth
        checked.append(BeliefCheck(belief=belief, truth=truth, agrees=said == fact.holds))
    return checked
