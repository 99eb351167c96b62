"""Shared fixtures: the asyncio backend for anyio tests, and settings kept away from the user's."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from engine.scripted_model import ScriptedModel, run_scripted_model
from engine.transport import binary


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point CODEX_DECK_CONFIG at a file of the test's own and clear CODEX_DECK_* variables;
    the user's cache directory (where a check of the settings is kept) is the test's own."""
    for name in list(os.environ):
        if name.startswith("CODEX_DECK_"):
            monkeypatch.delenv(name)
    config = tmp_path / "codex-deck-config.toml"
    monkeypatch.setenv("CODEX_DECK_CONFIG", str(config))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return config


CODEX_UNDER_TEST = "DECK_TEST_CODEX"
"""The environment variable naming a codex binary to test on instead of the bundled one (CI
runs the core end-to-end tests on the npm build too)."""


@pytest.fixture(autouse=True)
def codex_under_test(isolated_settings: Path, monkeypatch: pytest.MonkeyPatch) -> Path | None:
    """The codex named by DECK_TEST_CODEX, if set: found as the bundled one by the engine in
    the tests' own process, and set as `[codex] binary` for the apps they start."""
    named = os.environ.get(CODEX_UNDER_TEST)
    if not named:
        return None
    path = Path(named)
    monkeypatch.setattr(binary, "_bundled", lambda: (path, ""))
    monkeypatch.setenv("CODEX_DECK_CODEX__BINARY", str(path))
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    path = tmp_path / "codex-home"
    path.mkdir()
    return path


@pytest.fixture
async def scripted_model(request: pytest.FixtureRequest) -> AsyncIterator[ScriptedModel]:
    """The scripted model; parametrized indirectly, it names its items as that says (`Ids`)."""
    async with run_scripted_model(ids=getattr(request, "param", "unique")) as model:
        yield model


@pytest.fixture
def model_requests(tmp_path: Path) -> Path:
    """Where the scripted model of `model_url` logs each request (see `asked_in`)."""
    return tmp_path / "model-requests.jsonl"


@pytest.fixture
def model_url(model_requests: Path) -> Iterator[str]:
    """The scripted model in a process of its own, for an app started as a program."""
    model = subprocess.Popen(
        [sys.executable, "-m", "engine.scripted_model", "--requests", str(model_requests)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert model.stdout is not None
        yield model.stdout.readline().strip()
    finally:
        model.kill()
        model.wait()


def local_settings(config: Path, model_url: str, root: Path) -> Path:
    """Write settings for codex-deck on the scripted model at `model_url`, with codex's home,
    a workspace and a store under `root`; returns the workspace."""
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
