"""The find bar over the composer: type to find text in the conversation shown; enter or ↓
goes to the next match, shift+enter or ↑ to the previous one, esc closes it.

The matches are found off the UI thread (a worker thread reads the transcript's strings), so
a transcript of many megabytes does not stop the screen; typing again drops the search that
is under way.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

from tui.reported import reported
from tui.text import inert
from tui.transcript_search import MAX_MATCHES, Match, find_matches
from tui.widgets.command import CommandCell
from tui.widgets.ordered import OrderedInput
from tui.widgets.transcript import Transcript

TYPING_PAUSE = 0.12
"""Seconds of no typing before the search runs."""


class Closed(Message):
    """The find bar was closed (the composer takes the focus back)."""


class FindBar(Horizontal):
    DEFAULT_CSS = """
    FindBar { height: 1; display: none; background: $boost; padding: 0 1; }
    FindBar.-open { display: block; }
    FindBar > .find-label { width: auto; color: $text-muted; }
    FindBar > Input { width: 36; height: 1; border: none; padding: 0 1; background: $surface; }
    FindBar > Input:focus { border: none; }
    FindBar > #find-status { width: 1fr; padding: 0 1; color: $text-muted; }
    """

    BINDINGS = [
        Binding("down,enter", "step(1)", "Next match", id="find.next", priority=True),
        Binding("up,shift+enter", "step(-1)", "Previous match", id="find.previous", priority=True),
        Binding("escape", "close", "Close find", id="find.close", priority=True),
    ]

    def __init__(self, transcript: Callable[[], Transcript | None]) -> None:
        super().__init__(id="find-bar")
        self._transcript = transcript
        self.query_text = ""
        self.found: list[Match] = []
        self.current: int | None = None
        self._searched: Transcript | None = None

    def compose(self) -> ComposeResult:
        yield Static("find:", classes="find-label")
        yield OrderedInput(placeholder="text in this conversation", id="find-input")
        yield Static("", id="find-status", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one("#find-input", Input)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self, query: str | None = None) -> None:
        """Show the bar with the focus in it, finding `query` (else what was searched last,
        selected)."""
        self.add_class("-open")
        self.screen.set_focus(self.input)
        if query is not None:
            with self.input.prevent(Input.Changed):
                self.input.value = query
        self.input.select_all()
        if self.input.value:
            self._find(self.input.value, pause=False)

    def action_close(self) -> None:
        """Close the bar and take the tint off the matches."""
        self.remove_class("-open")
        self._clear()
        self.screen.set_focus(None)
        self.post_message(Closed())

    def _clear(self) -> None:
        if self._searched is not None and self._searched.is_attached:
            self._searched.mark_found(set(), None)
        self._searched = None
        self.found, self.current, self.query_text = [], None, ""
        self._show_status()

    @on(Input.Changed, "#find-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._find(event.value)

    @work(exclusive=True, group="find")
    @reported("Find failed")
    async def _find(self, query: str, pause: bool = True) -> None:
        if pause:
            await anyio.sleep(TYPING_PAUSE)
        transcript = self._transcript()
        if transcript is None or not query:
            self._clear()
            return
        texts = transcript.search_texts()
        found = await anyio.to_thread.run_sync(find_matches, texts, query)
        if self._searched is not None and self._searched is not transcript:
            self._clear()
        self._searched, self.found, self.query_text = transcript, found, query
        self.current = 0 if found else None
        await self._show_current()

    async def action_step(self, step: int) -> None:
        """Go to the next (1) or previous (-1) match, round the end."""
        if not self.found or self.current is None:
            return
        self.current = (self.current + step) % len(self.found)
        await self._show_current()

    async def _show_current(self) -> None:
        transcript = self._searched
        if transcript is None:
            return
        entries = {match.entry for match in self.found}
        if self.current is None:
            transcript.mark_found(entries, None)
            self._show_status()
            return
        match = self.found[self.current]
        widget = await transcript.reveal(match.entry)
        transcript.mark_found(entries, match.entry)
        if isinstance(widget, CommandCell) and match.where == "command output":
            widget.expanded = True
        if widget is not None:
            transcript.release_anchor()
            transcript.scroll_to_center(widget, animate=False)
        self._show_status()

    def _show_status(self) -> None:
        """Which match is shown (with its excerpt), or that nothing was found."""
        status = self.query_one("#find-status", Static)
        if not self.query_text:
            status.update("")
            return
        if not self.found or self.current is None:
            status.update(Text("no match", style="bold"))
            return
        match = self.found[self.current]
        more = "+" if len(self.found) >= MAX_MATCHES else ""
        text = Text(f"{self.current + 1}/{len(self.found)}{more} · {match.where}: ", style="bold")
        text.append(inert(match.excerpt(max(20, status.size.width - len(text) - 2))))
        text.highlight_words([self.query_text], style="reverse", case_sensitive=False)
        status.update(text)
