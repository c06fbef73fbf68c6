"""The ``graphmem`` verbs that serve: ``serve``, ``mcp``, ``keys`` and ``ui``.

``serve`` runs the HTTP API (and the MCP tools at ``/mcp`` with ``--mcp``), ``mcp`` the MCP
server on its own, ``keys`` edits API keys files, ``ui`` opens the inspector page of one
tenant on loopback.

Like the other verbs (:mod:`graphmem.cli.commands`), each opens what it serves and
returns an exit status; a graphmem error propagates to the program, which prints it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphmem.cli.arguments import (
    dump_json,
    embedder_argument,
    json_argument,
    load_policy,
    server_embedder,
    store_arguments,
)
from graphmem.cli.ui import add_ui, run_ui

__all__ = ["SERVING", "add_serving_commands"]


def add_serving_commands(commands: Any) -> None:
    """Add ``serve``, ``mcp`` and ``keys`` to the ``graphmem`` subparsers."""
    _add_serve(commands)
    _add_mcp(commands)
    _add_keys(commands)
    add_ui(commands)


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="serve the HTTP API (the server extra)",
        description="Serve graphmem's HTTP API on uvicorn until SIGTERM or SIGINT. Every "
        "request is scoped to the tenant its API key opens (--keys), or to one tenant "
        "without keys on a loopback address (--tenant).",
    )
    store_arguments(serve, tenant=False)
    who = serve.add_mutually_exclusive_group(required=True)
    who.add_argument("--tenant", metavar="T", help="serve this tenant without keys (loopback only)")
    who.add_argument(
        "--keys", type=Path, metavar="FILE", help="a keys file (TOML or JSON; hashes only)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8750, help="port (8750; 0 picks a free one)")
    serve.add_argument("--policy", type=Path, metavar="FILE", help="a governance policy file")
    serve.add_argument(
        "--retention-interval",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="how often the policy's retention runs (3600; the first run at start-up)",
    )
    embedder_argument(serve)
    from graphmem.doors.http.limits import Limits  # no FastAPI import: the parser stays light

    defaults = Limits.__dataclass_fields__
    for name, help_text in (
        ("max_body_bytes", "largest request body, in bytes"),
        ("max_import_bytes", "largest import body, in bytes"),
        ("max_batch_rows", "most items in one batch"),
        ("max_text_chars", "longest text (content, document, query), in characters"),
    ):
        serve.add_argument(
            f"--{name.replace('_', '-')}",
            type=int,
            default=defaults[name].default,
            metavar="N",
            help=f"{help_text} (default {defaults[name].default:,})",
        )
    serve.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="close a connection that has not sent a request's headers within this (10)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=512,
        metavar="N",
        help="answer 503 and close connections beyond this many open at once (512)",
    )
    serve.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser origin allowed to call the API, e.g. http://localhost:8060 (repeat)",
    )
    serve.add_argument(
        "--mcp",
        action="store_true",
        help="also serve the MCP tools at /mcp (streamable HTTP), same store and keys",
    )
    serve.add_argument(
        "--mcp-actor",
        default="mcp-agent",
        metavar="NAME",
        help="with --mcp: who governed writes are audited as (mcp-agent)",
    )
    serve.add_argument(
        "--no-metrics",
        action="store_true",
        help="serve no GET /metrics and count nothing (served without a key by default)",
    )
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.add_argument(
        "--log-level", default="warning", choices=("debug", "info", "warning", "error")
    )


def _add_mcp(commands: Any) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="serve the MCP tools for agents (the server extra)",
        description="An MCP server (the official SDK) with the tools an agent needs, "
        "scoped to one tenant: stdio by default, streamable HTTP with --http.",
    )
    store_arguments(mcp)
    mcp.add_argument(
        "--actor", default="mcp-agent", help="who governed writes are audited as (mcp-agent)"
    )
    mcp.add_argument("--policy", type=Path, metavar="FILE", help="a governance policy file")
    mcp.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="with --http: address (127.0.0.1)")
    mcp.add_argument("--port", type=int, default=8751, help="with --http: port (8751)")
    mcp.add_argument(
        "--read-only",
        action="store_true",
        help="open the store read-only and offer the tools that read only (a file:// "
        "store: beside the graphmem serve that writes it)",
    )
    embedder_argument(mcp)


def _add_keys(commands: Any) -> None:
    keys = commands.add_parser("keys", help="make and list the API keys of graphmem serve")
    actions = keys.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add",
        help="make a key for a tenant, print it once, store its hash",
        description="Make a random API key for TENANT, print it (once: it is stored "
        "nowhere) and append its SHA-256 hash to the keys file (created if missing).",
    )
    add.add_argument("--keys", required=True, type=Path, metavar="FILE")
    add.add_argument("--tenant", required=True, metavar="T")
    add.add_argument("--name", required=True, help="a label for the key (unity-client, ...)")
    add.add_argument(
        "--expires",
        metavar="WHEN",
        help="when the key stops working: an ISO 8601 time (2027-01-31T12:00:00Z; naive = "
        "UTC) or a duration from now (30d, 12h, 45m); a running server notices",
    )
    json_argument(add)
    revoke = actions.add_parser(
        "revoke",
        help="remove a key by name; a running server refuses it from its next request",
    )
    revoke.add_argument("--keys", required=True, type=Path, metavar="FILE")
    revoke.add_argument("--name", required=True, help="the label of the key to remove")
    json_argument(revoke)
    listing = actions.add_parser(
        "list", help="list the keys' names, tenants and expiry times (no hashes)"
    )
    listing.add_argument("--keys", required=True, type=Path, metavar="FILE")
    json_argument(listing)


def _serve(args: argparse.Namespace) -> int:
    from graphmem.doors.extras import require_extra

    require_extra(*(("fastapi", "uvicorn", "mcp") if args.mcp else ()))
    from graphmem.doors.http.app import ServerConfig
    from graphmem.doors.http.keys import KeyRing
    from graphmem.doors.http.limits import Limits
    from graphmem.doors.http.run import serve

    limits = Limits(
        max_body_bytes=args.max_body_bytes,
        max_import_bytes=args.max_import_bytes,
        max_batch_rows=args.max_batch_rows,
        max_text_chars=args.max_text_chars,
    )
    config = ServerConfig(
        store=args.store,
        tenant=args.tenant,
        keys=KeyRing.load(args.keys) if args.keys is not None else None,
        limits=limits,
        policy=load_policy(args.policy),
        retention_interval=args.retention_interval,
        embedder=server_embedder(args.embedder),
        cors_origins=tuple(args.cors_origin),
        mcp=args.mcp,
        mcp_actor=args.mcp_actor,
        metrics=not args.no_metrics,
    )
    serve(
        config,
        host=args.host,
        port=args.port,
        access_log=args.access_log,
        log_level=args.log_level,
        header_timeout=args.header_timeout,
        max_connections=args.max_connections,
    )
    return 0


def _mcp(args: argparse.Namespace) -> int:
    from graphmem.core.errors import StoreLocked
    from graphmem.doors.mcp.server import run_mcp

    try:
        run_mcp(
            args.store,
            tenant=args.tenant,
            actor=args.actor,
            policy=load_policy(args.policy),
            embedder=server_embedder(args.embedder),
            http=args.http,
            host=args.host,
            port=args.port,
            read_only=args.read_only,
        )
    except StoreLocked as exc:
        raise StoreLocked(
            f"{exc.message}. Beside a graphmem serve that writes it: serve MCP from that "
            "process (graphmem serve --mcp), or read it here (graphmem mcp --read-only)",
            **exc.data,
        ) from exc
    return 0


def _keys(args: argparse.Namespace) -> int:
    from graphmem.doors.http.keys import KeyRing, add_key, revoke_key

    if args.keys_command == "revoke":
        gone = revoke_key(args.keys, name=args.name)
        if args.json:
            dump_json({"revoked": gone.name, "tenant": gone.tenant, "keys_file": str(args.keys)})
        else:
            print(f"graphmem: key {gone.name!r} (tenant {gone.tenant!r}) revoked", file=sys.stderr)
        return 0
    if args.keys_command == "add":
        key = add_key(args.keys, tenant=args.tenant, name=args.name, expires=args.expires)
        if args.json:
            dump_json(
                {"name": args.name, "tenant": args.tenant, "key": key, "keys_file": str(args.keys)}
            )
        else:
            print(key)
            print(
                f"graphmem: key {args.name!r} opens tenant {args.tenant!r}; its hash is in "
                f"{args.keys}. This is the only time the key is shown.",
                file=sys.stderr,
            )
        return 0
    ring = KeyRing.load(args.keys)
    rows = [
        {
            "name": e.name,
            "tenant": e.tenant,
            "expires": e.expires.isoformat() if e.expires else None,
        }
        for e in ring.entries
    ]
    if args.json:
        dump_json({"keys": rows})
    else:
        for row in rows:
            until = f"  expires {row['expires']}" if row["expires"] else ""
            print(f"{row['name']:<24} {row['tenant']}{until}")
    return 0


SERVING: dict[str, Callable[[argparse.Namespace], int]] = {
    "serve": _serve,
    "mcp": _mcp,
    "keys": _keys,
    "ui": run_ui,
}
"""The serving verbs by name."""
