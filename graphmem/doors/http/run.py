"""Running the HTTP API on uvicorn: bind, announce the address, stop cleanly on a signal.

Connections are guarded below the app (:func:`guarded_protocol`): a connection must send
a request's headers within ``header_timeout`` seconds of opening (or of starting the next
request), or it is closed; an idle keep-alive connection is closed after uvicorn's
keep-alive timeout; and beyond ``max_connections`` open connections a new one is
answered 503 and closed, so idle or trickling clients cannot hold the server.

On SIGTERM or SIGINT the server stops accepting connections, lets the requests in flight
finish (up to ``grace`` seconds), stops the retention schedule, then closes the store (a
``file://`` store is compacted); every write it acknowledged is already durable, since
the store makes a write durable before it returns. The process then exits with status 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any, TextIO

from graphmem.core.errors import BackendUnavailable, InvalidInput
from graphmem.doors.extras import is_loopback
from graphmem.doors.http.app import ServerConfig, create_app
from graphmem.doors.http.problems import MEDIA_TYPE, encode, problem_body

__all__ = [
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_PORT",
    "guarded_protocol",
    "is_loopback",
    "listen",
    "serve",
]

DEFAULT_PORT = 8750
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_MAX_CONNECTIONS = 512
KEEP_ALIVE_TIMEOUT = 5
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n"
    b"content-length: 42\r\nconnection: close\r\n\r\n"
    b"too many connections open; try again soon\n"
)


def guarded_protocol(*, header_timeout: float, max_connections: int) -> type[asyncio.Protocol]:
    """The HTTP protocol of uvicorn, with a header deadline and a connection limit.

    uvicorn closes an idle keep-alive connection after its keep-alive timeout, but a new
    connection that sends nothing, or sends its headers a byte at a time, stays open as
    long as the client likes. Here each request's head must be complete within
    ``header_timeout`` seconds of the connection opening or of its first byte, and a
    connection beyond ``max_connections`` is answered 503 and closed at once. A request
    the HTTP parser refuses is answered 400 with a problem document.
    """
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    base: Any = AutoHTTPProtocol

    class Guarded(base):  # type: ignore[misc]
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                self.transport.write(_BUSY)
                self.transport.close()
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            cycle = self.cycle
            super().data_received(data)
            if self.cycle is not cycle:  # a request's headers are complete
                self._disarm()
            elif self._deadline is None and (cycle is None or cycle.response_complete):
                self._arm()  # the head of the next request has begun

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._deadline = self.loop.call_later(header_timeout, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def send_400_response(self, msg: str) -> None:
            # A request the HTTP parser refused (a request line too long, not HTTP/1.1)
            # never reaches the app; its answer is a problem document all the same.
            body = encode(problem_body(400, f"{msg.rstrip('.')}: the request could not be read"))
            head = [b"HTTP/1.1 400 Bad Request\r\n"]
            head.extend(n + b": " + v + b"\r\n" for n, v in self.server_state.default_headers)
            head.append(b"content-type: " + MEDIA_TYPE.encode() + b"\r\n")
            head.append(
                b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
            )
            self.transport.write(b"".join(head) + body)
            self.transport.close()

    return Guarded


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port).

    Raises:
        BackendUnavailable: The address cannot be bound (in use, not this machine's).
    """
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
        family, _type, _proto, _name, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
            sock.listen(2048)
        except OSError:
            sock.close()
            raise
    except OSError as exc:
        raise BackendUnavailable(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}", host=host, port=port
        ) from exc
    sock.set_inheritable(True)
    return sock


def serve(
    config: ServerConfig,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    out: TextIO | None = None,
    access_log: bool = False,
    log_level: str = "warning",
    grace: float = 30.0,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> None:
    """Serve the HTTP API until SIGTERM or SIGINT; print the address once it is up.

    ``header_timeout`` and ``max_connections`` guard the connections
    (:func:`guarded_protocol`).

    Raises:
        InvalidInput: ``config.tenant`` (no keys) with an address that is not loopback.
        BackendUnavailable: The address cannot be bound.
    """
    import uvicorn

    if not header_timeout > 0 or isinstance(max_connections, bool) or max_connections < 1:
        raise InvalidInput(
            "header_timeout must be a positive number of seconds and max_connections a "
            f"positive integer, got {header_timeout!r} and {max_connections!r}"
        )
    if config.tenant is not None and not is_loopback(host):
        raise InvalidInput(
            f"--tenant serves without API keys, so only on a loopback address, not {host!r}; "
            "use --keys FILE to serve other machines"
        )
    out = out or sys.stdout
    sock = listen(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    where = f"http://{shown}:{bound_port}"

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if not self.should_exit:
                auth = f"tenant {config.tenant!r}, no keys" if config.keys is None else "API keys"
                mcp = f"; MCP at {where}/mcp" if config.mcp else ""
                print(f"graphmem serve: listening on {where} ({auth}{mcp})", file=out, flush=True)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # uvicorn re-raises the signal after its graceful shutdown (exit status 143);
            # a clean stop is what SIGTERM asks for, so only stop and exit 0.
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            signals = (signal.SIGINT, signal.SIGTERM)
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    # The access log goes to stderr with the rest: stdout says where the server listens.
    log_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    log_config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    log_config["loggers"]["graphmem"] = {
        "handlers": ["default"],
        "level": log_level.upper(),
        "propagate": False,
    }
    uv_config = uvicorn.Config(
        create_app(config),
        log_config=log_config,
        lifespan="on",
        log_level=log_level,
        access_log=access_log,
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=int(grace),
        timeout_keep_alive=KEEP_ALIVE_TIMEOUT,
        http=guarded_protocol(header_timeout=header_timeout, max_connections=max_connections),
    )
    server = Server(uv_config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    if server.started:
        print("graphmem serve: stopped; the store is closed", file=out, flush=True)
    else:
        raise BackendUnavailable("the server did not start; the log above says why")
