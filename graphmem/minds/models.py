"""The data of NPC minds: facts, beliefs, events, recollections, recaps and settings.

Data only, no I/O (the rules of :mod:`graphmem.core.models`): frozen pydantic models whose bad
input raises :class:`~graphmem.core.errors.InvalidInput`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, ClassVar, Self

from pydantic import Field, model_validator

from graphmem.core.errors import InvalidInput
from graphmem.core.models import (
    Attributes,
    Blob,
    Entity,
    FrozenDict,
    Identifier,
    SafeName,
    StrictBool,
    Timestamp,
    _Model,
    utcnow,
)

__all__ = [
    "BELIEF_SOURCES",
    "Belief",
    "Event",
    "Fact",
    "Hearing",
    "MindSettings",
    "Recap",
    "Recollection",
    "TrustPolicy",
    "entity_names",
    "fact_from",
]

BELIEF_SOURCES: tuple[str, ...] = ("witnessed", "told", "inferred", "rumour")
"""How an NPC comes by a belief (``Belief.how``); other safe names are allowed too."""

FactValue = bool | int | Annotated[float, Field(allow_inf_nan=False)] | str
Score = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


def _words(predicate: str) -> str:
    return predicate.replace("_", " ")


class Fact(_Model):
    """A proposition about the world, true or not: what an event changes and a belief holds.

    Either a relation between two entities (``object``: ``the sword -[located_in]-> the
    chest``) or an attribute of one (``value``: ``Mira.mood = "angry"``). ``holds=False``
    denies it (the sword is *not* in the chest; Mira is no longer angry).

    >>> Fact(subject="sword", predicate="located_in", object="chest").text()
    'sword located in chest'
    >>> Fact(subject="mira", predicate="mood", value="angry", holds=False).text({"mira": "Mira"})
    'Mira mood is not angry'
    """

    subject: Identifier
    predicate: SafeName
    object: Identifier | None = None
    value: FactValue | None = None
    holds: StrictBool = True

    @model_validator(mode="after")
    def _object_or_value(self) -> Self:
        if (self.object is None) == (self.value is None):
            raise ValueError("give exactly one of object (an entity id) and value (a JSON scalar)")
        return self

    @property
    def entity_ids(self) -> tuple[str, ...]:
        """The entities the fact names: its subject, and its object if it has one."""
        return (self.subject,) if self.object is None else (self.subject, self.object)

    def same_claim(self, other: Fact) -> bool:
        """Whether ``other`` says the same thing (subject, predicate, object or value, holds)."""
        return (
            self.subject == other.subject
            and self.predicate == other.predicate
            and self.object == other.object
            and same_value(self.value, other.value)
            and self.holds == other.holds
        )

    def text(self, names: Mapping[str, str] | None = None) -> str:
        """The fact in plain words, entities by name when ``names`` has them."""
        names = names or {}
        subject = names.get(self.subject, self.subject)
        if self.object is not None:
            verb = _words(self.predicate) if self.holds else f"not {_words(self.predicate)}"
            return f"{subject} {verb} {names.get(self.object, self.object)}"
        verb = "is" if self.holds else "is not"
        return f"{subject} {_words(self.predicate)} {verb} {self.value}"


def same_value(a: object, b: object) -> bool:
    """JSON equality of two scalars: 1 equals 1.0, but True is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


class Belief(_Model):
    """What one NPC believes (one version of it), separate from what is true in the world.

    ``chain`` makes it nested: ``holder="aria", chain=("aiden",)`` is what Aria thinks
    Aiden believes; ``("aiden", "aria")`` what Aria thinks Aiden thinks she believes.
    ``how`` says how the holder came by it (:data:`BELIEF_SOURCES`); a told belief names
    ``told_by`` and its ``sources``, the hand-over chain from the first teller to
    ``told_by``.

    Two clocks: ``valid_from`` / ``valid_to`` are world (game) time, when the holder came
    to believe it and when that ended (superseded or forgotten); ``recorded_at`` /
    ``retired_at`` are memory time, when the store wrote it and retired it.
    """

    id: Identifier
    holder: Identifier
    chain: tuple[Identifier, ...] = ()
    fact: Fact
    how: SafeName
    told_by: Identifier | None = None
    sources: tuple[Identifier, ...] = ()
    event_id: Identifier | None = None
    confidence: Score = 1.0
    importance: Score = 0.5
    valid_from: Timestamp
    valid_to: Timestamp | None = None
    recorded_at: Timestamp
    retired_at: Timestamp | None = None
    retired_because: str | None = None
    last_recalled_at: Timestamp | None = None
    recall_count: int = Field(default=0, ge=0)

    @property
    def depth(self) -> int:
        """1 for what the holder believes, 2 for what it thinks another believes, ..."""
        return len(self.chain) + 1

    @property
    def current(self) -> bool:
        """Whether this is the version the holder holds now (not superseded nor forgotten)."""
        return self.retired_at is None

    @property
    def touched_at(self) -> datetime:
        """World time the belief was last acquired or recalled (what recency decays from)."""
        last = self.last_recalled_at
        return last if last is not None and last > self.valid_from else self.valid_from


