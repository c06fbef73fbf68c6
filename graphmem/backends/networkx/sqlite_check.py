"""``graphmem check`` for ``file://`` stores: SQLite's integrity, then graphmem's own."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zlib import crc32

from graphmem.backends.networkx import journal
from graphmem.backends.networkx.codec import decode, key_crc
from graphmem.backends.networkx.sqlite_file import SQLiteFile
from graphmem.backends.networkx.sqlite_open import (
    SCHEMA_VERSION,
    _connection,
    _give_back,
    _kind,
    _take,
)
from graphmem.backends.networkx.sqlite_rows import state_problems
from graphmem.backends.networkx.sqlite_seal import (
    STORE_ID_KEY,
    SealRecord,
    keep_wal,
    problem,
    read_seal,
)
from graphmem.core.errors import (
    BackendUnavailable,
    GraphmemError,
    InvalidInput,
    NotFound,
    UnsupportedOperation,
)
from graphmem.core.models import Chunk, Entity, Record, Relationship, Turn
from graphmem.core.store import StoreCheck

if TYPE_CHECKING:
    from graphmem.backends.networkx.store import NetworkXStore

__all__ = ["check_file", "check_url"]


def check_url(url: str) -> StoreCheck:
    """:func:`check_file` for a ``file://`` URL (``graphmem check --store URL``).

    Raises:
        UnsupportedOperation: A ``memory://`` URL: such a store is new and empty at every
            open, so there is nothing to check.
    """
    from graphmem.backends.networkx.store import file_path

    if url.split("://", 1)[0].lower() != "file":
        raise UnsupportedOperation(
            f"{url.split('://', 1)[0].lower()}:// has no integrity check here (a memory:// "
            "store is new and empty at every open)",
            url=url,
        )
    report = check_file(file_path(url))
    report.url = url
    return report


def check_file(path: Path) -> StoreCheck:
    """Check a store file without changing it (a writer may have it open meanwhile).

    Runs SQLite's ``PRAGMA integrity_check``, verifies every checksum and row count,
    validates every body as its model, then graphmem's invariants (dangling references,
    PARENT chains). A journal is replayed in memory and checked the same way.

    Raises:
        NotFound: There is no file at ``path``.
        NotAStore: The file is not a graphmem store.
    """
    if path.is_dir():
        raise InvalidInput(f"{path} is a directory; a file:// store is one file")
    try:
        key, hold = _take(path, create=False, writer=False)
    except GraphmemError:
        raise
    except FileNotFoundError:
        raise NotFound(f"no store at {path}", path=str(path)) from None
    except OSError as exc:
        raise BackendUnavailable(f"cannot open {path}: {exc}", path=str(path)) from exc
    try:
        return _check(path, _kind(path, hold.fd))
    finally:
        _give_back(key, writer=False)


def _check(path: Path, kind: str) -> StoreCheck:
    from graphmem.backends.networkx.store import NetworkXStore

    if kind == "journal":
        report = StoreCheck(
            str(path), "journal (the format before SQLite; opening it for writing converts it)"
        )
        store = NetworkXStore("memory://")
        try:
            journal.replay(path, store._apply)
        except GraphmemError as exc:
            report.problems.append(str(exc))
            return report
        report.problems.extend(state_problems(store._tenants, limit=1000))
        report.counts = _memory_counts(store)
        return report
    report = StoreCheck(str(path), f"sqlite (schema version {SCHEMA_VERSION})")
    if kind == "empty":
        return report
    try:
        conn = _connection(path, read_only=True)
    except sqlite3.Error as exc:
        report.problems.append(f"SQLite cannot open it: {exc}")
        return report
    sealed = read_seal(path)  # before the read transaction (see sqlite_seal)
    try:
        conn.execute("BEGIN")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        report.format = f"sqlite (schema version {version})"
        for (line,) in conn.execute("PRAGMA integrity_check"):
            if line != "ok":
                report.problems.append(f"SQLite: {line}")
        if not report.problems:
            _check_rows(conn, report)
            _check_seal(conn, path, sealed, report)
    except sqlite3.Error as exc:
        report.problems.append(f"SQLite: {exc}")
    finally:
        conn.close()
    if report.problems:
        return report
    store = NetworkXStore("memory://")
    try:
        file = SQLiteFile(store, path, read_only=True, fsync=False)
        try:
            file.load()
        finally:
            file.close()
    except GraphmemError as exc:
        report.problems.append(str(exc))
    return report


def _check_rows(conn: sqlite3.Connection, report: StoreCheck) -> None:
    """Every checksum, body and row count of the tables (a load reads bodies lazily)."""
    problems = report.problems
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    bodies: tuple[tuple[str, str, Callable[[tuple[Any, ...]], tuple[int, int, Any]]], ...] = (
        (
            "entity",
            "SELECT rid, tenant, id, CAST(body AS BLOB), crc, key_crc FROM entity",
            lambda r: (key_crc(*r[:3]) ^ r[5], crc32(r[3]) ^ r[4], decode(Entity, r[3])),
        ),
        (
            "relationship",
            "SELECT rid, tenant, source, target, type, CAST(body AS BLOB), crc, key_crc "
            "FROM relationship",
            lambda r: (key_crc(*r[:5]) ^ r[7], crc32(r[5]) ^ r[6], decode(Relationship, r[5])),
        ),
        (
            "turn",
            "SELECT tenant, id, CAST(body AS BLOB), crc FROM turn",
            lambda r: (0, crc32(r[2]) ^ key_crc(*r[:2]) ^ r[3], decode(Turn, r[2])),
        ),
        (
            "head",
            "SELECT tenant, session, turn, crc FROM head",
            lambda r: (key_crc(*r[:3]) ^ r[3], 0, None),
        ),
        (
            "record",
            "SELECT tenant, kind, id, CAST(body AS BLOB), crc FROM record",
            lambda r: (0, crc32(r[3]) ^ key_crc(*r[:3]) ^ r[4], decode(Record, r[3])),
        ),
        (
            "chunk",
            "SELECT tenant, id, CAST(body AS BLOB), crc FROM chunk",
            lambda r: (0, crc32(r[2]) ^ key_crc(*r[:2]) ^ r[3], decode(Chunk, r[2])),
        ),
        (
            "mention",
            "SELECT tenant, kind, node, entity, crc FROM mention",
            lambda r: (key_crc(*r[:4]) ^ r[4], 0, None),
        ),
        (
            "embedding",
            "SELECT tenant, kind, id, vector, crc FROM embedding",
            lambda r: (0, crc32(r[3], key_crc(*r[:3])) ^ r[4], None),
        ),
    )
    for table, sql, verify in bodies:
        count = 0
        for row in conn.execute(sql):
            count += 1
            try:
                keys, body, _model = verify(row)
            except (InvalidInput, ValueError) as exc:
                problems.append(f"{table} {row[:3]}: not a valid body ({exc})")
                continue
            if keys or body:
                problems.append(f"{table} {row[:3]}: fails its checksum")
        report.counts[table] = count
        if meta.get(f"rows.{table}") != count:
            problems.append(
                f"table {table} has {count} rows where {meta.get(f'rows.{table}')} were written"
            )
    for duplicate in conn.execute(
        "SELECT tenant, id FROM entity GROUP BY tenant, id HAVING count(*) > 1 LIMIT 20"
    ):
        problems.append(f"entity {duplicate} is stored twice")
    for duplicate in conn.execute(
        "SELECT tenant, source, target, type FROM relationship "
        "GROUP BY tenant, source, target, type HAVING count(*) > 1 LIMIT 20"
    ):
        problems.append(f"relationship {duplicate} is stored twice")


def _check_seal(
    conn: sqlite3.Connection, path: Path, sealed: SealRecord | None, report: StoreCheck
) -> None:
    """Whether the commits the store's commit record names are all in the database."""
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    seq = conn.execute("SELECT max(seq) FROM change").fetchone()[0] or 0
    what = problem(path, sealed, meta.get(STORE_ID_KEY) or 0, seq)
    if what is not None:
        kept = keep_wal(path) if sealed is not None and not sealed.damaged else None
        if kept is not None:
            what += f" (a copy of the damaged log is kept as {kept.name})"
        report.problems.append(what)


def _memory_counts(store: NetworkXStore) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for data in store._tenants.values():
        counts["entity"] += data.graph.number_of_nodes()
        counts["relationship"] += data.graph.number_of_edges()
        counts["turn"] += len(data.turns)
        counts["record"] += sum(len(v) for v in data.records.values())
        counts["chunk"] += len(data.chunks)
        counts["mention"] += sum(len(v) for k in data.mentions.values() for v in k.values())
        counts["embedding"] += sum(len(v) for v in data.vectors.values())
    return dict(counts)
