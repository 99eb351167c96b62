"""Turns on the real binary: a streamed message, interrupt and steer mid-stream."""

from __future__ import annotations

import anyio
import pytest

from engine.protocol import (
    AgentMessageDelta,
    AgentMessageItem,
    ItemCompleted,
    ReasoningItem,
    ReasoningSummaryDelta,
    TextInput,
    TurnCompleted,
    TurnInterruptParams,
    TurnSteerParams,
)
from tests.e2e.conftest import Codex, first
from tests.reliability.report import Ledger, asked_of, lost_and_reruns

pytestmark = pytest.mark.anyio


async def test_a_streamed_message_adds_up_to_the_final_text(codex: Codex) -> None:
    thread_id = await codex.start_thread()
    record = await codex.run_turn(thread_id, "show markdown")
    assert record.status == "completed"
    deltas = [n for n in record.of(AgentMessageDelta) if isinstance(n, AgentMessageDelta)]
    assert len(deltas) > 10
    messages = [
        n.item
        for n in record.of(ItemCompleted)
        if isinstance(n, ItemCompleted) and isinstance(n.item, AgentMessageItem)
    ]
    assert len(messages) == 1
    assert "".join(d.delta for d in deltas) == messages[0].text
    assert messages[0].text.startswith("## Streaming Markdown")
    reasoning = [
        n.item
        for n in record.of(ItemCompleted)
        if isinstance(n, ItemCompleted) and isinstance(n.item, ReasoningItem)
    ]
    summary = "".join(
        n.delta for n in record.of(ReasoningSummaryDelta) if isinstance(n, ReasoningSummaryDelta)
    )
    assert reasoning[0].summary == [summary]
    assert codex.model.responses_requests()[0].user_text == "show markdown"


async def test_interrupt_mid_stream_ends_the_turn_and_the_thread_goes_on(codex: Codex) -> None:
    thread_id = await codex.start_thread()
    async with codex.server.notifications() as notifications:
        turn_id = await codex.start_held_turn(thread_id, notifications)
        asked_at = anyio.current_time()
        await codex.server.turn_interrupt(TurnInterruptParams(thread_id=thread_id, turn_id=turn_id))
        with anyio.fail_after(30):
            done = await first(notifications, TurnCompleted)
        took = anyio.current_time() - asked_at
    assert isinstance(done, TurnCompleted)
    assert done.turn.id == turn_id
    assert done.turn.status == "interrupted"
    assert took < 2.0, f"the interrupt took {took:.2f} s"

    after = await codex.run_turn(thread_id, "show markdown")
    assert after.status == "completed"
    # The model hears that the previous turn was interrupted, and the old text is kept.
    last = codex.model.responses_requests()[-1]
    assert last.user_texts() == ["take your time", "show markdown"]
    assert any("turn_aborted" in str(item) for item in last.input_items)


async def test_steer_mid_stream_reaches_the_next_model_request(codex: Codex) -> None:
    thread_id = await codex.start_thread()
    async with codex.server.notifications() as notifications:
        turn_id = await codex.start_held_turn(thread_id, notifications)
        steered = await codex.server.turn_steer(
            TurnSteerParams(
                thread_id=thread_id,
                expected_turn_id=turn_id,
                input=[TextInput(text="change course")],
            )
        )
        with anyio.fail_after(30):
            done = await first(notifications, TurnCompleted)
    assert steered.turn_id == turn_id
    assert isinstance(done, TurnCompleted)
    assert done.turn.status == "completed"
    requests = codex.model.responses_requests()
    assert len(requests) == 2
    assert requests[-1].user_text == "change course"
    assert requests[-1].user_texts() == ["take your time", "change course"]


async def test_a_failed_model_response_fails_the_turn_with_its_message(
    codex: Codex, tally: Ledger
) -> None:
    thread_id = await codex.start_thread()
    record = await codex.run_turn(thread_id, "fail please")
    lost, reruns = lost_and_reruns(asked_of(codex.model), ["fail please"])
    tally("fault", "the model answers `response.failed`", lost=lost, reruns=reruns)
    assert record.status == "failed"
    assert record.turn is not None
    assert record.turn.error is not None
    assert "The scripted model failed on purpose." in record.turn.error.message


async def test_a_stream_cut_before_completion_fails_the_turn(codex: Codex, tally: Ledger) -> None:
    thread_id = await codex.start_thread()
    record = await codex.run_turn(thread_id, "drop the stream")
    lost, reruns = lost_and_reruns(asked_of(codex.model), ["drop the stream"])
    tally("fault", "the model's stream cut before completion", lost=lost, reruns=reruns)
    assert record.status == "failed"
    assert record.turn is not None
    assert record.turn.error is not None
    assert "stream disconnected before completion" in record.turn.error.message
    # The thread is still usable.
    assert (await codex.run_turn(thread_id, "show markdown")).status == "completed"
