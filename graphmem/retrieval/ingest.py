"""Ingest without an LLM: chunking, the Extractor protocol (entity linking: :mod:`.linking`)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from graphmem.core.checks import MAX_ID_LENGTH
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Document, Entity, Relationship, check_safe_name, estimate_tokens
from graphmem.retrieval.linking import EntityLinker

__all__ = [
    "EntityLinker",
    "Extraction",
    "Extractor",
    "IngestReport",
    "NoExtractor",
    "chunk_text",
    "title_entities",
    "title_entity_id",
]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")


def chunk_text(text: str, *, max_tokens: int = 200, overlap: int = 1) -> list[str]:
    """Split text into chunks of at most about ``max_tokens`` tokens, on sentence ends.

    Sentences are packed greedily; the last ``overlap`` sentences of a chunk begin the
    next one, so a fact spanning a boundary is seen whole in one chunk. A sentence longer
    than the budget is cut on whitespace.

    >>> chunk_text("One. Two. Three.", max_tokens=3, overlap=0)
    ['One. Two.', 'Three.']
    """
    if max_tokens <= 0:
        raise InvalidInput(f"max_tokens must be positive, got {max_tokens}")
    if overlap < 0:
        raise InvalidInput(f"overlap must be >= 0, got {overlap}")
    sentences: list[str] = []
    for sentence in _SENTENCE_END.split(text.strip()):
        sentence = sentence.strip()
        while estimate_tokens(sentence) > max_tokens:
            cut = sentence.rfind(" ", 0, max_tokens * 4)
            cut = cut if cut > 0 else max_tokens * 4
            sentences.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if sentence:
            sentences.append(sentence)
    chunks: list[str] = []
    current: list[str] = []
    for sentence in sentences:
        if current and estimate_tokens(" ".join([*current, sentence])) > max_tokens:
            chunks.append(" ".join(current))
            keep = current[-overlap:] if overlap else []
            current = keep if estimate_tokens(" ".join([*keep, sentence])) <= max_tokens else []
        current.append(sentence)
    if current:
        chunks.append(" ".join(current))
    return chunks


@dataclass
class Extraction:
    """What an extractor found in a text: new entities and relationships between them."""

    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)


@runtime_checkable
class Extractor(Protocol):
    """Finds entities and relationships in text (an LLM-based one, typically).

    ``extract(text, known)`` gets one chunk and the entities linked in it; it returns
    what it found. Relationships it returns should carry provenance (``source="inferred"``,
    a confidence, and the chunk id as evidence is added by graphmem).
    """

    @property
    def name(self) -> str:
        """A short name, reported by :class:`IngestReport`."""
        ...

    def extract(self, text: str, known: Sequence[Entity]) -> Extraction:
        """Extract from one chunk of text."""
        ...


class NoExtractor:
    """The default: extracts nothing. Ingest then links chunks to known entities only."""

    name = "none"

    def extract(self, text: str, known: Sequence[Entity]) -> Extraction:
        """Return an empty extraction."""
        return Extraction()


@dataclass
class IngestReport:
    """What :meth:`graphmem.Memory.add_documents` did.

    Attributes:
        documents: Documents ingested.
        chunk_ids: The chunks written, in order.
        mentions: ``MENTIONS`` edges written.
        entities: Entities added by the extractor.
        relationships: Relationships added by the extractor.
        extractor: The extractor's name.
        notes: Things the caller should know (e.g. that no relationships were extracted).
    """

    documents: int = 0
    chunk_ids: list[str] = field(default_factory=list)
    mentions: int = 0
    entities: int = 0
    relationships: int = 0
    extractor: str = "none"
    notes: list[str] = field(default_factory=list)


def title_entity_id(title: str) -> str:
    """The id of a title's entity: ``title:<title>`` (hashed when too long for an id).

    >>> title_entity_id("Prague astronomical clock")
    'title:Prague astronomical clock'
    """
    text = " ".join(title.split())
    found = f"title:{text}"
    if len(found) <= MAX_ID_LENGTH and found.isprintable():
        return found
    return "title:" + hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def title_entities(
    documents: Sequence[Document], entity_type: str = "concept"
) -> tuple[list[Entity], list[Document]]:
    """Each distinct document title as an entity, and the documents linked to theirs.

    What ``add_documents(..., title_entities=True)`` does first: a corpus of titled
    passages (an encyclopedia, a wiki, HotpotQA's) gets one entity per title (id
    :func:`title_entity_id`, name the title, alias the title without a trailing
    parenthetical: "Mercury (planet)" is also "Mercury"), and every passage is *about*
    its title's entity (``entity_ids``), so the ``multihop`` preset treats it as that
    entity's page and other passages naming it lead to it. Documents without a title
    are left as they are.

    >>> docs = [Document(id="d1", title="Mercury (planet)", text="The smallest planet.")]
    >>> entities, linked = title_entities(docs)
    >>> entities[0].name, entities[0].attributes["aliases"], linked[0].entity_ids
    ('Mercury (planet)', ['Mercury'], ('title:Mercury (planet)',))

    Raises:
        InvalidInput: ``entity_type`` is not a safe name.
    """
    check_safe_name(entity_type, "entity_type")
    entities: dict[str, Entity] = {}
    linked: list[Document] = []
    for doc in documents:
        title = " ".join((doc.title or "").split())
        if not title:
            linked.append(doc)
            continue
        entity_id = title_entity_id(title)
        if entity_id not in entities:
            short = _PARENTHETICAL.sub("", title)
            aliases = [short] if short and short != title else []
            entities[entity_id] = Entity(
                id=entity_id, type=entity_type, name=title, attributes={"aliases": aliases}
            )
        ids = tuple(dict.fromkeys([*doc.entity_ids, entity_id]))
        linked.append(doc.model_copy(update={"entity_ids": ids}))
    return list(entities.values()), linked
