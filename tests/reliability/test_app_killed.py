"""The whole app (codex-deck and the codex it started) is killed while an approval waits, as
a crash or an OOM kill would: nothing runs, and after a restart the user is told the request
was closed unanswered, the store says so, and the message waits for /resend."""

from __future__ import annotations

import os
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

from tests.conftest import local_settings
from tests.reliability.report import Ledger, asked_in, lost_and_reruns
from tests.reliability.terminal import running


def test_the_app_killed_with_an_approval_waiting_runs_nothing_then_or_after(
    isolated_settings: Path, model_url: str, model_requests: Path, tmp_path: Path, tally: Ledger
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    env = {"CODEX_DECK_CONFIG": str(isolated_settings)}
    with running([], env) as app:
        app.wait_for("codex online")
        app.type("approval")
        app.wait_for("approval")
        app.type("\r")
        app.wait_for("y approve")
        # The request is written to the store just after it is shown; killed before that,
        # the restarted app has no request to say it closed.
        app.wait_until(lambda: pending_in(tmp_path / "store.sqlite3"), "the request in the store")
        os.killpg(app.process.pid, signal.SIGKILL)
        app.process.wait(timeout=20)
    ran_then = (workspace / "out.txt").exists()

    with running([], env) as app:
        app.wait_for("codex online")
        app.wait_for("/resend sends it once more")
        app.wait_for("1 request waited for your answer")
        app.type("\x11")
        exit_code = app.process.wait(timeout=20)
    with sqlite3.connect(tmp_path / "store.sqlite3") as store:
        rows = store.execute("SELECT state, decision FROM interactions").fetchall()
    ran = int(ran_then or (workspace / "out.txt").exists())
    lost, reruns = lost_and_reruns(asked_in(model_requests), ["approval"])
    tally(
        "fault",
        "the whole app SIGKILLed with an approval waiting, restarted",
        lost=lost,
        reruns=reruns,
        unapproved=ran,
        crashes=int(exit_code != 0),
    )
    assert ran == 0
    assert exit_code == 0
    assert rows == [("expired", "codex-deck stopped before it was answered")]


def pending_in(store: Path) -> bool:
    """The store holds a pending request."""
    with closing(sqlite3.connect(store)) as connection:
        query = "SELECT COUNT(*) FROM interactions WHERE state = 'pending'"
        return bool(connection.execute(query).fetchone()[0])


def test_the_app_killed_mid_answer_shows_what_had_streamed_marked_cut_off(
    isolated_settings: Path, model_url: str, model_requests: Path, tmp_path: Path, tally: Ledger
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    env = {"CODEX_DECK_CONFIG": str(isolated_settings)}
    store = tmp_path / "store.sqlite3"
    with running([], env) as app:
        app.wait_for("codex online")
        app.type("take your time\r")
        app.wait_for("step by step")
        # The answer so far is written a moment after it is shown (writes are paced).
        app.wait_until(lambda: "step by step" in partial_in(store), "the answer in the store")
        os.killpg(app.process.pid, signal.SIGKILL)
        app.process.wait(timeout=20)

    with running([], env) as app:
        app.wait_for("codex online")
        app.wait_for("cut off")
        shown = app.text
        app.type("\x11")
        exit_code = app.process.wait(timeout=20)
    lost, reruns = lost_and_reruns(asked_in(model_requests), ["take your time"])
    tally(
        "fault",
        "the whole app SIGKILLed mid-answer, restarted: the answer so far shown, cut off",
        lost=lost,
        reruns=reruns,
        crashes=int(exit_code != 0),
    )
    assert "Thinking this through step by step" in shown
    assert "the rest of this answer never arrived" in shown
    assert (lost, reruns, exit_code) == (0, 0, 0)


def partial_in(store: Path) -> str:
    """The text the store keeps of answers that never completed."""
    with closing(sqlite3.connect(store)) as connection:
        rows = connection.execute("SELECT text FROM partials").fetchall()
    return "".join(row[0] for row in rows)
