"""What the engine tells front ends: one ordered stream of frozen events.

Every event has the engine's sequence number (`seq`, strictly increasing), the wall-clock
time it was emitted (`at`, seconds since the epoch) and the conversation it belongs to
(None for the engine as a whole).

They are msgspec structs, not dataclasses: Python makes a dataclass's methods from source as
the module is imported (about 0.5 ms a class), msgspec makes a struct in C. This module's 34
classes took 22 ms of every start as dataclasses; as structs, under 1 ms.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

import msgspec

from engine.images import AttachedImage
from engine.protocol import FileChange, FileMatch, KnownItem, Question, TokenUsage, UnknownItem

ConversationState = Literal[
    "idle", "preparing", "running", "waiting", "stopping", "failed", "result_unknown"
]
"""idle → preparing → running ⇄ waiting → stopping → idle; failed: codex refused to start
the thread or turn; result_unknown: the app-server went away during a turn."""

BUSY_STATES: frozenset[str] = frozenset({"preparing", "running", "waiting", "stopping"})

InteractionKind = Literal["command", "file_change", "question", "elicitation", "permissions"]
DeltaKind = Literal[
    "agent_message", "reasoning_summary", "reasoning_text", "command_output", "plan"
]
NoticeLevel = Literal["info", "warning", "error"]
StopOutcome = Literal["stopped", "stop_requested", "nothing_to_stop"]
InteractionOutcome = Literal[
    "accepted",
    "accepted_for_session",
    "accepted_with_rule",
    "declined",
    "cancelled",
    "answered",
    "expired",
]

AnsweredBy = Literal["user", "codex", "codex-deck"]
"""Who settled a request: the user, codex itself (it withdrew the request or ended the turn),
or codex-deck (it closed, reset the conversation, or lost the app-server)."""


class Stamp(TypedDict):
    seq: int
    at: float
    conversation_id: str | None


class EngineEvent(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    at: float
    conversation_id: str | None


class ConversationInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A conversation as it is now."""

    id: str
    title: str
    cwd: str
    state: ConversationState
    thread_id: str | None
    generation: int
    queued: int
    """Messages waiting behind the running turn."""
    pending_interactions: int
    """Approvals and questions waiting for the user."""
    archived: bool
    turn_id: str | None
    turn_started_at: float | None
    """When the running turn started (wall clock), for an elapsed-time display."""
    grants: tuple[str, ...] = ()
    """Approvals in force beyond a single request (for the session, or saved rules)."""
    plan_mode: bool = False
    images: tuple[AttachedImage, ...] = ()
    """Images staged for the next message."""
    context: tuple[str, ...] = ()
    """What goes with the next message, each named: side answers brought in (`side answer
    s1: its question`), hunks of a change taken back when no turn ran to be told."""
    host: str | None = None
    """The machine whose codex holds it (`[hosts]`; None: the only codex there is)."""


class InteractionInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A question from codex waiting for the user: what it asks and what answers fit."""

    id: str
    """Short id shown to the user; a unique prefix is enough to answer."""
    kind: InteractionKind
    conversation_id: str
    turn_id: str | None
    item_id: str | None
    command: str | None = None
    cwd: str | None = None
    reason: str | None = None
    actions: tuple[str, ...] = ()
    """What codex's parser says the command does, one line each."""
    changes: tuple[FileChange, ...] = ()
    """For a file change: every file with its diff."""
    questions: tuple[Question, ...] = ()
    permissions: dict[str, Any] | None = None
    server: str | None = None
    message: str | None = None
    url: str | None = None
    exec_policy_amendment: tuple[str, ...] = ()
    """A command prefix codex offers to allow from now on, if any."""
    rule_matches: tuple[str, ...] = ()
    """Of the conversation's earlier commands, those that prefix would have matched."""
    network_hosts: tuple[str, ...] = ()
    """Hosts a command wants to reach, when codex offers a network rule for them."""
    requested_schema: dict[str, Any] | None = None
    """For a form: the JSON schema of what to fill in."""
    sub_agent: str | None = None
    """The sub-agent of the conversation that asks (its thread), when not the conversation."""
    asked_at: float = 0.0
    """When codex asked (seconds since the epoch; 0: not known)."""


class ConversationUpdated(EngineEvent, frozen=True, kw_only=True):
    info: ConversationInfo


class SubmissionAccepted(EngineEvent, frozen=True, kw_only=True):
    """A message was taken: started a turn, steered the running one, or queued."""

    submission_id: str
    text: str
    """What the user wrote (side answers or notes brought in go ahead of it to codex)."""
    how: Literal["started", "steered", "queued"]


class TurnStarted(EngineEvent, frozen=True, kw_only=True):
    turn_id: str
    thread_id: str
    generation: int
    submission_id: str | None


class TurnCompleted(EngineEvent, frozen=True, kw_only=True):
    turn_id: str
    status: str
    """completed, interrupted or failed."""
    error: str | None
    duration_ms: int | None


class ItemStarted(EngineEvent, frozen=True, kw_only=True):
    turn_id: str
    item: KnownItem | UnknownItem


class ItemDelta(EngineEvent, frozen=True, kw_only=True):
    """Text appended to a streaming item (agent message, reasoning, command output, plan)."""

    turn_id: str
    item_id: str
    kind: DeltaKind
    text: str
    index: int = 0
    """The summary part or content part the text belongs to (reasoning)."""
    joined: int = 1
    """How many of codex's deltas the text is: those of an ended turn are kept joined."""
    cut: int = 0
    """Characters of the text the trace let go of: an ended turn keeps only the start of an
    answer's deltas once the answer's completed item holds its whole text."""


