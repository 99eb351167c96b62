"""What the app shows in its first frame, before the main screen (and the engine under it) is
loaded: the welcome text where the transcript will be, the message box, already taking what
is typed, and the keys."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from tui.first_frame import STARTING
from tui.widgets.draft import HELD, Draft, DraftBox
from tui.widgets.key_bar import KeyBar

__all__ = ["STARTING", "StartingBox", "StartingScreen"]


class StartingBox(DraftBox):
    """The message box of the first frame: Enter (or Tab) holds the message until codex is
    up, Esc stops holding it; shift+enter starts a new line."""

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if key not in ("enter", "tab", "escape", "shift+enter", "ctrl+j"):
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        if key in ("enter", "tab"):
            if self.held is None and self.text.strip():
                self.hold("auto" if key == "enter" else "queue")
        elif key == "escape":
            self.release()
        elif self.held is None:
            self.insert("\n")
        status = f"{STARTING} {HELD}" if self.held else STARTING
        self.screen.query_one("#starting-status", Static).update(status)


class StartingScreen(Screen[None]):
    DEFAULT_CSS = """
    StartingScreen #starting-welcome { height: 1fr; padding: 1 2; color: $text-muted; }
    StartingScreen #starting-status { height: 1; background: $panel; color: $text-muted;
        padding: 0 1; }
    """

    def __init__(self, welcome: str, typed: Draft | None = None) -> None:
        super().__init__()
        self._welcome = welcome
        self._box = StartingBox(id="starting-box")
        self._typed = typed
        """What was typed before the app was up (on `tui.first_frame`'s frame)."""

    def compose(self) -> ComposeResult:
        yield Static(self._welcome, id="starting-welcome", markup=False)
        yield self._box
        status = f"{STARTING} {HELD}" if self._typed is not None and self._typed.held else STARTING
        yield Static(status, id="starting-status", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        if self._typed is not None:
            self._box.take(self._typed)

    @property
    def draft(self) -> Draft:
        """What has been typed in the message box so far (also once the screen is gone)."""
        return self._box.draft
