"""The request and response bodies of the HTTP API that graphmem's own models do not cover.

Entities, relationships, turns, branches, snapshots, subgraphs, retrieved context and
session information travel as graphmem's pydantic models themselves; these are the
envelopes around them (``{"entities": [...]}``) and the few requests with options.
Every request body forbids unknown fields, as the models do.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from graphmem.core.models import (
    Artifact,
    ArtifactRef,
    Branch,
    ContextResult,
    Document,
    Entity,
    EntityFilter,
    Relationship,
    SessionInfo,
    StrictBool,
    Trajectory,
    Turn,
)
from graphmem.policy.governance import AuditEntry, Fact, LearnResult, ScoredFact

if TYPE_CHECKING:
    from graphmem.retrieval.graphqa import GraphAnswer, GraphAnswers

__all__ = [
    "Body",
    "AmbiguityOut",
    "AskOut",
    "AskRequest",
    "AuditLog",
    "BranchList",
    "ContextOut",
    "ContextSnapshot",
    "Counts",
    "Deleted",
    "DocumentBatch",
    "EntityBatch",
    "EntityList",
    "EntityQuery",
    "EntityUpdate",
    "Existed",
    "ExpandRequest",
    "FactActor",
    "FactList",
    "ForkRequest",
    "GraphAnswerOut",
    "Health",
    "IdList",
    "ImportReport",
    "IndexEntitiesRequest",
    "IndexTurnsRequest",
    "Indexed",
    "IngestOut",
    "Invalidation",
    "LearnOut",
    "LearnRequest",
    "MemoryTurnIn",
    "Message",
    "PathOut",
    "PathStepOut",
    "PromptOut",
    "RecallOut",
    "RecallRequest",
    "RelateRequest",
    "RelationshipBatch",
    "RelationshipKey",
    "RelationshipList",
    "RetrieveOut",
    "RetrieveRequest",
    "RollbackOut",
    "RollbackRequest",
    "SessionList",
    "TurnBatch",
    "TurnIn",
    "TurnList",
    "TurnOrNone",
]

# Bounds on sizes a request may ask for: far above any sensible use, low enough that no
# request can make the server walk or allocate without end.
MAX_DEPTH = 16
MAX_K = 1000
MAX_NODES = 100_000
MAX_TOKENS = 1_000_000

Depth = Annotated[int, Field(ge=1, le=MAX_DEPTH)]
ID_PATTERN = "^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$"
"""An id (``graphmem.core.models.Identifier``) as a JSON Schema pattern: not blank, no control
character. Ids of look-ups are checked alike (a record owner, a session id)."""
IdText = Annotated[
    str, Field(min_length=1, max_length=512, json_schema_extra={"pattern": ID_PATTERN})
]
ShortText = Annotated[str, Field(min_length=1, max_length=256)]

_UNPRINTABLE = (
    "\\u0000-\\u001f\\u007f-\\u00a0\\u00ad\\u034f\\u061c\\u115f\\u1160\\u1680"
    "\\u17b4\\u17b5\\u180b-\\u180f\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f"
    "\\u2800\\u3000\\u3164\\ue000-\\uf8ff\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\uffff"
)
PRINTABLE_PATTERN = f"^[^{_UNPRINTABLE}\\s]([^{_UNPRINTABLE}]*[^{_UNPRINTABLE}\\s])?$"
"""A printable name (``check_printable_name``: actors, sessions of governed writes), as a
JSON Schema pattern for schema readers: no control, format, invisible or private-use
character, no wide space, no blank at either end. The server checks the full rule
(unassigned code points and NFC too; a lone surrogate is not text at all); the schema does
not enforce it twice. No surrogate range in the class: generators (schemathesis) drop a
pattern that holds one."""
SAFE_NAME_JSON = "^[A-Za-z][A-Za-z0-9_]{0,63}$"
"""``SAFE_NAME_PATTERN`` as a JSON Schema pattern (types: entity, relationship, event)."""
AskText = Annotated[str, Field(json_schema_extra={"pattern": "\\S"})]
"""A question, a query or a fact's part: text with something in it besides blanks."""
SafeText = Annotated[
    str, Field(min_length=1, max_length=64, json_schema_extra={"pattern": SAFE_NAME_JSON})
]

