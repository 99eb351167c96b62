"""A line longer than the limit from the app-server is reported and skipped, and what follows
is read: a 100 MB line at the default limit at the framing level (the reader holds no more
than the limit meanwhile), and a 10 MB line from the real codex over a lowered limit."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from engine.events import Notice
from engine.scripted_model import load_script, run_scripted_model
from engine.scripted_model.scenario import builtin_files
from engine.settings import LimitsSettings, Settings
from engine.transport.rpc import DEFAULT_MAX_LINE_BYTES, BadLine, Notification
from tests.e2e.conftest import open_engine
from tests.engine.test_rpc import connected, next_incoming
from tests.reliability.report import Ledger, asked_of, lost_and_reruns

pytestmark = pytest.mark.anyio

LINE_BYTES = 100 * 1024 * 1024
PIECE = 1024 * 1024
BIG_ANSWER = f"""
[[scenario]]
name = "one-big-line"
match = '(?i)\\bone big line\\b'

[[scenario.reply]]
chunk = {10 * 1000 * 1000}
text = "{"y" * 10 * 1000 * 1000}"
"""


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
        assert skipped.excerpt.startswith('{"method": "item/agentMessage/delta"')
        assert skipped.tail.endswith('xxx"}}'), "its start and end are kept to say what it was"
        assert isinstance(after, Notification)
        assert (after.method, after.value()) == ("still-here", {"n": 1})
        held = peak - PIECE  # the test's own piece of the line
        assert held < DEFAULT_MAX_LINE_BYTES + 4 * PIECE, f"the reader held {peak:,} bytes"


async def test_a_line_over_the_limit_from_the_real_codex_is_skipped_and_said(
    codex_home: Path, workspace: Path, tmp_path: Path, tally: Ledger
) -> None:
    """codex passes a 10 MB answer delta on as one line (one of 100 MB it does not pass on
    at all, in a trial here); with the limit at 4 MiB, that line is skipped and said, the
    turn still ends, and the conversation goes on."""
    scenario = tmp_path / "big.toml"
    scenario.write_text(BIG_ANSWER)
    limit = 4 * 1024 * 1024
    base = Settings(limits=LimitsSettings(line_bytes=limit))
    async with (
        run_scripted_model(load_script([*builtin_files(), scenario])) as model,
        open_engine(model, codex_home, workspace, base) as (engine, log),
    ):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "one big line")
        ended = await log.turn_completed(conversation.id)
        said = [n.text for n in log.of(Notice, conversation.id) if "line_bytes" in n.text]
        await engine.submit(conversation.id, "count for me")
        after = await log.turn_completed(conversation.id, 2)
        lost, reruns = lost_and_reruns(asked_of(model), ["one big line", "count for me"])
        tally(
            "input",
            "a 10 MB line from the real codex over a 4 MiB limit",
            lost=lost,
            reruns=reruns,
            crashes=int(after.status != "completed"),
        )
    assert ended.status == "completed", "the skipped turn/completed line still ends the turn"
    assert len(said) == 3, "the delta, the completed item and the turn's end were skipped"
    assert f"over the limit of {limit:,}" in said[0]
    assert after.status == "completed"
