"""In-memory byte streams for driving `engine.transport.rpc` without a process."""

from __future__ import annotations

import math

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream


class MemoryByteReceive(ByteReceiveStream):
    def __init__(self, source: MemoryObjectReceiveStream[bytes]) -> None:
        self._source = source

    async def receive(self, max_bytes: int = 65536) -> bytes:
        try:
            return await self._source.receive()
        except anyio.EndOfStream:
            raise
        except anyio.ClosedResourceError:
            raise anyio.EndOfStream from None

    async def aclose(self) -> None:
        self._source.close()


class MemoryByteSend(ByteSendStream):
    def __init__(self, sink: MemoryObjectSendStream[bytes]) -> None:
        self._sink = sink

    async def send(self, item: bytes) -> None:
        await self._sink.send(item)

    async def aclose(self) -> None:
        self._sink.close()


def byte_pipe() -> tuple[MemoryByteSend, MemoryByteReceive]:
    """A one-way byte pipe: what is sent on the first end is received on the second."""
    send, receive = anyio.create_memory_object_stream[bytes](math.inf)
    return MemoryByteSend(send), MemoryByteReceive(receive)
