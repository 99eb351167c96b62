"""In a real terminal (tmux): the status bar warns once most of a usage limit is used."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import type_slowly
from tests.tui.tmux import Terminal, quit_app, start_app

WARNING = "⚠ 85% of the 5-hour limit used"


def test_the_status_bar_warns_near_a_usage_limit(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    start_app(terminal, isolated_settings)
    type_slowly(terminal, "", "count for me")
    terminal.type("Enter")
    terminal.wait_for("turn completed")
    assert "limit used" not in terminal.screen()

    type_slowly(terminal, "", "near the limit")
    terminal.type("Enter")

    terminal.wait_for(WARNING)
    [bar] = [line for line in terminal.screen().splitlines() if WARNING in line]
    assert " · codex online · ⚠ 85%" in bar, "in the status bar, the app running"
    quit_app(terminal)
