"""Hunks taken back, on the real binary: a change of two hunks accepted with one marked ends
with the workspace byte for byte as reviewed, and codex is told which hunk and why; a change
applied earlier has a hunk taken back the same way; a file changed since is left alone,
refused with the reason, nothing half-written."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from engine import protocol as wire
from engine.engine import Engine
from engine.events import InteractionRequested, ItemCompleted, Notice, TurnCompleted
from engine.protocol import FileChangeItem
from engine.scripted_model import ScriptedModel, run_scripted_model
from engine.scripted_model.scenario import load_script
from engine.transport.appserver import AppServer
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]
STORY = "".join(f"line {n}\n" for n in range(1, 15))
BOTH = STORY.replace("line 2\n", "LINE TWO\n").replace("line 10\n", "LINE TEN\n")
WHY = "keep line 10 as it was: other files quote it"


@pytest.fixture
async def scripted_model() -> AsyncIterator[ScriptedModel]:
    """The built-in scenarios, and before them the change of two hunks with its turn held
    open after the change (until `release()`), said `edit two places and hold`: what is
    taken back is told while the turn runs, or after it."""
    script = load_script()
    [two_hunks] = [s for s in script.scenarios if s.name == "two-hunks"]
    change, answer = two_hunks.replies
    held = replace(
        two_hunks,
        name="two-hunks-held",
        pattern=re.compile("edit two places and hold"),
        replies=(change, replace(answer, hold=True)),
    )
    async with run_scripted_model(replace(script, scenarios=(held, *script.scenarios))) as model:
        yield model


async def change_asked(
    deck: Deck, workspace: Path, text: str = "edit two places"
) -> tuple[str, InteractionRequested]:
    engine, log = deck
    (workspace / "story.txt").write_text(STORY)
    conversation = (await engine.new_conversation()).id
    assert (await engine.execute(conversation, "/approvals untrusted")).ok
    await engine.submit(conversation, text)
    return conversation, await log.wait_for(InteractionRequested)


def told_codex(scripted_model: ScriptedModel) -> list[str]:
    """What codex was told of hunks taken back, in the requests the model received."""
    return [
        text
        for request in scripted_model.responses_requests()
        for text in request.user_texts()
        if text.startswith("I took back these hunks of your change")
    ]


async def test_accepted_with_one_hunk_marked_the_workspace_is_as_reviewed(
    deck: Deck, workspace: Path, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation, asked = await change_asked(deck, workspace, "edit two places and hold")
    [change] = asked.interaction.changes
    result = await engine.accept_with_reverts(asked.interaction.id, {change.path: [1]}, WHY)
    assert result.ok, result.message
    # The turn runs on after the change (held): codex is told in it (a steer).
    await log.wait_for(Notice, lambda n: n.text.startswith("Took back"))
    said = [n.text for n in log.of(Notice, conversation)]
    assert "Took back hunks in 1 file; codex is told now." in said
    # codex passes it on in its next request: the one after the change, or, when that was
    # asked already, the one after the held answer (released here).
    with anyio.fail_after(30):
        while not told_codex(scripted_model):
            scripted_model.release()
            await scripted_model.wait_for_change()
    await log.turn_completed(conversation)
    assert len(log.of(TurnCompleted, conversation)) == 1
    expected = STORY.replace("line 2\n", "LINE TWO\n").encode()
    assert (workspace / "story.txt").read_bytes() == expected
    assert engine.conversations()[0].context == ()
    [told] = told_codex(scripted_model)
    assert f"{change.path} @@ -9,3 +9,3 @@\n line 9\n-line 10\n+LINE TEN\n line 11" in told
    assert told.endswith(f"Why: {WHY}")
    assert "LINE TWO" not in told


async def test_taken_back_as_the_turn_ends_codex_is_told_in_the_next_turn(
    deck: Deck, workspace: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn ends while the steer telling codex is on its way: codex refuses it, the
    note runs as the next turn, and the notice says so (not "told now")."""
    engine, log = deck
    conversation, asked = await change_asked(deck, workspace, "edit two places and hold")
    [change] = asked.interaction.changes
    steer = AppServer.turn_steer

    async def after_the_end(server: AppServer, params: wire.TurnSteerParams) -> Any:
        await scripted_model.wait_until_holding()
        scripted_model.release()
        await log.turn_completed(conversation)  # the engine has taken the turn's end
        return await steer(server, params)

    monkeypatch.setattr(AppServer, "turn_steer", after_the_end)
    result = await engine.accept_with_reverts(asked.interaction.id, {change.path: [1]}, WHY)
    assert result.ok, result.message
    await log.turn_completed(conversation, count=2)
    said = [n.text for n in log.of(Notice, conversation)]
    assert "Took back hunks in 1 file; codex is told in the next turn." in said
    assert "Took back hunks in 1 file; codex is told now." not in said
    assert (workspace / "story.txt").read_bytes() == STORY.replace(
        "line 2\n", "LINE TWO\n"
    ).encode()
    [told] = told_codex(scripted_model)
    assert told.endswith(f"Why: {WHY}")
    assert scripted_model.responses_requests()[-1].user_text == told


async def test_a_hunk_of_a_change_applied_earlier_is_taken_back_and_a_changed_file_refused(
    deck: Deck, workspace: Path, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation, asked = await change_asked(deck, workspace)
    assert (await engine.execute(conversation, f"/approve {asked.interaction.id}")).ok
    await log.turn_completed(conversation)
    assert (workspace / "story.txt").read_text() == BOTH
    [applied] = [
        e.item
        for e in log.of(ItemCompleted, conversation)
        if isinstance(e.item, FileChangeItem) and e.status == "completed"
    ]
    path = applied.changes[0].path

    # Someone edits the first hunk's lines: that hunk is refused, and nothing is written.
    edited = BOTH.replace("LINE TWO\n", "line two, by hand\n")
    (workspace / "story.txt").write_text(edited)
    refused = await engine.revert_hunks(conversation, applied.id, {path: [0, 1]}, "")
    assert not refused.ok
    assert "changed since the change was applied: @@ -1,3 +1,3 @@" in refused.message
    assert "Nothing was taken back." in refused.message
    assert (workspace / "story.txt").read_bytes() == edited.encode()

    wrong = await engine.revert_hunks(conversation, applied.id, {path: [2]}, "")
    assert (wrong.ok, wrong.message) == (False, f"{path} has 2 hunks (0 to 1).")

    taken = await engine.revert_hunks(conversation, applied.id, {path: [1]}, WHY)
    assert taken.ok, taken.message
    assert (workspace / "story.txt").read_bytes() == edited.replace("LINE TEN", "line 10").encode()
    # No turn runs: codex is told with the next message.
    assert taken.message == "Took back hunks in 1 file; codex is told with your next message."
    assert engine.conversations()[0].context == ("taken back: hunks in 1 file",)
    kept = await engine.execute(conversation, "/bringside drop")  # side answers only
    assert kept.message == "No side answer waits to go with a message."
    assert engine.conversations()[0].context == ("taken back: hunks in 1 file",)
    await engine.submit(conversation, "count for me")
    await log.turn_completed(conversation, count=2)
    sent = scripted_model.responses_requests()[-1].user_text
    assert sent.startswith("I took back these hunks of your change")
    assert f"Why: {WHY}\n\ncount for me" in sent
    assert engine.conversations()[0].context == ()
