"""NPC minds: events, witnessing, telling, beliefs at two clocks, recall, forgetting, recaps."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request

from graphmem.doors import schemas as s
from graphmem.doors.http import schemas_minds as m
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import (
    API_PREFIX,
    AsOfQ,
    ChainQ,
    IdQ,
    Limit,
    Mem,
    NpcId,
    PlaceId,
    RecordedAsOfQ,
    Route,
    SessionId,
    check_rows,
    check_text,
    limits_of,
    read,
    scan,
    write,
)
from graphmem.minds.models import Belief, Event, Recap

router = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)


@router.post("/events", tags=["npc minds"], response_model=Event)
async def record_event(mem: Mem, request: Request, body: m.EventIn) -> Event:
    """Record that something happened; the world and its witnesses' beliefs follow."""
    limits = limits_of(request)
    for what, items in (
        ("participants", body.participants),
        ("changes", body.changes),
        ("reveals", body.reveals),
        ("present", body.present),
    ):
        check_rows(limits, what, items)
    check_text(limits, "summary", body.summary)
    return await write(
        mem.record_event,
        body.type,
        actor=body.actor,
        participants=body.participants,
        place=body.place,
        changes=body.changes,
        reveals=body.reveals,
        present=body.present,
        at=body.at,
        importance=body.importance,
        session_id=body.session_id,
        summary=body.summary,
        attributes=body.attributes,
        event_id=body.event_id,
    )


@router.get("/events", tags=["npc minds"], response_model=m.EventList)
async def events(
    mem: Mem,
    about: IdQ = None,
    witness: IdQ = None,
    session_id: IdQ = None,
    place: IdQ = None,
    type: Annotated[
        str | None,
        Query(min_length=1, max_length=64, json_schema_extra={"pattern": s.SAFE_NAME_JSON}),
    ] = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: Limit = None,
) -> m.EventList:
    """Recorded events, oldest first (world time); every condition given must hold."""
    found = await scan(
        mem.events,
        about=about,
        witness=witness,
        session_id=session_id,
        place=place,
        type=type,
        since=since,
        until=until,
        limit=limit,
    )
    return m.EventList(events=found)


@router.post("/places/{place_id}/observe", tags=["npc minds"], response_model=Event)
async def observe(mem: Mem, request: Request, place_id: PlaceId, body: m.ObserveRequest) -> Event:
    """Those at a place see what is there now (an ``observed`` event; nothing changes)."""
    check_rows(limits_of(request), "present", body.present)
    return await write(
        mem.observe,
        place_id,
        present=body.present,
        depth=body.depth,
        predicates=body.predicates,
        at=body.at,
        importance=body.importance,
        session_id=body.session_id,
    )


@router.post("/tell", tags=["npc minds"], response_model=m.BeliefList)
async def tell(mem: Mem, body: m.TellRequest) -> m.BeliefList:
    """The speaker claims a fact (true or not); returns the listener's beliefs after.

    The listener's trust policy decides whether it believes it.
    """
    told = await write(
        mem.tell,
        body.speaker,
        body.listener,
        body.fact,
        about=body.about,
        at=body.at,
        decay=body.decay,
        importance=body.importance,
        session_id=body.session_id,
    )
    return m.BeliefList(beliefs=told)


@router.post("/announce", tags=["npc minds"], response_model=Event)
async def announce(mem: Mem, request: Request, body: m.AnnounceRequest) -> Event:
    """The speaker claims a fact in public; returns the ``announced`` event.

    Everyone present (or the ``audience`` named) hears it, and that they all heard it
    is common knowledge among them; ``adopted`` says who came to believe it.
    """
    check_rows(limits_of(request), "audience", body.audience)
    return await write(
        mem.announce,
        body.speaker,
        body.fact,
        place=body.place,
        audience=body.audience,
        at=body.at,
        decay=body.decay,
        importance=body.importance,
        session_id=body.session_id,
    )


@router.post("/npcs/{npc_id}/beliefs", tags=["npc minds"], response_model=Belief)
async def believe(mem: Mem, npc_id: NpcId, body: m.BelieveRequest) -> Belief:
    """Give an NPC a belief directly (``of``: what it thinks others believe)."""
    return await write(
        mem.believe,
        npc_id,
        body.fact,
        how=body.how,
        confidence=body.confidence,
        importance=body.importance,
        at=body.at,
        told_by=body.told_by,
        of=body.of,
    )


