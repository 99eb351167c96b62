"""The live trace of the conversation in view: one row per event, filterable.

Runs of streamed text for one item are one row with a count, so a long answer stays
readable; the engine's own trace (and its export) keeps every event.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import msgspec
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from engine.events import (
    ConversationJoined,
    ConversationUpdated,
    EngineEvent,
    FilesFound,
    HostJoined,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    ItemDelta,
    ItemStarted,
    Notice,
    SideChatAnswered,
    SideChatAsked,
    SideChatDelta,
    SideChatUpdated,
    StopRequested,
    SubAgentActivity,
    SubmissionAccepted,
    TokenUsageUpdated,
    TurnCompleted,
    TurnDiff,
    TurnStarted,
    UnknownMessage,
)
from engine.frontend import Backend
from engine.replay import ReplayBackend
from tui.reported import reported
from tui.text import duration, inert
from tui.timeline import render, turn_timelines
from tui.widgets.ordered import run_binding

ROWS_KEPT = 4000
"""Rows held for the conversation in view while the pane is open."""
ROWS_OUT_OF_VIEW = 100
"""Rows held for a conversation out of view, or for the one in view while the pane is closed:
coming into view, its rows are made again from the backend's trace (the engine holds it, older
turns in its spool; the pane need not hold it twice)."""
KIND_CHARS = 20
"""Wide enough for the longest kind (`delta reasoning_summary` is cut, the rest fit)."""
LABEL_CHARS = 26
LABEL_CHARS_LEAST = 8
FIXED_CHARS = 8 + KIND_CHARS + 7 + 4 * 2 + 2
"""The time, kind and took columns, each column's padding, and the scrollbar."""
TIMELINE_SECONDS = 0.25
"""The timeline is drawn again at most this often while events come."""
FOR_THE_FRONT_END = (FilesFound, SubAgentActivity, HostJoined)
"""Events that tell the front end something (files an @ found, a sub-agent's activity): not
the trace's."""
FILTERS = ("all", "items", "interactions", "turns", "side", "notices", "raw")


class Row(msgspec.Struct):
    event: EngineEvent
    kind: str
    label: str
    took: str = ""
    count: int = 1
    item_id: str | None = None
    last_seq: int = -1
    """The seq of the latest event counted on the row."""

    def __post_init__(self) -> None:
        self.last_seq = self.event.seq


def _continues(row: Row, event: EngineEvent) -> bool:
    """The event is one more delta of the row's (counted on it, not a row of its own)."""
    last = row.event
    if isinstance(event, ItemDelta) and isinstance(last, ItemDelta):
        return (last.item_id, last.kind) == (event.item_id, event.kind)
    if isinstance(event, SideChatDelta) and isinstance(last, SideChatDelta):
        return last.side_chat_id == event.side_chat_id
    return False


def describe(event: EngineEvent) -> Row:
    """The row for an event: its kind, a short label, and its duration if it has one."""
    if isinstance(event, ItemDelta):
        label = inert(event.text[:60])
        return Row(event, f"delta {event.kind}", label, count=event.joined, item_id=event.item_id)
    if isinstance(event, ItemStarted):
        return Row(event, "item started", event.item.type, item_id=event.item.id)
    if isinstance(event, ItemCompleted):
        took = duration(getattr(event.item, "duration_ms", None))
        closed = " (closed by the turn)" if event.closed_by_turn else ""
        label = f"{event.item.type} {event.status}{closed}"
        return Row(event, "item completed", label, took, item_id=event.item.id)
    if isinstance(event, TurnStarted):
        return Row(event, "turn started", f"generation {event.generation}")
    if isinstance(event, TurnCompleted):
        return Row(event, "turn completed", event.status, duration(event.duration_ms))
    if isinstance(event, InteractionRequested):
        info = event.interaction
        return Row(event, "asked", f"{info.kind} {info.id}", item_id=info.item_id)
    if isinstance(event, InteractionResolved):
        who = "you" if event.by == "user" else event.by
        return Row(event, "answered", f"{event.interaction_id} {event.outcome} by {who}")
    if isinstance(event, SubmissionAccepted):
        return Row(event, f"sent ({event.how})", inert(event.text[:60]))
    if isinstance(event, StopRequested):
        return Row(event, "stop", event.outcome.replace("_", " "))
    if isinstance(event, Notice):
        return Row(event, f"notice {event.level}", inert(event.text.split("\n")[0][:80]))
    if isinstance(event, TokenUsageUpdated):
        return Row(event, "tokens", f"{event.usage.total.total_tokens:,} total")
    if isinstance(event, ConversationUpdated):
        return Row(event, "state", event.info.state)
    if isinstance(event, ConversationJoined):
        return Row(event, "joined", "started by another app on this codex")
    if isinstance(event, TurnDiff):
        return Row(event, "diff", f"{event.diff.count(chr(10))} lines")
    if isinstance(event, SideChatDelta):
        return Row(event, "side delta", inert(event.text[:60]), item_id=event.side_chat_id)
    if isinstance(event, SideChatAsked):
        return Row(event, "side asked", f"{event.side_chat_id} {inert(event.question[:50])}")
    if isinstance(event, SideChatAnswered):
        cut = " (cut)" if event.cut else ""
        return Row(event, "side answered", f"{event.side_chat_id} {len(event.answer):,} chars{cut}")
    if isinstance(event, SideChatUpdated):
        return Row(event, "side state", f"{event.info.id} {event.info.state}")
    if isinstance(event, UnknownMessage):
        return Row(event, "raw", event.method + (f" ({event.problem})" if event.problem else ""))
    return Row(event, type(event).__name__, "")


