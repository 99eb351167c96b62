"""A long conversation gets widgets for its latest entries only (ctrl+home brings back older
ones); a conversation out of view keeps its entries up to date and gets widgets when shown."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from bench.tui_figures import conversation_of
from engine.events import EngineEvent, ItemDelta, Notice
from engine.replay import replay_backend
from engine.settings import Settings
from tests.tui.conftest import Deck, transcript, until
from tests.tui.test_app import turn_markers, type_and_send
from tui.app import CodexDeckApp
from tui.entry_log import joined_deltas
from tui.pacing import PacedScreen
from tui.widgets import transcript as transcript_module
from tui.widgets.message import AgentMessage
from tui.widgets.trace_pane import TracePane
from tui.widgets.transcript import (
    EARLIER_STEP,
    FIRST_WINDOW,
    MOST_WIDGETS,
    WINDOW_SCREENS,
    Transcript,
)

pytestmark = pytest.mark.anyio

LONG, OTHER = "bench0000001", "bench0000002"
"""The conversations `conversation_of` makes as number 1 and 2."""


def with_widgets(transcript: Transcript) -> int:
    return sum(1 for entry in transcript.entries if entry.widget is not None)


async def test_only_the_latest_entries_get_widgets_and_the_rest_come_back() -> None:
    events = [*conversation_of(800, 1), *conversation_of(4, 2)]
    app = CodexDeckApp(Settings(), replay_backend(events))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.opened and app.main.current == LONG, "the app opens")
        long = app.main.query_one(f"#transcript-{LONG}", Transcript)
        other = app.main.query_one(f"#transcript-{OTHER}", Transcript)
        await until(pilot, lambda: len(other.entries) == 6, "both conversations are read")
        await until(pilot, lambda: len(long.entries) == 1200 and long.settled, "it is drawn")
        # A screenful is drawn first; the rest of the first window comes after that frame.
        await until(pilot, lambda: with_widgets(long) == FIRST_WINDOW, "the first window is made")
        assert long.entries[-1].widget is not None
        said = f"▲ {1200 - FIRST_WINDOW} earlier item(s) — ctrl+home shows more"
        # The line is said once the first window's widgets are mounted (they are made first).
        line = long.query_one(".earlier")
        await until(pilot, lambda: str(line.render()) == said, "the line says what is above")

        assert not other.display
        assert with_widgets(other) == 0, "a conversation out of view has no widgets yet"
        assert len(other.query("UserMessage")) == 0

        await pilot.press("ctrl+home")
        await until(
            pilot, lambda: with_widgets(long) == FIRST_WINDOW + EARLIER_STEP, "older ones shown"
        )
        assert long.entries[1200 - FIRST_WINDOW - EARLIER_STEP].widget is not None

        await pilot.press("ctrl+down")
        await until(pilot, lambda: app.main.current == OTHER, "the other one is shown")
        await until(pilot, lambda: with_widgets(other) == 6, "its widgets are made")
        assert other.display
        assert not long.display
        texts = [str(message.render()) for message in other.query("UserMessage")]
        assert texts == ["› question 0", "› question 1"]


async def test_long_answers_are_drawn_a_few_screens_of_them_at_a_time() -> None:
    """The window of widgets is bounded by the screens its entries fill as well as by their
    number: answers hundreds of lines long are not kept drawn by the dozen (each holds
    every line it drew), on opening and as new ones come."""
    events = conversation_of(80, paragraphs=60)  # 40 turns, each answer some 360 lines
    app = CodexDeckApp(Settings(), replay_backend(events))
    async with app.run_test(size=(100, 30)) as pilot:
        long = await drawn_long(app, pilot, 120)
        await pilot.pause()
        rows = WINDOW_SCREENS * long.scrollable_content_region.height
        drawn = with_widgets(long)
        assert 3 <= drawn <= rows // 300 * 3 + 3, f"{drawn} of 120 entries drawn"
        assert long.entries[-1].widget is not None

        more = conversation_of(160, paragraphs=60)  # 40 more turns come, one by one
        for turn in range(40, 80):
            await long.apply([e for e in more if getattr(e, "turn_id", "") == f"turn-{turn}"])
        await until(pilot, lambda: len(long.entries) == 240 and long.settled, "more came")
        drawn = with_widgets(long)
        assert 3 <= drawn <= rows // 300 * 3 + 3, f"{drawn} of 240 entries drawn"
        assert long.entries[-1].widget is not None


def test_runs_of_deltas_to_one_part_are_joined_in_order() -> None:
    def delta(seq: int, text: str, item: str = "a", index: int = 0) -> ItemDelta:
        return ItemDelta(
            seq=seq,
            at=0.0,
            conversation_id="c",
            turn_id="t",
            item_id=item,
            kind="agent_message",
            text=text,
            index=index,
        )

    notice = Notice(seq=4, at=0.0, conversation_id="c", level="info", text="between")
    events: list[EngineEvent] = [
        delta(1, "Hel"),
        delta(2, "lo"),
        delta(3, "!", item="b"),
        notice,
        delta(5, "A", index=1),
        delta(6, "B", index=1),
        delta(7, "C", index=2),
    ]
    joined = joined_deltas(events)
    said = [(e.seq, e.item_id, e.index, e.text) if isinstance(e, ItemDelta) else e for e in joined]
    assert said == [
        (2, "a", 0, "Hello"),
        (3, "b", 0, "!"),
        notice,
        (6, "a", 1, "AB"),
        (7, "a", 2, "C"),
    ]


async def test_page_keys_page_the_conversation_and_a_focused_table_its_own(deck: Deck) -> None:
    async with deck(size=(120, 24)) as (app, pilot):
        for turns, text in enumerate(("show markdown", "markdown again"), start=1):
            await type_and_send(app, pilot, text)
            await until(pilot, lambda n=turns: len(turn_markers(app)) == n, "answered")  # type: ignore[misc]
        shown = transcript(app)
        await until(pilot, lambda: shown.max_scroll_y > 0 and shown.following, "at the end")
        end = shown.scroll_y

        await pilot.press("pageup")
        assert shown.scroll_y < end, "the message box's page key pages the conversation"
        assert not shown.following
        await pilot.press("pagedown")
        assert shown.following, "back at the end"

        await pilot.press("ctrl+t")  # after a scroll: Textual sends the pane no Show event
        table: DataTable[str] = app.main.query_one(TracePane).query_one(DataTable)
        await until(pilot, lambda: table.allow_vertical_scroll, "a trace longer than its pane")
        table.focus()
        table.move_cursor(row=table.row_count - 1)
        await pilot.pause()
        row, scrolled = table.cursor_row, shown.scroll_y
        await pilot.press("pageup")
        assert table.cursor_row < row, "the focused table pages itself"
        assert shown.scroll_y == scrolled, "and not the conversation"


def in_view(shown: Transcript) -> list[int]:
    """The entries whose widgets the view shows (some of their rows at least)."""
    view = shown.region
    return [
        index
        for index, entry in enumerate(shown.entries)
        if entry.widget is not None and entry.widget.region.overlaps(view)
    ]


def tops_painted(
    monkeypatch: pytest.MonkeyPatch,
    app: CodexDeckApp,
    also: Callable[[Transcript], object] = lambda _: None,
) -> list[int]:
    """The first entry in view of the long conversation in each frame the app paints, noted
    once the list holds one (the test puts the first); `also` is called with it then."""
    tops: list[int] = []
    paint = PacedScreen._paint

    def noting(screen: PacedScreen) -> None:
        paint(screen)
        if screen is app.main and tops:
            shown = app.main.query_one(f"#transcript-{LONG}", Transcript)
            tops.append(in_view(shown)[0])
            also(shown)

    monkeypatch.setattr(PacedScreen, "_paint", noting)
    return tops


async def drawn_long(app: CodexDeckApp, pilot: Pilot[None], entries: int) -> Transcript:
    """The long conversation's transcript, once the app shows it with its `entries` read."""
    await until(pilot, lambda: app.opened and app.main.current == LONG, "the app opens")
    long = app.main.query_one(f"#transcript-{LONG}", Transcript)
    await until(pilot, lambda: len(long.entries) == entries and long.settled, "it is drawn")
    return long


