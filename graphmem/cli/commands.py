"""The ``graphmem`` verbs that write, serve and retrieve (the doors of issue 15).

``graphmem serve``, ``graphmem mcp``, ``graphmem keys``, ``graphmem entity``, ``graphmem
relate``, ``graphmem say``, ``graphmem fork``, ``graphmem history``, ``graphmem branches``,
``graphmem retrieve``, ``graphmem ask``, ``graphmem tenants`` and ``graphmem openapi``.
Like the rest of the command line, each opens a :class:`graphmem.Memory` and calls its
API; ``--json`` prints the result as JSON; a graphmem error is one line on stderr and exit status 2.

Examples::

    graphmem entity add --store file:///tmp/w.graphmem --tenant t odile --type npc --name Odile
    graphmem relate --store file:///tmp/w.graphmem --tenant t odile distrusts halden
    graphmem say --store file:///tmp/w.graphmem --tenant t --session s1 --role player "Hello?"
    graphmem history --store file:///tmp/w.graphmem --tenant t --session s1 --json
    graphmem retrieve --store file:///tmp/w.graphmem --tenant t "the mill" --embedder hashing
    graphmem keys add --keys keys.toml --tenant t --name unity
    graphmem serve --store file:///tmp/w.graphmem --keys keys.toml --port 8750
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.core.errors import BackendUnavailable, InvalidInput
from graphmem.core.models import Entity, Provenance, Relationship, Turn
from graphmem.core.store import open_store
from graphmem.memory import open as open_memory

if TYPE_CHECKING:
    from graphmem.policy.governance import GovernancePolicy
    from graphmem.retrieval import Embedder

__all__ = ["COMMANDS", "add_commands", "embedder_of", "load_policy", "run"]

COMMANDS = (
    "serve",
    "mcp",
    "keys",
    "entity",
    "relate",
    "say",
    "fork",
    "history",
    "branches",
    "retrieve",
    "ask",
    "tenants",
    "openapi",
    "ui",
)
"""The subcommands this module adds to ``graphmem``."""

EMBEDDERS = ("default", "hashing")


# --------------------------------------------------------------------------- parser


def _store_arguments(parser: argparse.ArgumentParser, *, tenant: bool = True) -> None:
    parser.add_argument(
        "--store",
        required=True,
        metavar="URL",
        help="the store URL: memory://, file:///path/world.graphmem, neo4j://host, ...",
    )
    if tenant:
        parser.add_argument("--tenant", required=True, metavar="T", help="whose memory to use")


def _json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _embedder_argument(parser: argparse.ArgumentParser, default: str = "default") -> None:
    parser.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default=default,
        help="what embeds text for retrieval: 'default' (all-MiniLM-L6-v2, needs the "
        "embeddings extra) or 'hashing' (deterministic, no model)",
    )


def add_commands(commands: Any) -> None:
    """Add this module's subcommands to the ``graphmem`` subparsers."""
    _add_serve(commands)
    _add_mcp(commands)
    _add_keys(commands)
    from graphmem.cli.ui import add_ui

    add_ui(commands)

    entity = commands.add_parser("entity", help="add or read an entity")
    actions = entity.add_subparsers(dest="entity_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="insert or replace an entity")
    _store_arguments(add)
    add.add_argument("id", metavar="ID", help="the entity id")
    add.add_argument("--type", required=True, help="npc, player, location, item, ... (a safe name)")
    add.add_argument("--name", required=True, help="its display name")
    add.add_argument(
        "--attr",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an attribute; VALUE is JSON when it parses (3, true, [1,2]), else text (repeat)",
    )
    _json_argument(add)
    get = actions.add_parser("get", help="print an entity")
    _store_arguments(get)
    get.add_argument("id", metavar="ID", help="the entity id")
    _json_argument(get)

    relate = commands.add_parser(
        "relate",
        help="record a fact between two entities",
        description="Insert or replace the relationship SOURCE -TYPE-> TARGET (both must exist).",
    )
    _store_arguments(relate)
    relate.add_argument("source", metavar="SOURCE", help="the source entity id")
    relate.add_argument("type", metavar="TYPE", help="the relationship type (knows, hates, ...)")
    relate.add_argument("target", metavar="TARGET", help="the target entity id")
    relate.add_argument("--confidence", type=float, default=1.0, help="0..1 (default 1)")
    relate.add_argument(
        "--source-kind",
        default="stated",
        metavar="KIND",
        help="where it came from: stated, inferred, imported, observed (default stated)",
    )
    relate.add_argument("--confirmed", action="store_true", help="a human validated it")
    relate.add_argument("--session", metavar="S", help="the session it was learned in")
    relate.add_argument("--attr", action="append", default=[], metavar="KEY=VALUE")
    _json_argument(relate)

    say = commands.add_parser("say", help="append a turn to a conversation")
    _store_arguments(say)
    say.add_argument("--session", required=True, metavar="S", help="the conversation's session id")
    say.add_argument("--role", required=True, help="player, npc, gm, user, assistant, ...")
    say.add_argument("--speaker", help="the speaker's name")
    say.add_argument("--turn-id", help="an id of your own for the turn")
    say.add_argument(
        "--parent",
        metavar="TURN",
        help="answer this earlier turn (its id or turn id): the conversation forks there first",
    )
    say.add_argument("text", metavar="TEXT", help="what was said ('-' reads stdin)")
    _json_argument(say)

    fork = commands.add_parser(
        "fork",
        help="go back to an earlier turn of a conversation",
        description="Move the conversation's head to TURN (its id or your turn id): the "
        "next say starts a new branch after it; the other branch stays (branches).",
    )
    _store_arguments(fork)
    fork.add_argument("--session", required=True, metavar="S", help="the conversation's session id")
    fork.add_argument("turn", metavar="TURN", help="the turn to continue from")
    _json_argument(fork)

    history = commands.add_parser("history", help="print a conversation's active branch")
    _store_arguments(history)
    history.add_argument("--session", required=True, metavar="S")
    history.add_argument("--limit", type=int, metavar="N", help="the newest N turns only")
    history.add_argument(
        "--all", action="store_true", help="every turn of every branch, in creation order"
    )
    _json_argument(history)

    branches = commands.add_parser("branches", help="list a conversation's branches")
    _store_arguments(branches)
    branches.add_argument("--session", required=True, metavar="S")
    _json_argument(branches)

    retrieve = commands.add_parser(
        "retrieve",
        help="GraphRAG retrieval with provenance",
        description="What the memory knows that helps answer QUERY: vector and full-text "
        "search, fused, expanded through the graph, reranked; each result with provenance.",
    )
    _store_arguments(retrieve)
    retrieve.add_argument("query", metavar="QUERY")
    retrieve.add_argument("-k", type=int, default=10, help="how many results (default 10)")
    retrieve.add_argument("--hops", type=int, default=2, help="graph walk depth (default 2)")
    retrieve.add_argument(
        "--kinds", nargs="+", metavar="KIND", help="chunk, turn, entity, relationship"
    )
    retrieve.add_argument("--scope", nargs="+", metavar="ID", help="entity ids to stay within")
    retrieve.add_argument("--preset", help="a fusion preset (hybrid, semantic, graph, ...)")
    retrieve.add_argument(
        "--max-tokens", type=int, metavar="N", help="print prompt text within N tokens instead"
    )
    retrieve.add_argument(
        "--text-only",
        action="store_true",
        help="full-text search and the graph walk only (no embedder needed)",
    )
    _embedder_argument(retrieve)
    _json_argument(retrieve)

    ask = commands.add_parser(
        "ask",
        help="answer a question about the entity graph",
        description="Answer QUESTION by walking the graph's typed relationships from the "
        "entity it names (Memory.ask); each answer with the chain of facts behind it.",
    )
    _store_arguments(ask)
    ask.add_argument("question", metavar="QUESTION")
    ask.add_argument("-k", type=int, default=5, help="how many answers (default 5)")
    ask.add_argument("--max-hops", type=int, metavar="N", help="longest path (default 3)")
    ask.add_argument(
        "--no-semantic",
        action="store_true",
        help="compare words by stem only (no embedder needed)",
    )
    _json_argument(ask)

    tenants = commands.add_parser("tenants", help="list the tenants a store holds")
    _store_arguments(tenants, tenant=False)
    _json_argument(tenants)

    openapi = commands.add_parser("openapi", help="print the HTTP API's OpenAPI document")
    openapi.add_argument("-o", "--output", type=Path, metavar="FILE", help="write to FILE")


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="serve the HTTP API (the server extra)",
        description="Serve graphmem's HTTP API on uvicorn until SIGTERM or SIGINT. Every "
        "request is scoped to the tenant its API key opens (--keys), or to one tenant "
        "without keys on a loopback address (--tenant).",
    )
    _store_arguments(serve, tenant=False)
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
    _embedder_argument(serve)
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
    _store_arguments(mcp)
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
    _embedder_argument(mcp)


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
    _json_argument(add)
    revoke = actions.add_parser(
        "revoke",
        help="remove a key by name; a running server refuses it from its next request",
    )
    revoke.add_argument("--keys", required=True, type=Path, metavar="FILE")
    revoke.add_argument("--name", required=True, help="the label of the key to remove")
    _json_argument(revoke)
    listing = actions.add_parser(
        "list", help="list the keys' names, tenants and expiry times (no hashes)"
    )
    listing.add_argument("--keys", required=True, type=Path, metavar="FILE")
    _json_argument(listing)


