"""Approvals and questions through the Engine on the real binary: for the session, saved rules,
questions in plan mode, several pending at once, and the policy changed between turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.events import InteractionRequested, InteractionResolved, TurnCompleted
from engine.scripted_model import ScriptedModel
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


async def test_accept_for_the_session_is_not_asked_again(deck: Deck, workspace: Path) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "run it twice")
    asked = (await log.wait_for(InteractionRequested)).interaction
    result = await engine.execute(conversation.id, f"/approve {asked.id} session")
    assert result.message == f"{asked.id}: accepted for session"
    resolved = await log.wait_for(InteractionResolved)
    assert (resolved.outcome, resolved.by) == ("accepted_for_session", "user")
    assert (await log.turn_completed(conversation.id)).status == "completed"
    assert (workspace / "twice.txt").read_text() == "again\nagain\n"
    assert len(log.of(InteractionRequested)) == 1
    grants = engine.session_info(conversation.id).grants
    assert len(grants) == 1
    assert grants[0].startswith("this session: ")
    assert "echo again >> twice.txt" in grants[0]
    assert engine.conversations()[0].grants == grants


async def test_a_saved_rule_lets_the_next_matching_command_run(deck: Deck, workspace: Path) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "save a rule")
    asked = (await log.wait_for(InteractionRequested)).interaction
    # codex 0.163 offers the whole command as the rule (the model's prefix_rule is not used).
    assert asked.exec_policy_amendment == ("/bin/bash", "-lc", "echo ruled >> rule.txt")
    result = await engine.execute(conversation.id, f"/approve {asked.id} rule")
    assert result.message == f"{asked.id}: accepted with rule"
    assert (await log.turn_completed(conversation.id)).status == "completed"
    assert (workspace / "rule.txt").read_text() == "ruled\nruled\n"
    assert len(log.of(InteractionRequested)) == 1
    assert engine.session_info(conversation.id).grants == (
        "saved rule: commands starting with `/bin/bash -lc 'echo ruled >> rule.txt'`",
    )


async def test_cancel_refuses_and_stops_the_turn(deck: Deck, workspace: Path) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "approval")
    asked = (await log.wait_for(InteractionRequested)).interaction
    result = await engine.execute(conversation.id, f"/cancel {asked.id}")
    assert result.message == f"{asked.id}: cancelled"
    assert (await log.turn_completed(conversation.id)).status == "interrupted"
    assert not (workspace / "out.txt").exists()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"colour": "Green", "size": "Small"}', {"colour": ["Green"], "size": ["Small"]}),
        (
            '{"colour": "Teal, please", "size": ["Large"]}',
            {"colour": ["Teal, please"], "size": ["Large"]},
        ),
    ],
    ids=["options", "free-text"],
)
async def test_a_question_in_plan_mode_is_answered_and_reaches_the_model(
    deck: Deck, scripted_model: ScriptedModel, answer: str, expected: dict[str, list[str]]
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    assert (await engine.execute(conversation.id, "/plan on")).ok
    await engine.submit(conversation.id, "ask me")
    asked = (await log.wait_for(InteractionRequested)).interaction
    assert asked.kind == "question"
    assert [q.id for q in asked.questions] == ["colour", "size"]
    assert [o.label for o in asked.questions[0].options or []] == ["Blue (Recommended)", "Green"]
    result = await engine.execute(conversation.id, f"/respond {asked.id} {answer}")
    said = "; ".join(f"{q.header}: {', '.join(expected[q.id])}" for q in asked.questions)
    assert result.message == f"{asked.id}: answered — {said}"
    assert (await log.turn_completed(conversation.id)).status == "completed"
    outputs = [
        json.loads(item["output"])
        for item in scripted_model.responses_requests()[-1].input_items
        if item.get("type") == "function_call_output"
    ]
    assert outputs == [{"answers": {k: {"answers": v} for k, v in expected.items()}}]


async def test_a_question_needs_answers_by_id_when_there_are_several(deck: Deck) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.execute(conversation.id, "/plan on")
    await engine.submit(conversation.id, "ask me")
    asked = (await log.wait_for(InteractionRequested)).interaction
    result = await engine.execute(conversation.id, f"/respond {asked.id} green")
    assert not result.ok
    assert (
        'there are 2 questions: answer with JSON by question id, e.g. {"colour"' in result.message
    )
    approve = await engine.execute(conversation.id, f"/approve {asked.id}")
    assert approve.message.endswith("a question takes /respond ID TEXT (or JSON) or /decline")
    assert engine.pending_interactions(conversation.id)[0].id == asked.id


async def test_two_conversations_wait_for_approval_at_once(deck: Deck) -> None:
    engine, log = deck
    first = await engine.new_conversation()
    second = await engine.new_conversation()
    await engine.submit(first.id, "approval")
    await engine.submit(second.id, "approval")
    await log.wait_for(InteractionRequested, count=2)
    pending = engine.pending_interactions()
    assert {p.conversation_id for p in pending} == {first.id, second.id}
    states = {info.id: (info.state, info.pending_interactions) for info in engine.conversations()}
    assert states == {first.id: ("waiting", 1), second.id: ("waiting", 1)}
    by_conversation = {p.conversation_id: p.id for p in pending}
    await engine.execute(first.id, f"/decline {by_conversation[first.id]}")
    await engine.execute(second.id, f"/approve {by_conversation[second.id]}")
    done = {(await log.turn_completed(c)).status for c in (first.id, second.id)}
    assert done == {"completed"}


async def test_the_approval_policy_changes_from_the_next_turn(deck: Deck, workspace: Path) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "create a file")
    await log.turn_completed(conversation.id)
    assert log.of(InteractionRequested) == []
    (workspace / "hello.txt").unlink()
    result = await engine.execute(conversation.id, "/approvals untrusted")
    assert result.message == "Approvals: untrusted, from the next turn."
    assert engine.session_info(conversation.id).approval_policy == "untrusted"
    await engine.submit(conversation.id, "create a file")
    asked = (await log.wait_for(InteractionRequested)).interaction
    assert asked.kind == "file_change"
    await engine.execute(conversation.id, f"/decline {asked.id}")
    done = await log.turn_completed(conversation.id, count=2)
    assert isinstance(done, TurnCompleted)
    assert not (workspace / "hello.txt").exists()
