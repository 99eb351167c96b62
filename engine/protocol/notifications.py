"""Server→client notifications codex-deck reads.

`parse_notification` never raises: an unknown method, or params that do not fit, become an
`UnknownNotification` carrying the raw payload (and, for the second, what did not fit).
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.protocol.base import ServerNotification, ValidationError, WireModel, describe_invalid
from engine.protocol.items import FileChange, ThreadItem
from engine.protocol.thread import Thread, ThreadStatus, TokenUsage, Turn, TurnError
from engine.protocol.workspace import (
    CommandExecOutput,
    FileSearchCompleted,
    FileSearchUpdated,
    McpServerStartup,
    ThreadGoalCleared,
    ThreadGoalUpdated,
)


class ThreadStarted(ServerNotification, kw_only=True):
    method = "thread/started"
    schema_name = "ThreadStartedNotification"
    thread: Thread


class ThreadStatusChanged(ServerNotification, kw_only=True):
    method = "thread/status/changed"
    schema_name = "ThreadStatusChangedNotification"
    thread_id: str
    status: ThreadStatus


class ThreadNameUpdated(ServerNotification, kw_only=True):
    method = "thread/name/updated"
    schema_name = "ThreadNameUpdatedNotification"
    thread_id: str
    thread_name: str | None = None


class ThreadArchived(ServerNotification, kw_only=True):
    method = "thread/archived"
    schema_name = "ThreadArchivedNotification"
    thread_id: str


class ThreadUnarchived(ServerNotification, kw_only=True):
    method = "thread/unarchived"
    schema_name = "ThreadUnarchivedNotification"
    thread_id: str


class ThreadClosed(ServerNotification, kw_only=True):
    method = "thread/closed"
    schema_name = "ThreadClosedNotification"
    thread_id: str


class TurnStarted(ServerNotification, kw_only=True):
    method = "turn/started"
    schema_name = "TurnStartedNotification"
    thread_id: str
    turn: Turn


class TurnCompleted(ServerNotification, kw_only=True):
    method = "turn/completed"
    schema_name = "TurnCompletedNotification"
    thread_id: str
    turn: Turn


class ItemStarted(ServerNotification, kw_only=True):
    method = "item/started"
    schema_name = "ItemStartedNotification"
    thread_id: str
    turn_id: str
    item: ThreadItem
    started_at_ms: int | None = None


class ItemCompleted(ServerNotification, kw_only=True):
    method = "item/completed"
    schema_name = "ItemCompletedNotification"
    thread_id: str
    turn_id: str
    item: ThreadItem
    completed_at_ms: int | None = None


class ItemDelta(ServerNotification, kw_only=True):
    """Text appended to a streaming item."""

    thread_id: str
    turn_id: str
    item_id: str
    delta: str


class AgentMessageDelta(ItemDelta, kw_only=True):
    method = "item/agentMessage/delta"
    schema_name = "AgentMessageDeltaNotification"


class PlanDelta(ItemDelta, kw_only=True):
    method = "item/plan/delta"
    schema_name = "PlanDeltaNotification"


class CommandOutputDelta(ItemDelta, kw_only=True):
    method = "item/commandExecution/outputDelta"
    schema_name = "CommandExecutionOutputDeltaNotification"


class ReasoningSummaryDelta(ItemDelta, kw_only=True):
    method = "item/reasoning/summaryTextDelta"
    schema_name = "ReasoningSummaryTextDeltaNotification"
    summary_index: int = 0


class ReasoningTextDelta(ItemDelta, kw_only=True):
    method = "item/reasoning/textDelta"
    schema_name = "ReasoningTextDeltaNotification"
    content_index: int = 0


class ReasoningSummaryPartAdded(ServerNotification, kw_only=True):
    method = "item/reasoning/summaryPartAdded"
    schema_name = "ReasoningSummaryPartAddedNotification"
    thread_id: str
    turn_id: str
    item_id: str
    summary_index: int = 0


class FileChangePatchUpdated(ServerNotification, kw_only=True):
    method = "item/fileChange/patchUpdated"
    schema_name = "FileChangePatchUpdatedNotification"
    thread_id: str
    turn_id: str
    item_id: str
    changes: list[FileChange]


class McpToolCallProgress(ServerNotification, kw_only=True):
    method = "item/mcpToolCall/progress"
    schema_name = "McpToolCallProgressNotification"
    thread_id: str
    turn_id: str
    item_id: str
    message: str


class TurnDiffUpdated(ServerNotification, kw_only=True):
    method = "turn/diff/updated"
    schema_name = "TurnDiffUpdatedNotification"
    thread_id: str
    turn_id: str
    diff: str


class PlanStep(WireModel, kw_only=True):
    schema_name = "TurnPlanStep"
    step: str
    status: str


class TurnPlanUpdated(ServerNotification, kw_only=True):
    method = "turn/plan/updated"
    schema_name = "TurnPlanUpdatedNotification"
    thread_id: str
    turn_id: str
    plan: list[PlanStep]
    explanation: str | None = None


class TokenUsageUpdated(ServerNotification, kw_only=True):
    method = "thread/tokenUsage/updated"
    schema_name = "ThreadTokenUsageUpdatedNotification"
    thread_id: str
    turn_id: str
    token_usage: TokenUsage


class ServerRequestResolved(ServerNotification, kw_only=True):
    method = "serverRequest/resolved"
    schema_name = "ServerRequestResolvedNotification"
    thread_id: str
    request_id: int | str


class TurnErrorNotice(ServerNotification, kw_only=True):
    """An error in a turn; when `will_retry` is false the turn fails next."""

    method = "error"
    schema_name = "ErrorNotification"
    thread_id: str
    turn_id: str
    error: TurnError
    will_retry: bool = False


class WarningNotice(ServerNotification, kw_only=True):
    method = "warning"
    schema_name = "WarningNotification"
    message: str
    thread_id: str | None = None


class ConfigWarning(ServerNotification, kw_only=True):
    method = "configWarning"
    schema_name = "ConfigWarningNotification"
    summary: str
    details: str | None = None


class DeprecationNotice(ServerNotification, kw_only=True):
    method = "deprecationNotice"
    schema_name = "DeprecationNoticeNotification"
    summary: str
    details: str | None = None


class AccountUpdated(ServerNotification, kw_only=True):
    method = "account/updated"
    schema_name = "AccountUpdatedNotification"
    auth_mode: str | None = None
    plan_type: str | None = None


class RateLimitWindow(WireModel, kw_only=True):
    schema_name = "RateLimitWindow"
    used_percent: int
    window_duration_mins: int | None = None
    resets_at: int | None = None
    """Unix seconds."""


class RateLimitSnapshot(WireModel, kw_only=True):
    """How much of each usage limit of the account is used."""

    schema_name = "RateLimitSnapshot"
    limit_id: str | None = None
    limit_name: str | None = None
    primary: RateLimitWindow | None = None
    secondary: RateLimitWindow | None = None


class AccountRateLimitsUpdated(ServerNotification, kw_only=True):
    method = "account/rateLimits/updated"
    schema_name = "AccountRateLimitsUpdatedNotification"
    rate_limits: RateLimitSnapshot


class AccountLoginCompleted(ServerNotification, kw_only=True):
    method = "account/login/completed"
    schema_name = "AccountLoginCompletedNotification"
    success: bool
    login_id: str | None = None
    error: str | None = None


class ModelRerouted(ServerNotification, kw_only=True):
    method = "model/rerouted"
    schema_name = "ModelReroutedNotification"
    thread_id: str
    turn_id: str
    from_model: str
    to_model: str


class HookRun(WireModel, kw_only=True):
    """One run of a hook the user configured in codex."""

    schema_name = "HookRunSummary"
    id: str
    event_name: str
    status: str
    """running, completed, failed, blocked or stopped."""
    status_message: str | None = None
    duration_ms: int | None = None


class HookStarted(ServerNotification, kw_only=True):
    method = "hook/started"
    schema_name = "HookStartedNotification"
    thread_id: str
    turn_id: str | None = None
    run: HookRun


class HookCompleted(ServerNotification, kw_only=True):
    method = "hook/completed"
    schema_name = "HookCompletedNotification"
    thread_id: str
    turn_id: str | None = None
    run: HookRun


class ThreadSettingsReport(WireModel, kw_only=True):
    """The settings a thread runs with, as codex has them now."""

    schema_name = "ThreadSettings"
    model: str
    model_provider: str
    effort: str | None = None


class ThreadSettingsUpdated(ServerNotification, kw_only=True):
    """Codex changed a thread's settings (another client of a shared codex, or codex)."""

    method = "thread/settings/updated"
    schema_name = "ThreadSettingsUpdatedNotification"
    thread_id: str
    thread_settings: ThreadSettingsReport


