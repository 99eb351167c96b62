"""A sub-agent's approval in a real terminal (tmux): it shows in the conversation that spawned
it, named as the sub-agent's, and a key on its card answers it; above the message box, the
sub-agent's line says what it is at while it runs."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import type_slowly
from tests.tui.tmux import Terminal, quit_app, start_app


def key_bar(terminal: Terminal) -> str:
    return terminal.screen().rstrip("\n").splitlines()[-1]


def test_a_sub_agents_approval_shows_here_and_is_answered_from_its_card(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    start_app(terminal, isolated_settings)
    type_slowly(terminal, "", "ask a helper")
    terminal.type("Enter")

    terminal.wait_for("· Run this command?")
    assert "Sub-agent " in terminal.screen()
    terminal.wait_until(
        lambda: any(
            "↳ sub-agent " in line and "waiting for your answer · running `" in line
            for line in terminal.screen().splitlines()
        ),
        "the sub-agent's line to say it waits at its command",
    )
    assert not (workspace / "out.txt").exists()
    terminal.type("C-g")
    terminal.wait_for("y Approve")
    terminal.type("y")

    terminal.wait_until(lambda: "completed." in terminal.screen(), "the sub-agent's end")
    assert (workspace / "out.txt").read_text() == "hi-from-exec\n"
    terminal.wait_until(lambda: "↳ sub-agent " not in terminal.screen(), "its line to go")

    for _ in range(6):  # back from the message box, a widget at a time, to the sub-agent's line
        if "Sub-agent's transcript" in key_bar(terminal):
            break
        before = key_bar(terminal)
        terminal.type("BTab")
        terminal.wait_until(lambda b=before: key_bar(terminal) != b, "the focus to move")  # type: ignore[misc]
    assert "Sub-agent's transcript" in key_bar(terminal)
    terminal.type("Enter")
    terminal.wait_for("› approval")  # its own transcript: the message it was given
    quit_app(terminal)
