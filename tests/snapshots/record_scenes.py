"""Record the scenes the snapshot tests replay, from the real codex binary on the scripted model.

Run `.venv/bin/python -m tests.snapshots.record_scenes` after a change to what the engine
emits; it rewrites `tests/snapshots/recordings/*.jsonl`. What varies from run to run (times,
durations, temporary paths, interaction ids, token counts) is replaced with fixed values, so
the snapshots only change when the UI does.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from engine.engine import Engine
from engine.events import (
    ConversationUpdated,
    EngineEvent,
    InteractionRequested,
    ItemDelta,
    TokenUsageUpdated,
    TurnCompleted,
)
from engine.offline import offline_settings
from engine.recording import event_to_json
from engine.scripted_model import run_scripted_model
from engine.settings import Settings

RECORDINGS = Path(__file__).with_name("recordings")
WORKSPACE = "/home/dev/project"
START = 4_000_000_000.0

Stop = Callable[[EngineEvent, list[EngineEvent]], bool]


def at_turn_end(event: EngineEvent, seen: list[EngineEvent]) -> bool:
    """After the turn has ended and the conversation is idle again."""
    ended = any(isinstance(e, TurnCompleted) for e in seen)
    return ended and isinstance(event, ConversationUpdated) and event.info.state == "idle"


def mid_answer(event: EngineEvent, seen: list[EngineEvent]) -> bool:
    deltas = [e for e in seen if isinstance(e, ItemDelta) and e.kind == "agent_message"]
    return len(deltas) >= 40


def at_question(event: EngineEvent, _: list[EngineEvent]) -> bool:
    return isinstance(event, InteractionRequested)


SCENES: dict[str, tuple[str, Stop, bool]] = {
    "empty": ("", at_turn_end, False),  # stops once the thread has started
    "streaming": ("show markdown", mid_answer, False),
    "markdown": ("show markdown", at_turn_end, False),
    "forty_lines": ("print forty lines", at_turn_end, False),
    "approval": ("approval", at_question, False),
    "everything": ("do it all", at_turn_end, True),
}


async def record(text: str, stop: Stop, approve: bool) -> list[EngineEvent]:
    with tempfile.TemporaryDirectory() as scratch:
        home, workspace = Path(scratch, "home"), Path(scratch, "ws")
        await anyio.Path(home).mkdir()
        await anyio.Path(workspace).mkdir()
        async with run_scripted_model() as model:
            settings = offline_settings(Settings(), model, home)
            async with Engine.open(settings, cwd=workspace) as engine:
                events = engine.events()
                conversation = await engine.new_conversation("Conversation 1")
                seen: list[EngineEvent] = []
                if not text:
                    async for event in events:
                        seen.append(event)
                        if isinstance(event, ConversationUpdated) and event.info.thread_id:
                            return seen
                await engine.submit(conversation.id, text)
                async for event in events:
                    seen.append(event)
                    if approve and isinstance(event, InteractionRequested):
                        await engine.execute(conversation.id, f"/approve {event.interaction.id}")
                    elif stop(event, seen):
                        break
                return seen


def normalize(events: list[EngineEvent], workspace: str) -> list[dict[str, Any]]:
    """Fixed times, durations, paths, ids and token counts."""
    kept = [e for e in events if not isinstance(e, TokenUsageUpdated)]
    text = "\n".join(json.dumps(event_to_json(e)) for e in kept)
    text = text.replace(workspace, WORKSPACE)
    # The recording machine's login shell may print its own warnings into command output.
    text = re.sub(r"pyenv: [^\\\"]*\\n", "", text)
    ids = sorted({e.interaction.id for e in kept if isinstance(e, InteractionRequested)})
    for number, interaction_id in enumerate(ids):
        text = re.sub(rf"\b{interaction_id}\b", f"qx{number}a", text)
    rows = [json.loads(line) for line in text.splitlines()]
    for number, row in enumerate(rows, 1):
        row["seq"] = number
        row["at"] = START + number
        _fix_durations(row)
    return rows


def _fix_durations(value: Any) -> None:
    if isinstance(value, dict):
        for key in list(value):
            if key in ("duration_ms", "durationMs") and isinstance(value[key], int):
                value[key] = 1200
            elif key in ("turn_started_at",) and value[key] is not None:
                value[key] = START
            else:
                _fix_durations(value[key])
    elif isinstance(value, list):
        for item in value:
            _fix_durations(item)


async def main() -> None:
    RECORDINGS.mkdir(exist_ok=True)
    for name, (text, stop, approve) in SCENES.items():
        events = await record(text, stop, approve)
        workspace = next(e.info.cwd for e in events if isinstance(e, ConversationUpdated))
        rows = normalize(events, workspace)
        path = RECORDINGS / f"{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        print(f"{path.name}: {len(rows)} events")


if __name__ == "__main__":
    anyio.run(main)
