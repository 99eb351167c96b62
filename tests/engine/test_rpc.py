"""Framing tests of engine.transport.rpc against a scripted peer over in-memory byte streams."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from engine.errors import ConnectionClosed, RpcError
from engine.transport.fanout import Subscription
from engine.transport.rpc import (
    BadLine,
    Incoming,
    Notification,
    RpcConnection,
    ServerRequest,
)
from tests.engine.bytestreams import MemoryByteReceive, MemoryByteSend, byte_pipe

pytestmark = pytest.mark.anyio


class Peer:
    """The other end of the connection: writes raw lines, reads what the client sent."""

    def __init__(self, to_client: MemoryByteSend, from_client: MemoryByteReceive) -> None:
        self._to_client = to_client
        self._from_client = from_client
        self._pending = b""

    async def write(self, data: bytes | dict[str, Any]) -> None:
        if isinstance(data, dict):
            data = json.dumps(data).encode() + b"\n"
        await self._to_client.send(data)

    async def read(self) -> dict[str, Any]:
        while b"\n" not in self._pending:
            self._pending += await self._from_client.receive()
        line, _, self._pending = self._pending.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    async def hang_up(self) -> None:
        await self._to_client.aclose()


@asynccontextmanager
async def connected(
    max_line_bytes: int = 1024, reason: str = "peer hung up"
) -> AsyncIterator[tuple[RpcConnection, Peer]]:
    to_client, client_in = byte_pipe()
    client_out, from_client = byte_pipe()

    async def describe() -> str:
        return reason

    rpc = RpcConnection(
        client_out, client_in, max_line_bytes=max_line_bytes, describe_close=describe
    )
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(rpc.run)
        with anyio.fail_after(5):
            yield rpc, Peer(to_client, from_client)
        tasks.cancel_scope.cancel()


async def next_incoming(subscription: Subscription[Incoming]) -> Incoming:
    return await anext(subscription)


def said(incoming: Incoming) -> tuple[str, Any]:
    """A notification's method and params (as Python values)."""
    assert isinstance(incoming, Notification), incoming
    return incoming.method, incoming.value()


async def test_request_gets_its_own_result_with_int_and_string_ids() -> None:
    async with connected() as (rpc, peer):
        results: dict[str, Any] = {}

        async def ask(name: str) -> None:
            results[name] = await rpc.request(name, {"n": name})

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ask, "first")
            tasks.start_soon(ask, "second")
            one, two = await peer.read(), await peer.read()
            # Answered out of order: each waiter still gets its own result.
            await peer.write({"id": two["id"], "result": {"for": two["method"]}})
            await peer.write({"id": one["id"], "result": {"for": one["method"]}})
        assert results == {"first": {"for": "first"}, "second": {"for": "second"}}
        assert {one["params"]["n"], two["params"]["n"]} == {"first", "second"}


async def test_string_and_int_ids_are_not_confused() -> None:
    async with connected() as (rpc, peer):
        events = rpc.subscribe()
        async with anyio.create_task_group() as tasks:
            result: list[Any] = []

            async def ask() -> None:
                result.append(await rpc.request("m"))

            tasks.start_soon(ask)
            sent = await peer.read()
            await peer.write({"id": str(sent["id"]), "result": "wrong id type"})
            bad = await next_incoming(events)
            assert isinstance(bad, BadLine)
            assert bad.reason == "response to no pending request"
            await peer.write({"id": sent["id"], "result": "right"})
        assert result == ["right"]


async def test_error_response_raises_rpc_error_with_code_and_message() -> None:
    async with connected() as (rpc, peer):
        async with anyio.create_task_group() as tasks:
            caught: list[RpcError] = []

            async def ask() -> None:
                try:
                    await rpc.request("no/such")
                except RpcError as error:
                    caught.append(error)

            tasks.start_soon(ask)
            sent = await peer.read()
            await peer.write(
                {"id": sent["id"], "error": {"code": -32600, "message": "unknown variant"}}
            )
        assert caught[0].code == -32600
        assert caught[0].message == "unknown variant"


async def test_notifications_reach_every_subscriber_in_order() -> None:
    async with connected() as (rpc, peer):
        first, second = rpc.subscribe(), rpc.subscribe()
        for n in range(5):
            await peer.write({"method": "tick", "params": {"n": n}})
        for stream in (first, second):
            got = [await next_incoming(stream) for _ in range(5)]
            assert [said(item) for item in got] == [("tick", {"n": n}) for n in range(5)]


async def test_server_request_is_answered_while_the_reader_keeps_going() -> None:
    async with connected() as (rpc, peer):
        release = anyio.Event()

        async def slow_handler(request: ServerRequest) -> Any:
            await release.wait()
            return {"decision": "decline", "for": request.method}

        rpc.handle_requests(slow_handler)
        events = rpc.subscribe()
        await peer.write({"id": 0, "method": "item/commandExecution/requestApproval"})
        # The handler waits for a human; a notification behind it still arrives at once.
        await peer.write({"method": "after", "params": {}})
        assert await next_incoming(events) == ServerRequest(
            0, "item/commandExecution/requestApproval", None
        )
        assert said(await next_incoming(events)) == ("after", {})
        release.set()
        reply = await peer.read()
        assert reply == {
            "id": 0,
            "result": {"decision": "decline", "for": "item/commandExecution/requestApproval"},
        }


