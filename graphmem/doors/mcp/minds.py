"""The MCP tools of NPC minds: events, claims, announcements, beliefs, recaps.

:func:`add_mind_tools` registers them on the server :func:`graphmem.doors.mcp.server.build_server`
makes, over the same ``Memory`` (its tenant), as :func:`graphmem.doors.mcp.world.add_world_tools`
does the tools that build a world.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from graphmem.core.models import StrictBool
from graphmem.memory import Memory
from graphmem.minds.models import Belief, Event, Recap, Recollection
from graphmem.minds.models import Fact as MindFact

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations


__all__ = ["AsOf", "RecordedAsOf", "add_mind_tools"]

AsOf = Annotated[datetime | None, Field(description="World (game) time: as things stood then.")]
RecordedAsOf = Annotated[
    datetime | None, Field(description="Memory time: as the store held it then.")
]
_Chain = Annotated[
    list[str] | None,
    Field(description="Nested: what the NPC thinks these NPCs believe, in order."),
]
_GameSession = Annotated[str | None, Field(description="The game session.")]
_At = Annotated[datetime | None, Field(description="World (game) time; default now.")]


class Beliefs(BaseModel):
    """Beliefs, oldest first (by when they were acquired)."""

    beliefs: list[Belief]


class OneBelief(BaseModel):
    """A belief, or null when the NPC believes nothing of it."""

    belief: Belief | None


class Events(BaseModel):
    """Recorded events, oldest first (world time)."""

    events: list[Event]


class Recollections(BaseModel):
    """Recalled beliefs, best first, with their scores."""

    recollections: list[Recollection]


class RecapText(BaseModel):
    """A session's recap as text; its audio stays in the store (``audio_bytes`` says how much)."""

    session_id: str
    campaign: str | None
    text: str
    source: str
    events: int
    turns: int
    notes: list[str]
    audio_type: str | None
    audio_bytes: int
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, recap: Recap) -> RecapText:
        """The text and facts of a :class:`graphmem.minds.Recap`, without its audio bytes."""
        return cls(
            session_id=recap.session_id,
            campaign=recap.campaign,
            text=recap.text,
            source=recap.source,
            events=recap.events,
            turns=recap.turns,
            notes=list(recap.notes),
            audio_type=recap.audio_type,
            audio_bytes=len(recap.audio or b""),
            created_at=recap.created_at,
            updated_at=recap.updated_at,
        )


class Recaps(BaseModel):
    """Saved recaps, newest first."""

    recaps: list[RecapText]


