"""The ``file://`` format of graphmem before SQLite: a JSON Lines journal, read only.

A journal is a header line (``{"kind": "graphmem-file", "version": 1}``) followed by
change records, one JSON object per line, each the same change record the embedded store
applies in memory. A torn last line (a crash mid-write) was never acknowledged and is
skipped. graphmem no longer writes journals: opening one for writing converts it to an
SQLite store once (see :mod:`graphmem.backends.networkx.sqlite_file`); a read-only open
replays it in place and changes nothing.

Anything in the file that is not what graphmem wrote (a line that is not JSON, a record
that is not an object, an unknown operation, a record that cannot be applied) raises
:class:`~graphmem.core.errors.StoreCorrupted`, never a ``KeyError`` or ``AssertionError``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from graphmem.core.errors import BackendUnavailable, GraphmemError, StoreCorrupted
from graphmem.core.models import Chunk, Entity, Record, Relationship, Turn

__all__ = ["HEADER", "HEADER_LINES", "is_journal", "replay"]

HEADER = {"kind": "graphmem-file", "version": 1}
# Appends wrote the header with json.dumps' default separators, compaction without spaces.
HEADER_LINES = (
    (json.dumps(HEADER) + "\n").encode(),
    (json.dumps(HEADER, separators=(",", ":")) + "\n").encode(),
)
_OPS = frozenset(
    {
        "put",
        "delete_entities",
        "delete_chunks",
        "mentions",
        "embed",
        "delete_relationship",
        "delete_turn",
        "delete_conversation",
        "delete_records",
        "clear",
    }
)
_MODELS: tuple[tuple[str, type[Any]], ...] = (
    ("entities", Entity),
    ("relationships", Relationship),
    ("turns", Turn),
    ("records", Record),
    ("chunks", Chunk),
)


def is_journal(head: bytes) -> bool:
    """Whether the first bytes of a file are a journal's (or a torn first header line)."""
    if head.startswith(b"{"):
        first = head.split(b"\n", 1)[0]
        if b"\n" not in head:
            # Torn while its header was written: nothing was ever acknowledged in it.
            return any(line.startswith(head) for line in HEADER_LINES)
        try:
            record = json.loads(first)
        except ValueError:
            return False
        return isinstance(record, dict) and record.get("kind") == HEADER["kind"]
    return False


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The change records of a journal with their line numbers (header checked)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreCorrupted(
            f"{path} is a graphmem journal with bytes that are not UTF-8 (at byte "
            f"{exc.start}); restore it from a backup",
            path=str(path),
        ) from exc
    except OSError as exc:
        raise BackendUnavailable(f"cannot read {path}: {exc}", path=str(path)) from exc
    # The text after the last newline is a torn write (or empty): never acknowledged.
    lines = text.split("\n")[:-1]
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise StoreCorrupted(
                f"{path} line {number} is corrupt (not JSON); restore it from a backup",
                path=str(path),
                line=number,
            ) from exc
        if not isinstance(record, dict):
            raise StoreCorrupted(
                f"{path} line {number} is corrupt (not a JSON object); restore it from a backup",
                path=str(path),
                line=number,
            )
        if number == 1:
            if record.get("version") != HEADER["version"]:
                raise BackendUnavailable(
                    f"{path} has journal format version {record.get('version')!r}; this "
                    f"graphmem reads version {HEADER['version']}",
                    path=str(path),
                )
            continue
        yield number, record


def _decode(record: dict[str, Any]) -> dict[str, Any]:
    op = record.get("op")
    if op not in _OPS or not isinstance(record.get("tenant"), str):
        raise ValueError(f"unknown change record {op!r}")
    if op == "embed":
        import numpy as np

        raw = base64.b64decode(record["float32_le"], validate=True)
        matrix = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        out = {k: v for k, v in record.items() if k not in ("float32_le", "dimension")}
        out["vectors"] = matrix.reshape(len(record["ids"]), int(record["dimension"]))
        return out
    if op != "put":
        return record
    out = dict(record)
    for key, model in _MODELS:
        if key in out:
            out[key] = [model.model_validate(row) for row in out[key]]
    return out


def replay(path: Path, apply: Callable[[dict[str, Any]], None]) -> None:
    """Decode every change record of the journal at ``path`` and hand it to ``apply``.

    Raises:
        StoreCorrupted: A line or a record is not what graphmem wrote.
        BackendUnavailable: The file cannot be read, or has an unknown format version.
    """
    number = 0
    try:
        for line, record in _records(path):
            number = line
            apply(_decode(record))
    except GraphmemError as exc:
        if isinstance(exc, BackendUnavailable):
            raise
        raise StoreCorrupted(
            f"{path} line {number} cannot be replayed ({exc}); restore it from a backup",
            path=str(path),
            line=number,
        ) from exc
    except Exception as exc:  # anything else: a record that graphmem did not write
        raise StoreCorrupted(
            f"{path} line {number} cannot be replayed ({type(exc).__name__}: {exc}); "
            "restore it from a backup",
            path=str(path),
            line=number,
        ) from exc
