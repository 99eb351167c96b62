"""Stamps events with a sequence number and time, keeps them in the trace, fans them out."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import count

from engine.events import EngineEvent, Stamp
from engine.records.trace import ConversationTrace
from engine.records.trace_spool import TraceSpool
from engine.transport.fanout import Fanout, Subscription


class Emitter:
    def __init__(
        self,
        trace_limit: int,
        sink: Callable[[EngineEvent, str | None], None] = lambda event, turn_id: None,
        spool: TraceSpool | None = None,
    ) -> None:
        self._sink = sink
        self._spool = spool
        """Where conversations' older turns are written (none: all stay in memory)."""
        """Also told of every event, with its turn (the store's journal)."""
        self._fanout: Fanout[EngineEvent] = Fanout()
        self._seq = count(1)
        self._next_seq = 1
        self._trace_limit = trace_limit
        self._traces: dict[str, ConversationTrace] = {}
        self.general = ConversationTrace(trace_limit)
        """Events that belong to no conversation (codex's status, the store's problems)."""
        self._batching = 0

    def stamp(self, conversation_id: str | None) -> Stamp:
        """The fields every event starts with."""
        seq = next(self._seq)
        self._next_seq = seq + 1
        return Stamp(seq=seq, at=time.time(), conversation_id=conversation_id)

    def emit(self, event: EngineEvent, turn_id: str | None = None) -> None:
        """Trace the event under `turn_id` (for its conversation) and send it to subscribers."""
        if event.conversation_id is not None:
            self.trace(event.conversation_id).add(turn_id, event)
        else:
            self.general.add(turn_id, event)
        self._sink(event, turn_id)
        self._fanout.publish(event)
        if not self._batching:
            self._fanout.flush()

    def tell(self, event: EngineEvent) -> None:
        """Send an event to subscribers only: not traced, not stored (what only a front end
        needs, as the files an `@` finds)."""
        self._fanout.publish(event)
        if not self._batching:
            self._fanout.flush()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Deliver the events emitted inside as one batch."""
        self._batching += 1
        try:
            yield
        finally:
            self._batching -= 1
            if not self._batching:
                self._fanout.flush()

    def trace(self, conversation_id: str) -> ConversationTrace:
        trace = self._traces.get(conversation_id)
        if trace is None:
            trace = ConversationTrace(self._trace_limit, self._spool, conversation_id)
            self._traces[conversation_id] = trace
        return trace

    def restore(self, event: EngineEvent, turn_id: str | None) -> None:
        """Put an event of an earlier run back into its conversation's trace (not sent to
        subscribers); later events are numbered after it."""
        if event.conversation_id is not None:
            self.trace(event.conversation_id).add(turn_id, event)
        if event.seq >= self._next_seq:
            self._next_seq = event.seq + 1
            self._seq = count(self._next_seq)

    def subscribe(self) -> Subscription[EngineEvent]:
        return self._fanout.subscribe()

    def close(self) -> None:
        self._fanout.close()