# --------------------------------------------------------------------------- helpers


def embedder_of(name: str) -> Embedder:
    """The embedder a ``--embedder`` choice names.

    Raises:
        BackendUnavailable: ``default`` without the embeddings extra (the message says
            what to install, or to pass ``--embedder hashing``).
    """
    from graphmem.retrieval import HashingEmbedder, SentenceTransformerEmbedder

    if name == "hashing":
        return HashingEmbedder()
    if not SentenceTransformerEmbedder.available():
        raise BackendUnavailable(
            "retrieval needs an embedder and the embeddings extra is not installed: "
            "pip install 'graphmem[embeddings]', or pass --embedder hashing"
        )
    return SentenceTransformerEmbedder()


class _UnavailableEmbedder:
    """Stands in for the default embedder of a server without the embeddings extra."""

    def __init__(self, error: BackendUnavailable) -> None:
        self._error = error

    @property
    def dimension(self) -> int:
        raise self._error

    def embed(self, texts: Sequence[str]) -> Any:
        raise self._error


def _server_embedder(name: str) -> Any:
    try:
        return embedder_of(name)
    except BackendUnavailable as exc:
        message = str(exc).replace(
            "pass --embedder hashing", "start the server with --embedder hashing"
        )
        return _UnavailableEmbedder(BackendUnavailable(message))


