"""The Engine on the real binary: concurrent conversations, steer, queue, limits, input checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from engine import protocol as wire
from engine.engine import Engine
from engine.events import (
    ConversationUpdated,
    ItemCompleted,
    ItemDelta,
    ItemStarted,
    Notice,
    SubmissionAccepted,
    TurnCompleted,
    TurnStarted,
)
from engine.protocol import TEXT_INPUT_CHARS, AgentMessageItem, UserMessageItem
from engine.scripted_model import ScriptedModel
from engine.settings import LimitsSettings, Settings
from engine.transport.appserver import AppServer
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import EventLog
from tests.reliability.report import Ledger

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


def message_text(log: EventLog, conversation_id: str, turn_id: str) -> tuple[str, str]:
    """(the streamed deltas joined, the completed agent message) of one turn."""
    deltas = "".join(
        e.text
        for e in log.of(ItemDelta, conversation_id)
        if e.turn_id == turn_id and e.kind == "agent_message"
    )
    [final] = [
        e.item.text
        for e in log.of(ItemCompleted, conversation_id)
        if e.turn_id == turn_id and isinstance(e.item, AgentMessageItem)
    ]
    return deltas, final


async def test_two_conversations_stream_at_once_without_mixing(deck: Deck) -> None:
    engine, log = deck
    first = await engine.new_conversation("counting")
    second = await engine.new_conversation("markdown")
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(engine.submit, first.id, "count for me")
        tasks.start_soon(engine.submit, second.id, "show markdown")
    done_first = await log.turn_completed(first.id)
    done_second = await log.turn_completed(second.id)
    assert (done_first.status, done_second.status) == ("completed", "completed")

    counted, counted_final = message_text(log, first.id, done_first.turn_id)
    shown, shown_final = message_text(log, second.id, done_second.turn_id)
    assert counted == counted_final
    assert counted_final.startswith("one two three")
    assert shown == shown_final
    assert shown_final.startswith("## Streaming Markdown")
    # The turns overlapped, and no event of one conversation names the other's turn.
    start_first = log.of(TurnStarted, first.id)[0].seq
    start_second = log.of(TurnStarted, second.id)[0].seq
    assert start_first < done_second.seq
    assert start_second < done_first.seq
    first_turns = {e.turn_id for e in log.of(ItemDelta, first.id)}
    second_turns = {e.turn_id for e in log.of(ItemDelta, second.id)}
    assert first_turns == {done_first.turn_id}
    assert second_turns == {done_second.turn_id}


async def test_events_are_numbered_in_order(deck: Deck) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "show markdown")
    await log.turn_completed(conversation.id)
    numbers = [e.seq for e in log.events]
    assert numbers == sorted(numbers)
    assert len(set(numbers)) == len(numbers)


async def test_steer_goes_into_the_running_turn(deck: Deck, scripted_model: ScriptedModel) -> None:
    engine, log = deck
    model = scripted_model
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "take your time")
    await model.wait_until_holding()
    steered = await engine.submit(conversation.id, "change course")
    assert (steered.accepted, steered.how) == (True, "steered")
    done = await log.turn_completed(conversation.id)
    assert done.status == "completed"
    assert len(log.of(TurnStarted, conversation.id)) == 1
    steer_items = [
        e.item
        for e in log.of(ItemStarted, conversation.id)
        if isinstance(e.item, UserMessageItem) and e.item.text == "change course"
    ]
    assert [e.turn_id for e in log.of(ItemStarted, conversation.id) if e.item in steer_items] == [
        done.turn_id
    ]
    assert model.responses_requests()[-1].user_text == "change course"


async def test_a_steer_refused_as_its_turn_ends_runs_as_the_next_turn_at_once(
    deck: Deck, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn ends while a steer is on its way, after the turn's end looked for a queued
    message; codex refuses the steer (no turn to steer), the message is queued instead and
    must run now: nothing else would start it."""
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "take your time")
    await scripted_model.wait_until_holding()
    steer = AppServer.turn_steer

    async def after_the_end(server: AppServer, params: wire.TurnSteerParams) -> Any:
        scripted_model.release()
        await log.turn_completed(conversation.id)  # the engine has taken the turn's end
        return await steer(server, params)

    monkeypatch.setattr(AppServer, "turn_steer", after_the_end)
    outcome = await engine.submit(conversation.id, "change course")
    assert (outcome.accepted, outcome.how) == (True, "queued")
    second = await log.turn_completed(conversation.id, count=2)
    assert second.status == "completed"
    assert scripted_model.responses_requests()[-1].user_text == "change course"
    assert engine.conversations()[0].queued == 0


