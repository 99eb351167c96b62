"""The turn timeline: spans from a recorded turn, bars to an eighth of a cell."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from engine.records.recording import read_recording
from tests.tui.conftest import Deck, until
from tests.tui.test_search import rich_turn
from tui.timeline import bar, render, turn_timelines
from tui.widgets.trace_pane import TracePane

TIMED = Path(__file__).parents[1] / "snapshots" / "recordings" / "timeline.jsonl"


def test_a_turn_has_a_span_per_item_and_one_for_the_wait_on_the_user() -> None:
    events = read_recording(TIMED)
    (timeline,) = turn_timelines(events)
    assert timeline.status == "completed"
    spans = [(s.kind, s.label, round(s.end - s.start, 2)) for s in timeline.spans if s.end]
    assert spans == [
        ("model", "model: reasoning", 0.2),
        ("command", "$ printf 'hello from codex-deck\\n' > greeting.txt; cat greeting.txt", 7.32),
        ("wait", "you: command", 6.2),
        ("change", "edit notes.md", 0.1),
        ("model", "model: answer", 0.28),
    ]
    assert round(timeline.length(now=0.0), 1) == 8.9
    first_line = render(timeline, 80, now=events[-1].at).plain.splitlines()[0]
    assert first_line.endswith("· completed · 8.9 s · waited on you 6.2 s")


def test_bars_are_drawn_to_an_eighth_of_a_cell() -> None:
    assert bar(0.0, 1.0, 4) == "████"
    assert bar(0.0, 0.5, 4) == "██  "
    assert bar(0.0, 0.5625, 4) == "██▎ "
    assert bar(0.5, 1.0, 4) == "  ██"
    assert bar(0.25, 0.25, 4) == " ▏  ", "an instant is still a sliver"


@pytest.mark.anyio
async def test_the_trace_pane_shows_the_live_turns_timeline(deck: Deck) -> None:
    async with deck(size=(140, 40)) as (app, pilot):
        await rich_turn(app, pilot)
        await pilot.press("ctrl+t")
        trace = app.main.query_one(TracePane)
        await until(pilot, lambda: trace.display, "the trace shows")
        await pilot.press("t")
        shown = str(trace.query_one(".trace-timeline", Static).render())
        lines = shown.splitlines()
        assert lines[0].startswith("turn ")
        assert " · completed · " in lines[0]
        assert " · waited on you " in lines[0]
        labels = [line[:18].strip() for line in lines[1:-1]]
        assert labels == [
            "model: reasoning",
            "$ printf 'hello f…",
            "you: command",
            "edit notes.md",
            "model: answer",
        ]
        await pilot.press("t")
        assert not trace.query_one(".trace-timeline", Static).display
