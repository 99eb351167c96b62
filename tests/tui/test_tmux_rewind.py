"""Esc Esc in a real terminal (tmux): with nothing running, an earlier message is chosen, the
conversation goes back before it in a new conversation with the message in the box to edit,
and the old one stays in the list as it was."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import flat, type_slowly
from tests.tui.tmux import Terminal, message_box, quit_app, start_app


def test_esc_esc_goes_back_to_an_earlier_message_and_keeps_the_old_path(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    start_app(terminal, isolated_settings)
    for number, text in enumerate(("count for me", "show markdown"), 1):
        type_slowly(terminal, "", text)
        terminal.type("Enter")
        terminal.wait_until(
            lambda n=number: terminal.screen().count("turn completed") >= n,  # type: ignore[misc]
            f"turn {number}",
        )

    terminal.type("Escape", "Escape")

    terminal.wait_for("Go back to before which message?")
    terminal.type("Enter")  # the newest is first: show markdown
    terminal.wait_for("Gone back to before a message of 'Conversation 1'")
    terminal.wait_until(
        lambda: flat(message_box(terminal.screen())) == flat("show markdown"), "the message"
    )
    screen = terminal.screen()
    assert "· Conversation 1 · rew" in screen, "the new conversation, shown"
    listed = [line[:28].strip(" ·▎") for line in screen.splitlines()]
    assert "Conversation 1" in listed, "the old one still in the list"
    assert "› show markdown" not in screen, "the transcript stops before the message"
    quit_app(terminal)
