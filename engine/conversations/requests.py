"""A request codex asks of the user, from asked to answered: the server request opens an
interaction (in stream order, so what it asks about is known), the user's answer is made its
reply (or a decline, when it can wait no more), and codex gets it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import msgspec

from engine import protocol as wire
from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.emitter import Emitter
from engine.conversations.interactions import (
    Answer,
    AnswerDoesNotFit,
    Interactions,
    PendingInteraction,
    Reply,
    grant_words,
    reply_for,
)
from engine.conversations.notices import Notices
from engine.conversations.rules import earlier_commands, would_match
from engine.errors import LeftUnanswered
from engine.events import AnsweredBy, InteractionRequested, InteractionResolved
from engine.events import InteractionOutcome as Outcome
from engine.results import CommandResult
from engine.transport.appserver import IncomingRequest
from engine.transport.rpc import RequestId


class _Asked(msgspec.Struct, eq=False):
    """A server request seen in the stream, and the interaction opened for it (if any)."""

    ready: anyio.Event = msgspec.field(default_factory=anyio.Event)
    pending: PendingInteraction | None = None


class Requests:
    """Every request codex asks: opened as an interaction, answered once."""

    def __init__(
        self,
        emitter: Emitter,
        conversations: Conversations,
        interactions: Interactions,
        updated: Callable[[Conversation], None],
        unknown: Callable[[Conversation | None, str, Any, str | None], None],
    ) -> None:
        self._emitter = emitter
        self._conversations = conversations
        self._interactions = interactions
        self._updated = updated
        """Emit the conversation as it is now (the router's)."""
        self._unknown = unknown
        """Show what codex-deck does not know (the router's)."""
        self._asked: dict[RequestId, _Asked] = {}
        self._notices = Notices(emitter, conversations)

    def asked(self, incoming: IncomingRequest) -> None:
        """Open an interaction for a request (in stream order, so the diff it needs is known)."""
        asked = self._asked.setdefault(incoming.request_id, _Asked())
        params = incoming.params
        if isinstance(params, wire.UnknownServerRequest):
            self._unknown(None, params.name, params.params, "a request codex-deck does not answer")
        else:
            conversation = self._conversations.current(params.thread_id)
            parent = self._conversations.sub_agent_parent(params.thread_id)
            if conversation is not None:
                asked.pending = self._open(conversation, incoming.request_id, params)
            elif parent is not None:  # a sub-agent's: asked where the user is
                asked.pending = self._open(parent, incoming.request_id, params, params.thread_id)
        asked.ready.set()

    def _open(
        self,
        conversation: Conversation,
        request_id: RequestId,
        params: wire.KnownServerRequest,
        sub_agent: str | None = None,
    ) -> PendingInteraction:
        changes: tuple[wire.FileChange, ...] = ()
        if isinstance(params, wire.FileChangeApprovalRequest):
            item = conversation.open_items.get(params.item_id)
            if isinstance(item, wire.FileChangeItem):
                changes = tuple(item.changes)
        pending = self._interactions.open(conversation.id, request_id, params, changes)
        asked_about = pending.info.item_id
        if asked_about is not None and pending.info.turn_id is not None:
            item = conversation.open_items.get(asked_about)
            key = (
                item.id
                if item is not None
                else conversation.item_keys.streaming(pending.info.turn_id, asked_about)
            )
            pending.info = msgspec.structs.replace(pending.info, item_id=key)
        if sub_agent is not None:
            pending.info = msgspec.structs.replace(pending.info, sub_agent=sub_agent, item_id=None)
        if pending.info.exec_policy_amendment:
            ran = earlier_commands(self._emitter.trace(conversation.id).all_events())
            matches = tuple(would_match(pending.info.exec_policy_amendment, ran))
            pending.info = msgspec.structs.replace(pending.info, rule_matches=matches)
        conversation.wait_for_user()
        event = InteractionRequested(
            **self._emitter.stamp(conversation.id), interaction=pending.info
        )
        self._emitter.emit(event, conversation.turn_id)
        self._updated(conversation)
        return pending

    async def answer(
        self, request_id: RequestId, params: wire.KnownServerRequest
    ) -> wire.WireModel:
        """The reply to a server request: the user's answer, or a decline."""
        asked = self._asked.setdefault(request_id, _Asked())
        try:
            await asked.ready.wait()
            if asked.pending is None:
                return wire.decline(params)
            await asked.pending.done.wait()
            if asked.pending.reply is None:
                raise LeftUnanswered(asked.pending.info.id)
            return asked.pending.reply
        finally:
            self._asked.pop(request_id, None)
            if asked.pending is not None and asked.pending.outcome is None:
                self.expire(asked.pending, "codex-deck stopped waiting for an answer", "codex-deck")

    def respond(
        self, reference: str, answer: Answer, conversation_id: str | None = None
    ) -> CommandResult:
        """Answer a pending interaction by id or unique id prefix (`Engine.respond`)."""
        try:
            pending = self._interactions.find(reference)
        except KeyError as error:
            return self._notices.failed(conversation_id, str(error.args[0]))
        info = pending.info
        if conversation_id is not None and info.conversation_id != conversation_id:
            return self._notices.failed(
                conversation_id, f"{info.id} belongs to another conversation"
            )
        if pending.outcome is not None:
            already = "expired" if pending.outcome == "expired" else "already answered"
            return self._notices.failed(conversation_id, f"{info.id} is {already}")
        try:
            detail = self.answer_with(pending, answer)
        except AnswerDoesNotFit as error:
            return self._notices.failed(conversation_id, f"{info.id}: {error}")
        return CommandResult(True, f"{info.id}: {detail}")

    def answer_with(self, pending: PendingInteraction, answer: Answer) -> str:
        """Send the user's answer; returns what was decided, in words (never a secret).

        Raises:
            AnswerDoesNotFit: the answer is not one this kind takes; nothing is sent.
        """
        reply, outcome = reply_for(pending.request, answer)
        detail = outcome.replace("_", " ")
        if pending.secret and outcome == "answered":
            detail = "answered (secret answer not shown)"
        elif outcome == "answered" and isinstance(answer, Reply):
            detail = f"answered — {answered(pending, answer)}"
        if outcome in ("accepted_for_session", "accepted_with_rule"):
            conversation = self._conversations.get(pending.info.conversation_id)
            conversation.grants.append(grant_words(pending.info, outcome))
        self.resolve(pending, reply, outcome, detail)
        return detail

    def resolve(
        self,
        pending: PendingInteraction,
        reply: wire.WireModel,
        outcome: Outcome,
        detail: str,
        by: AnsweredBy = "user",
    ) -> None:
        """Answer an interaction, tell subscribers, and leave `waiting` if nothing else waits."""
        pending.resolve(reply, outcome)
        self._resolved(pending, outcome, detail, by)

    def let_go(self, pending: PendingInteraction, why: str) -> None:
        """Leave a request unanswered (a shared codex keeps it for the next client): said as
        expired here, and nothing is sent."""
        pending.outcome = "expired"
        pending.done.set()
        self._resolved(pending, "expired", why, "codex-deck")

    def _resolved(
        self, pending: PendingInteraction, outcome: Outcome, detail: str, by: AnsweredBy
    ) -> None:
        conversation = self._conversations.get(pending.info.conversation_id)
        self._emitter.emit(
            InteractionResolved(
                **self._emitter.stamp(conversation.id),
                interaction_id=pending.info.id,
                outcome=outcome,
                detail=detail,
                by=by,
            ),
            conversation.turn_id,
        )
        if not self._interactions.pending(conversation.id):
            conversation.answered()
        self._updated(conversation)

    def expire(self, pending: PendingInteraction, why: str, by: AnsweredBy) -> None:
        self.resolve(pending, wire.decline(pending.request), "expired", why, by)


ANSWER_SHOWN_CHARS = 300


def answered(pending: PendingInteraction, answer: Reply) -> str:
    """What was answered, in words: each question's (or field's) name and its answer."""
    value = answer.value
    if not isinstance(value, dict):
        said = str(value)
    else:
        names = {q.id: q.header or q.question for q in pending.info.questions}
        said = "; ".join(f"{names.get(key, key)}: {words(item)}" for key, item in value.items())
    return said if len(said) <= ANSWER_SHOWN_CHARS else said[: ANSWER_SHOWN_CHARS - 1] + "…"


def words(value: object) -> str:
    """An answer's value as text: a list as its items, comma-separated."""
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)
