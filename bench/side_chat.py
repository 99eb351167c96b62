"""Side chats: how long until the first answer token, and what the private codex costs.

On the real codex binary and the scripted model, after one turn in a conversation:
- open: `/side` until the fork is ready (a codex process started, initialized, thread forked);
- first token: a side question until its first answer delta, cold (a new side chat each time)
  and warm (follow-ups in one side chat), side by side with the same question asked in the
  conversation itself;
- memory: resident size of the side chat's codex next to the conversation's own codex.
Run: `.venv/bin/python -m bench.side_chat`.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from bench.figures import figure, print_table, save
from engine.engine import Engine
from engine.events import (
    EngineEvent,
    ItemDelta,
    SideChatAnswered,
    SideChatDelta,
    TurnCompleted,
)
from engine.scripted_model import run_scripted_model
from engine.settings import Settings
from engine.transport.fanout import Subscription
from engine.transport.offline import offline_settings

RUNS = 10
COLD_RUNS = 10
QUESTION = "what did you do?"


def resident_kib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return float(line.split()[1])
    raise LookupError(f"no VmRSS for {pid}")


def codex_children(exclude: set[int]) -> list[int]:
    """This process's codex app-server children."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in exclude:
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"app-server" in cmdline:
            found.append(int(entry.name))
    return found


async def until(events: Subscription[EngineEvent], kind: type[EngineEvent]) -> float:
    """perf_counter() when the next event of `kind` arrives."""
    with anyio.fail_after(30):
        async for event in events:
            if isinstance(event, kind):
                return time.perf_counter()
    raise EOFError("the engine stopped")


async def side_question(engine: Engine, conversation_id: str, new: bool) -> tuple[float, float]:
    """Milliseconds to the first answer delta and to the whole answer."""
    with engine.events() as events:
        started = time.perf_counter()
        result = await engine.ask_aside(conversation_id, QUESTION, new=new)
        assert result.ok, result.message
        first = await until(events, SideChatDelta)
        done = await until(events, SideChatAnswered)
    return (first - started) * 1000, (done - started) * 1000


async def main_question(engine: Engine, conversation_id: str) -> float:
    """Milliseconds from submitting in the conversation itself to its first answer delta."""
    first = None
    with engine.events() as events, anyio.fail_after(30):
        started = time.perf_counter()
        await engine.submit(conversation_id, QUESTION)
        async for event in events:
            if first is None and isinstance(event, ItemDelta) and event.kind == "agent_message":
                first = time.perf_counter()
            if isinstance(event, TurnCompleted):
                break
    assert first is not None, "the conversation's answer did not stream"
    return (first - started) * 1000


async def measure(root: Path) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {
        name: []
        for name in (
            "open",
            "cold first token",
            "warm first token",
            "warm whole answer",
            "conversation first token",
            "side codex rss",
            "conversation codex rss",
        )
    }
    (root / "home").mkdir()
    (root / "ws").mkdir()
    async with run_scripted_model() as model:
        settings = offline_settings(Settings(), model, root / "home")
        async with Engine.open(settings, cwd=root / "ws") as engine:
            conversation = await engine.new_conversation()
            with engine.events() as events:
                await engine.submit(conversation.id, "count for me")
                await until(events, TurnCompleted)
            [own] = codex_children(set())
            for _ in range(COLD_RUNS):
                started = time.perf_counter()
                side = await engine.open_side_chat(conversation.id)
                values["open"].append((time.perf_counter() - started) * 1000)
                await engine.close_side_chat(conversation.id, side.id)
                first, _ = await side_question(engine, conversation.id, new=True)
                values["cold first token"].append(first)
                [side_info] = engine.side_chats(conversation.id)
                await engine.close_side_chat(conversation.id, side_info.id)
            await side_question(engine, conversation.id, new=True)
            for _ in range(RUNS):
                first, whole = await side_question(engine, conversation.id, new=False)
                values["warm first token"].append(first)
                values["warm whole answer"].append(whole)
                values["conversation first token"].append(
                    await main_question(engine, conversation.id)
                )
                [side_pid] = codex_children({own})
                values["side codex rss"].append(resident_kib(side_pid) / 1024)
                values["conversation codex rss"].append(resident_kib(own) / 1024)
    return values


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        values = anyio.run(measure, Path(scratch))
    units = {"rss": "MiB"}
    figures: dict[str, dict[str, Any]] = {
        f"side chat: {name}": figure(runs, units["rss"] if "rss" in name else "ms")
        for name, runs in values.items()
    }
    print_table(figures)
    ratios = {
        "side warm first token / conversation first token": (
            figures["side chat: warm first token"]["median"]
            / figures["side chat: conversation first token"]["median"]
        ),
        "side codex rss / conversation codex rss": (
            figures["side chat: side codex rss"]["median"]
            / figures["side chat: conversation codex rss"]["median"]
        ),
    }
    for name, ratio in ratios.items():
        print(f"{name:52} {ratio:6.2f}×")
    save(figures, ratios)


if __name__ == "__main__":
    main()
