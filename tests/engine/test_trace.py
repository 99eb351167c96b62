"""Trace bounds (head, tail, one marker) and redaction."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from msgspec.structs import replace

from engine.events import DeltaKind, ItemCompleted, ItemDelta, Notice, TraceGap, TurnCompleted
from engine.protocol import AgentMessageItem
from engine.records.trace import (
    ANSWER_START_CHARS,
    ConversationTrace,
    Redactor,
    TurnTrace,
    jsonl,
)
from engine.records.trace_spool import TraceSpool


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


def delta(seq: int, item: str, text: str, kind: DeltaKind = "agent_message") -> ItemDelta:
    return ItemDelta(
        seq=seq,
        at=float(seq),
        conversation_id="c",
        turn_id="t",
        item_id=item,
        kind=kind,
        text=text,
    )


def ended(seq: int) -> TurnCompleted:
    return TurnCompleted(
        seq=seq,
        at=float(seq),
        conversation_id="c",
        turn_id="t",
        status="completed",
        error=None,
        duration_ms=1,
    )


def test_an_ended_turn_keeps_each_parts_deltas_as_one_with_their_text() -> None:
    trace = ConversationTrace(limit=10_000)
    trace.add("t", notice(1))
    for seq in range(2, 3002):
        if seq % 100 == 0:
            trace.add("t", delta(seq, "r", f"<{seq}>", "reasoning_summary"))
        else:
            trace.add("t", delta(seq, "m", f"{seq} "))
    live = trace.turn("t")
    assert len(live) == 3001, "while the turn runs, each delta is kept as it came"
    trace.add("t", ended(3002))

    events = trace.turn("t")
    assert [type(e).__name__ for e in events] == [
        "Notice",
        "ItemDelta",
        "ItemDelta",
        "TurnCompleted",
    ]
    message, reasoning = events[1], events[2]
    assert isinstance(message, ItemDelta)
    assert isinstance(reasoning, ItemDelta)
    assert (message.seq, reasoning.seq) == (2, 100), "where the first of each was"
    assert message.text == "".join(f"{s} " for s in range(2, 3002) if s % 100)
    assert reasoning.text == "".join(f"<{s}>" for s in range(2, 3002) if s % 100 == 0)
    assert (message.joined, reasoning.joined) == (2970, 30)


def test_past_the_limit_an_ended_turn_joins_each_side_of_the_gap() -> None:
    trace = ConversationTrace(limit=10)
    for seq in range(1, 101):
        trace.add("t", delta(seq, "m", f"{seq} "))
    trace.add("t", ended(101))
    events = trace.turn("t")
    assert [type(e).__name__ for e in events] == [
        "ItemDelta",
        "TraceGap",
        "ItemDelta",
        "TurnCompleted",
    ]
    head, gap, tail = events[0], events[1], events[2]
    assert isinstance(head, ItemDelta)
    assert isinstance(gap, TraceGap)
    assert isinstance(tail, ItemDelta)
    assert (head.text, head.joined) == ("1 2 3 4 5 ", 5)
    assert (tail.text, tail.joined) == ("97 98 99 100 ", 4)
    assert gap.dropped == 91


def test_of_an_answer_that_completed_an_ended_turn_keeps_only_the_start_of_its_deltas() -> None:
    """The completed answer holds the whole text: a long conversation does not keep it twice.
    An answer that never completed (cut off) keeps all it streamed."""
    trace = ConversationTrace(limit=10_000)
    whole = "".join(f"{seq} " for seq in range(1, 2001))
    for seq in range(1, 2001):
        trace.add("t", delta(seq, "done", f"{seq} "))
        trace.add("t", delta(seq, "cut off", f"{seq} "))
    answer = AgentMessageItem(id="done", text=whole)
    trace.add(
        "t",
        ItemCompleted(
            seq=2001, at=2001.0, conversation_id="c", turn_id="t", item=answer, status="completed"
        ),
    )
    trace.add("t", ended(2002))

    done, cut_off = (e for e in trace.turn("t") if isinstance(e, ItemDelta))
    assert (done.text, done.joined, done.cut) == (
        whole[:ANSWER_START_CHARS],
        2000,
        len(whole) - ANSWER_START_CHARS,
    )
    assert (cut_off.text, cut_off.joined, cut_off.cut) == (whole, 2000, 0)


def answered_turn(trace: ConversationTrace, turn: str, seq: int, text: str) -> None:
    item = AgentMessageItem(type="agentMessage", id=f"m-{turn}", text=text)
    trace.add(
        turn,
        ItemCompleted(
            seq=seq, at=float(seq), conversation_id="c", turn_id=turn, item=item, status="completed"
        ),
    )
    trace.add(turn, replace(ended(seq + 1), turn_id=turn))


def test_with_a_spool_older_turns_leave_memory_and_read_back_the_same(tmp_path: Path) -> None:
    spool = TraceSpool(Redactor(["hunter2-password"]))
    kept = ConversationTrace(limit=100, spool=spool, conversation_id="c", kept_turns=3)
    whole = ConversationTrace(limit=100)
    for turn in range(10):
        for trace in (kept, whole):
            answered_turn(trace, f"t{turn}", 10 * turn, f"answer {turn} " + "x" * 1000)
    assert sum(isinstance(trace, TurnTrace) for trace in kept._turns.values()) == 3
    assert kept.turn("t0") == whole.turn("t0")
    assert kept.all_events() == whole.all_events()
    directory = spool._directory
    assert directory is not None
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in directory.iterdir())
    spool.close()
    assert not directory.exists()


def test_a_spooled_turn_holds_no_known_secret_and_takes_what_comes_late() -> None:
    spool = TraceSpool(Redactor(["hunter2-password"]))
    trace = ConversationTrace(limit=100, spool=spool, conversation_id="c", kept_turns=1)
    answered_turn(trace, "t0", 0, "the password is hunter2-password")
    answered_turn(trace, "t1", 10, "later")
    written = b"".join(path.read_bytes() for path in spool._directory.iterdir())  # type: ignore[union-attr]
    assert b"hunter2-password" not in written
    assert b"[redacted]" in written
    trace.add("t0", notice(30))
    assert [e.seq for e in trace.turn("t0")] == [0, 1, 30]
    spool.close()


def test_a_turn_the_spool_cannot_take_stays_in_memory() -> None:
    spool = TraceSpool(Redactor([]))
    spool.write = lambda conversation_id, events: None  # type: ignore[method-assign]
    trace = ConversationTrace(limit=100, spool=spool, conversation_id="c", kept_turns=1)
    answered_turn(trace, "t0", 0, "kept")
    answered_turn(trace, "t1", 10, "kept too")
    assert [e.seq for e in trace.turn("t0")] == [0, 1]
    assert all(isinstance(trace, TurnTrace) for trace in trace._turns.values())
