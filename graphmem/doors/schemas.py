"""The request and response bodies of the HTTP API that graphmem's own models do not cover.

Entities, relationships, turns, branches, snapshots, subgraphs, retrieved context and
session information travel as graphmem's pydantic models themselves; these are the
envelopes around them (``{"entities": [...]}``) and the few requests with options.
Every request body forbids unknown fields, as the models do.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, WithJsonSchema

from graphmem.core.models import (
    Artifact,
    ArtifactRef,
    Blob,
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
from graphmem.minds.models import Belief, Event, Recap, Recollection
from graphmem.minds.models import Fact as MindFact
from graphmem.policy.governance import AuditEntry, Fact, LearnResult, ScoredFact

if TYPE_CHECKING:
    from graphmem.retrieval.graphqa import GraphAnswer, GraphAnswers

__all__ = [
    "AmbiguityOut",
    "AskOut",
    "AskRequest",
    "AuditLog",
    "BeliefList",
    "BeliefOrNone",
    "BelieveRequest",
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
    "EventIn",
    "EventList",
    "Existed",
    "ExpandRequest",
    "FactActor",
    "FactList",
    "ForgetBeliefsRequest",
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
    "MindRecallRequest",
    "ObserveRequest",
    "PathOut",
    "PathStepOut",
    "PromptOut",
    "RecallOut",
    "RecallRequest",
    "RecapIn",
    "RelateRequest",
    "RecapList",
    "RecollectionList",
    "RelationshipBatch",
    "RelationshipKey",
    "RelationshipList",
    "RetrieveOut",
    "RetrieveRequest",
    "RollbackOut",
    "RollbackRequest",
    "SessionList",
    "TellRequest",
    "TurnBatch",
    "TurnIn",
    "TurnList",
    "TurnOrNone",
    "WhoKnowsRequest",
]

# Bounds on sizes a request may ask for: far above any sensible use, low enough that no
# request can make the server walk or allocate without end.
MAX_DEPTH = 16
MAX_K = 1000
MAX_NODES = 100_000
MAX_TOKENS = 1_000_000

Depth = Annotated[int, Field(ge=1, le=MAX_DEPTH)]
IdText = Annotated[str, Field(min_length=1, max_length=512)]
ShortText = Annotated[str, Field(min_length=1, max_length=256)]

_UNPRINTABLE = (
    "\\u0000-\\u001f\\u007f-\\u00a0\\u00ad\\u034f\\u061c\\u115f\\u1160\\u1680"
    "\\u17b4\\u17b5\\u180b-\\u180f\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f"
    "\\u2800\\u3000\\u3164\\ud800-\\uf8ff\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\uffff"
)
PRINTABLE_PATTERN = f"^[^{_UNPRINTABLE}\\s]([^{_UNPRINTABLE}]*[^{_UNPRINTABLE}\\s])?$"
"""A printable name (``check_printable_name``: actors, sessions of governed writes), as a
JSON Schema pattern for schema readers: no control, format, invisible, private-use or
surrogate character, no wide space, no blank at either end. The server checks the full
rule (unassigned code points and NFC too); the schema does not enforce it twice."""
SAFE_NAME_JSON = "^[A-Za-z][A-Za-z0-9_]{0,63}$"
"""``SAFE_NAME_PATTERN`` as a JSON Schema pattern (types: entity, relationship, event)."""
SafeText = Annotated[
    str, Field(min_length=1, max_length=64, json_schema_extra={"pattern": SAFE_NAME_JSON})
]

PrintableText = Annotated[
    str, Field(min_length=1, max_length=256, json_schema_extra={"pattern": PRINTABLE_PATTERN})
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


# --------------------------------------------------------------------------- entities


class EntityBatch(_Body):
    """Entities to insert or replace by id, in one batch."""

    entities: list[Entity]


class EntityList(_Body):
    """Entities, in the order the operation defines."""

    entities: list[Entity]


class EntityUpdate(_Body):
    """A partial update: rename, retype, merge attributes, remove attribute keys."""

    name: str | None = None
    type: SafeText | None = None
    attributes: dict[str, Any] | None = None
    remove_attributes: list[str] = Field(default_factory=list)


class EntityQuery(EntityFilter):
    """Which entities to find (``EntityFilter``); every given condition must hold."""

    # Built now: a deferred model as a top-level body makes FastAPI's schema step warn.
    model_config = ConfigDict(defer_build=False, json_schema_serialization_defaults_required=True)


class IdList(_Body):
    """Ids to act on."""

    ids: list[IdText]


class Deleted(_Body):
    """How many of the items existed (and were deleted)."""

    deleted: int


class Existed(_Body):
    """Whether the item existed (and was deleted)."""

    deleted: bool


class Counts(_Body):
    """How much the tenant holds."""

    entities: int
    relationships: int
    turns: int


# --------------------------------------------------------------------------- relationships


class RelationshipBatch(_Body):
    """Relationships to insert or replace, keyed by (source_id, target_id, type)."""

    relationships: list[Relationship]


class RelationshipList(_Body):
    """Relationships, ordered by (source_id, target_id, type)."""

    relationships: list[Relationship]


class RelationshipKey(_Body):
    """The identity of a relationship."""

    source_id: IdText
    target_id: IdText
    type: SafeText


class Invalidation(RelationshipKey):
    """Which fact stops holding, and from when (default: now)."""

    at: datetime | None = None


# --------------------------------------------------------------------------- graph


class PathOut(_Body):
    """The shortest path, both ends included; empty when there is none."""

    path: list[Entity]


class ExpandRequest(_Body):
    """Seeds of a typed multi-source walk (see ``Memory.expand``)."""

    seed_ids: list[IdText] = Field(min_length=1)
    depth: Depth = 1
    rel_types: list[SafeText] | None = None
    direction: Literal["out", "in", "both"] = "both"
    within: list[IdText] | None = None
    max_nodes: Annotated[int, Field(ge=1, le=MAX_NODES)] | None = None


class PromptOut(_Body):
    """An NPC's identity rendered as prompt text."""

    npc_id: str
    prompt: str
    token_estimate: int


