"""Pages: an entity whose own page is among the results gives its place to the page.

A document can be *about* entities (``Document.entity_ids``; every titled passage of
``add_documents(..., title_entities=True)`` is about its title's entity): its chunks are
those entities' pages. When a retrieve asks for entities and chunks together and both an
entity and one of its pages are among the best, the page says everything the entity's
result would (its name, and what the page tells of it) and more, so the entity result is
folded into the page: the page ranks with the better of the two scores and the entity
leaves its slot to the next result. An entity whose page is not among the best keeps its
place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graphmem.core.models import Chunk

__all__ = ["fold_pages"]


def fold_pages(
    pick: Sequence[tuple[float, str, str]], chunks: Mapping[str, Chunk]
) -> list[tuple[float, str, str]]:
    """``pick`` (``(-score, kind, id)``, best first) with entities folded into their pages.

    ``chunks``: the picked chunks, read (their ``about`` attribute names the entities
    their document is about).

    >>> page = Chunk(id="p#0", text="Arthur's Magazine was a monthly.",
    ...              attributes={"about": ["title:Arthur's Magazine"]})
    >>> fold_pages([(-1.2, "entity", "title:Arthur's Magazine"), (-0.9, "chunk", "p#0"),
    ...             (-0.8, "entity", "other")], {"p#0": page})
    [(-1.2, 'chunk', 'p#0'), (-0.8, 'entity', 'other')]
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
    return sorted(item for item in out if not (item[1] == "entity" and item[2] in folded))
