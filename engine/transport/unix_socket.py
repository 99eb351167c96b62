"""A connected unix socket as an anyio byte stream, waited on with `anyio.wait_readable` and
`anyio.wait_writable`.

anyio's own unix stream (4.16, asyncio) waits on a future that a selector callback resolves;
when a receive is cancelled in the same turn of the loop as data arrives, that callback still
sets the cancelled future's result and asyncio reports `InvalidStateError` from the loop. That
is what happens whenever codex-deck detaches from (or loses) a codex that is streaming over a
unix socket. `wait_readable` and `wait_writable` tolerate it. `tests/engine/test_unix_socket.py`
fails once anyio's stream no longer races, so that this module can go."""

from __future__ import annotations

import socket
from pathlib import Path

import anyio
from anyio import BrokenResourceError, ClosedResourceError, EndOfStream
from anyio.abc import ByteStream

RECEIVE_BYTES = 65536


class UnixSocketStream(ByteStream):
    def __init__(self, raw: socket.socket) -> None:
        raw.setblocking(False)
        self._socket = raw
        self._closed = False

    async def receive(self, max_bytes: int = RECEIVE_BYTES) -> bytes:
        while True:
            self._check_open()
            try:
                data = self._socket.recv(max_bytes)
            except BlockingIOError:
                await anyio.wait_readable(self._socket)
                continue
            except OSError as error:
                self._check_open()
                raise BrokenResourceError from error
            if not data:
                raise EndOfStream
            return data

    async def send(self, item: bytes) -> None:
        view = memoryview(item)
        while view:
            self._check_open()
            try:
                sent = self._socket.send(view)
            except BlockingIOError:
                await anyio.wait_writable(self._socket)
                continue
            except OSError as error:
                self._check_open()
                raise BrokenResourceError from error
            view = view[sent:]

    async def send_eof(self) -> None:
        self._socket.shutdown(socket.SHUT_WR)

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            anyio.notify_closing(self._socket)
            self._socket.close()
        await anyio.lowlevel.checkpoint()

    def _check_open(self) -> None:
        if self._closed:
            raise ClosedResourceError


async def connect_unix(path: Path) -> UnixSocketStream:
    """Connect to the unix socket at `path` (its owner must accept at once, as a listening
    codex does)."""
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        await anyio.to_thread.run_sync(raw.connect, str(path))
    except OSError:
        raw.close()
        raise
    return UnixSocketStream(raw)
