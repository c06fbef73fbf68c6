"""Entity linking: the :class:`EntityLinker`, and :class:`Linking`, which keeps it fresh.

The linker finds the entities a text names with one Aho-Corasick automaton over the
*tokens* of every name and alias (a token is a run of word characters or one other
character; spaces only separate them). Each token of a text moves the automaton once
(amortised), and every match it reports is found through an output link, never by
walking a chain of states that match nothing. So linking costs time linear in the text's
length plus the number of matches, whatever the names: a name of 20,000 characters that
repeats one word, met by a question repeating it, costs what any question of that length
costs. (pyahocorasick, used before, walks the whole failure chain at every character to
find its outputs: quadratic on such a name, 15 s for 128k characters.)

:class:`Linking` holds one tenant's linker and rebuilds it when the store's entity
version (:meth:`graphmem.GraphStore.entity_version`) is not the one it was built at, so a
renamed, added or deleted entity is linked (or no longer linked) from the next call on.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.core.models import VALUE_ENTITY_TYPE, Entity, EntityFilter, entity_aliases

if TYPE_CHECKING:
    from graphmem.core.store import GraphStore

__all__ = ["EntityLinker", "Linking", "Mention"]

# A token: a run of word characters (``str.isalnum()`` or ``_``, as ``\w`` reads them), or
# one character that is neither a word character nor a space.
_TOKEN = re.compile(r"\w+|[^\w\s]")
_Payload = tuple[int, tuple[str, ...]]  # (tokens in the name, entity ids)


def normalise(text: str) -> str:
    r"""Lower-case, every run of white space one space, none at either end.

    Spans of :meth:`EntityLinker.spans` are positions in this text.

    >>> normalise("  The   SMITH\n ")
    'the smith'
    """
    return " ".join(text.lower().split())


def _symbols(text: str) -> tuple[list[str], list[int], list[int]]:
    """A normalised text's tokens as automaton symbols, with their start and end.

    A symbol is the token with one character before it saying what separates it from the
    token before: a space (``" "``) or nothing (``"+"``; ``Mira's`` is ``mira``, ``+'``,
    ``+s``). The first token counts as after a space.
    """
    symbols: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for match in _TOKEN.finditer(text):
        start = match.start()
        glued = start > 0 and text[start - 1] != " "
        symbols.append(("+" if glued else " ") + match.group())
        starts.append(start)
        ends.append(match.end())
    return symbols, starts, ends


# Words that are never a name part on their own, nor start or end one: "the" of "The
# Copper Kettle", "of" of "Order of Ravens", titles shared by many ("St.", "Dr.").
_STOP_TEXT = """a an the of and or in on at to for from by with de del der di da du la le van
von y st dr mr mrs ms mx sir s"""
_PART_STOP = frozenset(_STOP_TEXT.split())


MAX_PART_WORDS = 6
"""The longest run of a name's first or last words that links it (``sister ilse``)."""


def _name_parts(key: str) -> set[str]:
    """The parts of a normalised name a question may name it by.

    Each word (of three or more letters), and its first and last words (``sister ilse``,
    ``ilse fenwick``).
    """
    words = key.split(" ")
    if len(words) < 2:
        words = [w for w in re.split(r"[^\w]+", key) if w]
        if len(words) < 2:
            return set()
    out: set[str] = set()
    # Runs of at most MAX_PART_WORDS words from either end: every prefix and suffix of a
    # long name (a 200,000-character one has tens of thousands of words) would be
    # quadratic in its length (found by the long fuzz run).
    n = len(words)
    runs = [words[:i] for i in range(1, min(n, MAX_PART_WORDS + 1))]
    runs += [words[i:] for i in range(max(1, n - MAX_PART_WORDS), n)]
    runs += [[w] for w in words]
    for run in runs:
        bare = [re.sub(r"^\W+|\W+$", "", re.sub(r"['’]s$", "", w)) for w in run]
        if not bare[0] or not bare[-1] or bare[0] in _PART_STOP or bare[-1] in _PART_STOP:
            continue
        if len(run) == 1 and (len(bare[0]) < 3 or not bare[0].isalpha()):
            continue
        out.add(" ".join([*run[:-1], bare[-1]]) if len(run) > 1 else bare[0])
    return out


