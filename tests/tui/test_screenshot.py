"""The palette's Screenshot in a terminal: an SVG the user alone can read, in the downloads
folder even when there is none yet (Textual's own said "Failed to save screenshot" there, and
wrote what it could save readable by every account)."""

from __future__ import annotations

import stat
from pathlib import Path

import platformdirs
import pytest

from tests.tui.conftest import Deck, until

pytestmark = pytest.mark.anyio


async def test_a_screenshot_is_saved_for_the_user_alone_where_no_folder_was(
    deck: Deck, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    downloads = tmp_path / "not-yet" / "Downloads"
    monkeypatch.setattr(platformdirs, "user_downloads_path", lambda: downloads)
    said: list[str] = []
    async with deck() as (app, pilot):
        monkeypatch.setattr(app, "notify", lambda message, **_: said.append(message))
        app.deliver_screenshot()
        await until(pilot, lambda: list(downloads.glob("*.svg")), "the screenshot")
        [saved] = downloads.glob("*.svg")
        assert saved.name.startswith("codex-deck_")
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        assert "<svg" in saved.read_text()
        assert said == [f"Saved the screenshot to {saved}"]
