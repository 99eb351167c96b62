"""The scripted model: a local server that speaks the Responses API and plays scenarios.

Codex uses it as a custom model provider (`POST /v1/responses`, server-sent events, no
auth). It runs on anyio in the caller's event loop, on 127.0.0.1 and an ephemeral port,
and records every request it gets.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from anyio.abc import ByteStream, Listener, SocketAttribute, SocketListener
from anyio.streams.buffered import BufferedByteReceiveStream

from engine.scripted_model import sse
from engine.scripted_model.scenario import Reply, Script, load_script
from engine.transport.offline import local_url
from engine.transport.tasks import task_group

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 256 * 1024 * 1024
CHUNK_BYTES = 16 * 1024
HOLD_LIMIT_SECONDS = 300.0
"""A held stream finishes by itself after this long, so nothing waits for ever."""

_CONTEXT_TAG = re.compile(r"^\s*<([a-z_]+)>")
Ids = Literal["unique", "reused", "none"]
"""How the model names its output items, as providers do: `unique` ids for each response's
items (as OpenAI does); the same ids in every response (`msg_0` and `rs_0`, as many local and
proxy servers send); or no ids at all."""

_TOOL_OUTPUTS = {"function_call_output", "custom_tool_call_output"}
_CLOSED = (
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.DelimiterNotFound,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
)


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the scripted model received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    """The parsed JSON body, or None when there was none or it was not JSON."""

    @property
    def input_items(self) -> list[dict[str, Any]]:
        items = self.body.get("input") if isinstance(self.body, dict) else None
        return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []

    def user_texts(self) -> list[str]:
        """The texts of the user's messages, without the context codex adds to them."""
        return [text for _, text in _user_messages(self.input_items)]

    @property
    def user_text(self) -> str:
        """The latest thing the user said (empty if nothing)."""
        texts = self.user_texts()
        return texts[-1] if texts else ""

    @property
    def tool_calls_answered(self) -> int:
        """How many tool outputs follow the latest user message (the reply index)."""
        items = self.input_items
        messages = _user_messages(items)
        start = messages[-1][0] + 1 if messages else 0
        return sum(1 for item in items[start:] if item.get("type") in _TOOL_OUTPUTS)


def _user_messages(items: list[dict[str, Any]]) -> list[tuple[int, str]]:
    found = []
    for index, item in enumerate(items):
        if item.get("type") != "message" or item.get("role") != "user":
            continue
        content = item.get("content")
        parts = content if isinstance(content, list) else []
        text = "".join(
            part.get("text", "")
            for part in parts
            if isinstance(part, dict) and part.get("type") == "input_text"
        )
        if not _CONTEXT_TAG.match(text):
            found.append((index, text))
    return found