@router.get("/npcs/{npc_id}/beliefs", tags=["npc minds"], response_model=m.BeliefList)
async def beliefs(
    mem: Mem,
    request: Request,
    npc_id: NpcId,
    about: IdQ = None,
    of: ChainQ = None,
    predicate: Annotated[
        str | None,
        Query(min_length=1, max_length=64, json_schema_extra={"pattern": s.SAFE_NAME_JSON}),
    ] = None,
    as_of: AsOfQ = None,
    recorded_as_of: RecordedAsOfQ = None,
    history: bool = False,
) -> m.BeliefList:
    """What an NPC believes now, at world time ``as_of`` or memory time ``recorded_as_of``."""
    found = await read(
        request,
        mem.beliefs,
        npc_id,
        about,
        of=of,
        predicate=predicate,
        as_of=as_of,
        recorded_as_of=recorded_as_of,
        history=history,
    )
    return m.BeliefList(beliefs=found)


@router.get("/npcs/{npc_id}/belief", tags=["npc minds"], response_model=m.BeliefOrNone)
async def belief(
    mem: Mem,
    request: Request,
    npc_id: NpcId,
    subject: Annotated[str, Query(min_length=1, max_length=512)],
    predicate: Annotated[
        str, Query(min_length=1, max_length=64, json_schema_extra={"pattern": s.SAFE_NAME_JSON})
    ],
    object: IdQ = None,
    of: ChainQ = None,
    as_of: AsOfQ = None,
    recorded_as_of: RecordedAsOfQ = None,
) -> m.BeliefOrNone:
    """What an NPC believes of one subject and predicate ("where is the sword?")."""
    found = await read(
        request,
        mem.belief,
        npc_id,
        subject,
        predicate,
        object,
        of=of,
        as_of=as_of,
        recorded_as_of=recorded_as_of,
    )
    return m.BeliefOrNone(belief=found)


@router.post("/beliefs/who-knows", tags=["npc minds"], response_model=m.BeliefList)
async def who_knows(mem: Mem, body: m.WhoKnowsRequest) -> m.BeliefList:
    """The NPCs' beliefs that a fact holds (first order), by holder."""
    found = await scan(
        mem.who_knows, body.fact, as_of=body.as_of, recorded_as_of=body.recorded_as_of
    )
    return m.BeliefList(beliefs=found)


@router.post("/npcs/{npc_id}/recall", tags=["npc minds"], response_model=m.RecollectionList)
async def recall_beliefs(
    mem: Mem, request: Request, npc_id: NpcId, body: m.MindRecallRequest
) -> m.RecollectionList:
    """The beliefs an NPC recalls first: recency x importance x relevance."""
    limits = limits_of(request)
    check_text(limits, "query", body.query)
    check_rows(limits, "about", body.about)
    found = await write(
        mem.recall, npc_id, body.query, about=body.about, k=body.k, at=body.at, mark=body.mark
    )
    return m.RecollectionList(recollections=found)


@router.post("/beliefs/forget", tags=["npc minds"], response_model=m.BeliefList)
async def forget_beliefs(mem: Mem, body: m.ForgetBeliefsRequest) -> m.BeliefList:
    """Retire beliefs meeting every policy given; they stay readable as past versions."""
    older = body.older_than_seconds
    retired = await write(
        mem.forget,
        body.npc,
        below=body.below,
        older_than=timedelta(seconds=older) if older is not None else None,
        about=body.about,
        at=body.at,
    )
    return m.BeliefList(beliefs=retired)


@router.get("/recaps", tags=["npc minds"], response_model=m.RecapList)
async def recaps(
    mem: Mem,
    campaign: IdQ = None,
    limit: Limit = None,
) -> m.RecapList:
    """Saved recaps, newest first: all of them, or one campaign's."""
    return m.RecapList(recaps=await scan(mem.recaps, campaign, limit=limit))


@router.get("/recaps/{session_id}", tags=["npc minds"], response_model=Recap)
async def recap(mem: Mem, request: Request, session_id: SessionId) -> Recap:
    """A session's saved recap."""
    return await read(request, mem.recap, session_id)


@router.put("/recaps/{session_id}", tags=["npc minds"], response_model=Recap)
async def save_recap(mem: Mem, request: Request, session_id: SessionId, body: m.RecapIn) -> Recap:
    """Save a session's recap, replacing an earlier one; without text it is written."""
    check_text(limits_of(request), "text", body.text)
    return await write(
        mem.save_recap,
        session_id,
        body.text,
        campaign=body.campaign,
        audio=body.audio,
        audio_type=body.audio_type,
    )


@router.get("/recaps/{session_id}/draft", tags=["npc minds"], response_model=Recap)
async def draft_recap(
    mem: Mem,
    session_id: SessionId,
    campaign: IdQ = None,
) -> Recap:
    """The recap that saving without text would write, not saved."""
    return await scan(mem.draft_recap, session_id, campaign=campaign)
