"""The request and response bodies of the NPC minds routes (:mod:`.routes.minds`).

Events, beliefs, recollections and recaps travel as the models of
:mod:`graphmem.minds.models`; these are the envelopes and the requests with options.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field, WithJsonSchema

from graphmem.core.models import Blob, StrictBool
from graphmem.doors.schemas import MAX_K, Body, Depth, IdText, SafeText, ShortText
from graphmem.minds.models import Belief, Event, Recap, Recollection
from graphmem.minds.models import Fact as MindFact

__all__ = [
    "AnnounceRequest",
    "BeliefList",
    "BeliefOrNone",
    "BelieveRequest",
    "EventIn",
    "EventList",
    "ForgetBeliefsRequest",
    "MindRecallRequest",
    "ObserveRequest",
    "RecapIn",
    "RecapList",
    "RecollectionList",
    "TellRequest",
    "WhoKnowsRequest",
]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
Chain = Annotated[
    list[IdText] | None,
    Field(
        max_length=15,
        description="Nested belief: what the NPC thinks these believe, in order "
        "(['b'] is what it thinks b believes; ['b', 'c'] what it thinks b thinks c believes).",
    ),
]
Base64 = Annotated[
    Blob,
    WithJsonSchema(
        {
            "type": "string",
            "contentEncoding": "base64",
            "pattern": "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
        }
    ),
]
WorldTime = Annotated[datetime | None, Field(description="World (game) time; default now.")]


class EventIn(Body):
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


class EventList(Body):
    """Recorded events, oldest first (world time)."""

    events: list[Event]


class ObserveRequest(Body):
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


class TellRequest(Body):
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


class AnnounceRequest(Body):
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


class BelieveRequest(Body):
    """A belief given directly: an inference, a rumour, a game's own rule."""

    fact: MindFact
    how: ShortText = "inferred"
    confidence: Fraction = 1.0
    importance: Fraction = 0.5
    at: WorldTime = None
    told_by: IdText | None = None
    of: Chain = None


class BeliefList(Body):
    """Beliefs, oldest first (by when they were acquired)."""

    beliefs: list[Belief]


class BeliefOrNone(Body):
    """A belief, or null when the NPC believes nothing of it."""

    belief: Belief | None


class WhoKnowsRequest(Body):
    """Whose beliefs hold a fact (first order), now or at the two clocks."""

    fact: MindFact
    as_of: datetime | None = Field(default=None, description="World time.")
    recorded_as_of: datetime | None = Field(default=None, description="Memory time.")


class MindRecallRequest(Body):
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


class RecollectionList(Body):
    """Recalled beliefs, best first, each with its score and the parts of it."""

    recollections: list[Recollection]


class ForgetBeliefsRequest(Body):
    """Retire beliefs (of one NPC, or of all) meeting every policy given (one at least)."""

    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"required": ["below"], "properties": {"below": {"type": "number"}}},
                {
                    "required": ["older_than_seconds"],
                    "properties": {"older_than_seconds": {"type": "number"}},
                },
            ]
        }
    )

    npc: IdText | None = None
    below: Fraction | None = Field(
        default=None, description="Salience (importance x recency at `at`) under this floor."
    )
    older_than_seconds: Annotated[float, Field(ge=0.0, le=1e12)] | None = Field(
        default=None, description="Not acquired nor recalled within this much game time."
    )
    about: IdText | None = None
    at: WorldTime = None


class RecapIn(Body):
    """A session's recap to save; without text it is written from the session."""

    text: str | None = None
    campaign: IdText | None = None
    audio: Base64 | None = Field(default=None, description="Rendered audio, base64.")
    audio_type: Annotated[str, Field(min_length=1, max_length=256, pattern="/")] | None = Field(
        default=None, description="audio/ogg, audio/mpeg, ..."
    )


class RecapList(Body):
    """Saved recaps, newest first."""

    recaps: list[Recap]
