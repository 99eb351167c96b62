"""A real terminal for the app: a tmux session typed into with send-keys and read back with
capture-pane."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

COMMAND = Path(sys.executable).parent / "codex-deck"
DEADLINE_SECONDS = 60


def tmux(server: str, *args: str) -> list[str]:
    """A tmux command for a server of the test's own: a shared server that exits once its
    last session is killed could refuse the next test's session while it goes."""
    return ["tmux", "-L", server, *args]


class Terminal:
    """A tmux session whose output is piped to a FIFO, so waiting wakes when the screen changes."""

    def __init__(self, name: str, fifo: Path) -> None:
        self.name = name
        self._fifo = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(tmux(self.name, *args), capture_output=True, text=True, check=True)
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


@contextmanager
def open_terminal(tmp_path: Path, size: tuple[int, int] = (120, 36)) -> Iterator[Terminal]:
    """A tmux session of its own running bash, `size` columns by rows."""
    assert shutil.which("tmux"), "this test needs tmux (.ci/run installs it)"
    name = f"deck-{uuid.uuid4().hex[:8]}"
    fifo = tmp_path / "screen.fifo"
    os.mkfifo(fifo)
    subprocess.run(
        tmux(
            name,
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            str(size[0]),
            "-y",
            str(size[1]),
            "bash --norc",
        ),
        check=True,
        env={**os.environ, "PS1": "$ "},
    )
    subprocess.run(tmux(name, "pipe-pane", "-o", "-t", name, f"cat > {fifo}"), check=True)
    term = Terminal(name, fifo)
    try:
        yield term
    finally:
        term.close()
        subprocess.run(tmux(name, "kill-server"), check=False)


def message_box(screen: str) -> str:
    """The text in the message box (the last box on the screen), its lines joined."""
    lines = screen.splitlines()
    top = max(at for at, line in enumerate(lines) if "╭" in line)
    inside = []
    for line in lines[top + 1 :]:
        if "╰" in line:
            break
        inside.append(line.split("│")[1].strip())
    return "".join(inside)


def at_the_shell(terminal: Terminal) -> bool:
    command = terminal.tmux("display", "-p", "-t", terminal.name, "#{pane_current_command}")
    return command.strip().startswith("bash")


def start_app(terminal: Terminal, config: Path) -> None:
    """Start codex-deck on the settings in `config` and wait until codex is online."""
    terminal.type(f"CODEX_DECK_CONFIG={config} {COMMAND}", "Enter")
    terminal.wait_for("codex online")


def quit_app(terminal: Terminal) -> None:
    """ctrl+q (y when the app asks first: something typed or waiting would be lost), and wait
    for the shell to be back."""
    terminal.type("C-q")
    terminal.wait_until(
        lambda: at_the_shell(terminal) or "Quit?" in terminal.screen(), "codex-deck to exit"
    )
    if not at_the_shell(terminal):
        terminal.type("y")
    terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")
