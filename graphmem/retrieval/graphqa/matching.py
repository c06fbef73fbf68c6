"""Matching graph questions: each question word against a tenant's vocabulary.

Part of :mod:`graphmem.retrieval.graphqa` (moved out of :mod:`.planning`): each distinct
question word (and what the question words ask for) against each relationship and entity
type of the vocabulary (:mod:`graphmem.retrieval.graphqa.tenant`), by stem and, given an
embedder, by meaning; a noun no type has by the nouns it is a kind of, a phrasal verb's
words by its single verbs, and two words a type's name writes as one.
"""

from __future__ import annotations

import numpy as np

from graphmem.retrieval.graphqa.direction import _Token
from graphmem.retrieval.graphqa.lexicon import noun_key
from graphmem.retrieval.graphqa.relwords import defined, kinds_of, phrasal
from graphmem.retrieval.graphqa.tenant import _Lexicon, _Vocabulary, _WordVectors, light_key
from graphmem.retrieval.graphqa.vocabulary import (
    _ASKS_FOR,
    _FUNCTION_WORDS,
    _HOW_MANY,
    _HOW_MEASURE,
    _LIGHT_VERBS,
    _NOT_RELATED,
    _PHRASE_LIGHT,
    _QUESTION_WORDS,
    _SHARED_WORDS,
    Embed,
    GraphQASettings,
    light_stem,
)

__all__ = ["Matcher"]

# The verbs "under" is said with of a master ("learn the trade *under* X"), and how much
# of a word it is of them. With "supervise" and "serve" too: "under whom did X train?"
# walked the bakery's ``manages`` and lost (design worlds, issue 26).
_UNDER_VERBS = ("train", "apprentice", "mentor", "teach")
_UNDER = 0.5

POSSESSION = "possess"
"""The verb "whose" asks by, when nothing else names a relation ("*whose* boat is the
Perseverance?": who owns it; :mod:`.reading`). WordNet gives it of ``owns``, ``owned_by``
and ``belongs_to``; "own" would also match a description's "its *own* base"."""

# Words after which a word is a noun ("the *fare* for BX 402": no sense of the verb "fare").
_DETERMINERS = frozenset(
    ("the", "a", "an", "his", "her", "its", "their", "my", "your", "our", "this", "these")
)

# A phrasal verb's single verbs count from this strength: its synonyms, its first sense's
# hypernym; not a later sense's ("operate on": treat, which asked no-answer questions).
_PHRASE_FLOOR = 0.7