async def test_page_up_goes_through_the_whole_conversation_without_a_gap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events = [*conversation_of(200, 1), *conversation_of(4, 2)]
    app = CodexDeckApp(Settings(), replay_backend(events))
    scrolled: list[float] = []
    tops = tops_painted(monkeypatch, app, lambda shown: scrolled.append(shown.scroll_y))
    async with app.run_test(size=(100, 30)) as pilot:
        long = await drawn_long(app, pilot, 300)
        await until(pilot, lambda: with_widgets(long) == FIRST_WINDOW, "its first window")
        await pilot.pause()
        pages, tops[:] = 0, [in_view(long)[0]]
        while (shown := in_view(long))[0] > 0:
            frames = len(scrolled)
            await pilot.press("pageup")
            await pilot.pause()
            now = in_view(long)
            assert now[0] < shown[0], f"page {pages}: the view went up"
            painted = zip(tops[frames + 1 :], scrolled[frames:], strict=True)
            stale = [top for top, y in painted if y == long.scroll_y and top != now[0]]
            assert not stale, f"page {pages}: a frame showed the page before it was laid out"
            assert now[-1] >= shown[0] - 1, f"page {pages}: no entry skipped ({now} {shown})"
            pages += 1
            assert pages < 300
        assert with_widgets(long) == 300, "all of it was drawn on the way"
        assert tops == sorted(tops, reverse=True), "no frame showed a view it then left"
        assert not long.following


