"""The engine's events reach the main screen a frame's time apart at most, each time with all
that came meanwhile, in order: a fast answer comes in a thousand small batches a second, and
each one handed on would cost the screen a step of its own."""

from __future__ import annotations

import time

import pytest

from engine.scripted_model import load_script
from tests.tui.conftest import Deck, transcript, until
from tui.app import BATCH_SECONDS
from tui.bridge import EngineBatch
from tui.entries import AgentEntry
from tui.screens.main import MainScreen
from tui.widgets.composer import Composer
from tui.widgets.notes import TurnMarker

pytestmark = pytest.mark.anyio


async def test_a_fast_answer_reaches_the_screen_in_batches_a_frame_apart(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed: list[EngineBatch] = []
    take = MainScreen.on_engine_batch

    async def counted(screen: MainScreen, batch: EngineBatch) -> None:
        handed.append(batch)
        await take(screen, batch)

    monkeypatch.setattr(MainScreen, "on_engine_batch", counted)
    async with deck() as (app, pilot):
        handed.clear()
        started = time.perf_counter()
        app.main.query_one(Composer).text = "long answer"
        await pilot.press("enter")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the answer ends")
        took = time.perf_counter() - started
        [answer] = [e for e in transcript(app).entries if isinstance(e, AgentEntry)]
    assert answer.text == load_script().choose("long answer").replies[0].full_text
    # About 21,000 deltas in a second or so: one batch a frame at most (not one a read).
    assert len(handed) <= took / BATCH_SECONDS + 1
    assert len(handed) > 1  # and not all at the end
