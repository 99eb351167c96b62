"""The inbox as a person uses it, in a real terminal: every request waiting in every
conversation and sub-agent, oldest first; prose typed while it is open answers nothing; Enter
goes to the chosen request's card in its conversation, where a key answers it, and only it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import local_settings
from tests.tui.test_tmux_typing import CARD, PROSE, type_slowly
from tests.tui.tmux import COMMAND, Terminal, quit_app

TWO = "Inbox: 2 requests wait for your answer, oldest first"


def two_waiting(terminal: Terminal, settings: Path, model_url: str, root: Path) -> Path:
    """The app in `terminal` with a request waiting in Conversation 1, then one in
    Conversation 2 (shown); returns the workspace."""
    workspace = local_settings(settings, model_url, root)
    terminal.type(f"CODEX_DECK_CONFIG={settings} {COMMAND}", "Enter")
    terminal.wait_for("codex online")
    type_slowly(terminal, "", "approval")
    terminal.type("Enter")
    terminal.wait_for(CARD)
    terminal.type("C-n")
    terminal.wait_for("Conversation 2")
    type_slowly(terminal, "", "approval")
    terminal.type("Enter")
    terminal.wait_until(lambda: terminal.screen().count("[1]") == 2, "two requests listed")
    return workspace


def test_the_inbox_lists_every_request_and_goes_to_the_one_chosen(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = two_waiting(terminal, isolated_settings, model_url, tmp_path)

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


def test_ctrl_g_goes_to_the_request_here_then_to_each_in_the_order_asked(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = two_waiting(terminal, isolated_settings, model_url, tmp_path)
    terminal.type("C-g")  # the one here first: Conversation 2's
    terminal.wait_for("y Approve")
    ids = re.findall(r"Run this command\?  \[(\w{4})\]", terminal.screen())
    terminal.type("C-g")  # then the next asked, around: Conversation 1's, in its conversation
    terminal.wait_until(lambda: shown_id(terminal) not in ("", ids[-1]), "the other card")
    first = shown_id(terminal)
    terminal.type("C-g")  # and around again
    terminal.wait_until(lambda: shown_id(terminal) == ids[-1], "the first card again")
    terminal.type("y")
    terminal.wait_for("turn completed")
    assert (workspace / "out.txt").read_text() == "hi-from-exec\n"
    assert terminal.screen().count("[1]") == 1, "the other still waits"
    assert first != ids[-1]
    quit_app(terminal)


def shown_id(terminal: Terminal) -> str:
    """The id of the request whose card has the keys, as the line under it names it."""
    found = re.search(r"\(or /approve (\w{4})\)", terminal.screen())
    return found[1] if found is not None and "y Approve" in terminal.screen() else ""


def test_a_sub_agents_request_is_in_the_inbox_and_answered_on_its_card(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = two_waiting(terminal, isolated_settings, model_url, tmp_path)
    terminal.type("C-n")
    terminal.wait_for("Conversation 3")
    type_slowly(terminal, "", "ask a helper")
    terminal.type("Enter")
    terminal.wait_until(lambda: terminal.screen().count("[1]") == 3, "three requests listed")
    # The sub-agent still asks once its parent's turn has ended: the list says so.
    terminal.wait_for("idle · 1 request waits")

    terminal.type("M-i")
    terminal.wait_for("Inbox: 3 requests wait for your answer, oldest first")
    # The rows: a screen read as the frame is written can hold its title and not them yet.
    terminal.wait_until(lambda: terminal.screen().count("waited ") == 3, "the inbox's rows")
    lines = terminal.screen().splitlines()
    asked = [line for line in lines if "waited " in line]
    assert [line.split("· ")[1].split()[:2] for line in asked] == [
        ["Conversation", "1"],
        ["Conversation", "2"],
        ["Conversation", "3"],
    ], terminal.screen()
    assert "· a sub-agent asks" in asked[2]
    assert "a sub-agent" not in asked[0] + asked[1]
    for key in PROSE:  # typed as if into the message box: nothing is answered
        terminal.type("-l", key)
    terminal.wait_for("Inbox: 3 requests wait")
    assert not (workspace / "out.txt").exists()

    terminal.type("Down", "Down", "Enter")
    terminal.wait_for("y Approve")
    assert "Sub-agent " in terminal.screen()
    terminal.type("y")
    terminal.wait_until(lambda: terminal.screen().count("[1]") == 2, "two left waiting")
    # The request is answered as the list shows; the sub-agent runs the command after.
    out = workspace / "out.txt"
    terminal.wait_until(
        lambda: out.exists() and out.read_text() == "hi-from-exec\n", "the approved command ran"
    )
    quit_app(terminal)
