r"""Build ``graphmem/retrieval/graphqa/relwords.tsv.gz``, the relation words read from WordNet.

Graph questions (:mod:`graphmem.retrieval.graphqa`) name a relation with words no type name
has: "who *looks after* X?" of ``tends``, "who is X's *employee*?" of ``employs``, "who
*cultivates* the vines?" of ``grows``. This tool reads WordNet 3.0 once and writes, for each
English verb and each noun of a person or a relation, the words that name the same relation
and how strongly, so that :mod:`graphmem.retrieval.graphqa.lexicon` needs no network, no
WordNet reader and no hand-written list for them.

Run it (deterministic: the same dictionary gives the same bytes)::

    python -m graphmem.tools.relwords /usr/share/wordnet \\
        -o graphmem/retrieval/graphqa/relwords.tsv.gz

The input is a WordNet 3.0 ``dict`` directory (``index.verb``, ``data.verb``,
``index.noun``, ``data.noun``, ``verb.exc``, ``noun.exc``): Debian's ``wordnet-base``
installs one at ``/usr/share/wordnet`` (``apt-get download wordnet-base && dpkg -x
wordnet-base_*.deb root`` unpacks it without installing). WordNet's license asks that its
notice go with every copy: it is ``graphmem/retrieval/graphqa/WORDNET-LICENSE``.

The file is gzip'd UTF-8 text, one line per head word, tab-separated::

    # graphmem relwords 1 ...                      (comment lines start with '#')
    tend    v    incline:90:s tender:72:a garden:50:s look:45:s ...
    grown   x    grow

A head is a lemma of one word, or a phrasal verb (``dig_up``, ``belong_to``: a verb and one
or two of :data:`PARTICLES`), whose entries are its own single verbs only (and the verb
its definition starts with: "look_after", "keep under careful scrutiny": keep). A head's
part of speech is ``v`` (a verb) or ``n`` (a noun of a person or relation); ``g`` marks a
phrase of two or three words, one a particle, that WordNet defines verbs by (a leading
"be" left out: ``in_charge_of``, of direct, head, lead) and gives those verbs; ``h``
gives the nouns a noun head is a kind of (the hypernyms of its first two senses that
name a person or relation: ``backer``: patron, sponsor, supporter; role ``n``); ``x``
marks an irregular form and gives its lemma. Each entry is ``word:strength:role``:
``word`` a lemma (``_`` joins the words of a phrase), ``strength`` in percent (a synonym
of the head's first sense counts most, a derivation less, a verb's hypernym or hyponym
less again (a noun's none), and each later sense less than the one before), ``role``
``s`` (a word of the head's own kind: a verb of a verb, a noun naming who the head noun
names), ``a`` (of a verb, a noun of the one who does it: "employer" of employ; of a noun,
the verb the one it names does: "own" of owner) or ``p`` (of a verb, a noun of the one it
is done to: "employee"; of a noun, the verb done to the one it names).
"""

from __future__ import annotations

import argparse
import gzip
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from graphmem.retrieval.graphqa.relwords import FORMAT, PARTICLES

__all__ = ["FORMAT", "PARTICLES", "build", "is_phrasal", "main", "parse_line"]

"""The first words of the header line; a reader refuses any other."""

# WordNet's lexicographer files (lexnames) of the nouns kept: people and relations.
_PERSON = 18
_RELATION = 24
_NOUN_FILES = frozenset((_PERSON, _RELATION))
# How many senses of a head are read, and what each later one is worth.
_SENSES = 6
_SENSE_FACTOR = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
# The strength of each way two words are related (before the sense factor).
_SYNONYM = 0.9
_DERIVED = 0.8
_GROUP = 0.7
_HYPERNYM = 0.5
_HYPONYM = 0.4
_SYNONYM_DERIVED = 0.6
# A synset with more hyponyms than this is too general to lend them its meaning (as a
# head's sense), or to be lent the head's (as its hypernym: "person" of "owner"); a noun
# lends its hyponyms none ("rival": "favourite"; "owner": "bookseller", ...).
_MAX_HYPONYMS = 12
_MAX_NOUN_HYPONYMS = 0
_MAX_HYPERNYM_HYPONYMS = 25
# At most this many words of a head are kept (the strongest): enough that a verb of many
# senses keeps its later senses' synonyms too ("hold": carry; "take": cost), which a cap
# of 60 cut; only "hold", "pass" and "take" reach it, and lose words weaker than 0.4.
_MAX_WORDS = 200
# A noun is read as a kind of its hypernyms in its first senses only (``_WordNet.kinds``).
_KIND_SENSES = 2
_PATIENT_ENDINGS = ("ee", "ees")
# The particles and prepositions of a phrasal verb ("dig *up*", "look *after*", "come *up
# with*"): a multi-word verb lemma of a verb and one or two of these is a head of its own,
# with its synonyms' and hypernyms' single words ("dig_up": excavate, unearth, discover).
_MAX_PHRASE_WORDS = 30
# A short definition ("be in charge of": direct, head, lead) is a head of its own (``g``),
# its verbs as strong as a synonym of a later sense.
_MAX_DEFINITION_WORDS = 3
_DEFINED = 0.8


