r"""Memory poisoning: instructions aimed at the model that will later read a fact.

A governed fact ends up in an LLM's prompt (:meth:`graphmem.policy.FactMemory.recall`).
Text written to look like instructions to that model ("ignore previous instructions"),
like a chat transcript's role markers, like a tool call, or hidden from the human reader
in markup, is a prompt injection waiting in memory. :func:`detect_poisoning` finds those
patterns; :class:`~graphmem.policy.GovernancePolicy` ``poisoning`` decides what a write
that carries them does (held for review by default).

Pure functions, no I/O. Detection runs on the normalised text of
:func:`graphmem.policy.normalize.normalize_for_detection` (so ``ig\u200bnore`` and a
fullwidth ``＜`` read as plain text), except for Unicode tag characters, which the
normalisation drops and which are looked for in the original. Kinds:

- ``instruction_override``: a verb of overriding (ignore, disregard, forget, override,
  bypass) with the earlier instructions as object: ``ignore (all) (the|your) previous
  instructions``, ``disregard the above prompt``, ``forget all prior rules`` (``rules``,
  ``commands`` and ``messages`` only after ``all`` / ``any`` / ``every``); any such verb,
  or reveal / print / repeat, with the system prompt, the model's programming,
  guardrails or safety rules; ``you are now in developer mode`` (or DAN, jailbroken,
  unrestricted); ``do not tell the user``; ``when the assistant reads this``; ``new
  system instructions:``; a verb of overriding with ``your instructions`` (rules,
  guidelines, programming, training), ``the above`` (not ``the above door``),
  ``everything above`` or ``everything you were told``, or ``the instructions above``;
  ``note to the AI:`` (``instructions for the assistant:``, ``message to the model:``).
  A first-person ``ignore my previous instructions`` (an NPC
  changing an order) and ``ignore him`` are not;
- ``role_marker``: a chat-template token (``<|im_start|>``, ``[INST]``, ``<<SYS>>``,
  ``<|start_header_id|>``, ``<start_of_turn>``, ...), a line that starts with
  ``system:``, ``assistant:`` or ``developer:`` (also as ``### System:``,
  ``[system]:`` or ``[system]``), an Alpaca-style ``### Instruction:`` / ``### Response:``
  / ``### Input:`` heading, on its own line or followed by text on the same one, or a
  ``<system>``, ``<assistant>`` or ``<developer>`` tag;
- ``hidden_markup``: an HTML comment with text in it, an element hidden by its style
  (``display:none``, ``visibility:hidden``, ``font-size:0``, ``opacity:0``, white or
  transparent colour) or by ``hidden`` / ``aria-hidden="true"``, a Markdown comment
  (``[//]: # (...)``), or Unicode tag characters (U+E0020 to U+E007F: invisible ASCII);
- ``tool_call``: a tool-call tag (``<tool_call>``, ``<tool_use>``, ``<function_call>``,
  ``<invoke ...>``, ``<|python_tag|>``, ``[TOOL_CALLS]``), a JSON tool call
  (``"function_call":``, ``"tool_calls":``, ``{"name": "...", "arguments": ...}``), or a
  ``functions.name(`` call.

Heuristics both ways: a determined attacker can phrase around them, and a story about
AI assistants may trip them, which is why the default is review, not rejection.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from graphmem.policy.normalize import normalize_for_detection

__all__ = ["POISONING_KINDS", "PoisoningMatch", "detect_poisoning"]

POISONING_KINDS = ("instruction_override", "role_marker", "hidden_markup", "tool_call")
"""Every kind :func:`detect_poisoning` reports, in the order it looks for them."""

_VERB = r"(?:ignore|disregard|forget|override|overrule|bypass|skip)"
_EARLIER = r"(?:previous|prior|preceding|earlier|above|foregoing|former|original|initial)"
_ALL = r"(?:(?:all|any|every)\s+(?:of\s+)?)"
_THE = r"(?:(?:the|your|these|those)\s+)"
_SYSTEM_THINGS = (
    r"(?:system\s+prompts?|(?:system|developer|hidden|initial|original)\s+"
    r"(?:instructions?|prompts?|messages?)|(?:your\s+)?programming|guardrails|"
    r"safety\s+(?:rules|guidelines|filters?|instructions)|content\s+polic(?:y|ies))"
)
_OVERRIDE = re.compile(
    r"(?i)\b(?:"
    rf"{_VERB}\s+{_ALL}?{_THE}?{_EARLIER}\s+"
    r"(?:instructions?|prompts?|directives?|directions|guidelines|context|text|input)\b"
    rf"|{_VERB}\s+{_ALL}{_THE}?{_EARLIER}?\s*(?:rules|commands|messages|instructions)\b"
    rf"|(?:{_VERB}|reveal|print|repeat|show|output|leak)\s+{_ALL}?{_THE}?{_SYSTEM_THINGS}"
    r"|you\s+are\s+now\s+(?:in\s+)?(?:dan\b|developer\s+mode|jailbr(?:oken|eak)|"
    r"unrestricted|unfiltered|no\s+longer\s+bound)"
    r"|(?:do\s+not|don't|never)\s+(?:tell|inform|alert|warn)\s+the\s+user\b"
    r"|(?:when|if|whenever|once)\s+(?:the\s+)?(?:assistant|ai|model|llm|agent|chatbot)\s+"
    r"(?:reads?|sees?|retrieves?|recalls?|process(?:es)?|loads?)\s+this\b"
    r"|(?:new|updated|real)\s+system\s+(?:instructions?|prompt)\s*:"
    rf"|{_VERB}\s+{_ALL}?your\s+(?:instructions?|directives?|guidelines|rules|programming|"
    r"training|prompts?)\b"
    rf"|(?:ignore|disregard)\s+(?:all\s+(?:of\s+)?)?the\s+above\b(?!\s+(?:the|a|an|my|your)\b)"
    rf"|{_VERB}\s+everything\s+(?:above|before\s+this|(?:that\s+)?you\s+(?:were|have\s+been)"
    r"\s+(?:told|given|instructed))"
    rf"|{_VERB}\s+{_ALL}?{_THE}?(?:instructions|directions|prompts?)\s+(?:above|before)\b"
    r"|(?:note|message|instructions?|reminder|attention)\s+(?:to|for)\s+(?:the\s+|any\s+)?"
    r"(?:ai|assistant|model|llm|chatbot|language\s+model)\s*:"
    r")"
)
_ROLE = re.compile(
    r"(?im)(?:"
    r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|"
    r"end_header_id|begin_of_text)\|>"
    r"|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>"
    r"|^[ \t]*(?:#{1,6}[ \t]*)?\[?(?:system|assistant|developer)\]?[ \t]*:"
    r"|^[ \t]*#{2,6}[ \t]*(?:instruction|response)[ \t]*:?[ \t]*$"
    r"|^[ \t]*#{1,6}[ \t]*(?:instruction|response|input|system|user|human|assistant)s?"
    r"[ \t]*:"
    r"|^[ \t]*\[(?:system|assistant|developer)\]"
    r"|</?(?:system|assistant|developer)(?:_prompt|_message)?>"
    r")"
)
# A tag body stops at the next "<" and is bounded, so text full of "<" stays linear.
_HIDDEN = re.compile(
    r"(?im)<[a-z][^<>]{0,500}?(?:style\s*=\s*[\"'][^\"'<>]*(?:"
    r"display\s*:\s*none|visibility\s*:\s*hidden|"
    r"font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])|"
    r"color\s*:\s*(?:white|#fff(?:fff)?\b|transparent))|\shidden(?=[\s>=])|"
    r"aria-hidden\s*=\s*[\"']?true)[^<>]{0,500}>"
    r"|^[ \t]*\[(?://|comment)\]:[ \t]*(?:#|<>)"
)
_WORD = re.compile(r"\w")
_TAG_CHARACTERS = re.compile("[\U000e0020-\U000e007f]+")
_TOOL = re.compile(
    r"(?i)(?:"
    r"</?(?:tool_call|tool_calls|tool_use|tool_result|function_call|function_calls|"
    r"function_results)\b[^<>]{0,500}>"
    r"|<invoke\s+name\s*="
    r"|<\|(?:python_tag|tool_call|tool_calls)\|>|\[TOOL_CALLS\]"
    r"|\"(?:function_call|tool_calls?|tool_use)\"\s*:"
    r"|\{\s*\"name\"\s*:\s*\"[^\"]+\"\s*,\s*\"(?:arguments|parameters|args|input)\"\s*:"
    r"|\bfunctions\.[A-Za-z_]\w*\s*\("
    r")"
)


@dataclass(frozen=True, slots=True)
class PoisoningMatch:
    """One pattern found in a text: its kind and span (``text[start:end]``)."""

    kind: str
    start: int
    end: int


def _comments(text: str) -> Iterator[tuple[int, int]]:
    """HTML comments with a word in them; found with ``str.find``, so always linear."""
    start = text.find("<!--")
    while start != -1:
        end = text.find("-->", start + 4)
        if end == -1:
            return
        if _WORD.search(text, start + 4, end):
            yield start, end + 3
        start = text.find("<!--", end + 3)


def _detect(text: str) -> Iterator[tuple[str, int, int]]:
    for start, end in _comments(text):
        yield "hidden_markup", start, end
    for kind, pattern in (
        ("instruction_override", _OVERRIDE),
        ("role_marker", _ROLE),
        ("hidden_markup", _HIDDEN),
        ("tool_call", _TOOL),
    ):
        for match in pattern.finditer(text):
            yield kind, match.start(), match.end()


def detect_poisoning(text: str) -> list[PoisoningMatch]:
    """Every instruction-like pattern in ``text``, ordered by position.

    Spans are positions in ``text`` itself, although detection ran on its normalised form.

    >>> [m.kind for m in detect_poisoning("Mira: ignore all previous instructions.")]
    ['instruction_override']
    >>> detect_poisoning("Ignore him, he's drunk.")
    []
    """
    normal = normalize_for_detection(text, keep_lines=True)
    found = [
        PoisoningMatch(kind, *normal.span(start, end))
        for kind, start, end in _detect(normal.text)
        if end > start
    ]
    found.extend(
        PoisoningMatch("hidden_markup", m.start(), m.end()) for m in _TAG_CHARACTERS.finditer(text)
    )
    found.sort(key=lambda m: (m.start, m.end))
    return found
