"""One ordered stream of items handed to any number of subscribers, in batches.

The producer publishes items as they come and flushes once per batch (a chunk read, a
notification handled), so a fast stream costs one hand-over per batch, not one per item.
"""

from __future__ import annotations

import math
from typing import Generic, TypeVar

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

T = TypeVar("T")


class Subscription(Generic[T]):
    """Everything published from the subscription on, in order.

    Iterate with `async for` (it ends when the fanout closes), or take whole batches with
    `batches()`. Close it, or use it as a context manager, to stop receiving.
    """

    def __init__(self, batches: MemoryObjectReceiveStream[tuple[T, ...]]) -> None:
        self._batches = batches
        self._batch: tuple[T, ...] = ()
        self._next = 0

    def __aiter__(self) -> Subscription[T]:
        return self

    async def __anext__(self) -> T:
        while self._next >= len(self._batch):
            self._batch = await self._next_batch()
            self._next = 0
        item = self._batch[self._next]
        self._next += 1
        return item

    async def batches(self) -> tuple[T, ...]:
        """The rest of the current batch, or the next one; raises StopAsyncIteration at the end."""
        rest = self._rest()
        return rest if rest else await self._next_batch()

    def come(self) -> tuple[T, ...]:
        """What has been delivered and not taken yet, without waiting (maybe nothing)."""
        rest = self._rest()
        while True:
            try:
                rest += self._batches.receive_nowait()
            except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                return rest

    def _rest(self) -> tuple[T, ...]:
        """The rest of the batch being taken item by item (taken now)."""
        rest = self._batch[self._next :]
        self._batch, self._next = (), 0
        return rest

    async def _next_batch(self) -> tuple[T, ...]:
        try:
            return await self._batches.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._batches.close()

    def __enter__(self) -> Subscription[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Fanout(Generic[T]):
    """Publishes items to every current subscriber.

    With `kept_for_first`, up to that many items published before anything has subscribed
    are kept for the first subscriber (what a peer says before its reader is set up)."""

    def __init__(self, kept_for_first: int = 0) -> None:
        self._subscribers: list[MemoryObjectSendStream[tuple[T, ...]]] = []
        self._pending: list[T] = []
        self._closed = False
        self._kept: list[T] | None = [] if kept_for_first else None
        self._keep = kept_for_first

    def subscribe(self) -> Subscription[T]:
        send, receive = anyio.create_memory_object_stream[tuple[T, ...]](math.inf)
        kept, self._kept = self._kept, None
        if kept:
            send.send_nowait(tuple(kept))
        if self._closed:
            send.close()
        else:
            self._subscribers.append(send)
        return Subscription(receive)

    def publish(self, item: T) -> None:
        """Add an item to the current batch (delivered at the next `flush`)."""
        self._pending.append(item)

    def flush(self) -> None:
        """Deliver the current batch."""
        if not self._pending:
            return
        batch = tuple(self._pending)
        self._pending.clear()
        if self._kept is not None:
            self._kept += batch[: self._keep - len(self._kept)]
        for subscriber in list(self._subscribers):
            try:
                subscriber.send_nowait(batch)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._subscribers.remove(subscriber)

    def close(self) -> None:
        """Deliver what is pending and end every subscription."""
        self.flush()
        self._closed = True
        for subscriber in self._subscribers:
            subscriber.close()
        self._subscribers.clear()
