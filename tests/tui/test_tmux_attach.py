"""Attached to a shared codex in a real terminal (tmux): ctrl+q detaches and stops nothing,
and the next codex-deck that attaches follows the turn that runs on, and can stop it; after a
reconnect, a conversation without turns is no error and ctrl+q ends cleanly."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.settings_source import load_settings
from engine.transport.binary import find_codex
from engine.transport.launch import launch_for
from tests.conftest import local_settings
from tests.tui.test_tmux_typing import type_slowly
from tests.tui.tmux import COMMAND, Terminal, at_the_shell, quit_app

DEADLINE_SECONDS = 30


@contextmanager
def listener(workspace: Path, url: str) -> Iterator[subprocess.Popen[str]]:
    """`codex app-server --listen URL` for the settings of the test, as a user starts it;
    entered once codex says it listens."""
    settings, _ = load_settings()
    launch = launch_for(settings, find_codex(settings.codex.binary).path, workspace)
    env = {**os.environ, "RUST_LOG": "codex_app_server_transport=info"}
    if launch.codex_home is not None:
        env["CODEX_HOME"] = str(launch.codex_home)
    server = subprocess.Popen(
        [*launch.argv(), "--listen", url],
        cwd=workspace,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stderr is not None
        for line in server.stderr:
            if "listening" in line:
                break
        else:
            raise AssertionError("codex app-server ended before it listened")
        yield server
    finally:
        server.kill()
        server.wait()


def attach(terminal: Terminal, config: Path, url: str) -> None:
    terminal.type(f"CODEX_DECK_CONFIG={config} {COMMAND} --connect {url}", "Enter")
    terminal.wait_for("codex online")


def test_quitting_an_attached_app_leaves_the_turn_running_and_the_next_one_follows_it(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    url = f"unix://{tmp_path / 'codex.sock'}"
    with listener(workspace, url) as server:
        attach(terminal, isolated_settings, url)
        type_slowly(terminal, "", "take your time")
        terminal.type("Enter")
        terminal.wait_for("Thinking this through")
        terminal.wait_for("• Working")

        terminal.type("C-q")
        terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit, asking nothing")
        assert server.poll() is None

        attach(terminal, isolated_settings, url)
        terminal.wait_for("• Working")
        assert "turn interrupted" not in terminal.screen()
        terminal.type("Escape")
        terminal.wait_for("Stop")
        terminal.wait_for("turn interrupted")
        quit_app(terminal)


def test_a_reconnect_is_quiet_about_a_conversation_without_turns_and_quitting_ends_cleanly(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    url = f"unix://{tmp_path / 'codex.sock'}"
    with listener(workspace, url) as first:
        attach(terminal, isolated_settings, url)
        first.kill()
        first.wait()
        terminal.wait_for("reconnecting to codex")
    with listener(workspace, url):
        terminal.wait_for("codex online")  # said once its threads are resumed
        shown = terminal.screen()
        assert "could not resume" not in shown, "a conversation with no turn loses nothing"
        quit_app(terminal)
    after = terminal.screen()
    assert "Traceback" not in after, after
    assert "Error" not in after.split("--connect", 1)[-1], after
