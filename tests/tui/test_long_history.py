"""A long conversation reopened from the store, on the real engine and codex: it opens with its
latest items, and going back reads the older ones from codex, a few hundred at a time, until
the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.load_figures import many_items, shown
from bench.tui_figures import the_app
from engine.conversations.history_pages import FIRST_ITEMS
from engine.scripted_model import run_scripted_model
from tests.tui.conftest import until
from tui.entries import Entry, NoticeEntry, TurnEntry, UserEntry
from tui.widgets.transcript import Transcript

pytestmark = pytest.mark.anyio

ITEMS = 3000
"""The question and its answers, in one turn (more than codex-deck's trace keeps of a turn:
a turn it saw whole comes whole from it)."""


def items(transcript: Transcript) -> list[Entry]:
    """The transcript's entries but what codex-deck and codex said beside the conversation
    (codex warns about the machine it runs on, sometimes while the test runs)."""
    return [entry for entry in transcript.entries if not isinstance(entry, NoticeEntry)]


async def test_a_long_conversation_opens_with_its_latest_and_goes_back_to_its_first(
    tmp_path: Path,
) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "ws").mkdir()
    store = tmp_path / "store.sqlite3"
    await many_items(tmp_path, store, ITEMS)

    async with run_scripted_model() as model, the_app(tmp_path, model, store) as (app, pilot):
        transcript = shown(app, app.main.current or "")
        await until(pilot, lambda: transcript.entries and transcript.settled, "it is drawn")
        entries = items(transcript)
        assert len(entries) <= 2 * FIRST_ITEMS + 1, "only the latest are read"
        assert isinstance(entries[-1], TurnEntry)
        earlier = transcript.query_one(".earlier")
        assert "kept by codex" in str(earlier.render())

        for _ in range(ITEMS // 100):
            if len(items(transcript)) == ITEMS + 1 and not earlier.has_class("-shown"):
                break
            await pilot.press("ctrl+home")
            await pilot.pause()

        entries = items(transcript)
        assert len(entries) == ITEMS + 1, "every item once, and the turn's end"
        assert len({entry.key for entry in entries}) == len(entries)
        first = entries[0]
        assert isinstance(first, UserEntry)
        assert first.text == "many items"
        assert first.widget is not None
        assert first.widget.is_mounted
        assert not earlier.has_class("-shown"), "nothing earlier is left"
