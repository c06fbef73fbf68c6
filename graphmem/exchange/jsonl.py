"""JSON Lines: the export format, and the line format of ``file://`` stores.

One JSON object per line, each with a ``kind``:

- ``{"kind": "graphmem", "version": 1, ...}``: the header, first line;
- ``{"kind": "entity", ...Entity fields}``;
- ``{"kind": "relationship", ...Relationship fields}``;
- ``{"kind": "turn", ...Turn fields}``;
- ``{"kind": "head", "session_id": ..., "head_id": ...}``: a conversation's head;
- ``{"kind": "record", "record": {...Record fields}}``: a generic record (nested, because
  a record has a ``kind`` field of its own).
- ``{"kind": "chunk", ...Chunk fields}``;
- ``{"kind": "mention", "node_kind": "chunk" | "turn", "node_id": ..., "entity_id": ...}``.

Embeddings are not exported: they are derived data, recomputed by the embedder.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Chunk, Entity, Record, Relationship, Turn
from graphmem.core.store import TenantDump

__all__ = [
    "FORMAT_VERSION",
    "add_record",
    "dump_records",
    "lines",
    "read",
    "records_to_dump",
    "turn_record",
    "write",
]

FORMAT_VERSION = 1


def dump_records(dump: TenantDump) -> Iterator[dict[str, Any]]:
    """The records of a dump: entities, relationships, turns, heads, generic records."""
    for entity in dump.entities:
        yield {"kind": "entity", **entity.model_dump(mode="json")}
    for rel in dump.relationships:
        yield {"kind": "relationship", **rel.model_dump(mode="json")}
    for turn in dump.turns:
        yield {"kind": "turn", **turn_record(turn)}
    for session_id, head_id in dump.heads.items():
        yield {"kind": "head", "session_id": session_id, "head_id": head_id}
    for record in dump.records:
        yield {"kind": "record", "record": record.model_dump(mode="json")}
    for chunk in dump.chunks:
        yield {"kind": "chunk", **chunk.model_dump(mode="json")}
    for node_kind, node_id, entity_id in dump.mentions:
        yield {
            "kind": "mention",
            "node_kind": node_kind,
            "node_id": node_id,
            "entity_id": entity_id,
        }


_AGENT_FIELDS = ("trajectory", "artifacts", "hidden_artifacts")


def turn_record(turn: Turn) -> dict[str, Any]:
    """A turn as JSON data; an agent turn's fields only when set.

    So a turn without a trajectory or artifacts is written exactly as before they existed,
    and any reader of format version 1 takes it.
    """
    data = turn.model_dump(mode="json")
    for key in _AGENT_FIELDS:
        if not data[key]:
            del data[key]
    return data


def add_record(dump: TenantDump, record: dict[str, Any], where: str) -> None:
    """Validate one record and add it to ``dump``; ``InvalidInput`` says which line is bad."""
    if not isinstance(record, dict):
        raise InvalidInput(f"{where}: expected a JSON object")
    data = dict(record)
    kind = data.pop("kind", None)
    try:
        if kind == "entity":
            dump.entities.append(Entity.model_validate(data))
        elif kind == "relationship":
            dump.relationships.append(Relationship.model_validate(data))
        elif kind == "turn":
            dump.turns.append(Turn.model_validate(data))
        elif kind == "head":
            session_id, head_id = data.get("session_id"), data.get("head_id")
            if not isinstance(session_id, str) or not (head_id is None or isinstance(head_id, str)):
                raise InvalidInput("a head record needs a session_id and a head_id (or null)")
            dump.heads[session_id] = head_id
        elif kind == "record":
            if set(data) != {"record"} or not isinstance(data["record"], dict):
                raise InvalidInput('a record line is {"kind": "record", "record": {...}}')
            dump.records.append(Record.model_validate(data["record"]))
        elif kind == "chunk":
            dump.chunks.append(Chunk.model_validate(data))
        elif kind == "mention":
            parts = (data.get("node_kind"), data.get("node_id"), data.get("entity_id"))
            if not all(isinstance(part, str) and part for part in parts):
                raise InvalidInput("a mention record needs node_kind, node_id and entity_id")
            dump.mentions.append((str(parts[0]), str(parts[1]), str(parts[2])))
        elif kind != "graphmem":
            raise InvalidInput(f"unknown record kind {kind!r}")
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc.message}", where=where) from exc


def records_to_dump(records: Iterable[tuple[str, dict[str, Any]]]) -> TenantDump:
    """Build a dump from ``(where, record)`` pairs; the first bad one raises ``InvalidInput``."""
    dump = TenantDump()
    for where, record in records:
        add_record(dump, record, where)
    return dump


def write(
    dump: TenantDump, target: str | os.PathLike[str] | IO[str], *, tenant: str | None = None
) -> int:
    """Write a dump as JSON Lines to a path or text file; return the number of lines.

    A path is written whole or not at all: to a temporary file beside it, renamed over
    it at the end, so a failure part-way leaves no partial file (and an older file at
    that path as it was).

    Raises:
        InvalidInput: ``target`` is neither a path nor a writable text file, or the file
            cannot be written (the message gives the operating system's reason).
    """
    if isinstance(target, str | os.PathLike):
        return _write_path(dump, target, tenant)
    if not callable(getattr(target, "write", None)):
        raise InvalidInput(
            f"export to a path or a writable text file, not a {type(target).__name__}"
        )
    count = 0
    for line in lines(dump, tenant=tenant):
        try:
            target.write(line)
        except (OSError, ValueError, TypeError) as exc:
            raise InvalidInput(f"cannot write the export: {exc}") from exc
        count += 1
    return count


def _write_path(dump: TenantDump, target: str | os.PathLike[str], tenant: str | None) -> int:
    temporary: Path | None = None
    try:
        path = Path(target)
        if not path.name:
            raise InvalidInput(f"export path {str(target)!r} names no file")
        # Beside the target (a rename across file systems is not atomic); a fresh name,
        # created with the umask's permissions like any file the program writes.
        partial = path.with_name(f".{path.name[:64]}.{uuid.uuid4().hex}.partial")
        with partial.open("x", encoding="utf-8") as handle:
            temporary = partial  # ours to remove from here on
            count = write(dump, handle, tenant=tenant)
        os.replace(partial, path)
        temporary = None
        return count
    except (OSError, ValueError) as exc:
        # ValueError: a path holding NUL; OSError: a missing folder, no permission, a full
        # disk, a name too long. InvalidInput (a ValueError) passes through as it is.
        if isinstance(exc, InvalidInput):
            raise
        raise InvalidInput(f"cannot write the export to {str(target)!r}: {exc}") from exc
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                temporary.unlink()


def lines(dump: TenantDump, *, tenant: str | None = None) -> Iterator[str]:
    """The JSON Lines of a dump, header first, each ending with a newline (for streaming)."""
    header: dict[str, Any] = {"kind": "graphmem", "version": FORMAT_VERSION}
    if tenant is not None:
        header["tenant"] = tenant
    for record in (header, *dump_records(dump)):
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        yield text.translate(_LINE_BREAKS) + "\n"


# Characters other readers take for a line break (Python's str.splitlines, JavaScript)
# that JSON may keep raw inside strings: escaped, so each record stays one line anywhere.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def read(source: str | os.PathLike[str] | IO[str]) -> TenantDump:
    """Read JSON Lines written by :func:`write`. Raises ``InvalidInput`` naming the bad line.

    Raises:
        InvalidInput: A bad line (not JSON, nested deeper than the attribute rules allow,
            a record that does not validate), a file that is not UTF-8 text, or a path
            that cannot be read.
    """
    if isinstance(source, str | os.PathLike):
        try:
            with Path(source).open(encoding="utf-8") as handle:
                return read(handle)
        except (OSError, ValueError) as exc:
            if isinstance(exc, InvalidInput):
                raise
            raise InvalidInput(f"cannot read the import from {str(source)!r}: {exc}") from exc
    if not hasattr(source, "__iter__"):
        raise InvalidInput(f"import from a path or a text file, not a {type(source).__name__}")

    def parsed() -> Iterator[tuple[str, dict[str, Any]]]:
        header_seen = False
        for number, line in enumerate(_text_lines(source), start=1):
            if not line.strip():
                continue
            record = _parse(line, number)
            if not header_seen:
                if not isinstance(record, dict) or record.get("kind") != "graphmem":
                    raise InvalidInput(
                        f"line {number}: not a graphmem export (the first line must be the "
                        "graphmem header)",
                        line=number,
                    )
                if record.get("version") != FORMAT_VERSION:
                    raise InvalidInput(
                        f"line {number}: export format version {record.get('version')!r}; "
                        f"this graphmem reads version {FORMAT_VERSION}",
                        line=number,
                    )
                header_seen = True
                continue
            yield f"line {number}", record
        if not header_seen:
            raise InvalidInput("the input is empty: not a graphmem export")

    return records_to_dump(parsed())


def _text_lines(source: IO[str]) -> Iterator[str]:
    """The lines of a text file; InvalidInput when it is not one (bytes, not UTF-8)."""
    lines = iter(source)
    while True:
        try:
            line = next(lines)
        except StopIteration:
            return
        except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise InvalidInput(f"cannot read the import: {exc}") from exc
        if not isinstance(line, str):
            raise InvalidInput(
                f"import from a text file (open it with encoding='utf-8'), not lines of "
                f"{type(line).__name__}"
            )
        yield line


def _parse(line: str, number: int) -> Any:
    """One line's JSON; InvalidInput for what ``json.loads`` refuses or cannot hold.

    Nesting deeper than Python's recursion limit makes the parser raise RecursionError,
    and an integer of thousands of digits ValueError; both are bad lines here. (Nesting
    within that limit but deeper than the attribute rules is refused by the models.)
    """
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"line {number}: not JSON ({exc.msg})", line=number) from exc
    except (RecursionError, ValueError) as exc:
        raise InvalidInput(
            f"line {number}: JSON graphmem cannot hold (nested too deep, or a number too "
            f"long): {type(exc).__name__}",
            line=number,
        ) from exc