class TerminalInteraction(ServerNotification, kw_only=True):
    """The agent wrote to a running command's input."""

    method = "item/commandExecution/terminalInteraction"
    schema_name = "TerminalInteractionNotification"
    thread_id: str
    turn_id: str
    item_id: str
    stdin: str


class GuardianWarning(ServerNotification, kw_only=True):
    method = "guardianWarning"
    schema_name = "GuardianWarningNotification"
    thread_id: str
    message: str


class UnknownNotification(ServerNotification, kw_only=True):
    """A notification codex-deck does not model (or could not read); shown raw."""

    name: str
    params: Any = None
    problem: str | None = None


NOTIFICATION_TYPES: dict[str, type[ServerNotification]] = {
    model.method: model
    for model in (
        ThreadStarted,
        ThreadStatusChanged,
        ThreadNameUpdated,
        ThreadArchived,
        ThreadUnarchived,
        ThreadClosed,
        TurnStarted,
        TurnCompleted,
        ItemStarted,
        ItemCompleted,
        AgentMessageDelta,
        PlanDelta,
        CommandOutputDelta,
        ReasoningSummaryDelta,
        ReasoningTextDelta,
        ReasoningSummaryPartAdded,
        FileChangePatchUpdated,
        McpToolCallProgress,
        TurnDiffUpdated,
        TurnPlanUpdated,
        TokenUsageUpdated,
        ServerRequestResolved,
        TurnErrorNotice,
        WarningNotice,
        ConfigWarning,
        DeprecationNotice,
        AccountUpdated,
        AccountRateLimitsUpdated,
        AccountLoginCompleted,
        ModelRerouted,
        FileSearchUpdated,
        FileSearchCompleted,
        HookStarted,
        HookCompleted,
        ThreadSettingsUpdated,
        TerminalInteraction,
        GuardianWarning,
        McpServerStartup,
        ThreadGoalUpdated,
        ThreadGoalCleared,
        CommandExecOutput,
    )
}


def parse_notification(method: str, params: bytes | msgspec.Raw) -> ServerNotification:
    """Read one notification from the JSON text of its params; never raises."""
    model = NOTIFICATION_TYPES.get(method)
    try:
        if model is not None:
            return model.read_json(params)
        return UnknownNotification(name=method, params=msgspec.json.decode(params))
    except ValidationError as error:
        loose = msgspec.json.decode(params)
        return UnknownNotification(name=method, params=loose, problem=describe_invalid(error))
    except msgspec.DecodeError as error:
        text = bytes(params)[:200].decode("utf-8", "replace")
        return UnknownNotification(name=method, params=text, problem=f"not JSON: {error}")
