"""The model's reasoning summary: collapsed to one line by default, expandable."""

from __future__ import annotations

from textual.widgets import Collapsible, Static

from tui.entries import ReasoningEntry
from tui.text import inert


class Reasoning(Collapsible):
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
        self._dirty = False

    def on_mount(self) -> None:
        self._show()

    @property
    def dirty(self) -> bool:
        return self._dirty

    def add(self, delta: str) -> None:
        self._dirty = True

    async def flush(self) -> None:
        if self._dirty:
            self._dirty = False
            self._show()

    async def finish(self) -> None:
        self._dirty = False
        self._show()

    def _show(self) -> None:
        text = self.entry.text
        first = text.strip().split("\n", 1)[0]
        self.title = "Reasoning: " + inert(first[:100]) + ("…" if len(first) > 100 else "")
        self._body.update(inert(text))
