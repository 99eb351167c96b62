"""/diff typed in a real terminal (tmux): the diff opens in a screen with its file list, a file
chosen shows its diff, esc closes; outside a git checkout it says why and keeps the line."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.e2e.test_diffs import checkout
from tests.tui.test_tmux_typing import flat, type_slowly
from tests.tui.tmux import Terminal, message_box, quit_app, start_app


def test_diff_shows_the_files_and_each_diff(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    checkout(workspace)
    start_app(terminal, isolated_settings)
    type_slowly(terminal, "", "/diff")
    terminal.type("Enter")

    terminal.wait_for("-bye")  # the first file's diff: git lists gone.txt first
    screen = terminal.screen()
    assert "D gone.txt" in screen
    assert "M kept.txt" in screen
    assert "A fresh.txt" in screen
    terminal.type("Down")
    terminal.wait_for("+two")
    terminal.type("Escape")
    terminal.wait_until(lambda: "M kept.txt" not in terminal.screen(), "the diff to close")
    quit_app(terminal)


def test_diff_outside_a_checkout_says_why_and_keeps_the_line(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    start_app(terminal, isolated_settings)
    type_slowly(terminal, "", "/diff")
    terminal.type("Enter")

    terminal.wait_until(
        lambda: "isnotagitcheckout" in flat(terminal.screen()), "why there is no diff"
    )
    # Waited for as well: a full suite's run once read the screen with the reason shown and
    # the box not yet drawn again; a line lost would never show.
    terminal.wait_until(
        lambda: flat(message_box(terminal.screen())) == "/diff", "the line kept in the box"
    )
    quit_app(terminal)
