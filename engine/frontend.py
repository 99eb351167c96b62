"""What a front end drives: the engine (or anything with its public surface, such as a
replay), and how to open it on the user's codex or on the demo."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Protocol

import anyio

from engine.conversations.diffs import DiffOf, DiffView
from engine.conversations.interactions import Answer
from engine.conversations.session import SessionInfo
from engine.conversations.turns import SubmitMode
from engine.deck import Deck, Host
from engine.engine import SEARCH_HITS, Attach, Engine
from engine.events import (
    ConversationInfo,
    EngineEvent,
    EngineStatus,
    InteractionInfo,
    Notice,
    SideChatInfo,
    StopOutcome,
)
from engine.hunks import Marks
from engine.protocol import ModelInfo
from engine.records.outputs import KeptOutput
from engine.records.search import SearchHit
from engine.records.store import Store, default_path
from engine.results import CommandResult, SubmitOutcome
from engine.settings import LOCAL_HOST, HostSettings, Settings
from engine.side_chats.private import SshCodex
from engine.transport.fanout import Subscription
from engine.transport.launch import codex_overrides
from engine.transport.offline import DemoPlace
from engine.transport.process import Spawned


class Backend(Protocol):
    """The part of `engine.Engine` the UI uses."""

    offline: bool
    """True on the offline scripted model (the demo)."""
    needs_sign_in: bool
    """The user's codex (of a deck: the local one) has no account and needs one; the app
    offers to sign it in."""

    def events(self) -> Subscription[EngineEvent]: ...

    def conversations(self) -> list[ConversationInfo]: ...

    def pending_interactions(self, conversation_id: str | None = None) -> list[InteractionInfo]: ...

    async def new_conversation(
        self, title: str | None = None, cwd: Path | None = None
    ) -> ConversationInfo: ...

    async def submit(
        self, conversation_id: str, text: str, mode: SubmitMode = "auto"
    ) -> SubmitOutcome: ...

    async def stop(self, conversation_id: str) -> StopOutcome: ...

    async def execute(self, conversation_id: str, line: str) -> CommandResult: ...

    async def find_files(self, conversation_id: str, query: str) -> None: ...

    async def diff(self, conversation_id: str, of: DiffOf = "tree") -> DiffView: ...

    async def rewind(self, conversation_id: str, before_turn_id: str) -> CommandResult: ...

    async def respond(
        self, reference: str, answer: Answer, conversation_id: str | None = None
    ) -> CommandResult: ...

    def rename(self, conversation_id: str, title: str) -> ConversationInfo: ...

    async def archive(self, conversation_id: str) -> ConversationInfo: ...

    async def history(self, conversation_id: str) -> list[EngineEvent]: ...

    async def earlier(self, conversation_id: str) -> list[EngineEvent]: ...

    def keeps_earlier(self, conversation_id: str) -> bool: ...

    def let_go(self, conversation_id: str, through_turn: str) -> bool: ...

    async def models(
        self, include_hidden: bool = False, conversation_id: str | None = None
    ) -> list[ModelInfo]:
        """The models the codex of `conversation_id` offers (any conversation's: the one
        codex)."""
        ...

    def full_trace(self, conversation_id: str) -> list[EngineEvent]: ...

    def general_notices(self) -> list[Notice]: ...

    def now(self) -> float:
        """The time a running turn's clock is shown at (unix seconds): now, or a replay's
        point in its recording."""
        ...

    def engine_status(self) -> EngineStatus | None:
        """How codex is, as last told (None: nothing told; it is online)."""
        ...

    def host_states(self) -> list[EngineStatus]:
        """Each host's state as last told, with several (`[hosts]`); none with one codex."""
        ...

    def session_info(self, conversation_id: str) -> SessionInfo: ...

    def trace(self, conversation_id: str, turn_id: str | None) -> list[EngineEvent]: ...

    def redact(self, text: str) -> str: ...

    def command_output(self, conversation_id: str, item_id: str | None = None) -> KeptOutput: ...

    async def export_trace(self, conversation_id: str, path: Path) -> int: ...

    async def search(self, query: str, limit: int = SEARCH_HITS) -> list[SearchHit]: ...

    def side_chats(self, conversation_id: str) -> list[SideChatInfo]: ...

    async def ask_aside(
        self,
        conversation_id: str,
        question: str,
        side_chat_id: str | None = None,
        new: bool = False,
    ) -> CommandResult: ...

    async def close_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult: ...

    async def promote_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult: ...

    def bring_home(
        self, conversation_id: str, side_chat_id: str | None = None, part: str | None = None
    ) -> CommandResult: ...

    async def accept_with_reverts(
        self, interaction_id: str, marks: Marks, why: str
    ) -> CommandResult: ...

    async def revert_hunks(
        self, conversation_id: str, item_id: str, marks: Marks, why: str
    ) -> CommandResult: ...


OpenBackend = Callable[[], AbstractAsyncContextManager[Backend]]


