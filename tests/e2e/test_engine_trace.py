"""The trace: complete and ordered, bounded with a correct marker, exported without secrets."""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.events import (
    EngineEvent,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    ItemDelta,
    SubmissionAccepted,
    TraceGap,
    TurnCompleted,
    TurnStarted,
)
from engine.protocol import AgentMessageItem, CommandExecutionItem, FileChangeItem
from engine.scripted_model import ScriptedModel
from engine.settings import LimitsSettings, Settings
from engine.transport.offline import OFFLINE_PROVIDER, offline_settings
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import recording

pytestmark = pytest.mark.anyio


async def test_a_rich_turn_is_traced_in_order(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "do it all")
        asked = (await log.wait_for(InteractionRequested)).interaction
        await engine.execute(conversation.id, f"/approve {asked.id}")
        done = await log.turn_completed(conversation.id)
        trace = engine.trace(conversation.id, done.turn_id)
    assert done.status == "completed"
    assert [e.seq for e in trace] == sorted(e.seq for e in trace)
    live = [e for e in log.events if e.conversation_id == conversation.id]
    assert {e.seq for e in trace} <= {e.seq for e in live}
    assert isinstance(trace[0], TurnStarted)
    assert isinstance(trace[-1], TurnCompleted)
    names = [type(e).__name__ for e in trace if not type(e).__name__.endswith("Delta")]
    order = [
        "TurnStarted",
        "InteractionRequested",
        "InteractionResolved",
        "TurnCompleted",
    ]
    positions = [names.index(name) for name in order]
    assert positions == sorted(positions)
    reasoning = "".join(
        e.text for e in trace if isinstance(e, ItemDelta) and e.kind == "reasoning_summary"
    )
    assert reasoning.startswith("First I write a greeting")
    completed = [e.item for e in trace if isinstance(e, ItemCompleted)]
    assert any(isinstance(i, CommandExecutionItem) and i.status == "completed" for i in completed)
    assert any(isinstance(i, FileChangeItem) and i.status == "completed" for i in completed)
    assert isinstance(completed[-1], AgentMessageItem)
    assert (workspace / "notes.md").read_text() == "# Notes\n\nWritten by the scripted model.\n"
    assert next(e for e in trace if isinstance(e, InteractionResolved)).outcome == "accepted"
    between = engine.trace(conversation.id, None)
    assert any(isinstance(e, SubmissionAccepted) for e in between)


async def test_a_turn_of_more_events_than_the_trace_keeps_has_head_and_tail_with_one_marker(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    """The long answer's 21,000 deltas come as some hundreds of events (a run of deltas read
    at once is one), still far more than the trace keeps of a turn here."""
    limit = 20
    settings = Settings(limits=LimitsSettings(trace_events_per_turn=limit))
    async with open_engine(scripted_model, codex_home, workspace, settings) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "long answer")
        done = await log.turn_completed(conversation.id)
        trace = engine.trace(conversation.id, done.turn_id)
    gaps = [e for e in trace if isinstance(e, TraceGap)]
    assert len(gaps) == 1
    gap_at = trace.index(gaps[0])
    head, tail = trace[:gap_at], trace[gap_at + 1 :]
    assert isinstance(head[0], TurnStarted)
    ours = [e for e in log.events if e.conversation_id == conversation.id]
    turn_seqs = range(head[0].seq, tail[-1].seq + 1)
    in_turn = [e for e in ours if e.seq in turn_seqs]
    assert len(in_turn) > 3 * limit
    half = limit // 2
    assert (kept(head), kept(tail)) == (kept(in_turn[:half]), kept(in_turn[-half:]))
    assert len(head) + len(tail) < limit, "the deltas of the ended turn are joined"
    assert gaps[0].dropped == len(in_turn) - limit
    assert tail[-1].seq == max(e.seq for e in in_turn)
    streamed = "".join(e.text for e in in_turn if isinstance(e, ItemDelta))
    joined = [e for e in [*head, *tail] if isinstance(e, ItemDelta)]
    assert all(delta.text in streamed for delta in joined), "each side holds its text"


def kept(events: list[EngineEvent]) -> int:
    """How many of codex's notifications `events` stand for (a delta for as many as it
    joins)."""
    return sum(e.joined if isinstance(e, ItemDelta) else 1 for e in events)


async def test_the_exported_trace_holds_no_configured_api_key(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "sk-deck-" + secrets.token_hex(16)
    monkeypatch.setenv("DECK_TEST_API_KEY", key)
    settings = offline_settings(Settings(), scripted_model, codex_home)
    provider = replace(settings.providers[OFFLINE_PROVIDER], env_key="DECK_TEST_API_KEY")
    settings = replace(settings, providers={OFFLINE_PROVIDER: provider})
    async with Engine.open(settings, cwd=workspace) as engine, recording(engine) as log:
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, f"my key is {key}, show markdown")
        await log.turn_completed(conversation.id)
        exported = tmp_path / "trace.jsonl"
        lines = await engine.export_trace(conversation.id, exported)
    assert scripted_model.responses_requests()[0].headers["authorization"] == f"Bearer {key}"
    accepted = log.of(SubmissionAccepted, conversation.id)
    assert accepted[0].text == f"my key is {key}, show markdown"
    text = exported.read_text()
    assert key not in text
    assert "my key is [redacted], show markdown" in text
    rows = [json.loads(line) for line in text.splitlines()]
    assert len(rows) == lines > 10
    assert {"SubmissionAccepted", "TurnStarted", "ItemStarted", "TurnCompleted"} <= {
        row["type"] for row in rows
    }
    assert [row["seq"] for row in rows] == sorted(row["seq"] for row in rows)
