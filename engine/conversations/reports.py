"""What codex tells beside a turn's items, said where the user looks: a hook that ran (in the
transcript; one that failed or blocked as a warning), a guardian's warning, an MCP server
that failed to start (once, plainly), the model codex switched a thread to, the thread's goal
(in the status bar), and what the agent typed into a running command (in that command's
output)."""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

from engine import protocol as wire
from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.emitter import Emitter
from engine.conversations.file_sessions import conversation_of
from engine.conversations.limits import UsageLimits
from engine.conversations.shell_runs import ShellRuns
from engine.events import (
    SUB_AGENT_LIVE,
    DeltaKind,
    FilesFound,
    McpServerChanged,
    NoticeLevel,
    SubAgentActivity,
    UsageLimitsUpdated,
)

Notify = Callable[[Conversation | None, NoticeLevel, str], None]
Delta = Callable[[Conversation, str, str, DeltaKind, str, int], None]
Updated = Callable[[Conversation], None]

HOOK_WARNINGS = frozenset({"failed", "blocked"})
ENGINE_WIDE_REPORTS = (
    wire.AccountRateLimitsUpdated,
    wire.FileSearchUpdated,
    wire.McpServerStartup,
    wire.CommandExecOutput,
)
"""The notifications of no thread that `Reports.engine_wide` says."""
WAITING_FLAGS = frozenset({"waitingOnApproval", "waitingOnUserInput"})
"""A thread's active flags that say it waits for the user."""
THREAD_SHOWN = 13
"""As much of a sub-agent's thread id as is shown (enough for /open)."""


def effort_of(said: str | None) -> wire.ReasoningEffort | None:
    """A reasoning effort codex named, if it is one codex-deck knows."""
    for effort in get_args(wire.ReasoningEffort):
        if effort == said:
            return effort  # type: ignore[no-any-return]
    return None


def hook_line(run: wire.HookRun) -> str:
    """A hook that ran, in one line: its event, how it ended, what it said, how long."""
    said = f": {run.status_message}" if run.status_message else ""
    took = f" · {run.duration_ms:,} ms" if run.duration_ms is not None else ""
    return f"hook {run.event_name} {run.status}{said}{took}"


