"""An error in what the user set going is shown, and the app goes on: a file that cannot be
written, codex gone."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from engine.settings import LimitsSettings, Settings
from tests.conftest import local_settings
from tests.tui.conftest import Deck, transcript, until
from tests.tui.tmux import COMMAND, Terminal, message_box, quit_app
from tui.app import CodexDeckApp
from tui.widgets.composer import Composer
from tui.widgets.notes import TurnMarker
from tui.widgets.trace_pane import TracePane

pytestmark = pytest.mark.anyio


def said(app: CodexDeckApp) -> str:
    return "\n".join(str(notification.message) for notification in app._notifications)


async def test_a_trace_that_cannot_be_written_is_said_and_the_app_goes_on(
    deck: Deck, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`e` in the trace pane, in a directory that is gone: the app ended with WorkerFailed."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    async with deck() as (app, pilot):
        await pilot.press("ctrl+t")
        assert app.main.query_one(TracePane).display
        await pilot.press("e")
        await until(pilot, lambda: "The trace was not exported" in said(app), "the error shows")
        assert "No such file or directory" in said(app)
        assert app.is_running
        await pilot.press("ctrl+t")
        app.main.query_one(Composer).text = "count for me"
        await pilot.press("enter")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "a turn runs on")


async def test_actions_while_codex_is_gone_are_said_and_the_app_goes_on(deck: Deck) -> None:
    """codex killed and not restarted ([limits] restarts = 0): archiving (F8) ended the app
    with WorkerFailed: ConnectionClosed; it says why it cannot be done, and the app goes on."""
    settings = Settings(limits=LimitsSettings(restarts=0))
    async with deck(settings=settings) as (app, pilot):
        backend = app.main.backend
        assert backend is not None
        os.kill(backend.app_server_pid, signal.SIGKILL)  # type: ignore[attr-defined]
        status = app.main.status
        await until(pilot, lambda: "codex online" not in str(status.render()), "codex is gone")
        await pilot.press("f8")
        await until(pilot, lambda: "The conversation was not archived" in said(app), "why not")
        assert "killed by SIGKILL" in said(app)
        assert "\x1b[" not in said(app), "codex's log colours are not shown raw"
        assert app.is_running
        await pilot.press("ctrl+n")
        await until(pilot, lambda: len(backend.conversations()) == 2, "the app goes on")


def toasts(screen: str) -> str:
    """The text of the notifications on `screen` (right of their border), a line at a time."""
    lines = [line.rsplit("▌", 1)[1].strip() for line in screen.splitlines() if "▌" in line]
    return " ".join(" ".join(lines).split())


def test_typos_in_the_settings_are_told_on_the_screen(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    """An unknown key, a theme there is not and a key for a binding nothing has: the app
    starts as it would without them and says so on its screen (the unknown key was printed
    only before the app took the terminal, and the other two were silently dropped)."""
    local_settings(isolated_settings, model_url, tmp_path)
    with isolated_settings.open("a") as settings:
        settings.write('[ui]\ntheme = "codex-deck-drak"\nkeys = {"trace.togle" = "ctrl+r"}\n')
        settings.write("[colours]\nbackground = 'black'\n")
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("codex online")
    terminal.wait_for("did you mean 'trace.toggle'?")
    screen = toasts(terminal.screen())
    assert "unknown key 'colours' is ignored" in screen
    assert "[ui] theme 'codex-deck-drak' is no theme here" in screen
    assert "did you mean 'codex-deck-dark'?" in screen
    terminal.type("run a command", "Enter")
    terminal.wait_for("I listed the work")  # and it runs as ever


def test_a_bad_setting_in_a_terminal_is_told_on_the_screen_and_what_is_typed_stays(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    """The settings are read and checked once the first frame is painted: a wrong value
    keeps the app from starting codex and says which key, where and why; the message typed
    meanwhile stays in its box, and ctrl+q closes the app."""
    local_settings(isolated_settings, model_url, tmp_path)
    with isolated_settings.open("a") as settings:
        settings.write("[limits]\nrunning_conversations = 0\n")
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("Type a message")
    terminal.type("-l", "please count")
    terminal.wait_for("settings need fixing")
    terminal.wait_for("should be at least 1")
    screen = " ".join(terminal.screen().split())
    assert "limits.running_conversations: should be at least 1 (got 0)" in screen
    assert "please count" in message_box(terminal.screen())
    quit_app(terminal)


def test_a_store_that_cannot_be_opened_is_named_and_the_app_runs_without_it(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    """A directory where the store's file must be: the question names the store, not codex;
    y runs the user's codex without a store, and a message gets its answer."""
    local_settings(isolated_settings, model_url, tmp_path)
    (tmp_path / "store.sqlite3").mkdir()
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("Run without it?")
    screen = " ".join(terminal.screen().replace("│", " ").split())
    assert "codex-deck's store cannot be used: cannot create the store at" in screen
    assert "Is a directory" in screen
    assert "codex could not start" not in screen
    terminal.type("y")
    terminal.wait_for("codex online")
    terminal.type("-l", "count for me")
    terminal.type("Enter")
    terminal.wait_for("turn completed")
    quit_app(terminal)


def test_a_store_that_cannot_be_opened_and_no_to_going_without_it_says_why(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    (tmp_path / "store.sqlite3").mkdir()
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("Run without it?")
    terminal.type("n")
    terminal.wait_for("the store cannot be used")
    assert "[store] path" in " ".join(terminal.screen().replace("│", " ").split())
    quit_app(terminal)
