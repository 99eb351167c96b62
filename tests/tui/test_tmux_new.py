"""/new typed in a real terminal (tmux): a new conversation on a clean screen, the one before
kept in the list."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import type_slowly
from tests.tui.tmux import Terminal, quit_app, start_app


def test_new_starts_on_a_clean_screen(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    start_app(terminal, isolated_settings)
    type_slowly(terminal, "", "count for me")
    terminal.type("Enter")
    terminal.wait_for("turn completed")

    type_slowly(terminal, "", "/new fresh start")
    terminal.type("Enter")

    terminal.wait_until(
        lambda: "· fresh start" in (s := terminal.screen()) and "count for me" not in s,
        "the new conversation shown",
    )
    screen = terminal.screen()
    assert "turn completed" not in screen, "nothing of the conversation before"
    assert "Conversation 1" in screen, "the one before, in the list"
    quit_app(terminal)
