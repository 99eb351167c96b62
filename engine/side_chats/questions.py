"""What a user does with side chats: ask a side question (in the active side chat, a chosen
one or a new one), close one, or keep one as a conversation of its own (a durable fork of the
parent's thread)."""

from __future__ import annotations

import uuid
from pathlib import Path

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.conversations.notices import too_long
from engine.errors import CodexDeckError, ConnectionClosed, RpcError
from engine.results import CommandResult
from engine.side_chats.manager import SideChats
from engine.transport.launch import thread_defaults


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
