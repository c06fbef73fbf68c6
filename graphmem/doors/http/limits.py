"""Request size limits of ``graphmem serve`` (no FastAPI import: the CLI parser reads them)."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.core.errors import InvalidInput

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """Request size limits; a request over one gets a 413 or 422 naming it.

    Attributes:
        max_body_bytes: Largest request body (413), except an import's.
        max_import_bytes: Largest JSON Lines body of ``POST /v1/import`` (413).
        max_batch_rows: Most items in one batch: entities, relationships, turns,
            documents, ids (413).
        max_text_chars: Longest text: a turn's content, a document, a query, a fact's
            subject, relation or value (422).
    """

    max_body_bytes: int = 16 * 1024 * 1024
    max_import_bytes: int = 512 * 1024 * 1024
    max_batch_rows: int = 10_000
    max_text_chars: int = 200_000

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_import_bytes", "max_batch_rows", "max_text_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise InvalidInput(f"{name} must be a positive integer, got {value!r}")
