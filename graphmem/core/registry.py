"""The backend registry: :class:`Backend` objects found by URL scheme, and ``open_store``.

A backend is a :class:`Backend` object: the URL schemes it serves, how to open a store
(and whether it opens one read-only itself), how to install its schema (if it keeps one),
how to check a store's integrity (if it can), which rooms of the contract
(:mod:`graphmem.core.contract`) it satisfies, and the extra to install when it cannot be
imported. Backends join through the ``graphmem.backends`` entry-point group, the
built-in ones included (see ``pyproject.toml``)::

    [project.entry-points."graphmem.backends"]
    redis = "graphmem_redis:BACKEND"     # name = URL scheme, value = a Backend

An entry point is loaded only when its scheme is first opened, and a backend's own
module (its driver, networkx) only when a store is: ``import graphmem`` imports neither
``importlib.metadata`` nor any backend. A plugin that points its entry point at a plain
``factory(url, **options)`` instead of a :class:`Backend` still works, as does
:func:`register_backend` at run time (which wins over entry points).
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit

from graphmem.core.contract import ROOMS, WRITE_METHODS
from graphmem.core.errors import (
    BackendUnavailable,
    IdentityRequired,
    InvalidInput,
    StoreReadOnly,
    UnsupportedOperation,
)

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from graphmem.core.contract import GraphStore

__all__ = [
    "ENTRY_POINT_GROUP",
    "Backend",
    "BackendFactory",
    "ReadOnlyStore",
    "SchemaInstaller",
    "StoreCheck",
    "StoreChecker",
    "check_store",
    "get_backend",
    "install_schema",
    "open_store",
    "redact_url",
    "register_backend",
    "registered_schemes",
]

ENTRY_POINT_GROUP = "graphmem.backends"
_OWN_DISTRIBUTION = "graphmem"

BackendFactory: TypeAlias = "Callable[..., GraphStore]"
"""``factory(url, **options) -> GraphStore``."""

SchemaInstaller: TypeAlias = Callable[..., Any]
"""``installer(url, **options) -> report``: applies a backend's schema idempotently."""

StoreChecker: TypeAlias = "Callable[[str], StoreCheck]"
"""``checker(url) -> StoreCheck``: checks a store's integrity without changing it."""


