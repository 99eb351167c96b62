"""A real MCP server's forms answered in a real terminal (tmux): codex's question whether its
tool may run, then the server's own form, each filled from its card; the server receives the
answer."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import local_settings
from tests.e2e.test_mcp import SERVER
from tests.tui.test_tmux_typing import type_slowly
from tests.tui.tmux import Terminal, quit_app, start_app

LISTED = "MCP servers (codex's config):"


def status_bar(terminal: Terminal) -> str:
    return terminal.screen().rstrip("\n").splitlines()[-2]


def test_the_servers_form_is_filled_from_its_card_and_the_server_gets_it(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    answers = tmp_path / "answers.txt"
    mcp = [
        f'mcp_servers.deck.command="{sys.executable}"',
        f'mcp_servers.deck.args=["{SERVER}"]',
        f'mcp_servers.deck.env={{DECK_MCP_ANSWERS="{answers}"}}',
    ]
    settings = isolated_settings.read_text()
    listed = ", ".join(repr(entry) for entry in mcp)
    isolated_settings.write_text(
        settings.replace(
            'config = ["features.plugins=false"]', f'config = ["features.plugins=false", {listed}]'
        )
    )
    start_app(terminal, isolated_settings)
    # While codex starts the server, for codex and then for the conversation's thread, a turn
    # would not know its tools yet: a person waits for the bar, then asks /mcp until it runs.
    terminal.wait_until(lambda: "starting MCP" not in status_bar(terminal), "the server to start")
    for asked in range(1, 6):
        type_slowly(terminal, "", "/mcp")
        terminal.type("Enter")
        terminal.wait_until(
            lambda n=asked: terminal.screen().count(LISTED) >= n,  # type: ignore[misc]
            "/mcp's answer",
        )
        if "deck  running · 3 tools" in terminal.screen().split(LISTED)[-1]:
            break
    assert "deck  running · 3 tools" in terminal.screen().split(LISTED)[-1]
    type_slowly(terminal, "", "mcp form")
    terminal.type("Enter")

    terminal.wait_for('run tool "favourite_colour"?')
    terminal.type("C-g")
    terminal.wait_for("^s Send")
    terminal.type("C-s")
    terminal.wait_for("What is your favourite colour?")
    terminal.type("C-g")
    terminal.wait_for("^s Send")
    terminal.type("-l", "teal")
    terminal.type("C-s")

    terminal.wait_for("turn completed")
    assert answers.read_text() == "teal", "the server received the answer"
    quit_app(terminal)
