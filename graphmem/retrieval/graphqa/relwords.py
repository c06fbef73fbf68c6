"""The relation words of WordNet: which question words name what a type name's word names.

Part of :mod:`graphmem.retrieval.graphqa`. ``relwords.tsv.gz`` (beside this module, built
once from WordNet 3.0 by :mod:`graphmem.tools.relwords`; WordNet's notice is
``WORDNET-LICENSE``) gives, for each English verb and each noun of a person or a
relation, the words of the same relation with a graded strength: synonyms most, then
derived words ("employ" -> "employer", "employee"; "owner" -> "own"), then hypernyms and
hyponyms ("tend" -> "look", "garden"; "grow" -> "cultivate"), each later sense less.

The file is read on the first question of a process (about 50 ms), never at import.

>>> [(w, s, r) for w, s, r in related("employs") if w in ("hire", "employee", "employer")]
[('hire', 0.9, 's'), ('employee', 0.72, 'p'), ('employer', 0.72, 'a')]
>>> lemmas("grown"), lemmas("owners"), lemmas("tends")
([('grow', 'v')], [('owner', 'n')], [('tend', 'v')])
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

__all__ = [
    "DATA",
    "FORMAT",
    "PARTICLES",
    "defined",
    "kinds_of",
    "lemmas",
    "phrasal",
    "related",
    "verb_of_form",
]

DATA = "relwords.tsv.gz"
"""The data file's name, inside this package."""

