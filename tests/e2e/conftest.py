"""The real codex binary (from openai-codex-cli-bin) driven on the scripted model.

Each test gets its own CODEX_HOME, workspace and scripted model on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from engine.engine import Engine
from engine.protocol import (
    AgentMessageDelta,
    ApprovalPolicy,
    KnownServerRequest,
    SandboxMode,
    ServerNotification,
    TextInput,
    ThreadStartParams,
    Turn,
    TurnCompleted,
    TurnStartParams,
    WireModel,
    decline,
)
from engine.records.store import Store
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.appserver import AppServer, Received, spawn_app_server
from engine.transport.binary import find_codex
from engine.transport.launch import launch_for, thread_defaults
from engine.transport.offline import offline_settings
from engine.transport.rpc import RequestId
from tests.e2e.eventlog import EventLog, recording

TURN_DEADLINE_SECONDS = 30

Answer = Callable[[KnownServerRequest], WireModel]


@dataclass
class Codex:
    """One app-server on the scripted model, with what it asked recorded."""

    server: AppServer
    model: ScriptedModel
    settings: Settings
    workspace: Path
    asked: list[KnownServerRequest] = field(default_factory=list)
    answer: Answer = decline

    def __post_init__(self) -> None:
        self.server.handle_requests(self._handle)

    async def _handle(self, request_id: RequestId, params: KnownServerRequest) -> WireModel:
        self.asked.append(params)
        return self.answer(params)

    async def start_thread(
        self, approval_policy: ApprovalPolicy | None = None, sandbox: SandboxMode | None = None
    ) -> str:
        defaults = thread_defaults(self.settings, self.workspace)
        params = ThreadStartParams(**defaults.as_dict())
        params = params.replace(
            approval_policy=approval_policy or params.approval_policy,
            sandbox=sandbox or params.sandbox,
        )
        return (await self.server.thread_start(params)).thread.id

    async def start_held_turn(self, thread_id: str, notifications: AsyncIterator[Received]) -> str:
        """Start the slow scene; return its turn id once it streams and the model holds it."""
        started = await self.server.turn_start(
            TurnStartParams(thread_id=thread_id, input=[TextInput(text="take your time")])
        )
        with anyio.fail_after(TURN_DEADLINE_SECONDS):
            await first(notifications, AgentMessageDelta)
            await self.model.wait_until_holding()
        return started.turn.id

    async def run_turn(self, thread_id: str, text: str) -> TurnRecord:
        """Start a turn and collect everything until it completes."""
        async with self.server.notifications() as notifications:
            started = await self.server.turn_start(
                TurnStartParams(thread_id=thread_id, input=[TextInput(text=text)])
            )
            record = TurnRecord(started.turn.id)
            with anyio.fail_after(TURN_DEADLINE_SECONDS):
                async for notification in notifications:
                    if record.add(notification):
                        return record
        raise AssertionError("the app-server closed before the turn completed")


@dataclass
class TurnRecord:
    """The notifications of one turn, in order, and how it ended."""

    turn_id: str
    notifications: list[Received] = field(default_factory=list)
    turn: Turn | None = None

    def add(self, notification: Received) -> bool:
        """Keep a notification; True once the turn has completed."""
        self.notifications.append(notification)
        if isinstance(notification, TurnCompleted) and notification.turn.id == self.turn_id:
            self.turn = notification.turn
            return True
        return False

    def of(self, kind: type[ServerNotification]) -> list[ServerNotification]:
        return [n for n in self.notifications if isinstance(n, kind)]

    @property
    def status(self) -> str:
        assert self.turn is not None
        return self.turn.status


@asynccontextmanager
async def open_codex(model: ScriptedModel, home: Path, workspace: Path) -> AsyncIterator[Codex]:
    settings = offline_settings(Settings(), model, home)
    launch = launch_for(settings, find_codex(None).path, workspace)
    async with spawn_app_server(launch) as server:
        yield Codex(server, model, settings, workspace)


@pytest.fixture
async def codex(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> AsyncIterator[Codex]:
    async with open_codex(scripted_model, codex_home, workspace) as running:
        yield running


async def first(
    notifications: AsyncIterator[Received],
    kind: type[ServerNotification],
    seen: list[Received] | None = None,
) -> ServerNotification:
    """The next notification of `kind` (keeping everything read on the way in `seen`)."""
    async for notification in notifications:
        if seen is not None:
            seen.append(notification)
        if isinstance(notification, kind):
            return notification
    raise AssertionError(f"the app-server closed before a {kind.__name__} arrived")


@asynccontextmanager
async def open_engine(
    model: ScriptedModel,
    home: Path,
    workspace: Path,
    base: Settings | None = None,
    store: Store | None = None,
) -> AsyncIterator[tuple[Engine, EventLog]]:
    settings = offline_settings(base or Settings(), model, home)
    engine_open = Engine.open(settings, cwd=workspace, store=store)
    async with engine_open as engine, recording(engine) as log:
        await engine.restored()
        yield engine, log


@pytest.fixture
async def deck(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> AsyncIterator[tuple[Engine, EventLog]]:
    """An engine on the scripted model, and the log of its events."""
    async with open_engine(scripted_model, codex_home, workspace) as running:
        yield running
