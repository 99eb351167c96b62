"""A side chat: questions about a conversation, answered by a throwaway fork of its thread in a
private codex process, so nothing said there reaches the conversation itself."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import msgspec
from anyio.abc import TaskGroup, TaskStatus

from engine import protocol as wire
from engine.conversations.emitter import Emitter
from engine.conversations.item_keys import ItemKeys
from engine.errors import CodexDeckError, ConnectionClosed, RpcError
from engine.events import (
    EngineEvent,
    SideChatAnswered,
    SideChatAsked,
    SideChatDelta,
    SideChatInfo,
    SideChatState,
    SideChatUpdated,
    Stamp,
)
from engine.side_chats.private import PrivateCodex
from engine.transport.appserver import AppServer, Received
from engine.transport.tasks import task_group

UNTITLED = "Side chat"


class SideChatBusy(CodexDeckError):
    """The side chat is still answering the previous question; nothing was sent."""


class SideChatClosed(CodexDeckError):
    """The side chat is closed (or failed); nothing was sent."""


class SideAnswer(msgspec.Struct, frozen=True):
    question: str
    text: str
    cut: bool
    """The answer went past the size limit and was cut there."""


class _Answering(msgspec.Struct):
    question: str
    turn_id: str | None = None
    parts: list[str] = msgspec.field(default_factory=list)
    size: int = 0
    cut: bool = False
    items: ItemKeys = msgspec.field(default_factory=ItemKeys)
    """The names of the turn's items (a provider may give every message the same id)."""
    messages: list[str] = msgspec.field(default_factory=list)
    """Agent messages written so far, by name (an answer may have several)."""
    failure: str | None = None
    done: anyio.Event = msgspec.field(default_factory=anyio.Event)