def add_mind_tools(
    server: MCPServer,
    mem: Memory,
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]],
    *,
    readonly: ToolAnnotations,
    writes: ToolAnnotations,
    retires: ToolAnnotations,
) -> None:
    """Register the NPC minds tools on ``server`` over ``mem``; ``wrap`` maps errors."""

    @server.tool(annotations=writes)
    @wrap
    def record_event(
        type: Annotated[str, Field(description="What happened: moved, entered, hid, ...")],
        actor: Annotated[str | None, Field(description="Who did it (an entity id).")] = None,
        participants: Annotated[
            list[str] | None, Field(description="Who else took part (they witness it).")
        ] = None,
        place: Annotated[
            str | None, Field(description="Where; default where the actor is.")
        ] = None,
        changes: Annotated[
            list[MindFact] | None,
            Field(description="Facts it makes true in the world (holds=false: no longer true)."),
        ] = None,
        reveals: Annotated[
            list[MindFact] | None, Field(description="Facts the witnesses see, unchanged.")
        ] = None,
        present: Annotated[
            list[str] | None,
            Field(description="Who was there; default the NPCs and players placed at `place`."),
        ] = None,
        at: _At = None,
        importance: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5,
        session_id: _GameSession = None,
        summary: Annotated[str | None, Field(description="A line for people.")] = None,
    ) -> Event:
        """Record that something happened in the game world.

        The world state takes its changes; its witnesses (those present) come to believe
        them and that the other witnesses believe them; NPCs absent keep their old beliefs.
        """
        return mem.record_event(
            type,
            actor=actor,
            participants=participants or (),
            place=place,
            changes=changes or (),
            reveals=reveals or (),
            present=present,
            at=at,
            importance=importance,
            session_id=session_id,
            summary=summary,
        )

    @server.tool(annotations=writes)
    @wrap
    def observe_place(
        place_id: Annotated[str, Field(description="The place (an entity id).")],
        present: Annotated[
            list[str] | None, Field(description="Who looks; default who is placed there.")
        ] = None,
        depth: Annotated[int, Field(ge=1, le=8, description="How deep to look in.")] = 2,
        at: _At = None,
        session_id: _GameSession = None,
    ) -> Event:
        """Those at a place see what is there now (the chest in the room, the sword in it).

        Their beliefs take what they see; the world does not change.
        """
        return mem.observe(place_id, present=present, depth=depth, at=at, session_id=session_id)

    @server.tool(annotations=writes)
    @wrap
    def tell(
        speaker: Annotated[str, Field(description="Who tells (an NPC id).")],
        listener: Annotated[str, Field(description="Who is told (an NPC id).")],
        fact: Annotated[
            MindFact | None, Field(description="What the speaker claims (true or a lie).")
        ] = None,
        about: Annotated[
            str | None, Field(description="Or: everything the speaker believes about this entity.")
        ] = None,
        at: _At = None,
        session_id: _GameSession = None,
    ) -> Beliefs:
        """One NPC tells another something, in private; returns the listener's beliefs after.

        A claim, not a belief: the speaker's own belief is untouched. The listener believes
        it (as told, with who had it from whom and a confidence that decays at each
        hand-over) when its trust policy takes it: by default what it saw beats hearsay,
        unless the speaker stayed to see more.
        """
        told = mem.tell(speaker, listener, fact, about=about, at=at, session_id=session_id)
        return Beliefs(beliefs=told)

    @server.tool(annotations=writes)
    @wrap
    def announce(
        speaker: Annotated[str, Field(description="Who speaks (an NPC id).")],
        fact: Annotated[MindFact, Field(description="What the speaker claims (true or a lie).")],
        place: Annotated[
            str | None, Field(description="Where (default: where the speaker is).")
        ] = None,
        audience: Annotated[
            list[str] | None, Field(description="Or: exactly who hears it (NPC ids).")
        ] = None,
        at: _At = None,
        session_id: _GameSession = None,
    ) -> Event:
        """One NPC says something in public: everyone present hears it, and knows all did.

        Returns the ``announced`` event; ``adopted`` lists who came to believe it.
        """
        return mem.announce(
            speaker, fact, place=place, audience=audience, at=at, session_id=session_id
        )

    @server.tool(annotations=writes)
    @wrap
    def believe(
        npc_id: Annotated[str, Field(description="Whose belief (an NPC id).")],
        fact: Annotated[MindFact, Field(description="What it believes (true or not).")],
        how: Annotated[
            str, Field(description="witnessed, told, inferred (default) or rumour.")
        ] = "inferred",
        confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0,
        importance: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5,
        at: _At = None,
        told_by: Annotated[str | None, Field(description="Who told it, for how=told.")] = None,
        of: _Chain = None,
    ) -> Belief:
        """Give an NPC a belief directly: an inference, a rumour, a rule of the game."""
        return mem.believe(
            npc_id,
            fact,
            how=how,
            confidence=confidence,
            importance=importance,
            at=at,
            told_by=told_by,
            of=of,
        )

    @server.tool(annotations=readonly)
    @wrap
    def npc_beliefs(
        npc_id: Annotated[str, Field(description="Whose beliefs (an NPC id).")],
        about: Annotated[str | None, Field(description="Only beliefs naming this entity.")] = None,
        of: _Chain = None,
        predicate: Annotated[str | None, Field(description="Only this relation.")] = None,
        as_of: AsOf = None,
        recorded_as_of: RecordedAsOf = None,
        history: Annotated[StrictBool, Field(description="Every version ever held.")] = False,
    ) -> Beliefs:
        """What an NPC believes (which may be false), now or at a world or memory time."""
        found = mem.beliefs(
            npc_id,
            about,
            of=of,
            predicate=predicate,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            history=history,
        )
        return Beliefs(beliefs=found)

    @server.tool(annotations=readonly)
    @wrap
    def npc_belief(
        npc_id: Annotated[str, Field(description="Whose belief (an NPC id).")],
        subject: Annotated[str, Field(description="What it is about, e.g. 'sword'.")],
        predicate: Annotated[str, Field(description="The relation, e.g. 'located_in'.")],
        object: Annotated[str | None, Field(description="Only this object.")] = None,
        of: _Chain = None,
        as_of: AsOf = None,
        recorded_as_of: RecordedAsOf = None,
    ) -> OneBelief:
        """What an NPC believes of one subject and relation ("where is the sword, Mira?")."""
        found = mem.belief(
            npc_id,
            subject,
            predicate,
            object,
            of=of,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
        )
        return OneBelief(belief=found)

    @server.tool(annotations=readonly)
    @wrap
    def who_knows(
        fact: Annotated[MindFact, Field(description="The fact, e.g. the sword located_in chest.")],
        as_of: AsOf = None,
        recorded_as_of: RecordedAsOf = None,
    ) -> Beliefs:
        """Which NPCs believe a fact holds (their beliefs, by holder)."""
        return Beliefs(beliefs=mem.who_knows(fact, as_of=as_of, recorded_as_of=recorded_as_of))

    @server.tool(annotations=readonly)
    @wrap
    def list_events(
        about: Annotated[str | None, Field(description="Events naming this entity.")] = None,
        witness: Annotated[str | None, Field(description="Events this NPC saw.")] = None,
        session_id: Annotated[str | None, Field(description="One game session's.")] = None,
        place: Annotated[str | None, Field(description="Events at this place.")] = None,
        type: Annotated[str | None, Field(description="Events of this type.")] = None,
        since: Annotated[datetime | None, Field(description="World time, from.")] = None,
        until: Annotated[datetime | None, Field(description="World time, before.")] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="The last this many.")] = 50,
    ) -> Events:
        """List recorded events, oldest first (world time); every condition given must hold."""
        found = mem.events(
            about=about,
            witness=witness,
            session_id=session_id,
            place=place,
            type=type,
            since=since,
            until=until,
            limit=limit,
        )
        return Events(events=found)

    @server.tool(annotations=writes)
    @wrap
    def npc_recall(
        npc_id: Annotated[str, Field(description="Who remembers (an NPC id).")],
        query: Annotated[str | None, Field(description="What the NPC is thinking of.")] = None,
        about: Annotated[
            list[str] | None, Field(description="Entities that make a belief relevant.")
        ] = None,
        k: Annotated[int, Field(ge=1, le=100, description="How many memories.")] = 10,
        at: _At = None,
    ) -> Recollections:
        """The memories an NPC recalls first: recency x importance x relevance.

        Recalling refreshes them (they stay fresh longer).
        """
        return Recollections(recollections=mem.recall(npc_id, query, about=about, k=k, at=at))

    @server.tool(annotations=retires)
    @wrap
    def forget_beliefs(
        npc_id: Annotated[str | None, Field(description="Whose; default every NPC.")] = None,
        below: Annotated[
            float | None,
            Field(ge=0.0, le=1.0, description="Retire beliefs with salience under this."),
        ] = None,
        older_than_seconds: Annotated[
            float | None,
            Field(ge=0.0, description="Retire beliefs not touched for this much game time."),
        ] = None,
        about: Annotated[str | None, Field(description="Only beliefs naming this.")] = None,
        at: _At = None,
    ) -> Beliefs:
        """Let NPCs forget faded beliefs; they stay readable as past versions."""
        older = timedelta(seconds=older_than_seconds) if older_than_seconds is not None else None
        retired = mem.forget(npc_id, below=below, older_than=older, about=about, at=at)
        return Beliefs(beliefs=retired)

    @server.tool(annotations=writes)
    @wrap
    def save_recap(
        session_id: Annotated[str, Field(description="The game session it recaps.")],
        text: Annotated[
            str | None, Field(description="The recap; default: written from the session.")
        ] = None,
        campaign: Annotated[str | None, Field(description="The campaign.")] = None,
    ) -> RecapText:
        """Save a session's "previously on..." recap, replacing an earlier one."""
        return RecapText.of(mem.save_recap(session_id, text, campaign=campaign))

    @server.tool(annotations=readonly)
    @wrap
    def read_recap(
        session_id: Annotated[str, Field(description="The game session.")],
    ) -> RecapText:
        """Read a session's saved recap (its text; audio is not sent, only its size)."""
        return RecapText.of(mem.recap(session_id))

    @server.tool(annotations=readonly)
    @wrap
    def draft_recap(
        session_id: Annotated[str, Field(description="The game session.")],
        campaign: Annotated[str | None, Field(description="The campaign.")] = None,
    ) -> RecapText:
        """Write a session's recap from its conversation and events, without saving it."""
        return RecapText.of(mem.draft_recap(session_id, campaign=campaign))

    @server.tool(annotations=readonly)
    @wrap
    def list_recaps(
        campaign: Annotated[str | None, Field(description="One campaign's.")] = None,
        limit: Annotated[int, Field(ge=1, le=1000)] = 20,
    ) -> Recaps:
        """List saved recaps, newest first (text only; audio sizes)."""
        return Recaps(recaps=[RecapText.of(r) for r in mem.recaps(campaign, limit=limit)])
