"""JSON-RPC 2.0 over any anyio byte stream, one JSON object per line.

One reader task (`RpcConnection.run`) reads lines and routes them:

* responses wake the one-shot waiter of their request id;
* notifications are fanned out, in order, to every subscriber (in one batch per chunk read,
  so a fast stream costs one hand-over per chunk, not one per line);
* server→client requests go to the request handler, each in its own task, so the reader
  never waits on a human; the handler's return value (or error) is sent back as the reply.
  Subscribers see each request too, in its place among the notifications.

Lines that are not JSON-RPC, or longer than the limit, are reported to subscribers as
`BadLine` and skipped. When the stream ends, every waiter fails at once with
`ConnectionClosed` saying why.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from itertools import count
from typing import Any

import anyio
import msgspec
from anyio.abc import ByteReceiveStream, ByteSendStream, TaskGroup
from msgspec import UNSET

from engine.errors import ConnectionClosed, LeftUnanswered, RpcError
from engine.transport.fanout import Fanout, Subscription

RequestId = int | str

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
HEAD_BYTES = 1024
"""How much of a line over the limit is kept (as its excerpt) to say what it was."""
"""Longest line accepted; codex can put a command's whole output in one item."""

READ_CHUNK_BYTES = 256 * 1024
CLOSE_WAIT_SECONDS = 2.0
"""After a failed write, how long to wait for the reader to say why the peer went away."""

KEPT_BEFORE_SUBSCRIBED = 1000
"""Messages kept for the first subscriber when they come before it: codex's start-up
warnings follow its answer to `initialize` at once, often in the same read."""

METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603


class Notification(msgspec.Struct, frozen=True):
    """A message from the peer that needs no reply."""

    method: str
    params: msgspec.Raw
    """The JSON text of its params (`null` when there are none), read once its method says
    what it holds (`value()` reads it as plain Python values)."""

    def value(self) -> Any:
        """The params as plain Python values (dicts, lists …)."""
        return _decode(self.params)


class ServerRequest(msgspec.Struct, frozen=True):
    """A request from the peer (an approval, a question …) that needs a reply."""

    id: RequestId
    method: str
    params: Any


class BadLine(msgspec.Struct, frozen=True):
    """A line that was skipped because it was not a usable JSON-RPC message."""

    reason: str
    excerpt: str
    size: int
    limit: int | None = None
    """The line limit, when the line was skipped for being longer."""
    tail: str = ""
    """The end of a line skipped for being longer (the excerpt is its start)."""


Incoming = Notification | ServerRequest | BadLine
RequestHandler = Callable[[ServerRequest], Awaitable[Any]]
CloseDescriber = Callable[[], Awaitable[str]]


class _Waiter:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: Any = None
        self.error: Exception | None = None


async def _no_handler(request: ServerRequest) -> Any:
    raise RpcError(METHOD_NOT_FOUND, f"codex-deck does not handle {request.method}")


async def _plain_close() -> str:
    return "the connection to the app-server closed"


