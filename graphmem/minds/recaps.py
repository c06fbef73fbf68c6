"""Session recaps ("previously on..."), kept as records of kind ``recap``.

One recap per game session: the record's id is the session id, its ``owner`` the
campaign (so a campaign's recaps are one indexed read) and its ``blob`` the rendered
audio, if any. Without text, a recap is made from the session: by a
:class:`RecapSummarizer` when one is given, else by :func:`default_recap`, which needs
no model and always writes the same text for the same session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from graphmem.conversation.summarize import summarize_turn
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import Identifier, Record, Turn
from graphmem.core.store import GraphStore
from graphmem.minds.models import Event, Recap, entity_names

__all__ = [
    "KIND",
    "RecapSummarizer",
    "default_recap",
    "draft_recap",
    "get_recap",
    "list_recaps",
    "save_recap",
]

KIND = "recap"
"""The record kind of recaps."""

MAX_EVENTS = 12
MAX_TURNS = 12


@runtime_checkable
class RecapSummarizer(Protocol):
    """Writes a session's recap (an LLM-backed one, say); a plain callable works too.

    Raising any ``Exception``, or returning no text, makes the recap fall back to
    :func:`default_recap`; the recap's ``notes`` say why.
    """

    def recap(
        self,
        session_id: str,
        turns: Sequence[Turn],
        events: Sequence[Event],
        names: Mapping[str, str],
    ) -> str:
        """The recap text, from the session's active branch, its events and entity names."""
        ...


SummarizerLike = RecapSummarizer | Callable[..., str]


def default_recap(
    session_id: str,
    turns: Sequence[Turn],
    events: Sequence[Event],
    names: Mapping[str, str],
    *,
    campaign: str | None = None,
    max_events: int = MAX_EVENTS,
    max_turns: int = MAX_TURNS,
) -> str:
    """The deterministic recap: what happened (events), then what was said (turns).

    The ``max_events`` most important events (ties: the later), told in the order they
    happened; the last ``max_turns`` turns of the session's active branch, each as its
    stored one-line summary (made by :func:`graphmem.summarize_turn` when missing).

    >>> from datetime import datetime
    >>> from graphmem.minds import Event, Fact
    >>> hid = Event(id="e1", type="hid", at=datetime(2030, 1, 1), actor="mira",
    ...             changes=[Fact(subject="sword", predicate="located_in", object="chest")])
    >>> print(default_recap("s1", [], [hid], {"mira": "Mira", "sword": "the sword",
    ...                                       "chest": "the chest"}))
    Previously (session s1):
    - Mira hid: the sword located in the chest
    """
    where = f"{names.get(campaign, campaign)}, session {session_id}" if campaign else None
    lines = [f"Previously ({where or f'session {session_id}'}):"]
    ranked = sorted(events, key=lambda e: (-e.importance, -e.at.timestamp(), e.id))
    chosen = sorted(ranked[:max_events], key=lambda e: (e.at, e.id))
    lines += [f"- {event.describe(names)}" for event in chosen]
    if len(events) > len(chosen):
        lines.append(f"- ({len(events) - len(chosen)} lesser events left out)")
    said = list(turns)[-max_turns:] if max_turns else []
    if said:
        lines.append("Said:")
        for turn in said:
            who = turn.speaker or turn.role
            lines.append(f"- {who}: {turn.summary or summarize_turn(turn.content)}")
    if len(lines) == 1:
        lines.append("- nothing was recorded in this session.")
    return "\n".join(lines)


def _session_material(
    store: GraphStore, tenant: str, session_id: str
) -> tuple[list[Turn], list[Event], dict[str, str]]:
    from graphmem.minds.reads import EVENT_KIND, event_from_record

    turns = store.branch(tenant, session_id)
    records = store.find_records(tenant, EVENT_KIND, owner=session_id, newest_first=False)
    events = sorted((event_from_record(r) for r in records), key=lambda e: (e.at, e.id))
    ids = sorted({i for e in events for i in e.entity_ids})
    names = entity_names(store.get_entities(tenant, ids)) if ids else {}
    return turns, events, names


