"""A read-only backend that plays recorded engine events to the UI (no engine, no account).

Events are played with the time that passed between them when they were recorded (divided by
the speed, and no pause longer than `MAX_PAUSE`), or all at once at infinite speed. A replay
can be paused and stepped an item at a time. What it answers (its conversations, requests,
side chats, a turn's trace, its clock) is the recording's at the point played.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from engine.conversations.diffs import DiffOf, DiffUnavailable, DiffView
from engine.conversations.interactions import Answer
from engine.conversations.session import SessionInfo
from engine.conversations.turns import SubmitMode
from engine.engine import SEARCH_HITS
from engine.events import (
    ConversationInfo,
    ConversationUpdated,
    EngineEvent,
    EngineStatus,
    InteractionInfo,
    InteractionRequested,
    InteractionResolved,
    ItemDelta,
    Notice,
    SideChatInfo,
    SideChatUpdated,
    StopOutcome,
    TurnStarted,
)
from engine.frontend import Backend, OpenBackend
from engine.hunks import Marks
from engine.protocol import ModelInfo
from engine.records.outputs import KeptOutput
from engine.records.search import SearchHit, search_events
from engine.records.trace import Redactor, jsonl
from engine.results import CommandResult, SubmitOutcome
from engine.transport.fanout import Fanout, Subscription

READ_ONLY = "This is a replay: it shows what happened and sends nothing."
MAX_PAUSE = 2.0
"""Seconds: a longer pause in the recording (the user reading, say) is shortened to this."""
FRAME = 1 / 60
"""Events due within one frame of each other are played together."""


class ReplayBackend:
    """Plays `events` to its subscribers (from the first subscription on) at `speed`;
    answers everything else read-only."""

    offline = True
    needs_sign_in = False

    def __init__(
        self, events: Sequence[EngineEvent], speed: float = math.inf, paused: bool = False
    ) -> None:
        self._events = list(events)
        self.speed = speed
        self.played = 0
        """How many of the events have been played."""
        self._fanout: Fanout[EngineEvent] = Fanout()
        self._subscribed = anyio.Event()
        self._playing = anyio.Event()
        self._steps = 0
        if not paused:
            self._playing.set()
        self._first: dict[str, ConversationInfo] = {}
        """Each conversation as it was first recorded."""
        for event in self._events:
            if isinstance(event, ConversationUpdated):
                self._first.setdefault(event.info.id, event.info)
        self._infos: dict[str, ConversationInfo] = {}
        """Each conversation as it is at the point played."""
        self._played_at = time.monotonic()
        """When the latest events were played."""

    @property
    def total(self) -> int:
        return len(self._events)

    @property
    def paused(self) -> bool:
        return not self._playing.is_set()

    def events(self) -> Subscription[EngineEvent]:
        subscription = self._fanout.subscribe()
        self._subscribed.set()
        return subscription

    def pause(self) -> None:
        self._playing = anyio.Event()

    def resume(self) -> None:
        self._played_at = time.monotonic()  # the clock goes on from the latest event played
        self._playing.set()

    def step(self) -> None:
        """Play the next item (an event, with the deltas that follow it) and stay paused."""
        self._steps += 1
        self._playing.set()

    async def play(self) -> None:
        """Play every event, then end the stream."""
        await self._subscribed.wait()
        events = self._events
        while self.played < len(events):
            await self._playing.wait()
            if self._steps:
                self._steps -= 1
                self.pause()
                self._publish(self._step_end())
                continue
            if math.isinf(self.speed):
                self._publish(len(events))
                continue
            await anyio.sleep(self.pause_before(self.played))
            end = self.played + 1
            while end < len(events) and self.pause_before(end) < FRAME:
                end += 1
            self._publish(end)
        self._fanout.close()

    def pause_before(self, index: int) -> float:
        """Seconds between the event before `index` and it."""
        if index == 0:
            return 0.0
        gap = self._events[index].at - self._events[index - 1].at
        return min(max(gap, 0.0) / self.speed, MAX_PAUSE)

    def _step_end(self) -> int:
        end = self.played + 1
        while end < len(self._events) and isinstance(self._events[end], ItemDelta):
            end += 1
        return end

    def _publish(self, end: int) -> None:
        for event in self._events[self.played : end]:
            if isinstance(event, ConversationUpdated):
                self._infos[event.info.id] = event.info
            self._fanout.publish(event)
        self.played = end
        self._played_at = time.monotonic()
        self._fanout.flush()

    def now(self) -> float:
        """The recording's time at the point played: the latest event played, and, while it
        plays on, the time since (at its speed), up to the next event's."""
        events, played = self._events, self.played
        if not events:
            return time.time()
        if played == 0:
            return events[0].at
        at = events[played - 1].at
        if self.paused or played == len(events) or math.isinf(self.speed):
            return at
        since = (time.monotonic() - self._played_at) * self.speed
        return min(at + since, max(events[played].at, at))

    def _played(self) -> list[EngineEvent]:
        return self._events[: self.played]

    def _info(self, conversation_id: str) -> ConversationInfo:
        """The conversation as at the point played (as first recorded, before it is)."""
        return self._infos.get(conversation_id) or self._first[conversation_id]

    def conversations(self) -> list[ConversationInfo]:
        """The conversations played so far (before any is, the first recorded: there is
        always one to show)."""
        if self._infos:
            return list(self._infos.values())
        return list(self._first.values())[:1]

    def pending_interactions(self, conversation_id: str | None = None) -> list[InteractionInfo]:
        played = self._played()
        resolved = {e.interaction_id for e in played if isinstance(e, InteractionResolved)}
        return [
            e.interaction
            for e in played
            if isinstance(e, InteractionRequested)
            and e.interaction.id not in resolved
            and conversation_id in (None, e.conversation_id)
        ]

    async def new_conversation(
        self, title: str | None = None, cwd: Path | None = None
    ) -> ConversationInfo:
        return self.conversations()[0]

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
        return self._info(conversation_id)

    async def archive(self, conversation_id: str) -> ConversationInfo:
        return self._info(conversation_id)

    async def rewind(self, conversation_id: str, before_turn_id: str) -> CommandResult:
        """A replay plays what was recorded; it cannot go back and take another path."""
        return CommandResult(False, "A replay cannot go back to an earlier message.")

    async def diff(self, conversation_id: str, of: DiffOf = "tree") -> DiffView:
        """A replay has no working tree, and shows each turn's changes in its transcript."""
        raise DiffUnavailable("A replay has no working tree to compare.")

    async def find_files(self, conversation_id: str, query: str) -> None:
        """A replay has no working directory to search: nothing is found."""

    async def models(
        self, include_hidden: bool = False, conversation_id: str | None = None
    ) -> list[ModelInfo]:
        """A replay has no codex to ask."""
        return []

    async def history(self, conversation_id: str) -> list[EngineEvent]:
        """A replay shows its recording from the start, so there is nothing earlier."""
        return []

    async def earlier(self, conversation_id: str) -> list[EngineEvent]:
        return []

    def keeps_earlier(self, conversation_id: str) -> bool:
        return False

    def let_go(self, conversation_id: str, through_turn: str) -> bool:
        """A replay gives nothing again: its transcript keeps all it was shown."""
        return False

    def session_info(self, conversation_id: str) -> SessionInfo:
        info = self._info(conversation_id)
        return SessionInfo(
            conversation_id=info.id,
            title=info.title,
            state=info.state,
            generation=info.generation,
            thread_id=info.thread_id,
            model="",  # a recording does not say how its session was set up
            provider="recording",
            cwd=info.cwd,
            sandbox="",
            approval_policy="",
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

    def engine_status(self) -> EngineStatus | None:
        """A replay reaches no codex."""
        return None

    def host_states(self) -> list[EngineStatus]:
        return []

    def full_trace(self, conversation_id: str) -> list[EngineEvent]:
        """A replay sends every event through its stream; nothing came before it."""
        return []

    def redact(self, text: str) -> str:
        return text  # what a recording holds was redacted when it was recorded

    def command_output(self, conversation_id: str, item_id: str | None = None) -> KeptOutput:
        return KeptOutput(None, problem="a recording keeps only what the screen kept")

    def trace(self, conversation_id: str, turn_id: str | None) -> list[EngineEvent]:
        current: str | None = None
        found = []
        for event in self._played():
            if isinstance(event, TurnStarted):
                current = event.turn_id
            if event.conversation_id == conversation_id and current == turn_id:
                found.append(event)
        return found

    def side_chats(self, conversation_id: str) -> list[SideChatInfo]:
        latest: dict[str, SideChatInfo] = {}
        for event in self._played():
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

    def bring_home(
        self, conversation_id: str, side_chat_id: str | None = None, part: str | None = None
    ) -> CommandResult:
        return CommandResult(False, READ_ONLY)

    async def accept_with_reverts(
        self, interaction_id: str, marks: Marks, why: str
    ) -> CommandResult:
        return CommandResult(False, READ_ONLY)

    async def revert_hunks(
        self, conversation_id: str, item_id: str, marks: Marks, why: str
    ) -> CommandResult:
        return CommandResult(False, READ_ONLY)

    async def search(self, query: str, limit: int = SEARCH_HITS) -> list[SearchHit]:
        """Search what has been played so far."""
        played = self._played()
        hits = [
            hit
            for info in self._infos.values()
            for hit in search_events(
                [e for e in played if e.conversation_id == info.id],
                query.strip(),
                info.title,
                limit,
            )
        ]
        return sorted(hits, key=lambda hit: hit.at, reverse=True)[:limit]

    async def export_trace(self, conversation_id: str, path: Path) -> int:
        chosen = [e for e in self._events if e.conversation_id == conversation_id]
        await anyio.Path(path).write_text(jsonl(chosen, Redactor(())), encoding="utf-8")
        return len(chosen)


def replay_backend(
    events: Sequence[EngineEvent], speed: float = math.inf, paused: bool = False
) -> OpenBackend:
    return playing(ReplayBackend(events, speed, paused))


def playing(backend: ReplayBackend) -> OpenBackend:
    """Opens `backend`, playing its events while it is open."""

    @asynccontextmanager
    async def open_replay() -> AsyncIterator[Backend]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(backend.play)
            yield backend
            tasks.cancel_scope.cancel()

    return open_replay
