"""What codex-deck says to the user: notices in a conversation (or in none), and the
results of commands and messages that carry them."""

from __future__ import annotations

from engine import protocol as wire
from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.emitter import Emitter
from engine.events import Notice, NoticeLevel
from engine.results import CommandResult, SubmitOutcome


def too_long(what: str, size: int) -> str:
    """The refusal of a message or question over codex's limit."""
    return (
        f"The {what} has {size:,} characters; codex takes {wire.TEXT_INPUT_CHARS:,} at most. "
        "Nothing was sent."
    )


class Notices:
    def __init__(self, emitter: Emitter, conversations: Conversations) -> None:
        self._emitter = emitter
        self._conversations = conversations

    def say(self, conversation: Conversation | None, level: NoticeLevel, text: str) -> None:
        conversation_id = conversation.id if conversation is not None else None
        turn = conversation.turn_id if conversation is not None else None
        self._emitter.emit(
            Notice(**self._emitter.stamp(conversation_id), level=level, text=text), turn
        )

    def told(self, conversation: Conversation, message: str) -> CommandResult:
        self.say(conversation, "info", message)
        return CommandResult(True, message)

    def failed(self, conversation_id: str | None, message: str) -> CommandResult:
        conversation = self._conversations.get(conversation_id) if conversation_id else None
        self.say(conversation, "error", message)
        return CommandResult(False, message)

    def refused(self, conversation: Conversation, message: str) -> SubmitOutcome:
        self.say(conversation, "error", message)
        return SubmitOutcome(False, None, message)
