"""What the user sees after codex dies mid-turn, and when a conversation comes back from the
store: the status bar says codex is being restarted, the conversation needs attention with its
result unknown, and a reopened conversation shows its last turns."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest
from textual.widgets import Static

from tests.tui.conftest import Deck, transcript, until
from tui.app import CodexDeckApp
from tui.widgets.composer import Composer
from tui.widgets.conversation_list import ConversationList
from tui.widgets.message import AgentMessage, UserMessage
from tui.widgets.notes import NoticeLine, TurnMarker
from tui.widgets.status_bar import StatusBar

pytestmark = pytest.mark.anyio


def listed(app: CodexDeckApp) -> str:
    options = app.main.query_one(ConversationList)
    return "\n".join(
        str(options.get_option_at_index(i).prompt) for i in range(options.option_count)
    )


async def test_a_reopened_conversation_shows_its_turns(deck: Deck, tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite3"
    async with deck(store=store) as (app, pilot):
        app.main.query_one(Composer).text = "count for me"
        await pilot.press("enter")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the turn ends")
        answer = [m.text for m in transcript(app).query(AgentMessage)]

    async with deck(store=store) as (app, pilot):
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the history shows")
        assert [m.text for m in transcript(app).query(UserMessage)] == ["count for me"]
        assert [m.text for m in transcript(app).query(AgentMessage)] == answer
        assert "Conversation 1" in listed(app)


async def test_codex_dying_mid_turn_is_shown_and_it_comes_back(deck: Deck) -> None:
    async with deck() as (app, pilot):
        app.main.query_one(Composer).text = "take your time"
        await pilot.press("enter")
        status = app.main.query_one(StatusBar)
        await until(pilot, lambda: "running" in str(status.render()), "the turn runs")
        backend = app.main.backend
        assert backend is not None
        pid = backend.app_server_pid  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGKILL)
        await until(pilot, lambda: "restarting codex" in str(status.render()), "a restart shows")
        await until(pilot, lambda: "codex online" in str(status.render()), "codex is back")
        assert "NEEDS ATTENTION" in listed(app)
        assert "result unknown" in listed(app)


async def test_an_unreadable_store_is_moved_aside_and_the_user_is_told(
    deck: Deck, tmp_path: Path
) -> None:
    store = tmp_path / "store.sqlite3"
    store.write_bytes(b"not a database " * 100)
    async with deck(store=store) as (app, pilot):
        notes = transcript(app).query(NoticeLine)
        await until(pilot, lambda: any("could not be read" in n.text for n in notes), "it says")
        [moved] = [p async for p in anyio.Path(tmp_path).iterdir() if ".unreadable-" in p.name]
        assert await moved.read_bytes() == b"not a database " * 100
        assert any(str(moved) in n.text for n in transcript(app).query(NoticeLine))


async def test_the_conversation_asked_for_is_shown_first(deck: Deck, tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite3"
    async with deck(store=store) as (app, _):
        backend = app.main.backend
        assert backend is not None
        second = await backend.new_conversation("Second")
    async with deck(store=store, conversation=second.id[:6]) as (app, _):
        assert app.main.current == second.id
    async with deck(store=store, conversation="zzz") as (app, _):
        assert app.main.current != second.id
        note = app.main.query_one("#composer-note", Static)
        assert "No single conversation's id starts with 'zzz'" in str(note.render())
