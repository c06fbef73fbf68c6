"""Pages and names: an entity result that a passage among the best says gives up its slot.

A document can be *about* entities (``Document.entity_ids``; every titled passage of
``add_documents(..., title_entities=True)`` is about its title's entity): its chunks are
those entities' pages. When a retrieve asks for entities and passages together and both an
entity and one of its pages are among the best, the page says everything the entity's
result would (its name, and what the page tells of it) and more, so the entity result is
folded into the page: the page ranks with the better of the two scores and the entity
leaves its slot to the next result.

An entity that is only a name (no description and no fact among those the retrieve read:
what a name extractor makes of every proper name a passage writes) says no more than a
passage that names it, so it is folded the same way into the best passage among the
results that mentions it (a chunk or a turn): that passage ranks with the better of the
two scores and the entity leaves its slot. An entity with a description, or with neither
a page nor (when bare) a mentioning passage among the best, keeps its place; so do the
facts about it. A memory of entities and facts with no passages folds nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from graphmem.core.models import Chunk, Entity, Relationship

__all__ = ["bare_entities", "fold_pages"]

_PASSAGES = ("chunk", "turn")


def fold_pages(
    pick: Sequence[tuple[float, str, str]],
    chunks: Mapping[str, Chunk],
    mentions: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    bare: Collection[str] = (),
) -> list[tuple[float, str, str]]:
    """``pick`` (``(-score, kind, id)``, best first) with entities folded into passages.

    ``chunks``: the picked chunks, read (their ``about`` attribute names the entities
    their document is about). ``mentions``: per kind (``chunk``, ``turn``), what each
    picked passage mentions; ``bare``: the entities whose result is their name alone.
    An entity with a page among ``pick`` is folded into its pages; a ``bare`` one
    without, into the best passage of ``pick`` that mentions it.

    >>> page = Chunk(id="p#0", text="Arthur's Magazine was a monthly.",
    ...              attributes={"about": ["title:Arthur's Magazine"]})
    >>> fold_pages([(-1.2, "entity", "title:Arthur's Magazine"), (-0.9, "chunk", "p#0"),
    ...             (-0.8, "entity", "other")], {"p#0": page})
    [(-1.2, 'chunk', 'p#0'), (-0.8, 'entity', 'other')]
    >>> fold_pages([(-1.1, "entity", "name:monthly"), (-0.9, "chunk", "p#0")], {"p#0": page},
    ...            {"chunk": {"p#0": ["name:monthly"]}}, {"name:monthly"})
    [(-1.1, 'chunk', 'p#0')]
    """
    entity_score = {node: value for value, kind, node in pick if kind == "entity"}
    if not entity_score:
        return list(pick)
    folded: set[str] = set()
    out: list[tuple[float, str, str]] = []
    for value, kind, node in pick:
        chunk = chunks.get(node) if kind == "chunk" else None
        if chunk is not None:
            about = chunk.attributes.get("about", ())
            for entity_id in about if isinstance(about, list | tuple) else ():
                if entity_id in entity_score:
                    value = min(value, entity_score[entity_id])
                    folded.add(entity_id)
        out.append((value, kind, node))
    ranked = sorted(item for item in out if not (item[1] == "entity" and item[2] in folded))
    if not bare or not mentions:
        return ranked
    first: dict[str, tuple[str, str]] = {}  # a bare entity -> the best passage naming it
    for _value, kind, node in ranked:
        for entity_id in mentions.get(kind, {}).get(node, ()) if kind in _PASSAGES else ():
            if entity_id in bare and entity_id not in first:
                first[entity_id] = (kind, node)
    lift: dict[tuple[str, str], float] = {}
    named: set[str] = set()
    for value, kind, node in ranked:
        if kind == "entity" and node in first:
            named.add(node)
            lift[first[node]] = min(value, lift.get(first[node], 0.0))
    if not named:
        return ranked
    return sorted(
        (min(value, lift.get((kind, node), 0.0)), kind, node)
        for value, kind, node in ranked
        if not (kind == "entity" and node in named)
    )


def bare_entities(
    ids: Iterable[str], entities: Mapping[str, Entity], facts: Iterable[Relationship]
) -> set[str]:
    """The entities among ``ids`` whose result is their name and nothing more.

    No description, and no part in any of ``facts`` (those a retrieve read: the facts
    its walk met around its seeds, an entity the query names being one). Only a
    retrieve that walked the graph knows them; without a walk, take none for bare.

    >>> bare_entities(["a", "b", "c"], {
    ...     "a": Entity(id="a", type="concept", name="Wend"),
    ...     "b": Entity(id="b", type="npc", name="Mira", attributes={"description": "smith"}),
    ...     "c": Entity(id="c", type="npc", name="Halden")},
    ...     [Relationship(source_id="c", target_id="d", type="knows")])
    {'a'}
    """
    in_facts = {end for rel in facts for end in (rel.source_id, rel.target_id)}
    out: set[str] = set()
    for entity_id in ids:
        entity = entities.get(entity_id)
        if entity is None or entity_id in in_facts:
            continue
        description = entity.attributes.get("description")
        if not (isinstance(description, str) and description.strip()):
            out.add(entity_id)
    return out
