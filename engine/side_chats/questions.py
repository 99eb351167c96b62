"""What a user does with side chats: ask a side question (in the active side chat, a chosen
one or a new one), bring an answer (or part of one) into the conversation's next message,
close one, or keep one as a conversation of its own (a durable fork of the parent's
thread)."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from engine import protocol as wire
from engine.conversations.conversation import Conversation, SideContext
from engine.conversations.core import Core
from engine.conversations.notices import too_long
from engine.errors import CodexDeckError, ConnectionClosed, RpcError
from engine.results import CommandResult
from engine.side_chats.manager import SideChats
from engine.transport.launch import thread_defaults

WORD = re.compile(r"\w+")


def part_of(part: str, answer: str) -> bool:
    """Whether `part` (as the user selected it on screen, where the answer's Markdown is
    drawn: its marks gone, its lines wrapped) is a stretch of `answer`'s words."""
    words, within = WORD.findall(part.lower()), WORD.findall(answer.lower())
    if not words:
        return False
    size = len(words)
    return any(within[at : at + size] == words for at in range(len(within) - size + 1))


class SideQuestions:
    """The side chat calls of every conversation, on the codex in use (`server()`)."""

    def __init__(self, core: Core, side_chats: SideChats) -> None:
        self._core = core
        self._side_chats = side_chats

    async def ask_aside(
        self,
        conversation_id: str,
        question: str,
        side_chat_id: str | None = None,
        new: bool = False,
    ) -> CommandResult:
        """Ask a side question and return once it is sent; the answer streams as events.

        It goes to `side_chat_id`, else to the active side chat; a new side chat is opened
        when asked to or when none is open. Nothing is sent when the result is not ok.
        """
        conversation = self._core.conversations.get(conversation_id)
        if len(question) > wire.TEXT_INPUT_CHARS:
            return self._core.notices.failed(conversation.id, too_long("question", len(question)))
        try:
            side = await self._side_chats.ask(
                self._core.tasks, conversation, question, side_chat_id, new=new
            )
        except KeyError as error:
            return self._core.notices.failed(conversation.id, str(error.args[0]))
        except CodexDeckError as error:
            return self._core.notices.failed(conversation.id, str(error))
        return CommandResult(True, f"Asked in side chat {side.id}.")

    def bring_home(
        self, conversation_id: str, side_chat_id: str | None = None, part: str | None = None
    ) -> CommandResult:
        """Bring a side chat's latest answer (or `part` of one of its answers, as the user
        chose it) into the conversation, to go with its next message; nothing else of the
        side chat reaches it."""
        conversation = self._core.conversations.get(conversation_id)
        try:
            side = self._side_chats.choose(conversation.id, side_chat_id)
        except KeyError as error:
            return self._core.notices.failed(conversation.id, str(error.args[0]))
        if not side.answers:
            return self._core.notices.failed(
                conversation.id, f"Side chat {side.id} has no answer yet; nothing was brought in."
            )
        answer = side.answers[-1]
        text = answer.text
        if part is not None and part.strip():
            found = [a for a in reversed(side.answers) if part_of(part, a.text)]
            if not found:
                return self._core.notices.failed(
                    conversation.id,
                    f"Only a side answer, or a part of one, can be brought in; what was chosen "
                    f"is not in an answer of {side.id}. Nothing was brought in.",
                )
            answer, text = found[0], part.strip()
        brought = SideContext(side.id, answer.question, text)
        conversation.context.append(brought)
        self._core.router.updated(conversation)
        whole = "its answer" if text == answer.text else f"{len(text):,} characters of its answer"
        return self._core.notices.told(
            conversation,
            f"Brought in from side chat {side.id} ({answer.question[:60]!r}): {whole}, to go "
            "with your next message (/bringside drop takes it out).",
        )

    def drop_brought(self, conversation_id: str) -> CommandResult:
        """Take the side answers brought in out of the next message."""
        conversation = self._core.conversations.get(conversation_id)
        kept = [part for part in conversation.context if not isinstance(part, SideContext)]
        count = len(conversation.context) - len(kept)
        if not count:
            return self._core.notices.told(
                conversation, "No side answer waits to go with a message."
            )
        conversation.context[:] = kept  # what was taken back of a change still goes
        self._core.router.updated(conversation)
        plural = "s" if count != 1 else ""
        return self._core.notices.told(
            conversation, f"Took {count} side answer{plural} out of the next message."
        )

    async def close_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        """Close a side chat (the active one by default): its codex process ends."""
        try:
            side = self._side_chats.choose(conversation_id, side_chat_id)
        except KeyError as error:
            return self._core.notices.failed(conversation_id, str(error.args[0]))
        await side.close()
        return CommandResult(True, f"Closed side chat {side.id}.")

    async def promote_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        """Keep a side chat as a new conversation: a durable fork of the parent's thread.

        The side chat's own questions and answers are not part of the fork: codex forks the
        parent's stored history, and a throwaway fork has none to give.
        """
        parent = self._core.conversations.get(conversation_id)
        try:
            side = self._side_chats.choose(parent.id, side_chat_id)
        except KeyError as error:
            return self._core.notices.failed(parent.id, str(error.args[0]))
        defaults = thread_defaults(self._core.settings, Path(parent.cwd))
        params = wire.ThreadForkParams(
            **defaults.as_dict(), thread_id=side.parent_thread_id or "", ephemeral=False
        )
        try:
            opened = await self._core.server.thread_fork(params)
        except (RpcError, ConnectionClosed) as error:
            return self._core.notices.failed(
                parent.id, f"codex could not fork the conversation: {error}"
            )
        kept = Conversation(
            id=uuid.uuid4().hex[:12], title=f"{parent.title} · {side.title}"[:60], cwd=opened.cwd
        )
        kept.thread = opened
        self._core.conversations.add(kept)
        self._core.conversations.bind(kept, opened.thread.id)
        self._core.router.updated(kept)
        self._core.notices.say(
            kept,
            "info",
            f"Forked from {parent.title!r} with its history. The questions and answers of side "
            f"chat {side.id} are not part of it: codex cannot carry a side chat into a fork.",
        )
        return CommandResult(True, f"Kept side chat {side.id} as {kept.title!r}.", kept.id)