async def test_a_page_down_is_painted_in_the_frame_that_ends_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page down (not past the last entry drawn) is painted at once, in the frame painted
    as the change ends, not in a frame after."""
    events = [*conversation_of(200, 1), *conversation_of(4, 2)]
    app = CodexDeckApp(Settings(), replay_backend(events))
    at_once: list[int] = [-1]  # none noted until the test empties it
    paint_changed = PacedScreen._paint_changed

    def noting(screen: PacedScreen) -> None:
        painted = screen.painted
        paint_changed(screen)
        if screen is app.main and screen.painted > painted and at_once == []:
            at_once.append(in_view(app.main.query_one(f"#transcript-{LONG}", Transcript))[0])

    monkeypatch.setattr(PacedScreen, "_paint_changed", noting)
    async with app.run_test(size=(100, 30)) as pilot:
        long = await drawn_long(app, pilot, 300)
        await until(pilot, lambda: with_widgets(long) == FIRST_WINDOW, "its first window")
        for _ in range(4):
            await pilot.press("pageup")
            await pilot.pause()
        for page in range(3):
            shown = in_view(long)
            at_once[:] = []  # noted from now on: the first frame painted as a change ends
            await pilot.press("pagedown")
            await pilot.pause()
            now = in_view(long)
            assert now[0] > shown[0], f"page {page}: the view went down"
            assert at_once[:1] == [now[0]], f"page {page}: painted as the change ended"


async def test_answers_out_of_view_let_go_of_their_lines_when_a_turn_ends(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the window holds answers far from the view (it is bounded by screens too: here
    made wide enough for two answers of some 2,600 lines), they hold none of their lines."""
    monkeypatch.setattr(transcript_module, "WINDOW_SCREENS", 1000)
    async with deck(size=(100, 30)) as (app, pilot):
        await type_and_send(app, pilot, "long answer")
        await until(pilot, lambda: len(turn_markers(app)) == 1, "the first answer ends")
        [first] = transcript(app).query(AgentMessage)
        await until(pilot, lambda: transcript(app).settled and not first.undrawn, "it is drawn")
        assert first.held_lines > 0, "the lines near the view are held"

        await type_and_send(app, pilot, "long answer")
        await until(pilot, lambda: len(turn_markers(app)) == 2, "the second answer ends")
        second = transcript(app).query(AgentMessage).last()
        await until(pilot, lambda: first.held_lines == 0, "the answer out of view lets go")
        assert second.held_lines > 0, "the answer in view keeps its own"

        height = first.size.height
        transcript(app).scroll_to_widget(first, animate=False, top=True)
        await until(pilot, lambda: first.held_lines > 0, "the first answer comes into view")
        assert 0 < first.held_lines < 200, "what came into view is drawn again"
        assert first.size.height == height, "in the room it took"
        assert first.render_line(0).text.strip(), "its first line shows again"


def drawn(shown: Transcript) -> list[int]:
    """The entries that have widgets."""
    return [index for index, entry in enumerate(shown.entries) if entry.widget is not None]


def said(seq: int) -> Notice:
    return Notice(seq=seq, at=5e9 + seq, conversation_id=LONG, level="info", text=f"note {seq}")


