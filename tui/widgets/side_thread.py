"""One side chat's questions and streamed Markdown answers, in the side panel."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Static

from engine.events import SideChatAnswered
from tui.entries import AgentEntry, UserEntry
from tui.sized import SizedByLayout
from tui.widgets.message import AgentMessage, UserMessage


class SideThread(VerticalScroll, SizedByLayout):
    """One side chat's questions and answers. A question asked brings its end into view,
    and the view follows the answer as it grows, in the frame that shows it, until the user
    scrolls up (back at the end, it follows again)."""

    DEFAULT_CSS = """
    SideThread { height: 1fr; padding: 0 1; }
    SideThread .side-cut { color: $warning; }
    """

    def __init__(self, side_chat_id: str) -> None:
        super().__init__(id=f"side-{side_chat_id}")
        self._answer: AgentMessage | None = None
        self._count = 0

    @property
    def dirty(self) -> bool:
        return self._answer is not None and self._answer.dirty

    async def asked(self, question: str) -> None:
        self._count += 1
        entry = UserEntry(key=f"q{self._count}", text=question)
        self._answer = AgentMessage(AgentEntry(key=f"a{self._count}"))
        await self.mount_all([UserMessage(entry), self._answer])
        self.anchor()

    def add(self, text: str) -> None:
        if self._answer is not None:
            self._answer.entry.text += text
            self._answer.add(text)

    async def flush(self) -> None:
        if self._answer is not None:
            await self._answer.flush()

    async def answered(self, event: SideChatAnswered) -> None:
        answer = self._answer
        if answer is None:
            return
        answer.entry.text = event.answer
        await answer.finish()
        if event.cut:
            note = f"(cut at {len(event.answer):,} characters: the side answer limit)"
            await self.mount(Static(note, classes="side-cut", markup=False))
        self._answer = None
