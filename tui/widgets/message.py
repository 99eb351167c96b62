"""Messages in the transcript: what the user said, and the agent's streaming Markdown answer."""

from __future__ import annotations

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
    pieces drawn once; only the unfinished tail is drawn again, so a long answer costs no
    more per frame than a short one.
    """

    DEFAULT_CSS = """
    AgentMessage { margin: 1 0 0 0; }
    """

    def __init__(self, entry: AgentEntry) -> None:
        super().__init__()
        self.entry = entry
        self._frozen = 0
        """How much of the text is in the frozen pieces."""
        self._freeze()

    @property
    def text(self) -> str:
        return self.entry.text

    def _freeze(self) -> None:
        """Move the finished blocks of the text into the frozen pieces; the rest is the tail."""
        text = self.entry.text
        for end in chunk_ends(text, self._frozen):
            self.append(text[self._frozen : end])
            self._frozen = end
        self.show(text[self._frozen :])

    async def redraw(self) -> None:
        self._freeze()

    async def finish(self) -> None:
        """The message is complete (codex's final text wins over what was streamed)."""
        if not self.entry.text.startswith(self.finished_text):
            self._frozen = 0
            self.clear()
        await super().finish()
