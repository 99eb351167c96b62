"""Load on one app-server: eight conversations, each with a running turn and five messages
queued behind it. The queue limit refuses the sixth with a clear message, every accepted
message is answered exactly once, and it all ends before a watchdog's deadline."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
import pytest
from msgspec.structs import replace

from engine.conversations.history_pages import FIRST_ITEMS
from engine.events import EngineEvent, ItemCompleted, TraceGap, TurnCompleted
from engine.protocol import AgentMessageItem
from engine.records.store import Store
from engine.scripted_model import ScriptedModel, load_script, run_scripted_model
from engine.scripted_model.scenario import builtin_files
from engine.settings import LimitsSettings, Settings
from engine.transport.fanout import Subscription
from tests.e2e.conftest import open_engine
from tests.reliability.report import Ledger, asked_of, lost_and_reruns

pytestmark = pytest.mark.anyio

CONVERSATIONS = 8
QUEUED = 5
WATCHDOG_SECONDS = 150
STORED = 50
ITEMS = 10_000
MANY_ITEMS = f"""
[[scenario]]
name = "many-items"
match = '(?i)\\bmany items\\b'

[[scenario.reply]]
messages = {ITEMS}
chunk = 100
text = "One of very many short answers."
"""


async def test_eight_conversations_with_full_queues_all_finish_once_each(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tally: Ledger
) -> None:
    limits = LimitsSettings(running_conversations=CONVERSATIONS, queued_messages=QUEUED)
    base = Settings(limits=limits)
    async with open_engine(scripted_model, codex_home, workspace, base) as (engine, log):
        conversations = [await engine.new_conversation() for _ in range(CONVERSATIONS)]
        accepted: list[str] = []
        refusals = 0
        for number, conversation in enumerate(conversations):
            first = f"count for me {number}-0"
            outcome = await engine.submit(conversation.id, first)
            assert outcome.how == "started", outcome.message
            accepted.append(first)
            for queued in range(1, QUEUED + 1):
                text = f"count for me {number}-{queued}"
                outcome = await engine.submit(conversation.id, text, "queue")
                assert outcome.how == "queued", outcome.message
                accepted.append(text)
            refused = await engine.submit(conversation.id, f"one too many {number}", "queue")
            refusals += not refused.accepted
            assert not refused.accepted
            assert refused.message == (
                f"{QUEUED} messages are already waiting in this conversation (the limit is "
                f"{QUEUED}). Nothing was sent."
            )

        with anyio.fail_after(WATCHDOG_SECONDS):
            for conversation in conversations:
                await log.turn_completed(conversation.id, QUEUED + 1)
        ended = log.of(TurnCompleted)
        lost, reruns = lost_and_reruns(asked_of(scripted_model), accepted)
        tally(
            "load",
            f"{CONVERSATIONS} conversations × (1 running + {QUEUED} queued), one more refused each",
            cases=len(accepted) + refusals,
            lost=lost,
            reruns=reruns,
            crashes=sum(1 for turn in ended if turn.status != "completed"),
        )
        assert refusals == CONVERSATIONS
        assert len(ended) == CONVERSATIONS * (QUEUED + 1)
        assert {turn.status for turn in ended} == {"completed"}
        asked = [request.user_text for request in scripted_model.responses_requests()]
        assert sorted(asked) == sorted(accepted), "each accepted message was sent once"
        assert not any(text.startswith("one too many") for text in asked)
        assert all(info.queued == 0 and info.state == "idle" for info in engine.conversations())


async def next_turn_end(events: Subscription[EngineEvent]) -> TurnCompleted:
    async for event in events:
        if isinstance(event, TurnCompleted):
            return event
    raise AssertionError("the engine closed before the turn ended")


async def test_a_turn_of_ten_thousand_items_keeps_a_bounded_trace_and_store(
    codex_home: Path, workspace: Path, tmp_path: Path, tally: Ledger
) -> None:
    scenario = tmp_path / "many.toml"
    scenario.write_text(MANY_ITEMS)
    limit = 1000
    base = Settings(limits=LimitsSettings(trace_events_per_turn=limit))
    store_path = tmp_path / "store.sqlite3"
    store = Store.open(store_path)
    try:
        async with (
            run_scripted_model(load_script([*builtin_files(), scenario])) as model,
            open_engine(model, codex_home, workspace, base, store) as (engine, log),
        ):
            conversation = await engine.new_conversation()
            events = engine.events()
            await engine.submit(conversation.id, "many items")
            with anyio.fail_after(WATCHDOG_SECONDS):
                done = await next_turn_end(events)
            lost, reruns = lost_and_reruns(asked_of(model), ["many items"])
            tally(
                "load",
                f"one turn of {ITEMS:,} items",
                lost=lost,
                reruns=reruns,
                crashes=int(done.status != "completed"),
            )
            assert done.status == "completed"
            answers = [e for e in log.of(ItemCompleted) if isinstance(e.item, AgentMessageItem)]
            assert len(answers) == ITEMS
            trace = engine.trace(conversation.id, done.turn_id)
            assert len(trace) == limit + 1
            [gap] = [event for event in trace if isinstance(event, TraceGap)]
            assert gap.dropped > ITEMS
            assert trace[-1] == done
            # Read back from codex, the turn comes in parts, newest first, the newest with the
            # turn's end: every answer once, in order.
            shown = await engine.history(conversation.id)
            assert FIRST_ITEMS <= len(shown) - 1 <= 2 * FIRST_ITEMS
            assert shown[-1] == replace(done, seq=shown[-1].seq, at=shown[-1].at)
            while engine.keeps_earlier(conversation.id):
                earlier = await engine.earlier(conversation.id)
                assert earlier
                assert not any(isinstance(e, TurnCompleted) for e in earlier)
                shown = earlier + shown
            assert await engine.earlier(conversation.id) == []
            read_back = [e.item.id for e in shown if isinstance(e, ItemCompleted)]
            assert read_back == [e.item.id for e in log.of(ItemCompleted)]
    finally:
        store.close()
    with sqlite3.connect(store_path) as kept:
        [(rows,)] = kept.execute(
            "SELECT COUNT(*) FROM trace WHERE turn_id = ?", (done.turn_id,)
        ).fetchall()
    assert rows == limit


async def test_fifty_conversations_in_the_store_all_come_back(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path, tally: Ledger
) -> None:
    store_path = tmp_path / "store.sqlite3"
    base = Settings(limits=LimitsSettings(running_conversations=STORED))
    store = Store.open(store_path)
    try:
        async with open_engine(scripted_model, codex_home, workspace, base, store) as (
            engine,
            log,
        ):
            made = [await engine.new_conversation(f"stored {n}") for n in range(STORED)]
            for number, conversation in enumerate(made):
                outcome = await engine.submit(conversation.id, f"count for me {number}")
                assert outcome.how == "started", outcome.message
            with anyio.fail_after(WATCHDOG_SECONDS):
                for conversation in made:
                    await log.turn_completed(conversation.id)
    finally:
        store.close()

    store = Store.open(store_path)
    try:
        with anyio.fail_after(WATCHDOG_SECONDS):
            async with open_engine(scripted_model, codex_home, workspace, base, store) as (
                engine,
                log,
            ):
                back = {info.title: info for info in engine.conversations()}
                assert set(back) == {f"stored {n}" for n in range(STORED)}
                assert {info.state for info in back.values()} == {"idle"}
                histories = [await engine.history(info.id) for info in back.values()]
                assert all(any(isinstance(e, TurnCompleted) for e in h) for h in histories)
                last = back[f"stored {STORED - 1}"]
                await engine.submit(last.id, "count for me again")
                assert (await log.turn_completed(last.id)).status == "completed"
    finally:
        store.close()
    asked = [request.user_text for request in scripted_model.responses_requests()]
    sent = [f"count for me {number}" for number in range(STORED)] + ["count for me again"]
    lost, reruns = lost_and_reruns(asked_of(scripted_model), sent)
    tally(
        "load",
        f"{STORED} conversations in the store, restarted",
        cases=STORED,
        lost=lost + STORED - len(back),
        reruns=reruns,
    )
    assert len(asked) == STORED + 1, "nothing was sent again on the way back"
