"""LLMContext.to_messages maps game roles onto the roles chat APIs accept."""

from __future__ import annotations

import pytest

from graphmem import InvalidInput, Turn
from graphmem.policy import HealthState, LLMContext
from graphmem.policy.context import CHAT_ROLES

ROLES = ["user", "assistant", "system", "tool", "player", "gm", "gm_assistant", "npc", "bard"]


def _context(summary: str = "") -> LLMContext:
    turns = tuple(Turn(session_id="s", role=role, content=role) for role in ROLES)
    return LLMContext(
        "rolling_summary", "rolling_summary", summary, turns, 9, 100, HealthState.HEALTHY
    )


def test_default_mapping_yields_only_chat_api_roles() -> None:
    messages = _context("earlier: things").to_messages()
    assert messages[0] == {
        "role": "system",
        "content": "Summary of the conversation so far:\nearlier: things",
    }
    assert [m["role"] for m in messages[1:]] == [
        "user",
        "assistant",
        "system",
        "user",
        "user",
        "user",
        "assistant",
        "assistant",
        "user",
    ]
    assert set(CHAT_ROLES.values()) == {"user", "assistant", "system"}


def test_mapping_overrides_and_default() -> None:
    messages = _context().to_messages({"gm": "system", "npc": "user"}, default="assistant")
    roles = dict(zip(ROLES, (m["role"] for m in messages), strict=True))
    assert (roles["gm"], roles["npc"], roles["bard"], roles["player"]) == (
        "system",
        "user",
        "assistant",
        "user",
    )


@pytest.mark.parametrize("bad", [{"npc": ""}, {"npc": 3}])
def test_bad_mapping_is_invalid(bad: dict) -> None:
    with pytest.raises(InvalidInput):
        _context().to_messages(bad)
    with pytest.raises(InvalidInput):
        _context().to_messages(default=" ")