def live_backend(
    settings: Settings,
    cwd: Path | None = None,
    attach: Attach | None = None,
    early: Spawned | None = None,
    stored: bool = True,
) -> OpenBackend:
    """The engine on the settings' codex (the user's own account and files), with the store
    that brings back its conversations.

    When codex needs an account and none is signed in, the demo backend is opened instead
    (unless codex-deck was asked to `attach` to a running codex: then that codex is used as
    it is). `early` is codex started before the engine was imported, for the first opening.
    Not `stored`: without the store (nothing is brought back, nothing kept), when it cannot
    be used and the user chose to go on without it.
    """

    @asynccontextmanager
    async def open_live() -> AsyncIterator[Backend]:
        nonlocal early
        started = early
        early = None  # for the first opening only
        path = settings.store.path or default_path()
        try:
            opening = partial(Store.open, path.expanduser())
            store = await anyio.to_thread.run_sync(opening) if stored else None
        except BaseException:
            if started is not None:
                started.close()
            raise
        served = False
        try:
            opened = Engine.open(settings, cwd=cwd, store=store, attach=attach, early=started)
            async with opened as engine:
                # Not online: it cannot be asked; the user's codex, as it comes.
                engine.needs_sign_in = await engine.signed_out()
                if attach is not None or not engine.needs_sign_in:
                    served = True
                    yield engine
        finally:
            if store is not None:
                store.close()
        if served:
            # Also when the engine's closing took in what was thrown at the yield (a
            # cancellation, after a reconnect): a context manager yields once.
            return
        async with demo_backend(settings)() as demo:
            yield demo

    return open_live


def deck_backend(
    settings: Settings,
    cwd: Path | None = None,
    early: Spawned | None = None,
    stored: bool = True,
) -> OpenBackend:
    """The local codex and every host of `[hosts]`, as one backend (`engine.deck`): each
    host's conversations kept in a store of its own beside the local one's (not `stored`:
    none). `early` is the local codex started ahead, for the first opening."""

    @asynccontextmanager
    async def open_deck() -> AsyncIterator[Backend]:
        nonlocal early
        started, early = early, None
        path = (settings.store.path or default_path()).expanduser()
        local = partial(_host_engine, settings, cwd, None, path if stored else None, started)
        hosts = [Host(LOCAL_HOST, "this machine", local)]
        for name, host in settings.hosts.items():
            kept = path.with_name(f"{path.stem}-{name}{path.suffix}") if stored else None
            opened = partial(_host_engine, settings, cwd, (name, host), kept)
            hosts.append(Host(name, host.url, opened))
        async with Deck.open(hosts) as deck:
            yield deck

    return open_deck


@asynccontextmanager
async def _host_engine(
    settings: Settings,
    cwd: Path | None,
    host: tuple[str, HostSettings] | None,
    path: Path | None,
    early: Spawned | None = None,
) -> AsyncIterator[Engine]:
    """The engine on one host's codex (None: the local one, perhaps started `early`), its
    conversations kept at `path` (None: not kept)."""
    try:
        store = await anyio.to_thread.run_sync(Store.open, path) if path is not None else None
    except BaseException:
        if early is not None:
            early.close()
        raise
    try:
        if host is None:
            opened = Engine.open(settings, cwd=cwd, store=store, early=early, host=LOCAL_HOST)
            async with opened as engine:
                yield engine
            return
        name, where = host
        overrides = codex_overrides(settings)
        attach = host_attach(where, overrides)
        there = Path(where.cwd) if where.cwd is not None else cwd
        side = None if where.listening else SshCodex(where, overrides)
        opened = Engine.open(
            settings,
            cwd=there,
            store=store,
            attach=attach,
            shared=where.listening,
            host=name,
            side_codex=side,
        )
        async with opened as engine:
            yield engine
    finally:
        if store is not None:
            store.close()


def host_attach(host: HostSettings, overrides: tuple[str, ...]) -> Attach:
    """How to reach a host's codex each time: over ssh (started there, with `overrides`),
    or its listener."""
    if not host.listening:
        from engine.transport.ssh import over_ssh

        return partial(over_ssh, host, overrides)
    from engine.transport.websocket import connect

    token = host.token_file.expanduser() if host.token_file is not None else None
    return partial(connect, host.url, token)


def demo_backend(
    settings: Settings, place: DemoPlace | None = None, early: Spawned | None = None
) -> OpenBackend:
    """The engine on the offline scripted model, in a throw-away CODEX_HOME and workspace
    (and no store: its threads go with the CODEX_HOME).

    `place` and `early` are a head start made before the engine was imported (used by the
    first opening only): where to run, and codex already started there.
    """

    @asynccontextmanager
    async def open_demo() -> AsyncIterator[Backend]:
        nonlocal place, early
        where = place if place is not None else await anyio.to_thread.run_sync(DemoPlace.make)
        started, place, early = early, None, None  # the head start: for the first opening only
        try:
            offline = where.settings(settings)
            async with Engine.open(offline, cwd=where.workspace, early=started) as engine:
                yield engine
        finally:
            await anyio.to_thread.run_sync(where.close)

    return open_demo