class ScriptedModel:
    """A running scripted model. Use `run_scripted_model()` to start one."""

    def __init__(self, script: Script, port: int, ids: Ids = "unique") -> None:
        self.script = script
        self.port = port
        self.ids = ids
        """How it names the items it sends (see `Ids`)."""
        self.requests: list[RecordedRequest] = []
        """Every request received, in order."""
        self.holding = 0
        """How many streams are held open right now, waiting for `release()`."""
        self._changed = anyio.Event()
        self._release = anyio.Event()
        self._responses = 0

    @property
    def base_url(self) -> str:
        """The provider base URL to give codex."""
        return local_url(self.port)

    def responses_requests(self) -> list[RecordedRequest]:
        """The `POST …/responses` requests received so far."""
        return [r for r in self.requests if r.method == "POST" and r.path.endswith("/responses")]

    def release(self) -> None:
        """Let every stream that is holding now finish normally."""
        self._release.set()
        self._release = anyio.Event()

    async def wait_for_requests(self, count: int) -> list[RecordedRequest]:
        """Wait until at least `count` responses requests have arrived; returns them."""
        while len(self.responses_requests()) < count:
            await self.wait_for_change()
        return self.responses_requests()

    async def wait_until_holding(self) -> None:
        """Wait until at least one stream is held open."""
        while self.holding == 0:
            await self.wait_for_change()

    async def wait_for_change(self) -> None:
        """Wait until a request arrives or a stream starts or stops being held."""
        await self._changed.wait()

    def _notify_change(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def _record(self, request: RecordedRequest) -> None:
        self.requests.append(request)
        self._notify_change()

    async def serve_connection(self, stream: ByteStream) -> None:
        """Answer the requests of one HTTP/1.1 connection until the client closes it."""
        async with stream:
            buffered = BufferedByteReceiveStream(stream)
            try:
                while True:
                    request, size = await _read_request(buffered)
                    self._record(request)
                    if request.method == "POST" and request.path.endswith("/responses"):
                        await self._stream_reply(stream, buffered, request, size)
                    else:
                        await stream.send(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
            except (*_CLOSED, ValueError):
                return

    async def _stream_reply(
        self,
        stream: ByteStream,
        buffered: BufferedByteReceiveStream,
        request: RecordedRequest,
        request_size: int,
    ) -> None:
        self._responses += 1
        number = self._responses
        scenario = self.script.choose(request.user_text)
        index = min(request.tool_calls_answered, len(scenario.replies) - 1)
        reply = scenario.replies[index]
        if request.tool_calls_answered >= len(scenario.replies):
            reply = Reply(text="(the scripted model has nothing more to say in this turn)")
        await stream.send(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"cache-control: no-cache\r\ntransfer-encoding: chunked\r\n"
            + _limit_headers(reply)
            + b"\r\n"
        )
        writer = _ChunkedEvents(stream)
        finished = await self._play(writer, buffered, reply, number, request_size)
        await writer.flush()
        if finished:
            await stream.send(b"0\r\n\r\n")

    async def _play(
        self,
        out: _ChunkedEvents,
        buffered: BufferedByteReceiveStream,
        reply: Reply,
        number: int,
        request_size: int,
    ) -> bool:
        """Send one reply; False when the client went away while it was held."""
        response_id = f"resp-{number}"
        await out.send(sse.created(response_id))
        if reply.reasoning:
            reasoning_id = self._item_id("rs", number, 0)
            await out.send(sse.reasoning_added(reasoning_id))
            for piece in _pieces(reply.reasoning, reply.chunk):
                await out.send(sse.reasoning_delta(reasoning_id, piece))
            await out.send(sse.reasoning_done(reasoning_id, reply.reasoning))
        text = reply.full_text.replace("{scenarios}", self.script.menu())
        if text or reply.hold:
            for copy in range(reply.messages):
                message_id = self._item_id("msg", number, copy)
                part = text.replace("{part}", str(copy + 1))
                if not await self._message(out, buffered, reply, message_id, part):
                    return False
                if reply.cut:
                    return True
        tool = _tool_call(reply, "call_0" if self.ids == "reused" else f"call-{number}")
        if tool is not None:
            await out.send(tool)
        if reply.fail is not None:
            await out.send(sse.failed(response_id, reply.fail))
        elif not reply.cut:
            await out.send(sse.completed(response_id, request_size // 4, len(text) // 4))
        return True

    def _item_id(self, kind: str, response: int, copy: int) -> str | None:
        if self.ids == "none":
            return None
        if self.ids == "reused":
            return f"{kind}_0"
        return f"{kind}-{response}" if copy == 0 else f"{kind}-{response}-{copy}"

    async def _message(
        self,
        out: _ChunkedEvents,
        buffered: BufferedByteReceiveStream,
        reply: Reply,
        message_id: str | None,
        text: str,
    ) -> bool:
        """Stream one message item; False when the client went away while it was held."""
        await out.send(sse.message_added(message_id))
        for piece in _pieces(text, reply.chunk):
            await out.send(sse.text_delta(message_id, piece))
            if reply.pace_ms:
                await out.flush()
                await anyio.sleep(reply.pace_ms / 1000)
        if reply.hold:
            await out.flush()
            if not await self._hold(buffered):
                return False
        if not reply.cut:
            await out.send(sse.message_done(message_id, text))
        return True

    async def _hold(self, buffered: BufferedByteReceiveStream) -> bool:
        """Wait for `release()`; False if the client closed the connection first."""
        release = self._release
        client_left = False
        self.holding += 1
        self._notify_change()
        try:
            with anyio.move_on_after(HOLD_LIMIT_SECONDS):
                async with anyio.create_task_group() as waiting:

                    async def until_released() -> None:
                        await release.wait()
                        waiting.cancel_scope.cancel()

                    async def until_client_leaves() -> None:
                        nonlocal client_left
                        try:
                            await buffered.receive()
                        except _CLOSED:
                            client_left = True
                        waiting.cancel_scope.cancel()

                    waiting.start_soon(until_released)
                    waiting.start_soon(until_client_leaves)
        finally:
            self.holding -= 1
        return not client_left


class _ChunkedEvents:
    """Writes SSE frames as HTTP chunks.

    Frames are gathered up to `CHUNK_BYTES` and written together, so an unpaced reply goes
    out as fast as the socket takes it; `flush()` sends what is gathered (before a pause).
    """

    def __init__(self, stream: ByteStream) -> None:
        self._stream = stream
        self._pending = bytearray()

    async def send(self, event: sse.Event) -> None:
        self._pending += sse.encode(event)
        if len(self._pending) >= CHUNK_BYTES:
            await self.flush()

    async def flush(self) -> None:
        if self._pending:
            data = bytes(self._pending)
            self._pending.clear()
            await self._stream.send(b"%x\r\n%b\r\n" % (len(data), data))


def _limit_headers(reply: Reply) -> bytes:
    """The usage-limit headers OpenAI's servers send, when the reply says how much is used."""
    if reply.limit_used is None:
        return b""
    weekly = reply.limit_used // 5
    now = int(time.time())
    return (
        f"x-codex-primary-used-percent: {reply.limit_used}\r\n"
        "x-codex-primary-window-minutes: 300\r\n"
        f"x-codex-primary-reset-at: {now + 3600}\r\n"
        f"x-codex-secondary-used-percent: {weekly}\r\n"
        "x-codex-secondary-window-minutes: 10080\r\n"
        f"x-codex-secondary-reset-at: {now + 86400}\r\n"
    ).encode()


def _pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


def _tool_call(reply: Reply, call_id: str) -> sse.Event | None:
    if reply.exec is not None:
        arguments: dict[str, Any] = {"cmd": reply.exec, "yield_time_ms": 1000}
        if reply.justification is not None:
            arguments["sandbox_permissions"] = "require_escalated"
            arguments["justification"] = reply.justification
        if reply.prefix_rule:
            arguments["prefix_rule"] = list(reply.prefix_rule)
        return sse.function_call(call_id, "exec_command", arguments)
    if reply.ask:
        return sse.function_call(call_id, "request_user_input", {"questions": list(reply.ask)})
    if reply.call is not None:
        arguments = dict(reply.arguments or {})
        return sse.function_call(call_id, reply.call, arguments, reply.namespace)
    if reply.patch is not None:
        command = f"apply_patch <<'EOF'\n{reply.patch.strip()}\nEOF\n"
        return sse.function_call(call_id, "exec_command", {"cmd": command, "yield_time_ms": 1000})
    return None


async def _read_request(buffered: BufferedByteReceiveStream) -> tuple[RecordedRequest, int]:
    head = await buffered.receive_until(b"\r\n\r\n", MAX_HEADER_BYTES)
    request_line, *header_lines = head.decode("latin-1").split("\r\n")
    method, path, _ = request_line.split(" ", 2)
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        raw = await _read_chunked(buffered)
    else:
        length = int(headers.get("content-length") or 0)
        if length > MAX_BODY_BYTES:
            raise anyio.BrokenResourceError
        raw = await buffered.receive_exactly(length) if length else b""
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = None
    return RecordedRequest(method, path, headers, body), len(raw)


async def _read_chunked(buffered: BufferedByteReceiveStream) -> bytes:
    body = bytearray()
    while True:
        size = int((await buffered.receive_until(b"\r\n", 1024)).split(b";")[0], 16)
        if size == 0:
            await buffered.receive_until(b"\r\n", MAX_HEADER_BYTES)
            return bytes(body)
        if len(body) + size > MAX_BODY_BYTES:
            raise anyio.BrokenResourceError
        body += await buffered.receive_exactly(size)
        await buffered.receive_exactly(2)


@asynccontextmanager
async def run_scripted_model(
    script: Script | None = None,
    port: int = 0,
    bound: socket.socket | None = None,
    ids: Ids = "unique",
) -> AsyncIterator[ScriptedModel]:
    """Start the scripted model on 127.0.0.1 (`port`, or any free one, or the listening
    socket `bound`, which it then owns), naming its items as `ids` says; stop it on exit."""
    listener: Listener[Any]
    if bound is not None:
        listener = await SocketListener.from_socket(bound)
    else:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
    model = ScriptedModel(script or load_script(), listener.extra(SocketAttribute.local_port), ids)
    async with listener, task_group() as tasks:
        tasks.start_soon(listener.serve, model.serve_connection)
        try:
            yield model
        finally:
            tasks.cancel_scope.cancel()
