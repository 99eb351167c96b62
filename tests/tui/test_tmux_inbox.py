"""The inbox as a person uses it, in a real terminal: every request waiting in every
conversation, oldest first; prose typed while it is open answers nothing; Enter goes to the
chosen request's card in its conversation, where a key answers it, and only it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import CARD, PROSE, type_slowly
from tests.tui.tmux import COMMAND, Terminal, quit_app

TWO = "Inbox: 2 requests wait for your answer, oldest first"


def test_the_inbox_lists_every_request_and_goes_to_the_one_chosen(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("codex online")
    type_slowly(terminal, "", "approval")
    terminal.type("Enter")
    terminal.wait_for(CARD)
    terminal.type("C-n")
    terminal.wait_for("Conversation 2")
    type_slowly(terminal, "", "approval")
    terminal.type("Enter")
    terminal.wait_until(lambda: terminal.screen().count("[1]") == 2, "two requests listed")

    type_slowly(terminal, "", "/inbox")
    terminal.type("Enter")
    terminal.wait_for(TWO)
    screen = terminal.screen()
    first, second = screen.index("· Conversation 1"), screen.index("· Conversation 2")
    assert first < second, "oldest first"
    for key in PROSE:  # typed as if into the message box, with every key a card takes
        terminal.type("-l", key)
    terminal.wait_for(TWO)
    assert not (workspace / "out.txt").exists()
    assert "accepted" not in terminal.screen()

    terminal.type("Down", "Enter")  # the second: Conversation 2's
    terminal.wait_for("y Approve")  # its card has the keys
    assert TWO not in terminal.screen()
    terminal.type("y")
    terminal.wait_for("accepted")
    terminal.wait_for("turn completed")
    assert (workspace / "out.txt").read_text() == "hi-from-exec\n"
    assert terminal.screen().count("[1]") == 1, "Conversation 1's still waits"

    type_slowly(terminal, "", "/inbox")
    terminal.type("Enter")
    terminal.wait_for("Inbox: 1 request waits for your answer")
    assert "· Conversation 1" in terminal.screen()
    terminal.type("Escape")
    terminal.wait_until(lambda: "Inbox:" not in terminal.screen(), "the inbox to close")
    quit_app(terminal)
