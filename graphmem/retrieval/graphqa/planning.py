"""Planning graph questions: the relation paths from a topic, scored by beam search.

Part of :mod:`graphmem.retrieval.graphqa`: the :class:`Planner` that matches each question
word against the vocabulary (:mod:`graphmem.retrieval.graphqa.matching`), reads the
question for each topic (:mod:`graphmem.retrieval.graphqa.reading`), and scores the
relation paths a walk from the topic can take: the words each path's types explain, its
length, its order and direction against the words', how well its end fits the focus.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from graphmem.core.models import Entity
from graphmem.retrieval.graphqa.direction import _Token
from graphmem.retrieval.graphqa.matching import Matcher
from graphmem.retrieval.graphqa.reading import Reader, _Reading
from graphmem.retrieval.graphqa.tenant import _Vocabulary
from graphmem.retrieval.graphqa.vocabulary import (
    Ambiguity,
    PathStep,
    PlannedPath,
    StepDirection,
)

__all__ = ["Planner"]


@dataclass
class _Plan:
    """A question read and planned: the paths, and what explaining it takes."""

    tokens: list[_Token]
    vocab: _Vocabulary
    text: str = ""  # the question, lower case, its spaces single
    cased: str = ""  # the question as written, its spaces single (``text``'s offsets)
    # the entities the question's names link to, as the store has them now
    linked: dict[str, Entity] = field(default_factory=dict)
    paths: list[PlannedPath] = field(default_factory=list)
    focus_fit: dict[str, float] = field(default_factory=dict)
    readings: dict[tuple[str, ...], _Reading] = field(default_factory=dict)
    # the entity types each topic's walks start from (their shares)
    starts: dict[tuple[str, ...], dict[str, float]] = field(default_factory=dict)
    # the share of each topic's facts each way of starting has (None: too many to count)
    firsts: dict[tuple[str, ...], dict[tuple[str, str], float] | None] = field(default_factory=dict)
    matches: Mapping[str, np.ndarray] = field(default_factory=dict)
    named: frozenset[int] = frozenset()
    # the entities the question names by a name that is theirs alone
    mentioned: frozenset[str] = frozenset()
    ambiguity: tuple[Ambiguity, ...] = ()
    reason: str = ""


class Planner(Matcher, Reader):
    """Reads questions and scores relation paths (the planning half of :class:`GraphQA`).

    Its words matched as a :class:`~.matching.Matcher` matches them, the question read for
    each topic as a :class:`~.reading.Reader` reads it.

    Args:
        settings: Weights and limits.
        embed: Embeds words to compare them by meaning as well as by stem; None: by stem.
    """

    def paths(
        self,
        reading: _Reading,
        start: dict[str, float],
        first: Mapping[tuple[str, str], float] | None,
        vocab: _Vocabulary,
        max_hops: int,
    ) -> list[PlannedPath]:
        """Relation paths of up to ``max_hops`` steps from ``start``, scored (beam search)."""
        settings = self.settings
        names = vocab.relations.names
        ranked = np.argsort(-np.maximum(reading.evidence, reading.focus_relations), kind="stable")
        chosen = [
            int(r)
            for r in ranked[: settings.max_types]
            if max(reading.evidence[r], reading.focus_relations[r]) >= settings.min_evidence
        ]
        if not chosen:  # no word matches any type: try the few best there are
            chosen = [int(r) for r in ranked[: min(3, settings.max_types)]]
        if first is not None:
            starts = {t for t, _way in first}
            if not any(names[r] in starts for r in chosen):
                chosen += [int(r) for r in ranked if names[r] in starts][:3]
        # and the types that lead to or from a kind of entity the question names, other
        # than the topic's ("Grace's project": ``works_on``; "the region of the quest":
        # ``takes_place_in``)
        for r in np.flatnonzero(reading.touches >= 0.5):
            if int(r) not in chosen:
                chosen.append(int(r))
        type_column = vocab.types.index
        mention = math.log(1 + reading.mention_length)
        # "X's *husband*" starts with what "husband" names; when the topic has no such
        # fact, the question asks what the graph does not hold ("the Duke's *favourite*
        # dish"), unless the noun names a kind of entity too: "Noor's *film*" (the film
        # she acts in) restricts no first step, and the walk may reach it further on
        attached = reading.attached.any() and (
            reading.noun_kind < settings.explained_floor / 2
            or any(
                self._opens(start, first, vocab, names[int(r)])
                for r in np.flatnonzero(reading.attached)
            )
        )
        out: list[PlannedPath] = []
        # Beam search: the best ``beam`` paths of each length are extended by one step.
        Partial = tuple[
            tuple[tuple[int, StepDirection], ...], dict[str, float], float, dict[str, float]
        ]
        frontier: list[tuple[float, Partial]] = [(0.0, ((), start, 0.0, {}))]
        hop = settings.described_hop if vocab.descriptions else settings.hop
        passed = {t for t, column in type_column.items() if reading.passed[column]}
        for _length in range(max_hops):
            grown: list[tuple[float, Partial]] = []
            for _score, (steps, state, facts, seen) in frontier:
                if steps and passed:
                    # the kinds the question names that the walk is at now, before its
                    # next step (each counts once, at its largest share)
                    seen = dict(seen)
                    for t in passed.intersection(state):
                        seen[t] = max(seen.get(t, 0.0), state[t])
                through = sum(seen.values())
                for relation in chosen:
                    for way, share, following in vocab.steps(state, names[relation]):
                        if steps:  # what the entities reached so far can do, by their roles
                            named = [(names[r], w) for r, w in steps]
                            share = min(share, vocab.after(named, names[relation], way))
                        if share < settings.min_step_share:
                            continue
                        if not steps and attached and not reading.attached[relation]:
                            continue  # "X's husband" starts with what "husband" names
                        if not steps and first is not None:
                            # the topic's own facts say how a walk can start
                            name = names[relation]
                            started = first.get((name, way), 0.0)
                            if way == "both":
                                started = first.get((name, "out"), 0) + first.get((name, "in"), 0)
                            if started == 0:
                                continue
                            share *= started**settings.topic_prior
                        longer = (*steps, (relation, way))
                        logged = facts + math.log(share)
                        path = self._score(
                            reading,
                            longer,
                            following,
                            logged,
                            mention,
                            type_column,
                            names,
                            hop,
                            vocab.described,
                            through,
                        )
                        out.append(path)
                        grown.append((path.score, (longer, following, logged, seen)))
            grown.sort(key=lambda item: -item[0])
            frontier = grown[: settings.beam]
            if not frontier:
                break
        return out

    def _opens(
        self,
        start: Mapping[str, float],
        first: Mapping[tuple[str, str], float] | None,
        vocab: _Vocabulary,
        name: str,
    ) -> bool:
        """Whether a walk from ``start`` can take ``name`` as its first step."""
        for way, share, _following in vocab.steps(start, name):
            if share < self.settings.min_step_share:
                continue
            if first is None:
                return True
            ways = ("out", "in") if way == "both" else (way,)
            if any(first.get((name, w), 0.0) > 0 for w in ways):
                return True
        return False

    def _score(
        self,
        reading: _Reading,
        steps: tuple[tuple[int, StepDirection], ...],
        end: Mapping[str, float],
        facts: float,
        mention: float,
        type_column: Mapping[str, int],
        names: Sequence[str],
        hop: float,
        described: frozenset[str] = frozenset(),
        through: float = 0.0,
    ) -> PlannedPath:
        settings = self.settings
        used = list(dict.fromkeys(r for r, _way in steps))
        explained = unexplained = 0.0
        won: set[int] = set()  # the types that explain a word no other type of the path does
        back = [
            r1
            for (r1, w1), (r2, w2) in zip(steps, steps[1:], strict=False)
            if r1 == r2 and (w1 == w2 == "both" or {w1, w2} == {"out", "in"})
        ]
        if reading.per_word.shape[0]:
            # each word speaks for one of the path's types (its best), and each type
            # counts its best word: a type is explained by no word another one took;
            # a type walked again the same way counts its next word too ("the boss of
            # X's boss", "the master of X's master")
            mine = reading.per_word[:, used]
            best = mine.argmax(axis=1)
            for column in range(len(used)):
                taken = np.sort(mine[best == column, column])[::-1]
                if taken.size and taken[0] >= settings.min_evidence:
                    won.add(used[column])
                times = sum(r == used[column] for r, _way in steps) - back.count(used[column])
                more = taken[1 : max(1, min(times, int(reading.times[used[column]])))]
                explained += float(taken[:1].sum()) + float(more[more >= 0.5].sum())
            mask = np.ones(reading.per_word.shape[1], dtype=bool)
            mask[used] = False
            if mask.any():
                inside = mine.max(axis=1)
                outside = reading.per_word[:, mask].max(axis=1)
                unexplained = float(np.clip(outside - inside, 0.0, None).sum())
        returns = len(back)
        # a type walked again costs, unless the question names it as many times
        named_again = sum(
            max(0, min(steps.count((r, way)), int(reading.times[r])) - 1)
            for r, way in dict.fromkeys(steps)
            if r not in back
        )
        repeats = len(steps) - len(used) - named_again
        asked = 0.0
        if back:
            asked = max([reading.shared, *(settings.twice * float(reading.twice[r]) for r in back)])
        order = 0.0
        # the order of two types' words, when each explains a word of its own: a step
        # that only shares the word of another explains nothing more, in any order
        for a, b in zip(used, used[1:], strict=False):
            if a in won and b in won:
                order += float(np.sign(reading.key[b] - reading.key[a]))
        type_fit = sum(
            share * reading.focus_types[type_column[t]]
            for t, share in end.items()
            if t in type_column
        )
        # A type's name and description say what its facts lead to (their targets), so
        # they fit the focus only when the last step walks forwards (or either way).
        last, last_way = steps[-1]
        fit_last = float(reading.focus_relations[last]) if last_way != "in" else 0.0
        focus = max(float(type_fit), fit_last)
        # the question asks for something; an end of a described type that is not it
        mismatch = 0.0
        if reading.asks:
            # ... or, when the question names a kind of entity by its type's own word
            # ("which *wards* ..." of ``ward``), an end of any other type
            named = reading.focus_types.size > 0 and float(reading.focus_types.max()) >= 1.0
            mismatch = sum(
                share * (1.0 - min(1.0, reading.focus_types[type_column[t]]))
                for t, share in end.items()
                if (t in described or named) and t in type_column
            )
        # the way each step walks a type joining one kind to itself, against the question's
        direction = 0.0
        if reading.cue.size:
            # a symmetric type holds both ways: walked both, it agrees with any words
            agreements = [
                (abs(cue) if reading.symmetric[r] else -0.5)
                if way == "both"
                else (cue if way == "out" else -cue)
                for r, way in steps
                if r not in back and (cue := float(reading.cue[r]))
            ]
            if agreements:  # as much for one step as for two: no reward for walking more
                direction = min(agreements) if min(agreements) < 0 else max(agreements)
        parts = {
            "explained": explained,
            "unexplained": unexplained,
            "hops": float(len(steps)),
            "repeats": float(repeats),
            "return": float(returns),
            "asked back": asked,
            "order": order,
            "focus": focus,
            "mismatch": mismatch,
            "facts": facts,
            "mention": mention,
            "stray": reading.stray,
            "direction": direction,
            "through": through,
        }
        score = (
            settings.explained * explained
            - settings.unexplained * unexplained
            - hop * len(steps)  # the settings' hop, or described_hop
            # the walk back that "same" / "also" ask for is no chance of a description
            + (hop - settings.hop) * min(returns, 1) * asked
            - settings.repeat * repeats
            # one walk there and back is what "same" / "share" ask for; more are not
            + min(returns, 1) * settings.shared * asked
            - (returns - min(returns, 1) * asked) * settings.unshared
            + settings.order * order
            + settings.focus * focus
            - settings.mismatch * mismatch
            + settings.facts * facts
            + settings.mention * mention
            - settings.stray * reading.stray
            + settings.direction * direction
            + settings.through * through
        )
        return PlannedPath(
            topic=reading.topic,
            steps=tuple(PathStep(names[r], way) for r, way in steps),
            score=float(score),
            parts=parts,
        )

    # ------------------------------------------------------------------ walking