@dataclass(frozen=True)
class _Synset:
    lexfile: int
    words: tuple[str, ...]
    # (pointer symbol, target offset, target pos, source word number, target word number)
    pointers: tuple[tuple[str, int, str, int, int], ...]
    # the gloss's definition: its words before the first ';' (examples left out)
    definition: tuple[str, ...] = ()


def _read_data(path: Path) -> dict[int, _Synset]:
    synsets: dict[int, _Synset] = {}
    with path.open(encoding="latin-1") as lines:
        for line in lines:
            if line.startswith("  "):
                continue
            head, _bar, gloss = line.partition(" | ")
            fields = head.split()
            definition = tuple(gloss.split(";", 1)[0].strip().strip('"').split())
            offset, lexfile = int(fields[0]), int(fields[1])
            count = int(fields[3], 16)
            words = tuple(fields[4 + 2 * i] for i in range(count))
            at = 4 + 2 * count
            n_pointers = int(fields[at])
            pointers = []
            for i in range(n_pointers):
                symbol, target, pos, link = fields[at + 1 + 4 * i : at + 5 + 4 * i]
                pointers.append((symbol, int(target), pos, int(link[:2], 16), int(link[2:], 16)))
            synsets[offset] = _Synset(lexfile, words, tuple(pointers), definition)
    return synsets


def _read_index(path: Path) -> dict[str, tuple[int, ...]]:
    senses: dict[str, tuple[int, ...]] = {}
    with path.open(encoding="latin-1") as lines:
        for line in lines:
            if line.startswith("  "):
                continue
            fields = line.split()
            count = int(fields[2])
            senses[fields[0]] = tuple(int(o) for o in fields[len(fields) - count :])
    return senses


def _read_exceptions(path: Path) -> dict[str, str]:
    forms: dict[str, str] = {}
    with path.open(encoding="latin-1") as lines:
        for line in lines:
            fields = line.split()
            if len(fields) >= 2 and fields[0].isalpha():
                forms.setdefault(fields[0], fields[1])
    return forms


def _role_of_noun(word: str) -> str:
    return "p" if word.endswith(_PATIENT_ENDINGS) else "a"


