"""What /session shows: where a conversation stands and what it runs with."""

from __future__ import annotations

import time

import msgspec

from engine.conversations.conversation import Conversation
from engine.events import LimitWindow
from engine.protocol import SANDBOX_POLICIES, ThreadGoal
from engine.settings import Settings

SANDBOX_NAMES = {policy["type"]: mode for mode, policy in SANDBOX_POLICIES.items()}
"""The thread's sandbox type as codex's own CLI and config spell it."""


class SessionInfo(msgspec.Struct, frozen=True):
    conversation_id: str
    title: str
    state: str
    generation: int
    thread_id: str | None
    model: str | None
    """None for codex's default model; empty when it is not known (a replay)."""
    provider: str | None
    cwd: str
    sandbox: str
    """Empty when it is not known (a replay's recording does not say)."""
    approval_policy: str
    reasoning_effort: str | None
    total_tokens: int | None
    """Tokens used by the thread so far."""
    context_window: int | None
    context_left: int | None
    """Tokens of the context window not taken by the last request."""
    plan_mode: bool = False
    grants: tuple[str, ...] = ()
    """Approvals in force beyond a single request."""
    rollout_path: str | None = None
    """Where codex stores the thread (None until it has one, and for throwaway threads)."""
    goal: str | None = None
    """What the thread works toward, and how that stands (None: no goal)."""
    goal_tokens: int = 0
    """Tokens codex has spent on the goal so far."""
    limits: tuple[LimitWindow, ...] = ()
    """The account's usage limits, as codex last said them (none: not said)."""
    host: str | None = None
    """The machine whose codex holds the conversation (None: the only codex there is)."""

    @property
    def context_left_percent(self) -> float | None:
        if self.context_left is None or not self.context_window:
            return None
        return 100 * self.context_left / self.context_window

    def _goal_row(self) -> str:
        if self.goal is None:
            return "none (/goal OBJECTIVE sets one)"
        return self.goal + (f" · {self.goal_tokens:,} tokens so far" if self.goal_tokens else "")

    def describe(self) -> str:
        percent = self.context_left_percent
        left = (
            f"{self.context_left:,} tokens ({percent:.0f}%)"
            if self.context_left is not None and percent is not None
            else "unknown"
        )
        rows = [
            ("conversation", f"{self.conversation_id} ({self.title})"),
            *([("host", self.host)] if self.host is not None else []),
            ("state", self.state),
            ("thread", f"{self.thread_id or 'none yet'} (generation {self.generation})"),
            ("model", f"{self.model or 'codex default'} via {self.provider or 'codex default'}"),
            ("reasoning effort", self.reasoning_effort or "codex default"),
            ("cwd", self.cwd),
            ("sandbox", self.sandbox),
            ("approval policy", self.approval_policy),
            ("plan mode", "on" if self.plan_mode else "off"),
            ("goal", self._goal_row()),
            ("tokens used", f"{self.total_tokens:,}" if self.total_tokens is not None else "none"),
            ("context left", left),
        ]
        rows += [("approved beyond a request", grant) for grant in self.grants]
        rows += [(f"{limit.name} limit", limit_used(limit)) for limit in self.limits] or [
            ("usage limits", "not said (codex says them for a ChatGPT sign-in)")
        ]
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def limit_used(limit: LimitWindow) -> str:
    """`85% used, starts afresh at 14:05` (or on the date, when that is not today)."""
    if limit.resets_at is None:
        return f"{limit.used_percent}% used"
    at = time.localtime(limit.resets_at)
    same_day = time.localtime()[:3] == at[:3]
    return f"{limit.used_percent}% used, starts afresh at " + time.strftime(
        "%H:%M" if same_day else "%a %d %b %H:%M", at
    )


def session_info(
    conversation: Conversation, settings: Settings, limits: tuple[LimitWindow, ...] = ()
) -> SessionInfo:
    opened = conversation.thread
    usage = conversation.token_usage
    window = usage.model_context_window if usage is not None else None
    sandbox: str = settings.codex.sandbox
    approval: str = settings.codex.approval_policy
    if opened is not None:
        sandbox = SANDBOX_NAMES.get(str((opened.sandbox or {}).get("type")), sandbox)
        approval = str(opened.approval_policy or approval)
    sandbox = conversation.sandbox or sandbox
    approval = conversation.approval_policy or approval
    return SessionInfo(
        conversation_id=conversation.id,
        title=conversation.title,
        state=conversation.state,
        generation=conversation.generation,
        thread_id=conversation.thread_id,
        model=conversation.model or (opened.model if opened is not None else settings.codex.model),
        provider=opened.model_provider if opened is not None else settings.codex.provider,
        cwd=opened.cwd if opened is not None else conversation.cwd,
        sandbox=sandbox,
        approval_policy=approval,
        reasoning_effort=conversation.reasoning_effort
        or (opened.reasoning_effort if opened else None)
        or settings.codex.reasoning_effort,
        total_tokens=usage.total.total_tokens if usage is not None else None,
        context_window=window,
        context_left=window - usage.last.total_tokens if usage is not None and window else None,
        plan_mode=conversation.plan_mode,
        grants=tuple(conversation.grants),
        rollout_path=opened.thread.path if opened is not None else None,
        goal=describe_goal(conversation.goal) if conversation.goal is not None else None,
        goal_tokens=conversation.goal.tokens_used if conversation.goal is not None else 0,
        limits=limits,
        host=conversation.host,
    )


GOAL_STATES = {
    "active": "active",
    "paused": "paused",
    "blocked": "blocked",
    "usageLimited": "stopped at the usage limit",
    "budgetLimited": "stopped at its token budget",
    "complete": "complete",
}


def describe_goal(goal: ThreadGoal) -> str:
    """A goal and how it stands: `make the tests pass (paused)`."""
    return f"{goal.objective} ({GOAL_STATES.get(goal.status, goal.status)})"
