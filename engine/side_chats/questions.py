"""What a user does with side chats: ask a side question (in the active side chat, a chosen
one or a new one), close one, or keep one as a conversation of its own (a durable fork of the
parent's thread)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

from anyio.abc import TaskGroup

from engine import protocol as wire
from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.notices import Notices, too_long
from engine.conversations.on_codex import OnCodex
from engine.conversations.router import Router
from engine.errors import CodexDeckError, ConnectionClosed, RpcError
from engine.results import CommandResult
from engine.settings import Settings
from engine.side_chats.manager import SideChats
from engine.transport.appserver import AppServer
from engine.transport.launch import thread_defaults


class SideQuestions(OnCodex):
    """The side chat calls of every conversation, on the codex in use (`server()`)."""

    def __init__(
        self,
        settings: Settings,
        conversations: Conversations,
        router: Router,
        notices: Notices,
        side_chats: SideChats,
        tasks: TaskGroup,
        server: Callable[[], AppServer],
    ) -> None:
        super().__init__(server)
        self._settings = settings
        self._conversations = conversations
        self._router = router
        self._notices = notices
        self._side_chats = side_chats
        self._tasks = tasks

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
        conversation = self._conversations.get(conversation_id)
        if len(question) > wire.TEXT_INPUT_CHARS:
            return self._notices.failed(conversation.id, too_long("question", len(question)))
        try:
            side = await self._side_chats.ask(
                self._tasks, conversation, question, side_chat_id, new=new
            )
        except KeyError as error:
            return self._notices.failed(conversation.id, str(error.args[0]))
        except CodexDeckError as error:
            return self._notices.failed(conversation.id, str(error))
        return CommandResult(True, f"Asked in side chat {side.id}.")

    async def close_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        """Close a side chat (the active one by default): its codex process ends."""
        try:
            side = self._side_chats.choose(conversation_id, side_chat_id)
        except KeyError as error:
            return self._notices.failed(conversation_id, str(error.args[0]))
        await side.close()
        return CommandResult(True, f"Closed side chat {side.id}.")

    async def promote_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        """Keep a side chat as a new conversation: a durable fork of the parent's thread.

        The side chat's own questions and answers are not part of the fork: codex forks the
        parent's stored history, and a throwaway fork has none to give.
        """
        parent = self._conversations.get(conversation_id)
        try:
            side = self._side_chats.choose(parent.id, side_chat_id)
        except KeyError as error:
            return self._notices.failed(parent.id, str(error.args[0]))
        defaults = thread_defaults(self._settings, Path(parent.cwd))
        params = wire.ThreadForkParams(
            **defaults.model_dump(), thread_id=side.parent_thread_id or "", ephemeral=False
        )
        try:
            opened = await self._server.thread_fork(params)
        except (RpcError, ConnectionClosed) as error:
            return self._notices.failed(
                parent.id, f"codex could not fork the conversation: {error}"
            )
        kept = Conversation(
            id=uuid.uuid4().hex[:12], title=f"{parent.title} · {side.title}"[:60], cwd=opened.cwd
        )
        kept.thread = opened
        self._conversations.add(kept)
        self._conversations.bind(kept, opened.thread.id)
        self._router.updated(kept)
        self._notices.say(
            kept,
            "info",
            f"Forked from {parent.title!r} with its history. The questions and answers of side "
            f"chat {side.id} are not part of it: codex cannot carry a side chat into a fork.",
        )
        return CommandResult(True, f"Kept side chat {side.id} as {kept.title!r}.", kept.id)