class _WordNet:
    def __init__(self, root: Path) -> None:
        self.verbs = _read_data(root / "data.verb")
        self.nouns = _read_data(root / "data.noun")
        self.verb_index = _read_index(root / "index.verb")
        self.noun_index = _read_index(root / "index.noun")
        self.verb_forms = _read_exceptions(root / "verb.exc")
        self.noun_forms = _read_exceptions(root / "noun.exc")

    def synset(self, pos: str, offset: int) -> _Synset:
        return (self.verbs if pos == "v" else self.nouns)[offset]

    def hyponyms(self, pos: str, offset: int) -> int:
        return sum(p[0] == "~" and p[2] == pos for p in self.synset(pos, offset).pointers)

    def related(self, head: str, pos: str) -> dict[tuple[str, str], float]:
        """``{(word, role): strength}`` for a head lemma (see the module's docstring)."""
        found: dict[tuple[str, str], float] = {}

        def add(word: str, role: str, strength: float) -> None:
            # a capitalised word names one person or place ("Teach", "Sue"): never a relation
            if word == head or not word.islower():
                return
            if not all(part.isalpha() for part in word.split("_")):
                return
            key = (word, role)
            found[key] = max(found.get(key, 0.0), strength)

        index = self.verb_index if pos == "v" else self.noun_index
        phrase = pos == "v" and "_" in head
        senses = [
            o for o in index.get(head, ()) if pos == "v" or self.nouns[o].lexfile in _NOUN_FILES
        ][:_SENSES]
        for rank, offset in enumerate(senses):
            factor = _SENSE_FACTOR[rank]
            synset = self.synset(pos, offset)
            own = synset.words.index(head) + 1 if head in synset.words else 0
            same = "s"  # a word of the head's own kind: a verb, or a noun in its role
            for word in synset.words:
                add(word, same, _SYNONYM * factor)
            # a phrasal verb's definition starts with the single verb it is a way of doing
            # ("look_after": "keep under careful scrutiny"), as a hypernym would
            lead = synset.definition[0] if synset.definition else ""
            if phrase and lead.isalpha() and lead in self.verb_index:
                add(lead, same, _HYPERNYM * factor)
            limit = _MAX_HYPONYMS if pos == "v" else _MAX_NOUN_HYPONYMS
            for symbol, target, target_pos, source, number in synset.pointers:
                if target_pos != pos and symbol != "+":
                    continue
                # a noun's hypernym names a wider kind, not the same end of a relation
                # ("superior" of prior, "enemy" of rival): only verbs lend them
                general = symbol == "@" and pos == "v"
                if (general and self.hyponyms(pos, target) <= _MAX_HYPERNYM_HYPONYMS) or (
                    symbol == "~" and self.hyponyms(pos, offset) <= limit
                ):
                    strength = _HYPERNYM if symbol == "@" else _HYPONYM
                    for word in self.synset(pos, target).words:
                        add(word, same, strength * factor)
                elif symbol == "$" and pos == "v":
                    for word in self.synset(pos, target).words:
                        add(word, same, _GROUP * factor)
                elif symbol == "+" and number and target_pos in ("n", "v") and target_pos != pos:
                    other = self.synset(target_pos, target)
                    word = other.words[number - 1]
                    strength = (_DERIVED if source in (0, own) else _SYNONYM_DERIVED) * factor
                    if pos == "v" and target_pos == "n" and other.lexfile == _PERSON:
                        add(word, _role_of_noun(word), strength)
                    elif pos == "n" and target_pos == "v":
                        add(word, _role_of_noun(head), strength)
        return found

    def defined(self) -> dict[str, dict[str, float]]:
        """``{phrase: {verb: strength}}``: the short definitions with a particle in them.

        A verb WordNet defines in two or three words, one of them a particle ("direct",
        "head", "lead": "be in charge of"; "derive": "come from"), is what the phrase says
        in one word; a leading "be" is left out.
        """
        found: dict[str, dict[str, float]] = {}
        for offset in sorted(self.verbs):
            words = list(self.verbs[offset].definition)
            if words[:1] == ["be"]:
                words = words[1:]
            if not 2 <= len(words) <= _MAX_DEFINITION_WORDS:
                continue
            if not all(w.isalpha() and w.islower() for w in words):
                continue
            if not any(w in PARTICLES for w in words):
                continue
            verbs = found.setdefault("_".join(words), {})
            for word in self.verbs[offset].words:
                if word.isalpha() and word.islower():
                    verbs[word] = max(verbs.get(word, 0.0), _DEFINED)
        return found

    def kinds(self, head: str) -> dict[str, float]:
        """The nouns a noun of a person or relation is a kind of: its senses' hypernyms.

        Written as the head's ``h`` line ("backer": patron, sponsor, supporter), read by
        the planner from a question's noun only; a type's own words never lend them.
        """
        found: dict[str, float] = {}
        # only a first or second sense: "company" is a kind of visitor in its third
        for rank, offset in enumerate(self.noun_index.get(head, ())[:_KIND_SENSES]):
            if self.nouns[offset].lexfile not in _NOUN_FILES:
                continue
            factor = _SENSE_FACTOR[rank]
            for symbol, target, target_pos, _source, _number in self.synset("n", offset).pointers:
                if symbol not in ("@", "@i") or target_pos != "n":
                    continue
                for word in self.synset("n", target).words:
                    if word != head and word.isalpha() and word.islower():
                        found[word] = max(found.get(word, 0.0), _SYNONYM * factor)
        return found

    def heads(self) -> Iterable[tuple[str, str]]:
        for lemma in sorted(self.verb_index):
            if lemma.isalpha() or is_phrasal(lemma):
                yield lemma, "v"
        for lemma in sorted(self.noun_index):
            if lemma.isalpha() and any(
                self.nouns[o].lexfile in _NOUN_FILES for o in self.noun_index[lemma][:_SENSES]
            ):
                yield lemma, "n"


