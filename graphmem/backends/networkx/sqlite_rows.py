"""What the parts of the ``file://`` store share: its tables, its SQL, its damage reports.

See :mod:`graphmem.backends.networkx.sqlite_file` for the design.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from graphmem.core.errors import (
    BackendUnavailable,
    GraphmemError,
    InvalidInput,
    NotFound,
    StoreCorrupted,
)

if TYPE_CHECKING:
    from graphmem.backends.networkx.state import _Tenant

__all__ = [
    "DAMAGE",
    "KEY_COLUMNS",
    "SQL",
    "TABLES",
    "corrupt",
    "merged",
    "raise_problems",
    "ranges",
    "reading",
    "state_problems",
    "translate",
]

TABLES = (
    "entity",
    "relationship",
    "turn",
    "head",
    "record",
    "chunk",
    "mention",
    "embedding",
)
# SQLite errors about the machine rather than the file (any other error reading a store
# that graphmem validated means the file is not what it wrote: "malformed", "not a
# database", a schema that no longer parses, text that is not UTF-8, ...).
_UNAVAILABLE_CODES = (
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_IOERR",
    "SQLITE_FULL",
    "SQLITE_CANTOPEN",
    "SQLITE_PERM",
    "SQLITE_READONLY",
    "SQLITE_NOMEM",
    "SQLITE_INTERRUPT",
    "SQLITE_AUTH",
    "SQLITE_PROTOCOL",
    "SQLITE_NOLFS",
)


def corrupt(path: Path, what: str) -> StoreCorrupted:
    """The error for a store file that is not what graphmem wrote."""
    return StoreCorrupted(
        f"{path} is damaged: {what}; run `graphmem check` on it and restore a backup",
        path=str(path),
    )


# What reading rows that are not what graphmem wrote can raise in Python.
DAMAGE = (
    InvalidInput,
    NotFound,
    TypeError,
    ValueError,
    KeyError,
    IndexError,
    AttributeError,
    OverflowError,
)


@contextmanager
def reading(path: Path, doing: str) -> Iterator[None]:
    """Raise what goes wrong while reading the file as graphmem errors (never a KeyError)."""
    try:
        yield
    except BackendUnavailable:
        raise
    except sqlite3.Error as exc:
        raise translate(path, exc, doing) from exc
    except DAMAGE as exc:
        raise corrupt(path, f"{type(exc).__name__} ({exc}) while {doing}") from exc


def translate(path: Path, exc: sqlite3.Error, doing: str) -> GraphmemError:
    """An SQLite error as a graphmem error: damage is StoreCorrupted, the rest unavailable."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    machine = any(name == code or name.startswith(f"{code}_") for code in _UNAVAILABLE_CODES)
    if machine or isinstance(exc, sqlite3.ProgrammingError | sqlite3.InterfaceError):
        return BackendUnavailable(f"cannot use {path} while {doing}: {exc}", path=str(path))
    return corrupt(path, f"SQLite reports {exc} while {doing}")


def ranges(rids: Iterable[int]) -> list[list[int]]:
    """Sorted row ids as [first, last] runs (a bulk insert is one run)."""
    out: list[list[int]] = []
    for rid in sorted(set(rids)):
        if out and out[-1][1] == rid - 1:
            out[-1][1] = rid
        else:
            out.append([rid, rid])
    return out


def merged(runs: Iterable[list[int]]) -> list[list[int]]:
    """[first, last] runs of several changes, merged where they overlap or touch."""
    out: list[list[int]] = []
    for first, last in sorted(runs):
        if out and first <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return out


