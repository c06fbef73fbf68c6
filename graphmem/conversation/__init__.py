"""Conversations: PARENT-linked turn trees that fork, and the summaries of their turns."""

from graphmem.conversation.summarize import (
    CODE_PLACEHOLDER,
    summarize_trajectory,
    summarize_turn,
)
from graphmem.conversation.tree import CONVERSATION_FORMAT, Conversation

__all__ = [
    "CODE_PLACEHOLDER",
    "CONVERSATION_FORMAT",
    "Conversation",
    "summarize_trajectory",
    "summarize_turn",
]
