"""A long conversation gets widgets for its latest entries only (ctrl+home brings back older
ones); a conversation out of view keeps its entries up to date and gets widgets when shown."""

from __future__ import annotations

from typing import Any

import pytest

from engine.events import (
    ConversationInfo,
    ConversationUpdated,
    EngineEvent,
    ItemCompleted,
    ItemStarted,
    TurnCompleted,
    TurnStarted,
)
from engine.protocol import AgentMessageItem, UserMessageItem
from engine.settings import Settings
from tests.tui.conftest import until
from tui.app import CodexDeckApp
from tui.replay import replay_backend
from tui.widgets.transcript import EARLIER_STEP, FIRST_WINDOW, Transcript

pytestmark = pytest.mark.anyio


def conversation(conversation_id: str, turns: int) -> list[EngineEvent]:
    """A finished conversation: a question and an answer per turn, and a turn marker."""
    events: list[EngineEvent] = []

    def stamp() -> dict[str, Any]:
        return {"seq": len(events) + 1, "at": 4e9 + len(events), "conversation_id": conversation_id}

    info = ConversationUpdated(
        **stamp(),
        info=ConversationInfo(
            id=conversation_id,
            title=conversation_id,
            cwd="/home/dev/project",
            state="idle",
            thread_id=f"thread-{conversation_id}",
            generation=0,
            queued=0,
            pending_interactions=0,
            archived=False,
            turn_id=None,
            turn_started_at=None,
        ),
    )
    events.append(info)
    for turn in range(turns):
        turn_id = f"{conversation_id}-turn-{turn}"
        events.append(
            TurnStarted(**stamp(), turn_id=turn_id, thread_id="t", generation=0, submission_id=None)
        )
        question = UserMessageItem(
            id=f"{conversation_id}-u{turn}", content=[{"type": "text", "text": f"question {turn}"}]
        )
        answer = AgentMessageItem(id=f"{conversation_id}-a{turn}", text=f"answer {turn}")
        for item in (question, answer):
            events.append(ItemStarted(**stamp(), turn_id=turn_id, item=item))
            events.append(ItemCompleted(**stamp(), turn_id=turn_id, item=item, status="completed"))
        events.append(
            TurnCompleted(
                **stamp(), turn_id=turn_id, status="completed", error=None, duration_ms=900
            )
        )
    return events


def with_widgets(transcript: Transcript) -> int:
    return sum(1 for entry in transcript.entries if entry.widget is not None)


async def test_only_the_latest_entries_get_widgets_and_the_rest_come_back() -> None:
    events = [*conversation("long", 400), *conversation("other", 2)]
    app = CodexDeckApp(Settings(), replay_backend(events))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.opened and app.main.current == "long", "the app opens")
        long = app.main.query_one("#transcript-long", Transcript)
        other = app.main.query_one("#transcript-other", Transcript)
        await until(pilot, lambda: len(other.entries) == 6, "both conversations are read")
        await until(pilot, lambda: len(long.entries) == 1200 and long.settled, "it is drawn")

        assert with_widgets(long) == FIRST_WINDOW
        assert long.entries[-1].widget is not None
        earlier = str(long.query_one(".earlier").render())
        assert earlier == f"▲ {1200 - FIRST_WINDOW} earlier item(s) — ctrl+home shows more"

        assert not other.display
        assert with_widgets(other) == 0, "a conversation out of view has no widgets yet"
        assert len(other.query("UserMessage")) == 0

        await pilot.press("ctrl+home")
        await until(
            pilot, lambda: with_widgets(long) == FIRST_WINDOW + EARLIER_STEP, "older ones shown"
        )
        assert long.entries[1200 - FIRST_WINDOW - EARLIER_STEP].widget is not None

        await pilot.press("ctrl+down")
        await until(pilot, lambda: app.main.current == "other", "the other one is shown")
        await until(pilot, lambda: with_widgets(other) == 6, "its widgets are made")
        assert other.display
        assert not long.display
        texts = [str(message.render()) for message in other.query("UserMessage")]
        assert texts == ["› question 0", "› question 1"]
