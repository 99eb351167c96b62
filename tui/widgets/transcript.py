"""One conversation's transcript: entries for everything that happened, widgets for the latest.

Engine events update entries (data). Only a window of the entries has widgets, a few hundred
at most (fewer when they are long: those that fill some 30 screens): the latest while the view
follows them; older ones are dropped from the screen as the
conversation grows and come back a few screens at a time as PageUp reaches them, or 150 at once
with ctrl+home (or the "earlier items" line). Going back, the window's newest widgets are
dropped in turn, and going down again (PageDown, or scrolled to the last one drawn) draws them
again; ctrl+end draws the latest. A transcript out of view has none: brought back, it draws a
screenful of its latest first and the rest of its first window after that frame. New widgets
are mounted once per batch, and streamed text is handed to its widget at most once per frame:
30 frames a second, 10 while the program is behind. The view follows the stream only while it
is at the bottom.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass

import anyio
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.screen import UPDATE_PERIOD
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import WorkType

from engine.errors import CodexDeckError
from engine.events import EngineEvent, TurnCompleted
from engine.frontend import Backend
from engine.protocol import CollabAgentToolCallItem
from tui.entries import (
    AgentEntry,
    ApprovalEntry,
    CommandEntry,
    Entry,
    FileChangeEntry,
    NoticeEntry,
    PlanEntry,
    ReasoningEntry,
    ReviewEntry,
    ToolEntry,
    TurnEntry,
    UserEntry,
)
from tui.entry_log import EntryLog, joined_deltas
from tui.pacing import PacedScreen, after_painted
from tui.private import forget_layouts, forget_styles
from tui.sized import SizedByLayout
from tui.transcript_search import entry_texts
from tui.widgets.approval import ApprovalCard
from tui.widgets.card import InteractionCard
from tui.widgets.command import CommandCell
from tui.widgets.diff import FileChangeCell
from tui.widgets.form import FormCard
from tui.widgets.message import AgentMessage, UserMessage
from tui.widgets.notes import AgentsLine, NoticeLine, PlanCell, ToolLine, TurnMarker
from tui.widgets.question import QuestionCard
from tui.widgets.reasoning import Reasoning
from tui.widgets.review import ReviewCell
from tui.widgets.streamed import Streamed

VIEWS: dict[type[Entry], Callable[..., Widget]] = {
    UserEntry: UserMessage,
    AgentEntry: AgentMessage,
    ReasoningEntry: Reasoning,
    CommandEntry: CommandCell,
    ToolEntry: ToolLine,
    NoticeEntry: NoticeLine,
    TurnEntry: TurnMarker,
    PlanEntry: PlanCell,
    ReviewEntry: ReviewCell,
}
"""The widget that shows each kind of entry (file changes and requests are chosen apart)."""
CARDS: dict[str, type[InteractionCard]] = {"question": QuestionCard, "elicitation": FormCard}

FRAME_SECONDS = 1 / 30
BUSY_FRAME_SECONDS = 1 / 10
"""How often streamed text is drawn while the event loop is behind (a frame came late)."""
LATE_SECONDS = 0.02
"""How much later than due a frame may come before the next one waits the longer time."""
WINDOW = 300
"""Entries that have widgets while the view follows the latest; older ones are kept as data
only."""
WINDOW_SCREENS = 30
"""While the view follows the latest, the entries drawn fill at most about this many screens
(by their text's lines) as well: long answers, each hundreds of lines, are not kept drawn by
the dozen."""
FIRST_WINDOW = 60
"""Entries given widgets when a transcript is first filled (a conversation reopened with its
history): enough to fill the screen; the older ones come back with ctrl+home."""
EARLIER_STEP = 150
BACK_SCREENS = 2
"""A page up near the first entry drawn draws about this many screens of older ones."""
BACK_STEP = 40
"""At most this many entries at a time (their widgets take some 2 ms each to make)."""
FORWARD_SCREENS = 3
"""Going down past the last drawn, about this many screens of entries are drawn at a time (each
time the window changes, Textual lays out all of it again: a page down does not, most times)."""
FORWARD_STEP = BACK_STEP
MOST_WIDGETS = WINDOW + EARLIER_STEP
"""Entries that have widgets at most: going back or down past them drops those at the other
end (Textual lays out and places every child of a scrolled container: each step back would
take longer the more there are)."""
KEPT_TURNS = 20
"""The latest turns whose entries a transcript keeps as data; as each turn ends, the entries
of older ones without a widget are let go of (the engine lets go of them too: their text is
read back from codex, which keeps it, when the view goes back to them)."""


class EdgeLine(Static):
    """A line above or below the entries drawn that says what is past them; shown while it
    says something, redrawn only when that changes (it is worked out for every batch of
    events, streamed text included)."""

    def __init__(self, classes: str) -> None:
        super().__init__("", classes=classes, markup=False)
        self._said = ""

    def say(self, text: str) -> None:
        if text != self._said:
            self._said = text
            self.set_class(bool(text), "-shown")
            if text:
                self.update(text)


class Transcript(VerticalScroll, SizedByLayout, can_focus=False):
    """The cells of one conversation, in the order things happened."""

    DEFAULT_CSS = """
    /* The scrollbar's room is kept from the start, so the first answer that overflows the
       screen does not narrow every message and make it laid out again. */
    Transcript { padding: 0 1 1 1; scrollbar-gutter: stable; }
    Transcript > .welcome { color: $text-muted; margin: 1 0 0 0; padding: 0 1; }
    Transcript > .earlier { color: $text-muted; text-align: center; display: none; }
    Transcript > .earlier.-shown { display: block; }
    Transcript > .later { color: $text-muted; text-align: center; display: none; }
    Transcript > .later.-shown { display: block; }
    Transcript > .-found { background: $warning 12%; }
    Transcript > .-found-current { background: $warning 30%; }
    """
    BLANK = True
    """Its own lines are its background (padding, no border): drawn without Textual's line
    cache, which each frame of a streaming answer drew again as it scrolled (about 1 ms a
    frame, 24 ms of a 20k-token answer)."""

    def __init__(self, conversation_id: str, welcome: str, cwd: str = "") -> None:
        super().__init__(id=f"transcript-{conversation_id}")
        self.conversation_id = conversation_id
        self.cwd = cwd
        self._welcome = welcome
        self._log = EntryLog()
        self._entries = self._log.entries
        self._by_key = self._log.by_key
        self._window = WINDOW
        self._first_shown = 0
        self._end_shown = 0
        """The entries from `_first_shown` to `_end_shown` (not included) have widgets."""
        self._streaming: set[Streamed] = set()
        self._flush_scheduled = False
        self._flush_due = 0.0
        self._frame = FRAME_SECONDS
        self._earlier = EdgeLine(classes="earlier")
        self._later = EdgeLine(classes="later")
        self._forward_scheduled = False
        self._found: set[int] = set()
        self._found_current: int | None = None
        self._unshown_from: int | None = None
        """While the transcript is out of view: the first entry that has not been shown."""
        self.new_below = False
        """Something came while the view was above the end (after a jump, or scrolled up)."""
        self._released = False
        self._history: Backend | None = None
        """Where the entries before the first read from come from (codex keeps them)."""
        self._applying = anyio.Lock(fast_acquire=True)
        """Held while events are taken in and drawn: earlier entries wait to be put before
        (the entries' places are counted meanwhile). Taken without a wait when free: a
        checkpoint at every batch of every conversation delayed the keys typed meanwhile
        (8 answers streaming at once: echo p99 14 to 21 ms without, 79 to 143 ms with)."""
        self._reading = anyio.Lock()
        """Held while earlier entries are read from codex: one read at a time, and the
        oldest turns are not let go of meanwhile (what is read goes before the entries that
        were first when the read began)."""

    @dataclass
    class Below(Message):
        """Whether something new is below the view, unseen (the user reads above)."""

        transcript: Transcript
        unseen: bool

    def on_mount(self) -> None:
        self.mount(self._earlier)
        if self._welcome:
            self.mount(Static(self._welcome, classes="welcome", markup=False))
        self.mount(self._later)
        self.anchor()
        self.watch(self, "scroll_y", self._scrolled, init=False)

    def reads_earlier_from(self, history: Backend) -> None:
        """Entries older than those there are read from `history` as the view goes back
        past the first (codex keeps a conversation's history; a few hundred items at a
        time are read)."""
        self._history = history
        self._show_earlier_line()

    @property
    def keeps_earlier(self) -> bool:
        """Entries older than the first are kept by codex, not read yet."""
        return self._history is not None and self._history.keeps_earlier(self.conversation_id)

    async def _read_earlier(self, wanted: int) -> None:
        """When fewer than `wanted` entries are above the first drawn and codex keeps older
        ones: read them (a few hundred) and put them before the others."""
        async with self._reading:
            if self._first_shown >= wanted or self._history is None or not self.keeps_earlier:
                return
            try:
                events = await self._history.earlier(self.conversation_id)
            except CodexDeckError as error:
                self.notify(
                    f"Could not read the earlier items from codex: {error}", severity="error"
                )
                return
            async with self._applying:
                self._put_before(events)

    def _put_before(self, events: list[EngineEvent]) -> None:
        added = self._log.put_before(events)
        self._first_shown += added
        self._end_shown += added
        self._found = {index + added for index in self._found}
        if self._found_current is not None:
            self._found_current += added
        if self._unshown_from is not None:
            self._unshown_from += added

    def follow(self) -> None:
        """Go to the end and stay there as things come (as when the user scrolls back down);
        when the latest entries have no widgets (the view went far back), they are drawn."""
        self._released = False
        if self.cut_below:
            self.call_later(self._draw_latest)
        self.anchor()
        self._seen_all()

    @property
    def cut_below(self) -> bool:
        """Entries after the last drawn have no widgets (the view went far back)."""
        return self._end_shown < len(self._entries)

    async def page(self, pages: int) -> None:
        """Scroll a page up (pages < 0) or down; back at the end, what comes is followed. A
        page up near the first entry drawn draws a few screens of older ones above it first,
        the view where it was: paging up goes through the whole conversation."""
        if pages >= 0 and self.cut_below and self._near_the_bottom():
            await self._draw_forward()
            # After the layout that gives the new entries their room (until then the view
            # would stop at the old end).
            self.scroll_page_down(animate=False)
            return
        if pages < 0:
            self.release_anchor()
        near_the_top = self.scroll_y < BACK_SCREENS * self._view_size.height
        async with self._unpainted():  # the frame after the key shows the page
            if pages < 0 and near_the_top and (self._first_shown or self.keeps_earlier):
                await self._draw_back()
            height = self.scrollable_content_region.height
            y = self.scroll_y + (height if pages >= 0 else -height)
            self.scroll_to(y=y, animate=False, immediate=True)

    def _unpainted(self) -> AbstractAsyncContextManager[None]:
        """While the window changes in steps: no frame shows it half changed (widgets drawn
        or let go, and the view not kept yet)."""
        screen = self.screen
        return screen.changing() if isinstance(screen, PacedScreen) else nullcontext()

    async def _draw_back(self) -> None:
        """Widgets for a few screens of entries above the first drawn, the view kept: the
        lines they add above it are worked out as the next layout will (before the frame
        that shows them) and the view scrolled down as many."""
        await self._read_earlier(BACK_STEP)
        if not self._first_shown:
            return
        first = self._entries[self._first_shown].widget
        if first is None:
            return
        size = self._view_size
        before = self._y_of(first, [first], size)
        widgets = await self._bring_back(self._back_step())
        moved = self._y_of(first, [*widgets, first], size) - before
        self.scroll_to(y=self.scroll_y + moved, animate=False, immediate=True)

    @property
    def _view_size(self) -> Size:
        """The size of the view's content as last laid out (asking Textual for the regions
        of a transcript just changed would lay out all of it at once, again at the frame)."""
        outer, gutter = self.outer_size, self.gutter
        return Size(max(outer.width - gutter.width, 0), max(outer.height - gutter.height, 0))

    def _y_of(self, widget: Widget, children: list[Widget], size: Size) -> int:
        """Where `widget` stands in this transcript laid out with `children` below the
        "earlier items" line."""
        above = [self._earlier] if self._earlier.has_class("-shown") else []
        laid = self.layout.arrange(self, [*above, *children], size)
        return next(placement.region.y for placement in laid if placement.widget is widget)

    def _back_step(self) -> int:
        """How many entries above the first drawn fill BACK_SCREENS screens (by their
        text's lines), at most BACK_STEP."""
        width = max(self._view_size.width, 20)
        wanted = self._view_size.height * BACK_SCREENS
        return _filling(self._entries[: self._first_shown], width, wanted, BACK_STEP)

    def release_anchor(self) -> None:
        """The view leaves the end (scrolled up, or a jump): what comes next is not followed
        until it is back there."""
        super().release_anchor()
        self._released = True

    def _scrolled(self) -> None:
        if self.cut_below:
            if self._near_the_bottom(1) and not self._forward_scheduled:
                self._forward_scheduled = True  # scrolled down to the last drawn: on from there
                self.call_later(self._draw_forward)
        elif self._released and self.following:
            self._released = False  # back at the end: Textual follows again
            self.anchor()
            self._seen_all()

    def _near_the_bottom(self, screens: int = BACK_SCREENS) -> bool:
        """The view is within `screens` screens of the last entry drawn."""
        height = self._view_size.height
        return self.scroll_y >= self.max_scroll_y - screens * height

    async def _draw_forward(self) -> None:
        """Widgets for a few screens of entries after the last drawn (the view where it was);
        as many of the first drawn let go when there are too many."""
        self._forward_scheduled = False
        async with self._applying, self._unpainted():
            if not self.cut_below:
                return
            width = max(self._view_size.width, 20)
            wanted = self._view_size.height * FORWARD_SCREENS
            after = self._entries[self._end_shown : self._end_shown + FORWARD_STEP]
            end = self._end_shown + _filling(after[::-1], width, wanted, FORWARD_STEP)
            await self._drop_above(end)
            widgets = [self._widget(entry) for entry in self._entries[self._end_shown : end]]
            self._tint(self._end_shown, end)
            await self.mount_all(widgets, before=self._later)
            self._end_shown = end
            self._show_earlier_line()
            self._show_later_line()
        if not self.cut_below and self._released and self.following:
            self._scrolled()

    async def _drop_above(self, end: int) -> None:
        """Let go of the first drawn as far as the window up to `end` (not drawn yet) would
        hold more than MOST_WIDGETS, the view kept where it is. Done before the new ones are
        mounted: where the others stand is known then from the frame last laid out."""
        first = end - MOST_WIDGETS
        if first <= self._first_shown:
            return
        kept = self._entries[first].widget
        if kept is None:
            return
        top = next(e.widget for e in self._entries[self._first_shown : first] if e.widget)
        height = kept.virtual_region.y - top.virtual_region.y
        earlier = self._earlier.has_class("-shown")
        gone = self._let_go(self._first_shown, first)
        self._first_shown = first
        self._show_earlier_line()
        if self._earlier.has_class("-shown") and not earlier:
            height -= self._earlier.outer_size.height or 1
        await self._remove(gone)
        self.scroll_to(y=self.scroll_y - height, animate=False, immediate=True)

    def _let_go(self, start: int, end: int) -> list[Widget]:
        """The entries from `start` to `end` lose their widgets (kept as data): the widgets,
        for the caller to remove."""
        gone = []
        for entry in self._entries[start:end]:
            if entry.widget is not None:
                gone.append(entry.widget)
                entry.widget = None
        self._streaming.difference_update(w for w in gone if isinstance(w, Streamed))
        return gone

    async def _remove(self, widgets: list[Widget]) -> None:
        """Remove widgets let go of, and what Textual would keep of them. An answer lets go
        of the lines it drew first: a widget removed is freed only by a pass of the cyclic
        collector, which a busy app makes seldom (an answer of 2,600 lines drawn holds some
        7 MiB)."""
        for widget in widgets:
            if isinstance(widget, AgentMessage):
                widget.let_go()
        await self.remove_children(widgets)
        forget_styles()

    async def _drop_below(self) -> None:
        """Past MOST_WIDGETS, let go of the last drawn (they are below the view, which has
        gone back): what comes next is not followed, and is drawn going down again."""
        async with self._applying:
            end = self._first_shown + MOST_WIDGETS
            if end >= self._end_shown:
                return
            gone = self._let_go(end, self._end_shown)
            self._end_shown = end
            self.anchor(False)
            await self._remove(gone)
            self._show_later_line()

    async def _draw_latest(self) -> None:
        """Draw the latest entries again, as when the transcript was first shown (the view
        had gone far back, and the newest had let go of their widgets)."""
        async with self._applying:
            if not self.cut_below:
                return
            shown = self._let_go(self._first_shown, self._end_shown)
            self._first_shown = self._end_shown = 0
            self._window = WINDOW
            await self._remove(shown)
            self.anchor()
            await self._show(0)
            self._schedule_flush()

    def _seen_all(self) -> None:
        if self.new_below:
            self.new_below = False
            self.post_message(self.Below(self, False))

    @property
    def settled(self) -> bool:
        """Nothing is waiting to be drawn (an entry of the window without its widget, under
        the first of a step back, included)."""
        return (
            not self._streaming
            and not self._flush_scheduled
            and self._unshown_from is None
            and all(
                e.widget is not None for e in self._entries[self._first_shown : self._end_shown]
            )
        )

    @property
    def following(self) -> bool:
        """The view is at the end, where what comes next shows (or all of it fits)."""
        if self.cut_below:
            return False
        return self.max_scroll_y <= 0 or self.scroll_y >= self.max_scroll_y - 0.5

    @property
    def frame_seconds(self) -> float:
        """How long streamed text waits before it is drawn: a 30th of a second, or a 10th
        while the program is behind (the last frame came late)."""
        return self._frame

    @property
    def entries(self) -> list[Entry]:
        return list(self._entries)

    async def reveal_key(self, key: str) -> Widget | None:
        """The widget showing an item (drawn, with those around it, if it had none); None if
        the transcript has no such item."""
        entry = self._by_key.get(key)
        while entry is None and self._history is not None and self.keeps_earlier:
            before = len(self._entries)  # an item of a turn let go of: read back to it
            await self._read_earlier(before + 1)
            entry = self._by_key.get(key)
            if len(self._entries) == before:
                break
        if entry is None:
            return None
        return entry.widget or await self.reveal(self._entries.index(entry))

    @property
    def waiting(self) -> list[ApprovalEntry]:
        """The requests that wait for an answer, oldest first."""
        return list(self._log.waiting.values())

    async def card(self, entry: ApprovalEntry) -> InteractionCard | None:
        """The card showing a request (brought back if it had left the window)."""
        if entry.widget is None and entry in self._entries:
            await self.reveal(self._entries.index(entry))
        return entry.widget if isinstance(entry.widget, InteractionCard) else None

    def last_command(self) -> CommandCell | None:
        for entry in reversed(self._entries):
            if isinstance(entry, CommandEntry) and isinstance(entry.widget, CommandCell):
                return entry.widget
        return None

    async def apply(self, events: list[EngineEvent]) -> None:
        """Show a batch of events."""
        async with self._applying:
            await self._apply(events)

    async def _apply(self, events: list[EngineEvent]) -> None:
        shown_before = len(self._entries)
        for event in joined_deltas(events):
            self._log.apply(event)
        streamed, self._log.streamed = self._log.streamed, []
        for entry, text in streamed:
            if isinstance(entry.widget, Streamed):
                entry.widget.add(text)
                self._streaming.add(entry.widget)
        if not self.display:
            if self._unshown_from is None:
                self._unshown_from = shown_before
            return
        await self._show(shown_before)
        self._schedule_flush()
        if any(isinstance(event, TurnCompleted) for event in events):
            self._forget_old_turns()

    def _forget_old_turns(self) -> None:
        """Let go of the entries of the turns before the latest KEPT_TURNS, up to the first
        entry that has a widget or waits for an answer, once the backend can give them back
        (`earlier`); not while earlier ones are being read (the next turn's end does it)."""
        if self._history is None or self._reading.locked():
            return
        ends = [i for i, entry in enumerate(self._entries) if isinstance(entry, TurnEntry)]
        held = (
            i
            for i, entry in enumerate(self._entries)
            if entry.widget is not None or entry.key in self._log.waiting
        )
        first_held = next(held, len(self._entries))
        older = [end for end in ends[:-KEPT_TURNS] if end < first_held]
        if not older:
            return
        last = self._entries[older[-1]]
        assert isinstance(last, TurnEntry)
        if not self._history.let_go(self.conversation_id, last.event.turn_id):
            return
        count = older[-1] + 1
        self._log.drop_first(count)
        self._first_shown = max(self._first_shown - count, 0)
        self._end_shown = max(self._end_shown - count, 0)
        if self._unshown_from is not None:
            self._unshown_from = max(self._unshown_from - count, 0)
        self._found = {index - count for index in self._found if index >= count}
        current = self._found_current
        self._found_current = current - count if current is not None and current >= count else None
        self._show_earlier_line()

    async def _show(self, shown_before: int) -> None:
        """Give widgets to new entries, update changed ones, and keep the window bounded."""
        if len(self._entries) > shown_before and self._released and not self.new_below:
            self.new_below = True
            self.post_message(self.Below(self, True))
        new: list[Entry] = []
        if self._end_shown >= shown_before:  # the window reaches the end: what came is drawn
            new = await self._draw_new(shown_before)
        changed, self._log.changed = self._log.changed, []
        for entry in dict.fromkeys(changed):
            if entry.widget is not None and entry not in new:
                await self._refresh(entry)
        self._show_earlier_line()
        self._show_later_line()

    async def _draw_new(self, shown_before: int) -> list[Entry]:
        """Widgets for the entries from `shown_before` on, those before having them: while
        the view follows, the window moves on (the first drawn let go); while the user reads
        above, it grows to MOST_WIDGETS, and what comes after waits (drawn going down)."""
        end = len(self._entries)
        if self._released and shown_before:
            first = self._first_shown
            end = min(end, max(first + MOST_WIDGETS, self._end_shown))
        else:
            first = max(self._first_shown, end - self._window)
            if end > self._end_shown:
                first = self._first_filling(first, end, WINDOW_SCREENS)
        if not shown_before:
            first = max(first, end - self._screenful())
            after_painted(self, self._fill_back)
        if first > self._first_shown:
            old = self._let_go(self._first_shown, first)
            self._first_shown = first
            if old:
                await self._remove(old)
        new = [e for e in self._entries[max(shown_before, first) : end] if e.widget is None]
        self._end_shown = end
        if end < len(self._entries):
            self.anchor(False)
        if new:
            await self.mount_all([self._widget(entry) for entry in new], before=self._later)
            if any(isinstance(entry, TurnEntry) for entry in new):
                after_painted(self, self._let_go_out_of_view)
        return new

    async def _let_go_out_of_view(self) -> None:
        """After the frame that shows a turn's end: the answers more than a screen away
        from the view let go of the lines they drew (each drawn again as it comes into
        view), so what a long conversation holds is its text, not every line of every
        answer drawn."""
        height = self.scrollable_content_region.height
        near = range(round(self.scroll_y) - height, round(self.scroll_y) + 2 * height)
        shown = (entry.widget for entry in self._entries[self._first_shown : self._end_shown])
        answers = [w for w in shown if isinstance(w, AgentMessage) and w not in self._streaming]
        for answer in answers:
            region = answer.virtual_region
            if region.bottom < near.start or region.y >= near.stop:
                answer.let_go()

    async def put_away(self) -> None:
        """The transcript left the view: its widgets go, its entries stay (as data). Coming
        back draws the latest again, as when it was first shown. One that streams or waits
        for an answer keeps its widgets (what they hold is being drawn or chosen)."""
        if self.display or self._streaming or self._log.waiting or self._unshown_from is not None:
            return
        shown = self._let_go(self._first_shown, self._end_shown)
        if not shown:
            return
        self._first_shown, self._end_shown, self._window, self._unshown_from = 0, 0, WINDOW, 0
        self._found, self._found_current = set(), None
        await self._remove(shown)
        # Textual holds the displayed children and the last few layouts until the next layout,
        # which a transcript out of view does not get: reading the one and forgetting the
        # other lets the removed widgets go.
        self.log.debug(f"put away: {len(self.displayed_children)} widgets left")
        forget_layouts(self)

    async def catch_up(self) -> None:
        """The transcript came into view: draw what happened while it was out of view (its
        entries were kept up to date; widgets are made and streamed text drawn only now)."""
        if self._unshown_from is not None:
            shown_before, self._unshown_from = self._unshown_from, None
            await self._show(shown_before)
        self._schedule_flush()

    def _widget(self, entry: Entry) -> Widget:
        widget: Widget
        if isinstance(entry, FileChangeEntry):
            widget = FileChangeCell(entry, self.cwd)
        elif isinstance(entry, ApprovalEntry):
            widget = CARDS.get(entry.info.kind, ApprovalCard)(entry)
        elif isinstance(entry, ToolEntry) and isinstance(entry.item, CollabAgentToolCallItem):
            widget = AgentsLine(entry)
        else:
            widget = VIEWS[type(entry)](entry)
        entry.widget = widget
        return widget

    async def _refresh(self, entry: Entry) -> None:
        widget = entry.widget
        if isinstance(widget, Streamed):
            self._streaming.discard(widget)
            await widget.finish()
        elif isinstance(widget, FileChangeCell):
            await widget.finish()
        elif isinstance(widget, PlanCell):
            widget.show()
        elif isinstance(widget, InteractionCard):
            widget.show_resolution()

    def _show_earlier_line(self) -> None:
        """Say what is above the first entry drawn."""
        hidden = self._first_shown
        kept = self.keeps_earlier
        if hidden:
            more = " (and older ones kept by codex)" if kept else ""
            text = f"▲ {hidden} earlier item(s){more} — ctrl+home shows more"
        else:
            text = "▲ earlier items kept by codex — ctrl+home shows them" if kept else ""
        self._earlier.say(text)

    def _show_later_line(self) -> None:
        """Say what is below the last entry drawn (the view went far back)."""
        later = len(self._entries) - self._end_shown
        text = f"▼ {later} later item(s) — PageDown goes on, ctrl+end to the latest"
        text = text if later > 0 else ""
        self._later.say(text)

    def _first_filling(self, start: int, end: int, screens: int) -> int:
        """The first of the entries from `start` to `end` that, with those after it, fill
        `screens` screens (`start` if they all do not)."""
        width = max(self._view_size.width or self.app.size.width, 20)
        wanted = (self._view_size.height or self.app.size.height) * screens
        return end - _filling(self._entries[start:end], width, wanted, end - start)

    def _screenful(self) -> int:
        """How many of the latest entries fill the view (by their text's lines), at most
        FIRST_WINDOW: they are drawn first, the rest of the first window after that frame."""
        width = max(self.scrollable_content_region.width or self.app.size.width, 20)
        wanted = (self.scrollable_content_region.height or self.app.size.height) * 3 // 2
        return _filling(self._entries, width, wanted, FIRST_WINDOW)

    async def _fill_back(self) -> None:
        """After the first frame of a transcript brought into view: the rest of its first
        window, above what is shown (the view stays where it is)."""
        end = len(self._entries)
        start = self._first_filling(max(end - FIRST_WINDOW, 0), end, WINDOW_SCREENS)
        if self.display and self._first_shown > start:
            await self._mount_earlier(start)

    async def _bring_back(self, count: int, drawn_first: int | None = None) -> list[Widget]:
        """Widgets for up to `count` entries above the first drawn, kept in the window; with
        `drawn_first`, only that many of the first of them now, the others under them after
        the next frame (`_fill_in`)."""
        start = max(0, self._first_shown - count)
        self._window = min(self._window + self._first_shown - start, MOST_WIDGETS)
        widgets = await self._mount_earlier(start, drawn_first)
        if drawn_first is not None:
            after_painted(self, self._fill_in)
        after_painted(self, self._drop_below)  # below the view: not in the way of its frame
        return widgets

    async def _mount_earlier(self, start: int, count: int | None = None) -> list[Widget]:
        """Give widgets to the entries from `start` to the first shown (to the first `count`
        of them only: the others are left without, for `_fill_in`)."""
        end, self._first_shown = self._first_shown, start
        widgets = await self._mount(start, end if count is None else min(start + count, end))
        self._show_earlier_line()
        return widgets

    async def _mount(self, start: int, end: int) -> list[Widget]:
        """Give widgets to the entries from `start` to `end` (which have none), before the
        next one that has."""
        anchor = next((e.widget for e in self._entries[end:] if e.widget), None)
        widgets = [self._widget(entry) for entry in self._entries[start:end]]
        self._tint(start, end)
        await self.mount_all(widgets, before=anchor or self._later)
        return widgets

    async def _fill_in(self, most: int = BACK_STEP) -> None:
        """Give widgets to the first run (up to `most`) of the entries in the window that were
        left without (below the view, after the frame that showed the first of a step back);
        the others after the next frame."""
        async with self._applying:
            window = range(self._first_shown, self._end_shown)
            start = next((i for i in window if self._entries[i].widget is None), None)
            if start is None:
                return
            end = start + 1
            while end in window and end - start < most and self._entries[end].widget is None:
                end += 1
            await self._mount(start, end)
        after_painted(self, self._fill_in)

    async def action_show_earlier(self) -> None:
        """Give widgets to up to EARLIER_STEP more of the older entries (read from codex
        when it keeps them and fewer are left), the view at the top (the line that says what
        is above, then the first of them): those that fill the screen from there are drawn
        first, the others under them after that frame."""
        await self._read_earlier(EARLIER_STEP)
        if not self._first_shown:
            return
        self.release_anchor()
        async with self._applying, self._unpainted():
            step = self._entries[max(0, self._first_shown - EARLIER_STEP) : self._first_shown]
            size = self._view_size
            wanted = (size.height or self.app.size.height) * 3 // 2
            screenful = _filling(step[::-1], max(size.width, 20), wanted, len(step))
            await self._bring_back(EARLIER_STEP, screenful)
            # At the top: the line that says what is above, then the first of the step.
            self.scroll_to(y=0, animate=False, immediate=True)

    def search_texts(self) -> list[tuple[int, str, str]]:
        """Every searchable text, as (entry index, what it is, text)."""
        return [
            (index, where, text)
            for index, entry in enumerate(self._entries)
            for where, text in entry_texts(entry)
        ]

    async def reveal(self, index: int) -> Widget | None:
        """Make sure entry `index` has a widget (bringing back older ones) and return it."""
        if not 0 <= index < len(self._entries):
            return None
        if index >= self._end_shown or index < self._first_shown - MOST_WIDGETS:
            await self._draw_at(index)
        while index < self._first_shown:
            await self.action_show_earlier()
        shown = self._entries[index]
        while shown.widget is None and self._first_shown <= index < self._end_shown:
            # Under the first of a step back: not drawn yet.
            await self._fill_in(most=len(self._entries))
        return shown.widget

    async def _draw_at(self, index: int) -> None:
        """Draw a window of entries from a little before entry `index` (one far from those
        drawn: a search's match, a request waiting), the others let go."""
        async with self._applying:
            await self._remove(self._let_go(self._first_shown, self._end_shown))
            self.release_anchor()
            self._first_shown = self._end_shown = max(0, index - BACK_STEP)
            end = min(len(self._entries), self._first_shown + WINDOW)
            widgets = [self._widget(entry) for entry in self._entries[self._first_shown : end]]
            self._tint(self._first_shown, end)
            await self.mount_all(widgets, before=self._later)
            self._end_shown = end
            self._window = WINDOW
            if self.cut_below:
                self.anchor(False)
            self._show_earlier_line()
            self._show_later_line()

    def mark_found(self, entries: set[int], current: int | None) -> None:
        """Tint the entries with a match, the current one more; an empty set clears it."""
        self._found, self._found_current = entries, current
        for index in range(self._first_shown, self._end_shown):
            self._mark_found(index)

    def _tint(self, start: int, end: int) -> None:
        """Tint the new widgets of entries `start` to `end` that hold a match."""
        if self._found:
            for index in range(start, end):
                self._mark_found(index)

    def _mark_found(self, index: int) -> None:
        widget = self._entries[index].widget
        if widget is not None:
            widget.set_class(index in self._found and index != self._found_current, "-found")
            widget.set_class(index == self._found_current, "-found-current")

    def on_click(self) -> None:
        work: WorkType[None] | None = None
        if self._earlier.has_class("-shown") and self._earlier.mouse_hover:
            work = self.action_show_earlier
        elif self._later.has_class("-shown") and self._later.mouse_hover:
            work = self._draw_forward
        if work is not None:
            self.run_worker(work, exclusive=True)

    def _schedule_flush(self) -> None:
        if self._streaming and not self._flush_scheduled and self.display:
            self._flush_scheduled = True
            self._flush_due = time.perf_counter() + self._frame
            self.set_timer(self._frame, self._flush)

    async def _flush(self) -> None:
        self._flush_scheduled = False
        screen = self.screen
        if isinstance(screen, PacedScreen) and screen.keys_first:
            # A key typed paints first, in a frame kept short; the text follows a tick later.
            self._flush_scheduled = True
            self._flush_due = time.perf_counter() + UPDATE_PERIOD
            self.set_timer(UPDATE_PERIOD, self._flush)
            return
        late = time.perf_counter() - self._flush_due > LATE_SECONDS
        self._frame = BUSY_FRAME_SECONDS if late else FRAME_SECONDS
        if not self.display:
            return
        streaming, self._streaming = self._streaming, set()
        for widget in streaming:
            if isinstance(widget, Widget) and widget.is_mounted:
                await widget.flush()
        self._schedule_flush()


def _filling(entries: list[Entry], width: int, wanted: int, most: int) -> int:
    """How many of `entries`, from the last, fill `wanted` rows at `width` (by their text's
    lines, and a margin each), at most `most` (all of them if they do not)."""
    rows = 0
    for count, entry in enumerate(reversed(entries), start=1):
        lines = [line for _, text in entry_texts(entry) for line in text.split("\n")]
        rows += 2 + sum(len(line) // width + 1 for line in lines)
        if rows >= wanted or count == most:
            return count
    return len(entries)
