"""One line at the bottom: state, engine, a usage limit nearly used, sandbox, approvals, plan
mode, standing approvals, goal, model, context, provider, cwd (what decides what codex may do
comes first)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from engine import SessionInfo
from engine.events import ConversationInfo
from tui.text import clock, inert

GOAL_SHOWN_CHARS = 40
WARN_PERCENT = 80
"""From this much of a usage limit used, the bar warns."""


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__(id="status")
        self.engine_state = "starting codex…"
        self._session: SessionInfo | None = None
        self._info: ConversationInfo | None = None
        self._mcp_starting: set[str] = set()
        self.clock: Callable[[], float] = time.time
        """The time its clocks are shown at: now, or a replay's point in its recording."""

    def on_mount(self) -> None:
        self.set_interval(1.0, self.tick)
        self._redraw()

    def show(self, session: SessionInfo | None, info: ConversationInfo | None) -> None:
        self._session = session
        self._info = info
        self._redraw()

    def set_engine_state(self, state: str) -> None:
        self.engine_state = state
        self._redraw()

    def mcp_server(self, name: str, status: str) -> None:
        """An MCP server starting (said in the bar until it runs, fails or is cancelled)."""
        if status == "starting":
            self._mcp_starting.add(name)
        else:
            self._mcp_starting.discard(name)
        self._redraw()

    def tick(self) -> None:
        """Redraw the running turn's clock."""
        if self._info is not None and self._info.turn_started_at is not None:
            self._redraw()

    def _redraw(self) -> None:
        text = Text()
        session, info = self._session, self._info
        if info is not None:
            state = info.state.replace("_", " ")
            if info.turn_started_at is not None:
                state += f" {clock(self.clock() - info.turn_started_at)}"
            text.append(state, style="bold")
            text.append(" · ")
        text.append(inert(self.engine_state))
        if self._mcp_starting:
            text.append(f" · starting MCP: {inert(', '.join(sorted(self._mcp_starting)))}")
        if session is not None:
            nearest = max(session.limits, key=lambda limit: limit.used_percent, default=None)
            if nearest is not None and nearest.used_percent >= WARN_PERCENT:
                text.append(
                    f" · ⚠ {nearest.used_percent}% of the {inert(nearest.name)} limit used",
                    style=f"bold {self.app.theme_variables.get('warning', 'yellow')}",
                )
            if session.sandbox:
                text.append(f" · {session.sandbox} · approvals {session.approval_policy}")
            if session.plan_mode:
                text.append(" · plan mode", style="bold")
            if session.goal:
                goal = session.goal
                goal = goal if len(goal) <= GOAL_SHOWN_CHARS else goal[: GOAL_SHOWN_CHARS - 1] + "…"
                text.append(f" · goal: {inert(goal)}", style="bold")
            if session.grants:
                count = len(session.grants)
                text.append(f" · {count} standing approval{'s' if count > 1 else ''}")
            if session.model != "":
                model = session.model or "default model"
                if session.reasoning_effort:
                    model += f" ({session.reasoning_effort})"
                text.append(" · ")
                text.append(inert(model), style="bold")
            percent = session.context_left_percent
            if percent is not None:
                text.append(f" · {percent:.0f}% context left")
            where = f"{session.provider or 'openai'} · {short_path(session.cwd)}"
            text.append(f" · {inert(where)}")
        self.update(text)


def short_path(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path
