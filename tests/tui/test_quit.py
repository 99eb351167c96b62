"""/quit and /exit close the app as ctrl+q does: at once, or, while a request waits for an
answer, once the user says yes (quitting declines it)."""

from __future__ import annotations

from pathlib import Path

from tests.tui.tmux import COMMAND, Terminal, at_the_shell, message_box
from tui.widgets.draft import PLACEHOLDER


def test_quit_closes_the_app(terminal: Terminal, isolated_settings: Path) -> None:
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    terminal.wait_for("offline demo")
    terminal.type("-l", "/quit")
    terminal.type("Enter")
    terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")


def test_exit_with_a_request_waiting_asks_first_and_no_keeps_it(
    terminal: Terminal, isolated_settings: Path
) -> None:
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    terminal.wait_for("offline demo")
    terminal.type("-l", "approval")
    terminal.type("Enter")
    terminal.wait_for("⚠ Run this command?")
    terminal.type("-l", "/exit")
    terminal.type("Enter")
    terminal.wait_for("declines it. Quit?")
    terminal.type("n")
    terminal.wait_until(lambda: "Quit?" not in terminal.screen(), "the question gone")
    assert "Run this command?" in terminal.screen(), "the request still waits"
    assert not at_the_shell(terminal)
    terminal.wait_until(lambda: message_box(terminal.screen()) == PLACEHOLDER, "an empty box")
    terminal.type("-l", "/quit")
    terminal.type("Enter")
    terminal.wait_for("declines it. Quit?")
    terminal.type("y")
    terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")
