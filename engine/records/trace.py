"""Every event of a conversation, by turn, in order; bounded per turn; exported as JSONL.

A turn keeps at most `limit` events: the first half and the latest half. Reading it back
puts one `TraceGap` where events were dropped, saying how many. Once the turn has ended, the
deltas kept of each part of an item are one delta (where the first was) holding their text and
their number: a long conversation keeps what its answers said, not each piece of their stream;
of an answer whose completed item is kept too (holding the whole text), only the start.
"""

from __future__ import annotations

import json
import os
import re
from collections import deque
from collections.abc import Iterable

import msgspec

from engine.events import EngineEvent, ItemCompleted, ItemDelta, Stamp, TraceGap, TurnCompleted
from engine.protocol import AgentMessageItem
from engine.records.recording import event_to_json
from engine.records.trace_spool import Spooled, TraceSpool
from engine.settings import Settings

REDACTED = "[redacted]"
KEPT_TURNS = 20
"""Of a conversation, the latest ended turns its trace keeps in memory (given a spool)."""
ANSWER_START_CHARS = 200
"""Of the joined deltas of an answer that completed, the characters the trace keeps."""
_KEY_SHAPES = re.compile(r"\b(sk-[A-Za-z0-9_-]{16,}|sk-proj-[A-Za-z0-9_-]{16,})")


class TurnTrace:
    """The events of one turn (or of the time between turns)."""

    def __init__(self, limit: int) -> None:
        self._head_size = limit // 2
        self._head: list[EngineEvent] = []
        self._tail: deque[EngineEvent] = deque(maxlen=limit - self._head_size)
        self.dropped = 0
        self.ended = False

    def add(self, event: EngineEvent) -> None:
        if len(self._head) < self._head_size:
            self._head.append(event)
        else:
            if len(self._tail) == self._tail.maxlen:
                self.dropped += 1
            self._tail.append(event)
        if isinstance(event, TurnCompleted):
            self.ended = True
            answered = _answered([*self._head, *self._tail])
            self._head = _joined(self._head, answered)
            self._tail = deque(_joined(list(self._tail), answered), maxlen=self._tail.maxlen)

    def events(self) -> list[EngineEvent]:
        if not self.dropped:
            return [*self._head, *self._tail]
        first_kept = self._tail[0]
        gap = TraceGap(
            **Stamp(
                seq=first_kept.seq, at=first_kept.at, conversation_id=first_kept.conversation_id
            ),
            dropped=self.dropped,
        )
        return [*self._head, gap, *self._tail]


def _answered(events: list[EngineEvent]) -> set[str]:
    """The answers among `events` that completed with their text."""
    return {
        event.item.id
        for event in events
        if isinstance(event, ItemCompleted)
        and isinstance(event.item, AgentMessageItem)
        and event.item.text
    }


def _joined(events: list[EngineEvent], answered: set[str]) -> list[EngineEvent]:
    """`events` with the deltas of each part of an item joined into the first of them (of
    an answer in `answered`, only their start)."""
    runs: dict[tuple[str, str, int], list[ItemDelta]] = {}
    for event in events:
        if isinstance(event, ItemDelta):
            runs.setdefault((event.item_id, event.kind, event.index), []).append(event)
    joined: list[EngineEvent] = []
    for event in events:
        if not isinstance(event, ItemDelta):
            joined.append(event)
            continue
        run = runs[(event.item_id, event.kind, event.index)]
        if event is run[0]:
            text = "".join(delta.text for delta in run)
            cut = sum(d.cut for d in run)
            if event.kind == "agent_message" and event.item_id in answered:
                cut += max(len(text) - ANSWER_START_CHARS, 0)
                text = text[:ANSWER_START_CHARS]
            count = sum(d.joined for d in run)
            joined.append(msgspec.structs.replace(event, text=text, joined=count, cut=cut))
    return joined


class ConversationTrace:
    """A conversation's turns in order; the key None holds what happened between turns.

    With a spool, only the latest `kept_turns` turns that ended stay in memory: older ones
    are written to the spool as each turn ends, and read back from it when asked for.
    """

    def __init__(
        self,
        limit: int,
        spool: TraceSpool | None = None,
        conversation_id: str = "",
        kept_turns: int = KEPT_TURNS,
    ) -> None:
        self._limit = limit
        self._turns: dict[str | None, TurnTrace | Spooled] = {}
        self._spool = spool
        self._conversation_id = conversation_id
        self._kept_turns = kept_turns
        self._in_memory: dict[str, None] = {}
        """The ended turns held in memory, oldest first."""

    def add(self, turn_id: str | None, event: EngineEvent) -> None:
        trace = self._turns.get(turn_id)
        if trace is None:
            trace = self._turns[turn_id] = TurnTrace(self._limit)
        elif isinstance(trace, Spooled):  # something came for a turn written away
            trace = self._turns[turn_id] = self._read_back(trace)
        trace.add(event)
        if turn_id is not None and trace.ended:
            self._in_memory[turn_id] = None
            self._write_away()

    def _read_back(self, where: Spooled) -> TurnTrace:
        assert self._spool is not None
        trace = TurnTrace(self._limit)
        for event in self._spool.read(self._conversation_id, where):
            trace.add(event)
        return trace

    def _write_away(self) -> None:
        """Write the oldest ended turns past `kept_turns` to the spool."""
        if self._spool is None:
            return
        while len(self._in_memory) > self._kept_turns:
            turn_id = next(iter(self._in_memory))
            trace = self._turns[turn_id]
            if isinstance(trace, TurnTrace):
                written = self._spool.write(self._conversation_id, trace.events())
                if written is None:
                    return  # kept in memory; tried again as the next turn ends
                self._turns[turn_id] = written
            del self._in_memory[turn_id]

    def turn(self, turn_id: str | None) -> list[EngineEvent]:
        trace = self._turns.get(turn_id)
        if isinstance(trace, Spooled):
            assert self._spool is not None
            return self._spool.read(self._conversation_id, trace)
        return trace.events() if trace is not None else []

    def turn_ids(self) -> list[str | None]:
        return list(self._turns)

    def all_events(self) -> list[EngineEvent]:
        """Every kept event of every turn, in emission order."""
        events = [event for turn_id in self._turns for event in self.turn(turn_id)]
        return sorted(events, key=lambda event: event.seq)


class Redactor:
    """Replaces known secrets, and anything shaped like an API key, with [redacted]."""

    def __init__(self, known: Iterable[str]) -> None:
        self._known = sorted({secret for secret in known if len(secret) >= 8}, key=len)[::-1]

    @classmethod
    def of(cls, settings: Settings) -> Redactor:
        """For the API keys in the environment now: codex's own, and each provider's
        `env_key`."""
        names = {"OPENAI_API_KEY", "CODEX_API_KEY"}
        names |= {p.env_key for p in settings.providers.values() if p.env_key}
        return cls(os.environ[name] for name in names if os.environ.get(name))

    def __call__(self, text: str) -> str:
        for secret in self._known:
            text = text.replace(secret, REDACTED)
        return _KEY_SHAPES.sub(REDACTED, text)


def jsonl(events: Iterable[EngineEvent], redact: Redactor) -> str:
    return "".join(redact(json.dumps(event_to_json(e), ensure_ascii=False)) + "\n" for e in events)
