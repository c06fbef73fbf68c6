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

from graphmem.cli.arguments import (
    dump_json,
    embedder_argument,
    embedder_of,
    json_argument,
    load_policy,
    store_arguments,
)
from graphmem.cli.serving import SERVING, add_serving_commands
from graphmem.core.errors import BackendUnavailable, InvalidInput
from graphmem.core.models import Entity, Provenance, Relationship, Turn
from graphmem.core.store import open_store
from graphmem.memory import open as open_memory

if TYPE_CHECKING:
    pass

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


# --------------------------------------------------------------------------- parser


def add_commands(commands: Any) -> None:
    """Add this module's subcommands to the ``graphmem`` subparsers."""
    add_serving_commands(commands)

    entity = commands.add_parser("entity", help="add or read an entity")
    actions = entity.add_subparsers(dest="entity_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="insert or replace an entity")
    store_arguments(add)
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
    json_argument(add)
    get = actions.add_parser("get", help="print an entity")
    store_arguments(get)
    get.add_argument("id", metavar="ID", help="the entity id")
    json_argument(get)

    relate = commands.add_parser(
        "relate",
        help="record a fact between two entities",
        description="Insert or replace the relationship SOURCE -TYPE-> TARGET (both must exist).",
    )
    store_arguments(relate)
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
    json_argument(relate)

    say = commands.add_parser("say", help="append a turn to a conversation")
    store_arguments(say)
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
    json_argument(say)

    fork = commands.add_parser(
        "fork",
        help="go back to an earlier turn of a conversation",
        description="Move the conversation's head to TURN (its id or your turn id): the "
        "next say starts a new branch after it; the other branch stays (branches).",
    )
    store_arguments(fork)
    fork.add_argument("--session", required=True, metavar="S", help="the conversation's session id")
    fork.add_argument("turn", metavar="TURN", help="the turn to continue from")
    json_argument(fork)

    history = commands.add_parser("history", help="print a conversation's active branch")
    store_arguments(history)
    history.add_argument("--session", required=True, metavar="S")
    history.add_argument("--limit", type=int, metavar="N", help="the newest N turns only")
    history.add_argument(
        "--all", action="store_true", help="every turn of every branch, in creation order"
    )
    json_argument(history)

    branches = commands.add_parser("branches", help="list a conversation's branches")
    store_arguments(branches)
    branches.add_argument("--session", required=True, metavar="S")
    json_argument(branches)

    retrieve = commands.add_parser(
        "retrieve",
        help="GraphRAG retrieval with provenance",
        description="What the memory knows that helps answer QUERY: vector and full-text "
        "search, fused, expanded through the graph, reranked; each result with provenance.",
    )
    store_arguments(retrieve)
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
    embedder_argument(retrieve)
    json_argument(retrieve)

    ask = commands.add_parser(
        "ask",
        help="answer a question about the entity graph",
        description="Answer QUESTION by walking the graph's typed relationships from the "
        "entity it names (Memory.ask); each answer with the chain of facts behind it.",
    )
    store_arguments(ask)
    ask.add_argument("question", metavar="QUESTION")
    ask.add_argument("-k", type=int, default=5, help="how many answers (default 5)")
    ask.add_argument("--max-hops", type=int, metavar="N", help="longest path (default 3)")
    ask.add_argument(
        "--no-semantic",
        action="store_true",
        help="compare words by stem only (no embedder needed)",
    )
    json_argument(ask)

    tenants = commands.add_parser("tenants", help="list the tenants a store holds")
    store_arguments(tenants, tenant=False)
    json_argument(tenants)

    openapi = commands.add_parser("openapi", help="print the HTTP API's OpenAPI document")
    openapi.add_argument("-o", "--output", type=Path, metavar="FILE", help="write to FILE")


# --------------------------------------------------------------------------- helpers


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


def _turn_line(turn: Turn) -> str:
    who = f"{turn.speaker} ({turn.role})" if turn.speaker else turn.role
    return f"{turn.created_at:%Y-%m-%d %H:%M:%S}  {turn.id[:8]}  {who}: {turn.content}"


# --------------------------------------------------------------------------- run


def run(args: argparse.Namespace) -> int:
    """Run one of :data:`COMMANDS`; return the exit status (errors propagate to the caller)."""
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        **SERVING,
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
    }
    try:
        return handlers[args.command](args)
    except ImportError as exc:
        missing = exc.name or "a module"
        raise BackendUnavailable(
            f"graphmem {args.command} needs {missing}, which is not installed: "
            "pip install 'graphmem[server]'"
        ) from exc


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
            dump_json(stored.model_dump(mode="json"))
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
            dump_json(stored.model_dump(mode="json"))
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
            dump_json(turn.model_dump(mode="json"))
        else:
            print(_turn_line(turn))
    return 0


def _fork(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant) as mem:
        head = mem.conversation(args.session).fork(args.turn)
        if args.json:
            dump_json(head.model_dump(mode="json"))
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
            dump_json(
                {"session_id": args.session, "turns": [t.model_dump(mode="json") for t in turns]}
            )
        else:
            for turn in turns:
                print(_turn_line(turn))
    return 0


def _branches(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant, read_only=True) as mem:
        found = mem.conversation(args.session).branches()
        if args.json:
            dump_json(
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
            dump_json(
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
        dump_json(
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
        dump_json({"tenants": names})
    else:
        for name in names:
            print(name)
    return 0


def _openapi(args: argparse.Namespace) -> int:
    from graphmem.doors.extras import require_extra

    require_extra()
    from graphmem.doors.http.openapi import openapi_text

    text = openapi_text()
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote the OpenAPI document to {args.output}")
    return 0
