"""Threads and turns as the app-server reports them."""

from __future__ import annotations

from typing import Any

from engine.protocol.base import WireModel
from engine.protocol.items import ThreadItem


class TurnError(WireModel, kw_only=True):
    """Why a turn failed, as codex words it."""

    schema_name = "TurnError"
    message: str
    codex_error_info: Any = None
    additional_details: str | None = None


class Turn(WireModel, kw_only=True):
    """One turn: the user's input and everything the agent did in answer."""

    schema_name = "Turn"
    id: str
    status: str
    """inProgress, completed, interrupted or failed."""
    items: list[ThreadItem] = []
    error: TurnError | None = None
    duration_ms: int | None = None
    started_at: int | None = None
    completed_at: int | None = None


class ThreadStatus(WireModel, kw_only=True):
    """idle, active (with flags such as waitingOnApproval), notLoaded or systemError."""

    schema_name = "ThreadStatus#active"
    type: str
    active_flags: list[str] = []


class Thread(WireModel, kw_only=True):
    """A Codex thread (a conversation as codex stores it)."""

    schema_name = "Thread"
    id: str
    preview: str = ""
    ephemeral: bool = False
    model_provider: str | None = None
    model: str | None = None
    cwd: str | None = None
    path: str | None = None
    name: str | None = None
    forked_from_id: str | None = None
    status: ThreadStatus | None = None
    turns: list[Turn] = []
    created_at: int | None = None
    updated_at: int | None = None


class TokenCounts(WireModel, kw_only=True):
    """Token counts for one request or for the whole thread."""

    schema_name = "TokenUsageBreakdown"
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0


class TokenUsage(WireModel, kw_only=True):
    """Token use of a thread: the last request, the total, and the context window."""

    schema_name = "ThreadTokenUsage"
    last: TokenCounts
    total: TokenCounts
    model_context_window: int | None = None
