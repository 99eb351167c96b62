"""codex's connection through its life: how codex is reached (started here, an early start
taken up, a transport, or attached to a running app-server), what it sends followed, its going
away told, codex started (or reached) again with backoff, and the leaving at close."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Literal

import anyio
import msgspec

from engine.conversations.core import Core
from engine.conversations.restore import Restorer
from engine.conversations.stopping import stop_turn
from engine.conversations.turns import Turns
from engine.errors import CodexDeckError
from engine.events import EngineStatus
from engine.settings import Settings
from engine.side_chats.manager import SideChats
from engine.transport.appserver import (
    EXPERIMENTAL_API,
    AppServer,
    Transport,
    open_app_server,
    spawn_app_server,
    typed,
)
from engine.transport.binary import find_codex
from engine.transport.fanout import Subscription
from engine.transport.launch import Launch, launch_for
from engine.transport.process import Spawned
from engine.transport.rpc import Incoming

SHUTDOWN_SECONDS = 3.0
RESTART_FIRST_DELAY = 0.5
RESTART_MAX_DELAY = 10.0

Attach = Callable[[], Awaitable[Transport]]
"""Makes a new connection to a running app-server (`engine.transport.websocket.connect`, bound)."""
Reopen = Callable[[], AbstractAsyncContextManager[AppServer]]


@asynccontextmanager
async def attached(attach: Attach, max_line_bytes: int) -> AsyncIterator[AppServer]:
    """A running app-server, reached with `attach` and initialized."""
    transport = await attach()
    opened = open_app_server(
        transport, experimental_api=EXPERIMENTAL_API, max_line_bytes=max_line_bytes
    )
    async with opened as server:
        yield server


class Reach(msgspec.Struct, frozen=True):
    """How codex is reached: the first connection, and how to get another when it drops."""

    first: AbstractAsyncContextManager[AppServer]
    launch: Launch | None
    """How codex is started, when codex-deck starts it."""
    reopen: Reopen | None
    """None: over a transport given, nothing reaches codex again."""

    @property
    def again(self) -> str:
        return "restarting codex" if self.launch is not None else "reconnecting to codex"


async def reach(
    settings: Settings,
    cwd: Path,
    transport: Transport | None,
    attach: Attach | None,
    early: Spawned | None,
) -> Reach:
    """How to reach codex for `settings`: attach to a running one, or use `transport`, or
    start one (taking up `early` if it was started as these settings ask; closed otherwise).

    Raises:
        CodexNotFound: no codex binary is there.
    """
    launch: Launch | None = None
    reopen: Reopen | None = None
    first: AbstractAsyncContextManager[AppServer] | None = None
    line_bytes = settings.limits.line_bytes
    if attach is not None:
        reopen = partial(attached, attach, line_bytes)
    elif transport is None:
        launch = launch_for(settings, find_codex(settings.codex.binary).path, cwd)
        reopen = spawn = partial(
            spawn_app_server, launch, experimental_api=EXPERIMENTAL_API, max_line_bytes=line_bytes
        )
        if early is not None and early.launch == launch:
            first, early = spawn(spawned=early), None
    if early is not None:  # not taken up: started otherwise than these settings ask
        await anyio.to_thread.run_sync(early.close)
    if first is None and reopen is not None:
        first = reopen()
    elif first is None:
        assert transport is not None
        first = open_app_server(
            transport, experimental_api=EXPERIMENTAL_API, max_line_bytes=line_bytes
        )
    return Reach(first, launch, reopen)


class Connection:
    """Follows the codex in use (`core.link`) and what its going away does."""

    def __init__(self, core: Core, turns: Turns, restorer: Restorer, side_chats: SideChats) -> None:
        self._core = core
        self._turns = turns
        self._restorer = restorer
        self._side_chats = side_chats
        self._lost = anyio.Event()
        """Set when the app-server goes away unexpectedly."""
        self._restarts = 0
        """How often in a row codex is started again when it goes away (none: it is not)."""
        self.status: EngineStatus | None = None
        """How codex is, as last told (None: nothing told yet; it is online)."""

    def attach(self, server: AppServer) -> None:
        """Take `server` as codex: follow what it sends and answer what it asks."""
        self._core.link.reached = server
        received = server.rpc.subscribe()
        server.handle_requests(self._core.router.requests.answer)
        self._core.tasks.start_soon(self._route, server, received)

    def unreached(self, reason: str, what: str) -> None:
        """codex could not be reached at start (`reason`); it will be reached again (`what`
        says how): until then nothing goes to it, and a message waits for it."""
        link = self._core.link
        link.unreached, link.status = reason, "failed"
        link.back = anyio.Event()
        self._restorer.resumed.set()  # nothing to resume now: it is done once codex is back
        self._status("failed", reason)
        self._core.notices.say(
            None,
            "error",
            f"codex could not be {'reached' if link.shared else 'started'}: {reason}. The "
            "conversations are shown as codex-deck kept them; what you send waits until codex "
            f"is back ({what} meanwhile).",
        )
        self._lost.set()

    def keep_alive(self, reopen: Reopen, what: str) -> None:
        """From now on, start or reach codex again whenever it goes away (`what` says how)."""
        self._restarts = self._core.settings.limits.restarts
        self._core.tasks.start_soon(self._keep_alive, reopen, what)

    async def _route(self, server: AppServer, received: Subscription[Incoming]) -> None:
        """Apply everything the app-server sends, batch by batch, until it goes away."""
        router, emitter = self._core.router, self._core.emitter
        while True:
            try:
                batch = await received.batches()
            except StopAsyncIteration:
                break
            with emitter.batch():
                router.route(map(typed, batch))
        link = self._core.link
        if not link.closing and server is link.reached:
            self._gone(server.rpc.closed_reason or "the app-server went away")
            self._lost.set()

    def _gone(self, reason: str) -> None:
        link = self._core.link
        link.status = "failed"
        link.back = anyio.Event()
        if not self._restarts:
            link.back.set()  # nothing will start it again
        with self._core.emitter.batch():
            self._status("failed", reason)
            for pending in self._core.interactions.pending():
                self._core.router.requests.expire(pending, "the app-server went away", "codex-deck")
            self._turns.codex_lost()
            self._core.notices.say(None, "error", f"Lost the app-server: {reason}")

    async def _keep_alive(self, reopen: Reopen, what: str) -> None:
        """Start or reach codex again whenever it goes away: after 0.5 s, doubling to 10 s;
        give up after `limits.restarts` tries in a row fail, with what codex said."""
        attempts, link = self._restarts, self._core.link
        while True:
            await self._lost.wait()
            self._lost = anyio.Event()
            delay, failure = RESTART_FIRST_DELAY, ""
            for attempt in range(1, attempts + 1):
                self._status("starting", f"{what} in {delay:.1f} s (attempt {attempt})")
                await anyio.sleep(delay)
                try:
                    async with reopen() as server:
                        self.attach(server)
                        await self._restorer.resume_all()
                        link.status = "online"
                        link.back.set()
                        self._status("online", f"codex is back (attempt {attempt})")
                        await self._lost.wait()
                        break
                except CodexDeckError as error:
                    failure = str(error)
                delay = min(delay * 2, RESTART_MAX_DELAY)
            else:
                link.back.set()  # what waits for codex is refused now
                self._status(
                    "failed",
                    f"gave up {what} after {attempts} failed tries in a row; restart "
                    f"codex-deck. Last: {failure}",
                )
                return

    def _detached(self) -> None:
        """Leave what runs on the shared codex to it: each request waiting here is let go
        unanswered (codex asks the next client), and each running turn is said to run on."""
        for pending in self._core.interactions.pending():
            self._core.router.requests.let_go(pending, "codex-deck detached; codex keeps it")
        for conversation in self._core.conversations.all():
            if conversation.turn_id is not None:
                self._core.notices.say(
                    conversation, "info", "Detached: the turn runs on in the shared codex."
                )

    def _status(self, status: Literal["starting", "online", "failed"], detail: str) -> None:
        emitter = self._core.emitter
        self.status = EngineStatus(
            **emitter.stamp(None),
            status=status,
            detail=detail,
            coming_back=self._core.link.coming_back,
            host=self._core.link.host,
        )
        emitter.emit(self.status)

    async def shut_down(self) -> None:
        """Decline what waits for an answer, stop running turns (waiting a little for them to
        end, so the store knows they were interrupted). On a shared codex, only detach: its
        turns run on and what they ask waits there for the next client."""
        link = self._core.link
        link.closing = True
        link.back.set()  # a message waiting for codex to come back is refused
        link.status = "stopping"
        self._restorer.stop_resuming()
        if link.shared:
            self._detached()
        for pending in self._core.interactions.pending():
            self._core.router.requests.expire(pending, "codex-deck is closing", "codex-deck")
        await self._side_chats.close_all(None, "codex-deck is closing")
        with anyio.move_on_after(SHUTDOWN_SECONDS):
            if link.reached is not None:
                await link.reached.rpc.replies_sent()
            async with anyio.create_task_group() as stopping:
                for conversation in self._core.conversations.all():
                    if conversation.turn_id is not None and not link.shared:
                        stopping.start_soon(stop_turn, self._core, conversation)
        self._core.emitter.close()