def draft_recap(
    store: GraphStore,
    tenant: str,
    session_id: str,
    *,
    campaign: str | None = None,
    summarizer: SummarizerLike | None = None,
) -> Recap:
    """A recap of the session, not saved: by ``summarizer``, else :func:`default_recap`."""
    session_id = _session_id(session_id)
    turns, events, names = _session_material(store, tenant, session_id)
    if campaign is not None:
        names = {**names, **entity_names(store.get_entities(tenant, [campaign]))}
    notes: list[str] = []
    text = None
    if summarizer is not None:
        write = summarizer.recap if isinstance(summarizer, RecapSummarizer) else summarizer
        if not callable(write):
            raise InvalidInput("summarizer must have a recap() method or be callable")
        try:
            written = write(session_id, turns, events, names)
        except Exception as exc:  # noqa: BLE001 - any failure of the hook falls back
            notes.append(f"summarizer failed ({type(exc).__name__}: {exc}); default recap used")
        else:
            if isinstance(written, str) and written.strip():
                text = written
            else:
                notes.append("summarizer returned no text; default recap used")
    source = "summarizer" if text is not None else "default"
    if text is None:
        text = default_recap(session_id, turns, events, names, campaign=campaign)
    return Recap(
        session_id=session_id,
        campaign=campaign,
        text=text,
        source=source,
        events=len(events),
        turns=len(turns),
        notes=tuple(notes),
    )


def _session_id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"session_id must be a non-empty string, got {value!r}")
    return value


def save_recap(
    store: GraphStore,
    tenant: str,
    session_id: str,
    text: str | None = None,
    *,
    campaign: str | None = None,
    audio: bytes | bytearray | memoryview | None = None,
    audio_type: str | None = None,
    summarizer: SummarizerLike | None = None,
    max_audio_bytes: int,
) -> Recap:
    """Save the recap of a session (replacing an earlier one); made from it without text."""
    session_id = _session_id(session_id)
    if text is not None and summarizer is not None:
        raise InvalidInput("give the recap text or a summarizer to write it, not both")
    if text is not None and (not isinstance(text, str) or not text.strip()):
        raise InvalidInput("recap text must be a non-empty string")
    if campaign is not None and (not isinstance(campaign, str) or not campaign.strip()):
        raise InvalidInput(f"campaign must be a non-empty string, got {campaign!r}")
    blob = None
    if audio is not None:
        if not isinstance(audio, bytes | bytearray | memoryview):
            raise InvalidInput(f"audio must be bytes, got {type(audio).__name__}")
        blob = bytes(audio)
        if len(blob) > max_audio_bytes:
            raise InvalidInput(
                f"recap audio is {len(blob):,} bytes, over the limit of {max_audio_bytes:,} "
                "(MindSettings.max_audio_bytes)"
            )
    if audio_type is not None and (not isinstance(audio_type, str) or "/" not in audio_type):
        raise InvalidInput(
            f"audio_type must be a media type such as 'audio/ogg', got {audio_type!r}"
        )
    if text is None:
        recap = draft_recap(store, tenant, session_id, campaign=campaign, summarizer=summarizer)
    else:
        turns, events, _names = _session_material(store, tenant, session_id)
        recap = Recap(
            session_id=session_id,
            campaign=campaign,
            text=text,
            events=len(events),
            turns=len(turns),
        )
    data = recap.model_dump(
        mode="json", exclude={"audio", "created_at", "updated_at", "session_id"}
    )
    data["audio_type"] = audio_type
    record = Record(id=session_id, kind=KIND, owner=campaign, blob=blob, data=data)
    [stored] = store.put_records(tenant, KIND, [record])
    return recap_from_record(stored)


def recap_from_record(record: Record) -> Recap:
    """The :class:`Recap` a recap record holds."""
    data = dict(record.data)
    return Recap.model_validate(
        {
            **data,
            "session_id": record.id,
            "audio": record.blob,
            "created_at": record.created_at,
            "updated_at": record.updated_at,
        }
    )


def get_recap(store: GraphStore, tenant: str, session_id: str) -> Recap:
    """The saved recap of a session; ``NotFound`` when it has none."""
    session_id = _session_id(session_id)
    found = store.get_records(tenant, KIND, [session_id])
    if not found:
        raise NotFound(
            f"no recap of session {session_id!r} in tenant {tenant!r}; save_recap() makes one",
            session_id=session_id,
        )
    return recap_from_record(found[0])


def list_recaps(
    store: GraphStore, tenant: str, campaign: Identifier | None = None, limit: int | None = None
) -> list[Recap]:
    """Saved recaps, newest first: every one, or one campaign's."""
    records = store.find_records(tenant, KIND, owner=campaign, limit=limit)
    return [recap_from_record(r) for r in records]