@dataclass
class StoreCheck:
    """What :func:`check_store` found.

    Attributes:
        url: The store checked (without any password).
        format: What the store is (e.g. ``sqlite (schema version 1)``).
        counts: Rows (or items) per table or kind, all tenants together.
        problems: Everything found wrong; empty when the store is sound.
    """

    url: str
    format: str
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether no problem was found."""
        return not self.problems


class ReadOnlyStore:
    """A store whose writes raise ``StoreReadOnly``; every read goes to the store inside.

    What ``open_store(url, read_only=True)`` gives for a backend that has no read-only
    mode of its own (``Backend.read_only`` false; the embedded backend has one). The
    writes are the contract's :data:`~graphmem.core.contract.WRITE_METHODS`. Closing it
    closes the store inside.
    """

    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name in WRITE_METHODS:

            def refuse(*args: Any, **kwargs: Any) -> Any:
                raise StoreReadOnly(
                    f"the store {redact_url(self._store.url)} was opened with read_only=True; "
                    f"{name} writes",
                    url=redact_url(self._store.url),
                )

            return refuse
        return getattr(self._store, name)

    def __enter__(self) -> ReadOnlyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self._store.close()


def _resolve(target: Callable[..., Any] | str) -> Callable[..., Any]:
    if not isinstance(target, str):
        return target
    module_name, _, attribute = target.partition(":")
    resolved: Callable[..., Any] = getattr(importlib.import_module(module_name), attribute)
    return resolved


@dataclass(frozen=True, slots=True)
class Backend:
    """One storage backend, as the registry knows it.

    Attributes:
        name: What the backend is called in messages (``"networkx"``, ``"neo4j"``).
        schemes: The URL schemes it serves, lower case (``("memory", "file")``).
        factory: ``factory(url, **options) -> GraphStore``, or its ``"module:attribute"``
            path, imported on first open (so registering costs no import).
        schema_installer: ``installer(url, **options) -> report``, or its path; None
            for a backend that keeps no schema (its indexes live in memory).
        protocols: The rooms of the contract its stores satisfy (every room by
            default); the conformance suite checks the claim against an open store.
        extra: The ``graphmem[...]`` extra that installs its dependencies, named when
            it cannot be imported; None when it needs nothing beyond graphmem.
        read_only: The factory understands ``read_only=True`` itself (its store refuses
            writes with ``StoreReadOnly`` and creates nothing). Otherwise
            ``open_store(url, read_only=True)`` wraps the store in a
            :class:`ReadOnlyStore`.
        checker: ``checker(url) -> StoreCheck``, or its path: checks a store's
            integrity without changing it (``graphmem check``); None for a backend
            without such a check (:func:`check_store` then raises
            ``UnsupportedOperation``).

    >>> from graphmem.core.contract import ROOMS
    >>> backend = Backend("loopback", ("loopback",), "graphmem.backends.networkx:open_networkx")
    >>> backend.protocols == ROOMS
    True
    """

    name: str
    schemes: tuple[str, ...]
    factory: Callable[..., GraphStore] | str
    schema_installer: SchemaInstaller | str | None = None
    protocols: tuple[type[Any], ...] = field(default=ROOMS)
    extra: str | None = None
    read_only: bool = False
    checker: StoreChecker | str | None = None

    def __post_init__(self) -> None:
        if not self.schemes or any(
            not isinstance(s, str) or not s or s != s.lower() or "://" in s for s in self.schemes
        ):
            raise InvalidInput(
                f"backend {self.name!r}: schemes must be non-empty lower-case URL schemes "
                f"without '://', got {self.schemes!r}"
            )
        unknown = [p for p in self.protocols if p not in ROOMS]
        if unknown:
            raise InvalidInput(
                f"backend {self.name!r}: {unknown!r} are not rooms of graphmem.core.contract.ROOMS"
            )

    def _unavailable(self, url: str, exc: ImportError) -> BackendUnavailable:
        hint = f"; install its extra: pip install 'graphmem[{self.extra}]'" if self.extra else ""
        return BackendUnavailable(
            f"the {self.name} backend for {urlsplit(url).scheme}:// cannot be imported "
            f"({exc}){hint}",
            url=redact_url(url),
        )

    def open(self, url: str, **options: Any) -> GraphStore:
        """Open a store at ``url`` (one of :attr:`schemes`).

        ``read_only=True`` among the options opens it for reading only: passed to the
        factory when the backend has a read-only mode (:attr:`read_only`), else the store
        is wrapped in a :class:`ReadOnlyStore`.

        Raises:
            BackendUnavailable: The backend cannot be imported (the message names the
                extra to install) or cannot open the store.
            InvalidInput: The backend refuses the URL or an option; ``read_only`` is not
                a bool.
        """
        read_only = options.pop("read_only", False)
        if not isinstance(read_only, bool):
            raise InvalidInput(f"read_only must be True or False, got {read_only!r}")
        wrap = read_only and not self.read_only
        if read_only and not wrap:
            options["read_only"] = True
        try:
            store: GraphStore = _resolve(self.factory)(url, **options)
        except (InvalidInput, BackendUnavailable, IdentityRequired):
            raise
        except ImportError as exc:
            raise self._unavailable(url, exc) from exc
        return ReadOnlyStore(store) if wrap else store

    def install_schema(self, url: str, **options: Any) -> Any:
        """Apply the backend's schema at ``url``; None for a backend that keeps none.

        Raises:
            BackendUnavailable: The backend cannot be imported, or its server cannot be
                reached.
        """
        if self.schema_installer is None:
            return None
        try:
            return _resolve(self.schema_installer)(url, **options)
        except ImportError as exc:
            raise self._unavailable(url, exc) from exc

    def check(self, url: str) -> StoreCheck:
        """Check the integrity of the store at ``url`` without changing it.

        Raises:
            UnsupportedOperation: The backend has no integrity check.
            BackendUnavailable: The backend cannot be imported.
        """
        if self.checker is None:
            raise UnsupportedOperation(
                f"{urlsplit(url).scheme}:// has no integrity check here (a memory:// store is "
                "new and empty at every open; a server checks its own database)",
                url=redact_url(url),
            )
        try:
            checker = _resolve(self.checker)
        except ImportError as exc:
            raise self._unavailable(url, exc) from exc
        report: StoreCheck = checker(url)
        return report


class _Registry:
    """Backends by scheme: run-time registrations first, then the entry-point group."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._registered: dict[str, Backend] = {}
        self._loaded: dict[str, Backend] = {}
        self._entry_points: dict[str, EntryPoint] | None = None

    def _listing(self) -> dict[str, EntryPoint]:
        if self._entry_points is None:
            from importlib.metadata import entry_points  # slow to import; needed on first open

            listing: dict[str, EntryPoint] = {}
            found = entry_points(group=ENTRY_POINT_GROUP)
            # graphmem's own entry points first, so a plugin cannot take a built-in scheme
            own = [ep for ep in found if ep.dist is not None and ep.dist.name == _OWN_DISTRIBUTION]
            for ep in [*own, *(ep for ep in found if ep not in own)]:
                listing.setdefault(ep.name.lower(), ep)
            self._entry_points = listing
        return self._entry_points

    def schemes(self) -> list[str]:
        with self._lock:
            return sorted(set(self._registered) | set(self._listing()))

    def register(self, scheme: str, backend: Backend, replace: bool) -> None:
        with self._lock:
            if not replace and (scheme in self._registered or scheme in self._listing()):
                raise InvalidInput(
                    f"a backend is already registered for {scheme}://", scheme=scheme
                )
            self._registered[scheme] = backend
            self._loaded.pop(scheme, None)

    def get(self, scheme: str, url: str) -> Backend:
        with self._lock:
            backend = self._registered.get(scheme) or self._loaded.get(scheme)
            if backend is not None:
                return backend
            ep = self._listing().get(scheme)
            if ep is None:
                known = ", ".join(
                    f"{s}://" for s in sorted(set(self._registered) | set(self._listing()))
                )
                hint = (
                    ""
                    if "memory" in self._listing()
                    else "; graphmem's own backends are missing: reinstall graphmem"
                )
                raise InvalidInput(
                    f"no graphmem backend is registered for {scheme}:// (known: {known}){hint}",
                    url=redact_url(url),
                )
            backend = self._loaded[scheme] = _from_entry_point(ep, scheme, url)
            return backend


