"""A short transcript: a rolling-summary conversation that degrades and recovers.

Run it with ``graphmem demo --policy`` or ``python -m graphmem.tools.demos.policy``. Everything
printed comes from the real code: an embedded store, a conversation memory with a
summarizer whose service goes down for a while, and the ``memory.health_changed`` events
as they are published.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import graphmem
from graphmem.core.events import EventBus
from graphmem.core.models import Turn
from graphmem.policy import LineSummarizer

__all__ = ["FlakySummarizer", "run"]


class FlakySummarizer:
    """The default line summarizer behind a switch: while ``down``, it raises."""

    def __init__(self) -> None:
        self.down = False
        self._inner = LineSummarizer()

    def summarize(self, previous: str, evicted: Sequence[Turn]) -> str:
        """Fold ``evicted`` into ``previous``, unless the service is down."""
        if self.down:
            raise ConnectionError("summarizer service unreachable")
        return self._inner.summarize(previous, evicted)


def run(out: Callable[[str], object] = print) -> None:
    """Play the transcript, writing each line with ``out``."""
    bus = EventBus()
    bus.subscribe(
        "memory.health_changed",
        lambda e: out(
            f"    [event] health {e.payload['from']} -> {e.payload['to']} ({e.payload['reason']})"
        ),
    )
    bus.subscribe(
        "memory.recovery_dropped",
        lambda e: out(f"    [event] recovery backlog full: dropped {e.payload['dropped_turns']}"),
    )
    summarizer = FlakySummarizer()

    def show(chat: graphmem.ConversationMemory) -> None:
        ctx = chat.llm_context()
        out(f"  context: mode={ctx.mode} health={ctx.health.value} tokens={ctx.token_estimate}")
        for line in ctx.summary.split("\n") if ctx.summary else []:
            out(f"    summary | {line}")
        for turn in ctx.turns:
            out(f"    recent  | {turn.speaker or turn.role}: {turn.content}")

    script = [
        ("player", "Ada", "Where can I find the smith?"),
        ("npc", "Mira", "Sure, I'll help with that. The forge is by the river, past the mill."),
        ("player", "Ada", "Can she mend a **broken** sword?"),
        ("npc", "Mira", "She can, for three silver. Ask for `Mira` at the door."),
        ("player", "Ada", "And where do I sleep tonight?"),
        ("npc", "Mira", "The Drowsy Ox has beds. Tell Tomas I sent you."),
        ("player", "Ada", "Thank you. Is the road north safe?"),
        ("npc", "Mira", "Not after dark: wolves came down from the hills."),
    ]
    with graphmem.open("memory://", tenant="brindleford") as mem:
        chat = mem.conversation_memory(
            user="ada",
            session="evening-1",
            max_tokens=240,
            window_turns=2,
            summarizer=summarizer,
            bus=bus,
            recovery_interval=2,
        )
        for index, (role, speaker, text) in enumerate(script):
            if index == 4:
                out("-- the summarizer service goes down --")
                summarizer.down = True
            if index == 7:
                out("-- the summarizer service is back --")
                summarizer.down = False
                out(f"  (queued for recovery: {chat.backlog_turns} turns)")
            out(f"> {speaker}: {text}")
            chat.append(role, text, speaker=speaker)
            if index in (3, 4, 6):
                show(chat)
        out("-- flush(): fold the queued turns into the summary now --")
        chat.flush()
        show(chat)
        out(f"stored turns: {mem.count_turns()}; folded into the summary: {chat.summarized_turns}")


if __name__ == "__main__":  # pragma: no cover
    run()