PrintableText = Annotated[
    str, Field(min_length=1, max_length=256, json_schema_extra={"pattern": PRINTABLE_PATTERN})
]


class Body(BaseModel):
    """A request or response envelope: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


# --------------------------------------------------------------------------- entities


class EntityBatch(Body):
    """Entities to insert or replace by id, in one batch."""

    entities: list[Entity]


class EntityList(Body):
    """Entities, in the order the operation defines."""

    entities: list[Entity]


class EntityUpdate(Body):
    """A partial update: rename, retype, merge attributes, remove attribute keys."""

    name: str | None = None
    type: SafeText | None = None
    attributes: dict[str, Any] | None = None
    remove_attributes: list[str] = Field(default_factory=list)


class EntityQuery(EntityFilter):
    """Which entities to find (``EntityFilter``); every given condition must hold."""

    # Built now: a deferred model as a top-level body makes FastAPI's schema step warn.
    model_config = ConfigDict(defer_build=False, json_schema_serialization_defaults_required=True)


class IdList(Body):
    """Ids to act on."""

    ids: list[IdText]


class Deleted(Body):
    """How many of the items existed (and were deleted)."""

    deleted: int


class Existed(Body):
    """Whether the item existed (and was deleted)."""

    deleted: bool


class Counts(Body):
    """How much the tenant holds."""

    entities: int
    relationships: int
    turns: int


# --------------------------------------------------------------------------- relationships


class RelationshipBatch(Body):
    """Relationships to insert or replace, keyed by (source_id, target_id, type)."""

    relationships: list[Relationship]


class RelationshipList(Body):
    """Relationships, ordered by (source_id, target_id, type)."""

    relationships: list[Relationship]


class RelationshipKey(Body):
    """The identity of a relationship."""

    source_id: IdText
    target_id: IdText
    type: SafeText


class Invalidation(RelationshipKey):
    """Which fact stops holding, and from when (default: now)."""

    at: datetime | None = None


# --------------------------------------------------------------------------- graph


class PathOut(Body):
    """The shortest path, both ends included; empty when there is none."""

    path: list[Entity]


class ExpandRequest(Body):
    """Seeds of a typed multi-source walk (see ``Memory.expand``)."""

    seed_ids: list[IdText] = Field(min_length=1)
    depth: Depth = 1
    rel_types: list[SafeText] | None = None
    direction: Literal["out", "in", "both"] = "both"
    within: list[IdText] | None = None
    max_nodes: Annotated[int, Field(ge=1, le=MAX_NODES)] | None = None


class PromptOut(Body):
    """An NPC's identity rendered as prompt text."""

    npc_id: str
    prompt: str
    token_estimate: int


# --------------------------------------------------------------------------- conversations


class TurnIn(Body):
    """A turn to append: what was said, by whom, and what an agent adds."""

    role: SafeText
    content: str
    speaker: str | None = None
    turn_id: IdText | None = None
    summary: str | None = None
    trajectory: Trajectory | None = None
    artifacts: list[Artifact] = Field(default_factory=list)
    hidden_artifacts: list[ArtifactRef] = Field(default_factory=list)


class TurnBatch(Body):
    """Turns to append as one chain after the head, all or nothing."""

    turns: list[TurnIn]


class TurnList(Body):
    """Turns (the order depends on the operation: history is oldest first)."""

    turns: list[Turn]


class TurnOrNone(Body):
    """A turn, or null (a conversation without turns has no head)."""

    turn: Turn | None


class ForkRequest(Body):
    """Where to move the head: a turn's ``id`` or the ``turn_id`` you gave it."""

    turn: IdText


class BranchList(Body):
    """Every branch of a conversation, oldest leaf first."""

    branches: list[Branch]


class SessionList(Body):
    """Every session with turns, most recently active first."""

    sessions: list[SessionInfo]


# --------------------------------------------------------------------------- retrieval


class DocumentBatch(Body):
    """Documents to chunk, link to entities and embed."""

    documents: list[Document]
    chunk_tokens: Annotated[int, Field(ge=16, le=100_000)] = 200
    overlap: Annotated[int, Field(ge=0, le=100)] = 1
    embed: StrictBool = True
    nested_mentions: StrictBool = True
    title_entities: StrictBool = Field(
        default=False,
        description="Make each distinct title an entity (alias: the title without a "
        "trailing parenthetical) and each titled document about it.",
    )


