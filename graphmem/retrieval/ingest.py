"""Ingest without an LLM: chunking, entity linking (Aho-Corasick) and the Extractor protocol."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from graphmem.errors import InvalidInput
from graphmem.models import Entity, Relationship, entity_aliases, estimate_tokens

__all__ = [
    "EntityLinker",
    "Extraction",
    "Extractor",
    "IngestReport",
    "NoExtractor",
    "chunk_text",
]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")


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


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


class EntityLinker:
    """Finds the entities a text names: their names and aliases, whole words, any case.

    One Aho-Corasick automaton (``pyahocorasick``) over every name and alias, so linking
    a text costs one pass over it whatever the number of entities. Overlapping matches
    resolve to the longest (``New Haven`` wins over ``Haven``), unless ``nested`` is asked:
    then a name inside a longer one counts too ("the Prague astronomical clock" names the
    clock and Prague). Queries are read the first way, one reading per phrase; documents
    and turns the second, since a passage that names the clock does mention Prague, and
    the graph walk discounts a broad entity by how many passages mention it.

    >>> linker = EntityLinker([Entity(id="mira", type="npc", name="Mira",
    ...                               attributes={"aliases": ["the smith"]}),
    ...                        Entity(id="forge", type="place", name="Mira's Forge")])
    >>> linker.link("Ask THE SMITH at Mira's Forge; not Miranda.")
    ['mira', 'forge']
    >>> linker.link("Mira's Forge is shut.")
    ['forge']
    >>> linker.link("Mira's Forge is shut.", nested=True)
    ['forge', 'mira']
    """

    def __init__(self, entities: Iterable[Entity], *, min_length: int = 2) -> None:
        import ahocorasick

        self._automaton = ahocorasick.Automaton()
        patterns: dict[str, set[str]] = {}
        for entity in entities:
            for name in (entity.name, *entity_aliases(entity)):
                key = " ".join(name.lower().split())
                if len(key) >= min_length:
                    patterns.setdefault(key, set()).add(entity.id)
        for key, ids in patterns.items():
            self._automaton.add_word(key, (len(key), tuple(sorted(ids))))
        self.size = len(patterns)
        if patterns:
            self._automaton.make_automaton()

    def link(self, text: str, *, nested: bool = False) -> list[str]:
        """The ids of the entities named in ``text``, in order of first appearance.

        ``nested``: also the names inside a longer name (see the class docstring).
        """
        return [entity_id for _start, _end, entity_id in self.spans(text, nested=nested)]

    def spans(self, text: str, *, nested: bool = False) -> list[tuple[int, int, str]]:
        """``(start, end, entity_id)`` of each whole-word mention, in the normalised text.

        Longest matches only (leftmost first), or with ``nested`` also the matches lying
        wholly inside one of those; a match across the end of a longer one is never kept.
        """
        if not self.size:
            return []
        lowered = " ".join(text.lower().split())
        found: list[tuple[int, int, tuple[str, ...]]] = []
        for end, (length, ids) in self._automaton.iter(lowered):
            start = end - length + 1
            if start > 0 and _is_word_char(lowered[start - 1]):
                continue
            if end + 1 < len(lowered) and _is_word_char(lowered[end + 1]):
                continue
            found.append((start, end + 1, ids))
        found.sort(key=lambda m: (m[0], -(m[1] - m[0])))
        out: list[tuple[int, int, str]] = []
        seen: set[str] = set()
        last_end = -1
        for start, end, ids in found:
            if start < last_end:
                if not nested or end > last_end:
                    continue  # inside a longer match, or across its end (another reading)
            else:
                last_end = end
            for entity_id in ids:
                if entity_id not in seen:
                    seen.add(entity_id)
                    out.append((start, end, entity_id))
        return out


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
