"""The raw form of one trace event, as the JSON the trace export writes."""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from engine import event_to_json
from engine.events import EngineEvent


class RawEventScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close", id="raw.close"),
        Binding("y", "copy", "Copy", id="raw.copy"),
    ]

    DEFAULT_CSS = """
    RawEventScreen { align: center middle; }
    RawEventScreen > VerticalScroll {
        width: 90%; height: 90%; border: round $primary; background: $surface;
    }
    """

    def __init__(self, event: EngineEvent) -> None:
        super().__init__()
        self._json = json.dumps(event_to_json(event), indent=2, ensure_ascii=False)

    def compose(self) -> ComposeResult:
        from rich.syntax import Syntax  # imported when first shown, not before the app is ready

        theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
        with VerticalScroll():
            yield Static(Syntax(self._json, "json", theme=theme, word_wrap=True))

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self._json)
        self.notify("Copied the event (OSC 52).")
