"""What every backend's search shares: checking vectors, and the words of a text query.

Both backends read a query the same way (:func:`query_words`), so "plain words, any may
match, operators taken literally" means the same on each; and both check embeddings the
same way (:func:`as_matrix`) before anything is stored.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numpy.typing import NDArray

from graphmem.errors import InvalidInput

__all__ = ["STOPWORDS", "as_matrix", "query_words"]

# Common English words that match nearly every passage: they only add cost to an OR query.
_STOPWORD_TEXT = """a about above after again against all am an and any are as at be because
been before being below between both but by can did do does doing down during each few for
from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"\w+", re.UNICODE)


def as_matrix(vectors: Any, dimension: int | None, what: str) -> NDArray[np.float32]:
    """Check vectors (finite, non-zero, the right dimension) and return them unit-length.

    Raises:
        InvalidInput: Wrong shape or dimension, a non-finite value, or a zero vector.
    """
    try:
        matrix = np.array(vectors, dtype=np.float32, copy=True)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{what} must be an array of numbers ({exc})") from exc
    if matrix.ndim == 1:
        matrix = matrix.reshape(1, -1)
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise InvalidInput(f"{what} must be a 2-d array (n, dimension), got shape {matrix.shape}")
    if dimension is not None and matrix.shape[1] != dimension:
        raise InvalidInput(
            f"{what} have dimension {matrix.shape[1]} but the index holds vectors of dimension "
            f"{dimension}; embed with the same model as before (or clear the index)",
            dimension=matrix.shape[1],
            expected=dimension,
        )
    if not np.isfinite(matrix).all():
        raise InvalidInput(f"{what} contain NaN or infinite values")
    norms = np.linalg.norm(matrix, axis=1)
    if (norms == 0).any():
        raise InvalidInput(f"{what} contain a zero vector, which has no direction to compare")
    matrix /= norms[:, None]
    return matrix


def query_words(text: str) -> list[str]:
    """The distinct words of a query, lower-cased, common English words left out.

    >>> query_words('who owns "the Forge" NEAR(x) OR *')
    ['owns', 'forge', 'near', 'x']
    """
    words = [w.lower() for w in _WORD.findall(text)]
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(kept))
