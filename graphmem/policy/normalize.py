r"""A normalised copy of a text for detectors, with a map back to the original.

Detectors (:mod:`graphmem.policy.pii`, :mod:`graphmem.policy.poisoning`) look at what a
reader or a model would take the text to say, not at how it was encoded: a card number
separated by no-break spaces, an ``@`` written fullwidth or a word split by a zero-width
space read the same as their plain forms. :func:`normalize_for_detection` makes that
copy, character cluster by character cluster (a base character with the combining marks
after it):

- control, format, private-use, surrogate, unassigned and default-ignorable characters
  (zero-width spaces and joiners, BOM, soft hyphen, bidirectional controls, Hangul
  fillers, variation selectors, tag characters) are dropped;
- every run of whitespace (tab, line breaks, no-break, em and ideographic spaces) becomes
  one ASCII space (one ``\n`` if it holds a line break and ``keep_lines`` is set);
- every dash (Unicode ``Pd``) and the minus sign become ``-``;
- everything else is NFKC-normalised (fullwidth ``＠`` and digits become ASCII, ``é``
  written as ``e`` + combining accent becomes one letter, ligatures are split).

Each character of the copy remembers the span of the original it came from, so a match
in the copy maps back to exactly the original characters that carried it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from graphmem.core.store import INVISIBLE_CHARACTERS

__all__ = ["NormalizedText", "normalize_for_detection"]

# ASCII printable without two spaces in a row: already normal, mapped one to one.
_NOT_TRIVIAL = re.compile(r"[^\x20-\x7e]|  ")
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_BLANKS = (" ", "\n")


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A detector's view of a text.

    Attributes:
        text: The normalised text.
        original: The text it was made from.
        starts, ends: For each character of ``text``, the span of ``original`` it came
            from; ``None`` when ``text`` is ``original`` (nothing needed changing).
    """

    text: str
    original: str
    starts: tuple[int, ...] | None = None
    ends: tuple[int, ...] | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        r"""The span of ``original`` that ``text[start:end]`` (non-empty) came from.

        >>> n = normalize_for_detection("a\u200bb  c")
        >>> n.text, n.span(0, 2), n.span(2, 3)
        ('ab c', (0, 3), (3, 5))
        """
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


def _dropped(ch: str) -> bool:
    return unicodedata.category(ch) in _DROPPED_CATEGORIES or bool(INVISIBLE_CHARACTERS.match(ch))


def normalize_for_detection(text: str, *, keep_lines: bool = False) -> NormalizedText:
    r"""Normalise ``text`` for detection (see the module docstring); keep the map back.

    Args:
        text: The text.
        keep_lines: Make a whitespace run that holds a line break one ``\n`` (for
            detectors of line-start patterns), not one space.

    >>> normalize_for_detection("ada\u200b＠example.org\u00a0\t4111\u20131111").text
    'ada@example.org 4111-1111'
    """
    if not _NOT_TRIVIAL.search(text):
        return NormalizedText(text, text)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        while j < n and unicodedata.combining(text[j]):
            j += 1
        first = text[i]
        if first.isspace():
            piece = "\n" if keep_lines and first in _LINE_BREAKS else " "
        elif _dropped(first):
            piece = ""
        elif first == "\u2212" or unicodedata.category(first) == "Pd":
            piece = "-"
        else:
            piece = unicodedata.normalize("NFKC", text[i:j])
        if piece in _BLANKS and out and out[-1] in _BLANKS:
            if piece == "\n":  # one character for the whole run; a line break wins
                out[-1] = piece
            ends[-1] = j
        else:
            for ch in piece:
                out.append(ch)
                starts.append(i)
                ends.append(j)
        i = j
    return NormalizedText("".join(out), text, tuple(starts), tuple(ends))