class Event(_Model):
    """Something that happened: a first-class episodic record (repeated events stay apart).

    Attributes:
        id: The event id.
        type: What happened (``moved``, ``entered``, ``told``, ...; a safe name).
        at: World (game) time it happened.
        place: Where (an entity id), if anywhere.
        actor: Who did it, if anyone.
        participants: Who else took part.
        witnesses: Who saw it happen (their beliefs were updated).
        changes: The facts it changed in the world (applied to the world state).
        reveals: Facts the witnesses perceived without changing them (what they saw).
        claims: Facts the actor asserted (what was told or announced), true or not.
        adopted: For each claim, the listeners who came to believe it (their trust
            policy took it); the others only know it was claimed.
        importance: 0..1, how much it matters (salience of the memories it makes).
        session_id: The game session it belongs to (recaps gather a session's events).
        summary: A line for people; made from the facts when not given.
        attributes: Any other JSON data.
        recorded_at: Memory time it was stored.
    """

    id: Identifier
    type: SafeName
    at: Timestamp
    place: Identifier | None = None
    actor: Identifier | None = None
    participants: tuple[Identifier, ...] = ()
    witnesses: tuple[Identifier, ...] = ()
    changes: tuple[Fact, ...] = ()
    reveals: tuple[Fact, ...] = ()
    claims: tuple[Fact, ...] = ()
    adopted: tuple[tuple[Identifier, ...], ...] = ()
    importance: Score = 0.5
    session_id: Identifier | None = None
    summary: str | None = None
    attributes: Attributes = Field(default_factory=FrozenDict)
    recorded_at: Timestamp = Field(default_factory=utcnow)

    @property
    def facts(self) -> tuple[Fact, ...]:
        """Every fact of the event: changes, then reveals, then claims."""
        return (*self.changes, *self.reveals, *self.claims)

    @property
    def entity_ids(self) -> list[str]:
        """Every entity the event names, without repeats, in a stable order."""
        ids: list[str] = [i for i in (self.actor, self.place) if i is not None]
        ids += [*self.participants, *self.witnesses]
        ids += [i for fact in self.facts for i in fact.entity_ids]
        return list(dict.fromkeys(ids))

    def describe(self, names: Mapping[str, str] | None = None) -> str:
        """The event as one line: its ``summary``, or one made from what it holds.

        >>> e = Event(id="e1", type="moved", at=utcnow(), actor="aria",
        ...           changes=[Fact(subject="apple", predicate="located_in", object="box")])
        >>> e.describe({"aria": "Aria", "apple": "the apple", "box": "the box"})
        'Aria moved: the apple located in the box'
        """
        if self.summary:
            return self.summary
        names = names or {}
        who = names.get(self.actor, self.actor) if self.actor else None
        head = f"{who} {_words(self.type)}" if who else _words(self.type).capitalize()
        if self.participants:
            head += " " + ", ".join(names.get(p, p) for p in self.participants)
        if self.place and not who:
            head += f" in {names.get(self.place, self.place)}"
        said = [fact.text(names) for fact in self.claims]
        seen = [fact.text(names) for fact in (*self.changes, *self.reveals)]
        parts = seen + [f"that {line}" for line in said]
        return f"{head}: {'; '.join(parts)}" if parts else head


class Recollection(_Model):
    """One belief an NPC recalls, with its score and the parts of it (each 0..1)."""

    belief: Belief
    score: Score
    recency: Score
    importance: Score
    relevance: Score


class Recap(_Model):
    """A "previously on..." of one game session.

    Attributes:
        session_id: The session it recaps.
        campaign: The campaign the session belongs to, if any.
        text: The narrative text.
        audio: Rendered audio of it (bytes; base64 in JSON), if any; size-limited by
            ``MindSettings.max_audio_bytes``.
        audio_type: The media type of ``audio`` (``audio/ogg``, ...).
        source: ``given`` (text passed in), ``default`` (the deterministic recap) or
            ``summarizer`` (made by a summarizer hook).
        events: How many events of the session it was made from.
        turns: How many turns of the session log it was made from.
        notes: Anything to know (a summarizer that failed, and why).
        created_at: When it was first saved (memory time).
        updated_at: When it was last saved.
    """

    session_id: Identifier
    campaign: Identifier | None = None
    text: str
    audio: Blob | None = None
    audio_type: str | None = None
    source: str = "given"
    events: int = 0
    turns: int = 0
    notes: tuple[str, ...] = ()
    created_at: Timestamp = Field(default_factory=utcnow)
    updated_at: Timestamp = Field(default_factory=utcnow)


