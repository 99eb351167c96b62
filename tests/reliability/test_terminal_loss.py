"""The terminal goes away (an ssh connection drops) while an approval waits: the app closes
on its own, declines the approval, runs nothing, and the store says so."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.conftest import local_settings
from tests.reliability.terminal import running


def test_a_dropped_terminal_declines_the_waiting_approval_and_runs_nothing(
    isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    with running([], {"CODEX_DECK_CONFIG": str(isolated_settings)}) as app:
        app.wait_for("codex online")
        app.type("approval")
        app.wait_for("approval")
        app.type("\r")
        app.wait_for("y approve")
        app.hang_up()
        assert app.process.wait(timeout=20) == 0
    assert not (workspace / "out.txt").exists(), "the command was not run"
    with sqlite3.connect(tmp_path / "store.sqlite3") as store:
        rows = store.execute("SELECT kind, state, decision FROM interactions").fetchall()
    assert len(rows) == 1
    [(kind, state, decision)] = rows
    assert kind == "command"
    assert state == "expired"
    assert "codex-deck is closing" in decision
