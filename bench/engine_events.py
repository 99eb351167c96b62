"""The engine's overhead: events per second through `Engine` vs the bare rpc reader, on the
same recorded stream.

A turn of the scripted model's `long answer` (≈21,000 agent-message deltas) is recorded once
from the real codex binary, then replayed from memory to (a) an `RpcConnection` that only
parses and dispatches, and (b) an `Engine` that turns it into typed events for a subscriber.
Run: `.venv/bin/python -m bench.engine_events`.
"""

from __future__ import annotations

import json
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from engine.engine import Engine
from engine.events import TurnCompleted
from engine.protocol import TextInput, ThreadStartParams, TurnStartParams
from engine.scripted_model import run_scripted_model
from engine.settings import Settings
from engine.transport.appserver import spawn_app_server
from engine.transport.binary import find_codex
from engine.transport.launch import launch_for, thread_defaults
from engine.transport.offline import offline_settings
from engine.transport.rpc import Notification, RpcConnection

RUNS = 5
CHUNK = 64 * 1024


class _Pipe(ByteReceiveStream, ByteSendStream):
    def __init__(self) -> None:
        self._send: MemoryObjectSendStream[bytes]
        self._receive: MemoryObjectReceiveStream[bytes]
        self._send, self._receive = anyio.create_memory_object_stream[bytes](math.inf)

    async def send(self, item: bytes) -> None:
        await self._send.send(item)

    async def receive(self, max_bytes: int = 65536) -> bytes:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise anyio.EndOfStream from None

    async def send_eof(self) -> None:
        self._send.close()

    async def aclose(self) -> None:
        self._send.close()


class Replay:
    """A transport that answers the engine's requests from a recording and then streams it."""

    def __init__(self, recording: dict[str, Any]) -> None:
        self._recording = recording
        self._to_client = _Pipe()
        self._from_client = _Pipe()

    @property
    def send(self) -> ByteSendStream:
        return self._from_client

    @property
    def receive(self) -> ByteReceiveStream:
        return self._to_client

    async def run(self) -> None:
        pending = b""
        while True:
            try:
                pending += await self._from_client.receive()
            except anyio.EndOfStream:
                return
            *lines, pending = pending.split(b"\n")
            for line in lines:
                await self._answer(json.loads(line))

    async def _answer(self, request: dict[str, Any]) -> None:
        if "id" not in request:
            return
        results = self._recording["results"]
        result = results.get(request["method"], {})
        await self._write(json.dumps({"id": request["id"], "result": result}).encode() + b"\n")
        if request["method"] == "turn/start":
            stream: bytes = self._recording["stream"]
            for start in range(0, len(stream), CHUNK):
                await self._write(stream[start : start + CHUNK])

    async def _write(self, data: bytes) -> None:
        await self._to_client.send(data)

    async def describe_close(self) -> str:
        return "the replay ended"

    def handshaken(self) -> None:
        pass

    async def aclose(self) -> None:
        await self._to_client.aclose()
        await self._from_client.aclose()


async def record(root: Path) -> dict[str, Any]:
    """One real `long answer` turn: the results of the requests and every notification."""
    (root / "home").mkdir()
    (root / "ws").mkdir()
    async with run_scripted_model() as model:
        settings = offline_settings(Settings(), model, root / "home")
        launch = launch_for(settings, find_codex(None).path, root / "ws")
        async with spawn_app_server(launch) as server:
            received = server.rpc.subscribe()
            defaults = thread_defaults(settings, root / "ws")
            opened_raw = await server.rpc.request(
                "thread/start", ThreadStartParams(**defaults.as_dict()).to_wire()
            )
            thread_id = opened_raw["thread"]["id"]
            params = TurnStartParams(thread_id=thread_id, input=[TextInput(text="long answer")])
            turn_raw = await server.rpc.request("turn/start", params.to_wire())
            lines = []
            async for incoming in received:
                if isinstance(incoming, Notification):
                    message = {"method": incoming.method, "params": incoming.value()}
                    lines.append(json.dumps(message))
                    if incoming.method == "turn/completed":
                        break
    return {
        "results": {
            "initialize": {"userAgent": "codex_deck/0.163.0 (replay)"},
            "thread/start": opened_raw,
            "turn/start": turn_raw,
        },
        "stream": ("\n".join(lines) + "\n").encode(),
        "count": len(lines),
    }


async def bare_rpc(recording: dict[str, Any]) -> float:
    """Seconds for the rpc reader to parse and dispatch the recorded notifications."""
    replay = Replay(recording)
    rpc = RpcConnection(replay.send, replay.receive)
    received = rpc.subscribe()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(replay.run)
        tasks.start_soon(rpc.run)
        started = time.perf_counter()
        await rpc.request("turn/start", {})
        count = 0
        async for incoming in received:
            count += 1
            if isinstance(incoming, Notification) and incoming.method == "turn/completed":
                break
        took = time.perf_counter() - started
        tasks.cancel_scope.cancel()
    assert count == recording["count"], (count, recording["count"])
    return took


async def through_engine(recording: dict[str, Any], cwd: Path) -> tuple[float, int]:
    """Seconds (and events) for the engine to turn the same stream into events."""
    async with Engine.open(Settings(), cwd=cwd, transport=Replay(recording)) as engine:
        events = engine.events()
        conversation = await engine.new_conversation()
        started = time.perf_counter()
        await engine.submit(conversation.id, "long answer")
        count = 0
        async for event in events:
            count += 1
            if isinstance(event, TurnCompleted):
                break
        return time.perf_counter() - started, count


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        recording = anyio.run(record, Path(scratch))
        rpc_rates, engine_rates, counts = [], [], []
        for _ in range(RUNS):
            rpc_rates.append(recording["count"] / anyio.run(bare_rpc, recording))
            took, events = anyio.run(through_engine, recording, Path(scratch))
            engine_rates.append(events / took)
            counts.append(events)
    rpc_median, engine_median = statistics.median(rpc_rates), statistics.median(engine_rates)
    size = len(recording["stream"])
    print(f"recorded turn: {recording['count']:,} notifications, {size:,} bytes")
    print(f"{'':28} {'median':>12} {'min':>12} {'max':>12}  (runs: {RUNS})")
    rows = (("bare rpc, notifications/s", rpc_rates), ("Engine, events/s", engine_rates))
    for name, rates in rows:
        low, middle, high = min(rates), statistics.median(rates), max(rates)
        print(f"{name:28} {middle:12,.0f} {low:12,.0f} {high:12,.0f}")
    print(f"events per run: {counts[0]:,}; Engine / bare rpc: {engine_median / rpc_median:.2f}")


if __name__ == "__main__":
    main()
