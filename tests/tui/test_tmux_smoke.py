"""Smoke test: the real `codex-deck --demo` in a real terminal (tmux), typed into with
send-keys and read back with capture-pane."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

COMMAND = Path(sys.executable).parent / "codex-deck"
DEADLINE_SECONDS = 60


class Terminal:
    """A tmux session whose output is piped to a FIFO, so waiting wakes when the screen changes."""

    def __init__(self, name: str, fifo: Path) -> None:
        self.name = name
        self._fifo = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", *args], capture_output=True, text=True, check=True)
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def type(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_until(self, condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.screen()}")
            readable, _, _ = select.select([self._fifo], [], [], remaining)
            if readable:
                os.read(self._fifo, 1 << 16)

    def wait_for(self, text: str) -> None:
        self.wait_until(lambda: text in self.screen(), repr(text))

    def close(self) -> None:
        os.close(self._fifo)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    assert shutil.which("tmux"), "this test needs tmux (.ci/run installs it)"
    name = f"deck-{uuid.uuid4().hex[:8]}"
    fifo = tmp_path / "screen.fifo"
    os.mkfifo(fifo)
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "36", "bash --norc"],
        check=True,
        env={**os.environ, "PS1": "$ "},
    )
    subprocess.run(["tmux", "pipe-pane", "-o", "-t", name, f"cat > {fifo}"], check=True)
    term = Terminal(name, fifo)
    try:
        yield term
    finally:
        term.close()
        subprocess.run(["tmux", "kill-session", "-t", name], check=False)


def test_the_demo_answers_a_typed_prompt(terminal: Terminal, isolated_settings: Path) -> None:
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    terminal.wait_for("Welcome to the codex-deck demo")
    terminal.wait_for("offline demo")
    terminal.type("show markdown")
    terminal.wait_for("show markdown")
    terminal.type("Enter")
    terminal.wait_for("That is all of it.")
    terminal.wait_for("turn completed")
    screen = terminal.screen()
    assert "Streaming Markdown" in screen
    assert "› show markdown" in screen
    terminal.type("C-q")
    terminal.wait_until(
        lambda: (
            terminal.tmux("display", "-p", "-t", terminal.name, "#{pane_current_command}")
            .strip()
            .startswith("bash")
        ),
        "codex-deck to exit",
    )
