"""Sanitising a governed write: privacy tags, personal data, model-directed instructions.

Pure functions, run before anything is read or written. :func:`sanitise` takes the
parts of a fact (subject, relation, value) and, for each in turn:

1. removes ``<private>...</private>`` sections and ``<classified:tier_N>`` tags
   (:func:`strip_privacy_tags`; the highest ``N`` is kept as the fact's tier);
2. looks for instructions aimed at the model that will read the fact
   (:mod:`graphmem.policy.poisoning`), unless the policy turns that off;
3. looks for personal data (:mod:`graphmem.policy.pii`): with ``pii="reject"`` it raises
   ``PIIDetected``, with ``"redact"`` it replaces each piece with ``[<kind>]``;
4. collapses whitespace; a part left empty is ``InvalidInput``.

A refusal is reported through the ``reject`` callback (rule and kinds, never the text)
before the error is raised, so the caller can publish it.

>>> from graphmem.policy.rules import GovernancePolicy
>>> done = sanitise({"subject": "Mira", "relation": "lives at",
...                  "value": "<private>flat 3, </private>the mill"},
...                 GovernancePolicy(), lambda rule, kinds: None)
>>> done.clean["value"], done.tier
('the mill', None)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from graphmem.core.errors import InvalidInput, MalformedPrivacyTag, PIIDetected
from graphmem.policy.pii import detect_pii, redact_pii
from graphmem.policy.poisoning import detect_poisoning
from graphmem.policy.rules import GovernancePolicy

__all__ = ["Sanitised", "collapse_spaces", "sanitise", "strip_privacy_tags"]

_SPACES = re.compile(r"\s+")
_PRIVATE_TAG = re.compile(r"<\s*(/?)\s*private\s*>", re.IGNORECASE)
_CLASSIFIED_TAG = re.compile(r"<\s*(/?)\s*classified(?::\s*tier_(\d{1,3}))?\s*>", re.IGNORECASE)
_ANY_PRIVACY_TAG = re.compile(r"<\s*/?\s*(?:private|classified)\b[^>]*>?", re.IGNORECASE)

Reject = Callable[[str, Sequence[str]], None]
"""``reject(rule, kinds)``: told of a refusal before its error is raised."""


def collapse_spaces(text: str) -> str:
    """``text`` with every run of whitespace one space, stripped at both ends."""
    return _SPACES.sub(" ", text).strip()


@dataclass(frozen=True)
class Sanitised:
    """The parts of a fact as they will be stored, and what sanitising found.

    Attributes:
        clean: Each part, sanitised (same keys as given).
        tier: The highest ``<classified:tier_N>`` seen, or None.
        redacted: Kinds of personal data redacted (sorted, each once).
        poisoning: Kinds of model-directed instructions found (sorted, each once).
    """

    clean: Mapping[str, str]
    tier: int | None
    redacted: tuple[str, ...]
    poisoning: tuple[str, ...]


def sanitise(parts: Mapping[str, str], policy: GovernancePolicy, reject: Reject) -> Sanitised:
    """Sanitise each part of a fact (see the module docstring), in the order given.

    Raises:
        MalformedPrivacyTag: A privacy tag is malformed (``reject("privacy_tag", [])``).
        PIIDetected: Personal data, and the policy rejects it (``reject("pii", kinds)``).
        InvalidInput: A part is empty once private parts are removed.
    """
    clean: dict[str, str] = {}
    tier: int | None = None
    redacted: list[str] = []
    poisoning: set[str] = set()
    for name, text in parts.items():
        try:
            stripped, found_tier = strip_privacy_tags(text)
        except MalformedPrivacyTag:
            reject("privacy_tag", ())
            raise
        if found_tier is not None:
            tier = max(tier or 0, found_tier)
        if policy.poisoning != "off":
            poisoning.update(m.kind for m in detect_poisoning(stripped))
        kinds = [m.kind for m in detect_pii(stripped)]
        if kinds:
            if policy.pii == "reject":
                found = sorted(set(kinds))
                reject("pii", found)
                raise PIIDetected(
                    f"the fact's {name} holds personal data ({', '.join(found)}); "
                    "remove it, or use a policy with pii='redact'",
                    rule="pii",
                    kinds=tuple(found),
                )
            stripped, kinds = redact_pii(stripped)
            redacted.extend(kinds)
        stripped = collapse_spaces(stripped)
        if not stripped:
            raise InvalidInput(f"the fact's {name} is empty once private parts are removed")
        clean[name] = stripped
    return Sanitised(clean, tier, tuple(sorted(set(redacted))), tuple(sorted(poisoning)))


def strip_privacy_tags(text: str) -> tuple[str, int | None]:
    """Remove ``<private>`` sections and ``<classified:tier_N>`` tags; return text and tier.

    >>> strip_privacy_tags("Meet at <private>my flat</private>the <classified:tier_2>mill"
    ...                    "</classified>.")
    ('Meet at the mill.', 2)

    Raises:
        MalformedPrivacyTag: An unclosed, stray or nested ``<private>``, an unclosed or
            stray ``<classified>``, or a tag of either name in another form.
    """
    out: list[str] = []
    depth = 0
    last = 0
    for match in _PRIVATE_TAG.finditer(text):
        closing = bool(match.group(1))
        if not closing:
            if depth:
                raise MalformedPrivacyTag("nested <private> tags", rule="privacy_tag")
            out.append(text[last : match.start()])
            depth = 1
        else:
            if not depth:
                raise MalformedPrivacyTag("</private> without <private>", rule="privacy_tag")
            depth = 0
        last = match.end()
    if depth:
        raise MalformedPrivacyTag(
            "<private> is not closed; close it with </private>", rule="privacy_tag"
        )
    out.append(text[last:])
    text = "".join(out)
    tier: int | None = None
    open_tags = 0
    for match in _CLASSIFIED_TAG.finditer(text):
        if match.group(1):
            if not open_tags:
                raise MalformedPrivacyTag(
                    "</classified> without <classified:tier_N>", rule="privacy_tag"
                )
            open_tags -= 1
        else:
            if match.group(2) is None:
                raise MalformedPrivacyTag(
                    "<classified> needs a tier: <classified:tier_N>", rule="privacy_tag"
                )
            open_tags += 1
            tier = max(tier or 0, int(match.group(2)))
    if open_tags:
        raise MalformedPrivacyTag(
            "<classified:tier_N> is not closed; close it with </classified>", rule="privacy_tag"
        )
    text = _CLASSIFIED_TAG.sub("", text)
    if _ANY_PRIVACY_TAG.search(text):
        raise MalformedPrivacyTag("a malformed <private> or <classified> tag", rule="privacy_tag")
    return text, tier
