"""A side answer brought home, as a person does it in a real terminal: asked aside, alt+h in
the side panel, the line above the message box says it goes with the next message, the
message typed at human speed meanwhile stays; sent, codex is given the answer ahead of the
message, and the line is gone."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import asked, type_slowly
from tests.tui.tmux import COMMAND, Terminal, message_box, quit_app

BROUGHT = "↳ [side answer s1: what did you"
"""The line above the message box (the side panel leaves the conversation a narrow column)."""
SIDE_ANSWER_END = "this side chat changes nothing"


def test_a_side_answer_brought_home_goes_with_the_next_message(
    terminal: Terminal,
    isolated_settings: Path,
    model_url: str,
    model_requests: Path,
    tmp_path: Path,
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("codex online")
    type_slowly(terminal, "", "count for me")
    terminal.type("Enter")
    terminal.wait_for("turn completed")

    terminal.type("F4")
    terminal.wait_for("Ask aside")
    for key in "what did you do?":
        terminal.type("-l", key)
    terminal.type("Enter")
    terminal.wait_for(SIDE_ANSWER_END)
    terminal.type("M-h")
    terminal.wait_for(BROUGHT)
    terminal.wait_for("Brought in from side chat s1")

    terminal.type("Escape")  # back to the message box, as its keys below say
    terminal.wait_until(lambda: "f5 Close side chat" not in terminal.screen(), "the box focused")
    type_slowly(terminal, "", "please count again")
    assert message_box(terminal.screen()) == "please count again"
    terminal.type("Enter")

    def sent_with_it() -> bool:
        return any(
            text.startswith("[The user brings in this answer from a side chat")
            and text.endswith("\n\nplease count again")
            for text in asked(model_requests)
        )

    terminal.wait_until(sent_with_it, "the answer sent ahead of the message")
    terminal.wait_until(lambda: BROUGHT not in terminal.screen(), "the line gone once sent")
    terminal.wait_for("turn completed")
    quit_app(terminal)
