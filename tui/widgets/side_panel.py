"""Side chats beside the transcript: which are open, the active one's questions and streamed
Markdown answers, and a box to ask in it. The conversation itself never sees any of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import ContentSwitcher, Input, Static

from engine.commands.kinds import Say
from engine.commands.parse import parsed
from engine.events import (
    EngineEvent,
    SideChatAnswered,
    SideChatAsked,
    SideChatDelta,
    SideChatInfo,
    SideChatUpdated,
)
from engine.frontend import Backend
from engine.results import CommandResult
from tui.reported import reported
from tui.text import inert
from tui.widgets.ordered import OrderedInput
from tui.widgets.side_thread import SideThread

FRAME_SECONDS = 1 / 30
OPEN_STATES = ("opening", "idle", "answering")
EMPTY = "side-empty"


class SidePanel(Vertical, can_focus=False):
    """Enter asks in the active side chat (or opens one); Esc goes back to the composer."""

    DEFAULT_CSS = """
    SidePanel { width: 45%; min-width: 40; border-left: tall $panel; background: $surface; }
    SidePanel:focus-within { border-left: tall $primary; }
    SidePanel #side-title { padding: 0 1; text-style: bold; }
    SidePanel #side-tabs { padding: 0 1; color: $text-muted; }
    SidePanel #side-note { padding: 0 1; color: $error; display: none; }
    SidePanel #side-empty { padding: 1 1; color: $text-muted; }
    SidePanel #side-threads { height: 1fr; }
    SidePanel Input { margin: 0; }
    """

    BINDINGS = [
        Binding("escape", "leave", "Back", id="side.leave"),
        Binding("ctrl+n", "new_side_chat", "New side chat", id="side.new"),
        Binding("alt+right", "switch(1)", "Next side chat", id="side.next", show=False),
        Binding("alt+left", "switch(-1)", "Previous side chat", id="side.previous", show=False),
        Binding("f5", "act('close')", "Close side chat", id="side.close"),
        Binding("f7", "act('promote')", "Keep as conversation", id="side.keep"),
        # A priority binding: the box below would type alt+h as an "h".
        Binding("alt+h", "bring_home", "Bring answer in", id="side.bring", priority=True),
    ]

    @dataclass
    class Made(Message):
        """A conversation was made from the side panel (a side chat kept as one, say)."""

        panel: SidePanel
        conversation_id: str

    @dataclass
    class Leave(Message):
        panel: SidePanel

    def __init__(self) -> None:
        super().__init__(id="side-panel")
        self.conversation_id: str | None = None
        self.backend: Backend | None = None
        """What questions and commands go to (None until the engine is up)."""
        self._infos: dict[str, SideChatInfo] = {}
        self._active: dict[str, str] = {}
        self._new_next = False
        self._flush_scheduled = False

    def compose(self) -> ComposeResult:
        yield Static("Side chats", id="side-title", markup=False)
        yield Static("", id="side-tabs")
        with ContentSwitcher(id="side-threads", initial=EMPTY):
            yield Static(
                "Ask about this conversation here: a throwaway copy answers, with no tools, and "
                "the conversation never sees it. Several side chats can stay open.",
                id=EMPTY,
                markup=False,
            )
        yield Static("", id="side-note", markup=False)
        yield OrderedInput(placeholder="Ask aside…  (Enter asks · Esc back)")

    @property
    def active(self) -> str | None:
        """The side chat of the conversation in view that questions go to."""
        side = self._active.get(self.conversation_id or "")
        return side if side in self._open(self.conversation_id) else None

    def show(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        self._refresh()

    def focus_input(self) -> None:
        self.screen.set_focus(self.query_one(Input))

    def note(self, text: str) -> None:
        note = self.query_one("#side-note", Static)
        note.update(text)
        note.display = bool(text)

    def sent(self, question: str) -> None:
        """The question was sent: clear the box unless something else was typed meanwhile."""
        box = self.query_one(Input)
        if box.value == question:
            box.value = ""
        self._new_next = False
        self.note("")
        self._refresh()

    async def apply(self, events: Sequence[EngineEvent]) -> None:
        """Side chat events of any conversation, in order."""
        for event in events:
            if isinstance(event, SideChatUpdated):
                await self._updated(event.info)
            elif isinstance(event, SideChatAsked):
                await self._thread(event.side_chat_id).asked(event.question)
            elif isinstance(event, SideChatDelta):
                self._thread(event.side_chat_id).add(event.text)
                self._schedule_flush()
            elif isinstance(event, SideChatAnswered):
                await self._thread(event.side_chat_id).answered(event)
        self._refresh()

    async def _updated(self, info: SideChatInfo) -> None:
        self._infos[info.id] = info
        if info.state == "opening":
            self._active[info.conversation_id] = info.id
            thread = SideThread(info.id)
            thread.display = False
            await self.query_one(ContentSwitcher).mount(thread)
        elif info.state == "failed" and info.conversation_id == self.conversation_id:
            self.note(f"{info.id}: {info.detail}")
        elif info.state == "closed":
            found = self.query(f"#side-{info.id}")
            if found:
                await found.remove()

    def _thread(self, side_chat_id: str) -> SideThread:
        return self.query_one(f"#side-{side_chat_id}", SideThread)

    def _open(self, conversation_id: str | None) -> list[str]:
        return [
            info.id
            for info in self._infos.values()
            if info.conversation_id == conversation_id and info.state in OPEN_STATES
        ]

    def _refresh(self) -> None:
        opened = self._open(self.conversation_id)
        active = self.active
        if active is None and opened:
            active = self._active[self.conversation_id or ""] = opened[-1]
        tabs = Text()
        for side_id in opened:
            info = self._infos[side_id]
            label = f" {side_id} {inert(info.title[:24])} "
            busy = " …" if info.state in ("opening", "answering") else ""
            tabs.append(label + busy, style="reverse bold" if side_id == active else "")
            tabs.append(" ")
        if self._new_next or not opened:
            tabs.append(" + new side chat ", style="reverse bold" if self._new_next else "dim")
        self.query_one("#side-tabs", Static).update(tabs)
        switcher = self.query_one(ContentSwitcher)
        shown = f"side-{active}" if active is not None and not self._new_next else EMPTY
        if switcher.current != shown and switcher.query(f"#{shown}"):
            switcher.current = shown
        count = len(opened)
        title = f"Side chats ({count} open)" if count else "Side chats"
        self.query_one("#side-title", Static).update(title)

    def _schedule_flush(self) -> None:
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self.set_timer(FRAME_SECONDS, self._flush)

    async def _flush(self) -> None:
        self._flush_scheduled = False
        for thread in self.query(SideThread):
            if thread.dirty:
                await thread.flush()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        question = event.value.strip()
        if not question or self.conversation_id is None:
            return
        side = None if self._new_next else self.active
        command = parsed(question)
        if isinstance(command, Say) and not command.queue:
            self._ask(self.conversation_id, command.text, question, side)
        else:
            self._command(self.conversation_id, question)

    @work(group="side")
    @reported("The side question was not asked")
    async def _ask(
        self, conversation_id: str, question: str, typed: str, side_chat_id: str | None
    ) -> None:
        """Ask `question` (typed as `typed`: `//…` for one that starts with a slash) in
        `side_chat_id` (None: a new side chat)."""
        if self.backend is not None:
            result = await self.backend.ask_aside(
                conversation_id, question, side_chat_id, new=side_chat_id is None
            )
            self._asked(typed, result)

    @work(group="side")
    @reported("The side chat command did not run")
    async def _command(self, conversation_id: str, line: str) -> None:
        if self.backend is not None:
            result = await self.backend.execute(conversation_id, line)
            self._asked(line, result)
            if result.conversation_id is not None:
                self.post_message(self.Made(self, result.conversation_id))

    def _asked(self, question: str, result: CommandResult) -> None:
        if result.ok:
            self.sent(question)
        else:
            self.note(f"Not sent: {result.message}")

    def action_leave(self) -> None:
        self.post_message(self.Leave(self))

    def action_new_side_chat(self) -> None:
        self._new_next = True
        self._refresh()
        self.focus_input()

    def choose(self, side_chat_id: str) -> bool:
        """Show that side chat of the conversation in view; False when it is not open."""
        if self.conversation_id is None or side_chat_id not in self._open(self.conversation_id):
            return False
        self._active[self.conversation_id] = side_chat_id
        self._new_next = False
        self._refresh()
        return True

    def action_switch(self, step: int) -> None:
        opened = self._open(self.conversation_id)
        if not opened or self.conversation_id is None:
            return
        current = self.active
        index = opened.index(current) if current in opened else 0
        self.choose(opened[(index + step) % len(opened)])

    def action_bring_home(self) -> None:
        """The active side chat's latest answer, or the part of its answers selected with
        the mouse, goes with the conversation's next message."""
        side = self.active
        if side is None or self.conversation_id is None or self.backend is None:
            self.note("No side chat here to bring an answer in from.")
            return
        result = self.backend.bring_home(self.conversation_id, side, self._selected_in(side))
        self.note("" if result.ok else result.message)
        if result.ok:
            self.notify(inert(result.message), markup=False)

    def _selected_in(self, side_chat_id: str) -> str | None:
        """What is selected (with the mouse) in that side chat's thread, if anything."""
        thread = self._thread(side_chat_id)
        parts = []
        for widget, selection in self.screen.selections.items():
            if widget.is_attached and thread in widget.ancestors_with_self:
                got = widget.get_selection(selection)
                if got is not None:
                    parts.append(got[0])
        return "".join(parts).strip() or None

    def action_act(self, action: Literal["close", "promote"]) -> None:
        side = self.active
        if side is not None and self.conversation_id is not None:
            self._act(self.conversation_id, action, side)

    @work(group="side")
    @reported("The side chat was not closed or kept")
    async def _act(
        self, conversation_id: str, action: Literal["close", "promote"], side_chat_id: str
    ) -> None:
        if self.backend is None:
            return
        if action == "close":
            result = await self.backend.close_side_chat(conversation_id, side_chat_id)
        else:
            result = await self.backend.promote_side_chat(conversation_id, side_chat_id)
        self.note("" if result.ok else result.message)
        text = inert(result.message)
        self.notify(text, markup=False, severity="information" if result.ok else "error")
        if result.conversation_id is not None:
            self.post_message(self.Made(self, result.conversation_id))