async def test_handler_errors_become_json_rpc_errors() -> None:
    async with connected() as (rpc, peer):

        async def handler(request: ServerRequest) -> Any:
            if request.method == "refuse":
                raise RpcError(-32601, "not handled")
            raise ValueError("broken handler")

        rpc.handle_requests(handler)
        await peer.write({"id": "a", "method": "refuse"})
        await peer.write({"id": "b", "method": "crash"})
        replies = {m["id"]: m for m in (await peer.read(), await peer.read())}
        assert replies["a"]["error"] == {"code": -32601, "message": "not handled"}
        assert replies["b"]["error"]["code"] == -32603
        assert "broken handler" in replies["b"]["error"]["message"]


async def test_without_a_handler_requests_are_refused() -> None:
    async with connected() as (_rpc, peer):
        await peer.write({"id": 7, "method": "item/tool/requestUserInput"})
        reply = await peer.read()
        assert reply["id"] == 7
        assert reply["error"]["code"] == -32601


async def test_garbage_and_oversized_lines_are_reported_and_skipped() -> None:
    async with connected(max_line_bytes=100) as (rpc, peer):
        events = rpc.subscribe()
        await peer.write(b"not json at all\n")
        await peer.write(b"[1, 2, 3]\n")
        await peer.write(b'{"neither": true}\n')
        await peer.write(b'{"method": "ok", "params": ' + b'"' + b"x" * 300 + b'"}\n')
        await peer.write(b"\xff\xfe\n")
        await peer.write({"method": "still-here", "params": {"n": 1}})
        reasons = []
        for _ in range(5):
            item = await next_incoming(events)
            assert isinstance(item, BadLine)
            reasons.append(item.reason)
        assert reasons[0].startswith("not JSON")
        assert reasons[1] == "not a JSON object"
        assert reasons[2] == "neither a request, a response nor a notification"
        assert "over the 100-byte limit" in reasons[3]
        assert reasons[4].startswith("not JSON")
        assert said(await next_incoming(events)) == ("still-here", {"n": 1})


async def test_an_oversized_line_split_over_many_chunks_is_skipped_whole() -> None:
    async with connected(max_line_bytes=50) as (rpc, peer):
        events = rpc.subscribe()
        await peer.write(b'{"method": "huge", "params": "')
        for _ in range(10):
            await peer.write(b"y" * 40)
        await peer.write(b'"}\n{"method": "next"}\n')
        skipped = await next_incoming(events)
        assert isinstance(skipped, BadLine)
        assert skipped.size > 400
        assert said(await next_incoming(events)) == ("next", None)


async def test_eof_fails_every_waiter_at_once_with_the_reason() -> None:
    async with connected(reason="codex app-server exited with code 3: boom") as (rpc, peer):
        events = rpc.subscribe()
        errors: list[ConnectionClosed] = []

        async def ask(n: int) -> None:
            try:
                await rpc.request(f"m{n}")
            except ConnectionClosed as error:
                errors.append(error)

        async with anyio.create_task_group() as tasks:
            for n in range(3):
                tasks.start_soon(ask, n)
            for _ in range(3):
                await peer.read()
            await peer.hang_up()
        assert [str(e) for e in errors] == ["codex app-server exited with code 3: boom"] * 3
        assert [item async for item in events] == []
        with pytest.raises(ConnectionClosed, match="exited with code 3"):
            await rpc.request("after-close")
        assert rpc.closed_reason == "codex app-server exited with code 3: boom"


async def test_a_last_line_without_newline_is_still_read() -> None:
    async with connected() as (rpc, peer):
        events = rpc.subscribe()
        await peer.write(b'{"method": "last"}')
        await peer.hang_up()
        assert [said(item) async for item in events] == [("last", None)]


async def test_what_comes_before_the_first_subscription_waits_for_it() -> None:
    # codex sends its start-up warnings just after the answer to `initialize`, often in the
    # same read: they come before anything has subscribed, and are not lost.
    async with connected() as (rpc, peer):
        async with anyio.create_task_group() as tasks:

            async def answer() -> None:
                asked = await peer.read()
                answered = {"id": asked["id"], "result": {}}
                warning = {"method": "configWarning", "params": {"summary": "no bubblewrap"}}
                lines = [json.dumps(message).encode() for message in (answered, warning)]
                await peer.write(b"\n".join(lines) + b"\n")  # in one read

            tasks.start_soon(answer)
            assert await rpc.request("initialize", {}) == {}
        await peer.write({"method": "later", "params": {}})
        subscription = rpc.subscribe()
        got = [said(await next_incoming(subscription)) for _ in range(2)]
        assert got == [("configWarning", {"summary": "no bubblewrap"}), ("later", {})]
        late = rpc.subscribe()  # only the first subscriber is given what came before it
        await peer.write({"method": "last", "params": {}})
        assert said(await next_incoming(late)) == ("last", {})
