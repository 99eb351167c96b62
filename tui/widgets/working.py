"""The working line: while a turn runs in the conversation shown, what codex is doing now, for
how long, and the key that stops it, just above the message box where the eye is (as the
Codex TUI's "Working (12s • esc to interrupt)"); under it, what each of its running sub-agents
is at."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from textual.widgets import Static

from engine import protocol as wire
from engine.events import (
    BUSY_STATES,
    SUB_AGENT_LIVE,
    ConversationInfo,
    EngineEvent,
    ItemCompleted,
    ItemDelta,
    ItemStarted,
    SubAgentActivity,
    TurnCompleted,
    TurnStarted,
)
from tui.text import clock, inert, shown_command

COMMAND_SHOWN_CHARS = 60
THINKING = "thinking"
AGENTS_SHOWN = 3
"""As many running sub-agents as the line names; the rest are counted."""
AGENT_SHOWN_CHARS = 13
"""As much of a sub-agent's thread id as is shown (enough for /open)."""


def doing(item: wire.KnownItem | wire.UnknownItem) -> str | None:
    """What an item that has started says codex is doing (None: nothing worth a word)."""
    if isinstance(item, wire.CommandExecutionItem):
        command = shown_command(item.command).splitlines()[0] if item.command else ""
        if len(command) > COMMAND_SHOWN_CHARS:
            command = command[: COMMAND_SHOWN_CHARS - 1] + "…"
        return f"running `{command}`"
    if isinstance(item, wire.ReasoningItem):
        return THINKING
    if isinstance(item, wire.AgentMessageItem):
        return "writing"
    if isinstance(item, wire.FileChangeItem):
        return "changing files"
    if isinstance(item, wire.McpToolCallItem):
        return f"calling {item.server}.{item.tool}"
    if isinstance(item, wire.DynamicToolCallItem):
        return f"calling {item.tool}"
    if isinstance(item, wire.WebSearchItem):
        return "searching the web"
    if isinstance(item, wire.ContextCompactionItem):
        return "compacting the history"
    if isinstance(item, wire.CollabAgentToolCallItem):
        return "working with sub-agents"
    if isinstance(item, wire.SleepItem):
        return "waiting"
    return None


class Activity:
    """What one conversation's running turn is doing: the items started and not completed."""

    def __init__(self) -> None:
        self._open: dict[str, str] = {}

    def take(self, event: EngineEvent) -> None:
        if isinstance(event, TurnStarted | TurnCompleted):
            self._open.clear()
        elif isinstance(event, ItemStarted):
            said = doing(event.item)
            if said is not None:
                self._open[event.item.id] = said
        elif isinstance(event, ItemCompleted):
            self._open.pop(event.item.id, None)
        elif isinstance(event, ItemDelta) and event.kind.startswith("reasoning"):
            self._open.setdefault(event.item_id, THINKING)

    @property
    def now(self) -> str:
        """The latest thing started that has not ended; between items, codex thinks."""
        return next(reversed(self._open.values()), THINKING)


def working_text(info: ConversationInfo, activity: Activity, now: float) -> str:
    """The line for a busy conversation."""
    elapsed = f" {clock(now - info.turn_started_at)}" if info.turn_started_at is not None else ""
    if info.state == "waiting":
        return f"⚠ Waiting for your answer{elapsed} · esc stops the turn"
    if info.state == "stopping":
        return f"• Stopping{elapsed}"
    if info.state == "preparing":
        return "• Starting · esc stops"
    return f"• Working{elapsed} · {inert(activity.now)} · esc stops"


def agent_text(agent: SubAgentActivity) -> str:
    """A running sub-agent in a line: its thread and what it is at."""
    at = (doing(agent.item) if agent.item is not None else None) or THINKING
    if agent.state == "waiting":
        at = f"waiting for your answer · {at}"
    return f"  ↳ sub-agent {agent.thread_id[:AGENT_SHOWN_CHARS]} · {inert(at)}"


def agents_text(running: Sequence[SubAgentActivity]) -> list[str]:
    """A line for each running sub-agent (as many as fit), and how many more run."""
    lines = [agent_text(agent) for agent in running[:AGENTS_SHOWN]]
    if len(running) > AGENTS_SHOWN:
        lines.append(f"  ↳ {len(running) - AGENTS_SHOWN} more sub-agents running")
    return lines


class WorkingLine(Static):
    """Shown while the conversation in view has a turn running; hidden otherwise."""

    DEFAULT_CSS = """
    WorkingLine {
        height: auto; padding: 0 2; color: $text-muted; display: none;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    def __init__(self) -> None:
        super().__init__(id="working", markup=False)
        self._activities: dict[str, Activity] = {}
        self._agents: dict[str, dict[str, SubAgentActivity]] = {}
        self._info: ConversationInfo | None = None
        self._said = ""
        self.clock: Callable[[], float] = time.time
        """The time its clocks are shown at: now, or a replay's point in its recording."""

    def on_mount(self) -> None:
        self.set_interval(1.0, self._redraw)

    def take(self, conversation_id: str, events: Sequence[EngineEvent]) -> None:
        """Follow what a conversation's turn (and each of its sub-agents) does."""
        activity = self._activities.setdefault(conversation_id, Activity())
        for event in events:
            if isinstance(event, SubAgentActivity):
                self._agents.setdefault(conversation_id, {})[event.thread_id] = event
            activity.take(event)
        if self._info is not None and self._info.id == conversation_id:
            self._redraw()

    def show(self, info: ConversationInfo | None) -> None:
        """The line for the conversation shown (`info`), or none when it is idle."""
        self._info = info
        self._redraw()

    def _redraw(self) -> None:
        info = self._info
        busy = info is not None and info.state in BUSY_STATES
        lines: list[str] = []
        if info is not None:
            agents = self._agents.get(info.id, {}).values()
            running = [agent for agent in agents if agent.state in SUB_AGENT_LIVE]
            if busy:
                activity = self._activities.setdefault(info.id, Activity())
                lines.append(working_text(info, activity, self.clock()))
            elif running:
                lines.append(f"• Sub-agents working ({len(running)})")
            lines += agents_text(running)
        text = "\n".join(lines)
        if text == self._said:
            return  # every batch of events comes here; an update re-lays out the screen
        self._said = text
        self.display = bool(text)
        self.update(text)
