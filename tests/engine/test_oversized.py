"""engine.transport.oversized: what the kept start and end of a skipped line still say."""

from __future__ import annotations

from engine.transport.oversized import thread_of, turn_end
from engine.transport.rpc import BadLine

HEAD = '{"method":"turn/completed","params":{"threadId":"t-1","turn":{"id":"u-1","items":[{"te'
TAIL = (
    'xt":"…"}],"status":"failed","error":{"message":"it \\"broke\\"","codexErrorInfo":null},'
    '"durationMs":1500}}}'
)


def skipped(head: str, tail: str) -> BadLine:
    return BadLine("line of 9 bytes is over the 8-byte limit", head, 9, 8, tail)


def test_a_skipped_turn_end_still_ends_the_turn_with_its_status_and_error() -> None:
    ended = turn_end(skipped(HEAD, TAIL))
    assert ended is not None
    assert (ended.thread_id, ended.turn.id, ended.turn.status) == ("t-1", "u-1", "failed")
    assert ended.turn.error is not None
    assert ended.turn.error.message == 'it "broke"'
    assert (ended.turn.duration_ms, ended.turn.items) == (1500, [])


def test_other_lines_or_ends_that_say_too_little_end_nothing() -> None:
    delta = '{"method":"item/agentMessage/delta","params":{"threadId":"t-2","delta":"yyy'
    assert turn_end(skipped(delta, 'yy"}}')) is None
    assert turn_end(skipped(HEAD, "yyyyyyyyyyyy")) is None
    assert thread_of(skipped(delta, "")) == "t-2"
    assert (
        thread_of(
            skipped(
                '{"method":"item/completed","params":{"item":{"text":"y', 'y"},"threadId":"t-3"}}'
            )
        )
        == "t-3"
    )
    assert thread_of(skipped("yyy", "yyy")) is None
