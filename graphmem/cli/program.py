"""The ``graphmem`` command: demo, snapshot, belief, tell, announce, export, import, ...

The doors (``serve``, ``mcp``, ``keys``, ``entity``, ``relate``, ``say``, ``history``,
``branches``, ``retrieve``, ``tenants``, ``openapi``) live in :mod:`graphmem.cli.commands`.

A door onto the library with no logic of its own: every subcommand opens a
:class:`graphmem.Memory` and calls its API. graphmem errors become a one-line message
on stderr and exit status 2; a successful command exits 0.

Examples::

    graphmem demo
    graphmem demo --file brindleford.graphmem
    graphmem demo --policy
    graphmem snapshot --store file:///tmp/brindleford.graphmem --tenant brindleford odile
    graphmem belief --store file:///tmp/b.graphmem --tenant b odile boat located_in --of kestrel
    graphmem announce --store file:///tmp/b.graphmem --tenant b kestrel boat located_in north-bank
    graphmem export --store file:///tmp/brindleford.graphmem --tenant brindleford -o world.jsonl
    graphmem import --store file:///tmp/copy.graphmem --tenant brindleford world.jsonl
    graphmem check --store file:///tmp/brindleford.graphmem
    graphmem schema install --store neo4j://neo4j:password@localhost:7687
    graphmem demo --store neo4j://neo4j:password@localhost:7687 --reset
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO, cast

from graphmem.cli import commands as doors
from graphmem.core.errors import GraphmemError, InvalidInput
from graphmem.core.progress import Bar, progress_bar, wants_progress
from graphmem.core.store import TenantDump, check_store, install_schema, redact_url
from graphmem.core.version import __version__
from graphmem.memory import open as open_memory
from graphmem.tools.demos.run import play_demo
from graphmem.tools.demos.village import DEMO_TENANT

__all__ = ["build_parser", "main"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_ERROR = 2


# --------------------------------------------------------------------------- parser


def build_parser(*, with_bench: bool = False, with_eval: bool = False) -> argparse.ArgumentParser:
    """Build the argument parser.

    Args:
        with_bench: Import ``graphmem.tools.bench.main`` and add its options to ``bench``. Only
            done when ``bench`` is the command, so other commands do not pay for it.
        with_eval: The same for ``eval`` and ``graphmem.tools.evaluation.main``.
    """
    parser = argparse.ArgumentParser(
        prog="graphmem",
        description="Graph memory for AI agents and game NPCs.",
    )
    parser.add_argument("--version", action="version", version=f"graphmem {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser(
        "demo",
        help="build a small village, fork a conversation, show a snapshot and persistence",
        description="Build the village of Brindleford in a file:// store, play a short "
        "conversation that forks, print an NPC identity snapshot and the active branch, "
        "then close and reopen the file to show that everything came back.",
    )
    where = demo.add_mutually_exclusive_group()
    where.add_argument(
        "--file",
        type=Path,
        metavar="PATH",
        help="where to write the store (must not exist yet; default: a temporary directory)",
    )
    where.add_argument(
        "--store",
        metavar="URL",
        help="run against this store instead (e.g. neo4j://user:password@host:7687)",
    )
    demo.add_argument(
        "--reset",
        action="store_true",
        help=f"with --store: first delete what the demo tenant {DEMO_TENANT!r} holds there",
    )
    demo.add_argument(
        "--json",
        action="store_true",
        help="print what the demo built and checked as one JSON document instead",
    )
    demo.add_argument(
        "--policy",
        action="store_true",
        help="instead, play a rolling-summary conversation whose summarizer goes down and "
        "recovers (embedded store, nothing written)",
    )

    schema = commands.add_parser(
        "schema",
        help="manage a store's schema (indexes and constraints)",
        description="Apply the schema a backend needs (Neo4j: uniqueness constraints, "
        "vector and full-text indexes); safe to run any number of times.",
    )
    schema_commands = schema.add_subparsers(dest="schema_command", metavar="ACTION", required=True)
    install = schema_commands.add_parser("install", help="apply the schema and wait for it")
    install.add_argument("--store", required=True, metavar="URL", help="the store URL")
    install.add_argument(
        "--dimension", type=int, default=384, help="embedding size of the vector indexes"
    )
    install.add_argument(
        "--quantization",
        choices=("on", "off"),
        default="off",
        help="vector quantization of the vector indexes: smaller, approximate scores "
        "(default off: exact cosine scores)",
    )
    install.add_argument(
        "--rebuild-vector-indexes",
        action="store_true",
        help="drop and re-create vector indexes that exist with another dimension or "
        "quantization (the vectors stay; the index is rebuilt from them)",
    )
    install.add_argument(
        "--no-wait", action="store_true", help="do not wait for the indexes to come online"
    )
    install.add_argument("--json", action="store_true", help="print the indexes as JSON")

    snapshot = commands.add_parser(
        "snapshot",
        help="print an NPC identity snapshot",
        description="Print who an NPC is right now: its attributes and current facts.",
    )
    _add_store_arguments(snapshot)
    snapshot.add_argument("npc_id", metavar="NPC_ID", help="the id of the NPC entity")
    output = snapshot.add_mutually_exclusive_group()
    output.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="render the prompt text within about N tokens (least important facts dropped)",
    )
    output.add_argument(
        "--json", action="store_true", help="print the NPCIdentity as JSON instead of text"
    )
    snapshot.add_argument(
        "--perspective", action="store_true", help="what the NPC believes, not the world's facts"
    )
    snapshot.add_argument(
        "--as-of", type=_iso_time, metavar="TIME", help="world time (ISO 8601; naive = UTC)"
    )
    snapshot.add_argument(
        "--recorded-as-of",
        type=_iso_time,
        metavar="TIME",
        help="memory time: as the store held it then (ISO 8601)",
    )

    _add_minds_commands(commands)

    export = commands.add_parser(
        "export",
        help="write a tenant's memory as JSON Lines",
        description="Write everything a tenant holds (entities, relationships, turns, "
        "conversation heads) as JSON Lines.",
    )
    _add_store_arguments(export)
    export.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write to FILE (default: stdout)"
    )

    import_ = commands.add_parser(
        "import",
        help="load JSON Lines made by export into a tenant",
        description="Load a JSON Lines export into a tenant: all of it, or nothing if any "
        "line is bad.",
    )
    _add_store_arguments(import_)
    import_.add_argument("file", metavar="FILE", help="the JSON Lines file ('-' for stdin)")
    import_.add_argument(
        "--quiet", action="store_true", help="no progress bar (one is drawn only on a terminal)"
    )
    import_.add_argument("--json", action="store_true", help="print the counts as JSON")

    check = commands.add_parser(
        "check",
        help="check a store's integrity (read only)",
        description="Check a store without changing it, even while its writer runs: "
        "SQLite's own integrity check, graphmem's checksums and row counts, every stored "
        "model, and graphmem's invariants (no dangling reference, sound PARENT chains). "
        "Exits 0 when sound, 1 when a problem was found.",
    )
    check.add_argument("--store", required=True, metavar="URL", help="the store URL")
    check.add_argument("--json", action="store_true", help="print the report as JSON")

    bench = commands.add_parser(
        "bench",
        help="measure snapshot, conversation and ingest speed",
        description="Measure identity snapshots, conversation appends, forks and bulk "
        "ingest on the embedded backend, against a hand-written networkx baseline.",
    )
    if with_bench:
        from graphmem.tools.bench import main as bench_module

        bench_module.add_arguments(bench)

    evaluate = commands.add_parser(
        "eval",
        help="measure retrieval and NPC beliefs on public data against baselines",
        description="Ingest MuSiQue, HotpotQA, MetaQA or LIGHT from ../shared/eval (or your "
        "own small worlds: --dataset worlds --worlds PATH), answer every question from its "
        "text alone, and print recall / Hits@1 beside a BM25 keyword baseline measured in "
        "the same run; ToMi stories become events and belief questions are answered from "
        "belief reads, beside a world-state baseline.",
    )
    if with_eval:
        from graphmem.tools.evaluation import main as evaluation

        evaluation.add_arguments(evaluate)
    doors.add_commands(commands)
    return parser


def _add_store_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        required=True,
        metavar="URL",
        help="the store URL: memory://, file:///path/world.graphmem, neo4j://host, ...",
    )
    parser.add_argument("--tenant", required=True, metavar="T", help="whose memory to use")


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option)."""
    return next((word for word in argv if not word.startswith("-")), None)


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    """Run the ``graphmem`` command line; return the exit status.

    Args:
        argv: The arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        0 on success, 1 when the demo's persistence check fails, 2 on a usage error
        or a graphmem error (reported on stderr in one line).
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        command = _command_of(args_list)
        parser = build_parser(with_bench=command == "bench", with_eval=command == "eval")
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    _say_when_models_load()
    try:
        if args.command == "demo":
            if args.reset and not args.store:
                raise InvalidInput("--reset goes with --store")
            if args.policy:
                if args.json:
                    raise InvalidInput("--json goes with the village demo, not --policy")
                return _policy_demo(args, sys.stdout)
            if args.json:
                report: dict[str, Any] = {}
                status = play_demo(
                    args.file, io.StringIO(), store=args.store, reset=args.reset, report=report
                )
                print(json.dumps(report, indent=2, ensure_ascii=False))
                return status
            return play_demo(args.file, sys.stdout, store=args.store, reset=args.reset)
        if args.command == "schema":
            return _schema_install(args)
        if args.command == "snapshot":
            return _snapshot(args)
        if args.command in ("belief", "tell", "announce"):
            return _minds_command(args)
        if args.command == "export":
            return _export(args)
        if args.command == "import":
            return _import(args)
        if args.command == "check":
            return _check(args)
        if args.command == "bench":
            from graphmem.tools.bench import main as bench_module

            return bench_module.run(args)
        if args.command == "eval":
            from graphmem.tools.evaluation import main as evaluation

            return evaluation.run(args)
        if args.command in doors.COMMANDS:
            return doors.run(args)
    except GraphmemError as exc:
        return _fail(str(exc))
    except BrokenPipeError:  # stdout went away (`graphmem export ... | head`): stop quietly
        _silence_stdout()
        return EXIT_FAILED
    except OSError as exc:  # a file named on the command line cannot be read or written
        name = f"{exc.filename}: " if exc.filename else ""
        return _fail(f"{name}{exc.strerror or exc}")
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover - argparse checks


def _say_when_models_load() -> None:
    """Print on stderr when the embedding model loads (seconds, once per process)."""
    import logging

    logger = logging.getLogger("graphmem.embedders")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("graphmem: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; point it at /dev/null so that flush cannot fail.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout is not a real file
        pass


def _fail(message: str) -> int:
    print(f"graphmem: error: {message}", file=sys.stderr)
    return EXIT_ERROR


# --------------------------------------------------------------------------- snapshot


def _iso_time(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 time") from exc


def _snapshot(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant, read_only=True) as mem:
        identity = mem.identity_snapshot(
            args.npc_id,
            perspective=args.perspective,
            as_of=args.as_of,
            recorded_as_of=args.recorded_as_of,
        )
        if args.json:
            print(identity.model_dump_json(indent=2))
        else:
            print(identity.to_prompt(max_tokens=args.max_tokens))
    return EXIT_OK


# --------------------------------------------------------------------------- NPC minds


def _add_minds_commands(commands: Any) -> None:
    """``belief`` (a nested belief of any order), ``tell`` and ``announce`` (claims)."""
    belief = commands.add_parser(
        "belief",
        help="print what an NPC believes (or thinks others believe) of a subject",
        description="Print what NPC believes of SUBJECT's PREDICATE; with --of, what it "
        "thinks those NPCs believe, in order (any order: --of b --of c is 'NPC thinks b "
        "thinks c believes').",
    )
    _add_store_arguments(belief)
    belief.add_argument("npc_id", metavar="NPC_ID")
    belief.add_argument("subject", metavar="SUBJECT")
    belief.add_argument("predicate", metavar="PREDICATE")
    belief.add_argument("--object", metavar="ID", help="only this object (many-valued)")
    belief.add_argument("--of", action="append", metavar="NPC_ID", help="nested: repeat it")
    belief.add_argument("--as-of", type=_iso_time, metavar="TIME", help="world time")
    belief.add_argument("--recorded-as-of", type=_iso_time, metavar="TIME", help="memory time")
    belief.add_argument("--json", action="store_true", help="print the belief as JSON")
    for name, listener in (("tell", True), ("announce", False)):
        claim = commands.add_parser(
            name,
            help="an NPC claims a fact to another, in private"
            if listener
            else "an NPC claims a fact to everyone present (or to --audience)",
            description="Record a claim (true or a lie): the speaker's belief is untouched; "
            "each listener's trust policy decides whether it believes it.",
        )
        _add_store_arguments(claim)
        claim.add_argument("speaker", metavar="SPEAKER")
        if listener:
            claim.add_argument("listener", metavar="LISTENER")
        claim.add_argument("subject", metavar="SUBJECT")
        claim.add_argument("predicate", metavar="PREDICATE")
        claim.add_argument("object", metavar="OBJECT")
        if not listener:
            where = claim.add_mutually_exclusive_group()
            where.add_argument("--place", metavar="ID", help="default: where the speaker is")
            where.add_argument("--audience", action="append", metavar="NPC_ID", help="repeat it")
        claim.add_argument("--at", type=_iso_time, metavar="TIME", help="world time")
        claim.add_argument("--json", action="store_true", help="print the result as JSON")


def _minds_command(args: argparse.Namespace) -> int:
    if args.command == "belief":
        with open_memory(args.store, tenant=args.tenant, read_only=True) as mem:
            found = mem.belief(
                args.npc_id,
                args.subject,
                args.predicate,
                args.object,
                of=args.of,
                as_of=args.as_of,
                recorded_as_of=args.recorded_as_of,
            )
            if args.json:
                print(json.dumps(found.model_dump(mode="json") if found else None, indent=2))
            elif found is None:
                print("no belief")
            else:
                print(f"{found.fact.text()} ({found.how}, confidence {found.confidence:.2f})")
        return EXIT_OK
    fact = (args.subject, args.predicate, args.object)
    with open_memory(args.store, tenant=args.tenant) as mem:
        if args.command == "tell":
            told = mem.tell(args.speaker, args.listener, fact, at=args.at)
            if args.json:
                print(json.dumps([b.model_dump(mode="json") for b in told], indent=2))
            else:
                print(f"{args.listener} believes: " + "; ".join(b.fact.text() for b in told))
        else:
            said = mem.announce(
                args.speaker, fact, place=args.place, audience=args.audience, at=args.at
            )
            heard = ", ".join(p for p in said.witnesses if p != args.speaker) or "no one"
            believed = ", ".join(said.adopted[0]) or "no one"
            if args.json:
                print(said.model_dump_json(indent=2))
            else:
                print(f"heard by {heard}; believed by {believed}")
    return EXIT_OK


# --------------------------------------------------------------------------- export / import


def _export(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant, read_only=True) as mem:
        if args.output is None:
            mem.export_jsonl(sys.stdout)
            sys.stdout.flush()
        else:
            lines = mem.export_jsonl(args.output)
            print(f"wrote {lines} lines to {args.output}")
    return EXIT_OK


class _CountedLines:
    """A text file read line by line, each line counted on a progress bar (in bytes)."""

    def __init__(self, handle: TextIO, bar: Bar) -> None:
        self._handle = handle
        self._bar = bar

    def __iter__(self) -> Iterator[str]:
        for line in self._handle:
            self._bar.update(len(line.encode("utf-8")))
            yield line


def _import(args: argparse.Namespace) -> int:
    with open_memory(args.store, tenant=args.tenant) as mem:
        if args.file == "-":
            dump = mem.import_jsonl(sys.stdin)
        else:
            path = Path(args.file)
            enabled = wants_progress(args.quiet)
            with (
                path.open(encoding="utf-8") as handle,
                progress_bar(path.stat().st_size, f"importing {path.name}", enabled, "B") as bar,
            ):
                bar_lines = _CountedLines(handle, bar)
                dump = mem.import_jsonl(cast(TextIO, bar_lines))
        if args.json:
            counts = {
                "tenant": args.tenant,
                "entities": len(dump.entities),
                "relationships": len(dump.relationships),
                "turns": len(dump.turns),
                "conversations": _session_count(dump),
                "records": len(dump.records),
                "chunks": len(dump.chunks),
            }
            print(json.dumps(counts))
            return EXIT_OK
        print(
            f"imported {len(dump.entities)} entities, {len(dump.relationships)} relationships "
            f"and {len(dump.turns)} turns in {_session_count(dump)} conversations "
            f"into tenant {args.tenant!r}"
        )
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    report = check_store(args.store)
    if args.json:
        document = {
            "url": report.url,
            "format": report.format,
            "counts": report.counts,
            "problems": report.problems,
            "ok": report.ok,
        }
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return EXIT_OK if report.ok else EXIT_FAILED
    print(f"{redact_url(args.store)}: {report.format}")
    for table, count in report.counts.items():
        print(f"   {table:<14} {count:>10,}")
    if report.ok:
        print("no problem found")
        return EXIT_OK
    print(f"{len(report.problems)} problem(s):")
    for problem in report.problems:
        print(f"   {problem}")
    return EXIT_FAILED


def _session_count(dump: TenantDump) -> int:
    return len({t.session_id for t in dump.turns} | set(dump.heads))


# --------------------------------------------------------------------------- demo


def _schema_install(args: argparse.Namespace) -> int:
    report = install_schema(
        args.store,
        dimension=args.dimension,
        quantization=args.quantization == "on",
        rebuild_vector_indexes=args.rebuild_vector_indexes,
        wait=not args.no_wait,
    )
    if args.json:
        indexes = [
            {"name": index.name, "type": index.type, "state": index.state}
            for index in getattr(report, "indexes", ())
        ]
        print(
            json.dumps(
                {
                    "store": redact_url(args.store),
                    "quantization": getattr(report, "quantization", None),
                    "indexes": indexes,
                }
            )
        )
        return EXIT_OK
    if report is None:
        print(f"{redact_url(args.store)}: this backend keeps no schema; nothing to install")
        return EXIT_OK
    quantization = getattr(report, "quantization", None)
    detail = ""
    if quantization is not None:
        detail = f" (vector quantization {'on' if quantization else 'off'})"
    print(f"schema installed on {redact_url(args.store)}{detail}:")
    for index in getattr(report, "indexes", ()):
        print(f"   {index.name:<40} {index.type:<10} {index.state}")
    return EXIT_OK


def _policy_demo(args: argparse.Namespace, out: TextIO) -> int:
    """``graphmem demo --policy``: the conversation-policy transcript."""
    if args.file is not None or args.store is not None:
        raise InvalidInput("--policy runs on an embedded store of its own: drop --file / --store")
    from graphmem.tools.demos.policy import run

    run(lambda line: print(line, file=out))
    return EXIT_OK