def _check_fraction(value: float, what: str, *, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{what} must be a number, got {value!r}")
    low_ok = value > 0 if open_low else value >= 0
    if not (low_ok and value <= 1):
        bound = "(0, 1]" if open_low else "[0, 1]"
        raise InvalidInput(f"{what} must be within {bound}, got {value!r}")
    return float(value)


@dataclass(frozen=True, slots=True)
class Hearing:
    """What a listener weighs when it hears a claim (the question a trust rule answers).

    Attributes:
        listener: Who hears it.
        speaker: Who says it.
        fact: What is claimed.
        public: Whether it was announced to an audience (else told in private).
        held: What the listener believes about the same slot now, if anything.
        seen: What the listener last saw of the slot itself (a witnessed belief, which
            ``held`` may have replaced since), if it ever saw it.
        speaker_saw_more: Whether, as far as the listener knows, the speaker may know
            more of it than the listener saw: the listener has left the place where it
            last saw it, and the speaker was still there when it left (it was there at
            that sighting or came since, and the listener did not see it go): who leaves
            later has seen more. True when the listener never saw it.
    """

    listener: str
    speaker: str
    fact: Fact
    public: bool
    held: Belief | None
    seen: Belief | None
    speaker_saw_more: bool


@dataclass(frozen=True, slots=True)
class TrustPolicy:
    """Whether a listener comes to believe what it is told (the listener decides).

    Checked in this order; the first that decides, decides:

    1. ``rule(hearing)``, a callable for a game's own rule: True (adopt), False (do not),
       or None (let the rest decide).
    2. ``pairs[(listener, speaker)]``: True (always believes that speaker) or False
       (never).
    3. A listener with no belief about the slot, or one that agrees, adopts the claim.
    4. A listener that saw the slot itself, when ``overrides["witnessed"]`` is False
       (the default): only if ``defer_to_who_saw_more`` and the speaker may have seen
       more of it than the listener did (:attr:`Hearing.speaker_saw_more`), whatever
       the listener believes now.
    5. ``overrides[how]`` for the ``how`` of the belief it holds (``told``,
       ``inferred``, ``rumour``, ...; a kind not listed: ``default``): True, a claim
       replaces such a belief; False, it does not, unless ``defer_to_who_saw_more`` and
       the speaker may have seen more.

    The default: what one saw beats the word of one who saw less (who left first, or
    was not there), and yields to one who stayed to see more; hearsay replaces hearsay.

    >>> TrustPolicy().overrides["witnessed"]
    False
    """

    rule: Callable[[Hearing], bool | None] | None = None
    pairs: Mapping[tuple[str, str], bool] = field(default_factory=dict)
    overrides: Mapping[str, bool] = field(default_factory=lambda: {"witnessed": False})
    default: bool = True
    defer_to_who_saw_more: bool = True

    def __post_init__(self) -> None:
        if self.rule is not None and not callable(self.rule):
            raise InvalidInput("trust rule must be a callable(hearing) -> bool | None")
        for key, value in dict(self.pairs).items():
            if not (isinstance(key, tuple) and len(key) == 2) or not isinstance(value, bool):
                raise InvalidInput(
                    f"trust pairs map (listener, speaker) to True or False, got {key!r}: {value!r}"
                )
        for kind, allowed in dict(self.overrides).items():
            if not isinstance(kind, str) or not isinstance(allowed, bool):
                raise InvalidInput(f"trust overrides map a kind to True or False, got {kind!r}")

    def settled(self, listener: str, speaker: str, fact: Fact, held: Fact | None) -> bool:
        """Whether the claim is adopted before anything costlier is weighed (step 3).

        True when no rule and no pair decides for this listener and speaker, and the
        listener holds nothing of the slot (``held`` None) or holds the same claim:
        :meth:`adopts` would say True whatever else the hearing holds.
        """
        if self.rule is not None or (listener, speaker) in dict(self.pairs):
            return False
        return held is None or held.same_claim(fact)

    def adopts(self, hearing: Hearing) -> bool:
        """Whether the listener comes to believe the claim."""
        if self.rule is not None:
            decided = self.rule(hearing)
            if decided is not None:
                if not isinstance(decided, bool):
                    raise InvalidInput(f"trust rule returned {decided!r}; give True, False or None")
                return decided
        pair = dict(self.pairs).get((hearing.listener, hearing.speaker))
        if pair is not None:
            return pair
        held = hearing.held
        if held is None or held.fact.same_claim(hearing.fact):
            return True
        overrides = dict(self.overrides)
        if hearing.seen is not None and not overrides.get("witnessed", self.default):
            # what it saw beats the word of one who saw less, whatever it believes now
            return self.defer_to_who_saw_more and hearing.speaker_saw_more
        if overrides.get(held.how, self.default):
            return True
        return self.defer_to_who_saw_more and hearing.speaker_saw_more


@dataclass(frozen=True, slots=True)
class MindSettings:
    """How NPC minds work in one :class:`graphmem.Memory` (choose them once per world).

    Attributes:
        depth: The highest order of nested belief a read answers (1: what an NPC
            believes, 2: what it thinks another believes, ...), up to ``MAX_DEPTH``.
            Nested beliefs are answered at read time from shared witnessing, claims and
            departures: nothing is written per order, so a deeper read costs no write.
        tell_decay: The confidence kept at each hand-over of :meth:`Memory.tell` and
            :meth:`Memory.announce` (0..1].
        witness_confidence: The confidence of a witnessed belief.
        presence: The relationship type that places things in places (``npc -[located_in]->
            tavern``, ``sword -[located_in]-> chest``): who is present at an event is read
            from it, and :meth:`Memory.observe` walks it.
        observers: The entity types that witness events (others at the place do not).
        single_valued: Relationship types with one object at a time per subject: a new one
            ends the old one in the world and replaces the old belief. ``presence`` is
            always one of them; attribute facts always have one value.
        recency_decay: Recency of a memory per game hour since it was acquired or last
            recalled (0.995, the Generative Agents memory stream's value).
        weights: Weights of recency, importance and relevance in :meth:`Memory.recall`.
        trust: Whether listeners believe what they are told (:class:`TrustPolicy`).
        max_beliefs_per_event: Refuse an event with more witnesses x facts than this
            (``InvalidInput``).
        max_audio_bytes: The largest recap audio accepted.
    """

    depth: int = 16
    tell_decay: float = 0.8
    witness_confidence: float = 1.0
    presence: str = "located_in"
    observers: tuple[str, ...] = ("npc", "player")
    single_valued: tuple[str, ...] = ("located_in",)
    recency_decay: float = 0.995
    weights: tuple[float, float, float] = (1.0, 1.0, 1.0)
    trust: TrustPolicy = field(default_factory=TrustPolicy)
    max_beliefs_per_event: int = 1_000_000
    max_audio_bytes: int = 16 * 1024 * 1024

    MAX_DEPTH: ClassVar[int] = 64

    def __post_init__(self) -> None:
        from graphmem.core.models import check_safe_name

        depth = self.depth
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise InvalidInput(f"depth must be an integer, got {depth!r}")
        if not 1 <= depth <= self.MAX_DEPTH:
            raise InvalidInput(f"depth must be within 1..{self.MAX_DEPTH}, got {depth}")
        _check_fraction(self.tell_decay, "tell_decay", open_low=True)
        _check_fraction(self.witness_confidence, "witness_confidence", open_low=True)
        _check_fraction(self.recency_decay, "recency_decay", open_low=True)
        check_safe_name(self.presence, "presence")
        for name in (*self.observers, *self.single_valued):
            check_safe_name(name, "type")
        if not self.observers:
            raise InvalidInput("observers must name at least one entity type")
        if len(self.weights) != 3 or any(
            isinstance(w, bool) or not isinstance(w, int | float) or w < 0 or w != w
            for w in self.weights
        ):
            raise InvalidInput(f"weights must be three non-negative numbers, got {self.weights}")
        if not isinstance(self.trust, TrustPolicy):
            raise InvalidInput("trust takes a graphmem.minds.TrustPolicy")
        if sum(self.weights) <= 0:
            raise InvalidInput("weights must not all be zero")
        for what in ("max_beliefs_per_event", "max_audio_bytes"):
            value = getattr(self, what)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise InvalidInput(f"{what} must be a positive integer, got {value!r}")

    def is_single_valued(self, predicate: str) -> bool:
        """Whether a relation of this type has one object at a time per subject."""
        return predicate == self.presence or predicate in self.single_valued


def entity_names(entities: list[Entity] | tuple[Entity, ...]) -> dict[str, str]:
    """Entity names by id."""
    return {e.id: e.name for e in entities}


def fact_from(value: Any, what: str) -> Fact:
    """A :class:`Fact` from a Fact, a dict of its fields or a ``(subject, predicate, object)``."""
    if isinstance(value, Fact):
        return value
    if isinstance(value, Mapping):
        try:
            return Fact.model_validate(dict(value))
        except InvalidInput as exc:
            raise InvalidInput(f"{what}: {exc.message}") from exc
    if isinstance(value, tuple) and len(value) == 3:
        subject, predicate, obj = value
        return Fact(subject=subject, predicate=predicate, object=obj)
    raise InvalidInput(
        f"{what} is a {type(value).__name__}; give a Fact, a dict of its fields or a "
        "(subject, predicate, object) tuple"
    )
