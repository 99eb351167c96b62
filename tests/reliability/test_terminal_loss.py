"""The terminal goes away (an ssh connection drops: the pty vanishes, or hangs up with
SIGHUP), or the app is sent SIGTERM, while an approval waits: the app closes on its own,
declines the approval, runs nothing, and the store says so."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.scripted_model.__main__ import PLACE_RETRY_SECONDS, PLACE_TRIES, USERS_SECONDS, remove
from tests.conftest import local_settings
from tests.reliability.report import Ledger, asked_in, lost_and_reruns
from tests.reliability.terminal import running

WAITED_SECONDS = PLACE_TRIES * PLACE_RETRY_SECONDS + 1
"""Longer than the removal was tried again before it waited for codex."""


@pytest.mark.parametrize(
    "how",
    [
        "terminal gone",  # the pty closed under an app it is not the controlling terminal of
        "SIGHUP",  # closed under an app it is the controlling terminal of, as ssh does
        "SIGTERM",
    ],
)
def test_a_lost_terminal_declines_the_waiting_approval_and_runs_nothing(
    how: str,
    isolated_settings: Path,
    model_url: str,
    model_requests: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    env = {"CODEX_DECK_CONFIG": str(isolated_settings)}
    with running([], env, controlling=how == "SIGHUP") as app:
        app.wait_for("codex online")
        app.type("approval")
        app.wait_for("approval")
        app.type("\r")
        app.wait_for("y approve")
        if how == "SIGTERM":
            app.process.send_signal(signal.SIGTERM)
        else:
            app.hang_up()
        exit_code = app.process.wait(timeout=20)
    with sqlite3.connect(tmp_path / "store.sqlite3") as store:
        rows = store.execute("SELECT kind, state, decision FROM interactions").fetchall()
    lost, reruns = lost_and_reruns(asked_in(model_requests), ["approval"])
    tally(
        "fault",
        f"terminal lost with an approval waiting: {how}",
        lost=lost,
        reruns=reruns,
        unapproved=int((workspace / "out.txt").exists()),
        crashes=int(exit_code != 0),
    )
    assert exit_code == 0
    assert not (workspace / "out.txt").exists(), "the command was not run"
    assert len(rows) == 1
    [(kind, state, decision)] = rows
    assert kind == "command"
    assert state == "expired"
    assert "codex-deck is closing" in decision


@pytest.mark.parametrize("mode", ["--demo", "replay"])
@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP"])
def test_the_demo_and_the_replay_end_on_a_signal(
    mode: str, how: str, isolated_settings: Path
) -> None:
    recording = Path(__file__).parents[1] / "snapshots" / "recordings" / "markdown.jsonl"
    args = ["replay", str(recording)] if mode == "replay" else [mode]
    ready = "replay (read-only)" if mode == "replay" else "offline demo"
    with running(args, {"CODEX_DECK_CONFIG": str(isolated_settings)}) as app:
        app.wait_for(ready)
        app.process.send_signal(signal.SIGTERM if how == "SIGTERM" else signal.SIGHUP)
        assert app.process.wait(timeout=20) == 0


def test_the_demo_s_place_goes_when_the_app_is_killed(
    isolated_settings: Path, tmp_path: Path
) -> None:
    """Killed, the demo cannot remove its throw-away place (codex's home, the workspace); its
    model, which sees the app gone, does before it ends."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"CODEX_DECK_CONFIG": str(isolated_settings), "TMPDIR": str(scratch)}
    with running(["--demo"], env) as app:
        app.wait_for("offline demo")
        [place] = scratch.glob("codex-deck-demo-*")
        assert (place / "workspace").is_dir()
        model = os.pidfd_open(serving(app.process.pid))
        try:
            app.process.kill()
            app.process.wait()
            ended, _, _ = select.select([model], [], [], 20)
        finally:
            os.close(model)
        assert ended, "the model ends once the app is gone"
        assert not place.exists(), f"left behind: {sorted(p.name for p in place.iterdir())}"


def test_the_demo_s_place_waits_for_a_codex_slow_to_end(tmp_path: Path) -> None:
    """A codex still ending when the app is gone (a loaded machine) writes in its home after
    the place was first removed: the removal waits for it, and nothing is left."""
    place = tmp_path / "codex-deck-demo-x"
    home = place / "codex-home"
    home.mkdir(parents=True)
    # It writes its home as it ends, once told to (its standard input closed).
    ending_late = (
        "import pathlib, sys; sys.stdin.read(); "
        f"pathlib.Path({str(home)!r}, 'log').mkdir(parents=True)"
    )
    ending = subprocess.Popen(
        [sys.executable, "-c", ending_late],
        stdin=subprocess.PIPE,
        env={**os.environ, "CODEX_HOME": str(home)},
    )
    removing = threading.Thread(target=remove, args=(place,))
    try:
        removing.start()
        removing.join(timeout=WAITED_SECONDS)  # a removal that does not wait is done by then
        assert ending.stdin is not None
        ending.stdin.close()
        assert ending.wait(timeout=10) == 0
        removing.join(timeout=USERS_SECONDS)
        assert not removing.is_alive()
    finally:
        ending.kill()
    assert not place.exists(), f"left behind: {sorted(p.name for p in place.iterdir())}"


def serving(app: int) -> int:
    """The process id of the demo's model, started by the app `app`."""
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError):
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
            if parent == app and b"engine.scripted_model" in arguments:
                return int(entry.name)
    raise AssertionError("the demo's model is not running")
