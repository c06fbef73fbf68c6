r"""Build ``graphmem/retrieval/graphqa/nounkinds.tsv.gz``: what kind of thing each noun names.

"Who ...?" asks for a person (or a group of them: "who sponsors the club?"), "where ...?"
for a place. Whether an entity type's name (``keeper``, ``team``, ``harbour``, ``contract``)
names such a thing is read from WordNet 3.0's lexicographer files (``noun.person``,
``noun.group``, ``noun.location``, ...), by :mod:`graphmem.retrieval.graphqa.kinds`,
with no network and no hand-written list.

Run it (deterministic: the same dictionary gives the same bytes)::

    python -m graphmem.tools.nounkinds /usr/share/wordnet \\
        -o graphmem/retrieval/graphqa/nounkinds.tsv.gz

The input is a WordNet 3.0 ``dict`` directory (``index.noun``, ``data.noun``; Debian's
``wordnet-base``, as for :mod:`graphmem.tools.relwords`; its notice is
``graphmem/retrieval/graphqa/WORDNET-LICENSE``). The file is gzip'd UTF-8 text, one line
per single-word noun lemma, tab-separated: the lemma and one letter per sense, most
frequent sense first (at most :data:`graphmem.retrieval.graphqa.kinds.SENSES`), from
:data:`graphmem.retrieval.graphqa.kinds.LETTERS` (``p`` a person, ``g`` a group, ``l`` a
location, ``a`` an artifact, ``o`` a natural object, ``n`` an animal, ``t`` a time, ``e``
an event, ``x`` anything else)::

    # graphmem nounkinds 1 ...
    keeper	pp
"""

from __future__ import annotations

import argparse
import gzip
import io
from collections import Counter
from pathlib import Path

from graphmem.retrieval.graphqa.kinds import FORMAT, LETTERS, SENSES
from graphmem.tools.relwords import _read_data, _read_index

__all__ = ["build", "main"]


_TOPS = 3  # noun.Tops: "person", "animal", "location" themselves


def _lexfiles(path: Path) -> dict[int, int]:
    """Each noun synset's offset and lexicographer file number (``data.noun``).

    A synset of ``noun.Tops`` ("person", "group", "event") takes the file more than half
    of its direct hyponyms are in (a person's hyponyms are ``noun.person``), read again
    until no Tops synset changes (a Tops hyponym of a Tops synset counts once it is
    resolved); one with no such file ("entity", "thing") stays an abstraction.
    """
    synsets = _read_data(path)
    files = {offset: synset.lexfile for offset, synset in synsets.items()}
    hyponyms = {
        offset: [target for symbol, target, *_ in synset.pointers if symbol == "~"]
        for offset, synset in synsets.items()
    }
    tops = sorted(o for o, f in files.items() if f == _TOPS)
    changed = True
    while changed:
        changed = False
        for offset in tops:
            counts = Counter(files[h] for h in hyponyms[offset] if files.get(h, _TOPS) != _TOPS)
            if not counts:
                continue
            lexfile = min(counts, key=lambda f: (-counts[f], f))
            if 2 * counts[lexfile] <= len(hyponyms[offset]):
                continue  # no file holds most of them ("entity", "thing"): an abstraction
            if files[offset] != lexfile:
                files[offset] = lexfile
                changed = True
    return files


def build(root: Path) -> bytes:
    """The file's bytes, read from the WordNet ``dict`` directory ``root``."""
    files = _lexfiles(root / "data.noun")
    out = io.StringIO()
    out.write(f"{FORMAT} (WordNet 3.0 lexicographer files of nouns; see WORDNET-LICENSE)\n")
    for lemma, offsets in _read_index(root / "index.noun").items():
        if lemma.isalpha() and lemma.isascii():
            letters = "".join(LETTERS.get(files[o], "x") for o in offsets[:SENSES])
            out.write(f"{lemma}\t{letters}\n")
    return gzip.compress(out.getvalue().encode("utf-8"), compresslevel=9, mtime=0)


def main(argv: list[str] | None = None) -> None:
    """``python -m graphmem.tools.nounkinds DICT -o FILE``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dict", type=Path, help="a WordNet 3.0 dict directory")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    args.output.write_bytes(build(args.dict))


if __name__ == "__main__":
    main()