async def test_widgets_stay_bounded_going_back_and_down_again_and_ctrl_end_draws_the_latest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events = [*conversation_of(800, 1), *conversation_of(4, 2)]
    app = CodexDeckApp(Settings(), replay_backend(events))
    tops = tops_painted(monkeypatch, app)
    async with app.run_test(size=(100, 30)) as pilot:
        long = await drawn_long(app, pilot, 1200)
        later = long.query_one(".later")

        while long.entries[0].widget is None:
            await pilot.press("ctrl+home")
            await until(
                pilot,
                lambda: long.settled and len(drawn(long)) <= MOST_WIDGETS,
                "the step drawn whole and the newest let go",
            )
        assert drawn(long) == list(range(MOST_WIDGETS)), "the first ones, without a gap"
        assert long.cut_below
        assert not long.following
        assert str(later.render()) == (
            f"▼ {1200 - MOST_WIDGETS} later item(s) — PageDown goes on, ctrl+end to the latest"
        )

        await long.apply([said(10**6)])  # something new comes while the user reads far back
        await pilot.pause()
        assert long.entries[-1].widget is None, "what comes is not drawn far below"
        assert f"▼ {1201 - MOST_WIDGETS} later item(s)" in str(later.render())

        pages = 0
        long.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        tops[:] = [in_view(long)[0]]
        while not long.following:
            shown = in_view(long)
            await pilot.press("pagedown")
            await pilot.pause()
            now = in_view(long)
            assert now[0] > shown[0], f"page {pages}: the view went down"
            assert now[0] <= shown[-1] + 1, f"page {pages}: no entry skipped ({now} {shown})"
            assert len(drawn(long)) <= MOST_WIDGETS, "going down lets go of the first"
            pages += 1
            assert pages < 1000
        assert tops == sorted(tops), "no frame showed a view it then left"
        tops.clear()
        assert long.entries[-1].widget is not None, "down to the last"
        assert not later.has_class("-shown")
        await long.apply([said(10**6 + 1)])
        await pilot.pause()
        assert long.entries[-1].widget is not None, "at the end, what comes is drawn"

        for _ in range(4):
            await pilot.press("ctrl+home")
            await pilot.pause()
        assert long.cut_below
        await pilot.press("ctrl+end")
        await until(
            pilot, lambda: long.entries[-1].widget is not None and long.following, "the latest"
        )
        assert len(drawn(long)) <= FIRST_WINDOW
        assert not later.has_class("-shown")


async def test_ctrl_home_shows_the_first_of_its_step_at_once_and_draws_the_rest_under_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first frame after ctrl+home shows the first of the earlier entries it brings back
    at the top (under the line that says what is above), with only those that fill the
    screen drawn; the others get their widgets
    under them in the frames after, the view staying where it is, with no gap in the end."""
    events = [*conversation_of(800, 1), *conversation_of(4, 2)]
    app = CodexDeckApp(Settings(), replay_backend(events))
    widgets: list[int] = []
    tops = tops_painted(monkeypatch, app, lambda shown: widgets.append(with_widgets(shown)))
    async with app.run_test(size=(100, 30)) as pilot:
        long = await drawn_long(app, pilot, 1200)
        await until(pilot, lambda: with_widgets(long) == FIRST_WINDOW, "its first window")
        step = 1200 - FIRST_WINDOW - EARLIER_STEP
        tops[:] = [in_view(long)[0]]
        await pilot.press("ctrl+home")
        whole = FIRST_WINDOW + EARLIER_STEP
        await until(pilot, lambda: whole in widgets, "the whole step is drawn and painted")
        assert long.settled
        assert drawn(long) == list(range(step, 1200)), "no gap"
        assert step in tops, "a frame shows the first of the step"
        first = tops.index(step)
        assert widgets[first - 1] < FIRST_WINDOW + EARLIER_STEP // 3, "a screenful first"
        assert set(tops[first:]) == {step}, "the view stays on the first of the step"
        painted = list(zip(tops[1:], widgets, strict=True))
        assert all(top == step for top, count in painted if count > FIRST_WINDOW), (
            "no frame shows the new widgets laid out as before them"
        )
        line = long.query_one(".earlier")
        assert str(line.render()).startswith(f"▲ {step} earlier item(s)")
        assert line.region.y == long.region.y, "under the line that says what is above"


async def test_a_jump_from_the_trace_draws_an_item_the_view_went_far_from() -> None:
    events = [*conversation_of(800, 1), *conversation_of(4, 2)]
    app = CodexDeckApp(Settings(), replay_backend(events))
    async with app.run_test(size=(100, 30)) as pilot:
        long = await drawn_long(app, pilot, 1200)
        for _ in range(4):
            await pilot.press("ctrl+home")
            await pilot.pause()
        await until(pilot, lambda: long.cut_below, "the latest let go of their widgets")
        last = long.entries[-2]
        assert last.widget is None

        app.main.post_message(TracePane.Jump(last.key))  # as a row chosen in the trace
        await until(pilot, lambda: last.widget is not None, "the item is drawn")
        await until(pilot, lambda: len(long.entries) - 2 in in_view(long), "and in view")