def is_phrasal(lemma: str) -> bool:
    """Whether a WordNet lemma is a phrasal verb: a word and one or two particles.

    >>> is_phrasal("dig_up"), is_phrasal("come_up_with"), is_phrasal("take_care")
    (True, True, False)
    """
    first, *rest = lemma.split("_")
    return first.isalpha() and 1 <= len(rest) <= 2 and all(p in PARTICLES for p in rest)


def parse_line(line: str) -> tuple[str, str, list[tuple[str, int, str]]]:
    r"""One line of the file as ``(head, pos, [(word, strength, role), ...])``.

    For an ``x`` line (an irregular form) the list holds its lemma alone, strength 100.

    >>> parse_line("tend\tv\tlook_after:72:s tender:64:a")
    ('tend', 'v', [('look after', 72, 's'), ('tender', 64, 'a')])
    >>> parse_line("grown\tx\tgrow")
    ('grown', 'x', [('grow', 100, 'v')])
    """
    head, pos, rest = line.rstrip("\n").split("\t")
    if pos == "x":
        return head, pos, [(rest, 100, "v")]
    entries = []
    for entry in rest.split():
        word, strength, role = entry.rsplit(":", 2)
        entries.append((word.replace("_", " "), int(strength), role))
    return head, pos, entries


def build(root: Path) -> bytes:
    """The file's bytes, built from the WordNet dict directory ``root``."""
    wordnet = _WordNet(root)
    out = io.StringIO()
    out.write(f"# {FORMAT}: relation words derived from WordNet 3.0 by graphmem.tools.relwords\n")
    out.write("# WordNet 3.0 Copyright 2006 by Princeton University; see WORDNET-LICENSE\n")
    table = {(head, pos): wordnet.related(head, pos) for head, pos in wordnet.heads()}
    # Verbs related both ways: "cultivate" is a sense of "grow" too far down its list to be
    # read from "grow", but "grow" is near the top of "cultivate"'s. (Not nouns: a noun
    # lends its hyponyms nothing.)
    for (head, pos), related in list(table.items()):
        if pos != "v" or "_" in head:  # a phrase lends the single words nothing back
            continue
        for (word, role), strength in related.items():
            back = table.get((word, pos))
            if role == "s" and back is not None:
                back[(head, "s")] = max(back.get((head, "s"), 0.0), strength)
    kept: set[tuple[str, str]] = set()
    for (head, pos), related in sorted(table.items()):
        if not related:
            continue
        if "_" in head:  # a phrase's own single verbs only: what it says in one word
            related = {k: v for k, v in related.items() if k[1] == "s" and "_" not in k[0]}
            if not related:
                continue
        limit = _MAX_PHRASE_WORDS if "_" in head else _MAX_WORDS
        ranked = sorted(related.items(), key=lambda item: (-item[1], item[0]))[:limit]
        entries = " ".join(f"{word}:{round(100 * s)}:{role}" for (word, role), s in ranked)
        out.write(f"{head}\t{pos}\t{entries}\n")
        kept.add((head, pos))
    for phrase, verbs in sorted(wordnet.defined().items()):
        if not verbs:
            continue
        ranked_verbs = sorted(verbs.items(), key=lambda item: (-item[1], item[0]))
        entries = " ".join(f"{w}:{round(100 * s)}:s" for w, s in ranked_verbs[:_MAX_PHRASE_WORDS])
        out.write(f"{phrase}\tg\t{entries}\n")
    for head, pos in sorted(kept):
        kinds = wordnet.kinds(head) if pos == "n" else {}
        if kinds:
            ranked_kinds = sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
            entries = " ".join(f"{w}:{round(100 * s)}:n" for w, s in ranked_kinds[:_MAX_WORDS])
            out.write(f"{head}\th\t{entries}\n")
    lemmas = {h for h, _pos in kept}
    forms = {**wordnet.noun_forms, **wordnet.verb_forms}
    for form in sorted(forms):
        if forms[form] in lemmas and form not in lemmas:
            out.write(f"{form}\tx\t{forms[form]}\n")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as gz:
        gz.write(out.getvalue().encode("utf-8"))
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> None:
    """Write the file (``python -m graphmem.tools.relwords DICT_DIR -o OUT``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("dict_dir", type=Path, help="a WordNet 3.0 dict directory")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    data = build(args.dict_dir)
    args.output.write_bytes(data)
    print(f"wrote {args.output} ({len(data):,} bytes)")


if __name__ == "__main__":
    main()
