"""Engine-core figures: spawn→initialize latency, rpc throughput (ours and the official SDK's,
side by side on the same input), and the import time of the engine's modules.

Run: `.venv/bin/python -m bench.engine_core` (needs the `bench` extra for the SDK).
Prints a table and writes `bench/results.json`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from bench.figures import figure, print_table, save, scratch_root
from engine.protocol import TurnCompleted, parse_notification
from engine.transport.appserver import spawn_app_server
from engine.transport.binary import find_codex
from engine.transport.launch import Launch
from engine.transport.rpc import Notification, RpcConnection

NOTIFICATIONS = 50_000
THROUGHPUT_RUNS = 5
SPAWN_RUNS = 10
IMPORT_RUNS = 7


def write_stream(path: Path, count: int) -> None:
    """A turn's worth of notifications as codex sends them: mostly agent-message deltas."""
    thread, turn = "01a2289c-9d91-7761-ba6d-5ee8f60de034", "01a2289c-9daf-7df1-86a9-6cddd67e295a"
    lines = []
    for n in range(count - 1):
        if n % 100 == 0:
            item = {"type": "agentMessage", "id": f"msg-{n}", "text": ""}
            method, params = "item/started", {"item": item, "startedAtMs": n}
        elif n % 100 == 99:
            item = {"type": "agentMessage", "id": f"msg-{n - 99}", "text": "word " * 98}
            method, params = "item/completed", {"item": item, "completedAtMs": n}
        else:
            method, params = "item/agentMessage/delta", {"itemId": f"msg-{n}", "delta": "word "}
        message = {"method": method, "params": {"threadId": thread, "turnId": turn, **params}}
        lines.append(json.dumps({**message, "emittedAtMs": 1795977682316}))
    done = {"id": turn, "items": [], "status": "completed", "durationMs": 1}
    lines.append(
        json.dumps({"method": "turn/completed", "params": {"threadId": thread, "turn": done}})
    )
    path.write_text("\n".join(lines) + "\n")


async def ours(path: Path, typed: bool) -> float:
    """Seconds for our reader to parse and dispatch every notification `cat` prints."""
    started = time.perf_counter()
    process = await anyio.open_process(["cat", str(path)])
    assert process.stdin is not None
    assert process.stdout is not None
    rpc = RpcConnection(process.stdin, process.stdout)
    received = rpc.subscribe()
    count = 0
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(rpc.run)
        async for incoming in received:
            count += 1
            assert isinstance(incoming, Notification)
            if typed and isinstance(
                parse_notification(incoming.method, incoming.params), TurnCompleted
            ):
                break
        tasks.cancel_scope.cancel()
    await process.aclose()
    assert count == NOTIFICATIONS, count
    return time.perf_counter() - started


def sdk(path: Path) -> float:
    """Seconds for the official SDK client to route and type the same notifications."""
    from openai_codex.client import CodexClient, CodexConfig

    turn = "01a2289c-9daf-7df1-86a9-6cddd67e295a"
    started = time.perf_counter()
    client = CodexClient(CodexConfig(launch_args_override=("cat", str(path))))
    client.register_turn_notifications(turn)
    client.start()
    count = 0
    while True:
        count += 1
        if client.next_turn_notification(turn).method == "turn/completed":
            break
    client.close()
    assert count == NOTIFICATIONS, count
    return time.perf_counter() - started


async def spawn_latency(binary: Path, home: Path, workspace: Path) -> float:
    started = time.perf_counter()
    async with spawn_app_server(Launch(binary=binary, cwd=workspace, codex_home=home)):
        took = time.perf_counter() - started
    return took


def import_time(module: str) -> float:
    """Wall time of `import module` in a fresh interpreter, minus an empty one's."""

    def run(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - started

    return run(f"import {module}") - run("pass")


def main() -> None:
    figures: dict[str, dict[str, Any]] = {}
    with scratch_root() as root:
        stream = root / "stream.jsonl"
        write_stream(stream, NOTIFICATIONS)
        rows: dict[str, list[float]] = {"ours (raw)": [], "ours (typed)": [], "sdk (typed)": []}
        for _ in range(THROUGHPUT_RUNS):
            rows["ours (raw)"].append(NOTIFICATIONS / anyio.run(ours, stream, False))
            rows["ours (typed)"].append(NOTIFICATIONS / anyio.run(ours, stream, True))
            rows["sdk (typed)"].append(NOTIFICATIONS / sdk(stream))
        for name, values in rows.items():
            figures[f"rpc throughput, {name}"] = figure(values, "notifications/s")

        binary = find_codex(None).path
        spawns = [
            anyio.run(spawn_latency, binary, root / "home", root / "ws") for _ in range(SPAWN_RUNS)
        ]
        figures["spawn → initialize"] = figure([s * 1000 for s in spawns], "ms")

    modules = (
        "engine",
        "engine.settings",
        "engine.transport.appserver",
        "engine.scripted_model",
        "textual.app",
        "textual.app, engine.transport.appserver",
    )
    for module in modules:
        values = [import_time(module) * 1000 for _ in range(IMPORT_RUNS)]
        figures[f"import {module}"] = figure(values, "ms")

    ratio = (
        figures["rpc throughput, ours (typed)"]["median"]
        / figures["rpc throughput, sdk (typed)"]["median"]
    )
    print_table(figures)
    print(f"\nrpc throughput, ours (typed) / sdk (typed): {ratio:.2f}x")
    alone = figures["import textual.app"]["median"]
    both = figures["import textual.app, engine.transport.appserver"]["median"]
    print(f"engine.transport.appserver on top of textual.app: {both - alone:.0f} ms")
    save(figures, {"rpc ours/sdk": ratio})


if __name__ == "__main__":
    main()
