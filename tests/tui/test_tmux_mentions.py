"""`@` file mentions typed in a real terminal (tmux): the list follows what is typed, tab puts
the file in, esc closes the list and nothing else; what is sent names the file."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import asked, flat, type_slowly
from tests.tui.tmux import Terminal, message_box, quit_app, start_app

TARGET = "src/zebra_stripes.py"


def test_an_at_mention_finds_the_file_and_tab_puts_it_in_the_message(
    terminal: Terminal,
    isolated_settings: Path,
    model_url: str,
    model_requests: Path,
    tmp_path: Path,
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    for name in (TARGET, "src/app.py", "docs/zebra.md", "README.md"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("")
    start_app(terminal, isolated_settings)

    type_slowly(terminal, "", "count for me, see @zebst")
    terminal.wait_until(
        lambda: TARGET in (s := terminal.screen()) and "docs/zebra.md" not in s,
        "the list of what `zebst` matches",
    )
    terminal.type("Tab")
    terminal.wait_until(
        lambda: flat(message_box(terminal.screen())) == flat(f"count for me, see {TARGET}"),
        "the file in the message",
    )
    type_slowly(terminal, f"count for me, see {TARGET} ", "and @READ")
    terminal.wait_for("README.md")
    terminal.type("Escape")
    terminal.wait_until(lambda: "README.md" not in terminal.screen(), "the list to close")
    assert "turn interrupted" not in terminal.screen()
    terminal.type("Enter")

    terminal.wait_for("turn completed")
    assert asked(model_requests) == [f"count for me, see {TARGET} and @READ"]
    quit_app(terminal)
