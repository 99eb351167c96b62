"""The conversations, grouped: needs attention, running, idle (archived ones hidden); with
several hosts (`[hosts]`), first by host, each under its name and state."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from engine.events import BUSY_STATES, ConversationInfo, EngineStatus
from tui.text import clock, inert
from tui.widgets.ordered import run_binding

GROUPS = ("needs attention", "running", "idle")
STATE_MARKS = {
    "idle": "·",
    "preparing": "…",
    "running": "▶",
    "waiting": "?",
    "stopping": "■",
    "failed": "✖",
    "result_unknown": "!",
}


HOST_MARKS = {"online": "●", "starting": "…", "stopping": "■", "failed": "✖"}
HOST_DETAIL_CHARS = 56
"""Of why a host is not online, what its heading shows (two lines of the list)."""


def host_heading(name: str, status: EngineStatus | None) -> Text:
    """A host's name and state; why, when it is not online."""
    state = status.status if status is not None else "starting"
    shown = "reconnecting" if status is not None and status.coming_back else state
    heading = Text(f"{name.upper()} ", style="bold")
    heading.append(f"{HOST_MARKS.get(state, ' ')} {shown}", style="bold dim")
    if status is not None and state != "online" and status.detail:
        detail = status.detail
        if len(detail) > HOST_DETAIL_CHARS:
            detail = detail[: HOST_DETAIL_CHARS - 1] + "…"
        heading.append(f"\n{inert(detail)}", style="dim")
    return heading


def requests(count: int) -> str:
    """How many requests wait, in words the list, the bell and the inbox share."""
    return f"{count} request{'s' if count != 1 else ''} {'wait' if count != 1 else 'waits'}"


def group_of(info: ConversationInfo) -> str:
    """Waiting for an answer, or a message whose outcome is unknown, needs the user."""
    if info.pending_interactions or info.state == "result_unknown":
        return "needs attention"
    if info.state in BUSY_STATES:
        return "running"
    return "idle"


class ConversationList(OptionList):
    """Pick a conversation with the arrow keys and Enter (or ctrl+up / ctrl+down anywhere)."""

    DEFAULT_CSS = """
    ConversationList { width: 30; border: none; border-right: tall $panel; background: $surface; }
    ConversationList:focus { border-right: tall $primary; }
    """

    keys_in_order = True
    """Its keys act in the order typed (`tui.widgets.ordered`)."""

    @dataclass
    class Chosen(Message):
        """The user picked a conversation."""

        conversation_list: ConversationList
        conversation_id: str

        @property
        def control(self) -> ConversationList:
            return self.conversation_list

    async def on_key(self, event: events.Key) -> None:
        await run_binding(self, event)

    def __init__(self) -> None:
        super().__init__(id="conversations")
        self._infos: dict[str, ConversationInfo] = {}
        self._order: list[str] = []
        self.clock: Callable[[], float] = time.time
        """The time its clocks are shown at: now, or a replay's point in its recording."""
        self.current: str | None = None
        """The conversation in view."""
        self._shown: list[tuple[str | None, Text]] = []
        self._hosts: dict[str, EngineStatus | None] = {}
        """Each host's state as last told, in the order first told (none: one codex)."""

    def on_mount(self) -> None:
        self.set_interval(1.0, self.tick)

    def update_conversation(self, info: ConversationInfo) -> None:
        if info.id not in self._infos:
            self._order.append(info.id)
        self._infos[info.id] = info
        self._rebuild()

    def host_state(self, status: EngineStatus) -> None:
        """A host's state changed (`status.host` names it)."""
        assert status.host is not None
        self._hosts[status.host] = status
        self._rebuild()

    def show(self, conversation_id: str) -> None:
        """Mark the conversation in view (the labels do not change: the highlight marks it)."""
        self.current = conversation_id
        self._highlight_current()

    def listed(self) -> list[str]:
        """The conversations in the order they are listed."""
        shown = [i for i in self._order if not self._infos[i].archived]
        hosts = self._host_order()
        return sorted(
            shown,
            key=lambda i: (
                hosts.index(self._infos[i].host or ""),
                GROUPS.index(group_of(self._infos[i])),
            ),
        )

    def _host_order(self) -> list[str]:
        """The hosts in the order they are listed ("" for conversations of no host)."""
        told = list(self._hosts)
        held = (info.host or "" for info in self._infos.values())
        return told + sorted({host for host in held if host not in self._hosts})

    def neighbour(self, step: int) -> str | None:
        """The conversation `step` places from the one in view (wrapping around)."""
        order = self.listed()
        if not order:
            return None
        if self.current not in order:
            return order[0]
        return order[(order.index(self.current) + step) % len(order)]

    def tick(self) -> None:
        """Redraw the clocks of the conversations that run."""
        if any(info.turn_started_at for info in self._infos.values()):
            self._rebuild()

    def _rebuild(self) -> None:
        rows = self._rows()
        if [key for key, _ in rows] == [key for key, _ in self._shown]:
            # The same rows in the same order (a state or a clock changed): new labels only.
            # A full rebuild lays the screen out again and re-draws every row.
            for index, ((_, label), (_, shown)) in enumerate(zip(rows, self._shown, strict=True)):
                if label != shown:
                    self.replace_option_prompt_at_index(index, label)
        else:
            options = [Option(label, id=key, disabled=key is None) for key, label in rows]
            self.clear_options()
            self.add_options(options)
        self._shown = rows
        self._highlight_current()

    def _highlight_current(self) -> None:
        if self.current is not None:
            try:
                self.highlighted = self.get_option_index(self.current)
            except Exception:
                self.highlighted = None

    def _rows(self) -> list[tuple[str | None, Text]]:
        """Each row's conversation (None for a group's heading) and label."""
        rows: list[tuple[str | None, Text]] = []
        listed = self.listed()
        if not self._hosts:
            return self._grouped(listed, "")
        for host in self._host_order():
            rows.append((None, host_heading(host, self._hosts.get(host))))
            rows += self._grouped([i for i in listed if (self._infos[i].host or "") == host], "  ")
        return rows

    def _grouped(self, listed: list[str], indent: str) -> list[tuple[str | None, Text]]:
        rows: list[tuple[str | None, Text]] = []
        for group, grouped in itertools.groupby(listed, lambda i: group_of(self._infos[i])):
            members = list(grouped)
            heading = indent + group.upper()
            waiting = sum(self._infos[i].pending_interactions for i in members)
            if waiting:  # the count the inbox and the bell say
                heading += f" · {waiting}"
            rows.append((None, Text(heading, style="bold dim")))
            rows.extend((i, self._label(self._infos[i])) for i in members)
        return rows

    def _label(self, info: ConversationInfo) -> Text:
        label = Text()
        waiting = info.pending_interactions
        state = "waiting" if waiting else info.state
        label.append(f"{STATE_MARKS.get(state, ' ')} ", style="bold")
        label.append(inert(info.title[:20]))
        if waiting:
            label.append(f" [{waiting}]", style="bold reverse")
        detail = info.state.replace("_", " ")
        if info.turn_started_at is not None:
            detail += f" {clock(self.clock() - info.turn_started_at)}"
        if waiting and info.state != "waiting":  # a sub-agent's, asked beside the turn or after it
            detail += f" · {requests(waiting)}"
        if info.queued:
            detail += f" · {info.queued} queued"
        if info.plan_mode:
            detail += " · plan"
        label.append(f"\n  {detail}", style="dim")
        return label

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Chosen(self, event.option.id))
