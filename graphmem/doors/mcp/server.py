"""``graphmem mcp``: the tools an agent needs, as an MCP server (the official ``mcp`` SDK).

One server serves one tenant, chosen when it starts; governed writes are audited as one
actor (``--actor``). stdio by default (what Claude Desktop and IDE agents launch),
streamable HTTP with ``--http``. The tools:

- ``remember_fact`` / ``recall_facts`` / ``forget_fact``: governed facts (trust, PII,
  conflicts, audit; see :mod:`graphmem.policy.governance`); a workspace fact (the
  default) is an edge of the graph once believed, its subject linked by name or created;
  ``relate_entities``: a governed relationship between two entities;
- ``upsert_entities`` / ``get_entity`` / ``find_entities`` / ``delete_entities`` and
  ``upsert_relationships``: the entity graph itself, built from nothing
  (:mod:`graphmem.doors.mcp.world`); ``fork_conversation``: branch a conversation;
- ``retrieve``: GraphRAG context with provenance;
- ``ask``: a question about the entity graph answered by a typed walk (``who directed
  X?``), each answer with the chain of facts behind it;
- ``npc_snapshot``: who an NPC is now, as prompt text and as data;
- ``append_turn`` / ``read_history`` / ``list_branches``: conversations, with an agent
  turn's trajectory digest and artifacts;
- ``search_session_log``: keyword search across sessions;
- ``invalidate_relationship``: retire a fact of the entity graph (kept for ``as_of``);
- NPC minds (what each character believes, apart from what is true):
  ``record_event`` / ``observe_place`` / ``tell`` / ``believe`` write events and
  beliefs; ``npc_beliefs`` / ``npc_belief`` / ``who_knows`` / ``list_events`` read them at
  two clocks (world time ``as_of``, memory time ``recorded_as_of``); ``npc_recall`` and
  ``forget_beliefs`` rank and retire memories; ``save_recap`` / ``read_recap`` /
  ``draft_recap`` / ``list_recaps`` keep session recaps (as text: audio stays in the
  store); ``npc_snapshot`` takes ``perspective``, ``as_of`` and ``recorded_as_of``.

A door like the HTTP API: each tool is one ``Memory`` call; a graphmem error becomes a
tool error whose text names the error class and says what to fix. A result is its
structured content, with that content as compact JSON in its text block (for clients that
read text only); tool schemas carry no generated titles.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import wraps
from typing import TYPE_CHECKING, Annotated, Any, Literal, ParamSpec, TypeVar

from pydantic import BaseModel, Field

from graphmem.core.errors import GraphmemError
from graphmem.core.models import (
    Artifact,
    ArtifactRef,
    Branch,
    ContextResult,
    NPCIdentity,
    Relationship,
    StrictBool,
    Trajectory,
    Turn,
    estimate_tokens,
)
from graphmem.doors.mcp.inspect import INSPECT_TOOLS, add_inspect_tools
from graphmem.doors.mcp.minds import AsOf, RecordedAsOf, add_mind_tools
from graphmem.doors.mcp.world import WORLD_TOOLS, add_world_tools, link_subject, server_class
from graphmem.doors.schemas import AskOut, LearnOut
from graphmem.memory import Memory
from graphmem.memory import open as open_memory
from graphmem.minds.perspective import PerspectiveIdentity
from graphmem.policy.governance import Fact, GovernancePolicy, LearnResult, ScoredFact

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from graphmem.retrieval import Embedder

__all__ = ["TOOLS", "build_server", "run_mcp"]

TOOLS = (
    "remember_fact",
    "recall_facts",
    "forget_fact",
    "relate_entities",
    "retrieve",
    "ask",
    "npc_snapshot",
    "append_turn",
    "read_history",
    "list_branches",
    "search_session_log",
    "invalidate_relationship",
    "record_event",
    "observe_place",
    "tell",
    "announce",
    "believe",
    "npc_beliefs",
    "npc_belief",
    "who_knows",
    "list_events",
    "npc_recall",
    "forget_beliefs",
    "save_recap",
    "read_recap",
    "draft_recap",
    "list_recaps",
    *WORLD_TOOLS,
    *INSPECT_TOOLS,
)
"""The names of the tools the server offers."""

_INSTRUCTIONS = """\
graphmem is this agent's long-term graph memory (one tenant). Build the world with
upsert_entities and upsert_relationships (find_entities, get_entity read it back).
Remember durable facts with remember_fact (a workspace fact, the default, joins the graph)
and find them again with recall_facts; ask retrieve for context about a
question (every result names its source) and ask for a question about the entities and how
they relate ("who runs the forge?"); npc_snapshot says who a game character is now.
Record conversation turns with append_turn (an agent turn may carry its trajectory:
tools used, observations, reasoning) and read them back with read_history or
search_session_log; fork_conversation goes back to an earlier turn. Retire what is no
longer true with forget_fact or invalidate_relationship: nothing is deleted, history stays readable.
For game characters, what each one believes is kept apart from what is true: record what
happens with record_event (only those present witness it), let them talk with tell (in
private) or announce (to all present): a claim may be a lie, and each listener's trust
decides whether it believes it. Ask npc_beliefs, npc_belief or who_knows; npc_snapshot
with perspective=true says who a character is as it sees things. Recaps of a session:
draft_recap, save_recap, read_recap."""

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _tool_errors(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Turn graphmem errors into MCP tool errors the agent can read and act on."""
    from mcp.server.mcpserver.exceptions import ToolError

    @wraps(fn)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except GraphmemError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc.message}") from exc

    return call