class RpcConnection:
    """A JSON-RPC connection over a pair of byte streams.

    Run `run()` in a task group for as long as the connection is used; it returns when the
    peer closes the stream or the transport fails.
    """

    def __init__(
        self,
        send: ByteSendStream,
        receive: ByteReceiveStream,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        describe_close: CloseDescriber = _plain_close,
    ) -> None:
        self._send = send
        self._receive = receive
        self._max_line_bytes = max_line_bytes
        self._describe_close = describe_close
        self._ids = count()
        self._waiters: dict[RequestId, _Waiter] = {}
        self._incoming: Fanout[Incoming] = Fanout(KEPT_BEFORE_SUBSCRIBED)
        self._handler: RequestHandler = _no_handler
        self._write_lock = anyio.Lock()
        self._handlers: TaskGroup | None = None
        self._answering = 0
        self._answered = anyio.Event()
        self.closed_reason: str | None = None
        self._closed = anyio.Event()
        """Why the connection closed, once it has."""

    def handle_requests(self, handler: RequestHandler) -> None:
        """Set the coroutine that answers server→client requests (one task per request).

        Its return value is sent as the result; an `RpcError` it raises is sent as that
        error, `LeftUnanswered` sends nothing, any other exception is sent as an internal
        error.
        """
        self._handler = handler

    def subscribe(self) -> Subscription[Incoming]:
        """Every notification, server request and bad line from now on, in arrival order
        (for the first subscriber, also those that came before it).

        The iteration ends when the connection closes.
        """
        return self._incoming.subscribe()

    async def request(self, method: str, params: Any = None, *, written: bool = False) -> Any:
        """Send a request and wait for its result. `written`: it went out already, before
        this connection was made, as `request_line` with the id it takes here (0 for a
        connection's first request); only its result is waited for.

        Raises:
            RpcError: the peer answered with an error.
            ConnectionClosed: the connection closed before the answer came.
        """
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        request_id = next(self._ids)
        waiter = _Waiter()
        self._waiters[request_id] = waiter
        try:
            if not written:
                await self._write(_request(request_id, method, params))
            await waiter.done.wait()
        finally:
            self._waiters.pop(request_id, None)
        if waiter.error is not None:
            raise waiter.error
        return waiter.result

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification (no reply expected)."""
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = params
        await self._write(message)

    async def replies_sent(self) -> None:
        """Wait until every server request being handled now has had its reply written."""
        while self._answering:
            await self._answered.wait()

    async def run(self) -> None:
        """Read and route messages until the stream ends; then fail every waiter."""
        try:
            async with anyio.create_task_group() as handlers:
                self._handlers = handlers
                try:
                    await self._read_lines()
                finally:
                    handlers.cancel_scope.cancel()
        finally:
            self._handlers = None
            with anyio.CancelScope(shield=True):
                reason = await self._describe_close()
            self._close(reason)

    async def _read_lines(self) -> None:
        buffer = bytearray()
        skipping = 0
        head = tail = b""
        while True:
            try:
                chunk = await self._receive.receive(READ_CHUNK_BYTES)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                if skipping:
                    self._report_oversized(skipping, head, tail)
                elif buffer:
                    self._dispatch(bytes(buffer))
                return
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    break
                if skipping:
                    tail = (tail + chunk[max(start, end - HEAD_BYTES) : end])[-HEAD_BYTES:]
                    self._report_oversized(skipping + end - start, head, tail)
                    skipping = 0
                elif buffer:
                    buffer += chunk[start:end]
                    self._dispatch(bytes(buffer))
                    buffer.clear()
                else:
                    self._dispatch(chunk[start:end])
                start = end + 1
            rest = len(chunk) - start
            if skipping:
                skipping += rest
                tail = (tail + chunk[max(start, len(chunk) - HEAD_BYTES) :])[-HEAD_BYTES:]
            elif len(buffer) + rest > self._max_line_bytes:
                skipping = len(buffer) + rest
                head = (bytes(buffer[:HEAD_BYTES]) + chunk[start : start + HEAD_BYTES])[:HEAD_BYTES]
                tail = (bytes(buffer[-HEAD_BYTES:]) + chunk[start:])[-HEAD_BYTES:]
                buffer.clear()
            else:
                buffer += chunk[start:]
            self._incoming.flush()

    def _report_oversized(self, size: int, head: bytes, tail: bytes) -> None:
        self._publish(
            BadLine(
                f"line of {size} bytes is over the {self._max_line_bytes}-byte limit",
                head[:HEAD_BYTES].decode("utf-8", "replace"),
                size,
                self._max_line_bytes,
                tail[-HEAD_BYTES:].decode("utf-8", "replace"),
            )
        )

    def _dispatch(self, line: bytes) -> None:
        if len(line) > self._max_line_bytes:
            self._report_oversized(len(line), line[:HEAD_BYTES], line[-HEAD_BYTES:])
            return
        try:
            message = _read_message(line)
        except msgspec.ValidationError:
            self._bad(line, "not a JSON object")
            return
        except (ValueError, RecursionError) as error:
            if line.strip():
                self._bad(line, f"not JSON: {error}")
            return
        method, request_id = message.method, message.id
        if type(method) is str:
            if request_id is UNSET:
                self._publish(Notification(method, message.params))
            elif _is_request_id(request_id):
                params = _decode(message.params)
                self._start_handler(ServerRequest(request_id, method, params))
            else:
                self._bad(line, "request id is not an integer or a string")
        elif request_id is not UNSET and (
            message.result is not UNSET or message.error is not UNSET
        ):
            self._resolve(line, message)
        else:
            self._bad(line, "neither a request, a response nor a notification")

    def _resolve(self, line: bytes, message: _Message) -> None:
        request_id = message.id
        waiter = self._waiters.get(request_id) if _is_request_id(request_id) else None
        if waiter is None:
            self._bad(line, "response to no pending request")
            return
        if message.error is not UNSET:
            waiter.error = _rpc_error(message.error)
        else:
            waiter.result = message.result
        waiter.done.set()

    def _start_handler(self, request: ServerRequest) -> None:
        assert self._handlers is not None
        self._publish(request)
        self._answering += 1
        self._handlers.start_soon(self._answer, request)

    async def _answer(self, request: ServerRequest) -> None:
        try:
            await self._reply(request)
        finally:
            self._answering -= 1
            self._answered.set()
            self._answered = anyio.Event()

    async def _reply(self, request: ServerRequest) -> None:
        try:
            result = await self._handler(request)
        except LeftUnanswered:
            return
        except RpcError as error:
            reply: dict[str, Any] = {
                "id": request.id,
                "error": {"code": error.code, "message": error.message},
            }
        except Exception as error:
            reply = {"id": request.id, "error": {"code": INTERNAL_ERROR, "message": str(error)}}
        else:
            reply = {"id": request.id, "result": result}
        with contextlib.suppress(ConnectionClosed):
            await self._write(reply)

    def _bad(self, line: bytes, reason: str) -> None:
        excerpt = line[:200].decode("utf-8", "replace")
        self._publish(BadLine(reason, excerpt, len(line)))

    def _publish(self, incoming: Incoming) -> None:
        self._incoming.publish(incoming)

    async def _write(self, message: dict[str, Any]) -> None:
        data = _line(message)
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        try:
            async with self._write_lock:
                await self._send.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as error:
            # The peer is gone: the reader is about to say why (exit status, last stderr).
            with anyio.move_on_after(CLOSE_WAIT_SECONDS):
                await self._closed.wait()
            raise ConnectionClosed(self.closed_reason or f"could not write: {error}") from error

    def _close(self, reason: str) -> None:
        self.closed_reason = reason
        self._closed.set()
        for waiter in self._waiters.values():
            waiter.error = ConnectionClosed(reason)
            waiter.done.set()
        self._incoming.close()


NO_PARAMS = msgspec.Raw(b"null")


class _Message(msgspec.Struct):
    """A line as JSON-RPC reads it: its params are kept as JSON text, for the reader of its
    method to read straight into its own types."""

    method: Any = UNSET
    id: Any = UNSET
    params: msgspec.Raw = NO_PARAMS
    result: Any = UNSET
    error: Any = UNSET


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode
"""JSON to Python values, from the bytes of a line (msgspec's: some twice as fast as json's)."""
_read_message = msgspec.json.Decoder(_Message).decode


def _is_request_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _rpc_error(error: Any) -> RpcError:
    if isinstance(error, dict):
        code = error.get("code")
        message = error.get("message")
        return RpcError(
            code if isinstance(code, int) else INTERNAL_ERROR,
            message if isinstance(message, str) else "the server sent an error with no message",
            error.get("data"),
        )
    return RpcError(INTERNAL_ERROR, f"the server sent a malformed error: {error!r}")


def _request(request_id: RequestId, method: str, params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _line(message: dict[str, Any]) -> bytes:
    return _encode(message) + b"\n"


def request_line(request_id: RequestId, method: str, params: Any = None) -> bytes:
    """A request as it is written: one line of JSON."""
    return _line(_request(request_id, method, params))
