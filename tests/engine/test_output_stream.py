"""Reading codex's output from its pipe: a read takes in all that has come and hands on a
slice of it, reads while codex writes on are paced, the end of the output ends the stream,
and closing wakes a read that waits."""

from __future__ import annotations

import io
import os
import time

import anyio
import pytest

from engine.transport import process
from engine.transport.process import OUTPUT_SLICE_BYTES, OutputStream

pytestmark = pytest.mark.anyio


def pipe() -> tuple[io.FileIO, io.FileIO]:
    """Our end of a pipe (to read codex's output from) and codex's (to write it with)."""
    read, write = os.pipe()
    return io.FileIO(read, "r"), io.FileIO(write, "w")


def send_all(end: io.FileIO, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[end.write(view) or 0 :]


async def test_a_read_hands_on_a_slice_at_most_then_the_rest_in_order_then_the_end() -> None:
    ours, theirs = pipe()
    sent = bytes(range(256)) * (OUTPUT_SLICE_BYTES // 256 + 100)  # more than one slice
    send_all(theirs, sent)
    theirs.close()
    stream = OutputStream(ours)
    first = await stream.receive(4 * OUTPUT_SLICE_BYTES)
    assert len(first) == OUTPUT_SLICE_BYTES
    rest = b""
    while len(first) + len(rest) < len(sent):
        rest += await stream.receive(4 * OUTPUT_SLICE_BYTES)
    assert first + rest == sent
    with pytest.raises(anyio.EndOfStream):
        await stream.receive()
    await stream.aclose()


def fill(end: io.FileIO) -> int:
    """Write to `end` until the pipe holds no more; how many bytes it took."""
    written = 0
    while True:
        took = end.write(bytes(4096))
        if not took:
            return written
        written += took


async def test_a_read_takes_in_all_that_has_come_so_codex_can_write_on() -> None:
    ours, theirs = pipe()
    os.set_blocking(theirs.fileno(), False)
    held = fill(theirs)
    assert held >= 4 * OUTPUT_SLICE_BYTES
    stream = OutputStream(ours)
    assert len(await stream.receive()) == OUTPUT_SLICE_BYTES
    assert fill(theirs) > held // 2  # room again for about as much as the pipe held
    theirs.close()
    taken = OUTPUT_SLICE_BYTES
    while taken <= held:
        taken += len(await stream.receive())
    assert taken > held
    await stream.aclose()


async def test_what_codex_writes_just_after_a_read_waits_for_a_read_a_pace_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pace = 0.3  # the real pace is too short to tell from the test's own steps
    monkeypatch.setattr(process, "READ_PACE_SECONDS", pace)
    ours, theirs = pipe()
    stream = OutputStream(ours)
    send_all(theirs, b"first\n")
    before = time.monotonic()
    with anyio.fail_after(pace * 10):  # the first read after a quiet moment is not held
        assert await stream.receive() == b"first\n"
    read: list[tuple[bytes, float]] = []

    async def read_on() -> None:
        data = await stream.receive()
        read.append((data, time.monotonic()))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_on)
        await anyio.wait_all_tasks_blocked()  # the read waits for codex
        send_all(theirs, b"second\n")
        send_all(theirs, b"third\n")
    [(data, at)] = read
    assert data == b"second\nthird\n"
    assert at - before >= pace
    theirs.close()
    await stream.aclose()


async def test_closing_wakes_a_read_that_waits() -> None:
    ours, theirs = pipe()
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
