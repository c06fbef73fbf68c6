"""NPC minds of :class:`graphmem.Memory`: events, beliefs, recall, recaps."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from graphmem.memory.base import MemoryBase

if TYPE_CHECKING:
    from graphmem.minds import (
        Belief,
        Event,
        Fact,
        MindSettings,
        Recap,
        RecapSummarizer,
        Recollection,
    )
    from graphmem.minds.truth import BeliefCheck


class MindMethods(MemoryBase):
    """What each NPC believes and how it came by it (:mod:`graphmem.minds`)."""

    @property
    def mind_settings(self) -> MindSettings:
        """How NPC minds work in this memory (``graphmem.open(..., minds=MindSettings())``)."""
        return self._minds().settings

    def record_event(
        self,
        type: str,
        *,
        actor: str | None = None,
        participants: Sequence[str] = (),
        place: str | None = None,
        changes: Sequence[Fact | Mapping[str, Any] | tuple[str, str, str]] = (),
        reveals: Sequence[Fact | Mapping[str, Any] | tuple[str, str, str]] = (),
        present: Sequence[str] | None = None,
        at: datetime | None = None,
        importance: float = 0.5,
        session_id: str | None = None,
        summary: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        event_id: str | None = None,
    ) -> Event:
        """Record that something happened; the world and its witnesses' beliefs follow.

        The event is stored as its own record (two alike events stay two), once, with its
        witness set. Its ``changes`` are applied to the world state at world time ``at``
        (default now): a relation of a single-valued type (``MindSettings.single_valued``,
        the presence relation ``located_in`` by default) ends the subject's other one; a
        fact the world already holds from a later time is left as it is. Its witnesses
        come to believe the changes and ``reveals``, and that each other witness believes
        them, at any order (read from shared witnessing; nothing is written per order);
        NPCs absent keep their old beliefs. The write is linear in the witnesses.

        Args:
            type: What happened (a safe name: ``moved``, ``entered``, ``hid``...).
            actor: Who did it; ``place`` defaults to where the world state places them.
            participants: Who else took part (they witness it).
            place: Where it happened.
            changes: Facts it makes true (or false: ``holds=False``) in the world:
                :class:`graphmem.minds.Fact`, dicts of its fields, or
                ``(subject, predicate, object)`` tuples.
            reveals: Facts the witnesses see without the event changing them.
            present: Who was there (those of an observer type witness it). Default:
                the observers (``MindSettings.observers``) the world state places at
                ``place`` now.
            at: World (game) time it happened; default now.
            importance: 0..1; the importance of the memories it makes.
            session_id: The game session (recaps gather its events).
            summary: A line for people (made from the facts when not given).
            attributes: Any other JSON data kept with it.
            event_id: Its id (default: a fresh one); an id already taken is refused.

        Raises:
            InvalidInput: A bad or unknown id, a taken event id, a bad fact, or more
                witnesses x facts than ``MindSettings.max_beliefs_per_event``; nothing is
                written.
        """
        return self._minds().record_event(
            type,
            actor=actor,
            participants=participants,
            place=place,
            changes=changes,
            reveals=reveals,
            present=present,
            at=at,
            importance=importance,
            session_id=session_id,
            summary=summary,
            attributes=attributes,
            event_id=event_id,
        )

    def observe(
        self,
        place: str,
        *,
        present: Sequence[str] | None = None,
        depth: int = 2,
        predicates: Sequence[str] | None = None,
        at: datetime | None = None,
        importance: float = 0.2,
        session_id: str | None = None,
    ) -> Event:
        """Those at ``place`` see what is there now (an ``observed`` event; nothing changes).

        What is there: the entities within ``depth`` steps along ``predicates`` (default
        the presence relation: the chest in the room, the sword in the chest) and the
        facts placing them. A game calls it when an NPC arrives somewhere it can see.
        """
        return self._minds().observe(
            place,
            present=present,
            depth=depth,
            predicates=predicates,
            at=at,
            importance=importance,
            session_id=session_id,
        )

    def tell(
        self,
        speaker: str,
        listener: str,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str] | None = None,
        *,
        about: str | None = None,
        at: datetime | None = None,
        decay: float | None = None,
        importance: float | None = None,
        session_id: str | None = None,
    ) -> list[Belief]:
        """The speaker claims ``fact`` (or all it believes ``about`` an entity) to a listener.

        A claim is not a belief: the speaker's own belief is untouched, and it may be a
        lie. The listener's trust policy (``MindSettings.trust``, a
        :class:`graphmem.minds.TrustPolicy`; by default what it saw beats hearsay unless
        the speaker stayed to see more) decides whether it comes to believe it, ``told``
        by the speaker, with the source chain (who had it from whom) and the speaker's
        confidence (1.0 for a claim it does not hold) times ``decay`` (default
        ``MindSettings.tell_decay``). When it does, both know it does (nested beliefs).
        A ``told`` event is recorded either way (``adopted`` says who believed it).
        Returns the listener's beliefs about it afterwards.

        Raises:
            InvalidInput: The speaker believes nothing ``about`` the entity, or an id is
                unknown.
        """
        return self._minds().tell(
            speaker,
            listener,
            fact,
            about=about,
            at=at,
            decay=decay,
            importance=importance,
            session_id=session_id,
        )

    def announce(
        self,
        speaker: str,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str],
        *,
        place: str | None = None,
        audience: Sequence[str] | None = None,
        at: datetime | None = None,
        decay: float | None = None,
        importance: float | None = None,
        session_id: str | None = None,
    ) -> Event:
        """The speaker claims ``fact`` in public: to everyone present, or to ``audience``.

        Everyone at ``place`` (default: where the speaker is) hears it, or the observers
        named in ``audience``; that they all heard it is common knowledge among them.
        Each listener's trust policy decides whether it believes it (as :meth:`tell`),
        and every listener knows who did. Returns the ``announced`` event (``adopted``:
        who came to believe the claim).
        """
        return self._minds().announce(
            speaker,
            fact,
            place=place,
            audience=audience,
            at=at,
            decay=decay,
            importance=importance,
            session_id=session_id,
        )

    def believe(
        self,
        npc: str,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str],
        *,
        how: str = "inferred",
        confidence: float = 1.0,
        importance: float = 0.5,
        at: datetime | None = None,
        told_by: str | None = None,
        of: str | Sequence[str] | None = None,
    ) -> Belief:
        """Give an NPC a belief directly: an inference, a ``rumour``, a game's own rule.

        ``of`` makes it nested (what ``npc`` thinks ``of`` believes).
        """
        return self._minds().believe(
            npc,
            fact,
            how=how,
            confidence=confidence,
            importance=importance,
            at=at,
            told_by=told_by,
            of=of,
        )

    def beliefs(
        self,
        npc: str,
        about: str | None = None,
        *,
        of: str | Sequence[str] | None = None,
        predicate: str | None = None,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        history: bool = False,
    ) -> list[Belief]:
        """What an NPC believes now, or at world time ``as_of`` / memory time ``recorded_as_of``.

        Args:
            npc: Whose beliefs.
            about: Only beliefs naming this entity (as subject or object).
            of: Nested beliefs: what ``npc`` thinks ``of`` believes (a list for deeper
                orders: ``["b", "c"]`` is what npc thinks b thinks c believes).
            predicate: Only beliefs of this predicate.
            as_of: World time: the beliefs held then (superseded or forgotten since).
            recorded_as_of: Memory time: the beliefs as the store held them then.
            history: Every version ever held (an audit trail), whatever the clocks.

        Returns:
            Beliefs oldest first (by when they were acquired). Current reads are one
            indexed store read.

        Raises:
            NotFound: ``npc`` is not an entity.
        """
        return self._minds().beliefs(
            npc,
            about,
            of=of,
            predicate=predicate,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            history=history,
        )

    def belief(
        self,
        npc: str,
        subject: str,
        predicate: str,
        object: str | None = None,
        *,
        of: str | Sequence[str] | None = None,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> Belief | None:
        """What an NPC believes of one subject and predicate (``"where is the sword?"``).

        With ``of``: what it thinks another believes ("where does Aria think Aiden thinks
        the apple is?" is ``belief("aria", "apple", "located_in", of="aiden")``), or a
        list for any order (``of=["aiden", "mira"]``: Aria thinks Aiden thinks Mira
        believes), answered from the last evidence all of them shared. None when it
        believes nothing of it.
        """
        return self._minds().belief(
            npc,
            subject,
            predicate,
            object,
            of=of,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
        )

    def who_knows(
        self,
        fact: Fact | Mapping[str, Any] | tuple[str, str, str],
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> list[Belief]:
        """The NPCs' beliefs that ``fact`` holds (first order), by holder."""
        return self._minds().who_knows(fact, as_of=as_of, recorded_as_of=recorded_as_of)

    def check_beliefs(
        self,
        npc: str,
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> list[BeliefCheck]:
        """An NPC's beliefs beside the world's truth: false beliefs have ``agrees=False``.

        See :func:`graphmem.minds.truth.check_beliefs` (what counts as the truth).

        Raises:
            NotFound: ``npc`` is not an entity.
        """
        from graphmem.minds.truth import check_beliefs

        held = self.beliefs(npc, as_of=as_of, recorded_as_of=recorded_as_of)
        return check_beliefs(
            self._store, self._tenant, held, as_of=as_of, recorded_as_of=recorded_as_of
        )

    def events(
        self,
        *,
        about: str | None = None,
        witness: str | None = None,
        session_id: str | None = None,
        place: str | None = None,
        type: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[Event]:
        """Recorded events, oldest first (world time); every condition given must hold.

        ``about``: events naming an entity anywhere; ``witness``: events an NPC saw;
        ``since`` / ``until``: world-time bounds; ``limit``: the last ``limit``.
        """
        return self._minds().events(
            about=about,
            witness=witness,
            session_id=session_id,
            place=place,
            type=type,
            since=since,
            until=until,
            limit=limit,
        )

    def recall(
        self,
        npc: str,
        query: str | None = None,
        *,
        about: str | Sequence[str] | None = None,
        k: int = 10,
        at: datetime | None = None,
        mark: bool = True,
        relevance: Callable[[Belief], float] | None = None,
    ) -> list[Recollection]:
        """The ``k`` beliefs an NPC recalls first: recency x importance x relevance.

        The Generative Agents memory stream score (see :mod:`graphmem.minds.salience`):
        recency decays per game hour since a belief was acquired or last recalled;
        relevance is 1 for beliefs naming ``about``, the share of ``query``'s words in a
        belief otherwise, or your own ``relevance(belief) -> 0..1``. ``mark`` records the
        recall (last-recall time ``at``, count), which refreshes recency.
        """
        return self._minds().recall(
            npc, query, about=about, k=k, at=at, mark=mark, relevance=relevance
        )

    def forget(
        self,
        npc: str | None = None,
        *,
        below: float | None = None,
        older_than: timedelta | None = None,
        about: str | None = None,
        at: datetime | None = None,
    ) -> list[Belief]:
        """Retire beliefs (of one NPC, or of all) meeting every policy given.

        ``below``: salience (importance x recency at ``at``) under this floor;
        ``older_than``: not acquired nor recalled within this much game time before
        ``at``. Retired beliefs are kept as past versions (``beliefs(..., history=True)``
        and the two-clock reads still find them). Returns them, retired.
        """
        return self._minds().forget(npc, below=below, older_than=older_than, about=about, at=at)

    def save_recap(
        self,
        session_id: str,
        text: str | None = None,
        *,
        campaign: str | None = None,
        audio: bytes | None = None,
        audio_type: str | None = None,
        summarizer: RecapSummarizer | Callable[..., str] | None = None,
    ) -> Recap:
        """Save a session's recap ("previously on..."), replacing an earlier one.

        Without ``text`` it is written from the session (its active conversation branch
        and its events) by ``summarizer`` when given, else deterministically
        (:func:`graphmem.minds.default_recap`). ``audio``: rendered audio bytes, at most
        ``MindSettings.max_audio_bytes``, stored as bytes.
        """
        from graphmem.minds import recaps

        minds = self._minds()
        return recaps.save_recap(
            self._store,
            self._tenant,
            session_id,
            text,
            campaign=campaign,
            audio=audio,
            audio_type=audio_type,
            summarizer=summarizer,
            max_audio_bytes=minds.settings.max_audio_bytes,
        )

    def draft_recap(
        self,
        session_id: str,
        *,
        campaign: str | None = None,
        summarizer: RecapSummarizer | Callable[..., str] | None = None,
    ) -> Recap:
        """A recap of a session as :meth:`save_recap` would write it, not saved."""
        from graphmem.minds import recaps

        self._check_open()
        return recaps.draft_recap(
            self._store, self._tenant, session_id, campaign=campaign, summarizer=summarizer
        )

    def recap(self, session_id: str) -> Recap:
        """A session's saved recap; ``NotFound`` when it has none."""
        from graphmem.minds import recaps

        self._check_open()
        return recaps.get_recap(self._store, self._tenant, session_id)

    def recaps(self, campaign: str | None = None, *, limit: int | None = None) -> list[Recap]:
        """Saved recaps, newest first: all of them, or one campaign's."""
        from graphmem.minds import recaps

        self._check_open()
        return recaps.list_recaps(self._store, self._tenant, campaign, limit)