class SideChat:
    """One side chat. Opened by the engine (`Engine.open_side_chat`); ask, then close."""

    def __init__(self, side_id: str, conversation_id: str, emitter: Emitter, limit: int) -> None:
        self.id = side_id
        self.conversation_id = conversation_id
        self.title = UNTITLED
        self.state: SideChatState = "opening"
        self.thread_id: str | None = None
        self.opened: wire.ThreadOpened | None = None
        """What codex said of the fork (its sandbox, approval policy, thread)."""
        self.parent_thread_id: str | None = None
        self.questions = 0
        self.answers: list[SideAnswer] = []
        """Its answers, oldest first (what can be brought into the conversation)."""
        self.detail = ""
        self.pid: int | None = None
        """The private codex process, while it runs."""
        self.scratch: Path | None = None
        """Its temporary working directory, removed on close."""
        self._emitter = emitter
        self._limit = limit
        self._server: AppServer | None = None
        self._answering: _Answering | None = None
        self._tasks: TaskGroup | None = None
        self._closing = anyio.Event()
        self._finished = anyio.Event()

    def info(self) -> SideChatInfo:
        return SideChatInfo(
            id=self.id,
            conversation_id=self.conversation_id,
            title=self.title,
            state=self.state,
            thread_id=self.thread_id,
            questions=self.questions,
            detail=self.detail,
        )

    @property
    def is_open(self) -> bool:
        return self.state in ("opening", "idle", "answering")

    async def ask(self, question: str) -> SideAnswer:
        """Ask and wait for the whole answer (streamed meanwhile as `SideChatDelta` events).

        Raises:
            SideChatBusy: a question is still being answered.
            SideChatClosed: the side chat is closed, or closed while answering.
        """
        answering = await self.send(question)
        return await self._wait(answering)

    async def send(self, question: str) -> _Answering:
        """Ask without waiting for the answer.

        Raises:
            SideChatBusy, SideChatClosed: as for `ask`; nothing was sent.
        """
        if self.state != "idle" or self._server is None or self.thread_id is None:
            if self.state == "answering":
                raise SideChatBusy(
                    f"{self.id} is already answering {self._quoted()}; wait for it, or ask in "
                    "another side chat."
                )
            raise SideChatClosed(f"{self.id} is {self.state}; open a new side chat with /side.")
        answering = self._answering = _Answering(question)
        if self.questions == 0:
            self.title = question.strip().splitlines()[0][:60]
        self.questions += 1
        self._set_state("answering")
        self._emit(SideChatAsked(**self._stamp(), side_chat_id=self.id, question=question))
        params = wire.TurnStartParams(
            thread_id=self.thread_id, input=[wire.TextInput(text=question)]
        )
        try:
            started = await self._server.turn_start(params)
        except (RpcError, ConnectionClosed) as error:
            self._fail(f"codex would not take the question ({error})")
            raise SideChatClosed(self.detail) from None
        answering.turn_id = started.turn.id
        return answering

    async def _wait(self, answering: _Answering) -> SideAnswer:
        await answering.done.wait()
        if answering.failure is not None:
            await self._finished.wait()
            raise SideChatClosed(answering.failure)
        return SideAnswer(answering.question, "".join(answering.parts), answering.cut)

    async def close(self, why: str = "closed") -> None:
        """Stop its codex process and remove its temporary files (waits until they are gone)."""
        if self.is_open:
            self.detail = why
            self._set_state("closed")
        self._end_answer(f"the side chat was closed ({why})")
        self._closing.set()
        with anyio.CancelScope(shield=True):
            await self._finished.wait()

    def give_up(self, why: str) -> None:
        """It could not be opened: say why (nothing of it is left running)."""
        self.detail = why
        self._set_state("failed")

    async def run(
        self,
        private: PrivateCodex,
        overrides: tuple[str, ...],
        fork: wire.ThreadForkParams,
        *,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Start the private codex (with `overrides`), fork, and follow it until closed (in
        the engine's tasks).

        Raises (before `task_status.started`):
            CodexDeckError: codex could not be started, refused the fork, or forked something
                that is not a throwaway copy; nothing is left running.
        """
        self._set_state("opening")
        try:
            async with private.start(overrides) as started:
                server = started.server
                self.pid, self.scratch = started.pid, started.scratch
                async with server.notifications() as received:
                    opened = await _fork(server, fork)
                    self._server = server
                    self.opened = opened
                    self.thread_id = opened.thread.id
                    self.parent_thread_id = fork.thread_id
                    self._set_state("idle")
                    task_status.started()
                    try:
                        await self._follow_until_closed(received)
                    except CodexDeckError as error:
                        self._fail(str(error))
        finally:
            self._server = None
            self.pid = None
            self._finished.set()

    async def _follow_until_closed(self, received: AsyncIterator[Received]) -> None:
        async with task_group() as tasks:
            self._tasks = tasks

            async def follow() -> None:
                async for message in received:
                    await self._handle(message)
                self._fail("its codex process stopped")

            tasks.start_soon(follow)
            await self._closing.wait()
            tasks.cancel_scope.cancel()

    async def _handle(self, message: Received) -> None:
        answering = self._answering
        if answering is None or answering.done.is_set():
            return
        keys = answering.items
        if isinstance(message, wire.ItemStarted):
            keys.started(message.turn_id, message.item.id)
        elif isinstance(message, wire.AgentMessageDelta):
            self._add(answering, keys.streaming(message.turn_id, message.item_id), message.delta)
        elif isinstance(message, wire.ItemCompleted) and isinstance(
            message.item, wire.AgentMessageItem
        ):
            key = keys.completed(message.turn_id, message.item.id)
            if key not in answering.messages:
                self._add(answering, key, message.item.text)
        elif isinstance(message, wire.TurnCompleted) and message.turn.id == answering.turn_id:
            turn = message.turn
            if turn.status == "failed" and not answering.cut:
                reason = turn.error.message if turn.error is not None else "the turn failed"
                self._fail(f"codex could not answer: {reason}")
                return
            self._finish(answering)

    def _add(self, answering: _Answering, item_id: str, text: str) -> None:
        if answering.cut:
            return
        if item_id not in answering.messages:
            if answering.messages:
                text = "\n\n" + text
            answering.messages.append(item_id)
        room = self._limit - answering.size
        if len(text) > room:
            text = text[:room]
            answering.cut = True
        answering.parts.append(text)
        answering.size += len(text)
        if text:
            self._emit(SideChatDelta(**self._stamp(), side_chat_id=self.id, text=text))
        if answering.cut:
            assert self._tasks is not None
            self._tasks.start_soon(self._interrupt, answering)

    async def _interrupt(self, answering: _Answering) -> None:
        """Stop the turn whose answer was cut; it ends as `interrupted`."""
        if self._server is None or self.thread_id is None or answering.turn_id is None:
            return
        params = wire.TurnInterruptParams(thread_id=self.thread_id, turn_id=answering.turn_id)
        try:
            await self._server.turn_interrupt(params)
        except (RpcError, ConnectionClosed):
            self._finish(answering)

    def _finish(self, answering: _Answering) -> None:
        """The answer is complete: the side chat takes questions again, then says so."""
        self._answering = None
        if self.state == "answering":
            self._set_state("idle")
        self.answers.append(SideAnswer(answering.question, "".join(answering.parts), answering.cut))
        event = SideChatAnswered(
            **self._stamp(),
            side_chat_id=self.id,
            question=answering.question,
            answer="".join(answering.parts),
            cut=answering.cut,
        )
        self._emit(event)
        answering.done.set()

    def _fail(self, why: str) -> None:
        if not self.is_open:
            return
        self.detail = f"{why}. The side chat is closed; open a new one with /side."
        self._set_state("failed")
        self._end_answer(self.detail)
        self._closing.set()

    def _end_answer(self, why: str) -> None:
        answering, self._answering = self._answering, None
        if answering is not None and not answering.done.is_set():
            answering.failure = why
            answering.done.set()

    def _quoted(self) -> str:
        question = self._answering.question if self._answering is not None else ""
        return repr(question[:40] + ("…" if len(question) > 40 else ""))

    def _set_state(self, state: SideChatState) -> None:
        self.state = state
        self._emit(SideChatUpdated(**self._stamp(), info=self.info()))

    def _stamp(self) -> Stamp:
        return self._emitter.stamp(self.conversation_id)

    def _emit(self, event: EngineEvent) -> None:
        self._emitter.emit(event)


async def _fork(server: AppServer, fork: wire.ThreadForkParams) -> wire.ThreadOpened:
    """Fork, and make sure what came back is a throwaway copy of the parent.

    Raises:
        CodexDeckError: codex refused, or the fork is not ephemeral, or is the parent itself.
    """
    try:
        opened = await server.thread_fork(fork)
    except RpcError as error:
        raise CodexDeckError(f"codex could not fork the conversation: {error}") from None
    thread = opened.thread
    if not thread.ephemeral or thread.id == fork.thread_id:
        raise CodexDeckError(
            "codex did not make a throwaway fork (ephemeral: "
            f"{thread.ephemeral}, thread {thread.id}); the side chat was not opened."
        )
    return opened
