"""codex away at start, in a real terminal (tmux): the app opens on what the store keeps (the
conversation and its answer), says codex could not be reached and that it is being reached
again; a message typed meanwhile waits in the box, saying so, can be taken back with Esc, and
goes once codex is back — once."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import local_settings
from tests.reliability.report import Ledger, asked_in, lost_and_reruns
from tests.tui.test_tmux_attach import attach, listener
from tests.tui.test_tmux_typing import type_slowly
from tests.tui.tmux import COMMAND, Terminal, message_box, quit_app
from tui.widgets.draft import PLACEHOLDER

AWAY = "codex is away"


def test_a_message_typed_while_codex_is_away_waits_in_the_box_and_goes_once_it_is_back(
    terminal: Terminal,
    isolated_settings: Path,
    model_url: str,
    model_requests: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    url = f"unix://{tmp_path / 'codex.sock'}"
    with listener(workspace, url):
        attach(terminal, isolated_settings, url)
        type_slowly(terminal, "", "count for me")
        terminal.type("Enter")
        terminal.wait_for("turn completed")
        quit_app(terminal)

    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --connect {url}", "Enter")
    terminal.wait_for("codex could not be reached")
    terminal.wait_for("reconnecting to codex")
    terminal.wait_for("nineteen twenty")  # the answer kept in the store

    text = "please count for me again"
    type_slowly(terminal, "", text)
    terminal.type("Enter")
    terminal.wait_for(AWAY)
    assert message_box(terminal.screen()) == text, "the message waits in the box"
    terminal.type("Escape")
    terminal.wait_until(lambda: AWAY not in terminal.screen(), "esc to take the message back")
    type_slowly(terminal, text, " now")
    terminal.type("Enter")
    terminal.wait_for(AWAY)

    with listener(workspace, url):
        terminal.wait_for("codex online")
        terminal.wait_until(
            lambda: terminal.screen().count("turn completed") == 2, "the message to be answered"
        )
        assert message_box(terminal.screen()) == PLACEHOLDER, "it went from the box"
        assert AWAY not in terminal.screen()
        quit_app(terminal)
    lost, reruns = lost_and_reruns(asked_in(model_requests), ["count for me", f"{text} now"])
    assert (lost, reruns) == (0, 0)
    tally(
        "fault",
        "codex away at start (tmux): the store's conversation shown, a typed message held, "
        "sent once when it is back",
        lost=lost,
        reruns=reruns,
    )
