"""What the app shows in its first frame, before the main screen (and the engine under it) is
loaded: the welcome text where the transcript will be, and the keys."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from tui.widgets.key_bar import KeyBar


class StartingScreen(Screen[None]):
    DEFAULT_CSS = """
    StartingScreen #starting-welcome { height: 1fr; padding: 1 2; color: $text-muted; }
    StartingScreen #starting-status { height: 1; background: $panel; color: $text-muted;
        padding: 0 1; }
    """

    def __init__(self, welcome: str) -> None:
        super().__init__()
        self._welcome = welcome

    def compose(self) -> ComposeResult:
        yield Static(self._welcome, id="starting-welcome", markup=False)
        yield Static("starting codex-deck…", id="starting-status", markup=False)
        yield KeyBar()
