"""The real codex-deck in a pty of its own: every byte it writes is kept, and the screen's
text (escape sequences dropped) can be waited on."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

COMMAND = Path(sys.executable).parent / "codex-deck"
DEADLINE_SECONDS = 60
ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[\]P][^\x07\x1b]*(\x07|\x1b\\)|\x1b.")


class PtyApp:
    def __init__(self, process: subprocess.Popen[bytes], master: int, modes: list[Any]) -> None:
        self.process = process
        self.master = master
        self.raw = b""
        """Every byte the app wrote to its terminal."""
        self.first_modes = modes
        """The terminal's modes before the app started."""

    def modes(self) -> list[Any]:
        """The terminal's modes now (a pty's are read from either end)."""
        return termios.tcgetattr(self.master)

    def wait_for_bytes(self, wanted: bytes) -> None:
        """Read until the app has written `wanted` (escape sequences and all)."""
        self.wait_until(lambda: wanted in self.raw, repr(wanted))

    def read_rest(self) -> None:
        """Read what the app wrote before it ended (it has)."""
        with contextlib.suppress(OSError):
            while select.select([self.master], [], [], 0.2)[0]:
                self.raw += os.read(self.master, 1 << 16)

    @property
    def text(self) -> str:
        """What it wrote, with escape sequences dropped."""
        return ESCAPES.sub(b"", self.raw).decode("utf-8", "replace")

    def wait_for(self, wanted: str, after: int = 0) -> None:
        """Read until `wanted` shows in the text written since byte `after`."""
        self.wait_until(
            lambda: wanted in ESCAPES.sub(b"", self.raw[after:]).decode("utf-8", "replace"),
            repr(wanted),
        )

    def wait_until(self, condition: Callable[[], bool], what: str) -> None:
        """Read what the app writes until `condition()` holds, checking it after each write
        (a running turn's clock redraws the status bar every second)."""
        deadline = time.monotonic() + DEADLINE_SECONDS
        while not condition():
            remaining = deadline - time.monotonic()
            readable, _, _ = select.select([self.master], [], [], max(remaining, 0))
            if not readable:
                raise AssertionError(f"timed out waiting for {what}: {self.text[-600:]!r}")
            try:
                self.raw += os.read(self.master, 1 << 16)
            except OSError as error:
                ended = self.text[-600:]
                raise AssertionError(f"the app closed its terminal: {ended!r}") from error

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def hang_up(self) -> None:
        """Close the terminal under the app, as an ssh connection that drops does."""
        os.close(self.master)
        self.master = -1


def _take_the_terminal() -> None:
    """In the child: make the pty on stdin its controlling terminal, so that closing the
    other end sends it SIGHUP, as a dropped ssh connection does."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@contextmanager
def running(
    args: list[str],
    env: dict[str, str],
    controlling: bool = False,
    size: tuple[int, int] = (120, 36),
    command: list[str] | None = None,
    cwd: Path | None = None,
) -> Iterator[PtyApp]:
    """codex-deck with `args` (or `command` instead) in a pty of `size` columns by rows (its
    controlling terminal, if `controlling`), in `cwd`; stopped (and its terminal closed) on
    exit."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    modes = termios.tcgetattr(slave)
    process = subprocess.Popen(
        command or [str(COMMAND), *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env={**os.environ, "TERM": "xterm-256color", **env},
        start_new_session=True,
        preexec_fn=_take_the_terminal if controlling else None,
    )
    os.close(slave)
    app = PtyApp(process, master, modes)
    try:
        yield app
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if app.master >= 0:
            os.close(app.master)