def _build(names: dict[str, set[str]]) -> _Automaton | None:
    patterns: dict[tuple[str, ...], _Payload] = {}
    for key, ids in names.items():
        symbols = _symbols(key)[0]
        if not symbols:
            continue
        payload = (len(symbols), tuple(sorted(ids)))
        rest = tuple(symbols[1:])
        # The name's first token may follow a space or be glued to what precedes it
        # (the check that no word character precedes it comes after the match).
        first = symbols[0][1:]
        patterns[(" " + first, *rest)] = payload
        patterns[("+" + first, *rest)] = payload
    return _Automaton(patterns) if patterns else None


@dataclass(frozen=True, slots=True)
class Mention:
    """Where a text names entities (:meth:`EntityLinker.mentions`).

    Attributes:
        start: Where the mention starts in the normalised text (:func:`normalise`).
        end: Where it ends.
        ids: The entities it names (several: ambiguous).
        exact: A whole name or alias (else a part of a name: a first name, a surname).
        text: The words of the mention, normalised.
    """

    start: int
    end: int
    ids: tuple[str, ...]
    exact: bool
    text: str


class _Automaton:
    """Aho-Corasick over symbol sequences, with output (dictionary suffix) links."""

    __slots__ = ("fail", "goto", "link", "out")

    def __init__(self, patterns: dict[tuple[str, ...], _Payload]) -> None:
        goto: list[dict[str, int]] = [{}]
        out: list[_Payload | None] = [None]
        for pattern, payload in patterns.items():
            state = 0
            for symbol in pattern:
                nxt = goto[state].get(symbol)
                if nxt is None:
                    nxt = len(goto)
                    goto[state][symbol] = nxt
                    goto.append({})
                    out.append(None)
                state = nxt
            out[state] = payload
        fail = [0] * len(goto)
        link = [0] * len(goto)  # the nearest state on the failure chain with an output
        queue = list(goto[0].values())
        for state in queue:  # breadth first: a state's failure is shallower than it
            for symbol, child in goto[state].items():
                queue.append(child)
                back = fail[state]
                while back and symbol not in goto[back]:
                    back = fail[back]
                target = goto[back].get(symbol, 0)
                fail[child] = target
                link[child] = target if out[target] is not None else link[target]
        self.goto, self.fail, self.out, self.link = goto, fail, out, link

    def matches(self, symbols: Sequence[str]) -> list[tuple[int, int, tuple[str, ...]]]:
        """``(first token, last token, ids)`` of every pattern occurrence, by end."""
        goto, fail, out, link = self.goto, self.fail, self.out, self.link
        found: list[tuple[int, int, tuple[str, ...]]] = []
        state = 0
        for index, symbol in enumerate(symbols):
            while state and symbol not in goto[state]:
                state = fail[state]
            state = goto[state].get(symbol, 0)
            node = state if out[state] is not None else link[state]
            while node:
                length, ids = out[node]  # type: ignore[misc]
                found.append((index - length + 1, index, ids))
                node = link[node]
        return found


