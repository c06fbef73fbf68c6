"""Proper names without a model: the :class:`NameExtractor`.

Encyclopaedic and narrative text writes the things it is about with capitals: "G. Stanley
Hall", "the American Psychological Association", "University of North Texas", "Kim
Jong-il". A multi-hop question is answered by passages that share such a name (the
*bridge*), and a passage is rarely titled after it. This extractor finds capitalised runs
of words (joined by a few lower-case particles such as "of" or "de"), drops the words that
are capitalised only because a sentence starts with them, and returns each run as a
``concept`` entity whose id is derived from its name, so the same name found in two chunks
is one entity, and every chunk naming it is linked to it. It extracts no relationships.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Entity, entity_aliases
from graphmem.retrieval.ingest import Extraction

__all__ = ["NameExtractor", "name_entity_id"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# A word: a capital then letters, digits, apostrophes, hyphens or inner dots ("St.", "U.S.",
# "Jong-il", "O'Brien", "McDowell"); possessive "'s" is cut off by the caller.
_WORD = re.compile(r"[^\W\d_][\w'’.\-]*", re.UNICODE)
_PARTICLES = _words("of the de del della di da du des la le von van der den y & upon")
# Particles that may not start or end a name.
_STOP_START = _words(
    """a an the this that these those it its he she they we i you his her their our my your
    in on at of for from by with to as and or but if when while after before during since
    until although though because however there here what which who whom whose where why
    how also then thus yet so not no one some many most all each every both either neither
    other such after also according following despite unlike like among between under over
    early late later earlier"""
)
_ABBREVIATIONS = _words("st mt ft jr sr dr mr mrs ms gen col lt sgt rev co inc ltd")
# Calendar words and numbers name nothing specific enough to bridge two passages.
_CALENDAR = _words(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday"""
)


def name_entity_id(name: str) -> str:
    """The entity id of an extracted name: ``name:`` and its casefolded words.

    >>> name_entity_id("The  American Psychological Association")
    'name:american psychological association'
    """
    words = _clean(name).casefold().split()
    if words and words[0] == "the":
        words = words[1:]
    return "name:" + " ".join(words)


def _clean(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'")


class NameExtractor:
    """Extracts proper names (capitalised word runs) as ``concept`` entities; no relationships.

    Args:
        entity_type: The type given to the entities found.
        min_words: Runs with fewer words are ignored (1 keeps "Tennessee").
        max_words: Longer runs are ignored (a title-cased headline is not a name).

    A single capitalised word that opens a sentence is no evidence of a name; inside one it is:

    >>> text = "In 1892 Hall became the first president of the American Psychological Association."
    >>> found = NameExtractor().extract(text, [])
    >>> [e.name for e in found.entities]
    ['Hall', 'American Psychological Association']
    >>> [e.name for e in NameExtractor().extract("Hall wrote it.", []).entities]
    []
    """

    name = "names"

    def __init__(
        self, *, entity_type: str = "concept", min_words: int = 1, max_words: int = 8
    ) -> None:
        if min_words < 1 or max_words < min_words:
            raise InvalidInput(f"need 1 <= min_words <= max_words, got {min_words} and {max_words}")
        self._type = entity_type
        self._min = min_words
        self._max = max_words

    def names(self, text: str) -> list[str]:
        """The proper names found in ``text``, in order of first appearance, no repeats."""
        found: dict[str, str] = {}
        for run in self._runs(_clean(text)):
            key = name_entity_id(run)
            if key != "name:" and key not in found:
                found[key] = run
        return list(found.values())

    def extract(self, text: str, known: Sequence[Entity]) -> Extraction:
        """Return the names of ``text`` that no ``known`` entity already goes by."""
        taken = {name_entity_id(n) for e in known for n in (e.name, *entity_aliases(e))}
        entities = [
            Entity(id=key, type=self._type, name=name)
            for name in self.names(text)
            if (key := name_entity_id(name)) not in taken
        ]
        return Extraction(entities=entities)

    def _runs(self, text: str) -> Iterable[str]:
        words = list(_WORD.finditer(text))
        run: list[tuple[int, int, str]] = []  # (start, end, word)
        opener = False  # the run began a sentence: one word alone is no evidence of a name

        def close() -> Iterable[str]:
            nonlocal opener
            while run and run[-1][2].lower() in _PARTICLES:
                run.pop()
            if run and self._min <= len(run) <= self._max and not (opener and len(run) == 1):
                yield text[run[0][0] : run[-1][1]]
            run.clear()
            opener = False

        for index, match in enumerate(words):
            word = match.group().rstrip(".'-")
            if word.endswith(("'s", "'S")):
                word = word[:-2]
            start, end = match.start(), match.start() + len(word)
            if not word:
                yield from close()
                continue
            gap = text[run[-1][1] : start] if run else ""
            if run and not _joins(gap):
                yield from close()
            lower = word.lower()
            if word[0].isupper():
                sentence_start = index == 0 or _ends_sentence(text[:start].rstrip())
                if lower in _CALENDAR or (not run and lower in _STOP_START):
                    yield from close()
                    continue
                if sentence_start and not run:
                    opener = True
                run.append((start, end, word))
            elif run and lower in _PARTICLES:
                run.append((start, end, word))
            else:
                yield from close()
            if end < match.end():  # a possessive or a full stop ends the name; initials don't
                initial = len(word) == 1 or lower in _ABBREVIATIONS
                if run and run[-1][0] == start and initial and match.group()[len(word) :] == ".":
                    run[-1] = (start, end + 1, word)
                else:
                    yield from close()
        yield from close()


def _joins(gap: str) -> bool:
    """Two words belong to one name when only spaces (or a single space) separate them."""
    return gap.strip() == "" and "\n" not in gap


def _ends_sentence(before: str) -> bool:
    return not before or before[-1] in '.!?:;"“(' or before.endswith("—")
