"""``graphmem demo``: the village of Brindleford, played on the embedded backend.

It builds the demo world (:mod:`graphmem.tools.demos.village`), shows it, plays a
conversation that forks, prints an identity snapshot under a token budget, reopens the
store and checks that everything came back. The command line (``graphmem demo``) calls
:func:`play_demo`; the exit status is 0 when every check held, 1 when one did not.
"""

from __future__ import annotations

import tempfile
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Provenance, Relationship, Turn
from graphmem.core.store import TenantDump, redact_url
from graphmem.memory import Memory
from graphmem.memory import open as open_memory
from graphmem.tools.demos.village import DEMO_TENANT, MAIN_NPC_ID, PLAYER_ID, build_demo_world

__all__ = ["DEMO_MAX_TOKENS", "DEMO_SESSION", "play_demo"]

DEMO_SESSION = "demo-chat"
DEMO_MAX_TOKENS = 220


@contextmanager
def _demo_path(requested: Path | None) -> Iterator[Path]:
    if requested is not None:
        if requested.exists():
            raise InvalidInput(
                f"{requested} already exists; give a new path or delete it first",
                path=str(requested),
            )
        yield requested.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="graphmem-demo-") as tmp:
        yield Path(tmp) / "brindleford.graphmem"


class _Say:
    """Prints the demo's lines to one stream, optionally indented."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def __call__(self, text: str = "", indent: int = 0) -> None:
        print(textwrap.indent(text, " " * indent) if text else "", file=self.out)


@contextmanager
def _demo_url(file: Path | None, store: str | None) -> Iterator[tuple[str, str]]:
    """The store URL of the demo and how to name it in messages."""
    if store is not None:
        yield store, redact_url(store)
        return
    with _demo_path(file) as path:
        yield path.as_uri(), path.name


def play_demo(
    file: Path | None,
    out: TextIO,
    *,
    store: str | None = None,
    reset: bool = False,
    report: dict[str, Any] | None = None,
) -> int:
    """Play the demo, printing to ``out``; ``report`` (when given) receives it as data."""
    say = _Say(out)
    report = {} if report is None else report
    with _demo_url(file, store) as (url, label):
        report.update(store=redact_url(url), tenant=DEMO_TENANT)
        say("graphmem demo: the village of Brindleford")
        say(f"store: {redact_url(url)}   tenant: {DEMO_TENANT!r}")

        with open_memory(url, tenant=DEMO_TENANT) as mem:
            if reset:
                mem.clear()
                say(f"cleared what tenant {DEMO_TENANT!r} held in the store")
            build_demo_world(mem)
            _show_world(mem, say)
            branch = _play_conversation(mem, say)
            npc_name = mem.get_entity(MAIN_NPC_ID).name

            say()
            say(f"3. {npc_name}'s identity snapshot (to_prompt, max_tokens={DEMO_MAX_TOKENS}):")
            prompt = mem.identity_snapshot(MAIN_NPC_ID).to_prompt(max_tokens=DEMO_MAX_TOKENS)
            say(prompt, indent=3)

            say()
            chat = mem.conversation(DEMO_SESSION)
            say(
                f"4. The active branch of {DEMO_SESSION!r}, oldest first ({len(branch)} of "
                f"{chat.count()} turns; the other branch is still stored):"
            )
            for turn in branch:
                say(_turn_line(turn), indent=3)
            before = _sorted_dump(mem.dump())
            persistent = "persistence" in mem.store.capabilities
            report.update(
                npc=MAIN_NPC_ID,
                snapshot_prompt=prompt,
                active_branch=[t.model_dump(mode="json") for t in branch],
                turns=chat.count(),
                persistent=persistent,
            )

        if not persistent:
            say()
            say(f"5. {label} keeps nothing after close: no reopening to show.")
            report["ok"] = True
            return 0
        say()
        say(f"5. Closed the store and reopened {label}:")
        with open_memory(url, tenant=DEMO_TENANT) as mem:
            after = _sorted_dump(mem.dump())
            branch_after = mem.conversation(DEMO_SESSION).history()
            checks = {
                "entities": before.entities == after.entities,
                "relationships": before.relationships == after.relationships,
                "turns": before.turns == after.turns,
                "conversation heads": before.heads == after.heads,
                "active branch": branch == branch_after,
            }
            counts = {
                "entities": len(after.entities),
                "relationships": len(after.relationships),
                "turns": len(after.turns),
                "conversation heads": len(after.heads),
                "active branch": len(branch_after),
            }
        report["reopened"] = {
            what: {"count": counts[what], "identical": same} for what, same in checks.items()
        }
        report["ok"] = all(checks.values())
        if file is not None:
            report["file"] = str(file.resolve())
        for what, same in checks.items():
            verdict = "identical" if same else "DIFFERENT"
            say(f"{what:<20} {counts[what]:>4}  {verdict}", indent=3)
        if not all(checks.values()):
            say("the reopened store differs from the one written", indent=3)
            return 1
        if file is not None:
            say()
            say(f"The store is kept at {file.resolve()}; try:")
            say(
                f"graphmem snapshot --store {url} --tenant {DEMO_TENANT} {MAIN_NPC_ID}",
                indent=3,
            )
    return 0


def _show_world(mem: Memory, say: _Say) -> None:
    dump = mem.dump()
    invalid = [r for r in dump.relationships if not r.is_current()]
    inferred = sum(1 for r in dump.relationships if r.provenance.source == "inferred")
    confirmed = sum(1 for r in dump.relationships if r.provenance.confirmed)
    say()
    say(
        f"1. Built the world: {len(dump.entities)} entities, {len(dump.relationships)} "
        f"relationships ({inferred} inferred, {confirmed} confirmed by the GM, "
        f"{len(invalid)} invalidated), {len(dump.turns)} turns of the GM's session log."
    )
    names = {e.id: e.name for e in dump.entities}
    for old in invalid:
        say(
            f"Contradicted in play: {names[old.source_id]} {old.type} "
            f"{names[old.target_id]} (no longer holds since {old.invalid_at:%Y-%m-%d %H:%M:%S} "
            "UTC; kept for as_of reads)",
            indent=3,
        )
        held_from = old.valid_at if old.valid_at is not None else old.created_at
        then = [
            r
            for r in mem.get_relationships(old.source_id, types=[old.type], as_of=held_from)
            if r.target_id == old.target_id
        ]
        said = (
            f"{names[old.source_id]} {old.type} {names[old.target_id]}"
            if then
            else "nothing (the fact never held)"
        )
        say(f"Read as_of {held_from:%Y-%m-%d %H:%M:%S} UTC, before it ended: {said}", indent=3)
        replacements = mem.get_relationships(old.source_id, types=None)
        for new in replacements:
            if new.target_id == old.target_id and new.valid_at == old.invalid_at:
                mark = " (confirmed)" if new.provenance.confirmed else ""
                say(
                    f"Replaced by: {names[new.source_id]} {new.type} {names[new.target_id]}{mark}",
                    indent=3,
                )


def _play_conversation(mem: Memory, say: _Say) -> list[Turn]:
    player = mem.get_entity(PLAYER_ID).name
    npc = mem.get_entity(MAIN_NPC_ID).name
    chat = mem.conversation(DEMO_SESSION)
    say()
    say(f"2. A conversation that forks (session {DEMO_SESSION!r}):")

    def turn(role: str, speaker: str, content: str) -> Turn:
        stored = chat.append(role, content, speaker=speaker)
        say(_turn_line(stored), indent=3)
        return stored

    turn("player", player, "Evening. Can you take me across before dark?")
    offer = turn("npc", npc, "River's high. Two coppers, and sit low.")
    turn("player", player, "They say you heard the Drowned Bell ring on the Night of High Water.")
    turn("npc", npc, "They say a lot at the Kettle. Ask Sister Ilse.")

    chat.fork(offer)
    say(f"-- fork: back to {offer.speaker}'s turn {offer.content!r}; another branch --", indent=3)
    turn("player", player, "Who runs the mill these days?")
    warning = turn("npc", npc, "Halden Crook. I trusted him once. Count your sacks twice.")

    # What was said becomes a fact, with the turn as its evidence.
    mem.upsert_relationships(
        [
            Relationship(
                source_id=MAIN_NPC_ID,
                target_id=PLAYER_ID,
                type="warned",
                attributes={"about": "halden"},
                provenance=Provenance(
                    session_id=DEMO_SESSION,
                    confidence=0.8,
                    source="inferred",
                    evidence=(warning.id,),
                ),
            )
        ]
    )
    say(f"Recorded: {npc} warned {player} about Halden (inferred, evidence: that turn)", indent=3)
    return chat.history()


def _turn_line(turn: Turn) -> str:
    return f"[{turn.role}] {turn.speaker or '?'}: {turn.content}"


def _sorted_dump(dump: TenantDump) -> TenantDump:
    return TenantDump(
        entities=sorted(dump.entities, key=lambda e: e.id),
        relationships=sorted(dump.relationships, key=lambda r: r.key),
        turns=sorted(dump.turns, key=lambda t: t.id),
        heads=dict(sorted(dump.heads.items())),
        records=sorted(dump.records, key=lambda r: (r.kind, r.id)),
    )
