"""The WebSocket framing codex-deck speaks to a running app-server."""

from __future__ import annotations

import struct

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from engine.websocket import CONTINUATION, PING, TEXT, accept_for, frame, read_frame
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
