"""Several machines' codex at once (`[hosts]`): an engine for each host, the local one
first, seen by the front ends as one backend.

Each host's engine is opened in a task of its own, so a host that is slow to reach or down
keeps none of the others waiting; each reconnects with its own backoff (its connection's).
Their events come as one stream; a call on a conversation goes to the engine that holds it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import msgspec

from engine.commands import kinds
from engine.commands.parse import parsed
from engine.conversations.diffs import DiffOf, DiffView
from engine.conversations.interactions import Answer
from engine.conversations.session import SessionInfo
from engine.conversations.turns import SubmitMode
from engine.engine import SEARCH_HITS, Engine
from engine.errors import CodexDeckError
from engine.events import (
    ConversationInfo,
    EngineEvent,
    EngineStatus,
    HostJoined,
    InteractionInfo,
    Notice,
    SideChatInfo,
    StopOutcome,
)
from engine.hunks import Marks
from engine.protocol import LoginStarted, ModelInfo
from engine.records.outputs import KeptOutput
from engine.records.search import SearchHit
from engine.results import CommandResult, SubmitOutcome
from engine.transport.fanout import Fanout, Subscription

OpenEngine = Callable[[], AbstractAsyncContextManager[Engine]]
HOST_SEQ = 64
"""A general notice's number in the deck's stream is its number in its engine's times this,
plus its host's place: unique across hosts, in each host's order."""


class Host(msgspec.Struct, eq=False):
    """One machine's codex: how it is reached and, once it is, its engine."""

    name: str
    url: str
    """Where it is, as the settings say (`this machine` for the local one)."""
    open: OpenEngine
    engine: Engine | None = None
    status: EngineStatus | None = None
    """How it is, as last told."""
    opening: anyio.CancelScope = msgspec.field(default_factory=anyio.CancelScope)
    """Its opening, given up when the deck closes first (a host that does not answer would
    hold the closing for as long as its connection takes to fail)."""