SQL = {
    "entity.insert": "INSERT INTO entity (rid, tenant, id, body, crc, key_crc) "
    "VALUES (?, ?, ?, ?, ?, ?)",
    "entity.update": "UPDATE entity SET body = ?, crc = ? WHERE rid = ?",
    "entity.delete": "DELETE FROM entity WHERE rid = ?",
    # The entities and relationships around a node (identity snapshots), in one query:
    # entity rows carry their id in the third column, relationship rows NULL there.
    "near": "SELECT rid, tenant, id, NULL, NULL, NULL, CAST(body AS BLOB), crc FROM entity "
    "WHERE rid IN (SELECT value FROM json_each(?1)) UNION ALL "
    "SELECT rid, tenant, NULL, source, target, type, CAST(body AS BLOB), crc FROM relationship "
    "WHERE rid IN (SELECT value FROM json_each(?2))",
    "relationship.insert": "INSERT INTO relationship "
    "(rid, tenant, source, target, type, body, crc, key_crc) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    "relationship.update": "UPDATE relationship SET body = ?, crc = ? WHERE rid = ?",
    "relationship.delete": "DELETE FROM relationship WHERE rid = ?",
    "turn.insert": "INSERT INTO turn (tenant, id, body, crc) VALUES (?, ?, ?, ?)",
    "turn.update": "UPDATE turn SET body = ?, crc = ? WHERE tenant = ? AND id = ?",
    "turn.delete": "DELETE FROM turn WHERE tenant = ? AND id = ?",
    "head.insert": "INSERT INTO head (tenant, session, turn, crc) VALUES (?, ?, ?, ?)",
    "head.update": "UPDATE head SET turn = ?, crc = ? WHERE tenant = ? AND session = ?",
    "head.delete": "DELETE FROM head WHERE tenant = ? AND session = ?",
    "record.insert": "INSERT INTO record (tenant, kind, id, body, crc) VALUES (?, ?, ?, ?, ?)",
    "record.update": "UPDATE record SET body = ?, crc = ? WHERE tenant = ? AND kind = ? AND id = ?",
    "record.delete": "DELETE FROM record WHERE tenant = ? AND kind = ? AND id = ?",
    "chunk.insert": "INSERT INTO chunk (tenant, id, body, crc) VALUES (?, ?, ?, ?)",
    "chunk.update": "UPDATE chunk SET body = ?, crc = ? WHERE tenant = ? AND id = ?",
    "chunk.delete": "DELETE FROM chunk WHERE tenant = ? AND id = ?",
    "mention.insert": "INSERT INTO mention (tenant, kind, node, entity, crc) "
    "VALUES (?, ?, ?, ?, ?)",
    "mention.delete": "DELETE FROM mention "
    "WHERE tenant = ? AND kind = ? AND node = ? AND entity = ?",
    "mention.delete_node": "DELETE FROM mention WHERE tenant = ? AND kind = ? AND node = ?",
    "embedding.insert": "INSERT INTO embedding (tenant, kind, id, vector, crc) "
    "VALUES (?, ?, ?, ?, ?)",
    "embedding.update": "UPDATE embedding SET vector = ?, crc = ? "
    "WHERE tenant = ? AND kind = ? AND id = ?",
    "embedding.delete": "DELETE FROM embedding WHERE tenant = ? AND kind = ? AND id = ?",
}


KEY_COLUMNS = {"turn": ("id",), "record": ("kind", "id"), "chunk": ("id",)}


def raise_problems(path: Path, problems: list[str]) -> None:
    """Raise :class:`StoreCorrupted` naming the first problems, if there are any."""
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise corrupt(path, "; ".join(problems[:3]) + more)


def state_problems(tenants: dict[str, _Tenant], limit: int = 100) -> list[str]:
    """The invariants graphmem keeps over loaded tenants: references and PARENT chains.

    Relationship ends are checked as the graph is built (a relationship is only ever
    added between stored entities); this checks the rest: turns
    whose parent is missing or in another conversation, cycles of PARENT links, heads that
    name no turn of their conversation, mentions and embeddings of nodes that do not exist.
    """
    problems: list[str] = []

    def say(text: str) -> bool:
        problems.append(text)
        return len(problems) >= limit

    for tenant, data in sorted(tenants.items()):
        where = f"tenant {tenant!r}"
        graph = data.graph
        turns = data.turns
        for turn in turns.values():
            parent = turn.parent_id
            if parent is None:
                continue
            found = turns.get(parent)
            if found is None:
                problem = f"turn {turn.id!r} names parent {parent!r}, which is missing"
            elif found.session_id != turn.session_id:
                problem = f"turn {turn.id!r} has a parent in another conversation"
            else:
                continue
            if say(f"{where}: {problem}"):
                return problems
        done: set[str] = set()
        for start in turns:
            path: dict[str, None] = {}
            current: str | None = start
            while current is not None and current not in done and current in turns:
                if current in path:
                    if say(f"{where}: the PARENT links through turn {current!r} form a cycle"):
                        return problems
                    break
                path[current] = None
                current = turns[current].parent_id
            done.update(path)
        for session_id, session in data.sessions.items():
            head = session.head
            wrong = head is not None and (head not in turns or turns[head].session_id != session_id)
            if wrong and say(f"{where}: the head of conversation {session_id!r} is not its turn"):
                return problems
        for kind, nodes in (("turn", turns), ("chunk", data.chunks)):
            for node, entities in data.mentions[kind].items():
                if node not in nodes and say(f"{where}: {kind} {node!r} mentions but is missing"):
                    return problems
                for entity in entities:
                    missing = entity not in graph._node
                    if missing and say(f"{where}: {kind} {node!r} mentions missing {entity!r}"):
                        return problems
        for kind, index in data.vectors.items():
            nodes = graph._node if kind == "entity" else turns if kind == "turn" else data.chunks
            absent = [n for n in index.ids if n not in nodes]
            if absent and say(f"{where}: embeddings of missing {kind}s {absent[:5]}"):
                return problems
    return problems
