"""The WebSocket framing codex-deck speaks to a running app-server."""

from __future__ import annotations

import struct

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from engine.transport.websocket import (
    CONTINUATION,
    PING,
    TEXT,
    accept_for,
    connect,
    frame,
    read_frame,
)
from tests.engine.bytestreams import byte_pipe

pytestmark = pytest.mark.anyio


async def frames_of(data: bytes, piece: int = 7) -> list[tuple[bool, int, bytes]]:
    """Decode `data` fed in small pieces, as a socket may deliver it."""
    send, receive = byte_pipe()
    for start in range(0, len(data), piece):
        await send.send(data[start : start + piece])
    await send.aclose()
    source = BufferedByteReceiveStream(receive)
    found = []
    while True:
        try:
            found.append(await read_frame(source))
        except (anyio.IncompleteRead, anyio.EndOfStream):
            return found


def test_the_accept_key_of_rfc_6455() -> None:
    assert accept_for(b"dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


async def test_frames_of_every_length_form_round_trip() -> None:
    payloads = [b"", b"x" * 125, b"y" * 126, b"z" * 70_000]
    decoded = await frames_of(b"".join(frame(TEXT, p) for p in payloads))
    assert [(final, opcode) for final, opcode, _ in decoded] == [(True, TEXT)] * 4
    assert [p for _, _, p in decoded] == payloads


async def test_client_frames_are_masked_and_server_frames_are_read_unmasked() -> None:
    sent = frame(TEXT, b'{"id":1}')
    assert sent[1] & 0x80
    assert b'{"id":1}' not in sent
    unmasked = struct.pack("!BB", 0x01, 3) + b'{"a' + struct.pack("!BB", 0x80, 2) + b'"}'
    ping = struct.pack("!BB", 0x80 | PING, 2) + b"hi"
    decoded = await frames_of(unmasked + ping)
    assert decoded == [(False, TEXT, b'{"a'), (True, CONTINUATION, b'"}'), (True, PING, b"hi")]


async def test_a_close_from_the_server_is_answered() -> None:
    """The closing handshake: a server that closes waits for the client's close frame (an
    aiohttp server up to its timeout, with the connection held; `codex-deck serve` took
    10 s to stop). Without the answer the server sees an abnormal closure (1006)."""
    from aiohttp import web

    codes: list[int | None] = []
    closed = anyio.Event()

    async def handler(request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(timeout=5)
        await websocket.prepare(request)
        await websocket.close()
        codes.append(websocket.close_code)
        closed.set()
        return websocket

    app = web.Application()
    app.router.add_get("/", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        transport = await connect(f"ws://127.0.0.1:{port}/")
        with anyio.fail_after(30):
            await transport.run()  # until the server's close
            await closed.wait()
        await transport.aclose()
    finally:
        await runner.cleanup()
    assert codes == [1000]