def _from_entry_point(ep: EntryPoint, scheme: str, url: str) -> Backend:
    where = f"entry point {ep.name} = {ep.value!r} of group {ENTRY_POINT_GROUP}"
    try:
        target = ep.load()
    except ImportError as exc:
        raise BackendUnavailable(
            f"the backend for {scheme}:// cannot be imported ({where}: {exc})",
            url=redact_url(url),
        ) from exc
    if isinstance(target, Backend):
        if scheme not in target.schemes:
            raise BackendUnavailable(
                f"{where} gives the {target.name} backend, which does not serve {scheme}:// "
                f"(it serves {', '.join(target.schemes)})",
                url=redact_url(url),
            )
        return target
    if callable(target):  # a plain factory, as entry points held before Backend objects
        return Backend(scheme, (scheme,), target, extra=scheme)
    raise BackendUnavailable(
        f"{where} is neither a graphmem.core.registry.Backend nor a factory", url=redact_url(url)
    )


_registry = _Registry()


def _scheme_of(url: object) -> str:
    if not isinstance(url, str) or "://" not in url:
        raise InvalidInput(
            f"store URL {url!r} has no scheme; use memory://, file:///path/world.graphmem, "
            "neo4j://host or bolt://host",
            url=url,
        )
    return url.split("://", 1)[0].lower()