def load_policy(path: Path | None) -> GovernancePolicy | None:
    """A governance policy from a TOML or JSON file (``None`` without a file).

    Keys: ``pii`` ("reject" | "redact"), ``forbidden_categories`` (a list),
    ``review_below``, ``duplicate_threshold``, ``update_threshold`` (0..1),
    ``dedup_window_seconds``, ``half_life_days``, ``signing_key_env`` (the name of an
    environment variable holding the signing key: never the key itself),
    ``retention_max_age_days`` and ``retention_max_entries``.

    Raises:
        InvalidInput: The file cannot be read, has unknown keys or bad values.
    """
    if path is None:
        return None
    import os
    import tomllib
    from datetime import timedelta

    from graphmem.policy.governance import GovernancePolicy

    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except OSError as exc:
        raise InvalidInput(f"cannot read the policy file {path}: {exc.strerror or exc}") from exc
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(f"the policy file {path} cannot be parsed: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidInput(f"the policy file {path} must hold a table of settings")
    known = {
        "pii",
        "forbidden_categories",
        "review_below",
        "duplicate_threshold",
        "update_threshold",
        "dedup_window_seconds",
        "half_life_days",
        "signing_key_env",
        "retention_max_age_days",
        "retention_max_entries",
    }
    unknown = sorted(set(data) - known)
    if unknown:
        raise InvalidInput(f"the policy file {path} has unknown settings: {', '.join(unknown)}")
    kwargs: dict[str, Any] = {
        key: data[key]
        for key in ("pii", "review_below", "duplicate_threshold", "update_threshold")
        if key in data
    }
    if "retention_max_entries" in data:
        kwargs["retention_max_entries"] = data["retention_max_entries"]
    try:
        if "forbidden_categories" in data:
            kwargs["forbidden_categories"] = frozenset(data["forbidden_categories"])
        if "dedup_window_seconds" in data:
            kwargs["dedup_window"] = timedelta(seconds=float(data["dedup_window_seconds"]))
        if "half_life_days" in data:
            kwargs["half_life"] = timedelta(days=float(data["half_life_days"]))
        if "retention_max_age_days" in data:
            kwargs["retention_max_age"] = timedelta(days=float(data["retention_max_age_days"]))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"the policy file {path} has a bad value: {exc}") from exc
    if "signing_key_env" in data:
        name = data["signing_key_env"]
        value = os.environ.get(name) if isinstance(name, str) else None
        if not value:
            raise InvalidInput(
                f"the policy file {path} names signing_key_env {name!r}, which is not set"
            )
        kwargs["signing_key"] = value.encode("utf-8")
    return GovernancePolicy(**kwargs)