# --------------------------------------------------------------------------- conversations


class TurnIn(_Body):
    """A turn to append: what was said, by whom, and what an agent adds."""

    role: ShortText
    content: str
    speaker: str | None = None
    turn_id: IdText | None = None
    summary: str | None = None
    trajectory: Trajectory | None = None
    artifacts: list[Artifact] = Field(default_factory=list)
    hidden_artifacts: list[ArtifactRef] = Field(default_factory=list)


class TurnBatch(_Body):
    """Turns to append as one chain after the head, all or nothing."""

    turns: list[TurnIn]


class TurnList(_Body):
    """Turns (the order depends on the operation: history is oldest first)."""

    turns: list[Turn]


class TurnOrNone(_Body):
    """A turn, or null (a conversation without turns has no head)."""

    turn: Turn | None


class ForkRequest(_Body):
    """Where to move the head: a turn's ``id`` or the ``turn_id`` you gave it."""

    turn: IdText


class BranchList(_Body):
    """Every branch of a conversation, oldest leaf first."""

    branches: list[Branch]


class SessionList(_Body):
    """Every session with turns, most recently active first."""

    sessions: list[SessionInfo]


# --------------------------------------------------------------------------- retrieval


class DocumentBatch(_Body):
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


class IngestOut(_Body):
    """What an ingest did."""

    documents: int
    chunk_ids: list[str]
    mentions: int
    entities: int
    relationships: int
    extractor: str
    notes: list[str]


class IndexEntitiesRequest(_Body):
    """Which entities to embed: these ids, or every entity (null)."""

    ids: list[IdText] | None = None


class IndexTurnsRequest(_Body):
    """Which turns to link to entities (and embed): one session, or all."""

    session_id: IdText | None = None
    embed: StrictBool = True


class Indexed(_Body):
    """How many items were indexed."""

    indexed: int


class RetrieveRequest(_Body):
    """A GraphRAG question (see ``Memory.retrieve``)."""

    query: str
    k: Annotated[int, Field(ge=1, le=MAX_K)] = 10
    hops: Annotated[int, Field(ge=0, le=MAX_DEPTH)] = 2
    graph_scope: list[IdText] | None = None
    kinds: list[Literal["chunk", "turn", "entity", "relationship"]] | None = None
    rel_types: list[SafeText] | None = None
    preset: ShortText | None = None
    max_tokens: Annotated[int, Field(ge=1, le=MAX_TOKENS)] | None = Field(
        default=None, description="Also render the results as prompt text within this budget."
    )


class RetrieveOut(_Body):
    """Retrieved context, best first, each with its provenance."""

    results: list[ContextResult]
    context: str | None = Field(default=None, description="Prompt text, when max_tokens was given.")


