"""Facts and questions said of their entities' kinds, the way two readers compare them.

`retrieve`'s fact match (:mod:`graphmem.retrieval.facts`) and `ask`'s phrase reading
(:mod:`graphmem.retrieval.graphqa.phrasing`) both compare a question with its topic's
name replaced by the topic's kind ("who bought ore shipment?") against facts said of
their ends' kinds ("ore shipment consigned to company"). The sayings live here, below
both: neither imports the other.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from graphmem.core.words import STOPWORDS, type_phrase

__all__ = ["KEPT", "SentenceVectors", "fact_sayings", "said_of_kind", "shape_texts", "unit_rows"]

_WORD = re.compile(r"\w+", re.UNICODE)
KEPT = 10_000
"""How many sentence vectors a memory keeps (the type phrases and sayings of a few
thousand fact shapes, and the questions the phrase reader said of their kinds)."""


def unit_rows(rows: Any) -> Any:
    """Rows scaled to unit length (float32).

    >>> unit_rows([[3.0, 4.0], [0.0, 0.0]]).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.where(norms == 0, 1.0, norms)).astype(np.float32)


@lru_cache(maxsize=16_384)
def fact_sayings(source_type: str, rel_type: str, target_type: str) -> tuple[str, str]:
    """A fact said of its ends' kinds from its source, and from its target.

    >>> fact_sayings("critic", "panned", "actor")
    ('critic panned actor', 'actor that critic panned')
    """
    verb, source, target = type_phrase(rel_type), type_phrase(source_type), type_phrase(target_type)
    return f"{source} {verb} {target}", f"{target} that {source} {verb}"


def shape_texts(source_type: str, rel_type: str, target_type: str) -> tuple[str, str, str]:
    """What the readers embed of a fact shape: its type's phrase and its two sayings.

    >>> shape_texts("critic", "panned", "actor")
    ('panned', 'critic panned actor', 'actor that critic panned')
    """
    return (type_phrase(rel_type), *fact_sayings(source_type, rel_type, target_type))


def said_of_kind(text: str, kind: str, names: Sequence[str]) -> str | None:
    """``text`` with the longest run of the words of ``names`` said as the ``kind``.

    None when no word of the names is in the text.

    >>> said_of_kind("Who bought Ore Shipment 14?", "ore_shipment", ["Ore Shipment 14"])
    'Who bought ore shipment?'
    >>> said_of_kind("who bought it?", "ore_shipment", ["Ore Shipment 14"]) is None
    True
    """
    own = {w.lower() for part in names for w in _WORD.findall(part)} - STOPWORDS
    best: tuple[int, int] | None = None
    run: list[re.Match[str]] = []
    for m in [*_WORD.finditer(text), None]:
        if m is not None and m.group().lower() in own:
            run.append(m)
            continue
        if run and (best is None or run[-1].end() - run[0].start() > best[1] - best[0]):
            best = (run[0].start(), run[-1].end())
        run = []
    if best is None:
        return None
    return text[: best[0]] + type_phrase(kind) + text[best[1] :]


class SentenceVectors:
    """Unit vectors of short texts, embedded once each and kept (by a key of the caller's).

    What both readers keep of the sayings they compare: the fact match and the phrase
    reading of graph questions, each by the text itself. A memory's readers share one
    (:class:`graphmem.retrieval.service.Retrieval`), which the memory fills when facts
    are written (:meth:`keep`), so the first question finds them kept.

    Thread-safe: two calls missing the same text may both embed it (the same vector).

    Args:
        embed: Embeds a batch of texts.
        kept: How many vectors are kept; at that many, all are cleared before more are.
    """

    def __init__(self, embed: Callable[[Sequence[str]], Any], kept: int) -> None:
        self._embed = embed
        self._kept = kept
        self._vectors: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(
        self, texts: Mapping[str, str], asked: str | None = None
    ) -> tuple[dict[str, Any], Any | None]:
        """The vectors of ``texts`` by key, and of ``asked`` (embedded, never kept).

        What is not kept yet and ``asked`` are embedded in one call: a call of a few dozen
        texts costs far less than two. A key maps to None when it could not be kept.
        """
        with self._lock:
            missing = {key: text for key, text in texts.items() if key not in self._vectors}
        batch = [*missing.values(), *([asked] if asked is not None else [])]
        rows = unit_rows(self._embed(batch)) if batch else np.zeros((0, 0), dtype=np.float32)
        new = dict(zip(missing, rows[: len(missing)], strict=True))
        with self._lock:  # read before a clear: a vector cleared by another call is found
            found = {key: new.get(key, self._vectors.get(key)) for key in texts}
            if len(self._vectors) + len(new) > self._kept:
                self._vectors.clear()
            self._vectors.update(new)
        return found, rows[-1] if asked is not None else None

    def __contains__(self, text: object) -> bool:
        """Whether the vector of ``text`` is kept."""
        with self._lock:
            return text in self._vectors

    def keep(self, texts: Iterable[str]) -> int:
        """Embed the ``texts`` not kept yet, in one call, and keep them (by their text).

        Returns how many were embedded.
        """
        wanted = list(texts)
        with self._lock:
            missing = {text: text for text in wanted if text not in self._vectors}
        if missing:
            self.get(missing)
        return len(missing)
