"""Reading codex's output from its socket: a read takes what has come (up to a pipe's worth),
the end of the output ends the stream, and closing wakes a read that waits."""

from __future__ import annotations

import socket

import anyio
import pytest

from engine.process import OUTPUT_READ_BYTES, OutputStream

pytestmark = pytest.mark.anyio


async def test_a_read_takes_what_has_come_up_to_a_pipes_worth_then_the_end() -> None:
    ours, theirs = socket.socketpair()
    sent = bytes(range(256)) * (OUTPUT_READ_BYTES // 256 + 100)  # more than one read takes
    theirs.sendall(sent)
    theirs.close()
    stream = OutputStream(ours)
    first = await stream.receive(4 * OUTPUT_READ_BYTES)
    assert len(first) == OUTPUT_READ_BYTES
    rest = b""
    while len(first) + len(rest) < len(sent):
        rest += await stream.receive(4 * OUTPUT_READ_BYTES)
    assert first + rest == sent
    with pytest.raises(anyio.EndOfStream):
        await stream.receive()
    await stream.aclose()


async def test_closing_wakes_a_read_that_waits() -> None:
    ours, theirs = socket.socketpair()
    stream = OutputStream(ours)
    failed: list[BaseException] = []

    async def read() -> None:
        try:
            await stream.receive()
        except anyio.ClosedResourceError as error:
            failed.append(error)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        await anyio.wait_all_tasks_blocked()
        await stream.aclose()
    assert len(failed) == 1
    theirs.close()
