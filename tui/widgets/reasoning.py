"""The model's reasoning summary: collapsed to one line by default, expandable."""

from __future__ import annotations

from textual.widgets import Collapsible, Static

from tui.entries import ReasoningEntry
from tui.text import inert
from tui.widgets.streamed import Streamed


class Reasoning(Streamed, Collapsible):
    """Reasoning, streamed into a collapsed section whose title shows its first line."""

    DEFAULT_CSS = """
    Reasoning { margin: 1 0 0 0; padding: 0; border-top: none; background: transparent; }
    Reasoning > Contents { padding: 0 0 0 2; }
    Reasoning .reasoning-text { color: $text-muted; text-style: italic; }
    """

    def __init__(self, entry: ReasoningEntry) -> None:
        self._body = Static("", classes="reasoning-text", markup=False)
        super().__init__(self._body, title="Reasoning", collapsed=True)
        self.entry = entry

    def on_mount(self) -> None:
        self._show()

    async def redraw(self) -> None:
        self._show()

    def _show(self) -> None:
        text = self.entry.text
        first = text.strip().split("\n", 1)[0]
        self.title = "Reasoning: " + inert(first[:100]) + ("…" if len(first) > 100 else "")
        self._body.update(inert(text))