class Deck:
    """The engines of every host, as one backend (`engine.frontend.Backend`). Build with
    `Deck.open`."""

    def __init__(self, hosts: list[Host]) -> None:
        self._hosts = hosts
        self._stream: Fanout[EngineEvent] = Fanout()
        self._closing = anyio.Event()
        self._seq = itertools.count(1)
        self.offline = False
        """The demo runs on one codex: a deck is never it."""
        self.needs_sign_in = False
        """The local codex has no account and needs one (the other hosts go on as they
        are); signing in goes through it (`sign_in_with_api_key`, …)."""

    @classmethod
    @asynccontextmanager
    async def open(cls, hosts: list[Host]) -> AsyncIterator[Deck]:
        """Open every host's engine and yield the deck once the first (the local codex) is
        open; each other one joins as it opens (`HostJoined`), or is told as failed with
        the reason (an `EngineStatus` of its host). On exit the others are closed together,
        then the first.

        Raises:
            CodexDeckError: the first host's engine could not be opened.
        """
        first, *others = hosts
        async with first.open() as engine, anyio.create_task_group() as tasks:
            deck = cls(hosts)
            # Asked before the others start: what they tell as they open must come after
            # the deck is yielded (a front end subscribes then).
            deck.needs_sign_in = await engine.signed_out()
            deck._joined(first, engine)
            tasks.start_soon(deck._follow, first, engine)
            for host in others:
                deck._told(host, "starting", f"reaching {host.url}")
                tasks.start_soon(deck._run, host)
            try:
                yield deck
            finally:
                deck._closing.set()
                for host in others:
                    if host.engine is None:
                        host.opening.cancel()
        deck._stream.close()

    async def _run(self, host: Host) -> None:
        """Hold `host`'s engine open until the deck closes; if it cannot be opened, say why."""
        try:
            # Cancelled only while its engine is not open (no step between its opening and
            # `_joined` lets the closing in).
            with host.opening:
                async with host.open() as engine:
                    self._joined(host, engine)
                    await self._follow(host, engine)
        except (CodexDeckError, OSError) as error:
            host.engine = None
            self._told(host, "failed", f"{host.url}: {error}")

    def _joined(self, host: Host, engine: Engine) -> None:
        """The host's engine is open: tell its state, what it said while it opened (of
        the first, `general_notices` tells the front end), and that its conversations are
        there."""
        host.engine = engine
        if host is not self._hosts[0]:
            for notice in engine.general_notices():
                self._tell(host, notice)
        status = engine.engine_status()
        if status is None:
            self._told(host, "online", f"{host.url}: codex is up")
        else:
            self._tell(host, status)
        self._tell(host, HostJoined(**self._stamp(host), host=host.name))
        self._stream.flush()

    async def _follow(self, host: Host, engine: Engine) -> None:
        """Put the engine's events into the deck's stream until the deck closes."""
        async with anyio.create_task_group() as forwarding:
            forwarding.start_soon(self._forward, host, engine.events())
            await self._closing.wait()
            forwarding.cancel_scope.cancel()

    async def _forward(self, host: Host, events: Subscription[EngineEvent]) -> None:
        with events:
            while True:
                try:
                    batch = await events.batches()
                except StopAsyncIteration:
                    return
                for event in batch:
                    self._tell(host, event)
                self._stream.flush()

    def _tell(self, host: Host, event: EngineEvent) -> None:
        if isinstance(event, EngineStatus):
            host.status = event
        self._stream.publish(self._as_told(host, event))

    def _stamp(self, host: Host) -> dict[str, Any]:
        """What an event the deck says of a host is numbered and timed with."""
        seq = next(self._seq) * HOST_SEQ + self._hosts.index(host)
        return {"seq": seq, "at": time.time(), "conversation_id": None}

    def _told(
        self, host: Host, status: Literal["starting", "online", "failed"], detail: str
    ) -> None:
        """Tell the host's state, said by the deck (before its engine is open, or when it
        could not be)."""
        event = EngineStatus(**self._stamp(host), status=status, detail=detail, host=host.name)
        self._tell(host, event)
        self._stream.flush()

    def _as_told(self, host: Host, event: EngineEvent) -> EngineEvent:
        """A notice that belongs to no conversation names its host (and is numbered apart
        from the other hosts' in the transcript it is shown in)."""
        if isinstance(event, Notice) and event.conversation_id is None:
            return msgspec.structs.replace(
                event,
                seq=event.seq * HOST_SEQ + self._hosts.index(host),
                text=f"{host.name}: {event.text}",
            )
        return event

    def _engines(self) -> Iterator[tuple[Host, Engine]]:
        for host in self._hosts:
            if host.engine is not None:
                yield host, host.engine

    def _of(self, conversation_id: str) -> Engine:
        """The engine that holds the conversation.

        Raises:
            KeyError: no host holds it.
        """
        for _, engine in self._engines():
            if engine.holds(conversation_id):
                return engine
        raise KeyError(f"there is no conversation {conversation_id!r}")

    def _host(self, name: str) -> Host | None:
        return next((host for host in self._hosts if host.name == name), None)

    @property
    def _local(self) -> Engine:
        engine = self._hosts[0].engine
        assert engine is not None, "the deck is yielded once it is open"
        return engine

    async def sign_in_with_api_key(self, api_key: str) -> CommandResult:
        """Sign the local codex in with an API key (see `Engine.sign_in_with_api_key`)."""
        return await self._local.sign_in_with_api_key(api_key)

    async def sign_in_with_device_code(self) -> LoginStarted:
        """Start a ChatGPT sign-in of the local codex (see `Engine.sign_in_with_device_code`).

        Raises:
            RpcError, ConnectionClosed: codex could not start it (its words).
        """
        return await self._local.sign_in_with_device_code()

    async def cancel_sign_in(self, login_id: str) -> None:
        await self._local.cancel_sign_in(login_id)

    def host_states(self) -> list[EngineStatus]:
        """Each host's state as last told, the local codex first."""
        return [host.status for host in self._hosts if host.status is not None]

    def events(self) -> Subscription[EngineEvent]:
        return self._stream.subscribe()

    def conversations(self) -> list[ConversationInfo]:
        return [info for _, engine in self._engines() for info in engine.conversations()]

    def pending_interactions(self, conversation_id: str | None = None) -> list[InteractionInfo]:
        if conversation_id is not None:
            return self._of(conversation_id).pending_interactions(conversation_id)
        return [p for _, engine in self._engines() for p in engine.pending_interactions()]

    async def new_conversation(
        self, title: str | None = None, cwd: Path | None = None
    ) -> ConversationInfo:
        """A conversation on the local codex (`execute`'s /new starts one on any host)."""
        return await self._local.new_conversation(title, cwd)

    async def submit(
        self, conversation_id: str, text: str, mode: SubmitMode = "auto"
    ) -> SubmitOutcome:
        return await self._of(conversation_id).submit(conversation_id, text, mode)

    async def stop(self, conversation_id: str) -> StopOutcome:
        return await self._of(conversation_id).stop(conversation_id)

    async def execute(self, conversation_id: str, line: str) -> CommandResult:
        """Run a line on the conversation's host; `/new @HOST` on that host, and an answer
        to a request on the host that asked it."""
        command = parsed(line)
        if isinstance(command, kinds.New) and command.host is not None:
            host = self._host(command.host)
            if host is None or host.engine is None:
                return CommandResult(False, self._no_host(command.host, host))
            created = await host.engine.new_conversation(command.title)
            return CommandResult(True, f"Started {created.title!r} on {host.name}.", created.id)
        if isinstance(command, kinds.Respond):
            asked = self._asked(command.interaction)
            if asked is not None:
                return await self._of(asked).execute(asked, line)
        return await self._of(conversation_id).execute(conversation_id, line)

    def _no_host(self, name: str, host: Host | None) -> str:
        if host is None:
            names = ", ".join(h.name for h in self._hosts)
            return f"No host is named {name!r} (the hosts: {names})."
        why = host.status.detail if host.status is not None else "not reached yet"
        return f"{name} cannot start a conversation now: {why}"

    def _asked(self, reference: str) -> str | None:
        """The conversation of the one request waiting anywhere whose id starts with
        `reference` (None: none, or several: the conversation's own host says so)."""
        found = [p for p in self.pending_interactions() if p.id.startswith(reference)]
        return found[0].conversation_id if len(found) == 1 else None

    async def find_files(self, conversation_id: str, query: str) -> None:
        await self._of(conversation_id).find_files(conversation_id, query)

    async def diff(self, conversation_id: str, of: DiffOf = "tree") -> DiffView:
        return await self._of(conversation_id).diff(conversation_id, of)

    async def rewind(self, conversation_id: str, before_turn_id: str) -> CommandResult:
        return await self._of(conversation_id).rewind(conversation_id, before_turn_id)

    async def respond(
        self, reference: str, answer: Answer, conversation_id: str | None = None
    ) -> CommandResult:
        asked = conversation_id or self._asked(reference)
        if asked is None:
            return CommandResult(
                False, f"No single request waiting has an id starting {reference!r}."
            )
        return await self._of(asked).respond(reference, answer, asked)

    async def accept_with_reverts(
        self, interaction_id: str, marks: Marks, why: str
    ) -> CommandResult:
        asked = self._asked(interaction_id)
        if asked is None:
            return CommandResult(
                False, f"No single request waiting has an id starting {interaction_id!r}."
            )
        return await self._of(asked).accept_with_reverts(interaction_id, marks, why)

    async def revert_hunks(
        self, conversation_id: str, item_id: str, marks: Marks, why: str
    ) -> CommandResult:
        return await self._of(conversation_id).revert_hunks(conversation_id, item_id, marks, why)

    def rename(self, conversation_id: str, title: str) -> ConversationInfo:
        return self._of(conversation_id).rename(conversation_id, title)

    async def archive(self, conversation_id: str) -> ConversationInfo:
        return await self._of(conversation_id).archive(conversation_id)

    async def history(self, conversation_id: str) -> list[EngineEvent]:
        return await self._of(conversation_id).history(conversation_id)

    async def earlier(self, conversation_id: str) -> list[EngineEvent]:
        return await self._of(conversation_id).earlier(conversation_id)

    def keeps_earlier(self, conversation_id: str) -> bool:
        return self._of(conversation_id).keeps_earlier(conversation_id)

    def let_go(self, conversation_id: str, through_turn: str) -> bool:
        return self._of(conversation_id).let_go(conversation_id, through_turn)

    async def models(
        self, include_hidden: bool = False, conversation_id: str | None = None
    ) -> list[ModelInfo]:
        """The models of the conversation's host (without one, the local codex's)."""
        engine = self._of(conversation_id) if conversation_id is not None else self._local
        return await engine.models(include_hidden)

    def full_trace(self, conversation_id: str) -> list[EngineEvent]:
        return self._of(conversation_id).full_trace(conversation_id)

    def general_notices(self) -> list[Notice]:
        told = [
            self._as_told(host, notice)
            for host, engine in self._engines()
            for notice in engine.general_notices()
        ]
        return sorted((n for n in told if isinstance(n, Notice)), key=lambda n: n.at)

    def now(self) -> float:
        return time.time()

    def engine_status(self) -> EngineStatus | None:
        """The local codex's state (each host's: `hosts`)."""
        return self._hosts[0].status

    def session_info(self, conversation_id: str) -> SessionInfo:
        return self._of(conversation_id).session_info(conversation_id)

    def trace(self, conversation_id: str, turn_id: str | None) -> list[EngineEvent]:
        return self._of(conversation_id).trace(conversation_id, turn_id)

    def redact(self, text: str) -> str:
        return self._local.redact(text)

    def command_output(self, conversation_id: str, item_id: str | None = None) -> KeptOutput:
        return self._of(conversation_id).command_output(conversation_id, item_id)

    async def export_trace(self, conversation_id: str, path: Path) -> int:
        return await self._of(conversation_id).export_trace(conversation_id, path)

    async def search(self, query: str, limit: int = SEARCH_HITS) -> list[SearchHit]:
        """Every host's hits, newest first."""
        hits = [
            msgspec.structs.replace(hit, host=host.name)
            for host, engine in self._engines()
            for hit in await engine.search(query, limit)
        ]
        return sorted(hits, key=lambda hit: hit.at, reverse=True)[:limit]

    def side_chats(self, conversation_id: str) -> list[SideChatInfo]:
        return self._of(conversation_id).side_chats(conversation_id)

    async def ask_aside(
        self,
        conversation_id: str,
        question: str,
        side_chat_id: str | None = None,
        new: bool = False,
    ) -> CommandResult:
        engine = self._of(conversation_id)
        return await engine.ask_aside(conversation_id, question, side_chat_id, new)

    async def close_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        return await self._of(conversation_id).close_side_chat(conversation_id, side_chat_id)

    async def promote_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        return await self._of(conversation_id).promote_side_chat(conversation_id, side_chat_id)

    def bring_home(
        self, conversation_id: str, side_chat_id: str | None = None, part: str | None = None
    ) -> CommandResult:
        return self._of(conversation_id).bring_home(conversation_id, side_chat_id, part)
