"""`--record` saves a session from the real engine; its replay shows the same transcript, and
its clocks and counts are the recording's at the point played."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import pytest
from msgspec.structs import replace
from textual.widgets import Static

from engine.events import (
    ConversationUpdated,
    EngineEvent,
    InteractionResolved,
    ItemDelta,
    Notice,
    Stamp,
)
from engine.records.recording import read_recording
from engine.replay import MAX_PAUSE, READ_ONLY, ReplayBackend, playing
from engine.settings import Settings
from tests.tui.conftest import Deck, go_to_request, ready, transcript, until
from tests.tui.test_app import turn_markers, type_and_send
from tui.app import CodexDeckApp
from tui.entries import (
    AgentEntry,
    ApprovalEntry,
    CommandEntry,
    Entry,
    FileChangeEntry,
    NoticeEntry,
    UserEntry,
)
from tui.screens.hunks import HunkReview
from tui.widgets.approval import ApprovalCard
from tui.widgets.status_bar import StatusBar
from tui.widgets.working import WorkingLine

pytestmark = pytest.mark.anyio

DAY = 86_400.0


def shown(entries: list[Entry]) -> list[tuple[str, ...]]:
    """What a transcript shows, entry by entry, without ids."""
    rows: list[tuple[str, ...]] = []
    for entry in entries:
        if isinstance(entry, UserEntry | AgentEntry):
            rows.append((type(entry).__name__, entry.text))
        elif isinstance(entry, CommandEntry):
            rows.append(("command", entry.item.command, entry.output, entry.status))
        elif isinstance(entry, FileChangeEntry):
            rows.append(("change", *(c.diff for c in entry.item.changes), entry.status))
        elif isinstance(entry, ApprovalEntry):
            rows.append(("request", entry.info.kind, entry.info.command or "", entry.resolution))
        elif isinstance(entry, NoticeEntry):
            rows.append(("notice", entry.text))
        else:
            rows.append((type(entry).__name__,))
    return rows


async def test_a_recorded_session_replays_the_same_transcript(
    deck: Deck, tmp_path: Path, workspace: Path
) -> None:
    recording = tmp_path / "session.jsonl"
    async with deck(record=recording) as (app, pilot):
        await type_and_send(app, pilot, "do it all")
        await until(pilot, lambda: transcript(app).query(ApprovalCard), "the card shows")
        await go_to_request(app, pilot)
        await until(pilot, lambda: app.main.query_one(ApprovalCard).has_focus, "ctrl+g moves to it")
        await pilot.press("y")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        await until(pilot, lambda: transcript(app).settled, "the answer is drawn")
        live = shown(transcript(app).entries)
    assert (workspace / "greeting.txt").exists()

    events = read_recording(recording)
    decided = [e for e in events if isinstance(e, InteractionResolved)]
    assert [(e.outcome, e.by) for e in decided] == [("accepted", "user")]
    assert any(isinstance(e, ItemDelta) for e in events), "deltas are recorded too"

    backend = ReplayBackend(events, paused=True)
    replay = CodexDeckApp(Settings(), playing(backend))
    async with replay.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: replay.opened and ready(replay.main), "the replay opens")
        steps = 0
        while not transcript(replay).query(ApprovalCard):
            await pilot.press("f10")
            steps += 1
            await until(pilot, lambda: backend.paused, "the step is played")
            await pilot.pause()
        card = transcript(replay).query_one(ApprovalCard)
        assert not card.resolved, "stepped to the request: it waits, as it did"
        assert 1 < steps < backend.total
        await go_to_request(replay, pilot)
        await until(pilot, lambda: card.has_focus, "ctrl+g moves to the card")
        await pilot.press("y")
        await until(pilot, lambda: READ_ONLY in _note(replay), "the replay says it sends nothing")
        assert not card.resolved
        await pilot.press("f9")
        await until(pilot, lambda: card.resolved, "the recorded answer is shown")
        await until(pilot, lambda: backend.played == backend.total, "the replay ends")
        await until(pilot, lambda: transcript(replay).settled, "it is drawn")
        assert shown(transcript(replay).entries) == live
        await replay.shut_down()


def _note(app: CodexDeckApp) -> str:
    return " ".join(str(n.message) for n in app._notifications)


def notice(seq: int, at: float) -> Notice:
    return Notice(**Stamp(seq=seq, at=at, conversation_id="c1"), level="info", text="hello")


def test_a_replay_keeps_the_recorded_pauses_scaled_and_shortens_long_ones() -> None:
    events = [notice(1, 100.0), notice(2, 101.0), notice(3, 101.0), notice(4, 500.0)]
    at_twice = ReplayBackend(events, speed=2.0)
    assert [at_twice.pause_before(i) for i in range(4)] == [0.0, 0.5, 0.0, MAX_PAUSE]
    at_max = ReplayBackend(events, speed=math.inf)
    assert [at_max.pause_before(i) for i in range(4)] == [0.0, 0.0, 0.0, 0.0]


def aged(events: list[EngineEvent], seconds: float) -> list[EngineEvent]:
    """The recording as if it had been made `seconds` earlier."""
    older: list[EngineEvent] = []
    for event in events:
        if isinstance(event, ConversationUpdated) and event.info.turn_started_at is not None:
            started = event.info.turn_started_at - seconds
            event = replace(event, info=replace(event.info, turn_started_at=started))
        older.append(replace(event, at=event.at - seconds))
    return older


async def test_a_replay_shows_the_recordings_clock_and_counts_at_the_point_played(
    deck: Deck, tmp_path: Path
) -> None:
    """Stepped to a request, a replay of yesterday's session shows the turn waiting for its
    answer since a moment (not since yesterday), one request waiting, and the conversation
    as it was then (not as it ended)."""
    recording = tmp_path / "session.jsonl"
    async with deck(record=recording) as (app, pilot):
        await type_and_send(app, pilot, "approval")
        await go_to_request(app, pilot)
        await until(pilot, lambda: app.main.query_one(ApprovalCard).has_focus, "on the card")
        await pilot.press("y")
        await until(pilot, lambda: turn_markers(app), "the turn ends")

    backend = ReplayBackend(aged(read_recording(recording), DAY), paused=True)
    replay = CodexDeckApp(Settings(), playing(backend))
    async with replay.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: replay.opened and ready(replay.main), "the replay opens")
        line = replay.main.query_one(WorkingLine)
        while "Waiting for your answer" not in str(line.render()):
            await pilot.press("f10")
            await until(pilot, lambda: backend.paused, "the step is played")
            await pilot.pause()
        [info] = backend.conversations()
        assert info.state == "waiting", "as it was at this point, not as it ended"
        assert len(backend.pending_interactions()) == 1
        assert backend.now() < time.time() - DAY + 60, "the clock is the recording's"
        working = str(line.render())
        status = str(replay.main.query_one(StatusBar).render())
        assert re.search(r"Waiting for your answer 0:0\d", working), working
        assert re.search(r"waiting 0:0\d", status), status
        await replay.shut_down()


async def test_on_replay_the_inbox_the_review_and_the_rules_show_and_send_nothing() -> None:
    """A recorded change of two hunks waiting: alt+i lists it; its card reviewed hunk by hunk
    and accepted with one taken back says the replay sends nothing, the card still waits; a
    side answer cannot be brought in, /rules is not run."""
    recorded = Path(__file__).parents[1] / "snapshots" / "recordings" / "two_hunks.jsonl"
    backend = ReplayBackend(read_recording(recorded))
    replay = CodexDeckApp(Settings(), playing(backend))
    async with replay.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: replay.opened and ready(replay.main), "the replay opens")
        await until(pilot, lambda: backend.played == backend.total, "the replay is played")
        await until(pilot, lambda: transcript(replay).query(ApprovalCard), "the card shows")
        await pilot.press("alt+i")
        await until(pilot, lambda: "1 request waits" in inbox_title(replay), "the inbox")
        await pilot.press("escape")
        card = transcript(replay).query_one(ApprovalCard)
        await go_to_request(replay, pilot)
        await until(pilot, lambda: card.has_focus, "ctrl+g moves to the card")
        await pilot.press("r")
        await until(pilot, lambda: isinstance(replay.screen, HunkReview), "the review opens")
        await pilot.press("down", "space", "enter", "x", "enter")
        await until(pilot, lambda: READ_ONLY in _note(replay), "the replay says it sends nothing")
        assert not card.resolved
        assert not backend.bring_home(card.info.conversation_id).ok
        ran = await backend.execute(card.info.conversation_id, "/rules")
        assert (ran.ok, ran.message) == (False, READ_ONLY)
        await replay.shut_down()


def inbox_title(app: CodexDeckApp) -> str:
    titles = app.screen.query(".inbox-title")
    return str(titles.first(Static).render()) if titles else ""
