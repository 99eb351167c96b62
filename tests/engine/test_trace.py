"""Trace bounds (head, tail, one marker) and redaction."""

from __future__ import annotations

import json

from engine.events import Notice, TraceGap
from engine.records.trace import ConversationTrace, Redactor, jsonl


def notice(seq: int) -> Notice:
    return Notice(seq=seq, at=float(seq), conversation_id="c", level="info", text=f"n{seq}")


def test_a_turn_under_the_limit_is_kept_whole() -> None:
    trace = ConversationTrace(limit=10)
    for seq in range(1, 11):
        trace.add("t", notice(seq))
    assert [e.seq for e in trace.turn("t")] == list(range(1, 11))


def test_past_the_limit_head_and_tail_are_kept_with_one_marker() -> None:
    trace = ConversationTrace(limit=10)
    for seq in range(1, 101):
        trace.add("t", notice(seq))
    events = trace.turn("t")
    assert len(events) == 11
    gap = events[5]
    assert isinstance(gap, TraceGap)
    assert gap.dropped == 90
    assert [e.seq for e in events[:5]] == [1, 2, 3, 4, 5]
    assert [e.seq for e in events[6:]] == [96, 97, 98, 99, 100]


def test_turns_are_kept_apart() -> None:
    trace = ConversationTrace(limit=10)
    trace.add(None, notice(1))
    trace.add("a", notice(2))
    trace.add("b", notice(3))
    assert [e.seq for e in trace.turn("a")] == [2]
    assert trace.turn_ids() == [None, "a", "b"]
    assert [e.seq for e in trace.all_events()] == [1, 2, 3]


def test_known_secrets_and_key_shapes_are_redacted() -> None:
    redact = Redactor(["hunter2-password", "short"])
    text = "pw hunter2-password key sk-abcdefghijklmnopqrstu short"
    assert redact(text) == "pw [redacted] key [redacted] short"
    line = jsonl([notice(1)], redact)
    assert json.loads(line)["type"] == "Notice"
