"""Deterministic one-line turn summaries, without an LLM: :func:`summarize_turn`.

The same text always gives the same summary, on every machine, so summaries can be made
once when a turn is appended and stored beside it (``Turn.summary``); they are never
made again (a restored conversation-memory snapshot brings its lines back verbatim).
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from graphmem.core.errors import InvalidInput

if TYPE_CHECKING:
    from graphmem.core.models import Trajectory

__all__ = ["CODE_PLACEHOLDER", "summarize_trajectory", "summarize_turn"]

CODE_PLACEHOLDER = "[code]"
"""What a turn that is nothing but code is summarised as (never an empty summary)."""

# A closed fenced block: ``` or ~~~ (three or more) up to a closing fence of the same kind.
_FENCED = re.compile(
    r"(?ms)^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n.*?^[ \t]*(?P=fence)[`~]*[ \t]*$\n?"
)
# An opening fence left unclosed: the marker and its info string (a language tag) go.
_UNCLOSED_FENCE = re.compile(r"(?m)^[ \t]*(?:`{3,}|~{3,})[^\s`]*[ \t]*")
_INLINE_CODE = re.compile(r"(`+)(?P<code>.+?)\1", re.S)
_IMAGE = re.compile(r"!\[(?P<text>[^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<(?P<url>(?:https?|mailto):[^>\s]+)>")
_HEADING = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+(?P<text>.*?)[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r"(?m)^[ \t]*(?:=+|-+)[ \t]*$")
_RULE = re.compile(r"(?m)^[ \t]*(?:[-*_][ \t]*){3,}$")
_QUOTE = re.compile(r"(?m)^[ \t]*(?:>[ \t]?)+")
_BULLET = re.compile(r"(?m)^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(?P<text>.+?)(?<=\S)\1", re.S)
_STRIKE = re.compile(r"~~(?=\S)(?P<text>.+?)(?<=\S)~~", re.S)
_ITALIC_STAR = re.compile(r"(?<![\w*])\*(?=\S)(?P<text>[^*]+?)(?<=\S)\*(?![\w*])")
# _italic_ only at word edges, so snake_case_names keep their underscores.
_ITALIC_UNDERSCORE = re.compile(r"(?<![\w_])_(?=\S)(?P<text>[^_]+?)(?<=\S)_(?![\w_])")
_WHITESPACE = re.compile(r"\s+")

# Leading filler: pleasantries and announcements that carry no content.
_FILLER_WORDS = (
    r"sure(?: thing)?|of course|certainly|absolutely|okay|ok|alright|all right|"
    r"great question|good question|no problem|no worries|thanks|thank you|"
    r"hello|hi|hey|got it|understood|gladly|happy to help|"
    r"i'?d be (?:happy|glad) to help(?: you)?(?: with that| with this)?|"
    r"i can help(?: you)?(?: with that| with this)?|"
    r"i'?ll help(?: you)?(?: with that| with this)?|let me help(?: you)?(?: with that)?|"
    r"let me (?:explain|check|see|take a look|look into (?:it|that|this))|"
    r"here(?:'s| is) (?:what i found|the answer|how|an? (?:answer|explanation|summary))"
)
_FILLER = re.compile(
    rf"^(?:(?:{_FILLER_WORDS})\s*(?:[,.!:;]+|\s[-\u2013\u2014]+)\s*)+",
    re.IGNORECASE,
)
_SUBSTANTIVE = re.compile(r"\w{2,}")

# Abbreviations whose final dot does not end a sentence (compared case-insensitively).
_ABBREVIATIONS = frozenset(
    {
        "e.g.",
        "i.e.",
        "cf.",
        "vs.",
        "etc.",
        "approx.",
        "mr.",
        "mrs.",
        "ms.",
        "dr.",
        "st.",
        "no.",
        "fig.",
        "jr.",
        "sr.",
        "inc.",
        "ltd.",
        "a.m.",
        "p.m.",
        "u.s.",
    }
)
_SENTENCE_END = re.compile(r"[.!?\u2026\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*")
_WORD_BOUNDARY_SHARE = 0.6
"""A word-boundary cut must keep at least this share of ``max_chars``, else cut hard."""

_ZWJ = "\u200d"


def summarize_turn(text: str, max_chars: int = 200) -> str:
    r"""Summarise one conversation turn as one plain line of at most ``max_chars`` characters.

    The steps, in order:

    1. Fenced code blocks (```` ``` ```` or ``~~~``) are removed; text that was nothing but
       code becomes ``[code]`` (never an empty summary). An unclosed fence loses its
       marker and language tag; the text after it stays.
    2. Inline code is unwrapped (```x``` -> ``x``); stray backticks are dropped.
    3. Markdown is stripped: headings, rules, bullets and numbers, quotes, bold, italic,
       strike-through; links and images keep their text.
    4. Whitespace is collapsed to single spaces.
    5. A leading filler clause ("Sure, I'll help with that.") is dropped, but only when
       substantive text (a word of two or more letters or digits) remains after it.
    6. If still too long, the text is cut at the last sentence end within the window,
       if that end falls at least halfway through it; else at the last word boundary
       in the last 40 % of the window; else hard at ``max_chars``. A dot inside a token
       ("v1.2", "node.js", "3.14") or closing a known abbreviation ("e.g.", "i.e.",
       "Dr.") is not a sentence end.

    The cut never splits a character: it works on code points and never separates a
    base character from its combining marks, a ZWJ emoji sequence, a variation selector
    or skin-tone modifier, or the two halves of a flag (``len`` counts code points).

    Args:
        text: The turn's content.
        max_chars: The longest summary, in characters (code points); positive.

    Raises:
        InvalidInput: ``text`` is not a string, or ``max_chars`` is not a positive integer.

    >>> summarize_turn("Sure, I'll help with that. The **forge** is by the [river](http://x).")
    'The forge is by the river.'
    >>> summarize_turn("```python\nprint('hi')\n```")
    '[code]'
    >>> summarize_turn("Use e.g. node.js v1.2 today. Then rest well.", max_chars=30)
    'Use e.g. node.js v1.2 today.'
    """
    if not isinstance(text, str):
        raise InvalidInput(f"summarize_turn takes text (a str), not {type(text).__name__}")
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars <= 0:
        raise InvalidInput(f"max_chars must be a positive integer, got {max_chars!r}")
    had_code = bool(_FENCED.search(text))
    plain = _FENCED.sub("\n", text)
    plain = _strip_markdown(plain)
    plain = _WHITESPACE.sub(" ", plain).strip()
    if not plain:
        if had_code:
            return CODE_PLACEHOLDER[:max_chars]
        return ""
    plain = _drop_filler(plain)
    if len(plain) <= max_chars:
        return plain
    return _cut(plain, max_chars)


def summarize_trajectory(trajectory: Trajectory, max_chars: int | None = 200) -> str:
    """Say in one plain line what an agent did for a turn: tools, observations, reasoning.

    Deterministic, like :func:`summarize_turn` (whose markdown stripping it applies to
    each part). ``max_chars=None`` keeps every word; otherwise the line is cut as
    :func:`summarize_turn` cuts. An empty trajectory gives ``""``.

    >>> from graphmem.core.models import ToolCall, Trajectory
    >>> summarize_trajectory(Trajectory(
    ...     tools=(ToolCall(name="search_lore", summary="the **Drowned Bell**"),),
    ...     observations="It rang in 1802.", reasoning="Give the year."))
    'used search_lore (the Drowned Bell); observed: It rang in 1802.; reasoned: Give the year.'
    """
    if max_chars is not None and (
        isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars <= 0
    ):
        raise InvalidInput(f"max_chars must be a positive integer or None, got {max_chars!r}")
    parts: list[str] = []
    if trajectory.tools:
        used = [
            f"{tool.name} ({_one_line(tool.summary)})" if tool.summary else tool.name
            for tool in trajectory.tools
        ]
        parts.append("used " + ", ".join(used))
    if trajectory.observations and trajectory.observations.strip():
        parts.append("observed: " + _one_line(trajectory.observations))
    if trajectory.reasoning and trajectory.reasoning.strip():
        parts.append("reasoned: " + _one_line(trajectory.reasoning))
    text = "; ".join(part for part in parts if part.strip())
    if max_chars is None or len(text) <= max_chars:
        return text
    return _cut(text, max_chars)


def _one_line(text: str) -> str:
    return _WHITESPACE.sub(" ", _strip_markdown(_FENCED.sub("\n", text))).strip()


def _strip_markdown(text: str) -> str:
    text = _UNCLOSED_FENCE.sub(" ", text)
    text = _INLINE_CODE.sub(lambda m: m.group("code").strip(), text)
    text = text.replace("`", "")
    text = _IMAGE.sub(lambda m: m.group("text"), text)
    text = _LINK.sub(lambda m: m.group("text"), text)
    text = _REF_LINK.sub(lambda m: m.group("text"), text)
    text = _AUTOLINK.sub(lambda m: m.group("url"), text)
    text = _RULE.sub(" ", text)
    text = _HEADING.sub(lambda m: m.group("text"), text)
    text = _SETEXT.sub(" ", text)
    text = _QUOTE.sub("", text)
    text = _BULLET.sub("", text)
    for pattern in (_BOLD, _STRIKE, _ITALIC_STAR, _ITALIC_UNDERSCORE):
        text = pattern.sub(lambda m: m.group("text"), text)
    return text


def _drop_filler(text: str) -> str:
    match = _FILLER.match(text)
    if match is None:
        return text
    rest = text[match.end() :].lstrip()
    if not _SUBSTANTIVE.search(rest):
        return text
    return rest[0].upper() + rest[1:] if rest[0].islower() else rest


def _is_sentence_end(text: str, start: int, end: int) -> bool:
    """Whether the punctuation ``text[start:end]`` ends a sentence."""
    if end < len(text) and not text[end].isspace():
        return False  # "v1.2", "node.js", "3.14", "e.g.x": punctuation inside a token
    if text[start] == ".":
        token_start = text.rfind(" ", 0, start) + 1
        token = text[token_start:end].lower().lstrip("(\"'")
        if token in _ABBREVIATIONS:
            return False
        word = token[:-1]
        if len(word) == 1 and word.isalpha():  # an initial: "J. R. R. Tolkien"
            return False
    return True


def _cut(text: str, max_chars: int) -> str:
    window = text[: max_chars + 1]  # one more, to see what follows the last kept character
    best = 0
    for match in _SENTENCE_END.finditer(window):
        end = match.end()
        if end > max_chars:
            break
        if _is_sentence_end(text, match.start(), end):
            best = end
    if best and best * 2 >= max_chars:
        return _safe_prefix(text, best).rstrip()
    space = window.rfind(" ", 0, max_chars + 1)
    if space > 0 and space >= max_chars * _WORD_BOUNDARY_SHARE:
        return _safe_prefix(text, space).rstrip(" ,;:-\u2013\u2014")
    return _safe_prefix(text, max_chars).rstrip()


def _extends_cluster(ch: str) -> bool:
    """Whether ``ch`` belongs to the character before it (it must not start a cut-off part)."""
    code = ord(ch)
    return (
        unicodedata.combining(ch) != 0
        or unicodedata.category(ch) in ("Mn", "Me", "Mc")
        or ch == _ZWJ
        or 0xFE00 <= code <= 0xFE0F  # variation selectors
        or 0x1F3FB <= code <= 0x1F3FF  # skin-tone modifiers
        or 0xE0020 <= code <= 0xE007F  # tag characters (subdivision flags)
        or code == 0x20E3  # combining enclosing keycap
    )


def _is_regional_indicator(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def _safe_prefix(text: str, cut: int) -> str:
    """``text[:cut]``, moved left so no user-perceived character is split."""
    cut = min(cut, len(text))
    original = cut
    while 0 < cut < len(text):
        if _extends_cluster(text[cut]) or text[cut - 1] == _ZWJ:
            cut -= 1
            continue
        if _is_regional_indicator(text[cut]) and _is_regional_indicator(text[cut - 1]):
            run = 0
            i = cut - 1
            while i >= 0 and _is_regional_indicator(text[i]):
                run += 1
                i -= 1
            if run % 2 == 1:  # text[cut - 1] is the first half of a flag
                cut -= 1
                continue
        break
    if cut == 0:  # one cluster longer than the whole budget: cut between code points
        return text[:original]
    return text[:cut]
