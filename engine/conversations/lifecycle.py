"""A conversation's life in the list: made (with its Codex thread), renamed, archived,
exported."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.conversations.turns import Turns
from engine.errors import RpcError
from engine.events import BUSY_STATES, ConversationInfo
from engine.records.export import export_markdown
from engine.records.trace import Redactor

CloseSideChats = Callable[[str, str], Awaitable[object]]
"""Close a conversation's side chats, saying why (the side chats' manager's)."""


class Lifecycle:
    """Makes, renames, archives and exports conversations."""

    def __init__(
        self, core: Core, turns: Turns, cwd: Path, close_side_chats: CloseSideChats
    ) -> None:
        self._core = core
        self._turns = turns
        self._cwd = cwd
        self._close_side_chats = close_side_chats

    def info(self, conversation: Conversation) -> ConversationInfo:
        return conversation.info(len(self._core.interactions.pending(conversation.id)))

    async def new(self, title: str | None = None, cwd: Path | None = None) -> ConversationInfo:
        """Create a conversation and start its Codex thread.

        If codex refuses the thread, the conversation is `failed` (a notice says why) and
        the next submission tries again. While codex is away (being started or reached
        again), its first message starts the thread once codex is back.
        """
        conversation = Conversation(
            id=uuid.uuid4().hex[:12],
            title=title or "New conversation",
            cwd=str(cwd or self._cwd),
        )
        self._core.conversations.add(conversation)
        self._core.router.updated(conversation)
        if not self._core.link.coming_back:
            await self._turns.start_thread(conversation)
        return self.info(conversation)

    def rename(self, conversation_id: str, title: str) -> ConversationInfo:
        conversation = self._core.conversations.get(conversation_id)
        conversation.title = title.strip() or conversation.title
        self._core.router.updated(conversation)
        return self.info(conversation)

    async def archive(self, conversation_id: str) -> ConversationInfo:
        """Hide a conversation from the list (its thread is archived in codex too)."""
        conversation = self._core.conversations.get(conversation_id)
        if conversation.state in BUSY_STATES:
            await self._turns.stop(conversation_id)
        conversation.archived = True
        await self._close_side_chats(conversation.id, "the conversation was archived")
        if conversation.thread_id is not None:
            with contextlib.suppress(RpcError):
                params = wire.ThreadArchiveParams(thread_id=conversation.thread_id)
                await self._core.server.thread_archive(params)
        self._core.router.updated(conversation)
        return self.info(conversation)

    async def export_markdown(self, conversation_id: str, path: Path, replace: bool = False) -> int:
        """Write the conversation as Markdown with known secrets redacted (over a file there
        only if `replace`); returns its size.

        Raises:
            FileExistsError: a file is there, and not `replace`.
            OSError: the file could not be written.
        """
        conversation = self._core.conversations.get(conversation_id)
        events = self._core.emitter.trace(conversation.id).all_events()
        redact = Redactor.of(self._core.settings)
        return await export_markdown(path, conversation.title, events, redact, replace)
