"""Hunks taken back, as a person does it in a real terminal: a change of two hunks asked while
prose is typed (nothing answered), ctrl+g then r reviews it hunk by hunk, space marks the
second, Enter, the reason typed, Enter: the workspace holds exactly the first hunk. Then
/revert takes the first back too: the file is as before the change, byte for byte."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import PROSE, asked, flat, type_slowly
from tests.tui.tmux import COMMAND, Terminal, message_box, quit_app

STORY = "".join(f"line {n}\n" for n in range(1, 15))
CARD = "Apply these changes?"


def test_a_change_reviewed_hunk_by_hunk_ends_as_reviewed(
    terminal: Terminal,
    isolated_settings: Path,
    model_url: str,
    model_requests: Path,
    tmp_path: Path,
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    (workspace / "story.txt").write_text(STORY)
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("codex online")
    type_slowly(terminal, "", "/approvals untrusted")
    terminal.type("Enter")
    terminal.wait_for("Approvals: untrusted")
    type_slowly(terminal, "", "edit two places")
    terminal.type("Enter")
    type_slowly(terminal, "", PROSE)  # as the card comes: every card key among them
    terminal.wait_for(CARD)
    assert flat(message_box(terminal.screen())) == flat(PROSE)
    assert (workspace / "story.txt").read_text() == STORY, "nothing answered"

    terminal.type("C-g")
    terminal.wait_for("r Review hunks")  # the card has the keys
    terminal.type("r")
    terminal.wait_for("Accept with hunks taken back?")
    screen = terminal.screen()
    assert screen.count("[keep]") == 2
    terminal.type("Down")
    terminal.type("Space")
    terminal.wait_for("[take back]")
    terminal.type("Enter")
    terminal.wait_for("Why?")
    for key in "keep line 10":
        terminal.type("-l", key)
    terminal.wait_for("keep line 10")
    terminal.type("Enter")

    def told() -> bool:  # in the running turn (its reply may scroll the notice away)
        return any(text.startswith("I took back these hunks") for text in asked(model_requests))

    terminal.wait_until(told, "codex told in the turn")
    terminal.wait_for("turn completed")
    after = STORY.replace("line 2\n", "LINE TWO\n")
    assert (workspace / "story.txt").read_bytes() == after.encode()

    terminal.type("C-u")  # the prose typed before: cleared
    type_slowly(terminal, "", "/revert")
    terminal.type("Enter")
    terminal.wait_for("Take back hunks of the latest change")
    terminal.type("Space")  # the first hunk
    terminal.wait_for("[take back]")
    terminal.type("Enter")
    terminal.wait_for("Why?")
    terminal.type("Enter")
    terminal.wait_for("codex is told with your next message")
    assert (workspace / "story.txt").read_bytes() == STORY.encode()
    terminal.wait_for("[taken back: hunks in 1 file]")
    type_slowly(terminal, "", "/revert 2")  # there is no change before it
    terminal.type("Enter")
    terminal.wait_for("Only 1 change codex applied here")
    quit_app(terminal)