class EntityLinker:
    """Finds the entities a text names: their names and aliases, whole words, any case.

    One Aho-Corasick automaton over every name and alias, so linking a text costs one
    pass over it whatever the number of entities, and time linear in its length whatever
    their names (module docstring). Overlapping matches resolve to the longest (``New
    Haven`` wins over ``Haven``), unless ``nested`` is asked: then a name inside a longer
    one counts too ("the Prague astronomical clock" names the clock and Prague). Queries
    are read the first way, one reading per phrase; documents and turns the second, since
    a passage that names the clock does mention Prague, and the graph walk discounts a
    broad entity by how many passages mention it.

    A name matches where its characters (after :func:`normalise`) occur with no word
    character (a letter, digit or ``_``) right before or right after them.

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

    def __init__(
        self, entities: Iterable[Entity], *, min_length: int = 2, parts: bool = False
    ) -> None:
        names: dict[str, set[str]] = {}
        self.said: dict[str, tuple[str, tuple[str, ...]]] = {}
        """Each linked entity's type and names (name first, then aliases), by id."""
        for entity in entities:
            self.said[entity.id] = (entity.type, (entity.name, *entity_aliases(entity)))
            for name in (entity.name, *entity_aliases(entity)):
                key = normalise(name)
                if len(key) >= min_length:
                    names.setdefault(key, set()).add(entity.id)
        self.size = len(names)
        self._automaton = _build(names)
        self._parts: _Automaton | None = None
        if parts:
            pieces: dict[str, set[str]] = {}
            for key, ids in names.items():
                for piece in _name_parts(key):
                    if piece not in names:
                        pieces.setdefault(piece, set()).update(ids)
            self._parts = _build(pieces)

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
        if self._automaton is None:
            return []
        found = _whole_words(self._automaton, normalise(text))
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

    def mentions(self, text: str) -> list[Mention]:
        """The mentions of a question: whole names and aliases, then, with ``parts``, name parts.

        A whole name or alias wins (longest first). Where none matches, a part of a name
        does: a first name, a surname, the first or last words of a name ("Halden", "Crook",
        "the mill" for Crook's Mill, "Sister Ilse"), longest first. Two parts side by side
        that name one entity are one mention ("Commander Okoye" for Commander Amara Okoye),
        and so is a part beside a whole name or alias of the same entity ("Danny Hartley"
        for Daniel Hartley, alias Danny: not also every other Hartley). A mention names
        several entities when they share the name or the part: the caller reports the
        ambiguity.
        """
        lowered = normalise(text)
        out: list[Mention] = []
        taken: list[tuple[int, int]] = []
        if self._automaton is not None:
            last_end = -1
            for start, end, ids in _whole_words(self._automaton, lowered):
                if start < last_end:
                    continue
                last_end = end
                out.append(Mention(start, end, ids, True, lowered[start:end]))
                taken.append((start, end))
        if self._parts is not None:
            last_end = -1
            found: list[Mention] = []
            for start, end, ids in _whole_words(self._parts, lowered):
                if start < last_end or any(a < end and start < b for a, b in taken):
                    continue
                last_end = end
                # a part beside a whole name or alias of the same entity is one mention
                # with it ("Danny Hartley" of Daniel Hartley, alias Danny: not also every
                # Hartley), and so are two parts side by side ("Commander Okoye")
                whole = next(
                    (
                        (i, joined)
                        for i, m in enumerate(out)
                        if (joined := _beside(m, start, end, ids, lowered)) is not None
                    ),
                    None,
                )
                if whole is not None:
                    out[whole[0]] = whole[1]
                    continue
                joined = _beside(found[-1], start, end, ids, lowered) if found else None
                if joined is not None:
                    found[-1] = joined
                    continue
                found.append(Mention(start, end, ids, False, lowered[start:end]))
            out.extend(found)
        out.sort(key=lambda m: m.start)
        return out


def _beside(
    mention: Mention, start: int, end: int, ids: tuple[str, ...], lowered: str
) -> Mention | None:
    """``mention`` and the name part at ``start:end`` as one mention, or None.

    One when a single space parts them (either side) and they name an entity in common:
    the mention then names only the entities both name, and is exact when ``mention`` is.
    """
    if lowered[mention.end : start] != " " and lowered[end : mention.start] != " ":
        return None
    shared = tuple(sorted(set(mention.ids) & set(ids)))
    if not shared:
        return None
    a, b = min(mention.start, start), max(mention.end, end)
    return Mention(a, b, shared, mention.exact, lowered[a:b])