class IngestOut(Body):
    """What an ingest did."""

    documents: int
    chunk_ids: list[str]
    mentions: int
    entities: int
    relationships: int
    extractor: str
    notes: list[str]


class IndexEntitiesRequest(Body):
    """Which entities to embed: these ids, or every entity (null)."""

    ids: list[IdText] | None = None


class IndexTurnsRequest(Body):
    """Which turns to link to entities (and embed): one session, or all."""

    session_id: IdText | None = None
    embed: StrictBool = True


class Indexed(Body):
    """How many items were indexed."""

    indexed: int


class RetrieveRequest(Body):
    """A GraphRAG question (see ``Memory.retrieve``)."""

    query: AskText
    k: Annotated[int, Field(ge=1, le=MAX_K)] = 10
    hops: Annotated[int, Field(ge=0, le=MAX_DEPTH)] = 2
    graph_scope: list[IdText] | None = None
    kinds: list[Literal["chunk", "turn", "entity", "relationship"]] | None = None
    rel_types: list[SafeText] | None = None
    preset: ShortText | None = None
    max_tokens: Annotated[int, Field(ge=1, le=MAX_TOKENS)] | None = Field(
        default=None, description="Also render the results as prompt text within this budget."
    )


class RetrieveOut(Body):
    """Retrieved context, best first, each with its provenance."""

    results: list[ContextResult]
    context: str | None = Field(default=None, description="Prompt text, when max_tokens was given.")


class AskRequest(Body):
    """A question about the entity graph (see ``Memory.ask``)."""

    question: AskText
    k: Annotated[int, Field(ge=1, le=MAX_K)] = 10
    max_hops: Annotated[int, Field(ge=1, le=MAX_DEPTH)] | None = Field(
        default=None, description="The longest relation path considered (default 3)."
    )
    semantic: StrictBool | None = Field(
        default=None,
        description="Compare words by embedding too; false: by stem only; "
        "null: when the server has an embedder.",
    )


class PathStepOut(Body):
    """One step of a relation path: a relationship type and the way it is walked."""

    type: str
    direction: Literal["out", "in", "both"]


class GraphAnswerOut(Body):
    """An entity that answers a graph question, with the chain of facts that leads to it."""

    entity: Entity
    score: float = Field(description="The weight of the path that reached it (0..1).")
    path: list[PathStepOut]
    facts: list[Relationship] = Field(
        description="One chain of facts from the topic to the answer, each with provenance."
    )
    topic: str = Field(description="The id of the entity the question named.")
    support: int = Field(description="How many chains of the path reach the answer.")
    type_fit: float = Field(description="How well the answer's type fits what is asked (0..1).")
    explanation: str = Field(description="The chain as text.")

    @classmethod
    def of(cls, answer: GraphAnswer) -> GraphAnswerOut:
        """The wire form of a :class:`~graphmem.retrieval.graphqa.GraphAnswer`."""
        return cls(
            entity=answer.entity,
            score=answer.score,
            path=[PathStepOut(type=p.type, direction=p.direction) for p in answer.path],
            facts=list(answer.facts),
            topic=answer.topic,
            support=answer.support,
            type_fit=answer.type_fit,
            explanation=answer.explain(),
        )


class AmbiguityOut(Body):
    """A name in the question that several entities go by."""

    mention: str = Field(description="The words of the question (lower case).")
    candidates: list[str] = Field(description="The ids of the entities it may name.")