class Reports:
    def __init__(
        self,
        notify: Notify,
        delta: Delta,
        updated: Updated,
        emitter: Emitter,
        conversations: Conversations,
        shell_runs: ShellRuns,
    ) -> None:
        self._shell_runs = shell_runs
        self._conversations = conversations
        self._notify = notify
        self._delta = delta
        self._updated = updated
        self._emitter = emitter
        self._mcp_failed: set[str] = set()
        self.mcp_servers: dict[str, McpServerChanged] = {}
        """How each MCP server codex started last said it is."""
        self._sub_agents_now: dict[str, SubAgentActivity] = {}
        self.limits = UsageLimits()
        """The account's usage limits, as codex last said them."""

    def in_conversation(
        self, conversation: Conversation, notification: wire.ServerNotification
    ) -> None:
        match notification:
            case wire.HookCompleted():
                level: NoticeLevel = (
                    "warning" if notification.run.status in HOOK_WARNINGS else "info"
                )
                self._notify(conversation, level, hook_line(notification.run))
            case wire.GuardianWarning():
                self._notify(conversation, "warning", notification.message)
            case wire.TerminalInteraction():
                typed = (
                    notification.stdin
                    if notification.stdin.endswith("\n")
                    else (notification.stdin + "\n")
                )
                self._delta(
                    conversation,
                    notification.turn_id,
                    notification.item_id,
                    "command_output",
                    f"⌨ {typed}",
                    0,
                )
            case wire.ThreadSettingsUpdated():
                settings = notification.thread_settings
                if (settings.model, settings.effort) != (
                    conversation.model,
                    conversation.reasoning_effort,
                ):
                    conversation.model = settings.model
                    conversation.reasoning_effort = effort_of(settings.effort)
                    self._updated(conversation)
            case wire.McpServerStartup():
                self.engine_wide(notification, conversation)
            case wire.ThreadGoalUpdated():
                conversation.goal = notification.goal
                self._updated(conversation)
            case wire.ThreadGoalCleared():
                conversation.goal = None
                self._updated(conversation)

    def spawned(self, conversation: Conversation, item: wire.KnownItem | wire.UnknownItem) -> None:
        """A turn's call of the multi-agent tools, or a sub-agent's activity: its threads are
        the conversation's sub-agents (what they ask is asked here)."""
        threads: list[str] = []
        if isinstance(item, wire.CollabAgentToolCallItem):
            threads = list(item.receiver_thread_ids)
        elif isinstance(item, wire.SubAgentActivityItem):
            threads = [item.agent_thread_id]
        for thread in threads:
            if self._conversations.add_sub_agent(conversation, thread):
                self._notify(
                    conversation,
                    "info",
                    f"A sub-agent started ({thread[:THREAD_SHOWN]}): what it asks comes here; "
                    f"/open {thread[:THREAD_SHOWN]} shows its own transcript.",
                )

    def sub_agent(
        self, parent: Conversation, thread: str, notification: wire.ServerNotification
    ) -> None:
        """What a sub-agent's thread does, said in the conversation that spawned it: live (what
        it is at), and its end as a notice."""
        now = self._sub_agents_now.get(thread)
        state, item = (now.state, now.item) if now is not None else ("running", None)
        match notification:
            case wire.TurnStarted():
                state, item = "running", None
            case wire.ItemStarted():
                item = notification.item
            case wire.ItemCompleted() if item is not None and item.id == notification.item.id:
                item = None
            case wire.TurnCompleted():
                state, item = notification.turn.status, None
            case wire.ThreadStatusChanged() if state in SUB_AGENT_LIVE:
                flags = notification.status.active_flags
                state = "waiting" if any(flag in WAITING_FLAGS for flag in flags) else "running"
            case _:
                return
        if now is None or (state, item) != (now.state, now.item):
            now = SubAgentActivity(
                **self._emitter.stamp(parent.id), thread_id=thread, state=state, item=item
            )
            self._sub_agents_now[thread] = now
            self._emitter.tell(now)
        if isinstance(notification, wire.TurnCompleted):
            error = notification.turn.error
            why = f": {error.message}" if error is not None else ""
            self._notify(
                parent,
                "warning" if notification.turn.status == "failed" else "info",
                f"Sub-agent {thread[:THREAD_SHOWN]} {notification.turn.status}{why}.",
            )

    def _shell_output(self, delta: wire.CommandExecOutput) -> None:
        """Output of a `!command` of the user's, into its command item."""
        run = self._shell_runs.get(delta.process_id)
        conversation = self._conversations.current(run.thread_id) if run is not None else None
        if run is not None and conversation is not None:
            text = run.take(delta)
            self._delta(conversation, run.turn_id, run.process_id, "command_output", text, 0)

    def engine_wide(
        self, notification: wire.ServerNotification, conversation: Conversation | None = None
    ) -> None:
        """What belongs to no thread: usage limits, the files an `@` found, MCP servers, the
        output of a `!command`."""
        emitter = self._emitter
        if isinstance(notification, wire.AccountRateLimitsUpdated):
            before = self.limits.windows()
            windows = self.limits.take(notification.rate_limits)
            if windows != before:
                emitter.emit(UsageLimitsUpdated(**emitter.stamp(None), limits=windows))
        elif isinstance(notification, wire.CommandExecOutput):
            self._shell_output(notification)
        elif isinstance(notification, wire.FileSearchUpdated):
            conversation_id = conversation_of(notification.session_id)
            if conversation_id is not None:
                found = FilesFound(
                    **emitter.stamp(conversation_id),
                    query=notification.query,
                    files=tuple(notification.files),
                )
                emitter.tell(found)
        elif isinstance(notification, wire.McpServerStartup):
            self._mcp_server(notification, conversation)

    def _mcp_server(
        self, notification: wire.McpServerStartup, conversation: Conversation | None
    ) -> None:
        changed = McpServerChanged(
            **self._emitter.stamp(None),
            name=notification.name,
            status=notification.status,
            error=notification.error,
        )
        self.mcp_servers[notification.name] = changed
        self._emitter.emit(changed)
        failed = notification.status == "failed"
        if failed and notification.name not in self._mcp_failed:
            self._mcp_failed.add(notification.name)
            why = f": {notification.error}" if notification.error else ""
            self._notify(
                conversation,
                "warning",
                f"The MCP server {notification.name!r} failed to start{why}. Its tools "
                "are not there until it starts (codex's config names it).",
            )
        elif notification.status == "ready":
            self._mcp_failed.discard(notification.name)
