"""Typing while codex-deck starts: the first frame's message box takes keys, a message sent
before codex is up is held (Esc lets it be edited again) and goes once it is up, on the real
engine."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from bench.figures import idle_conversation
from engine.errors import CodexNotFound
from engine.events import ConversationUpdated
from engine.frontend import Backend
from engine.replay import replay_backend
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.offline import offline_settings
from tests.tui.conftest import DEADLINE_SECONDS, Deck, engine_on, ready, transcript, until
from themes import STYLESHEET
from themes.built import DARK, THEMES
from tui.app import CodexDeckApp
from tui.pacing import PacedScreen
from tui.screens.main import MainScreen
from tui.screens.starting import StartingBox, StartingScreen
from tui.widgets.composer import Composer
from tui.widgets.draft import HELD, PLACEHOLDER, Draft
from tui.widgets.message import UserMessage
from tui.widgets.notes import TurnMarker

pytestmark = pytest.mark.anyio


class FirstFrame(App[None]):
    """The app's first frame alone, in the app's look, showing `welcome`."""

    CSS_PATH = STYLESHEET

    def __init__(self, welcome: str = "welcome") -> None:
        super().__init__()
        self._welcome = welcome

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = DARK.name
        self.push_screen(StartingScreen(self._welcome))


def status(app: App[None]) -> str:
    return str(app.screen.query_one("#starting-status", Static).render())


async def test_the_first_frame_takes_keys_and_holds_a_message_sent_until_esc() -> None:
    app = FirstFrame()
    async with app.run_test(size=(100, 20)) as pilot:
        box = app.screen.query_one(StartingBox)
        assert app.focused is box
        assert box.placeholder == PLACEHOLDER
        await pilot.press("enter")
        assert box.draft == Draft("", (0, 0), None), "an empty message is not held"
        await pilot.press(*"count", "shift+enter", *"for me")
        assert box.text == "count\nfor me"
        await pilot.press("enter")
        assert box.draft.held == "auto"
        assert box.read_only
        assert HELD in status(app)
        await pilot.press(*"xyz")
        assert box.text == "count\nfor me", "a held message is not edited"
        await pilot.press("escape")
        assert box.draft.held is None
        assert not box.read_only
        assert HELD not in status(app)
        await pilot.press("backspace", "tab")
        assert box.draft.text == "count\nfor m"
        assert box.draft.held == "queue"


async def test_a_message_sent_while_codex_starts_goes_once_it_is_up(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    """Typed from the first instant: whether the keys reach the first frame's box or the
    main screen's, the text and the Enter are kept, and the message goes once the engine
    (held back here until the test lets it open) is up."""
    settings = offline_settings(Settings(), scripted_model, codex_home)
    opening = anyio.Event()

    @asynccontextmanager
    async def open_when_let() -> AsyncIterator[Backend]:
        await opening.wait()
        async with engine_on(settings, workspace) as backend:
            yield backend

    app = CodexDeckApp(settings, open_when_let, welcome="welcome", demo_tour="tour")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press(*"count for me", "enter")
        await until(pilot, lambda: app.opened, "the main screen is shown")
        composer = app.main.query_one(Composer)
        note = app.main.query_one("#composer-note", Static)
        assert (composer.text, composer.held, composer.read_only) == ("count for me", "auto", True)
        assert note.display
        assert HELD in str(note.render())
        await pilot.press("escape")
        assert (composer.draft.held, composer.read_only, note.display) == (None, False, False)
        await pilot.press(*" now", "enter")
        assert composer.draft.held == "auto"
        composer.remember("sent before")
        await pilot.press("up", "shift+enter", *"xy")
        assert composer.text == "count for me now", "a held message stays as it was sent"
        assert not app.main.backend, "nothing is sent before the engine is up"
        opening.set()
        await until(pilot, lambda: ready(app.main), "the engine is up")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the turn ends")
        assert [m.text for m in transcript(app).query(UserMessage)] == ["count for me now"]
        assert composer.draft == Draft("", (0, 0), None)
        assert not composer.read_only
        assert not note.display
        await app.shut_down()


async def test_keys_that_come_while_the_main_screen_is_made_reach_its_composer(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys typed while the main screen takes the first frame's place (here: as it composes)
    are neither on the first frame's box nor yet on a focused composer; they are kept."""
    compose = MainScreen.compose

    def typed_meanwhile(screen: MainScreen) -> ComposeResult:
        for key in "abc":
            screen.app.post_message(events.Key(key, key))
        yield from compose(screen)

    monkeypatch.setattr(MainScreen, "compose", typed_meanwhile)
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        await until(pilot, lambda: composer.text == "abc", "the keys show")


