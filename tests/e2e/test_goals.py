"""/goal on the real binary: codex keeps the goal and works toward it by itself; the status bar
and /session say how it stands. A codex with goals turned off says so, plainly."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.events import TurnStarted
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


async def test_a_goal_is_worked_toward_by_codex_itself_until_it_is_done(deck: Deck) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()

    nothing = await engine.execute(conversation.id, "/goal pause")
    assert not nothing.ok
    assert "No goal to pause" in nothing.message
    set_goal = await engine.execute(conversation.id, "/goal make the tests pass")
    assert set_goal.ok, set_goal.message
    assert engine.session_info(conversation.id).goal == "make the tests pass (active)"

    started = await log.wait_for(TurnStarted, lambda e: e.conversation_id == conversation.id)
    assert started.submission_id is None, "codex started the turn by itself, for the goal"
    await log.turn_completed(conversation.id)
    info = engine.session_info(conversation.id)
    assert info.goal == "make the tests pass (complete)", "the model marked it done"
    rows = info.describe().splitlines()
    [goal_row] = [row.split(None, 1) for row in rows if row.startswith("goal ")]
    assert goal_row[1].startswith("make the tests pass (complete)")

    shown = await engine.execute(conversation.id, "/goal")
    assert shown.message == "Goal: make the tests pass (complete)"
    cleared = await engine.execute(conversation.id, "/goal clear")
    assert cleared.ok, cleared.message
    assert engine.session_info(conversation.id).goal is None
    assert "No goal here" in (await engine.execute(conversation.id, "/goal")).message
    assert len(log.of(TurnStarted, conversation.id)) == 1, "a goal met starts no more turns"


async def test_a_codex_with_goals_turned_off_says_so_and_keeps_no_goal(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    base = Settings()
    base = replace(base, codex=replace(base.codex, config=["features.goals=false"]))
    async with open_engine(scripted_model, codex_home, workspace, base) as (engine, log):
        conversation = await engine.new_conversation()

        refused = await engine.execute(conversation.id, "/goal make the tests pass")

        assert not refused.ok
        assert "This codex has goals turned off" in refused.message, refused.message
        assert "features.goals" in refused.message
        assert engine.session_info(conversation.id).goal is None
        assert not log.of(TurnStarted, conversation.id), "no turn started for it"
