"""Attaching to a running `codex app-server --listen …`: a WebSocket client (RFC 6455) small
enough to read, as a transport for `engine.transport.appserver.open_app_server`.

Each JSON-RPC message is one text frame. The connection starts with the HTTP upgrade, over
TCP for `ws://HOST:PORT` (with `Authorization: Bearer TOKEN` in capability-token mode) and
over the socket for `unix://PATH`.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import math
import os
import struct
from pathlib import Path
from urllib.parse import urlsplit

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, ByteStream
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from engine.errors import ConnectionClosed
from engine.transport.unix_socket import connect_unix

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_HEADER_BYTES = 16 * 1024
TEXT, BINARY, CONTINUATION, CLOSE, PING, PONG = 0x1, 0x2, 0x0, 0x8, 0x9, 0xA


def accept_for(key: bytes) -> str:
    """The Sec-WebSocket-Accept a server must answer to `key`."""
    return base64.b64encode(hashlib.sha1(key + GUID).digest()).decode()


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, masked frame (a client masks everything it sends)."""
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 1 << 16:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    mask = os.urandom(4)
    return header + mask + masked(payload, mask)


def masked(payload: bytes, mask: bytes) -> bytes:
    if not payload:
        return b""
    key = (mask * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(
        len(payload), "big"
    )


async def read_frame(source: BufferedByteReceiveStream) -> tuple[bool, int, bytes]:
    """(final, opcode, payload) of the next frame (unmasking it if it is masked)."""
    first, second = await source.receive_exactly(2)
    size = second & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", await source.receive_exactly(2))
    elif size == 127:
        (size,) = struct.unpack("!Q", await source.receive_exactly(8))
    if size > MAX_MESSAGE_BYTES:
        raise ConnectionClosed(f"codex sent a frame of {size} bytes; the limit is 64 MiB")
    mask = await source.receive_exactly(4) if second & 0x80 else b""
    payload = await source.receive_exactly(size) if size else b""
    return bool(first & 0x80), first & 0x0F, masked(payload, mask) if mask else payload


class _Lines(ByteReceiveStream):
    """What the rpc reader reads: each message, with a newline after it."""

    def __init__(self, messages: MemoryObjectReceiveStream[bytes]) -> None:
        self._messages = messages

    async def receive(self, max_bytes: int = 65536) -> bytes:
        try:
            return await self._messages.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise anyio.EndOfStream from None

    async def aclose(self) -> None:
        self._messages.close()


class _Frames(ByteSendStream):
    """What the rpc writer writes: each newline-ended message goes out as one text frame."""

    def __init__(self, transport: WebSocketTransport) -> None:
        self._transport = transport

    async def send(self, item: bytes) -> None:
        for line in item.split(b"\n"):
            if line:
                await self._transport.write(frame(TEXT, line))

    async def aclose(self) -> None:
        await self._transport.aclose()


class WebSocketTransport:
    """A connected WebSocket as a transport; `where` names it in messages."""

    def __init__(self, stream: ByteStream, where: str, source: BufferedByteReceiveStream) -> None:
        self.where = where
        self._stream = stream
        self._source = source
        self._write_lock = anyio.Lock()
        self._to_rpc: MemoryObjectSendStream[bytes]
        received: MemoryObjectReceiveStream[bytes]
        self._to_rpc, received = anyio.create_memory_object_stream[bytes](math.inf)
        self.receive: ByteReceiveStream = _Lines(received)
        self.send: ByteSendStream = _Frames(self)
        self._why = f"the connection to {where} closed"

    async def write(self, data: bytes) -> None:
        async with self._write_lock:
            await self._stream.send(data)

    async def run(self) -> None:
        """Read frames until the connection ends; answer pings, put messages in order."""
        parts: list[bytes] = []
        try:
            while True:
                final, opcode, payload = await read_frame(self._source)
                if opcode == PING:
                    await self.write(frame(PONG, payload))
                elif opcode == CLOSE:
                    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                    reason = payload[2:].decode("utf-8", "replace")
                    self._why = f"{self.where} closed the connection ({code} {reason})".strip()
                    # The closing handshake: the server waits for this answer.
                    with contextlib.suppress(anyio.BrokenResourceError, OSError):
                        await self.write(frame(CLOSE, payload[:2]))
                    return
                elif opcode in (TEXT, BINARY, CONTINUATION):
                    parts.append(payload)
                    if final:
                        await self._to_rpc.send(b"".join(parts) + b"\n")
                        parts = []
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError, OSError):
            self._why = f"the connection to {self.where} was lost"
        except anyio.ClosedResourceError:
            self._why = f"the connection to {self.where} was closed"  # by `aclose`, while read
        except ConnectionClosed as error:
            self._why = str(error)
        finally:
            self._to_rpc.close()

    async def describe_close(self) -> str:
        return self._why

    def handshaken(self) -> None:
        """Nothing to forget: the connection's end is told by how it ended."""

    async def aclose(self) -> None:
        with (
            anyio.move_on_after(1),
            contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError),
        ):
            await self.write(frame(CLOSE, struct.pack("!H", 1000)))
        await self._stream.aclose()


