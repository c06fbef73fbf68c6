"""``graphmem mcp``: the tools an agent needs, as an MCP server (the official ``mcp`` SDK).

One server serves one tenant, chosen when it starts; governed writes are audited as one
actor (``--actor``). stdio by default (what Claude Desktop and IDE agents launch),
streamable HTTP with ``--http``. The tools:

- ``remember_fact`` / ``recall_facts`` / ``forget_fact``: governed facts (trust, PII,
  conflicts, audit; see :mod:`graphmem.policy.governance`);
- ``retrieve``: GraphRAG context with provenance;
- ``npc_snapshot``: who an NPC is now, as prompt text and as data;
- ``append_turn`` / ``read_history`` / ``list_branches``: conversations, with an agent
  turn's trajectory digest and artifacts;
- ``search_session_log``: keyword search across sessions;
- ``invalidate_relationship``: retire a fact of the entity graph (kept for ``as_of``).

A door like the HTTP API: each tool is one ``Memory`` call; a graphmem error becomes a
tool error whose text names the error class and says what to fix.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import wraps
from typing import TYPE_CHECKING, Annotated, Any, Literal, ParamSpec, TypeVar

from pydantic import BaseModel, Field

from graphmem.errors import GraphmemError
from graphmem.memory import Memory
from graphmem.memory import open as open_memory
from graphmem.models import (
    Artifact,
    ArtifactRef,
    Branch,
    ContextResult,
    NPCIdentity,
    Relationship,
    Trajectory,
    Turn,
    estimate_tokens,
)
from graphmem.policy.governance import Fact, GovernancePolicy, LearnResult, ScoredFact
from graphmem.server.schemas import LearnOut

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from graphmem.retrieval import Embedder

__all__ = ["TOOLS", "build_server", "run_mcp"]

TOOLS = (
    "remember_fact",
    "recall_facts",
    "forget_fact",
    "retrieve",
    "npc_snapshot",
    "append_turn",
    "read_history",
    "list_branches",
    "search_session_log",
    "invalidate_relationship",
)
"""The names of the tools the server offers."""

_INSTRUCTIONS = """\
graphmem is this agent's long-term graph memory (one tenant). Remember durable facts with
remember_fact and find them again with recall_facts; ask retrieve for context about a
question (every result names its source); npc_snapshot says who a game character is now.
Record conversation turns with append_turn (an agent turn may carry its trajectory:
tools used, observations, reasoning) and read them back with read_history or
search_session_log. Retire what is no longer true with forget_fact or
invalidate_relationship: nothing is deleted, history stays readable."""

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
    """Who an NPC is now: prompt text and the data behind it."""

    prompt: str
    token_estimate: int
    identity: NPCIdentity


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
    **settings: Any,
) -> MCPServer:
    """The MCP server of ``mem`` (its tenant), with :data:`TOOLS`.

    Args:
        mem: The memory to serve; the caller keeps it open while the server runs.
        actor: Who governed writes are audited as.
        policy: The governance policy of governed writes (default rules when None).
        **settings: Passed to ``MCPServer`` (``log_level=...``, ...).
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server: MCPServer = MCPServer(
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
                description="agent: only this agent sees it; session: needs session; "
                "workspace: the whole tenant."
            ),
        ] = "agent",
        category: Annotated[str | None, Field(description="A category (a safe name).")] = None,
        session: Annotated[str | None, Field(description="The session, for scope=session.")] = None,
    ) -> LearnOut:
        """Remember a durable fact (subject, relation, value) through the governance rules.

        A near duplicate is a no-op; a refinement supersedes the old value; a
        contradiction from a more trusted source invalidates the old one, otherwise the
        new fact waits for review. Personal data is refused. Every change is audited.
        """
        result: LearnResult = facts(session).learn(
            subject,
            relation,
            value,
            source_type=source_type,
            memory_type=memory_type,
            scope=scope,
            category=category,
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
    def npc_snapshot(
        npc_id: Annotated[str, Field(description="The NPC's entity id.")],
        max_tokens: Annotated[int | None, Field(ge=1, le=100_000)] = None,
    ) -> Snapshot:
        """Who an NPC is right now: attributes and current facts, as prompt text and data."""
        identity = mem.identity_snapshot(npc_id)
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
    ) -> Turn:
        """Append a turn to a conversation, after its head (the newest turn)."""
        return mem.conversation(session_id).append(
            role,
            content,
            speaker=speaker,
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

    return server


def _version() -> str:
    from graphmem import __version__

    return __version__


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
) -> None:
    """Serve the MCP tools of one tenant over stdio (default) or streamable HTTP.

    Raises:
        InvalidInput: ``http`` with an address that is not loopback (the MCP server has
            no authentication of its own).
    """
    from graphmem.server import require_extra

    require_extra("mcp")
    if http:
        from graphmem.errors import InvalidInput
        from graphmem.server.run import is_loopback

        if not is_loopback(host):
            raise InvalidInput(
                f"graphmem mcp --http has no authentication, so it listens on loopback "
                f"addresses only, not {host!r}"
            )
    with open_memory(url, tenant=tenant, embedder=embedder) as mem:
        server = build_server(mem, actor=actor, policy=policy, log_level="WARNING")
        if http:
            server.run("streamable-http", host=host, port=port)
        else:
            server.run("stdio")
