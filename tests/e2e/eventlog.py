"""Collects an engine's events in the background and waits for the ones a test needs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

import anyio

from engine.events import EngineEvent, TurnCompleted
from engine.frontend import Backend
from engine.transport.tasks import task_group

E = TypeVar("E", bound=EngineEvent)
DEADLINE_SECONDS = 30


class EventLog:
    def __init__(self) -> None:
        self.events: list[EngineEvent] = []
        self._changed = anyio.Event()

    def add(self, event: EngineEvent) -> None:
        self.events.append(event)
        self._changed.set()
        self._changed = anyio.Event()

    def of(self, kind: type[E], conversation_id: str | None = None) -> list[E]:
        return [
            e
            for e in self.events
            if isinstance(e, kind)
            and (conversation_id is None or e.conversation_id == conversation_id)
        ]

    async def wait_for(
        self, kind: type[E], where: Callable[[E], bool] = lambda _: True, count: int = 1
    ) -> E:
        """The `count`-th event of `kind` that matches (waiting for it, with a deadline)."""
        with anyio.fail_after(DEADLINE_SECONDS):
            while True:
                found = [e for e in self.of(kind) if where(e)]
                if len(found) >= count:
                    return found[count - 1]
                await self._changed.wait()

    async def turn_completed(self, conversation_id: str, count: int = 1) -> TurnCompleted:
        return await self.wait_for(
            TurnCompleted, lambda e: e.conversation_id == conversation_id, count
        )


@asynccontextmanager
async def recording(engine: Backend) -> AsyncIterator[EventLog]:
    log = EventLog()
    events = engine.events()

    async def collect() -> None:
        async for event in events:
            log.add(event)

    async with task_group() as tasks:
        tasks.start_soon(collect)
        yield log
        tasks.cancel_scope.cancel()