class AskRequest(_Body):
    """A question about the entity graph (see ``Memory.ask``)."""

    question: str
    k: Annotated[int, Field(ge=1, le=MAX_K)] = 10
    max_hops: Annotated[int, Field(ge=1, le=MAX_DEPTH)] | None = Field(
        default=None, description="The longest relation path considered (default 3)."
    )
    semantic: StrictBool | None = Field(
        default=None,
        description="Compare words by embedding too; false: by stem only; "
        "null: when the server has an embedder.",
    )


class PathStepOut(_Body):
    """One step of a relation path: a relationship type and the way it is walked."""

    type: str
    direction: Literal["out", "in", "both"]


class GraphAnswerOut(_Body):
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


class AmbiguityOut(_Body):
    """A name in the question that several entities go by."""

    mention: str = Field(description="The words of the question (lower case).")
    candidates: list[str] = Field(description="The ids of the entities it may name.")


class AskOut(_Body):
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


class FactActor(_Body):
    """Who acts on governed facts (and in which session)."""

    actor: PrintableText
    session: PrintableText | None = None


class LearnRequest(FactActor):
    """One fact to write through the governance rules."""

    subject: str
    relation: str
    value: str
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


class LearnOut(_Body):
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


class FactList(_Body):
    """Governed facts, oldest first."""

    facts: list[Fact]


class RecallRequest(FactActor):
    """Which facts best answer a query, within a token budget."""

    query: str
    max_tokens: Annotated[int, Field(ge=1, le=MAX_TOKENS)] = 500
    limit: Annotated[int, Field(ge=1, le=MAX_K)] | None = None
    memory_types: list[Literal["semantic", "episodic", "procedural"]] | None = None


class RecallOut(_Body):
    """Recalled facts, best first."""

    facts: list[ScoredFact]


class RollbackRequest(FactActor):
    """Undo every audited change after this audit entry."""

    entry_id: IdText


class RollbackOut(_Body):
    """How many audited changes were undone."""

    undone: int


class AuditLog(_Body):
    """The tenant's audit entries, oldest first."""

    entries: list[AuditEntry]


# --------------------------------------------------------------------------- LLM context


class MemoryTurnIn(TurnIn):
    """A turn for a conversation memory (its one-line summary is made by graphmem)."""

    summary: None = Field(default=None, description="Made by graphmem; leave it out.")


class ContextSnapshot(RootModel[dict[str, Any]]):
    """A conversation memory's state, as ``GET .../snapshot`` returned it."""


class Message(_Body):
    """A chat message (role mapped to user / assistant / system)."""

    role: str
    content: str


class ContextOut(_Body):
    """What to put into an LLM's context for one conversation."""

    strategy: str
    mode: str
    summary: str
    turns: list[Turn]
    token_estimate: int
    max_tokens: int
    health: str
    messages: list[Message]


# --------------------------------------------------------------------------- NPC minds

Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
Chain = Annotated[
    list[IdText] | None,
    Field(
        max_length=15,
        description="Nested belief: what the NPC thinks these believe, in order "
        "(['b'] is what it thinks b believes; ['b', 'c'] what it thinks b thinks c believes).",
    ),
]
Base64 = Annotated[Blob, WithJsonSchema({"type": "string", "contentEncoding": "base64"})]
WorldTime = Annotated[datetime | None, Field(description="World (game) time; default now.")]


class EventIn(_Body):
    """Something that happened (``Memory.record_event``): the world and its witnesses follow."""

    type: SafeText = Field(description="What happened: moved, entered, hid, ... (a safe name).")
    actor: IdText | None = None
    participants: list[IdText] = Field(default_factory=list)
    place: IdText | None = Field(default=None, description="Default: where the actor is.")
    changes: list[MindFact] = Field(
        default_factory=list, description="Facts it makes true (or false: holds=false)."
    )
    reveals: list[MindFact] = Field(
        default_factory=list, description="Facts the witnesses see without it changing them."
    )
    present: list[IdText] | None = Field(
        default=None,
        description="Who was there; default: the observers the world places at `place` now.",
    )
    at: WorldTime = None
    importance: Fraction = 0.5
    session_id: IdText | None = None
    summary: str | None = None
    attributes: dict[str, Any] | None = None
    event_id: IdText | None = Field(default=None, description="Default: a fresh id.")


