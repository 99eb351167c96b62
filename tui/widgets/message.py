"""Messages in the transcript: what the user said, and the agent's streaming Markdown answer."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown, Static

from tui.text import inert


class UserMessage(Static):
    """A message the user sent (or steered into the running turn)."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
    }
    UserMessage.-steered { border-left: thick $accent; }
    """

    def __init__(self, text: str, *, steered: bool = False) -> None:
        label = "steer › " if steered else "› "
        super().__init__(label + inert(text), markup=False, classes="-steered" if steered else "")
        self.text = text


class AgentMessage(Vertical):
    """The agent's answer, rendered as Markdown while it streams.

    Deltas are gathered and handed to the Markdown widget at most once per frame (`flush`),
    never once per token.
    """

    DEFAULT_CSS = """
    AgentMessage { height: auto; margin: 1 0 0 0; }
    AgentMessage > Markdown { margin: 0; padding: 0 1; }
    """

    def __init__(self, item_id: str) -> None:
        super().__init__()
        self.item_id = item_id
        self._pending: list[str] = []
        self._source: list[str] = []

    def compose(self) -> ComposeResult:
        yield Markdown()

    @property
    def text(self) -> str:
        """Everything received so far."""
        return "".join(self._source) + "".join(self._pending)

    @property
    def dirty(self) -> bool:
        return bool(self._pending)

    def add(self, delta: str) -> None:
        self._pending.append(delta)

    async def flush(self) -> None:
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        self._source.append(chunk)
        await self.query_one(Markdown).append(chunk)

    async def finish(self, text: str) -> None:
        """The completed message: what was streamed, or codex's final text if it differs."""
        await self.flush()
        if text and text != self.text:
            self._source = [text]
            await self.query_one(Markdown).update(text)
