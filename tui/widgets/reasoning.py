"""The model's reasoning summary: collapsed to one line by default, expandable."""

from __future__ import annotations

from textual.widgets import Collapsible, Static

from tui.text import inert


class Reasoning(Collapsible):
    """Reasoning, streamed into a collapsed section whose title shows its first line."""

    DEFAULT_CSS = """
    Reasoning { margin: 1 0 0 0; padding: 0; border-top: none; background: transparent; }
    Reasoning > Contents { padding: 0 0 0 2; }
    Reasoning .reasoning-text { color: $text-muted; text-style: italic; }
    """

    def __init__(self, item_id: str) -> None:
        self._body = Static("", classes="reasoning-text", markup=False)
        super().__init__(self._body, title="Reasoning", collapsed=True)
        self.item_id = item_id
        self._text = ""
        self._pending: list[str] = []

    @property
    def dirty(self) -> bool:
        return bool(self._pending)

    def add(self, delta: str) -> None:
        self._pending.append(delta)

    async def flush(self) -> None:
        if not self._pending:
            return
        self._text += "".join(self._pending)
        self._pending.clear()
        self._show()

    async def finish(self, summary: list[str]) -> None:
        self._pending.clear()
        if summary:
            self._text = "\n\n".join(summary)
        self._show()

    def _show(self) -> None:
        first = self._text.strip().split("\n", 1)[0]
        self.title = "Reasoning: " + inert(first[:100]) + ("…" if len(first) > 100 else "")
        self._body.update(inert(self._text))
