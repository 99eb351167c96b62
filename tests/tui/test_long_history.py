"""A long conversation reopened from the store, on the real engine and codex: it opens with its
latest items, and going back reads the older ones from codex, a few hundred at a time, until
the first."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot

from bench.load_figures import many_items, shown
from bench.tui_figures import send, the_app
from engine.conversations.history_pages import FIRST_ITEMS
from engine.events import EngineEvent
from engine.scripted_model import run_scripted_model
from tests.tui.conftest import until
from tui.app import CodexDeckApp
from tui.entries import Entry, NoticeEntry, TurnEntry, UserEntry
from tui.widgets import transcript as transcript_module
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


def ended_after(transcript: Transcript, text: str) -> bool:
    """Whether the turn of the message `text` has ended in the transcript."""
    entries = transcript.entries
    asked = [i for i, e in enumerate(entries) if isinstance(e, UserEntry) and e.text == text]
    return bool(asked) and any(isinstance(e, TurnEntry) for e in entries[asked[0] :])


@asynccontextmanager
async def talking(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[CodexDeckApp, Pilot[None], Transcript]]:
    """The app on the real engine, its transcript keeping the last 3 turns and 6 entries
    with widgets (as if each answer were long)."""
    monkeypatch.setattr(transcript_module, "KEPT_TURNS", 3)
    monkeypatch.setattr(transcript_module, "WINDOW", 6)
    (root / "home").mkdir()
    (root / "ws").mkdir()
    async with run_scripted_model() as model, the_app(root, model) as (app, pilot):
        yield app, pilot, shown(app, app.main.current or "")


async def talk(app: CodexDeckApp, pilot: Pilot[None], transcript: Transcript, turns: range) -> None:
    """Send "message N" for each of `turns`, each once the one before has ended."""
    for turn in turns:
        await send(app, f"message {turn}")
        await until(pilot, partial(ended_after, transcript, f"message {turn}"), "it ends")
    await until(pilot, lambda: transcript.settled, "it is drawn")


async def show_the_first(pilot: Pilot[None], transcript: Transcript) -> list[str]:
    """ctrl+home until the first message is there and nothing earlier is left: the
    messages, in the transcript's order."""
    earlier = transcript.query_one(".earlier")
    for _ in range(20):
        asked = [e.text for e in transcript.entries if isinstance(e, UserEntry)]
        if "message 1" in asked and not earlier.has_class("-shown"):
            break
        await pilot.press("ctrl+home")
        await pilot.pause()
    return [e.text for e in transcript.entries if isinstance(e, UserEntry)]


async def test_a_long_live_conversation_lets_go_of_its_oldest_turns_and_reads_them_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with talking(tmp_path, monkeypatch) as (app, pilot, transcript):
        await talk(app, pilot, transcript, range(1, 3))
        first = next(e.key for e in transcript.entries if isinstance(e, UserEntry))
        await talk(app, pilot, transcript, range(3, 9))
        asked = [e.text for e in transcript.entries if isinstance(e, UserEntry)]
        assert "message 1" not in asked, "the oldest turns were let go of"
        assert len([e for e in transcript.entries if isinstance(e, TurnEntry)]) <= 4
        earlier = transcript.query_one(".earlier")
        assert "kept by codex" in str(earlier.render()) or "earlier item" in str(earlier.render())
        assert await transcript.reveal_key(first) is not None, "a jump to it reads it back"
        asked = [e.text for e in transcript.entries if isinstance(e, UserEntry)]
        assert asked[0] == "message 1"
        asked = await show_the_first(pilot, transcript)
        assert asked == [f"message {turn}" for turn in range(1, 9)], "each once, in order"


async def test_a_turn_that_ends_while_earlier_turns_are_read_lets_go_of_none_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Going back reads the earlier turns from codex; a turn ending meanwhile would let go
    of the oldest turn there (its entries dropped, codex's pages read again from it) while
    the read in flight, from where the first turn was before, is put before what is left:
    a turn missing between them, then read back before the first."""
    async with talking(tmp_path, monkeypatch) as (app, pilot, transcript):
        await talk(app, pilot, transcript, range(1, 2))
        first = next(e.key for e in transcript.entries if isinstance(e, UserEntry))
        await talk(app, pilot, transcript, range(2, 8))
        backend = app.main.backend
        assert backend is not None
        read, answered = anyio.Event(), anyio.Event()
        reading = backend.earlier

        async def slow_earlier(conversation_id: str) -> list[EngineEvent]:
            events = await reading(conversation_id)  # codex has answered; the answer is slow
            read.set()
            await answered.wait()
            return events

        monkeypatch.setattr(backend, "earlier", slow_earlier)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(transcript.reveal_key, first)  # a jump from the trace
            await read.wait()
            await talk(app, pilot, transcript, range(8, 9))
            await pilot.pause()
            answered.set()
        asked = await show_the_first(pilot, transcript)
        assert asked == [f"message {turn}" for turn in range(1, 9)], "each once, in order"