class Recalled(BaseModel):
    """Recalled facts, best first, within the token budget."""

    facts: list[ScoredFact]


class Retrieved(BaseModel):
    """Retrieved context, best first; ``context`` is the same as prompt text."""

    results: list[ContextResult]
    context: str


class Snapshot(BaseModel):
    """Who an NPC is: prompt text and the data behind it (its beliefs, with perspective)."""

    prompt: str
    token_estimate: int
    identity: PerspectiveIdentity | NPCIdentity


class Turns(BaseModel):
    """Conversation turns."""

    turns: list[Turn]


class Branches(BaseModel):
    """A conversation's branches, oldest leaf first."""

    branches: list[Branch]


def build_server(
    mem: Memory,
    *,
    actor: str = "mcp-agent",
    policy: GovernancePolicy | None = None,
    read_only: bool = False,
    **settings: Any,
) -> MCPServer:
    """The MCP server of ``mem`` (its tenant), with :data:`TOOLS`.

    Args:
        mem: The memory to serve; the caller keeps it open while the server runs.
        actor: Who governed writes are audited as.
        policy: The governance policy of governed writes (default rules when None).
        read_only: Only the tools that read (for a store opened read-only).
        **settings: Passed to ``MCPServer`` (``log_level=...``, ...).
    """
    from mcp.types import ToolAnnotations

    server: MCPServer = server_class(read_only=read_only)(
        "graphmem",
        title="graphmem memory",
        instructions=_INSTRUCTIONS,
        version=_version(),
        **settings,
    )
    readonly = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True)
    writes = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False)
    retires = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True)

    def facts(session: str | None) -> Any:
        return mem.fact_memory(actor=actor, session=session, policy=policy)

    @server.tool(annotations=writes)
    @_tool_errors
    def remember_fact(
        subject: Annotated[str, Field(description="Who or what the fact is about, e.g. 'Mira'.")],
        relation: Annotated[str, Field(description="The relation, e.g. 'works_at'.")],
        value: Annotated[str, Field(description="The value, e.g. 'the forge'.")],
        source_type: Annotated[
            str,
            Field(
                description="Where it came from: agent_run (default), user_input, "
                "tool_output, manual, webhook. More trusted sources win conflicts."
            ),
        ] = "agent_run",
        memory_type: Literal["semantic", "episodic", "procedural"] = "semantic",
        scope: Annotated[
            Literal["agent", "session", "workspace"],
            Field(
                description="workspace: the tenant's graph (ask, retrieve, snapshots see "
                "it); agent: only this agent's notes; session: one session's notes."
            ),
        ] = "workspace",
        subject_type: Annotated[
            str, Field(description="The type of the subject if it is new: npc, item, ...")
        ] = "concept",
        category: Annotated[str | None, Field(description="A category (a safe name).")] = None,
        session: Annotated[str | None, Field(description="The session, for scope=session.")] = None,
    ) -> LearnOut:
        """Remember a durable fact (subject, relation, value) through the governance rules.

        A workspace fact is an edge of the graph once believed (fact.edge): its subject
        is the entity of that id or name, created when there is none; its value an
        entity of that name, or a value of its own. A near duplicate is a no-op; a
        refinement supersedes the old value; a contradiction from a more trusted source
        invalidates the old one, otherwise the new fact waits for review. Personal data
        is refused. Every change is audited.
        """
        made = link_subject(mem, subject, relation, subject_type) if scope == "workspace" else None
        try:
            result: LearnResult = facts(session).learn(
                subject,
                relation,
                value,
                source_type=source_type,
                memory_type=memory_type,
                scope=scope,
                category=category,
            )
        except GraphmemError:
            if made is not None:  # a refused fact writes nothing
                mem.delete_entities([made.id])
            raise
        shown = result.fact.edge if result.fact is not None else None
        if made is not None and (shown is None or shown[0] != made.id):
            # Not the fact's subject after all (a policy redacted the subject, say): an
            # entity named by the raw text must not stay behind.
            mem.delete_entities([made.id])
        return LearnOut.of(result)

    @server.tool(annotations=writes)
    @_tool_errors
    def relate_entities(
        source_id: Annotated[str, Field(description="The entity the relationship is from.")],
        type: Annotated[str, Field(description="The relationship type, e.g. 'works_at'.")],
        target_id: Annotated[str, Field(description="The entity it points to.")],
        source_type: Annotated[
            str, Field(description="Where it came from (as remember_fact).")
        ] = "agent_run",
        session: Annotated[str | None, Field(description="The session, if any.")] = None,
    ) -> LearnOut:
        """Relate two known entities through the governance rules (a governed graph edge).

        The same steps as remember_fact (trust, personal data, conflicts, audit); once
        believed, the relationship is an edge of the graph that snapshots and retrieve
        see, carrying the fact's provenance. A second target of the same type refines or
        contradicts the first.
        """
        result: LearnResult = facts(session).relate(
            source_id, type, target_id, source_type=source_type
        )
        return LearnOut.of(result)

    @server.tool(annotations=readonly)
    @_tool_errors
    def recall_facts(
        query: Annotated[str, Field(description="What you want to know, in plain words.")],
        max_tokens: Annotated[int, Field(ge=1, le=100_000)] = 500,
        limit: Annotated[int | None, Field(ge=1, le=1000)] = None,
        session: Annotated[str | None, Field(description="Also see this session's facts.")] = None,
    ) -> Recalled:
        """Recall the remembered facts that best answer a query, within a token budget.

        Scored by relevance, recency, memory type and trust; only facts believed now.
        """
        found: list[ScoredFact] = facts(session).recall(query, max_tokens=max_tokens, limit=limit)
        return Recalled(facts=found)

    @server.tool(annotations=retires)
    @_tool_errors
    def forget_fact(
        fact_id: Annotated[str, Field(description="The id of a remembered fact.")],
        session: Annotated[str | None, Field(description="The fact's session, if any.")] = None,
    ) -> Fact:
        """Stop believing a remembered fact from now on (invalidated, not deleted; audited)."""
        forgotten: Fact = facts(session).forget(fact_id)
        return forgotten

    @server.tool(annotations=readonly)
    @_tool_errors
    def retrieve(
        query: Annotated[str, Field(description="The question or topic, in plain words.")],
        k: Annotated[int, Field(ge=1, le=100, description="How many results.")] = 8,
        hops: Annotated[int, Field(ge=0, le=6, description="Depth of the graph walk.")] = 2,
        graph_scope: Annotated[
            list[str] | None, Field(description="Entity ids to stay within.")
        ] = None,
        kinds: list[Literal["chunk", "turn", "entity", "relationship"]] | None = None,
        max_tokens: Annotated[int, Field(ge=1, le=100_000)] = 1000,
    ) -> Retrieved:
        """Find what the memory knows that helps answer a query (GraphRAG).

        Vector and full-text search over documents, turns and entities, expanded through
        the entity graph and reranked; each result carries its provenance (source ids,
        confidence). ``context`` renders the best results within ``max_tokens``.
        """
        results = mem.retrieve(query, k=k, hops=hops, graph_scope=graph_scope, kinds=kinds)
        return Retrieved(results=results, context=mem.render_context(results, max_tokens))

    @server.tool(annotations=readonly)
    @_tool_errors
    def ask(
        question: Annotated[
            str, Field(description="A question naming an entity: 'who directed X?'.")
        ],
        k: Annotated[int, Field(ge=1, le=100, description="How many answers.")] = 5,
        max_hops: Annotated[
            int | None, Field(ge=1, le=6, description="The longest relation path (default 3).")
        ] = None,
    ) -> AskOut:
        """Answer a question about the entity graph by walking its typed relationships.

        The entity the question names is found, relation paths are chosen by how well
        the question's words match the relationship types the memory holds, and the
        entities at their ends are the answers, each with the chain of facts (and their
        provenance) that leads to it, with a confidence (0..1) and the names the
        question gave that several entities go by. Empty, with ``abstained`` and the
        ``reason``, when the question names no known entity or no relationship of the
        graph explains its words: then say you do not know rather than guess.
        """
        return AskOut.of(mem.ask(question, k=k, max_hops=max_hops))

    @server.tool(annotations=readonly)
    @_tool_errors
    def npc_snapshot(
        npc_id: Annotated[str, Field(description="The NPC's entity id.")],
        max_tokens: Annotated[int | None, Field(ge=1, le=100_000)] = None,
        perspective: Annotated[
            StrictBool, Field(description="Who it is as it sees things: its beliefs, true or not.")
        ] = False,
        as_of: AsOf = None,
        recorded_as_of: RecordedAsOf = None,
    ) -> Snapshot:
        """Who an NPC is: attributes and facts (or its beliefs), as prompt text and data.

        Now by default; at a world time (``as_of``) or as the memory stood at
        ``recorded_as_of``.
        """
        identity = mem.identity_snapshot(
            npc_id, perspective=perspective, as_of=as_of, recorded_as_of=recorded_as_of
        )
        prompt = identity.to_prompt(max_tokens=max_tokens)
        return Snapshot(prompt=prompt, token_estimate=estimate_tokens(prompt), identity=identity)

    @server.tool(annotations=writes)
    @_tool_errors
    def append_turn(
        session_id: Annotated[str, Field(description="The conversation's session id.")],
        role: Annotated[str, Field(description="user, assistant, player, npc, gm, tool, ...")],
        content: Annotated[str, Field(description="What was said.")],
        speaker: Annotated[str | None, Field(description="The speaker's name.")] = None,
        trajectory: Annotated[
            Trajectory | None,
            Field(description="For an agent's turn: tools used, observations, reasoning."),
        ] = None,
        artifacts: Annotated[
            list[Artifact] | None, Field(description="What was shown to the user.")
        ] = None,
        hidden_artifacts: Annotated[
            list[ArtifactRef] | None,
            Field(description="References to artifacts kept hidden (never their content)."),
        ] = None,
        turn_id: Annotated[
            str | None,
            Field(description="Your own id for the turn; retrieve results carry it back."),
        ] = None,
    ) -> Turn:
        """Append a turn to a conversation, after its head (the newest turn)."""
        return mem.conversation(session_id).append(
            role,
            content,
            speaker=speaker,
            turn_id=turn_id,
            trajectory=trajectory,
            artifacts=artifacts or (),
            hidden_artifacts=hidden_artifacts or (),
        )

    @server.tool(annotations=readonly)
    @_tool_errors
    def read_history(
        session_id: Annotated[str, Field(description="The conversation's session id.")],
        limit: Annotated[int | None, Field(ge=1, le=10_000)] = None,
    ) -> Turns:
        """Read a conversation's active branch, oldest first (the newest ``limit`` turns)."""
        return Turns(turns=mem.conversation(session_id).history(limit=limit))

    @server.tool(annotations=readonly)
    @_tool_errors
    def list_branches(
        session_id: Annotated[str, Field(description="The conversation's session id.")],
    ) -> Branches:
        """List a conversation's branches: each one's leaf, fork point, length, activity."""
        return Branches(branches=mem.conversation(session_id).branches())

    @server.tool(annotations=readonly)
    @_tool_errors
    def search_session_log(
        text: Annotated[
            str | None, Field(description="Keywords; every one must occur (any case).")
        ] = None,
        session_id: str | None = None,
        speaker: str | None = None,
        role: str | None = None,
        since: Annotated[datetime | None, Field(description="ISO 8601 time.")] = None,
        limit: Annotated[int, Field(ge=1, le=1000)] = 20,
    ) -> Turns:
        """Search the turns of every session by keywords, speaker, role and time; newest first."""
        return Turns(
            turns=mem.search_turns(
                text, session_id=session_id, speaker=speaker, role=role, since=since, limit=limit
            )
        )

    @server.tool(annotations=retires)
    @_tool_errors
    def invalidate_relationship(
        source_id: Annotated[str, Field(description="The source entity id.")],
        type: Annotated[str, Field(description="The relationship type, e.g. 'trusts'.")],
        target_id: Annotated[str, Field(description="The target entity id.")],
        at: Annotated[
            datetime | None, Field(description="When it stopped holding (default now).")
        ] = None,
    ) -> Relationship:
        """Retire a fact of the entity graph: it no longer holds from ``at``; kept for history."""
        return mem.invalidate(source_id, target_id, type, at=at)

    add_mind_tools(server, mem, _tool_errors, readonly=readonly, writes=writes, retires=retires)
    add_world_tools(server, mem, _tool_errors, readonly=readonly, writes=writes, retires=retires)
    add_inspect_tools(server, mem, _tool_errors, readonly=readonly)

    return server