def _attributes(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InvalidInput(f"--attr {pair!r}: write KEY=VALUE")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def _dump(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _turn_line(turn: Turn) -> str:
    who = f"{turn.speaker} ({turn.role})" if turn.speaker else turn.role
    return f"{turn.created_at:%Y-%m-%d %H:%M:%S}  {turn.id[:8]}  {who}: {turn.content}"


# --------------------------------------------------------------------------- run


def run(args: argparse.Namespace) -> int:
    """Run one of :data:`COMMANDS`; return the exit status (errors propagate to the caller)."""
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "serve": _serve,
        "mcp": _mcp,
        "keys": _keys,
        "entity": _entity,
        "relate": _relate,
        "say": _say,
        "fork": _fork,
        "history": _history,
        "branches": _branches,
        "retrieve": _retrieve,
        "ask": _ask,
        "tenants": _tenants,
        "openapi": _openapi,
        "ui": _ui,
    }
    try:
        return handlers[args.command](args)
    except ImportError as exc:
        missing = exc.name or "a module"
        raise BackendUnavailable(
            f"graphmem {args.command} needs {missing}, which is not installed: "
            "pip install 'graphmem[server]'"
        ) from exc


def _ui(args: argparse.Namespace) -> int:
    from graphmem.cli.ui import run_ui

    return run_ui(args)


def _serve(args: argparse.Namespace) -> int:
    from graphmem.doors.http import require_extra

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
        embedder=_server_embedder(args.embedder),
        cors_origins=tuple(args.cors_origin),
        mcp=args.mcp,
        mcp_actor=args.mcp_actor,
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
            embedder=_server_embedder(args.embedder),
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
            _dump({"revoked": gone.name, "tenant": gone.tenant, "keys_file": str(args.keys)})
        else:
            print(f"graphmem: key {gone.name!r} (tenant {gone.tenant!r}) revoked", file=sys.stderr)
        return 0
    if args.keys_command == "add":
        key = add_key(args.keys, tenant=args.tenant, name=args.name, expires=args.expires)
        if args.json:
            _dump(
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
        _dump({"keys": rows})
    else:
        for row in rows:
            until = f"  expires {row['expires']}" if row["expires"] else ""
            print(f"{row['name']:<24} {row['tenant']}{until}")
    return 0


def _entity(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant) as mem:
        if args.entity_command == "add":
            entity = Entity(
                id=args.id, type=args.type, name=args.name, attributes=_attributes(args.attr)
            )
            [stored] = mem.upsert_entities([entity])
        else:
            stored = mem.get_entity(args.id)
        if args.json:
            _dump(stored.model_dump(mode="json"))
        else:
            attributes = ", ".join(f"{k}={json.dumps(v)}" for k, v in stored.attributes.items())
            suffix = f"  {attributes}" if attributes else ""
            print(f"{stored.id}: {stored.name} ({stored.type}){suffix}")
    return 0


def _relate(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant) as mem:
        rel = Relationship(
            source_id=args.source,
            target_id=args.target,
            type=args.type,
            attributes=_attributes(args.attr),
            provenance=Provenance(
                session_id=args.session,
                confidence=args.confidence,
                source=args.source_kind,
                confirmed=args.confirmed,
            ),
        )
        [stored] = mem.upsert_relationships([rel])
        if args.json:
            _dump(stored.model_dump(mode="json"))
        else:
            p = stored.provenance
            print(
                f"{stored.source_id} -{stored.type}-> {stored.target_id} "
                f"({p.source}, confidence {p.confidence:.2f}{', confirmed' if p.confirmed else ''})"
            )
    return 0


def _say(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    with open_memory(args.store, tenant=args.tenant) as mem:
        conversation = mem.conversation(args.session)
        if args.parent is not None:
            conversation.fork(args.parent)
        turn = conversation.append(args.role, text, speaker=args.speaker, turn_id=args.turn_id)
        if args.json:
            _dump(turn.model_dump(mode="json"))
        else:
            print(_turn_line(turn))
    return 0


def _fork(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant) as mem:
        head = mem.conversation(args.session).fork(args.turn)
        if args.json:
            _dump(head.model_dump(mode="json"))
        else:
            print(f"the head of {args.session} is now: {_turn_line(head)}")
    return 0


def _history(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant, read_only=True) as mem:
        chat = mem.conversation(args.session)
        if args.all and args.limit is not None:
            raise InvalidInput("--all lists every turn; --limit goes with the active branch")
        turns = chat.turns() if args.all else chat.history(limit=args.limit)
        if args.json:
            _dump({"session_id": args.session, "turns": [t.model_dump(mode="json") for t in turns]})
        else:
            for turn in turns:
                print(_turn_line(turn))
    return 0


def _branches(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant, read_only=True) as mem:
        found = mem.conversation(args.session).branches()
        if args.json:
            _dump(
                {"session_id": args.session, "branches": [b.model_dump(mode="json") for b in found]}
            )
            return 0
        for number, branch in enumerate(found, start=1):
            fork = f"forks after {branch.fork_point.id[:8]}" if branch.fork_point else "no fork"
            mark = "  (active)" if branch.active else ""
            print(
                f"{number}. {branch.length} turns, {fork}, ends {branch.leaf.id[:8]}: "
                f"{branch.leaf.content}{mark}"
            )
    return 0


def _retrieve(args: argparse.Namespace) -> int:
    embedder = None if args.text_only else embedder_of(args.embedder)
    with open_memory(args.store, tenant=args.tenant, embedder=embedder, read_only=True) as mem:
        if args.text_only:
            results = mem.query_with_context(
                args.query, args.scope, k=args.k, hops=args.hops, kinds=args.kinds
            )
        else:
            results = mem.retrieve(
                args.query,
                k=args.k,
                hops=args.hops,
                graph_scope=args.scope,
                kinds=args.kinds,
                preset=args.preset,
            )
        context = mem.render_context(results, args.max_tokens) if args.max_tokens else None
        if args.json:
            _dump(
                {
                    "query": args.query,
                    "results": [r.model_dump(mode="json") for r in results],
                    "context": context,
                }
            )
        elif context is not None:
            print(context)
        else:
            for result in results:
                evidence = ", ".join(result.provenance.evidence) if result.provenance else ""
                shown = result.turn_id if result.turn_id is not None else result.source_id
                print(f"{result.score:7.3f}  {result.kind:<12} {shown}  {result.content}")
                if result.kind == "relationship" and (result.valid_at or result.invalid_at):
                    since = f"{result.valid_at:%Y-%m-%d %H:%M}" if result.valid_at else "?"
                    until = f"{result.invalid_at:%Y-%m-%d %H:%M}" if result.invalid_at else "now"
                    print(f"{'':22}valid: {since} .. {until}")
                if evidence:
                    print(f"{'':22}evidence: {evidence}")
    return 0


def _ask(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant, read_only=True) as mem:
        semantic = False if args.no_semantic else None
        answers = mem.ask(args.question, k=args.k, max_hops=args.max_hops, semantic=semantic)
    if args.json:
        from graphmem.doors.schemas import GraphAnswerOut  # pydantic only, no server extra

        # The wire form of POST /v1/ask: each step of a path as {type, direction}.
        _dump(
            {
                "question": args.question,
                "answers": [GraphAnswerOut.of(a).model_dump(mode="json") for a in answers],
                "confidence": answers.confidence,
                "abstained": answers.abstained,
                "reason": answers.reason,
                "ambiguity": [
                    {"mention": a.mention, "candidates": list(a.candidates)}
                    for a in answers.ambiguity
                ],
                "unexplained": list(answers.unexplained),
            }
        )
        return 0
    for ambiguous in answers.ambiguity:
        print(f"ambiguous: {ambiguous.mention!r} may be {', '.join(ambiguous.candidates)}")
    if answers.abstained:
        print(f"no answer: {answers.reason}")
        return 0
    print(
        f"confidence {answers.confidence:.2f}" + (f" ({answers.reason})" if answers.reason else "")
    )
    for a in answers:
        print(f"{a.score:6.3f}  {a.entity.name} ({a.entity.id})  {a.explain()}")
    return 0


def _tenants(args: argparse.Namespace) -> int:
    store = open_store(args.store, read_only=True)
    try:
        names = store.list_tenants()
    finally:
        store.close()
    if args.json:
        _dump({"tenants": names})
    else:
        for name in names:
            print(name)
    return 0


def _openapi(args: argparse.Namespace) -> int:
    from graphmem.doors.http import require_extra

    require_extra()
    from graphmem.doors.http.openapi import openapi_text

    text = openapi_text()
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote the OpenAPI document to {args.output}")
    return 0
