"""A turn's items as the history shows them, from codex's thread and codex-deck's trace."""

from __future__ import annotations

from engine.conversations.history import CUT_OFF, turn_items
from engine.events import (
    EngineEvent,
    ItemCompleted,
    ItemDelta,
    Stamp,
    TraceGap,
    TurnCompleted,
)
from engine.protocol import AgentMessageItem, Turn
from engine.records.trace import ConversationTrace


def stamp(seq: int) -> Stamp:
    return Stamp(seq=seq, at=float(seq), conversation_id="c")


def test_an_answer_codex_does_not_keep_is_shown_whole_from_the_trace() -> None:
    """Of a turn whose trace was trimmed (a gap), the items come from codex's thread; an
    answer the trace saw complete that the thread does not hold (of a provider that gives
    several messages one id, codex keeps the last) comes from the trace: whole, as it
    completed (the trace keeps only the start of its stream), not cut off. An answer that
    never completed shows what streamed of it, cut off."""
    first, second, lost = "T/a", "T/c", "T/b"
    said = "The first answer. " * 40
    trace = ConversationTrace(limit=8)
    events: list[EngineEvent] = [
        ItemDelta(**stamp(1), turn_id="T", item_id=first, kind="agent_message", text=said),
        ItemCompleted(
            **stamp(2),
            turn_id="T",
            item=AgentMessageItem(id=first, text=said),
            status="completed",
        ),
        ItemDelta(**stamp(3), turn_id="T", item_id=lost, kind="agent_message", text="Half"),
        *(
            ItemDelta(**stamp(seq), turn_id="T", item_id=second, kind="agent_message", text="x")
            for seq in range(4, 20)
        ),
        TurnCompleted(**stamp(20), turn_id="T", status="completed", error=None, duration_ms=1),
    ]
    for event in events:
        trace.add("T", event)
    traced = trace.turn("T")
    assert any(isinstance(e, TraceGap) for e in traced)
    start = next(e for e in traced if isinstance(e, ItemDelta) and e.item_id == first)
    assert len(start.text) < len(said), "the trace keeps only the start of its stream"

    turn = Turn(id="T", status="completed", items=[AgentMessageItem(id="c", text="x" * 16)])
    items = turn_items(turn, traced)

    texts = {item.id: getattr(item, "text", "") for item in items}
    assert texts[first] == said
    assert texts[lost] == "Half" + CUT_OFF