async def test_queue_keeps_order_and_refuses_the_sixth(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "take your time")
        await scripted_model.wait_until_holding()
        outcomes = [
            await engine.submit(conversation.id, f"queued message {n}", "queue")
            for n in range(1, 7)
        ]
        assert [o.how for o in outcomes[:5]] == ["queued"] * 5
        assert not outcomes[5].accepted
        assert "5 messages are already waiting" in outcomes[5].message
        assert "Nothing was sent" in outcomes[5].message
        refusal = await log.wait_for(Notice, lambda n: n.level == "error")
        assert refusal.text == outcomes[5].message
        assert engine.conversations()[0].queued == 5
        scripted_model.release()
        await log.turn_completed(conversation.id, count=6)
    texts = [request.user_text for request in scripted_model.responses_requests()]
    assert texts == ["take your time", *(f"queued message {n}" for n in range(1, 6))]
    assert len(log.of(TurnCompleted, conversation.id)) == 6


async def test_a_message_queued_turns_after_a_stop_runs_when_the_turn_before_it_ends(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    """A stop holds the messages queued then; it held every message queued later too (they
    waited for a next message or /continue that nobody knew to give)."""
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "take your time")
        await scripted_model.wait_until_holding()
        assert await engine.stop(conversation.id) in ("stopped", "stop_requested")
        scripted_model.release()
        await log.turn_completed(conversation.id)
        await engine.submit(conversation.id, "take your time")
        await scripted_model.wait_until_holding()
        queued = await engine.submit(conversation.id, "count for me", "queue")
        assert queued.how == "queued"
        scripted_model.release()
        await log.turn_completed(conversation.id, count=3)
    texts = [request.user_text for request in scripted_model.responses_requests()]
    assert texts[-1] == "count for me"


async def test_the_running_cap_refuses_a_new_turn_and_sends_nothing(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    settings = Settings(limits=LimitsSettings(running_conversations=1))
    async with open_engine(scripted_model, codex_home, workspace, settings) as (engine, log):
        busy = await engine.new_conversation()
        other = await engine.new_conversation()
        await engine.submit(busy.id, "take your time")
        await scripted_model.wait_until_holding()
        refused = await engine.submit(other.id, "show markdown")
        assert not refused.accepted
        assert refused.message == (
            "1 conversations are already running (the limit is 1). Nothing was sent."
        )
        assert len(scripted_model.responses_requests()) == 1
        scripted_model.release()
        await log.turn_completed(busy.id)
        accepted = await engine.submit(other.id, "show markdown")
        assert accepted.how == "started"
        await log.turn_completed(other.id)


async def test_input_checks(deck: Deck, scripted_model: ScriptedModel, tally: Ledger) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    ignored = await engine.submit(conversation.id, "   \n ")
    assert (ignored.accepted, ignored.message) == (False, "")
    too_long = await engine.submit(conversation.id, "é" * (TEXT_INPUT_CHARS + 1))
    sent = len(scripted_model.responses_requests())
    tally("input", "a message over the input limit: refused, nothing sent", unapproved=sent)
    assert not too_long.accepted
    assert too_long.message == (
        "The message has 1,048,577 characters; codex takes 1,048,576 at most. Nothing was sent."
    )
    assert log.of(SubmissionAccepted) == []
    assert sent == 0


async def test_each_submission_id_is_sent_once(deck: Deck, scripted_model: ScriptedModel) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    first = await engine.submit(conversation.id, "show markdown")
    await log.turn_completed(conversation.id)
    second = await engine.submit(conversation.id, "count for me")
    await log.turn_completed(conversation.id, count=2)
    thread = await engine.read_thread(engine.conversations()[0].thread_id or "")
    sent = [
        item.client_id
        for turn in thread.turns
        for item in turn.items
        if isinstance(item, UserMessageItem)
    ]
    assert sent == [first.submission_id, second.submission_id]
    assert len(scripted_model.responses_requests()) == 2


async def test_conversation_states_go_through_a_turn(deck: Deck) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "show markdown")
    await log.turn_completed(conversation.id)
    states = [e.info.state for e in log.of(ConversationUpdated, conversation.id)]
    collapsed = [s for n, s in enumerate(states) if n == 0 or states[n - 1] != s]
    assert collapsed == ["idle", "preparing", "running", "idle"]
