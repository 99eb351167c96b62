"""The terminal goes away (an ssh connection drops) while an approval waits: the app closes
on its own, declines the approval, runs nothing, and the store says so."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.terminal import running


@pytest.fixture
def model_url() -> Iterator[str]:
    model = subprocess.Popen(
        [sys.executable, "-m", "engine.scripted_model"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert model.stdout is not None
        yield model.stdout.readline().strip()
    finally:
        model.kill()
        model.wait()


def configure(config: Path, model_url: str, root: Path) -> Path:
    """Settings for codex-deck on the scripted model, with a store; returns the workspace."""
    workspace = root / "ws"
    workspace.mkdir()
    (root / "home").mkdir()
    config.write_text(
        f'[codex]\nprovider = "local"\nmodel = "codex-deck-scripted"\n'
        f'home = "{root / "home"}"\ncwd = "{workspace}"\n'
        'config = ["features.plugins=false"]\n'
        f'[providers.local]\nbase_url = "{model_url}"\n'
        "request_max_retries = 0\nstream_max_retries = 0\nsupports_websockets = false\n"
        f'[store]\npath = "{root / "store.sqlite3"}"\n'
    )
    return workspace


def test_a_dropped_terminal_declines_the_waiting_approval_and_runs_nothing(
    isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = configure(isolated_settings, model_url, tmp_path)
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
