"""What is not on screen is not held twice: a transcript that leaves the view lets its widgets
go (its entries stay, as data), and coming back draws its latest again, a screenful first and
then the rest of its first window; the trace pane holds a few rows of a conversation out of
view and makes them again from the engine's trace when it comes back."""

from __future__ import annotations

import gc
import weakref

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from bench.tui_figures import conversation_of
from engine.replay import replay_backend
from engine.settings import Settings
from tests.tui.conftest import Deck, transcript, until
from tests.tui.test_app import turn_markers, type_and_send
from tui.app import CodexDeckApp
from tui.pacing import PacedScreen
from tui.widgets import trace_pane
from tui.widgets.conversation_list import ConversationList
from tui.widgets.message import AgentMessage
from tui.widgets.side_panel import SidePanel
from tui.widgets.trace_pane import TracePane
from tui.widgets.transcript import FIRST_WINDOW, Transcript

pytestmark = pytest.mark.anyio

ITEMS = 400


def with_widgets(shown: Transcript) -> int:
    return sum(1 for entry in shown.entries if entry.widget is not None)


FIRST, SECOND = "bench0000001", "bench0000002"


async def first_played(app: CodexDeckApp, pilot: Pilot[None]) -> Transcript:
    """Once the app is open, the first conversation shown with all of it played."""
    await until(pilot, lambda: app.opened, "the app opens")
    await app.main.show_conversation(FIRST)
    shown = app.main.view.transcript(FIRST)
    assert shown is not None
    await until(pilot, lambda: len(shown.entries) == ITEMS * 3 // 2, "all is played")
    return shown


async def test_a_transcript_out_of_view_lets_its_widgets_go_and_draws_its_latest_again(
    full_passes: list[int],
) -> None:
    recorded = conversation_of(ITEMS, 1) + conversation_of(ITEMS, 2)
    app = CodexDeckApp(Settings(), replay_backend(recorded))
    async with app.run_test(size=(100, 30)) as pilot:
        shown = await first_played(app, pilot)
        await until(pilot, lambda: with_widgets(shown) == FIRST_WINDOW, "its first window")
        await until(pilot, lambda: full_passes, "the app settled, its start cleared")
        answer = shown.query(AgentMessage).last()
        gone = weakref.ref(answer)
        del answer

        await app.main.show_conversation(SECOND)
        assert with_widgets(shown) > 0, "nothing is put away before the other is painted"
        await until(pilot, lambda: with_widgets(shown) == 0, "once painted, no widget kept")
        # Their removal from the DOM ends a moment after they are let go.
        await until(pilot, lambda: not shown.query(AgentMessage), "nor any child of one")
        assert len(shown.entries) == ITEMS * 3 // 2, "its entries stay"

        def freed() -> bool:
            gc.collect()
            return gone() is None

        # Freed once its own tasks have ended (Textual holds none of the removed widgets).
        await until(pilot, freed, "a widget let go is freed")

        await app.main.show_conversation(FIRST)
        latest = shown.entries[-1].widget
        assert latest is not None
        assert with_widgets(shown) < FIRST_WINDOW, "a screenful first"
        await until(pilot, lambda: with_widgets(shown) == FIRST_WINDOW, "then the rest")
        await until(pilot, lambda: latest.region.height > 0, "the latest is in view")
        assert shown.following, "the view is at the end"
        await shown.action_show_earlier()
        assert with_widgets(shown) > FIRST_WINDOW, "ctrl+home still brings earlier ones"


async def test_a_switch_is_painted_whole_never_half_made(monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = conversation_of(ITEMS, 1) + conversation_of(ITEMS, 2)
    app = CodexDeckApp(Settings(), replay_backend(recorded))
    painted: list[tuple[str | None, ...]] = []
    paint = PacedScreen._paint

    def noting(screen: PacedScreen) -> None:
        if screen is app.main:  # which conversation each part of the screen shows
            parts = (screen.view.current, screen.query_one(ConversationList).current)
            painted.append((*parts, screen.query_one(SidePanel).conversation_id))
        paint(screen)

    monkeypatch.setattr(PacedScreen, "_paint", noting)
    async with app.run_test(size=(100, 30)) as pilot:
        await first_played(app, pilot)
        for conversation in [SECOND, FIRST] * 3:
            await app.main.show_conversation(conversation)
            await until(pilot, lambda: painted[-1][0] == app.main.current, "the switch painted")
    assert painted
    assert [p for p in painted if len(set(p)) > 1] == [], "each frame shows one conversation"


def kinds(table: DataTable[str]) -> list[str]:
    """The trace pane's rows, by what each is."""
    return [str(table.get_row_at(n)[1]) for n in range(table.row_count)]


async def test_the_trace_pane_makes_a_conversation_s_rows_again_from_the_engine(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace_pane, "ROWS_OUT_OF_VIEW", 3)  # fewer than a turn makes
    async with deck() as (app, pilot):
        first = app.main.current
        await type_and_send(app, pilot, "show markdown")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        await pilot.press("ctrl+t")
        trace = app.main.query_one(TracePane)
        table: DataTable[str] = trace.query_one(DataTable)

        before = kinds(table)
        assert before.count("turn completed") == 1
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.main.current != first, "a new conversation shows")
        assert first is not None
        held = trace._rows[first]  # what the pane holds is the point
        assert len(held) == 3 < len(before)
        await pilot.press("ctrl+up")
        assert app.main.current == first
        await until(pilot, lambda: kinds(table) == before, "the same rows, made again")
        assert transcript(app).query(AgentMessage), "the transcript came back too"


async def test_the_trace_pane_closed_holds_few_rows_and_opened_shows_them_all_again(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace_pane, "ROWS_OUT_OF_VIEW", 3)  # fewer than a turn makes
    async with deck() as (app, pilot):
        shown = app.main.current
        assert shown is not None
        trace = app.main.query_one(TracePane)
        table: DataTable[str] = trace.query_one(DataTable)

        await type_and_send(app, pilot, "show markdown")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        assert len(trace._rows[shown]) == 3, "never opened: the latest rows only"
        await pilot.press("ctrl+t")
        await until(pilot, lambda: "turn completed" in kinds(table), "the pane shows the turn")
        first_turn = kinds(table)
        assert len(first_turn) > 3
        await pilot.press("ctrl+t")
        assert len(trace._rows[shown]) == 3, "closed: the latest rows only"
        await type_and_send(app, pilot, "show markdown")
        await until(pilot, lambda: len(turn_markers(app)) == 2, "the second turn ends")
        assert len(trace._rows[shown]) == 3
        await pilot.press("ctrl+t")
        await until(pilot, lambda: kinds(table).count("turn completed") == 2, "both turns shown")
        assert kinds(table)[: len(first_turn)] == first_turn, "the first turn's rows, made again"
        assert len(trace._rows[shown]) == table.row_count
