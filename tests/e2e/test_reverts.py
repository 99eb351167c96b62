"""Hunks taken back, on the real binary: a change of two hunks accepted with one marked ends
with the workspace byte for byte as reviewed, and codex is told which hunk and why; a change
applied earlier has a hunk taken back the same way; a file changed since is left alone,
refused with the reason, nothing half-written."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.engine import Engine
from engine.events import InteractionRequested, ItemCompleted, Notice
from engine.protocol import FileChangeItem
from engine.scripted_model import ScriptedModel
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]
STORY = "".join(f"line {n}\n" for n in range(1, 15))
BOTH = STORY.replace("line 2\n", "LINE TWO\n").replace("line 10\n", "LINE TEN\n")
WHY = "keep line 10 as it was: other files quote it"


async def change_asked(deck: Deck, workspace: Path) -> tuple[str, InteractionRequested]:
    engine, log = deck
    (workspace / "story.txt").write_text(STORY)
    conversation = (await engine.new_conversation()).id
    assert (await engine.execute(conversation, "/approvals untrusted")).ok
    await engine.submit(conversation, "edit two places")
    return conversation, await log.wait_for(InteractionRequested)


async def test_accepted_with_one_hunk_marked_the_workspace_is_as_reviewed(
    deck: Deck, workspace: Path, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation, asked = await change_asked(deck, workspace)
    [change] = asked.interaction.changes
    result = await engine.accept_with_reverts(asked.interaction.id, {change.path: [1]}, WHY)
    assert result.ok, result.message
    await log.turn_completed(conversation)
    # The turn ran on after the change: codex was told in it (a steer).
    said = [n.text for n in log.of(Notice, conversation)]
    assert "Took back hunks in 1 file; codex is told now." in said
    expected = STORY.replace("line 2\n", "LINE TWO\n").encode()
    assert (workspace / "story.txt").read_bytes() == expected
    assert engine.conversations()[0].context == ()
    [told] = [
        text
        for request in scripted_model.responses_requests()
        for text in request.user_texts()
        if text.startswith("I took back these hunks of your change")
    ]
    assert f"{change.path} @@ -9,3 +9,3 @@\n line 9\n-line 10\n+LINE TEN\n line 11" in told
    assert told.endswith(f"Why: {WHY}")
    assert "LINE TWO" not in told


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