FORMAT = "graphmem relwords 1"
"""The first line of the data file names its format (:mod:`graphmem.tools.relwords` writes it)."""
PARTICLES = frozenset(
    ("up", "out", "off", "down", "over", "away", "back", "around", "about", "after", "in")
    + ("on", "to", "with", "for", "from", "of", "into", "onto", "through", "along", "across")
    + ("by", "upon", "at", "against")
)
"""The particles and prepositions of the phrasal verbs the file has ("dig *up*"); the
generator (:mod:`graphmem.tools.relwords`) keeps the multi-word lemmas made of these."""
# WordNet's rules for the regular forms (its "morphy"), past its list of irregular ones.
_VERB_RULES = (
    ("ies", "y"),
    ("es", "e"),
    ("es", ""),
    ("s", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
)
_NOUN_RULES = (
    ("ies", "y"),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("s", ""),
)


def data_lines(name: str, header: str, builder: str) -> list[str]:
    """The lines of a gzip'd data file of this package after its header line.

    The header line must start with ``header`` as a whole ("… 1" and "… 1: …", not "… 12").

    Raises:
        ValueError: The file is in another format (rebuild it with ``builder``).
    """
    raw = resources.files("graphmem.retrieval.graphqa").joinpath(name).read_bytes()
    lines = gzip.decompress(raw).decode("utf-8").splitlines()
    if (
        not lines
        or not lines[0].startswith(header)
        or lines[0][len(header) :][:1] not in ("", " ", ":")
    ):
        raise ValueError(f"{name} is not a '{header}' file (rebuild: {builder})")
    return lines[1:]


@lru_cache(maxsize=1)
def _table() -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """``({(head, pos): its entries, unparsed}, {irregular form: lemma})``."""
    entries: dict[tuple[str, str], str] = {}
    forms: dict[str, str] = {}
    for line in data_lines(DATA, f"# {FORMAT}", "graphmem.tools.relwords"):
        if line.startswith("#"):
            continue
        head, pos, rest = line.split("\t")
        if pos == "x":
            forms[head] = rest
        else:
            entries[(head, pos)] = rest
    return entries, forms


def lemmas(word: str) -> list[tuple[str, str]]:
    """The heads of the file a word may be a form of, as ``(lemma, "v" | "n")``.

    A bare word that is a noun of a person or relation is that noun only ("boss", not
    the verb "to boss": emboss); a form with a verb's ending is a verb (or a plural noun).
    """
    entries, forms = _table()
    word = word.lower()
    if (word, "n") in entries:
        return [(word, "n")]
    found: dict[tuple[str, str], None] = {}
    if (word, "v") in entries:
        found[(word, "v")] = None
    if word in forms:
        lemma = forms[word]
        for pos in ("v", "n"):
            if (lemma, pos) in entries:
                found[(lemma, pos)] = None
    for pos, rules in (("v", _VERB_RULES), ("n", _NOUN_RULES)):
        for suffix, replacement in rules:
            if word.endswith(suffix) and len(word) > len(suffix) + 1:
                lemma = word[: len(word) - len(suffix)] + replacement
                if (lemma, pos) in entries:
                    found[(lemma, pos)] = None
                    break
    return list(found)


@lru_cache(maxsize=1)
def _verb_forms() -> dict[str, str]:
    entries, forms = _table()
    return {
        form: lemma
        for form, lemma in forms.items()
        if (lemma, "v") in entries and not form.endswith("s") and (form, "v") not in entries
    }


def is_verb(word: str) -> bool:
    """Whether WordNet has ``word`` as a verb's own form ("succeed"; not "agreed").

    >>> is_verb("succeed"), is_verb("agreed")
    (True, False)
    """
    return (word.lower(), "v") in _table()[0]


def verb_of_form(word: str) -> str | None:
    """The verb an irregular form is of, from WordNet's list of them ("sworn": swear).

    Forms ending in "s" are left out ("leaves" is the plural of leaf as often as a verb),
    and so are forms that are verbs of their own.

    >>> verb_of_form("sworn"), verb_of_form("swore"), verb_of_form("leaves"), verb_of_form("owner")
    ('swear', 'swear', None, None)
    """
    return _verb_forms().get(word.lower())


@lru_cache(maxsize=4096)
def _parsed(head: str, pos: str) -> tuple[tuple[str, float, str], ...]:
    entries, _forms = _table()
    out = []
    for entry in entries.get((head, pos), "").split():
        word, strength, role = entry.rsplit(":", 2)
        out.append((word.replace("_", " "), int(strength) / 100, role))
    return tuple(out)


def related(word: str) -> list[tuple[str, float, str]]:
    """The words WordNet relates to ``word`` (any form), as ``(word, strength, role)``.

    ``strength`` is in (0, 1); ``role`` is, of a verb, ``s`` (another verb), ``a`` (a
    noun of the one who does it: "employer") or ``p`` (of the one it is done to:
    "employee"); of a noun, ``n`` (another noun of the one it names: "proprietor" of
    owner) or ``v`` (a verb it is the doer or object of: "own"). Each word once, at its
    greatest strength; a phrase's words are joined by spaces.
    """
    best: dict[tuple[str, str], float] = {}
    for head, pos in lemmas(word):
        for other, strength, role in _parsed(head, pos):
            # a noun head's words: nouns of its role ("n"), the verbs it names ("v")
            key = (other, role if pos == "v" else ("n" if role == "s" else "v"))
            best[key] = max(best.get(key, 0.0), strength)
    ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
    return [(w, s, r) for (w, r), s in ranked]


@lru_cache(maxsize=4096)
def kinds_of(word: str) -> tuple[tuple[str, float], ...]:
    """The nouns a noun of a person or relation (any form) is a kind of, with strength.

    WordNet's hypernyms of its senses ("backer": patron, sponsor, supporter), best first;
    a question's noun reaches a type through them, a type's own words never do.

    >>> [w for w, _s in kinds_of("backers")]
    ['patron', 'sponsor', 'supporter']
    """
    entries, _forms = _table()
    best: dict[str, float] = {}
    for head, pos in lemmas(word):
        if pos != "n" or (head, "h") not in entries:
            continue
        for entry in entries[(head, "h")].split():
            other, strength, _role = entry.rsplit(":", 2)
            best[other] = max(best.get(other, 0.0), int(strength) / 100)
    return tuple(sorted(best.items(), key=lambda item: (-item[1], item[0])))


def phrasal(words: Sequence[str]) -> tuple[int, list[tuple[str, float]]]:
    """The phrasal verb ``words`` start with, as its length and its single verbs.

    ``words`` are a question's words from a verb on ("dug", "up", "the", ...); the verb
    in any form, then one or two particles (:data:`PARTICLES`) right after it. The
    longest phrase WordNet has wins; ``(0, [])`` when there is none.

    >>> n, verbs = phrasal(["dug", "up", "the", "dagger"])
    >>> n, [w for w, _s in verbs][:3]
    (2, ['excavate', 'dig', 'locate'])
    >>> phrasal(["dug", "the", "dagger"])
    (0, [])
    """
    if len(words) < 2 or words[1].lower() not in PARTICLES:
        return 0, []
    heads = [h for h, pos in lemmas(words[0]) if pos == "v"]
    return _longest(words, heads, "v", particles_only=True)


def defined(words: Sequence[str]) -> tuple[int, list[tuple[str, float]]]:
    """The short definition ``words`` start with, as its length and the verbs it defines.

    WordNet defines some verbs in two or three words with a particle ("direct", "head",
    "lead": "be in charge of"; "derive": "come from"); the file keeps those phrases (a
    leading "be" left out) as heads of their own. The first word may be in any form.

    >>> n, verbs = defined(["in", "charge", "of", "the", "mill"])
    >>> n, sorted(w for w, _s in verbs)
    (3, ['direct', 'head', 'lead'])
    >>> defined(["charge", "the", "mill"])
    (0, [])
    >>> n, verbs = defined(["in", "charge", "at", "the", "mill"])
    >>> n, sorted(w for w, _s in verbs)
    (2, ['direct', 'head', 'lead'])
    """
    if len(words) < 2:
        return 0, []
    first = words[0].lower()
    starts = [first] + [h for h, pos in lemmas(first) if pos == "v" and h != first]
    found = _longest(words, starts, "g", particles_only=False)
    if found[0]:
        return found
    # a phrase said with another last particle, or none ("who is *in charge* at the
    # mill?" of "in charge of"): its first two words, when they are a phrase's only start
    second = words[1].lower()
    heads = {h for start in starts for h in _particle_ends().get((start, second), ())}
    if len(heads) != 1:
        return 0, []
    return 2, [(w, s) for w, s, _role in _parsed(heads.pop(), "g")]


@lru_cache(maxsize=1)
def _particle_ends() -> dict[tuple[str, str], tuple[str, ...]]:
    """The defining phrases of three words whose last is a particle, by their first two."""
    entries, _forms = _table()
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for head, pos in entries:
        parts = head.split("_")
        if pos == "g" and len(parts) == 3 and parts[2] in PARTICLES:
            out[(parts[0], parts[1])] = (*out.get((parts[0], parts[1]), ()), head)
    return out


def _longest(
    words: Sequence[str], starts: Sequence[str], pos: str, *, particles_only: bool
) -> tuple[int, list[tuple[str, float]]]:
    """The longest head (three words, then two) that a start and the words after make.

    Each of ``starts`` (forms of the first word) with the next one or two words, as a head
    of part of speech ``pos``; ``particles_only``: those words must be particles. Its
    length and its words, or ``(0, [])``.
    """
    entries, _forms = _table()
    for length in (3, 2):
        rest = [w.lower() for w in words[1:length]]
        if len(words) < length or (particles_only and any(w not in PARTICLES for w in rest)):
            continue
        tail = "_".join(rest)
        for start in starts:
            if (f"{start}_{tail}", pos) in entries:
                return length, [(w, s) for w, s, _role in _parsed(f"{start}_{tail}", pos)]
    return 0, []
