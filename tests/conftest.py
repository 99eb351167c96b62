"""Shared fixtures: the asyncio backend for anyio tests, and settings kept away from the user's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.scripted_model import ScriptedModel, run_scripted_model


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point CODEX_DECK_CONFIG at a file of the test's own and clear CODEX_DECK_* variables."""
    import os

    for name in list(os.environ):
        if name.startswith("CODEX_DECK_"):
            monkeypatch.delenv(name)
    config = tmp_path / "codex-deck-config.toml"
    monkeypatch.setenv("CODEX_DECK_CONFIG", str(config))
    return config


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
async def scripted_model() -> AsyncIterator[ScriptedModel]:
    async with run_scripted_model() as model:
        yield model
