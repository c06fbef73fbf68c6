"""Facts and questions said of their entities' kinds, the way two readers compare them.

`retrieve`'s fact match (:mod:`graphmem.retrieval.facts`) and `ask`'s phrase reading
(:mod:`graphmem.retrieval.graphqa.phrasing`) both compare a question with its topic's
name replaced by the topic's kind ("who bought ore shipment?") against facts said of
their ends' kinds ("ore shipment consigned to company"). The sayings live here, below
both: neither imports the other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from graphmem.core.words import STOPWORDS, type_phrase

__all__ = ["fact_sayings", "said_of_kind", "unit_rows"]

_WORD = re.compile(r"\w+", re.UNICODE)


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