def matches(row: Row, kind_filter: str) -> bool:
    kind = row.kind
    if kind_filter == "all":
        return True
    if kind_filter == "items":
        return kind.startswith(("item", "delta"))
    if kind_filter == "interactions":
        return kind in ("asked", "answered")
    if kind_filter == "turns":
        return kind.startswith(("turn", "sent", "stop"))
    if kind_filter == "side":
        return kind.startswith("side")
    if kind_filter == "notices":
        return kind.startswith("notice")
    return kind == "raw"


class TraceTable(DataTable[str]):
    """The trace's rows; its keys act in the order typed (ctrl+t ctrl+t at full speed left
    the focus on the table it hid, and the keys typed next went to it)."""

    keys_in_order = True

    async def on_key(self, event: events.Key) -> None:
        await run_binding(self, event)


class TracePane(Vertical):
    """Enter jumps to the event's item in the transcript; r shows the raw event."""

    BINDINGS = [
        Binding("f", "next_filter", "Filter", id="trace.filter"),
        Binding("r", "raw", "Raw", id="trace.raw"),
        Binding("e", "export", "Export", id="trace.export"),
        Binding("t", "toggle_timeline", "Timeline", id="trace.timeline"),
    ]

    DEFAULT_CSS = """
    TracePane { width: 45%; border-left: tall $panel; background: $surface; }
    TracePane .trace-title { background: $panel; padding: 0 1; }
    TracePane DataTable { height: 1fr; }
    TracePane .trace-timeline { height: auto; max-height: 14; padding: 0 1; display: none; }
    TracePane.-timeline .trace-timeline { display: block; }
    """

    @dataclass
    class Jump(Message):
        """Show this item in the transcript."""

        item_id: str

    @dataclass
    class ShowRaw(Message):
        event: EngineEvent

    def __init__(self) -> None:
        super().__init__(id="trace")
        self._rows: dict[str, deque[Row]] = {}
        self._whole: set[str] = set()
        """The conversations whose rows are all that is kept of them (not only the latest)."""
        self._shown: str | None = None
        self.backend: Backend | None = None
        """Where the trace is exported from (None until the engine is up)."""
        self._filter = "all"
        self._keys: dict[str, Row] = {}
        self._timeline_due = False
        self._label_chars = LABEL_CHARS

    def compose(self) -> ComposeResult:
        yield Static("trace · all", classes="trace-title")
        yield Static(classes="trace-timeline", markup=False)
        table = TraceTable(cursor_type="row", zebra_stripes=True)
        self._add_columns(table, LABEL_CHARS)
        yield table

    def _add_columns(self, table: DataTable[str], label: int) -> None:
        for column, width in (("time", 8), ("kind", KIND_CHARS), ("label", label), ("took", 7)):
            table.add_column(column, key=column, width=width)
        self._label_chars = label

    def on_resize(self) -> None:
        """The label takes the width the other columns leave, so that no column is cut."""
        table = self.query_one(DataTable)
        label = max(LABEL_CHARS_LEAST, self.content_region.width - FIXED_CHARS)
        if label != self._label_chars:
            table.clear(columns=True)
            self._add_columns(table, label)
            self._redraw()

    def add(self, events: list[EngineEvent]) -> None:
        """Record events (of any conversation); show the ones of the conversation in view.

        While the pane is hidden nothing is drawn; showing it draws what was recorded.
        """
        visible = self.display
        table = self.query_one(DataTable)
        touched: dict[str, Row] = {}
        for event in events:
            if event.conversation_id is None:
                continue
            row = self._take(event.conversation_id, event)
            if row is None:
                continue
            if row.count > 1:
                touched[str(row.event.seq)] = row
            elif visible and event.conversation_id == self._shown and matches(row, self._filter):
                self._add_row(table, row)
        if not visible:
            return
        for key, row in touched.items():
            if key in self._keys:
                table.update_cell(key, "label", f"×{row.count}")
        if not self._timeline_due and self.has_class("-timeline"):
            self._timeline_due = True
            self.set_timer(TIMELINE_SECONDS, self._draw_timeline)

    def _take(self, conversation_id: str, event: EngineEvent) -> Row | None:
        """Put the event into the conversation's rows: the row it made or counted on (None
        for one the rows have already: made again from the backend's trace)."""
        rows = self._rows.get(conversation_id)
        if rows is None:
            rows = self._rows[conversation_id] = deque(maxlen=self._kept(conversation_id))
        last = rows[-1] if rows else None
        if last is not None and last.last_seq >= event.seq:
            return None
        if last is not None and _continues(last, event):
            last.count += event.joined if isinstance(event, ItemDelta) else 1
            last.last_seq = event.seq
            return last
        row = describe(event)
        rows.append(row)
        return row

    def _kept(self, conversation_id: str) -> int:
        """How many rows of the conversation are held: all up to ROWS_KEPT for the one in view
        in the open pane (or in a replay, whose rows cannot be made again); the latest only for
        the others."""
        in_view = conversation_id == self._shown
        if in_view and (self.display or isinstance(self.backend, ReplayBackend)):
            return ROWS_KEPT
        return ROWS_OUT_OF_VIEW

    def _made_again(self, conversation_id: str) -> None:
        """The conversation's rows as the backend's trace holds them (a replay holds none
        apart from what it plays: its latest rows stay)."""
        self._whole.add(conversation_id)
        traced = self.backend.full_trace(conversation_id) if self.backend is not None else []
        held = self._rows.get(conversation_id, ())
        self._rows[conversation_id] = deque(() if traced else held, maxlen=ROWS_KEPT)
        for event in traced:
            if not isinstance(event, FOR_THE_FRONT_END):
                self._take(conversation_id, event)

    def action_toggle_timeline(self) -> None:
        """Show or hide the timeline of the selected turn (the latest, unless a row of an
        earlier one is selected)."""
        self.toggle_class("-timeline")
        self._draw_timeline()

    def on_data_table_row_highlighted(self) -> None:
        if self.has_class("-timeline"):
            self._draw_timeline()

    def _draw_timeline(self) -> None:
        self._timeline_due = False
        rows = list(self._rows.get(self._shown or "", ()))
        shown = self.query_one(".trace-timeline", Static)
        timelines = turn_timelines(row.event for row in rows)
        if not timelines:
            shown.update("no turn yet")
            return
        selected = self._selected()
        chosen = timelines[-1]
        if selected is not None:
            begun = [t for t in timelines if t.start <= selected.event.at]
            chosen = begun[-1] if begun else timelines[0]
        now = rows[-1].event.at
        shown.update(render(chosen, max(self.size.width - 4, 30), now))

    def opened(self) -> None:
        """The pane was opened: draw what was recorded while it was closed. (Called by what
        opens it: Textual sends no Show event when it lays the screen out along with a
        scroll, as after the conversation was scrolled.)"""
        self._redraw()
        if self.has_class("-timeline"):
            self._draw_timeline()

    def closed(self) -> None:
        """The pane was closed: of the conversation in view only the latest rows stay, as of
        one out of view (opening the pane makes them again)."""
        shown = self._shown
        if shown is not None and shown in self._rows:
            self._rows[shown] = deque(self._rows[shown], maxlen=self._kept(shown))
            if self._kept(shown) == ROWS_OUT_OF_VIEW:
                self._whole.discard(shown)

    def show(self, conversation_id: str) -> None:
        left = self._shown
        if left is not None and left != conversation_id and left in self._rows:
            self._rows[left] = deque(self._rows[left], maxlen=ROWS_OUT_OF_VIEW)
            self._whole.discard(left)
        self._shown = conversation_id
        if not self.display:
            return
        self._redraw()
        if self.has_class("-timeline"):
            self._draw_timeline()

    def _redraw(self) -> None:
        if self._shown is not None and self._shown not in self._whole:
            self._made_again(self._shown)
        table = self.query_one(DataTable)
        table.clear()
        self._keys.clear()
        for row in self._rows.get(self._shown or "", ()):
            if matches(row, self._filter):
                self._add_row(table, row, follow=False)
        if table.row_count:
            table.move_cursor(row=table.row_count - 1, animate=False)
        title = f"trace · {self._filter}   (f filter, t timeline, r raw, e export, enter jump)"
        self.query_one(".trace-title", Static).update(title)

    def _add_row(self, table: DataTable[str], row: Row, follow: bool = True) -> None:
        key = str(row.event.seq)
        stamp = time.strftime("%H:%M:%S", time.localtime(row.event.at))
        label = f"×{row.count}" if row.count > 1 else row.label
        table.add_row(stamp, row.kind, label, row.took, key=key)
        self._keys[key] = row
        if follow and table.cursor_row >= table.row_count - 2:
            table.move_cursor(row=table.row_count - 1, animate=False)

    def action_next_filter(self) -> None:
        self._filter = FILTERS[(FILTERS.index(self._filter) + 1) % len(FILTERS)]
        self._redraw()

    def _selected(self) -> Row | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self._keys.get(key or "")

    def action_raw(self) -> None:
        row = self._selected()
        if row is not None:
            self.post_message(self.ShowRaw(row.event))

    @work(group="export")
    @reported("The trace was not exported")
    async def action_export(self) -> None:
        """Write the conversation's trace to a file in the working directory."""
        if self.backend is None or self._shown is None:
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = Path.cwd() / f"codex-deck-trace-{self._shown}-{stamp}.jsonl"
        count = await self.backend.export_trace(self._shown, path)
        self.notify(f"Wrote {count} events to {path} (secrets redacted).", markup=False)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        row = self._keys.get(event.row_key.value or "")
        if row is not None and row.item_id is not None:
            self.post_message(self.Jump(row.item_id))
