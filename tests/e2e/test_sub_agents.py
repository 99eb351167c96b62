"""Sub-agents on the real binary: the scripted model spawns one (codex's multi-agent tools);
what it asks is asked in the conversation that spawned it, answered there, what it is at and
its end are said there; its own transcript opens as a conversation."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.conversations.interactions import Approve
from engine.engine import Engine
from engine.events import InteractionRequested, ItemCompleted, Notice, SubAgentActivity
from engine.protocol import CollabAgentToolCallItem, CommandExecutionItem
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


async def test_a_sub_agents_approval_is_asked_and_answered_where_the_user_is(
    deck: Deck, workspace: Path
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()

    await engine.submit(conversation.id, "ask a helper")

    asked = await log.wait_for(InteractionRequested)
    assert asked.conversation_id == conversation.id
    assert asked.interaction.kind == "command"
    [spawn] = [
        e.item
        for e in log.of(ItemCompleted, conversation.id)
        if isinstance(e.item, CollabAgentToolCallItem)
    ]
    [child] = spawn.receiver_thread_ids
    assert asked.interaction.sub_agent == child
    assert not (workspace / "out.txt").exists(), "nothing ran before the answer"
    waiting = await log.wait_for(
        SubAgentActivity,
        lambda a: a.state == "waiting" and isinstance(a.item, CommandExecutionItem),
    )
    assert (waiting.conversation_id, waiting.thread_id) == (conversation.id, child)
    answered = await engine.respond(asked.interaction.id, Approve())
    assert answered.ok, answered.message
    done = await log.wait_for(Notice, lambda n: n.text.startswith(f"Sub-agent {child[:13]}"))
    assert done.text == f"Sub-agent {child[:13]} completed."
    assert (workspace / "out.txt").read_text() == "hi-from-exec\n"
    ended = await log.wait_for(SubAgentActivity, lambda a: a.state not in ("running", "waiting"))
    assert (ended.thread_id, ended.state, ended.item) == (child, "completed", None)
    history = await engine.history(conversation.id)
    assert not any(isinstance(e, SubAgentActivity) for e in history), "told, not traced"

    opened = await engine.execute(conversation.id, f"/open {child[:13]}")
    assert opened.ok, opened.message
    assert opened.conversation_id is not None
    opened_history = await engine.history(opened.conversation_id)
    assert any(isinstance(e, ItemCompleted) and "approval" in str(e.item) for e in opened_history)