def register_backend(
    scheme: str,
    factory: Backend | BackendFactory | str,
    *,
    replace: bool = False,
    read_only: bool | None = None,
) -> None:
    """Register a backend for a URL scheme at run time (it wins over entry points).

    Args:
        scheme: The URL scheme, e.g. ``"redis"``.
        factory: A :class:`Backend`, or ``factory(url, **options) -> GraphStore``, or its
            ``"module:attribute"`` path, imported on first use.
        replace: Allow replacing an existing registration (an entry point's included).
        read_only: The factory understands ``read_only=True`` itself
            (:attr:`Backend.read_only`; default False for a factory, the
            :class:`Backend`'s own otherwise). Without it,
            ``open_store(url, read_only=True)`` wraps the store in a
            :class:`ReadOnlyStore`.

    Raises:
        InvalidInput: The scheme is taken and ``replace`` is false.
    """
    scheme = scheme.lower()
    if isinstance(factory, Backend):
        backend = factory
        if read_only is not None:
            backend = dataclasses.replace(factory, read_only=read_only)
    else:
        backend = Backend(scheme, (scheme,), factory, extra=scheme, read_only=bool(read_only))
    _registry.register(scheme, backend, replace)


def registered_schemes() -> list[str]:
    """The URL schemes a store can be opened with, sorted."""
    return _registry.schemes()


def get_backend(url: str) -> Backend:
    """The :class:`Backend` that serves ``url`` (a URL, or a bare scheme such as ``"file"``).

    Raises:
        InvalidInput: No backend is registered for the scheme.
        BackendUnavailable: The entry point cannot be loaded, or is not a backend.
    """
    if isinstance(url, str) and "://" not in url and url:
        url = f"{url}://"
    return _registry.get(_scheme_of(url), url)


def redact_url(url: str) -> str:
    """Return ``url`` with any password replaced by ``***``.

    >>> redact_url("neo4j://neo4j:secret@localhost:7687")
    'neo4j://neo4j:***@localhost:7687'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def open_store(url: str = "memory://", **options: Any) -> GraphStore:
    """Open a store by URL: ``memory://``, ``file:///path/world.graphmem``, or a plugin's.

    Args:
        url: Where the memory lives; the scheme picks the backend.
        **options: Backend options (``tracer=callable`` is understood by every built-in one).
            ``read_only=True`` opens the store for reading only: every write raises
            :class:`~graphmem.core.errors.StoreReadOnly`, and nothing is ever created (a
            ``file://`` store that does not exist is ``NotFound``).

    Raises:
        InvalidInput: The URL has no scheme or no backend is registered for it.
        BackendUnavailable: The backend cannot open the store.
    """
    return _registry.get(_scheme_of(url), url).open(url, **options)


def install_schema(url: str, **options: Any) -> Any:
    """Apply a backend's schema (constraints, vector and full-text indexes) idempotently.

    The backend's :class:`Backend` object names its installer, so a plugin's schema is
    installed the same way as Neo4j's.

    Args:
        url: The store URL.
        **options: Backend options, e.g. ``dimension=384`` and ``wait=True`` for Neo4j.

    Returns:
        The backend's report (its indexes and their states), or ``None`` for a backend
        that keeps no schema (the embedded one builds its indexes in memory).

    Raises:
        InvalidInput: The URL has no scheme or names no registered backend.
        BackendUnavailable: The server cannot be reached, or indexes did not come online.
    """
    return _registry.get(_scheme_of(url), url).install_schema(url, **options)


def check_store(url: str) -> StoreCheck:
    """Check a store's integrity without changing it (its writer may be running).

    For ``file://``: SQLite's own integrity check, every checksum and row count, every
    stored model, and graphmem's invariants (no dangling reference, sound PARENT chains).
    The backend's :attr:`Backend.checker` does the work.

    Raises:
        InvalidInput: The URL has no scheme or names no registered backend.
        NotFound: There is no store at the URL.
        UnsupportedOperation: The backend has no integrity check (``memory://``, Neo4j).
    """
    return _registry.get(_scheme_of(url), url).check(url)