def _version() -> str:
    from graphmem.core.version import __version__

    return __version__


def _warm_in_background(mem: Memory) -> None:
    """Load and warm the embedder in a daemon thread, so the first retrieve does not wait."""
    import contextlib
    import threading

    from graphmem.core.errors import BackendUnavailable
    from graphmem.retrieval.embedders import warm_up

    try:
        embedder = mem.embedder  # made here, in this thread; the model loads in the other
    except BackendUnavailable:
        return  # retrieve says what to install when it is called

    def warm() -> None:
        with contextlib.suppress(GraphmemError):  # the tools that need it say why
            warm_up(embedder)

    threading.Thread(target=warm, name="graphmem-warmup", daemon=True).start()


def run_mcp(
    url: str,
    *,
    tenant: str,
    actor: str = "mcp-agent",
    policy: GovernancePolicy | None = None,
    embedder: Embedder | None = None,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8751,
    read_only: bool = False,
) -> None:
    """Serve the MCP tools of one tenant over stdio (default) or streamable HTTP.

    ``read_only`` opens the store read-only (a ``file://`` store: beside the process
    that writes it) and offers the tools that read only.

    Raises:
        InvalidInput: ``http`` with an address that is not loopback (the MCP server has
            no authentication of its own).
    """
    from graphmem.doors.extras import is_loopback, require_extra

    require_extra("mcp")
    if http:
        from graphmem.core.errors import InvalidInput

        if not is_loopback(host):
            raise InvalidInput(
                f"graphmem mcp --http has no authentication, so it listens on loopback "
                f"addresses only, not {host!r}"
            )
    with open_memory(url, tenant=tenant, embedder=embedder, read_only=read_only) as mem:
        _warm_in_background(mem)
        server = build_server(
            mem, actor=actor, policy=policy, read_only=read_only, log_level="WARNING"
        )
        if http:
            server.run("streamable-http", host=host, port=port)
        else:
            server.run("stdio")
