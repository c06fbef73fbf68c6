"""``graphmem serve --mcp``: the MCP tools at ``/mcp`` of the HTTP API, in its process.

One process, one store, one set of keys: an MCP client sends the same
``Authorization: Bearer <key>`` as an HTTP client, and the key opens the same tenant
(``--tenant`` on a loopback server: that tenant, no key). Each tenant gets its own MCP
server (:func:`graphmem.doors.mcp.server.build_server` over the HTTP API's ``Memory`` of that
tenant), made when its first request comes, with its own session manager: a session
made with one tenant's key is not found under another's.

The session managers run in a task group the app's lifespan owns (installed by
:func:`mount_mcp`), so they stop with the server.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import anyio
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from graphmem.core.errors import BackendUnavailable, GraphmemError
from graphmem.doors.http.problems import problem

if TYPE_CHECKING:
    from anyio.abc import TaskGroup, TaskStatus
    from fastapi import FastAPI

    from graphmem.memory import Memory
    from graphmem.policy.governance import GovernancePolicy

__all__ = ["MCP_PATH", "McpMount", "mount_mcp"]

MCP_PATH = "/mcp"


class McpMount:
    """The ASGI app at :data:`MCP_PATH`: the key picks the tenant, its MCP server answers.

    Args:
        memory_of: The HTTP API's ``Memory`` of a key (raises ``IdentityRequired``).
        actor: Who governed writes through MCP are audited as.
        policy: The governance policy of governed writes.
        host: The address the server listens on (loopback turns on the SDK's DNS
            rebinding protection).
    """

    def __init__(
        self,
        memory_of: Callable[[str | None], Memory],
        *,
        actor: str,
        policy: GovernancePolicy | None,
        host: str,
    ) -> None:
        self._memory_of = memory_of
        self._actor = actor
        self._policy = policy
        self._host = host
        self._apps: dict[str, ASGIApp] = {}
        self._lock = anyio.Lock()
        self._group: TaskGroup | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Hold the task group the tenants' session managers run in."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._group = None
                group.cancel_scope.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer an MCP request with the MCP server of the tenant its key opens."""
        from graphmem.doors.http.middleware import bearer_key, send_problem

        try:
            mem = self._memory_of(bearer_key(scope))
            app = await self._app_of(mem)
        except GraphmemError as exc:
            status, body = problem(exc, instance=scope["path"])
            await send_problem(send, status, body, www_authenticate=status == 401)
            return
        await app(scope, receive, send)

    async def _app_of(self, mem: Memory) -> ASGIApp:
        found = self._apps.get(mem.tenant)
        if found is not None:
            return found
        async with self._lock:
            found = self._apps.get(mem.tenant)
            if found is None:
                found = await self._start(mem)
                self._apps[mem.tenant] = found
        return found

    async def _start(self, mem: Memory) -> ASGIApp:
        from graphmem.doors.mcp.server import build_server

        if self._group is None:
            raise BackendUnavailable("the server is not serving MCP yet (or any more)")
        server = build_server(mem, actor=self._actor, policy=self._policy)
        app: ASGIApp = server.streamable_http_app(streamable_http_path=MCP_PATH, host=self._host)
        manager = server.session_manager

        async def run(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            async with manager.run():
                task_status.started()
                await anyio.sleep_forever()

        await self._group.start(run)
        return app


def mount_mcp(
    app: FastAPI,
    memory_of: Callable[[str | None], Memory],
    *,
    actor: str = "mcp-agent",
    policy: GovernancePolicy | None = None,
    host: str = "127.0.0.1",
) -> McpMount:
    """Serve the MCP tools at :data:`MCP_PATH` of ``app``, beside its routes.

    The mount's session managers run inside ``app``'s lifespan (wrapped here).
    """
    mount = McpMount(memory_of, actor=actor, policy=policy, host=host)
    app.router.routes.append(
        Route(MCP_PATH, endpoint=mount, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    )
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(target: Any) -> AsyncIterator[Any]:
        async with inner(target) as state, mount.running():
            yield state

    app.router.lifespan_context = lifespan
    return mount
