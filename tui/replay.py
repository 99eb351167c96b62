"""A read-only backend that plays recorded engine events to the UI (no engine, no account)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from engine.engine import CommandResult, SubmitMode, SubmitOutcome
from engine.events import (
    ConversationInfo,
    ConversationUpdated,
    EngineEvent,
    InteractionInfo,
    InteractionRequested,
    InteractionResolved,
    Notice,
    SideChatInfo,
    SideChatUpdated,
    StopOutcome,
    TurnStarted,
)
from engine.fanout import Fanout, Subscription
from engine.interactions import Answer
from engine.protocol import ModelInfo
from engine.recording import event_from_json
from engine.session import SessionInfo
from engine.trace import Redactor, jsonl
from tui.backend import Backend, OpenBackend

READ_ONLY = "This is a replay: it shows what happened and sends nothing."


def read_recording(path: Path) -> list[EngineEvent]:
    """The events of a JSONL recording (one `event_to_json` object per line)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [event_from_json(json.loads(line)) for line in lines if line.strip()]


class ReplayBackend:
    """Plays `events` to the first subscriber; answers everything else read-only."""

    offline = True

    def __init__(self, events: Sequence[EngineEvent]) -> None:
        self._events = list(events)
        self._fanout: Fanout[EngineEvent] = Fanout()
        self._infos: dict[str, ConversationInfo] = {}
        for event in self._events:
            if isinstance(event, ConversationUpdated):
                self._infos[event.info.id] = event.info

    def events(self) -> Subscription[EngineEvent]:
        subscription = self._fanout.subscribe()
        for event in self._events:
            self._fanout.publish(event)
        self._fanout.close()
        return subscription

    def conversations(self) -> list[ConversationInfo]:
        return list(self._infos.values())

    def pending_interactions(self, conversation_id: str | None = None) -> list[InteractionInfo]:
        resolved = {e.interaction_id for e in self._events if isinstance(e, InteractionResolved)}
        return [
            e.interaction
            for e in self._events
            if isinstance(e, InteractionRequested)
            and e.interaction.id not in resolved
            and conversation_id in (None, e.conversation_id)
        ]

    async def new_conversation(
        self, title: str | None = None, cwd: Path | None = None
    ) -> ConversationInfo:
        return next(iter(self._infos.values()))

    async def submit(
        self, conversation_id: str, text: str, mode: SubmitMode = "auto"
    ) -> SubmitOutcome:
        return SubmitOutcome(False, None, READ_ONLY)

    async def stop(self, conversation_id: str) -> StopOutcome:
        return "nothing_to_stop"

    async def execute(self, conversation_id: str, line: str) -> CommandResult:
        return CommandResult(False, READ_ONLY)

    async def respond(
        self, reference: str, answer: Answer, conversation_id: str | None = None
    ) -> CommandResult:
        return CommandResult(False, READ_ONLY)

    def rename(self, conversation_id: str, title: str) -> ConversationInfo:
        return self._infos[conversation_id]

    async def archive(self, conversation_id: str) -> ConversationInfo:
        return self._infos[conversation_id]

    async def models(self, include_hidden: bool = False) -> list[ModelInfo]:
        """A replay has no codex to ask."""
        return []

    async def history(self, conversation_id: str) -> list[EngineEvent]:
        """A replay shows its recording from the start, so there is nothing earlier."""
        return []

    def session_info(self, conversation_id: str) -> SessionInfo:
        info = self._infos[conversation_id]
        return SessionInfo(
            conversation_id=info.id,
            title=info.title,
            state=info.state,
            generation=info.generation,
            thread_id=info.thread_id,
            model="replay",
            provider="recording",
            cwd=info.cwd,
            sandbox="read-only",
            approval_policy="never",
            reasoning_effort=None,
            total_tokens=None,
            context_window=None,
            context_left=None,
            plan_mode=info.plan_mode,
            grants=info.grants,
        )

    def general_notices(self) -> list[Notice]:
        """A replay sends every event through its stream; nothing came before it."""
        return []

    def full_trace(self, conversation_id: str) -> list[EngineEvent]:
        """A replay sends every event through its stream; nothing came before it."""
        return []

    def trace(self, conversation_id: str, turn_id: str | None) -> list[EngineEvent]:
        current: str | None = None
        found = []
        for event in self._events:
            if isinstance(event, TurnStarted):
                current = event.turn_id
            if event.conversation_id == conversation_id and current == turn_id:
                found.append(event)
        return found

    def side_chats(self, conversation_id: str) -> list[SideChatInfo]:
        latest: dict[str, SideChatInfo] = {}
        for event in self._events:
            if isinstance(event, SideChatUpdated) and event.conversation_id == conversation_id:
                latest[event.info.id] = event.info
        return [info for info in latest.values() if info.state in ("opening", "idle", "answering")]

    async def ask_aside(
        self,
        conversation_id: str,
        question: str,
        side_chat_id: str | None = None,
        new: bool = False,
    ) -> CommandResult:
        return CommandResult(False, READ_ONLY)

    async def close_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        return CommandResult(False, READ_ONLY)

    async def promote_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        return CommandResult(False, READ_ONLY)

    async def export_trace(self, conversation_id: str, path: Path) -> int:
        chosen = [e for e in self._events if e.conversation_id == conversation_id]
        await anyio.Path(path).write_text(jsonl(chosen, Redactor(())), encoding="utf-8")
        return len(chosen)


def replay_backend(events: Sequence[EngineEvent]) -> OpenBackend:
    @asynccontextmanager
    async def open_replay() -> AsyncIterator[Backend]:
        yield ReplayBackend(events)

    return open_replay