async def test_a_message_held_while_codex_is_away_goes_once_when_it_comes_back_at_once(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    """codex is back before the screen has read the message held for it: the message goes
    once (when it is let go), not also as it was first sent."""
    async with deck() as (app, pilot):
        view = app.main.view
        composer = view.composer
        backend = app.main.backend
        assert backend is not None
        lines: list[str] = []
        execute = backend.execute

        async def counted(conversation_id: str, line: str) -> object:
            lines.append(line)
            return await execute(conversation_id, line)

        monkeypatch.setattr(backend, "execute", counted)
        view.codex_away("restarting")
        composer.text = "count for me"
        composer.submit("auto")
        assert composer.held == "auto"
        view.codex_away("")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the turn ends")
        await pilot.pause()
        assert lines == ["count for me"]
        assert [m.text for m in transcript(app).query(UserMessage)] == ["count for me"]


def test_the_main_screen_leaves_markdown_and_highlighting_until_they_are_drawn() -> None:
    """Some 40 ms of start-up: the Markdown parser and the highlighter are imported in a fresh
    interpreter only once something is drawn with them (the app imports them in a thread once
    it is ready)."""
    script = (
        "import sys, tui.screens.main\n"
        "heavy = ('markdown_it', 'rich.markdown', 'rich.syntax', 'pygments')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
        "from tui.markdown import markdown\n"
        "markdown('*drawn*', dark=True)\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["", "markdown_it,rich.markdown,rich.syntax,pygments"]


async def test_a_message_held_when_codex_cannot_start_stays_with_the_reason() -> None:
    failing = anyio.Event()

    @asynccontextmanager
    async def cannot_start() -> AsyncIterator[Backend]:
        await failing.wait()
        raise CodexNotFound("cannot run /nowhere/codex: No such file or directory")
        yield  # an async context manager that never opens

    app = CodexDeckApp(Settings(), cannot_start, welcome="welcome", demo_tour="tour")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press(*"count for me", "enter")
        await until(pilot, lambda: app.opened, "the main screen is shown")
        composer = app.main.query_one(Composer)
        assert composer.draft.held == "auto"
        failing.set()
        await until(pilot, lambda: app.main.status.engine_state != "starting codex…", "it fails")
        assert app.main.status.engine_state == "codex failed to start"
        note = app.main.query_one("#composer-note", Static)
        assert composer.draft == Draft("count for me", (0, 12), None)
        assert not composer.read_only
        assert note.display
        assert not note.has_class("-info"), "the reason is shown as an error"
        assert "cannot run /nowhere/codex" in str(note.render())
        await pilot.press("enter")
        assert composer.draft.held is None, "nothing is held for a codex that cannot start"
        assert "cannot run /nowhere/codex" in str(note.render())


def test_the_first_frame_is_painted_before_pydantic_is_imported() -> None:
    """pydantic and pydantic-settings are some 100 ms of imports, annotated-types (what they
    check a setting's bounds with) 7: what runs before the first paint (the command, the app,
    the first frame's settings) leaves them for after it."""
    script = (
        "import sys, tui.cli, tui.app, tui.startup, tui.screens.starting\n"
        "from engine.settings import file_tables, first_frame_ui\n"
        "first_frame_ui(file_tables())\n"
        "heavy = ('pydantic', 'pydantic_settings', 'annotated_types')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


async def test_the_settings_are_checked_again_after_the_frame_that_shows_the_engine_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The second check of the settings imports pydantic (some 100 ms of CPU, in a thread
    that shares the interpreter with the app): it begins once the frame that shows the engine
    up has been painted, not beside it. What it finds is told."""
    up = anyio.Event()
    held = True
    backend_ready = MainScreen.backend_ready
    paint = PacedScreen._paint

    async def noting(main: MainScreen, *args: Any) -> None:
        await backend_ready(main, *args)
        up.set()

    held_frames: list[PacedScreen] = []

    def painting(screen: PacedScreen) -> None:
        if held and up.is_set():
            held_frames.append(screen)  # a frame the screen would have painted
        else:
            paint(screen)

    monkeypatch.setattr(MainScreen, "backend_ready", noting)
    monkeypatch.setattr(PacedScreen, "_paint", painting)
    checked: list[str] = []

    def check_again() -> list[str]:
        checked.append(app.main.status.engine_state)
        return ["a key codex-deck does not know"]

    shown = ConversationUpdated(
        seq=1, at=4e9, conversation_id="c1", info=idle_conversation("c1", "settled")
    )
    app = CodexDeckApp(Settings(), replay_backend([shown]), check_again=check_again)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, up.is_set, "the engine is shown up")
        await until(pilot, lambda: len(held_frames) >= 3, "frames come and are held back")
        assert not checked, "not checked before the frame that shows the engine up"
        held = False
        await until(pilot, lambda: checked, "the settings are checked again")
        await until(
            pilot,
            lambda: any("does not know" in str(n.message) for n in app._notifications),
            "what the check found is told",
        )


async def test_the_conversation_and_the_engine_up_are_shown_in_one_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the engine is up, the frame that shows its conversation also says so, and is
    painted at once: not the conversation first and the state a paced frame later (some
    50 ms of the start). Here the screen handles what showing the conversation asked of it
    before the rest is shown (as when codex's start-up notices are put in the transcript)."""
    frames: list[tuple[str | None, str]] = []
    paint = PacedScreen._paint
    show_conversation = MainScreen.show_conversation

    def noting(screen: PacedScreen) -> None:
        paint(screen)
        if isinstance(screen, MainScreen):
            frames.append((screen.current, screen.status.engine_state))

    async def slowly(main: MainScreen, conversation_id: str) -> None:
        await show_conversation(main, conversation_id)
        handled = anyio.Event()
        main.call_later(handled.set)  # queued after what showing it asked (a frame, say)
        with anyio.fail_after(DEADLINE_SECONDS):
            await handled.wait()

    monkeypatch.setattr(PacedScreen, "_paint", noting)
    monkeypatch.setattr(MainScreen, "show_conversation", slowly)
    shown = ConversationUpdated(
        seq=1, at=4e9, conversation_id="c1", info=idle_conversation("c1", "settled")
    )
    app = CodexDeckApp(Settings(), replay_backend([shown]))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: ("c1", "replay (read-only)") in frames, "the engine is up")
        first = next(frame for frame in frames if frame[0] == "c1")
        assert first == ("c1", "replay (read-only)")