class EventList(_Body):
    """Recorded events, oldest first (world time)."""

    events: list[Event]


class ObserveRequest(_Body):
    """Those at a place see what is there now (``Memory.observe``; nothing changes)."""

    present: list[IdText] | None = Field(
        default=None, description="Who looks; default: the observers the world places there."
    )
    depth: Depth = 2
    predicates: list[ShortText] | None = Field(
        default=None, description="The relations to walk; default the presence relation."
    )
    at: WorldTime = None
    importance: Fraction = 0.2
    session_id: IdText | None = None


class TellRequest(_Body):
    """The speaker claims one fact (true or not), or all it believes ``about`` an entity.

    The listener's trust policy decides whether it believes it; the speaker's own belief
    is untouched.
    """

    speaker: IdText
    listener: IdText
    fact: MindFact | None = None
    about: IdText | None = None
    at: WorldTime = None
    decay: Annotated[float, Field(gt=0.0, le=1.0)] | None = Field(
        default=None, description="Confidence kept at the hand-over; default the memory's."
    )
    importance: Fraction | None = None
    session_id: IdText | None = None


class AnnounceRequest(_Body):
    """The speaker claims one fact in public.

    Everyone at ``place`` (default: where the speaker is), or the ``audience`` named,
    hears it, and knows the others heard it.
    """

    speaker: IdText
    fact: MindFact
    place: IdText | None = None
    audience: list[IdText] | None = None
    at: WorldTime = None
    decay: Annotated[float, Field(gt=0.0, le=1.0)] | None = Field(
        default=None, description="Confidence kept at the hand-over; default the memory's."
    )
    importance: Fraction | None = None
    session_id: IdText | None = None


class BelieveRequest(_Body):
    """A belief given directly: an inference, a rumour, a game's own rule."""

    fact: MindFact
    how: ShortText = "inferred"
    confidence: Fraction = 1.0
    importance: Fraction = 0.5
    at: WorldTime = None
    told_by: IdText | None = None
    of: Chain = None


class BeliefList(_Body):
    """Beliefs, oldest first (by when they were acquired)."""

    beliefs: list[Belief]


class BeliefOrNone(_Body):
    """A belief, or null when the NPC believes nothing of it."""

    belief: Belief | None


class WhoKnowsRequest(_Body):
    """Whose beliefs hold a fact (first order), now or at the two clocks."""

    fact: MindFact
    as_of: datetime | None = Field(default=None, description="World time.")
    recorded_as_of: datetime | None = Field(default=None, description="Memory time.")


class MindRecallRequest(_Body):
    """What an NPC recalls first: recency x importance x relevance."""

    query: str | None = None
    about: list[IdText] | None = Field(
        default=None, description="Beliefs naming these entities are fully relevant."
    )
    k: Annotated[int, Field(ge=1, le=MAX_K)] = 10
    at: WorldTime = None
    mark: StrictBool = Field(
        default=True, description="Record the recall (it refreshes the beliefs' recency)."
    )


class RecollectionList(_Body):
    """Recalled beliefs, best first, each with its score and the parts of it."""

    recollections: list[Recollection]


class ForgetBeliefsRequest(_Body):
    """Retire beliefs (of one NPC, or of all) meeting every policy given."""

    npc: IdText | None = None
    below: Fraction | None = Field(
        default=None, description="Salience (importance x recency at `at`) under this floor."
    )
    older_than_seconds: Annotated[float, Field(ge=0.0, le=1e12)] | None = Field(
        default=None, description="Not acquired nor recalled within this much game time."
    )
    about: IdText | None = None
    at: WorldTime = None


class RecapIn(_Body):
    """A session's recap to save; without text it is written from the session."""

    text: str | None = None
    campaign: IdText | None = None
    audio: Base64 | None = Field(default=None, description="Rendered audio, base64.")
    audio_type: ShortText | None = Field(default=None, description="audio/ogg, audio/mpeg, ...")


class RecapList(_Body):
    """Saved recaps, newest first."""

    recaps: list[Recap]


# --------------------------------------------------------------------------- tenant


class ImportReport(_Body):
    """What an import wrote (all of it, or nothing)."""

    entities: int
    relationships: int
    turns: int
    conversations: int
    records: int
    chunks: int
    mentions: int


class Health(_Body):
    """The server is up and its store answers."""

    status: Literal["ok"]
    version: str