class Matcher:
    """Matches each question word against a vocabulary, by stem and by meaning.

    Args:
        settings: Weights and limits.
        embed: Embeds words to compare them by meaning as well as by stem; None: by stem.
    """

    def __init__(self, settings: GraphQASettings, embed: Embed | None = None) -> None:
        self.settings = settings
        self._vectors = _WordVectors(embed) if embed is not None else None

    @property
    def vectors(self) -> _WordVectors | None:
        """The embeddings of single words, kept once each (None: no embedder)."""
        return self._vectors

    def match(
        self, tokens: list[_Token], named: set[int], vocab: _Vocabulary
    ) -> dict[str, np.ndarray]:
        """Each distinct question word (and what question words ask for) against each lexicon.

        Words inside an entity's name (``named`` token positions) are compared by stem
        only: a name is not a paraphrase of a relationship type.

        Returns ``{word: (relation match per relation type, type match per entity type)}``
        flattened as one vector: relation types first.
        """
        words = {t.text for t in tokens}
        for asked in _ASKS_FOR.values():
            words.update(asked)
        words.update(_HOW_MANY)
        if "whose" in words:
            words.add(POSSESSION)
        under = any(t.text == "under" for i, t in enumerate(tokens) if i not in named)
        if under:
            words.update(_UNDER_VERBS)
        if "how" in words:  # what "how old", "how long" ask for (.judging)
            words.update(noun for nouns in _HOW_MEASURE.values() for noun in nouns)
        ordered = sorted(words)
        plain = {t.text for i, t in enumerate(tokens) if i not in named} | (
            words - {t.text for t in tokens}
        )
        # a word only ever said after a determiner is a noun: a stem only WordNet's verbs
        # give (the verb "fare" of ``arrives_at``) does not match it
        verbal = {
            t.text for i, t in enumerate(tokens) if i == 0 or tokens[i - 1].text not in _DETERMINERS
        }
        nouns = {t.text for t in tokens} - verbal
        out: dict[str, np.ndarray] = {}
        parts = []
        for lexicon in (vocab.relations, vocab.types):
            sims = np.zeros((len(ordered), len(lexicon.stems)))
            for row, word in enumerate(ordered):
                for key in (light_stem(word), noun_key(word)):
                    if word in nouns and key[:1] != "=" and key in lexicon.derived:
                        continue
                    column = lexicon.column.get(key)
                    if column is not None:
                        sims[row, column] = 1.0
            if lexicon is vocab.relations:
                self._kinds(ordered, plain, lexicon, sims)
            self._semantic(ordered, plain, lexicon, sims)
            # match of a word with a type: its best word there, by that word's weight
            parts.append((sims[:, None, :] * lexicon.weights[None, :, :]).max(axis=2))
        joined = np.concatenate(parts, axis=1)
        for row, word in enumerate(ordered):
            out[word] = joined[row]
        if under:
            # "who did X learn the trade *under*?", "who did Y take *under* her wing?":
            # one learns under a master; half a word of the teaching types
            n_rel = len(vocab.relations.names)
            taught = np.max([out[v][:n_rel] for v in _UNDER_VERBS], axis=0)
            said = out["under"].copy()
            said[:n_rel] = np.maximum(said[:n_rel], _UNDER * taught)
            out["under"] = said
        self._phrasal(tokens, named, vocab, out)
        self._compounds(tokens, named, vocab, out)
        return out

    @staticmethod
    def _compounds(
        tokens: list[_Token], named: set[int], vocab: _Vocabulary, out: dict[str, np.ndarray]
    ) -> None:
        """Two words a type's name writes as one ("base camp" of ``basecamp``) match it.

        Each of the two takes the match the one word has, as its own stem would.
        """
        n_rel = len(vocab.relations.names)
        for i in range(len(tokens) - 1):
            if i in named or (i + 1) in named:
                continue
            joined = tokens[i].text + tokens[i + 1].text
            for lexicon, part in (
                (vocab.relations, slice(0, n_rel)),
                (vocab.types, slice(n_rel, None)),
            ):
                column = lexicon.column.get(light_stem(joined))
                if column is None:
                    continue
                for token in tokens[i : i + 2]:
                    row = out[token.text].copy()
                    row[part] = np.maximum(row[part], lexicon.weights[:, column])
                    out[token.text] = row

    @staticmethod
    def _phrasal(
        tokens: list[_Token], named: set[int], vocab: _Vocabulary, out: dict[str, np.ndarray]
    ) -> None:
        """A phrasal verb's words name what its single verbs do ("dug up": excavate, find).

        WordNet's verbs for the phrase (:func:`~.relwords.phrasal`), or the verbs it
        defines by the phrase (:func:`~.relwords.defined`: "in charge of" of direct, head,
        lead; "look after" of keep), match the relationship
        types as their stems do, times their strength; the verb and its particles each
        take that match, so the particle is explained with the verb.
        """
        n_rel = len(vocab.relations.names)
        lexicon = vocab.relations
        for i in range(len(tokens) - 1):
            if i in named or (i + 1) in named:
                continue
            words = [t.text for t in tokens[i : i + 3]]
            length, verbs = phrasal(words)
            # or a phrase WordNet defines a verb by ("in charge of": direct, head, lead)
            said, by = defined(words)
            if said and not any(j in named for j in range(i, i + said)):
                length = max(length, said)
            else:
                by = []
            if not length:
                continue
            best = np.zeros(n_rel)
            # a verb of keeping a definition gives is no idle verb ("look after": keep)
            kept = {v for v, _s in by if v in _LIGHT_VERBS}
            for verb, strength in verbs + by:
                if strength < _PHRASE_FLOOR or verb in _PHRASE_LIGHT:
                    continue
                if verb in _NOT_RELATED and verb not in kept:
                    continue
                keys = (light_stem(verb), light_key(verb)) if verb in kept else (light_stem(verb),)
                for key in keys:
                    column = lexicon.column.get(key)
                    if column is not None:
                        best = np.maximum(best, strength * lexicon.weights[:, column])
            if not best.any():
                continue
            for token in tokens[i : i + length]:
                row = out[token.text].copy()
                row[:n_rel] = np.maximum(row[:n_rel], best)
                out[token.text] = row

    @staticmethod
    def _kinds(words: list[str], plain: set[str], lexicon: _Lexicon, sims: np.ndarray) -> None:
        """A noun no type has names the nouns it is a kind of ("backer": sponsor, patron).

        WordNet's hypernyms of a question's noun of a person or relation
        (:func:`~.relwords.kinds_of`) match a type's nouns as the noun itself would,
        times their strength; only for a word that matches no type's word of its own.
        """
        for row, word in enumerate(words):
            if word not in plain or word in _FUNCTION_WORDS or sims[row].max() >= 1.0:
                continue
            for kind, strength in kinds_of(word):
                column = lexicon.column.get(noun_key(kind))
                if column is not None:
                    sims[row, column] = max(sims[row, column], strength)

    def _semantic(
        self, words: list[str], plain: set[str], lexicon: _Lexicon, sims: np.ndarray
    ) -> None:
        settings = self.settings
        if self._vectors is None or not lexicon.semantic or settings.semantic_weight == 0:
            return
        rows = [
            i
            for i, w in enumerate(words)
            if w in plain
            and w not in _FUNCTION_WORDS
            and w not in _QUESTION_WORDS
            and w not in _SHARED_WORDS
            and not w.isdigit()
        ]
        if not rows:
            return
        columns = [c for c, _w in lexicon.semantic]
        left = self._vectors.get([words[i] for i in rows])
        right = self._vectors.get([w for _c, w in lexicon.semantic])
        cosine = left @ right.T
        floor = min(settings.semantic_floor, 0.999)
        scaled = np.clip((cosine - floor) / (1 - floor), 0.0, 1.0) * settings.semantic_weight
        block = sims[np.ix_(rows, columns)]
        sims[np.ix_(rows, columns)] = np.maximum(block, scaled)
