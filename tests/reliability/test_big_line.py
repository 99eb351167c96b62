"""A 100 MB line from the app-server (at the framing level: in a trial here codex did not pass
on a 100 MB model event at all) is reported and skipped at the default limit;
the reader holds no more than the limit meanwhile, and the next message is read."""

from __future__ import annotations

import tracemalloc

import pytest

from engine.rpc import DEFAULT_MAX_LINE_BYTES, BadLine, Notification
from tests.engine.test_rpc import connected, next_incoming
from tests.reliability.report import Ledger

pytestmark = pytest.mark.anyio

LINE_BYTES = 100 * 1024 * 1024
PIECE = 1024 * 1024


async def test_a_hundred_megabyte_line_is_skipped_holding_no_more_than_the_limit(
    tally: Ledger,
) -> None:
    assert LINE_BYTES > DEFAULT_MAX_LINE_BYTES
    async with connected(max_line_bytes=DEFAULT_MAX_LINE_BYTES) as (rpc, peer):
        events = rpc.subscribe()
        piece = b"x" * PIECE
        tracemalloc.start()
        try:
            await peer.write(b'{"method": "item/agentMessage/delta", "params": {"delta": "')
            for _ in range(LINE_BYTES // PIECE):
                await peer.write(piece)
            await peer.write(b'"}}\n')
            await peer.write({"method": "still-here", "params": {"n": 1}})
            skipped = await next_incoming(events)
            after = await next_incoming(events)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        tally(
            "input",
            "a 100 MB line from the app-server (framing)",
            crashes=int(not isinstance(skipped, BadLine) or not isinstance(after, Notification)),
        )
        assert isinstance(skipped, BadLine)
        assert f"over the {DEFAULT_MAX_LINE_BYTES}-byte limit" in skipped.reason
        assert after == Notification("still-here", {"n": 1})
        held = peak - PIECE  # the test's own piece of the line
        assert held < DEFAULT_MAX_LINE_BYTES + 4 * PIECE, f"the reader held {peak:,} bytes"
