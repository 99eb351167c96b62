"""Turns what the app-server sends into engine events and conversation state."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine import protocol as wire
from engine.conversations.conversation import Conversation, Conversations, SubmissionState
from engine.conversations.emitter import Emitter
from engine.conversations.history import RUNNING
from engine.conversations.interactions import (
    Interactions,
)
from engine.conversations.item_keys import keyed
from engine.conversations.journal import Journal
from engine.conversations.reports import ENGINE_WIDE_REPORTS, Reports
from engine.conversations.requests import Requests
from engine.conversations.retries import Retries
from engine.conversations.shell_runs import ShellRuns
from engine.events import (
    AccountChanged,
    ConversationUpdated,
    DeltaKind,
    ItemCompleted,
    ItemDelta,
    ItemStarted,
    Notice,
    NoticeLevel,
    PlanUpdated,
    SignInFinished,
    TokenUsageUpdated,
    TurnCompleted,
    TurnDiff,
    TurnStarted,
    UnknownMessage,
)
from engine.transport.appserver import IncomingRequest, Received
from engine.transport.oversized import thread_of, turn_end
from engine.transport.rpc import BadLine

DELTA_KINDS: dict[type[wire.ItemDelta], DeltaKind] = {
    wire.AgentMessageDelta: "agent_message",
    wire.ReasoningSummaryDelta: "reasoning_summary",
    wire.ReasoningTextDelta: "reasoning_text",
    wire.CommandOutputDelta: "command_output",
    wire.PlanDelta: "plan",
}


def _part(delta: wire.ItemDelta) -> int:
    """Which part of its item a delta adds to (a reasoning's summary or content index)."""
    if isinstance(delta, wire.ReasoningSummaryDelta):
        return delta.summary_index
    if isinstance(delta, wire.ReasoningTextDelta):
        return delta.content_index
    return 0


def _same_part(one: wire.ItemDelta, other: wire.ItemDelta) -> bool:
    """Whether two deltas add to the same part of the same item."""
    return (
        type(one) is type(other)
        and one.item_id == other.item_id
        and one.turn_id == other.turn_id
        and one.thread_id == other.thread_id
        and (type(one) is wire.AgentMessageDelta or _part(one) == _part(other))
    )


def repeats_review(conversation: Conversation, item: wire.KnownItem | wire.UnknownItem) -> bool:
    """Whether an answer only repeats the review just shown (codex sends both)."""
    return (
        isinstance(item, wire.AgentMessageItem)
        and bool(item.text)
        and item.text == conversation.review_said
    )


SUBMISSION_OUTCOMES: dict[str, SubmissionState] = {
    "completed": "completed",
    "interrupted": "interrupted",
}
"""What a submission became when its turn ended with this status (else failed)."""


class Router:
    """Applies notifications to the conversations and emits what they mean."""

    def __init__(
        self,
        emitter: Emitter,
        conversations: Conversations,
        interactions: Interactions,
        turn_ended: Callable[[Conversation], None],
        journal: Journal,
        unreachable: Callable[[Conversation], None],
        quiet: tuple[str, ...] = (),
        unknown_thread: Callable[[str], None] = lambda thread_id: None,
    ) -> None:
        self._emitter = emitter
        self._journal = journal
        self._conversations = conversations
        self._interactions = interactions
        self._turn_ended = turn_ended
        self.requests = Requests(emitter, conversations, interactions, self.updated, self._unknown)
        """The requests codex asks of the user, from asked to answered."""
        self._quiet = quiet
        self._unknown_thread = unknown_thread
        """Told of a thread no conversation here has (another app's, on a shared codex)."""
        self.shell_runs = ShellRuns()
        """The user's `!command`s running under command/exec."""
        self.reports = Reports(
            self._notice, self._emit_delta, self.updated, emitter, conversations, self.shell_runs
        )
        """What codex tells beside a turn's items (and the MCP servers' states)."""
        self._retries = Retries(self._notice, unreachable)
        self._config_warned: set[str] = set()
        """What codex warned of its configuration (it warns again at each start: after a
        reconnect, say), said once."""

    def updated(self, conversation: Conversation) -> None:
        """Emit the conversation as it is now (and write it to the store)."""
        self._journal.conversation(conversation)
        pending = len(self._interactions.pending(conversation.id))
        self._emitter.emit(
            ConversationUpdated(
                **self._emitter.stamp(conversation.id), info=conversation.info(pending)
            ),
            conversation.turn_id,
        )

    def handle(self, notification: Received) -> None:
        if isinstance(notification, IncomingRequest):
            self.requests.asked(notification)
            return
        if isinstance(notification, BadLine):
            self._unknown(None, "(unreadable line)", notification.excerpt, notification.reason)
            if notification.limit is not None:
                self._too_long(notification)
                ended = turn_end(notification)
                if ended is not None:
                    self.handle(ended)
            return
        if isinstance(notification, wire.UnknownNotification):
            params = notification.params
            thread_id = params.get("threadId") if isinstance(params, dict) else None
            conversation = self._conversations.owner(
                thread_id if isinstance(thread_id, str) else None
            )
            self._unknown(conversation, notification.name, params, notification.problem)
            return
        thread_id = getattr(notification, "thread_id", None)
        conversation = self._conversations.current(thread_id)
        parent = self._conversations.sub_agent_parent(thread_id)
        if thread_id is not None and conversation is None and parent is not None:
            self.reports.sub_agent(parent, thread_id, notification)
            return
        if isinstance(notification, wire.McpServerStartup) and conversation is None:
            self.reports.engine_wide(notification)  # also before its thread's start is known
            return
        if thread_id is not None and conversation is None:
            earlier = self._conversations.owner(thread_id)
            if earlier is not None:
                problem = "from an earlier thread of this conversation"
                self._unknown(earlier, notification.method, notification.to_wire(), problem)
            else:
                self._unknown_thread(thread_id)
            return
        if conversation is None:
            self._engine_wide(notification)
        else:
            self._in_conversation(conversation, notification)

    def _engine_wide(self, notification: wire.ServerNotification) -> None:
        if isinstance(notification, wire.ConfigWarning | wire.DeprecationNotice):
            text = notification.summary + (
                f" ({notification.details})" if notification.details else ""
            )
            if text not in self._config_warned:
                self._config_warned.add(text)
                self._notice(None, "warning", text)
        elif isinstance(notification, wire.WarningNotice):
            self._notice(None, "warning", notification.message)
        elif isinstance(notification, wire.AccountLoginCompleted):
            finished = SignInFinished(
                **self._emitter.stamp(None),
                login_id=notification.login_id,
                success=notification.success,
                error=notification.error,
            )
            self._emitter.emit(finished)
        elif isinstance(notification, ENGINE_WIDE_REPORTS):
            self.reports.engine_wide(notification)
        elif isinstance(notification, wire.AccountUpdated):
            changed = AccountChanged(
                **self._emitter.stamp(None),
                auth_mode=notification.auth_mode,
                plan_type=notification.plan_type,
            )
            self._emitter.emit(changed)

    def _in_conversation(
        self, conversation: Conversation, notification: wire.ServerNotification
    ) -> None:
        match notification:
            case wire.ItemDelta():
                self._delta(conversation, notification, notification.delta, 1)
            case wire.ItemStarted():
                self._item_started(conversation, notification)
            case wire.ItemCompleted():
                self._item_completed(conversation, notification)
            case wire.TurnStarted():
                self._turn_started(conversation, notification)
            case wire.TurnCompleted():
                self._turn_completed(conversation, notification)
            case wire.FileChangePatchUpdated():
                self._patch_updated(conversation, notification)
            case wire.TurnDiffUpdated():
                self._diff(conversation, notification)
            case wire.TurnPlanUpdated():
                self._plan(conversation, notification)
            case wire.TokenUsageUpdated():
                self._tokens(conversation, notification)
            case wire.ServerRequestResolved():
                self._request_resolved(conversation, notification)
            case wire.TurnErrorNotice():
                self._retries.error(conversation, notification)
            case wire.WarningNotice():
                self._warning(conversation, notification)
            case wire.ModelRerouted():
                self._rerouted(conversation, notification)
            case wire.ThreadStatusChanged():
                self._status(conversation, notification)
            case _:
                self.reports.in_conversation(conversation, notification)

    def _delta(
        self, conversation: Conversation, notification: wire.ItemDelta, text: str, joined: int
    ) -> None:
        """Emit a delta: `text` is `joined` of codex's deltas, the first `notification`."""
        kind = DELTA_KINDS.get(type(notification))
        if kind is None:
            return
        self._emit_delta(
            conversation,
            notification.turn_id,
            notification.item_id,
            kind,
            text,
            _part(notification),
            joined,
        )

    def route(self, messages: Iterable[Received]) -> None:
        """Apply what the app-server sent in one read, in order. A run of deltas of the same
        part of an item (most of a turn's traffic: a delta is a few characters) is emitted
        as one delta of their joined text, so a fast stream costs one event per read."""
        run: list[wire.ItemDelta] = []
        for message in messages:
            if isinstance(message, wire.ItemDelta):
                if run and not _same_part(run[0], message):
                    self._run(run)
                    run = []
                run.append(message)
                continue
            if run:
                self._run(run)
                run = []
            self.handle(message)
        if run:
            self._run(run)

    def _run(self, run: list[wire.ItemDelta]) -> None:
        """Emit a run of deltas of one part of an item as one (a thread that is no
        conversation's now, a sub-agent's, goes the long way)."""
        first = run[0]
        text = first.delta if len(run) == 1 else "".join([delta.delta for delta in run])
        conversation = self._conversations.current(first.thread_id)
        if conversation is None:
            self.handle(first if len(run) == 1 else first.replace(delta=text))
        else:
            self._delta(conversation, first, text, len(run))

    def _emit_delta(
        self,
        conversation: Conversation,
        turn_id: str,
        item_id: str,
        kind: DeltaKind,
        text: str,
        index: int,
        joined: int = 1,
    ) -> None:
        event = ItemDelta(
            **self._emitter.stamp(conversation.id),
            turn_id=turn_id,
            item_id=conversation.item_keys.streaming(turn_id, item_id),
            kind=kind,
            text=text,
            index=index,
            joined=joined,
        )
        self._emitter.emit(event, turn_id)

    def _item_started(self, conversation: Conversation, notification: wire.ItemStarted) -> None:
        if repeats_review(conversation, notification.item):
            return
        codex_id = notification.item.id
        key = conversation.item_keys.started(notification.turn_id, codex_id)
        item = conversation.open_items[codex_id] = keyed(notification.item, key)
        event = ItemStarted(
            **self._emitter.stamp(conversation.id), turn_id=notification.turn_id, item=item
        )
        self._emitter.emit(event, notification.turn_id)

    def _item_completed(self, conversation: Conversation, notification: wire.ItemCompleted) -> None:
        item = notification.item
        if repeats_review(conversation, item):
            return
        if isinstance(item, wire.ReviewModeItem) and item.type == "exitedReviewMode":
            conversation.review_said = item.review
        codex_id = notification.item.id
        conversation.open_items.pop(codex_id, None)
        key = conversation.item_keys.completed(notification.turn_id, codex_id)
        item = keyed(notification.item, key)
        event = ItemCompleted(
            **self._emitter.stamp(conversation.id),
            turn_id=notification.turn_id,
            item=item,
            status=getattr(item, "status", "completed"),
        )
        self._emitter.emit(event, notification.turn_id)
        self.reports.spawned(conversation, notification.item)

    def _turn_started(self, conversation: Conversation, notification: wire.TurnStarted) -> None:
        self.turn_began(conversation, notification.turn.id)

    def _patch_updated(
        self, conversation: Conversation, notification: wire.FileChangePatchUpdated
    ) -> None:
        item = conversation.open_items.get(notification.item_id)
        if isinstance(item, wire.FileChangeItem):
            updated = item.replace(changes=notification.changes)
            conversation.open_items[notification.item_id] = updated

    def _diff(self, conversation: Conversation, notification: wire.TurnDiffUpdated) -> None:
        if notification.diff == conversation.last_diff:
            return
        conversation.last_diff = conversation.latest_turn_diff = notification.diff
        event = TurnDiff(
            **self._emitter.stamp(conversation.id),
            turn_id=notification.turn_id,
            diff=notification.diff,
        )
        self._emitter.emit(event, notification.turn_id)

    def _plan(self, conversation: Conversation, notification: wire.TurnPlanUpdated) -> None:
        event = PlanUpdated(
            **self._emitter.stamp(conversation.id),
            turn_id=notification.turn_id,
            explanation=notification.explanation,
            steps=tuple((step.step, step.status) for step in notification.plan),
        )
        self._emitter.emit(event, notification.turn_id)

    def _tokens(self, conversation: Conversation, notification: wire.TokenUsageUpdated) -> None:
        conversation.token_usage = notification.token_usage
        event = TokenUsageUpdated(
            **self._emitter.stamp(conversation.id),
            turn_id=notification.turn_id,
            usage=notification.token_usage,
        )
        self._emitter.emit(event, notification.turn_id)

    def _request_resolved(
        self, conversation: Conversation, notification: wire.ServerRequestResolved
    ) -> None:
        pending = self._interactions.by_request(notification.request_id)
        if pending is not None:
            self.requests.expire(pending, "codex no longer needs an answer", "codex")

    def _warning(self, conversation: Conversation, notification: wire.WarningNotice) -> None:
        """Codex repeats some warnings every turn; the conversation shows each one once."""
        if notification.message.startswith(self._quiet):
            return
        if notification.message not in conversation.warned:
            conversation.warned.add(notification.message)
            self._notice(conversation, "warning", notification.message)

    def _rerouted(self, conversation: Conversation, notification: wire.ModelRerouted) -> None:
        text = f"codex switched from {notification.from_model} to {notification.to_model}"
        self._notice(conversation, "info", text)

    def _status(self, conversation: Conversation, notification: wire.ThreadStatusChanged) -> None:
        if notification.status.type == "systemError":
            self._notice(conversation, "error", "codex reports a system error on this thread")

    def turn_began(self, conversation: Conversation, turn_id: str) -> None:
        """Record the running turn, from the turn/start reply or turn/started (the first)."""
        if not conversation.begin_turn(turn_id):
            return
        submission = conversation.submission
        assert conversation.thread_id is not None
        self._emitter.emit(
            TurnStarted(
                **self._emitter.stamp(conversation.id),
                turn_id=turn_id,
                thread_id=conversation.thread_id,
                generation=conversation.generation,
                submission_id=submission.id if submission is not None else None,
            ),
            turn_id,
        )
        self.updated(conversation)

    def unseen_turn(self, conversation: Conversation, turn: wire.Turn) -> None:
        """A turn of the conversation's thread that began before this app followed the thread
        (another app started it), with its items so far: told as it would have been live, its
        start, its items completed and, if it ended, its end; of one that runs on, its start
        and the message that started it (the rest comes live). Nothing if its start was seen
        here."""
        thread_id = conversation.thread_id
        seen = turn.id == conversation.turn_id or turn.id in conversation.finished_turns
        if thread_id is None or seen:
            return
        self._turn_started(conversation, wire.TurnStarted(thread_id=thread_id, turn=turn))
        running = turn.status == RUNNING
        for item in turn.items:
            if not running or isinstance(item, wire.UserMessageItem):
                completed = wire.ItemCompleted(thread_id=thread_id, turn_id=turn.id, item=item)
                self._item_completed(conversation, completed)
        if not running:
            self._turn_completed(conversation, wire.TurnCompleted(thread_id=thread_id, turn=turn))

    def _turn_completed(self, conversation: Conversation, notification: wire.TurnCompleted) -> None:
        turn = notification.turn
        if turn.id in conversation.finished_turns:
            return
        stamp = self._emitter.stamp
        for item in list(conversation.open_items.values()):
            closed = ItemCompleted(
                **stamp(conversation.id),
                turn_id=turn.id,
                item=item,
                status=turn.status,
                closed_by_turn=True,
            )
            self._emitter.emit(closed, turn.id)
        for pending in self._interactions.pending(conversation.id):
            if pending.info.turn_id == turn.id:
                self.requests.expire(pending, f"the turn ended ({turn.status})", "codex")
        ended = [conversation.submission, *conversation.steered]
        for submission in (s for s in ended if s is not None):
            submission.state = SUBMISSION_OUTCOMES.get(turn.status, "failed")
            submission.turn_id = submission.turn_id or turn.id
            self._journal.submission(submission)
        error = turn.error.message if turn.error is not None else None
        self._emitter.emit(
            TurnCompleted(
                **stamp(conversation.id),
                turn_id=turn.id,
                status=turn.status,
                error=error,
                duration_ms=turn.duration_ms,
            ),
            turn.id,
        )
        conversation.end_turn(turn.id)
        self.updated(conversation)
        self._turn_ended(conversation)

    def _notice(self, conversation: Conversation | None, level: NoticeLevel, text: str) -> None:
        conversation_id = conversation.id if conversation is not None else None
        turn = conversation.turn_id if conversation is not None else None
        self._emitter.emit(
            Notice(**self._emitter.stamp(conversation_id), level=level, text=text), turn
        )

    def _too_long(self, line: BadLine) -> None:
        """Say that a line over the limit was skipped, in its thread's conversation."""
        text = (
            f"codex sent a message of {line.size:,} bytes, over the limit of {line.limit:,} "
            "([limits] line_bytes); it was skipped, so what it carried (part of an answer, "
            "say) is missing here."
        )
        self._notice(self._conversations.owner(thread_of(line)), "warning", text)

    def _unknown(
        self, conversation: Conversation | None, method: str, params: Any, problem: str | None
    ) -> None:
        conversation_id = conversation.id if conversation is not None else None
        turn = conversation.turn_id if conversation is not None else None
        event = UnknownMessage(
            **self._emitter.stamp(conversation_id), method=method, params=params, problem=problem
        )
        self._emitter.emit(event, turn)
