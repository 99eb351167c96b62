"""One conversation's transcript: a cell per message, command, change, approval and notice.

Engine events arrive in batches; new cells are mounted once per batch, and streamed text is
handed to its cell at most once per frame. The view follows the stream only while it is
scrolled to the bottom.
"""

from __future__ import annotations

from typing import Protocol

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from engine.events import (
    EngineEvent,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    ItemDelta,
    ItemStarted,
    Notice,
    PlanUpdated,
    TurnCompleted,
)
from engine.protocol import (
    AgentMessageItem,
    CommandExecutionItem,
    FileChangeItem,
    KnownItem,
    ReasoningItem,
    UnknownItem,
    UserMessageItem,
)
from tui.widgets.approval import ApprovalCard
from tui.widgets.command import CommandCell
from tui.widgets.diff import FileChangeCell
from tui.widgets.message import AgentMessage, UserMessage
from tui.widgets.notes import NoticeLine, PlanCell, ToolLine, TurnMarker
from tui.widgets.reasoning import Reasoning

FRAME_SECONDS = 1 / 30


class Streaming(Protocol):
    @property
    def dirty(self) -> bool: ...

    async def flush(self) -> None: ...


class Transcript(VerticalScroll, can_focus=False):
    """The cells of one conversation, in the order things happened."""

    DEFAULT_CSS = """
    Transcript { padding: 0 1 1 1; }
    Transcript > .welcome { color: $text-muted; margin: 1 0 0 0; padding: 0 1; }
    """

    def __init__(self, conversation_id: str, welcome: str, cwd: str = "") -> None:
        super().__init__(id=f"transcript-{conversation_id}")
        self.conversation_id = conversation_id
        self.cwd = cwd
        self._welcome = welcome
        self._cells: dict[str, Widget] = {}
        self._cards: dict[str, ApprovalCard] = {}
        self._plans: dict[str, PlanCell] = {}
        self._streaming: set[Streaming] = set()
        self._flush_scheduled = False
        self._turn_users: set[str] = set()
        self._new: list[Widget] = []
        self._finishing: list[tuple[Widget, ItemCompleted]] = []

    def on_mount(self) -> None:
        if self._welcome:
            self.mount(Static(self._welcome, classes="welcome", markup=False))
        self.anchor()

    @property
    def settled(self) -> bool:
        """Nothing is waiting to be drawn."""
        return not self._streaming and not self._flush_scheduled and not self._new

    def cell(self, item_id: str) -> Widget | None:
        """The cell showing an item, if there is one."""
        return self._cells.get(item_id)

    def cells(self) -> list[Widget]:
        return list(self.children)

    async def apply(self, events: list[EngineEvent]) -> list[ApprovalCard]:
        """Show a batch of events; returns the approval cards it added."""
        cards: list[ApprovalCard] = []
        for event in events:
            if isinstance(event, ItemDelta):
                self._delta(event)
            elif isinstance(event, ItemStarted):
                self._started(event)
            elif isinstance(event, ItemCompleted):
                self._completed(event)
            elif isinstance(event, TurnCompleted):
                self._add(TurnMarker(event))
            elif isinstance(event, Notice):
                self._add(NoticeLine(event.level, event.text))
            elif isinstance(event, InteractionRequested):
                card = ApprovalCard(event.interaction)
                self._cards[event.interaction.id] = card
                self._add(card)
                cards.append(card)
            elif isinstance(event, InteractionResolved):
                resolved = self._cards.get(event.interaction_id)
                if resolved is not None:
                    outcome = event.outcome.replace("_", " ")
                    detail = "" if event.detail == outcome else f" — {event.detail}"
                    resolved.resolve(outcome + detail)
            elif isinstance(event, PlanUpdated):
                plan = self._plans.get(event.turn_id)
                if plan is None:
                    self._plans[event.turn_id] = plan = PlanCell(event)
                    self._add(plan)
                else:
                    plan.show(event)
        if self._new:
            await self.mount_all(self._new)
            self._new = []
        finishing, self._finishing = self._finishing, []
        for cell, completed in finishing:
            await self._finish(cell, completed)
        self._schedule_flush()
        return cards

    def _add(self, widget: Widget) -> None:
        self._new.append(widget)

    def _started(self, event: ItemStarted) -> None:
        item = event.item
        if isinstance(item, UserMessageItem):
            steered = event.turn_id in self._turn_users
            self._turn_users.add(event.turn_id)
            self._remember(item.id, UserMessage(item.text, steered=steered))
        elif isinstance(item, AgentMessageItem):
            self._remember(item.id, AgentMessage(item.id))
        elif isinstance(item, ReasoningItem):
            self._remember(item.id, Reasoning(item.id))
        elif isinstance(item, CommandExecutionItem):
            self._remember(item.id, CommandCell(item))
        elif isinstance(item, FileChangeItem):
            self._remember(item.id, FileChangeCell(item, self.cwd))

    def _remember(self, item_id: str, widget: Widget) -> None:
        if item_id not in self._cells:
            self._cells[item_id] = widget
            self._add(widget)

    def _delta(self, event: ItemDelta) -> None:
        cell = self._cells.get(event.item_id)
        if cell is None:
            if event.kind == "agent_message":
                cell = AgentMessage(event.item_id)
            elif event.kind in ("reasoning_summary", "reasoning_text"):
                cell = Reasoning(event.item_id)
            else:
                return
            self._remember(event.item_id, cell)
        if isinstance(cell, AgentMessage | Reasoning | CommandCell):
            cell.add(event.text)
            self._streaming.add(cell)

    def _completed(self, event: ItemCompleted) -> None:
        item = event.item
        cell = self._cells.get(item.id)
        if cell is None:
            late = self._late_cell(item, event.status)
            if late is not None:
                self._remember(item.id, late)
            return
        self._finishing.append((cell, event))

    async def _finish(self, cell: Widget, event: ItemCompleted) -> None:
        item = event.item
        if isinstance(cell, AgentMessage):
            await cell.finish(item.text if isinstance(item, AgentMessageItem) else cell.text)
        elif isinstance(cell, Reasoning):
            await cell.finish(item.summary if isinstance(item, ReasoningItem) else [])
        elif isinstance(cell, CommandCell):
            command = item if isinstance(item, CommandExecutionItem) else None
            await cell.finish(command, event.status)
        elif isinstance(cell, FileChangeCell):
            change = item if isinstance(item, FileChangeItem) else None
            await cell.finish(change, event.status)

    def _late_cell(self, item: KnownItem | UnknownItem, status: str) -> Widget | None:
        """A cell for an item seen only at completion (tools, searches, unknown types)."""
        if isinstance(item, UserMessageItem | ReasoningItem):
            return None
        if isinstance(item, AgentMessageItem):
            cell = AgentMessage(item.id)
            cell.add(item.text)
            self._streaming.add(cell)
            return cell
        if isinstance(item, CommandExecutionItem):
            return CommandCell(item)
        if isinstance(item, FileChangeItem):
            return FileChangeCell(item, self.cwd)
        return ToolLine(item, status)

    def _schedule_flush(self) -> None:
        if self._streaming and not self._flush_scheduled:
            self._flush_scheduled = True
            self.set_timer(FRAME_SECONDS, self._flush)

    async def _flush(self) -> None:
        self._flush_scheduled = False
        streaming, self._streaming = self._streaming, set()
        for cell in streaming:
            if isinstance(cell, Widget) and cell.is_mounted:
                await cell.flush()
            else:
                self._streaming.add(cell)
        self._schedule_flush()

    def last_command(self) -> CommandCell | None:
        commands = self.query(CommandCell)
        return commands.last() if commands else None
