"""The embedded backend: one networkx ``MultiDiGraph`` per tenant, in this process.

Entities are nodes (attribute ``e`` holds the frozen :class:`Entity`), relationships are
edges keyed by their type (attribute ``r`` holds the frozen :class:`Relationship`), and
conversation turns live beside the graph with a parent pointer and a children index.
Stored models are immutable, so reads hand them out without copying.

Every mutation is expressed as a *change record* (a plain dict) that is applied by one
method, ``_apply`` (:mod:`.base`; its steps in :mod:`.changes`). A ``file://`` store
first commits the record to its SQLite database (:mod:`.sqlite_file`), then applies it.
Reopening loads the ids and adjacency of the graph; the entity and relationship models
are read on first use.

The store is composed of rooms, one concern each, over :mod:`.base` and the tenant
state of :mod:`.state`: :mod:`.graph` (entities, relationships), :mod:`.traversal`
(walks, identity), :mod:`.conversations`, :mod:`.records`, :mod:`.chunks` (chunks and
mentions), :mod:`.search` (embeddings, vector, full-text and hybrid search) and
:mod:`.tenant` (dump, load, clear, planned by :mod:`graphmem.backends.load_plan`).
A ``file://`` store is given its SQLite file (:mod:`.sqlite_file`) here: the rooms see
it only as a :class:`~.protocols.StoreFile` and it sees the store only as a
:class:`~.protocols.StoreHost`, so neither imports the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from graphmem.backends.networkx.conversations import ConversationRoom
from graphmem.backends.networkx.search import SearchRoom
from graphmem.backends.networkx.state import _Tenant as _Tenant
from graphmem.backends.networkx.state import paused_gc
from graphmem.backends.networkx.tenant import TenantRoom
from graphmem.core.errors import InvalidInput
from graphmem.core.store import Tracer

__all__ = ["NetworkXStore", "file_path", "open_networkx", "paused_gc"]

# Flags that are not operations (the operations are the rooms the store satisfies).
_CAPABILITIES = frozenset({"inline_reads", "revision"})
_WHOLE_FILE_CAPABILITIES = _CAPABILITIES | {"persistence"}
_FILE_CAPABILITIES = _WHOLE_FILE_CAPABILITIES - {"inline_reads"}
_READER_CAPABILITIES = _FILE_CAPABILITIES - {"revision"}


class NetworkXStore(TenantRoom, SearchRoom, ConversationRoom):
    """The embedded GraphStore. Open it with ``graphmem.open_store("memory://")``.

    Thread-safe: one lock serialises operations, so concurrent appends lose nothing.
    """

    def __init__(
        self,
        url: str = "memory://",
        *,
        path: Path | None = None,
        fsync: bool = True,
        read_only: bool = False,
        preload: bool = False,
        warm: bool = False,
        tracer: Tracer | None = None,
    ) -> None:
        super().__init__(url, read_only=read_only, tracer=tracer)
        if path is not None:
            from graphmem.backends.networkx.sqlite_file import SQLiteFile

            file = SQLiteFile(self, path, read_only=read_only, fsync=fsync)
            self._open_file(file, preload=preload, warm=warm)

    def _scratch(self, path: Path | None = None) -> NetworkXStore:
        """A new store: empty in memory, or the writer of ``path`` (to convert a journal)."""
        if path is None:
            return NetworkXStore("memory://")
        return NetworkXStore(path.as_uri(), path=path, fsync=True)

    @property
    def capabilities(self) -> frozenset[str]:
        """How this store behaves, as flags (its operations are the rooms it satisfies).

        ``persistence`` for ``file://``. ``inline_reads`` (reads answered from memory,
        without I/O) holds for ``memory://`` and for a ``file://`` writer once every model
        is in memory (after its warm-up, or ``preload``); a reader syncs from the file
        before each operation, so never. ``revision`` for ``memory://`` and a ``file://``
        writer (it holds the file exclusively); not a reader: another process writes it.
        """
        if self._file is None:
            return _CAPABILITIES
        if self._read_only:
            return _READER_CAPABILITIES
        if any(d.fill is not None for d in list(self._tenants.values())):
            return _FILE_CAPABILITIES
        return _WHOLE_FILE_CAPABILITIES


def open_networkx(url: str = "memory://", **options: Any) -> NetworkXStore:
    """Open an embedded store: ``memory://`` or ``file:///path/world.graphmem[?fsync=false]``.

    Every ``memory://`` open is a new, empty store. A ``file://`` URL names one SQLite
    database; a writer creates it if missing and holds it exclusively while open; with
    ``read_only=True`` it is read beside the writer (a missing file is ``NotFound``).

    Options: ``tracer``, ``read_only`` (refuse writes; never create anything), ``fsync``
    (default true: each write is on disk before it returns), ``preload`` (default false:
    read every entity and relationship model at open, not when first used), ``warm``
    (default false: read the models nobody used yet in a background thread after open,
    backing off while operations run; the store then holds what ``preload`` holds, in
    memory too; see :mod:`~graphmem.backends.networkx.sqlite_warm`). ``fsync``,
    ``preload`` and ``warm`` may also be given in the URL
    (``?fsync=false&preload=true&warm=true``).
    """
    tracer = options.pop("tracer", None)
    fsync = options.pop("fsync", None)
    preload = options.pop("preload", None)
    warm = options.pop("warm", None)
    read_only = options.pop("read_only", False)
    if options:
        raise InvalidInput(f"unknown options for {url.split(':', 1)[0]}://: {sorted(options)}")
    if not isinstance(read_only, bool):
        raise InvalidInput(f"read_only must be True or False, got {read_only!r}")
    parts = urlsplit(url)
    if parts.scheme.lower() == "memory":
        return NetworkXStore(url, read_only=read_only, tracer=tracer)
    path = file_path(url)
    query = parse_qs(parts.query)
    if fsync is None:
        fsync = query.get("fsync", ["true"])[-1].lower() not in ("0", "false", "no")
    if preload is None:
        preload = query.get("preload", ["false"])[-1].lower() in ("1", "true", "yes")
    if warm is None:
        warm = query.get("warm", ["false"])[-1].lower() in ("1", "true", "yes")
    return NetworkXStore(
        url,
        path=path,
        fsync=bool(fsync),
        read_only=read_only,
        preload=bool(preload),
        warm=bool(warm),
        tracer=tracer,
    )


def file_path(url: str) -> Path:
    """The path a ``file://`` URL names (relative to the working directory without ``///``)."""
    parts = urlsplit(url)
    host = "" if parts.netloc in ("", "localhost") else parts.netloc
    raw_path = unquote(host + parts.path)
    if not raw_path:
        raise InvalidInput(f"file URL {url!r} names no file; use file:///path/world.graphmem")
    path = Path(raw_path).expanduser()
    if path.is_dir():
        raise InvalidInput(f"{path} is a directory; a file:// store is one file")
    return path