class ItemCompleted(EngineEvent, frozen=True, kw_only=True):
    """An item finished. `closed_by_turn`: the turn ended first, `status` is the turn's."""

    turn_id: str
    item: KnownItem | UnknownItem
    status: str
    closed_by_turn: bool = False


class TurnDiff(EngineEvent, frozen=True, kw_only=True):
    """Everything the turn changed so far, as one unified diff."""

    turn_id: str
    diff: str


class PlanUpdated(EngineEvent, frozen=True, kw_only=True):
    turn_id: str
    explanation: str | None
    steps: tuple[tuple[str, str], ...]
    """(step, status) pairs; status is pending, inProgress or completed."""


class TokenUsageUpdated(EngineEvent, frozen=True, kw_only=True):
    turn_id: str
    usage: TokenUsage


class InteractionRequested(EngineEvent, frozen=True, kw_only=True):
    interaction: InteractionInfo


class InteractionResolved(EngineEvent, frozen=True, kw_only=True):
    interaction_id: str
    outcome: InteractionOutcome
    detail: str
    """What was decided, in words; never a secret answer."""
    by: AnsweredBy = "user"


class StopRequested(EngineEvent, frozen=True, kw_only=True):
    turn_id: str | None
    outcome: StopOutcome


class Notice(EngineEvent, frozen=True, kw_only=True):
    """A message for the user (a refused submission, nothing to stop, a codex warning …)."""

    level: NoticeLevel
    text: str


class EngineStatus(EngineEvent, frozen=True, kw_only=True):
    status: Literal["starting", "online", "stopping", "failed"]
    detail: str
    coming_back: bool = False
    """codex is away and being started (or reached) again: what is sent waits for it."""
    host: str | None = None
    """Which machine's codex (`[hosts]`; None: the only codex there is)."""


class HostJoined(EngineEvent, frozen=True, kw_only=True):
    """A host's engine is open (`[hosts]`): its conversations can be shown."""

    host: str


class ConversationJoined(EngineEvent, frozen=True, kw_only=True):
    """A conversation another app started on a codex both use (a listening host, or
    `--connect`), followed here from now on: it can be shown, with what its thread holds."""


class SignInFinished(EngineEvent, frozen=True, kw_only=True):
    """A sign-in started with `Engine.sign_in_with_device_code` ended (or failed)."""

    login_id: str | None
    success: bool
    error: str | None


class AccountChanged(EngineEvent, frozen=True, kw_only=True):
    """Codex signed in or out (`auth_mode` None: signed out)."""

    auth_mode: str | None
    plan_type: str | None


class UnknownMessage(EngineEvent, frozen=True, kw_only=True):
    """Something from codex that codex-deck does not model, kept raw for the trace."""

    method: str
    params: Any
    problem: str | None


class TraceGap(EngineEvent, frozen=True, kw_only=True):
    """In a trace: this many events of the turn were dropped here to bound its size."""

    dropped: int


SideChatState = Literal["opening", "idle", "answering", "closed", "failed"]


class SideChatInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A side chat as it is now: a private, throwaway fork of a conversation's thread."""

    id: str
    conversation_id: str
    """The conversation it forked (its parent)."""
    title: str
    """Its first question (until one is asked: "Side chat")."""
    state: SideChatState
    thread_id: str | None
    """The ephemeral fork's thread, once open."""
    questions: int
    detail: str = ""
    """Why it closed or failed, in words."""


class SideChatUpdated(EngineEvent, frozen=True, kw_only=True):
    info: SideChatInfo


class SideChatAsked(EngineEvent, frozen=True, kw_only=True):
    side_chat_id: str
    question: str


class SideChatDelta(EngineEvent, frozen=True, kw_only=True):
    """More of the side answer being written."""

    side_chat_id: str
    text: str


class SideChatAnswered(EngineEvent, frozen=True, kw_only=True):
    side_chat_id: str
    question: str
    answer: str
    cut: bool
    """The answer went past the size limit and was cut there."""


class FilesFound(EngineEvent, frozen=True, kw_only=True):
    """Files of the conversation's working directory that match an `@` query, best first
    (again, with more, as codex walks a large tree). Told to the front ends only: never
    traced or stored."""

    query: str
    files: tuple[FileMatch, ...]


class LimitWindow(msgspec.Struct, frozen=True, kw_only=True):
    """One usage limit of the account: how much of it is used, and when it starts afresh."""

    name: str
    """As a person says it: `5-hour`, `weekly`."""
    used_percent: int
    resets_at: float | None = None


class UsageLimitsUpdated(EngineEvent, frozen=True, kw_only=True):
    """Codex said how much of the account's usage limits is used (after a model response)."""

    limits: tuple[LimitWindow, ...]


class McpServerChanged(EngineEvent, frozen=True, kw_only=True):
    """An MCP server of codex's config is starting, ready, failed (`error` says why) or
    cancelled."""

    name: str
    status: str
    error: str | None = None


SUB_AGENT_LIVE = frozenset({"running", "waiting"})
"""A sub-agent's states (`SubAgentActivity.state`) while its turn runs."""


class SubAgentActivity(EngineEvent, frozen=True, kw_only=True):
    """What a sub-agent of the conversation does now: whether its turn runs (`state`:
    running, waiting for the user's answer, or how its turn ended: completed, failed,
    interrupted) and the item it is at
    (None: between items). Told to front ends, not traced: the sub-agent's own thread keeps
    its history."""

    thread_id: str
    state: str
    item: KnownItem | UnknownItem | None = None
