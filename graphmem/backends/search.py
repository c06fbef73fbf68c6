"""What every backend's search shares: checking vectors, and the words of a text query.

Both backends read a query the same way (:func:`query_words`, from :mod:`graphmem.core.words`,
where retrieval takes it too), so "plain words, any may match, operators taken literally"
means the same on each; and both check embeddings the same way (:func:`as_matrix`)
before anything is stored.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from graphmem.core.errors import InvalidInput
from graphmem.core.words import STOPWORDS, query_words

__all__ = ["STOPWORDS", "as_matrix", "query_words"]


def as_matrix(vectors: Any, dimension: int | None, what: str) -> NDArray[np.float32]:
    """Check vectors (finite, non-zero, the right dimension) and return them unit-length.

    Raises:
        InvalidInput: Wrong shape or dimension, a non-finite value, or a zero vector.
    """
    try:
        wide = np.array(vectors, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidInput(f"{what} must be an array of numbers ({exc})") from exc
    if not np.isfinite(wide).all() or (np.abs(wide) > np.finfo(np.float32).max).any():
        raise InvalidInput(f"{what} contain NaN, infinite or out-of-range (float32) values")
    matrix = wide.astype(np.float32)
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
