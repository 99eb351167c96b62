"""Messages in the transcript: what the user said, and the agent's streaming Markdown answer."""

from __future__ import annotations

import anyio
from textual.widgets import Static

from tui.entries import AgentEntry, UserEntry
from tui.markdown import MarkdownChunk, chunk_ends
from tui.text import inert
from tui.widgets.streamed import Streamed


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

    def __init__(self, entry: UserEntry) -> None:
        label = "steer › " if entry.steered else "› "
        classes = "-steered" if entry.steered else ""
        attached = "".join(f"\n📎 {inert(image)}" for image in entry.images)
        super().__init__(label + inert(entry.text) + attached, markup=False, classes=classes)
        self.entry = entry

    @property
    def text(self) -> str:
        return self.entry.text


class AgentMessage(Streamed, MarkdownChunk):
    """The agent's answer as Markdown, drawn while it streams.

    Streamed text is taken at most once per frame (`flush`). Finished blocks are frozen into
    pieces, each drawn once: the ones that will show before the frame, one at a time so keys
    are handled between them, the others when they come into view or once the answer is
    quiet. Only the unfinished tail is drawn again, so a long answer costs no more per frame
    than a short one.
    """

    DEFAULT_CSS = """
    AgentMessage { margin: 1 0 0 0; }
    """

    def __init__(self, entry: AgentEntry) -> None:
        super().__init__()
        self.entry = entry
        self._frozen = 0
        """How much of the text is in the frozen pieces."""
        self._drawing = anyio.Lock()
        """Held while new pieces are drawn, so two redraws do not cut the same text."""
        self.extend(*self._split())

    @property
    def text(self) -> str:
        return self.entry.text

    def _split(self) -> tuple[list[str], str]:
        """The finished blocks of the text not yet in the frozen pieces, and the tail."""
        text = self.entry.text
        pieces = []
        for end in chunk_ends(text, self._frozen):
            pieces.append(text[self._frozen : end])
            self._frozen = end
        return pieces, text[self._frozen :]

    async def redraw(self) -> None:
        async with self._drawing:
            await self.grow(*self._split())

    async def finish(self) -> None:
        """The message is complete (codex's final text wins over what was streamed)."""
        async with self._drawing:
            if not self.entry.text.startswith(self.finished_text):
                self._frozen = 0
                self.clear()
        await super().finish()
