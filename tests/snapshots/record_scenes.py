"""Record the scenes the snapshot tests replay, from the real codex binary on the scripted model.

Run `.venv/bin/python -m tests.snapshots.record_scenes [SCENE …]` after a change to what the engine
emits; it rewrites `tests/snapshots/recordings/*.jsonl`. What varies from run to run (times,
durations, temporary paths, interaction ids, token counts) is replaced with fixed values, so
the snapshots only change when the UI does.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from engine.engine import Engine
from engine.events import (
    ConversationUpdated,
    EngineEvent,
    InteractionInfo,
    InteractionRequested,
    ItemDelta,
    Notice,
    SideChatAnswered,
    TokenUsageUpdated,
    TurnCompleted,
    UnknownMessage,
)
from engine.records.recording import event_to_json, recording_header
from engine.scripted_model import run_scripted_model
from engine.settings import Settings
from engine.transport.fanout import Subscription
from engine.transport.offline import offline_settings

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


def slow_answer_written(event: EngineEvent, seen: list[EngineEvent]) -> bool:
    """The slow answer has streamed all it will until it is stopped."""
    deltas = [e for e in seen if isinstance(e, ItemDelta) and e.kind == "agent_message"]
    return "".join(e.text for e in deltas).endswith("Thinking this through step by step")


def asked(count: int) -> Stop:
    """Once the `count`th request waits and its conversation says so."""

    def stop(event: EngineEvent, seen: list[EngineEvent]) -> bool:
        requests = sum(isinstance(e, InteractionRequested) for e in seen)
        return (
            requests >= count
            and isinstance(event, ConversationUpdated)
            and event.info.pending_interactions > 0
        )

    return stop


@dataclass(frozen=True)
class Scene:
    text: str
    stop: Stop
    answer: str = ""
    """A command run on each request (`/approve {id}`, `/stop` …)."""
    setup: tuple[str, ...] = ()
    """Commands run before the text is sent."""
    before: tuple[str, ...] = ()
    """Messages sent first, each waited for until its turn ends (what they ask, approved
    once)."""
    aside: tuple[str, ...] = ()
    """Side questions (`/side …`) asked once `stop` holds, each waited for until answered."""
    elsewhere: tuple[tuple[str, str], ...] = ()
    """Conversations started first: title, a message sent there, each waited for until it (or
    its sub-agent) asks something."""
    files: tuple[tuple[str, str], ...] = ()
    """Files in the workspace before anything is sent: name, content."""


SCENES: dict[str, Scene] = {
    "empty": Scene("", at_turn_end),  # stops once the thread has started
    "streaming": Scene("show markdown", mid_answer),
    "markdown": Scene("show markdown", at_turn_end),
    "forty_lines": Scene("print forty lines", at_turn_end),
    "approval": Scene("approval", asked(1)),
    "everything": Scene("do it all", at_turn_end, answer="/approve {id}"),
    "long_command": Scene("a long command", asked(1)),
    "long_diff": Scene("add a long file", asked(1), setup=("/approvals untrusted",)),
    "question": Scene("ask me", asked(1), setup=("/plan on",)),
    "expired": Scene("approval", at_turn_end, answer="/stop"),
    "two_hunks": Scene(
        "edit two places",
        asked(1),
        setup=("/approvals untrusted",),
        files=(("story.txt", "".join(f"line {n}\n" for n in range(1, 15))),),
    ),
    "rule": Scene("save a rule", asked(1), before=("save a rule", "print forty lines")),
    "inbox": Scene(
        "add a long file",
        asked(3),
        setup=("/approvals untrusted",),
        elsewhere=(("Deploy script", "approval"), ("Flaky test", "ask a helper")),
    ),
    "side": Scene(
        "take your time",
        slow_answer_written,
        before=("count for me",),
        aside=("/side what did you do?",),
    ),
    "two_sides": Scene(
        "take your time",
        slow_answer_written,
        before=("count for me",),
        aside=("/side what did you do?", "/side and before that?", "/newside try a command"),
    ),
}


async def record(scene: Scene) -> list[EngineEvent]:
    with tempfile.TemporaryDirectory() as scratch:
        home, workspace = Path(scratch, "home"), Path(scratch, "ws")
        await anyio.Path(home).mkdir()
        await anyio.Path(workspace).mkdir()
        for name, content in scene.files:
            await anyio.Path(workspace, name).write_text(content)
        async with run_scripted_model() as model:
            settings = offline_settings(Settings(), model, home)
            async with Engine.open(settings, cwd=workspace) as engine:
                events = engine.events()
                conversation = await engine.new_conversation("Conversation 1")
                seen: list[EngineEvent] = []
                if not scene.text:
                    async for event in events:
                        seen.append(event)
                        if isinstance(event, ConversationUpdated) and event.info.thread_id:
                            return seen
                for number, (title, text) in enumerate(scene.elsewhere, 1):
                    other = await engine.new_conversation(title)
                    await engine.submit(other.id, text)
                    await _until(events, seen, asked(number))
                for line in scene.setup:
                    await engine.execute(conversation.id, line)
                for text in scene.before:
                    await engine.submit(conversation.id, text)
                    async for event in events:
                        seen.append(event)
                        if isinstance(event, InteractionRequested):
                            await engine.execute(
                                conversation.id, f"/approve {event.interaction.id}"
                            )
                        elif isinstance(event, TurnCompleted):
                            break
                await engine.submit(conversation.id, scene.text)
                async for event in events:
                    seen.append(event)
                    if scene.answer and isinstance(event, InteractionRequested):
                        line = scene.answer.format(id=event.interaction.id)
                        await engine.execute(conversation.id, line)
                    elif scene.stop(event, seen):
                        break
                for line in scene.aside:
                    await engine.execute(conversation.id, line)
                    await _until(events, seen, lambda e, _: isinstance(e, SideChatAnswered))
                return seen


async def _until(events: Subscription[EngineEvent], seen: list[EngineEvent], stop: Stop) -> None:
    async for event in events:
        seen.append(event)
        if stop(event, seen):
            return


def form_scene(empty: list[EngineEvent]) -> list[EngineEvent]:
    """A form from an MCP server, built by hand: codex asks for one only on behalf of an MCP
    server, which the scripted model cannot stand in for."""
    conversation = next(e.info for e in empty if isinstance(e, ConversationUpdated))
    info = InteractionInfo(
        id="form1",
        kind="elicitation",
        conversation_id=conversation.id,
        turn_id="turn-form",
        item_id=None,
        server="issue-tracker",
        message="Details for the new issue",
        requested_schema={
            "type": "object",
            "properties": {
                "title": {"type": "string", "title": "Title", "minLength": 3},
                "priority": {
                    "type": "string",
                    "title": "Priority",
                    "enum": ["low", "high"],
                    "enumNames": ["Low", "High"],
                },
                "estimate": {"type": "integer", "title": "Estimate (hours)", "minimum": 1},
                "notify": {"type": "boolean", "title": "Notify the team"},
            },
            "required": ["title", "priority"],
        },
    )
    last = empty[-1]
    waiting = dataclasses.replace(
        conversation, state="waiting", pending_interactions=1, turn_id="turn-form"
    )
    return [
        *empty,
        InteractionRequested(
            seq=last.seq + 1, at=last.at, conversation_id=info.conversation_id, interaction=info
        ),
        ConversationUpdated(
            seq=last.seq + 2, at=last.at, conversation_id=info.conversation_id, info=waiting
        ),
    ]


def normalize(events: list[EngineEvent], workspace: str) -> list[dict[str, Any]]:
    """Fixed times, durations, paths, ids and token counts; nothing that depends on the
    recording machine (its sandbox warnings) or on start-up timing."""
    kept = [e for e in events if not isinstance(e, TokenUsageUpdated) and not machine_noise(e)]
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
        if row["type"] == "InteractionRequested":
            row["interaction"]["asked_at"] = row["at"]
        _fix_durations(row)
    return rows


def timed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows on a made-up clock that looks like a real turn: 20 ms between streamed
    pieces, 100 ms between other events, a command that runs 0.8 s, and 6 s of the user
    reading a request before answering it."""
    at = START
    timed_rows = []
    for row in rows:
        kind = row["type"]
        at += 0.02 if kind == "ItemDelta" else 0.1
        if kind == "InteractionResolved" and row.get("by") == "user":
            at += 6.0
        if kind == "ItemCompleted" and row["item"]["type"] == "commandExecution":
            at += 0.8
        timed_rows.append({**row, "at": round(at, 3)})
    return timed_rows


def machine_noise(event: EngineEvent) -> bool:
    if isinstance(event, Notice):
        return "bubblewrap" in event.text
    return isinstance(event, UnknownMessage) and event.method == "remoteControl/status/changed"


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


async def main(names: list[str]) -> None:
    RECORDINGS.mkdir(exist_ok=True)
    recorded = {}
    for name, scene in SCENES.items():
        if name in names or not names:
            recorded[name] = await record(scene)
    if "empty" in recorded:
        recorded["form"] = form_scene(recorded["empty"])
    scenes = {}
    for name, events in recorded.items():
        workspace = next(e.info.cwd for e in events if isinstance(e, ConversationUpdated))
        scenes[name] = normalize(events, workspace)
    if "everything" in scenes:
        scenes["timeline"] = timed(scenes["everything"])
    for name, rows in scenes.items():
        path = RECORDINGS / f"{name}.jsonl"
        lines = [recording_header(), *rows]
        path.write_text("".join(json.dumps(row) + "\n" for row in lines), encoding="utf-8")
        print(f"{path.name}: {len(rows)} events")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