async def connect(url: str, token_file: Path | None = None) -> WebSocketTransport:
    """Connect to `unix://PATH` or `ws://HOST:PORT[/PATH]` (the token read from `token_file`).

    Raises:
        ConnectionClosed: nothing listens there, or it refused the connection (with its words).
    """
    parts = urlsplit(url)
    try:
        if parts.scheme == "unix":
            # codex links a long socket path to a short one (AF_UNIX paths are short).
            socket_path = await anyio.Path(parts.path or parts.netloc).resolve()
            stream: ByteStream = await connect_unix(Path(socket_path))
            host, path = "localhost", "/"
        elif parts.scheme == "ws" and parts.hostname is not None and parts.port is not None:
            stream = await anyio.connect_tcp(parts.hostname, parts.port)
            host = f"{parts.hostname}:{parts.port}"
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        else:
            raise ConnectionClosed(f"{url}: expected unix:///PATH or ws://HOST:PORT")
    except OSError as error:
        raise ConnectionClosed(f"cannot connect to {url}: {error.strerror or error}") from None
    token = (await anyio.Path(token_file).read_text()).strip() if token_file else None
    source = BufferedByteReceiveStream(stream)
    try:
        await _upgrade(stream, source, host, path, token, url)
    except BaseException:
        await stream.aclose()
        raise
    return WebSocketTransport(stream, url, source)


async def _upgrade(
    stream: ByteStream,
    source: BufferedByteReceiveStream,
    host: str,
    path: str,
    token: str | None,
    url: str,
) -> None:
    key = base64.b64encode(os.urandom(16))
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key.decode()}",
        "Sec-WebSocket-Version: 13",
    ]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    try:
        await stream.send(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = await source.receive_until(b"\r\n\r\n", MAX_HEADER_BYTES)
    except (anyio.EndOfStream, anyio.IncompleteRead, anyio.DelimiterNotFound, OSError):
        raise ConnectionClosed(f"{url} did not answer the WebSocket upgrade") from None
    status, *fields = head.decode("latin-1").split("\r\n")
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (field.partition(":") for field in fields)
    }
    if status.split(" ")[1:2] != ["101"]:
        body = await _body(source, headers)
        said = f": {body}" if body else ""
        raise ConnectionClosed(f"{url} refused the connection ({status.strip()}){said}")
    if headers.get("sec-websocket-accept") != accept_for(key):
        raise ConnectionClosed(f"{url} answered the upgrade with a wrong Sec-WebSocket-Accept")


async def _body(source: BufferedByteReceiveStream, headers: dict[str, str]) -> str:
    size = int(headers.get("content-length", "0") or 0)
    if not 0 < size <= MAX_HEADER_BYTES:
        return ""
    try:
        return (await source.receive_exactly(size)).decode("utf-8", "replace").strip()
    except (anyio.EndOfStream, anyio.IncompleteRead):
        return ""


def daemon_socket(codex_home: Path | None) -> Path:
    """Where `codex app-server daemon` (and `--listen unix://`) listens for this CODEX_HOME
    (unset: codex's own, `$CODEX_HOME` or ~/.codex, as codex finds it)."""
    if codex_home is None:
        codex_home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    home = codex_home.expanduser()
    return home / "app-server-control" / "app-server-control.sock"


async def running_daemon(codex_home: Path | None) -> str | None:
    """The `unix://` URL of a codex app-server listening for this CODEX_HOME, if one answers."""
    url = f"unix://{daemon_socket(codex_home)}"
    try:
        transport = await connect(url)
    except ConnectionClosed:
        return None
    await transport.aclose()
    return url
