"""Told to end (SIGTERM, as `kill` and `timeout` send) at any moment of its start or once it
runs, in a terminal that stays: codex-deck ends by itself, leaves the terminal as it was (its
modes, and out of the app's screen), and leaves nothing behind (the demo's place and model)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest

from tests.reliability.report import Ledger
from tests.tui.tmux import COMMAND

DEADLINE_SECONDS = 30
LEAVE_SCREEN = b"\x1b[?1049l"


@pytest.mark.parametrize(
    "when",
    [b"palette", b"\x1b[?1000h", b"offline demo"],
    ids=["on the first frame", "as Textual takes over", "once it runs"],
)
def test_told_to_end_it_ends_by_itself_and_leaves_the_terminal_and_no_demo_behind(
    when: bytes, tmp_path: Path, tally: Ledger, request: pytest.FixtureRequest
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    before = termios.tcgetattr(slave)
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "CODEX_DECK_CONFIG": str(tmp_path / "config.toml"),
        "TMPDIR": str(scratch),
    }
    app = subprocess.Popen(
        [str(COMMAND), "--demo"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    written = b""
    try:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while when not in written:
            readable, _, _ = select.select([master], [], [], deadline - time.monotonic())
            assert readable, f"{when!r} never came: {written[-300:]!r}"
            written += os.read(master, 1 << 16)
        told = len(written)
        app.send_signal(signal.SIGTERM)
        app.wait(DEADLINE_SECONDS)
        while select.select([master], [], [], 0.2)[0]:
            written += os.read(master, 1 << 16)
        assert LEAVE_SCREEN in written[told:] or (
            when == b"palette" and written.rstrip().endswith(LEAVE_SCREEN)
        ), f"the app's screen was not left: {written[-200:]!r}"
        assert termios.tcgetattr(slave) == before, "the terminal's modes are not as they were"
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        os.close(master)
        os.close(slave)
    assert b"Traceback" not in written
    assert list(scratch.iterdir()) == [], "the demo's place is left behind"
    moment = request.node.callspec.id
    tally(
        "fault", f"SIGTERM {moment}: ended by itself, terminal as it was, no demo left", crashes=0
    )
