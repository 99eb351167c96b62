"""Every conversation's side chats: opening them safely, finding them, closing them."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count

from anyio.abc import TaskGroup

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.emitter import Emitter
from engine.errors import CodexDeckError, ConnectionClosed, RpcError
from engine.side_chats.chat import SideChat
from engine.side_chats.isolation import (
    BASE_INSTRUCTIONS,
    DEVELOPER_INSTRUCTIONS,
    SideChatUnsupported,
    side_overrides,
)
from engine.side_chats.private import PrivateCodex
from engine.transport.appserver import AppServer


class SideChats:
    """The side chats of all conversations, each in its own private codex process."""

    def __init__(
        self,
        emitter: Emitter,
        parent: Callable[[], AppServer],
        private: PrivateCodex | None,
        answer_limit: int,
    ) -> None:
        self._emitter = emitter
        self._parent = parent
        """The conversations' app-server (replaced when codex is restarted)."""
        self._private = private
        """Where side chats' codex is started (None: nowhere, codex listens for others)."""
        self._answer_limit = answer_limit
        self._chats: dict[str, SideChat] = {}
        self._active: dict[str, str] = {}
        self._numbers = count(1)
        self._unsupported: SideChatUnsupported | None = None
        self._checked = False

    async def open(self, tasks: TaskGroup, conversation: Conversation) -> SideChat:
        """Fork the conversation's thread into a new side chat and make it the active one.

        Raises:
            CodexDeckError: said in words: no history to fork yet, this codex cannot do side
                chats, its config could not be read, or codex refused the fork. Nothing is
                left running.
        """
        if self._private is None:
            raise SideChatUnsupported(
                "Side chats need a codex that codex-deck starts itself (on this machine, or "
                "on an ssh:// host); this one listens for other apps, so none is started "
                "for them."
            )
        thread = conversation.thread
        if conversation.thread_id is None or thread is None:
            raise CodexDeckError("This conversation has no codex thread yet; nothing to fork.")
        if not conversation.finished_turns and conversation.turn_id is None:
            raise CodexDeckError(
                "Nothing to ask about yet: a side chat starts from the conversation's history, "
                "so send it a message first."
            )
        if not self._checked:
            try:
                await self._private.check()
            except SideChatUnsupported as error:
                self._unsupported = error
            self._checked = True
        if self._unsupported is not None:
            raise self._unsupported
        overrides = side_overrides(await self._mcp_servers(conversation))
        fork = wire.ThreadForkParams(
            thread_id=conversation.thread_id,
            ephemeral=True,
            exclude_turns=True,
            model=thread.model,
            model_provider=thread.model_provider,
            cwd=thread.cwd,
            sandbox="read-only",
            approval_policy="never",
            base_instructions=BASE_INSTRUCTIONS,
            developer_instructions=DEVELOPER_INSTRUCTIONS,
        )
        side = SideChat(
            f"s{next(self._numbers)}", conversation.id, self._emitter, self._answer_limit
        )
        try:
            await tasks.start(side.run, self._private, overrides, fork)
        except CodexDeckError as error:
            side.give_up(str(error))
            raise
        self._chats[side.id] = side
        self._active[conversation.id] = side.id
        return side

    async def ask(
        self,
        tasks: TaskGroup,
        conversation: Conversation,
        question: str,
        side_chat_id: str | None = None,
        new: bool = False,
    ) -> SideChat:
        """Send a side question to `side_chat_id`, else to the active side chat; a new one is
        opened when asked to or when none is open. Returns the side chat it went to.

        Raises:
            KeyError: no such open side chat (the message says which are open).
            CodexDeckError: a side chat could not be opened, or would not take the question.
        """
        side = None
        if side_chat_id is not None:
            side = self.choose(conversation.id, side_chat_id)
        elif not new:
            side = self.active(conversation.id)
        if side is None:
            side = await self.open(tasks, conversation)
        await side.send(question)
        return side

    def describe(self, conversation_id: str) -> str:
        """The conversation's side chats, a line each (the active one starred)."""
        active = self.active(conversation_id)
        lines = [
            f"{'*' if side is active else ' '} {side.id}  {side.title}  "
            f"({side.state}, {side.questions} question{'s' if side.questions != 1 else ''})"
            for side in self.of(conversation_id)
        ]
        return "\n".join(lines) or "No side chats; ask one with /side QUESTION."

    def of(self, conversation_id: str) -> list[SideChat]:
        """The conversation's open side chats, oldest first."""
        return [
            side
            for side in self._chats.values()
            if side.conversation_id == conversation_id and side.is_open
        ]

    def active(self, conversation_id: str) -> SideChat | None:
        """The side chat /side asks in: the one last opened or chosen, if still open."""
        side = self._chats.get(self._active.get(conversation_id, ""))
        return side if side is not None and side.is_open else None

    def choose(self, conversation_id: str, reference: str | None) -> SideChat:
        """A side chat of the conversation by id (the active one when `reference` is None).

        Raises:
            KeyError: with a message saying what is open.
        """
        if reference is None:
            side = self.active(conversation_id)
            if side is None:
                raise KeyError("This conversation has no open side chat.")
            return side
        side = self._chats.get(reference)
        if side is None or side.conversation_id != conversation_id or not side.is_open:
            listed = ", ".join(s.id for s in self.of(conversation_id)) or "none"
            raise KeyError(f"There is no open side chat {reference!r} here (open: {listed}).")
        self._active[conversation_id] = side.id
        return side

    async def close_all(self, conversation_id: str | None, why: str) -> int:
        """Close the side chats of one conversation (or of all); returns how many closed."""
        closing = [
            side
            for side in self._chats.values()
            if side.is_open and conversation_id in (None, side.conversation_id)
        ]
        for side in closing:
            await side.close(why)
        return len(closing)

    async def _mcp_servers(self, conversation: Conversation) -> list[str]:
        """The MCP servers codex's config lists (each is turned off in the side chat).

        Raises:
            SideChatUnsupported: the config could not be read, so they cannot be turned off.
        """
        params = wire.ConfigReadParams(cwd=conversation.cwd)
        try:
            read = await self._parent().call("config/read", params, wire.ConfigReadResult)
        except (RpcError, ConnectionClosed) as error:
            raise SideChatUnsupported(
                f"Could not read codex's config to turn its MCP servers off ({error}); "
                "no side chat was opened."
            ) from None
        servers = read.config.get("mcp_servers")
        return sorted(servers) if isinstance(servers, dict) else []
