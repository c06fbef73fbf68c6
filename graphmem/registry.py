"""The backend registry: :class:`Backend` objects found by URL scheme, and ``open_store``.

A backend is a :class:`Backend` object: the URL schemes it serves, how to open a store,
how to install its schema (if it keeps one), which rooms of the contract
(:mod:`graphmem.contract`) it satisfies, and the extra to install when it cannot be
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

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit

from graphmem.contract import ROOMS
from graphmem.errors import BackendUnavailable, IdentityRequired, InvalidInput

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from graphmem.store import GraphStore

__all__ = [
    "ENTRY_POINT_GROUP",
    "Backend",
    "BackendFactory",
    "SchemaInstaller",
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

    >>> from graphmem.contract import ROOMS
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
                f"backend {self.name!r}: {unknown!r} are not rooms of graphmem.contract.ROOMS"
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

        Raises:
            BackendUnavailable: The backend cannot be imported (the message names the
                extra to install) or cannot open the store.
            InvalidInput: The backend refuses the URL or an option.
        """
        try:
            store: GraphStore = _resolve(self.factory)(url, **options)
        except (InvalidInput, BackendUnavailable, IdentityRequired):
            raise
        except ImportError as exc:
            raise self._unavailable(url, exc) from exc
        return store

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
        f"{where} is neither a graphmem.registry.Backend nor a factory", url=redact_url(url)
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
    scheme: str, factory: Backend | BackendFactory | str, *, replace: bool = False
) -> None:
    """Register a backend for a URL scheme at run time (it wins over entry points).

    Args:
        scheme: The URL scheme, e.g. ``"redis"``.
        factory: A :class:`Backend`, or ``factory(url, **options) -> GraphStore``, or its
            ``"module:attribute"`` path, imported on first use.
        replace: Allow replacing an existing registration (an entry point's included).

    Raises:
        InvalidInput: The scheme is taken and ``replace`` is false.
    """
    scheme = scheme.lower()
    backend = (
        factory
        if isinstance(factory, Backend)
        else Backend(scheme, (scheme,), factory, extra=scheme)
    )
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
