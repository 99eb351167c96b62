"""Streamed text is drawn thirty times a second, and ten times a second while the program is
behind: a stream that outruns the machine costs fewer frames, and keys get the time."""

from __future__ import annotations

import time

import pytest
from textual.app import App, ComposeResult

from engine.events import ItemDelta, ItemStarted
from engine.protocol import AgentMessageItem
from tests.tui.conftest import until
from tui.entries import AgentEntry
from tui.widgets.message import AgentMessage
from tui.widgets.transcript import (
    BUSY_FRAME_SECONDS,
    FRAME_SECONDS,
    LATE_SECONDS,
    Transcript,
)

pytestmark = pytest.mark.anyio


class OneTranscript(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.transcript = Transcript("c", "")

    def compose(self) -> ComposeResult:
        yield self.transcript


def delta(seq: int, text: str) -> ItemDelta:
    return ItemDelta(
        seq=seq,
        at=0.0,
        conversation_id="c",
        turn_id="t",
        item_id="m",
        kind="agent_message",
        text=text,
        index=0,
    )


def busy(seconds: float) -> None:
    """Keep the event loop busy, as a heavy frame or a flood of events would."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def test_frames_slow_down_while_the_program_is_behind_and_speed_up_after() -> None:
    app = OneTranscript()
    async with app.run_test() as pilot:
        transcript = app.transcript
        started = ItemStarted(
            seq=1, at=0.0, conversation_id="c", turn_id="t", item=AgentMessageItem(id="m", text="")
        )
        await transcript.apply([started, delta(2, "Hello")])
        await until(pilot, lambda: transcript.settled, "the first words are drawn")
        assert transcript.frame_seconds == FRAME_SECONDS

        await transcript.apply([delta(3, " there")])
        busy(FRAME_SECONDS + 2 * LATE_SECONDS)
        await until(pilot, lambda: transcript.settled, "the late frame is drawn")
        assert transcript.frame_seconds == BUSY_FRAME_SECONDS

        await transcript.apply([delta(4, ", and welcome")])
        await until(pilot, lambda: transcript.settled, "the next frame is drawn on time")
        assert transcript.frame_seconds == FRAME_SECONDS
        answer = transcript.entries[-1]
        assert isinstance(answer, AgentEntry)
        assert answer.text == "Hello there, and welcome"
        assert isinstance(answer.widget, AgentMessage)
        assert answer.widget.render_line(0).text.strip() == answer.text
