"""Told to end (SIGTERM, as `kill` and `timeout` send) at any moment of its start or once it
runs, in a terminal that stays: codex-deck ends by itself, leaves the terminal as it was (its
modes, and out of the app's screen), and leaves nothing behind (the demo's place and model)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.reliability.report import Ledger
from tests.reliability.terminal import running

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
    env = {"CODEX_DECK_CONFIG": str(tmp_path / "config.toml"), "TMPDIR": str(scratch)}
    with running(["--demo"], env, size=(100, 30)) as app:
        app.wait_for_bytes(when)
        told = len(app.raw)
        app.process.send_signal(signal.SIGTERM)
        app.process.wait(DEADLINE_SECONDS)
        app.read_rest()
        written = app.raw
        assert LEAVE_SCREEN in written[told:] or (
            when == b"palette" and written.rstrip().endswith(LEAVE_SCREEN)
        ), f"the app's screen was not left: {written[-200:]!r}"
        assert app.modes() == app.first_modes, "the terminal's modes are not as they were"
    assert b"Traceback" not in written
    assert list(scratch.iterdir()) == [], "the demo's place is left behind"
    moment = request.node.callspec.id
    tally(
        "fault", f"SIGTERM {moment}: ended by itself, terminal as it was, no demo left", crashes=0
    )
