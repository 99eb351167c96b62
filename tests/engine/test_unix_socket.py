"""A receive cancelled in the same turn of the loop as data arrives leaves nothing behind on
codex-deck's unix stream; anyio's own stream still reports `InvalidStateError` then (when it
stops, `engine/transport/unix_socket.py` can go)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import anyio
import anyio.lowlevel
import pytest
from anyio.abc import ByteStream

from engine.transport.unix_socket import UnixSocketStream

pytestmark = pytest.mark.anyio

CANCELLED_RECEIVES = 20


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def cancel_receives_as_data_arrives(make: Callable[[socket.socket], ByteStream]) -> int:
    """Cancel a waiting receive in the same turn of the loop as a byte arrives, again and
    again; returns how many exceptions the loop reported."""
    ours, theirs = socket.socketpair()
    stream = make(ours)
    reported: list[object] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _, context: reported.append(context.get("exception")))
    try:
        for _ in range(CANCELLED_RECEIVES):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(stream.receive)
                await anyio.lowlevel.checkpoint()  # the receive waits for the socket
                await anyio.lowlevel.checkpoint()
                theirs.send(b"x")
                await (
                    anyio.lowlevel.checkpoint()
                )  # the byte is seen in the turn that cancels the receive
                tasks.cancel_scope.cancel()
            await stream.receive()
        await anyio.lowlevel.checkpoint()
    finally:
        loop.set_exception_handler(None)
        await stream.aclose()
        theirs.close()
    return len(reported)


async def test_codex_decks_unix_stream_takes_a_cancelled_receive() -> None:
    assert await cancel_receives_as_data_arrives(UnixSocketStream) == 0


async def test_anyios_unix_stream_still_reports_a_cancelled_receive() -> None:
    from anyio._backends._asyncio import UNIXSocketStream

    def anyio_stream(raw: socket.socket) -> ByteStream:
        raw.setblocking(False)
        return UNIXSocketStream(raw)

    assert await cancel_receives_as_data_arrives(anyio_stream) > 0