def _whole_words(automaton: _Automaton, lowered: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """Every whole-word match of ``automaton`` in a normalised text, leftmost then longest."""
    symbols, starts, ends = _symbols(lowered)
    last = len(symbols) - 1
    found: list[tuple[int, int, tuple[str, ...]]] = []
    for first, final, ids in automaton.matches(symbols):
        # Whole words: no word character right before the first token (a glued
        # token after a run of word characters) nor right after the last one.
        if first > 0 and symbols[first][0] == "+" and _ends_word(symbols[first - 1]):
            continue
        if final < last and symbols[final + 1][0] == "+" and _starts_word(symbols[final + 1]):
            continue
        found.append((starts[first], ends[final], ids))
    found.sort(key=lambda m: (m[0], -(m[1] - m[0])))
    return found


def _ends_word(symbol: str) -> bool:
    last = symbol[-1]
    return last.isalnum() or last == "_"


def _starts_word(symbol: str) -> bool:
    first = symbol[1]
    return first.isalnum() or first == "_"


class Linking:
    """One tenant's :class:`EntityLinker`, rebuilt when the store's entity version moves.

    The store's entity version (:meth:`graphmem.GraphStore.entity_version`) changes with
    every write of the tenant's entities through that store object (any :class:`Memory`
    sharing it, the policy and minds layers included), and on a server backend also with
    the writes of other processes that change the tenant's entity count or latest update
    time. Retrieval passes the version its first store call brought back
    (:meth:`graphmem.GraphStore.search_context`), so checking it costs no call of its own.

    Thread-safe: concurrent callers share one rebuild.
    """

    def __init__(self, store: GraphStore, tenant: str) -> None:
        self._store = store
        self._tenant = tenant
        self._lock = threading.Lock()
        self._linker: EntityLinker | None = None
        self._version: str | None = None
        self.builds = 0
        """How many times the linker was built (for tests and diagnostics)."""
        self._questions: EntityLinker | None = None
        self._questions_version: str | None = None

    def linker(self, version: str | None = None) -> EntityLinker:
        """The linker over every entity's name and aliases, as of ``version``.

        Args:
            version: The store's entity version, as just read; None: read it now (one
                store call).
        """
        if version is None:
            version = self._store.entity_version(self._tenant)
        with self._lock:
            if self._linker is None or self._version != version:
                # The version was read before the entities: a write in between makes the
                # next check rebuild again, never keeps a stale linker.
                self._linker = EntityLinker(self._entities())
                self._version = version
                self.builds += 1
            return self._linker

    def latest(self, *, parts: bool = False) -> EntityLinker:
        """The linker last built, with no store call (built now if there is none).

        For hints read before the first store call of a retrieval (the wordings embedded
        with the question); whatever decides results checks the version (:meth:`linker`).
        With ``parts``, the linker of graph questions (:meth:`question_linker`), rebuilt
        when the linker of whole names was built for a later entity version.
        """
        version: str | None = None
        with self._lock:
            if not parts:
                found = self._linker
            elif self._questions_version == self._version:
                found = self._questions
            else:
                found, version = None, self._version
        if found is not None:
            return found
        return self.question_linker(version) if parts else self.linker()

    def question_linker(self, version: str | None = None) -> EntityLinker:
        """The linker of graph questions: names, aliases and the parts of names.

        Built (once per entity version) only when a question is asked; see
        :meth:`EntityLinker.mentions`.
        """
        if version is None:
            version = self._store.entity_version(self._tenant)
        with self._lock:
            if self._questions is None or self._questions_version != version:
                self._questions = EntityLinker(self._entities(), parts=True)
                self._questions_version = version
            return self._questions

    def _entities(self) -> list[Entity]:
        entities = self._store.find_entities(self._tenant, EntityFilter())
        # A governed fact's value node is a value, not a name to find in text.
        return [e for e in entities if e.type != VALUE_ENTITY_TYPE]

    def __call__(self) -> EntityLinker:
        """The linker, checked against the store's current entity version."""
        return self.linker()
