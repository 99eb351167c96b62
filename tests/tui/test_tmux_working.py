"""In a real terminal (tmux): the user's own `!command`, the working line while it runs, and
Esc stopping it, with what is typed meanwhile kept in the message box."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import flat, type_slowly
from tests.tui.tmux import Terminal, message_box, quit_app, start_app

RUNNING = "running `sleep 120`"


def sleeping() -> bool:
    """Whether a `sleep 120` runs on this machine."""
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\x00") if entry.name.isdigit() else []
        except OSError:
            continue
        if words[:3] == [b"sleep", b"120", b""] or words[-2:] == [b"sleep 120", b""]:
            return True
    return False


def test_a_shell_command_shows_the_working_line_and_esc_stops_it(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    start_app(terminal, isolated_settings)
    type_slowly(terminal, "", "!sleep 120")
    terminal.type("Enter")
    terminal.wait_until(
        lambda: "• Working" in (s := terminal.screen()) and RUNNING in s, "the working line"
    )
    # The working line and the transcript are painted as they come, not in one frame.
    terminal.wait_until(lambda: "$ sleep 120" in terminal.screen(), "the command's cell")
    assert "your command, in the sandbox" in terminal.screen()
    terminal.wait_until(sleeping, "the command to run")
    type_slowly(terminal, "", "meanwhile I write")

    terminal.type("Escape")

    terminal.wait_for("turn interrupted")
    terminal.wait_until(lambda: "• Working" not in terminal.screen(), "the line to go")
    assert flat(message_box(terminal.screen())) == flat("meanwhile I write")
    terminal.wait_until(lambda: not sleeping(), "the command to be stopped")
    quit_app(terminal)