class AskOut(Body):
    """Answers to a graph question, best first; empty when it abstains (``reason`` says why)."""

    answers: list[GraphAnswerOut]
    confidence: float = Field(
        default=0.0,
        description="How likely the first answer is right (0..1); 0 when it abstains.",
    )
    abstained: bool = Field(
        default=False,
        description="No answer: the question names no known entity, no relationship "
        "explains its words, or no fact leads anywhere.",
    )
    reason: str = Field(
        default="",
        description="Why it abstained, or which words the walked path leaves unexplained.",
    )
    ambiguity: list[AmbiguityOut] = Field(
        default_factory=list, description="Names in the question that several entities go by."
    )
    unexplained: list[str] = Field(
        default_factory=list,
        description="The question's words no step of the walked path explains.",
    )

    @classmethod
    def of(cls, answers: GraphAnswers) -> AskOut:
        """The wire form of :meth:`graphmem.Memory.ask`'s answers."""
        return cls(
            answers=[GraphAnswerOut.of(a) for a in answers],
            confidence=answers.confidence,
            abstained=answers.abstained,
            reason=answers.reason,
            ambiguity=[
                AmbiguityOut(mention=a.mention, candidates=list(a.candidates))
                for a in answers.ambiguity
            ],
            unexplained=list(answers.unexplained),
        )


# --------------------------------------------------------------------------- governed facts


class FactActor(Body):
    """Who acts on governed facts (and in which session)."""

    actor: PrintableText
    session: PrintableText | None = None


class LearnRequest(FactActor):
    """One fact to write through the governance rules."""

    subject: AskText
    relation: AskText
    value: AskText
    source_type: ShortText = "manual"
    memory_type: Literal["semantic", "episodic", "procedural"] = "semantic"
    scope: Literal["agent", "session", "workspace"] = "agent"
    category: ShortText | None = None


class RelateRequest(FactActor):
    """One relationship to write through the governance rules (see ``Memory.relate``)."""

    source_id: IdText
    type: SafeText
    target_id: IdText
    source_type: ShortText = "manual"
    memory_type: Literal["semantic", "episodic", "procedural"] = "semantic"
    category: ShortText | None = None


class LearnOut(Body):
    """What a governed write decided, and the fact it wrote or matched."""

    decision: Literal["add", "update", "invalidate", "no_op"]
    reason: str
    pending_review: bool
    fact: Fact | None
    changed: list[Fact]
    audit_id: str | None

    @classmethod
    def of(cls, result: LearnResult) -> LearnOut:
        """The response of a :class:`graphmem.policy.LearnResult`."""
        return cls(
            decision=result.decision.value,
            reason=result.reason,
            pending_review=result.pending_review,
            fact=result.fact,
            changed=list(result.changed),
            audit_id=result.audit_id,
        )


class FactList(Body):
    """Governed facts, oldest first."""

    facts: list[Fact]


class RecallRequest(FactActor):
    """Which facts best answer a query, within a token budget."""

    query: AskText
    max_tokens: Annotated[int, Field(ge=1, le=MAX_TOKENS)] = 500
    limit: Annotated[int, Field(ge=1, le=MAX_K)] | None = None
    memory_types: list[Literal["semantic", "episodic", "procedural"]] | None = None


class RecallOut(Body):
    """Recalled facts, best first."""

    facts: list[ScoredFact]


class RollbackRequest(FactActor):
    """Undo every audited change after this audit entry."""

    entry_id: IdText


class RollbackOut(Body):
    """How many audited changes were undone."""

    undone: int


class AuditLog(Body):
    """The tenant's audit entries, oldest first."""

    entries: list[AuditEntry]


# --------------------------------------------------------------------------- LLM context


class MemoryTurnIn(TurnIn):
    """A turn for a conversation memory (its one-line summary is made by graphmem)."""

    summary: None = Field(default=None, description="Made by graphmem; leave it out.")


class ContextSnapshot(RootModel[dict[str, Any]]):
    """A conversation memory's state, as ``GET .../snapshot`` returned it."""


class Message(Body):
    """A chat message (role mapped to user / assistant / system)."""

    role: str
    content: str


class ContextOut(Body):
    """What to put into an LLM's context for one conversation."""

    strategy: str
    mode: str
    summary: str
    turns: list[Turn]
    token_estimate: int
    max_tokens: int
    health: str
    messages: list[Message]


# --------------------------------------------------------------------------- tenant


class ImportReport(Body):
    """What an import wrote (all of it, or nothing)."""

    entities: int
    relationships: int
    turns: int
    conversations: int
    records: int
    chunks: int
    mentions: int


class Health(Body):
    """The server is up and its store answers."""

    status: Literal["ok"]
    version: str
