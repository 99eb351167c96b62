"""One-line entries in the transcript: notices, turn boundaries, tool calls, plans."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from engine.protocol import CollabAgentToolCallItem
from tui.entries import NoticeEntry, PlanEntry, ToolEntry, TurnEntry, describe_item
from tui.text import duration, inert

PLAN_MARKS = {"completed": "✔", "inProgress": "▸", "pending": "·"}


class NoticeLine(Static):
    """A message from codex-deck or codex: info, warning or error, each looking different."""

    DEFAULT_CSS = """
    NoticeLine { margin: 1 0 0 0; padding: 0 1; color: $text-muted; }
    NoticeLine.-warning { color: $warning; }
    NoticeLine.-error { color: $error; text-style: bold; border-left: thick $error; }
    """

    def __init__(self, entry: NoticeEntry) -> None:
        marks = {"info": "ℹ", "warning": "⚠", "error": "✖"}
        text = Text(f"{marks[entry.level]} {inert(entry.text)}")
        super().__init__(text, classes=f"-{entry.level}")
        self.level = entry.level
        self.text = entry.text


class TurnMarker(Static):
    """Where a turn ended: its status and how long it took."""

    DEFAULT_CSS = """
    TurnMarker { margin: 1 0 0 0; color: $text-muted; text-align: center; }
    TurnMarker.-interrupted { color: $warning; }
    TurnMarker.-failed { color: $error; }
    """

    def __init__(self, entry: TurnEntry) -> None:
        event = entry.event
        took = f" · {duration(event.duration_ms)}" if event.duration_ms is not None else ""
        error = f" · {inert(event.error)}" if event.error else ""
        super().__init__(
            Text(f"── turn {event.status}{took}{error} ──"), classes=f"-{event.status}"
        )
        self.turn_id = event.turn_id
        self.status = event.status


class ToolLine(Static):
    """A tool call, web search, image, compaction or unknown item, in one or two lines."""

    DEFAULT_CSS = """
    ToolLine { margin: 1 0 0 0; padding: 0 1; color: $text-muted; border-left: thick $panel; }
    ToolLine.-failed { border-left: thick $error; }
    """

    def __init__(self, entry: ToolEntry) -> None:
        text = Text(inert(describe_item(entry.item, entry.status)))
        super().__init__(text, classes=f"-{entry.status}")


class AgentsLine(ToolLine, can_focus=True):
    """A call of codex's multi-agent tools; Enter opens the (first) sub-agent's transcript."""

    BINDINGS = [Binding("enter", "open", "Sub-agent's transcript", id="agents.open")]

    DEFAULT_CSS = """
    AgentsLine:focus { background: $boost; }
    """

    @dataclass
    class Open(Message):
        """Open a sub-agent's thread as a conversation."""

        thread_id: str

    def __init__(self, entry: ToolEntry) -> None:
        super().__init__(entry)
        item = entry.item
        self.threads = (
            list(item.receiver_thread_ids) if isinstance(item, CollabAgentToolCallItem) else []
        )

    def action_open(self) -> None:
        if self.threads:
            self.post_message(self.Open(self.threads[0]))


class PlanCell(Static):
    """The agent's plan for the turn, updated in place."""

    DEFAULT_CSS = """
    PlanCell { margin: 1 0 0 0; padding: 0 1; border-left: thick $accent; }
    """

    def __init__(self, entry: PlanEntry) -> None:
        super().__init__()
        self.entry = entry

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        event = self.entry.event
        lines = [f"{PLAN_MARKS.get(status, '·')} {inert(step)}" for step, status in event.steps]
        if event.explanation:
            lines.insert(0, inert(event.explanation))
        self.update(Text("\n".join(["plan", *lines])))
