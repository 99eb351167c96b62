"""What the working line says a turn is doing, from the turn's events."""

from __future__ import annotations

from typing import TypedDict

from engine.events import (
    ConversationInfo,
    ItemCompleted,
    ItemDelta,
    ItemStarted,
    SubAgentActivity,
    TurnCompleted,
)
from engine.protocol import AgentMessageItem, CommandExecutionItem
from tui.widgets.working import Activity, agents_text, working_text


class Stamp(TypedDict):
    seq: int
    at: float
    conversation_id: str


STAMP = Stamp(seq=1, at=0.0, conversation_id="c")
COMMAND = CommandExecutionItem(
    id="i1", command="/bin/bash -lc 'pytest -q tests'", cwd="/w", status="inProgress"
)


def info(state: str, started: float | None = 100.0) -> ConversationInfo:
    return ConversationInfo(
        id="c",
        title="t",
        cwd="/w",
        state=state,  # type: ignore[arg-type]
        thread_id="th",
        generation=0,
        queued=0,
        pending_interactions=0,
        archived=False,
        turn_id="tu",
        turn_started_at=started,
    )


def test_a_running_command_is_named_until_it_ends_then_codex_thinks() -> None:
    activity = Activity()
    activity.take(ItemStarted(**STAMP, turn_id="tu", item=COMMAND))
    assert working_text(info("running"), activity, 112.0) == (
        "• Working 0:12 · running `pytest -q tests` · esc stops"
    )
    activity.take(ItemCompleted(**STAMP, turn_id="tu", item=COMMAND, status="completed"))
    assert activity.now == "thinking"


def test_a_turn_that_ends_forgets_its_items() -> None:
    activity = Activity()
    activity.take(ItemStarted(**STAMP, turn_id="tu", item=COMMAND))
    activity.take(
        TurnCompleted(**STAMP, turn_id="tu", status="interrupted", error=None, duration_ms=1)
    )
    assert activity.now == "thinking"


def test_reasoning_that_streams_without_a_start_is_thinking_until_the_answer_is_written() -> None:
    activity = Activity()
    activity.take(ItemStarted(**STAMP, turn_id="tu", item=COMMAND))
    activity.take(ItemDelta(**STAMP, turn_id="tu", item_id="r", kind="reasoning_summary", text="x"))
    assert activity.now == "thinking"
    activity.take(ItemStarted(**STAMP, turn_id="tu", item=AgentMessageItem(id="a", text="")))
    assert activity.now == "writing"


def test_waiting_for_an_answer_and_stopping_say_so() -> None:
    activity = Activity()
    assert working_text(info("waiting"), activity, 130.0) == (
        "⚠ Waiting for your answer 0:30 · esc stops the turn"
    )
    assert working_text(info("stopping"), activity, 101.0) == "• Stopping 0:01"


def test_each_running_sub_agent_says_what_it_is_at_and_the_rest_are_counted() -> None:
    def agent(
        n: int, state: str = "running", item: CommandExecutionItem | None = None
    ) -> SubAgentActivity:
        return SubAgentActivity(**STAMP, thread_id=f"019a{n}-0000-7000", state=state, item=item)

    lines = agents_text([agent(1, "waiting", COMMAND), agent(2), agent(3), agent(4), agent(5)])

    assert lines == [
        "  ↳ sub-agent 019a1-0000-70 · waiting for your answer · running `pytest -q tests`",
        "  ↳ sub-agent 019a2-0000-70 · thinking",
        "  ↳ sub-agent 019a3-0000-70 · thinking",
        "  ↳ 2 more sub-agents running",
    ]
