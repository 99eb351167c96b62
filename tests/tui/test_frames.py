"""Streamed text is drawn thirty times a second, and ten times a second while the program is
behind: a stream that outruns the machine costs fewer frames, and keys get the time. While a
key typed is not painted yet, streamed text waits, so that the key's frame is short."""

from __future__ import annotations

import time

import pytest
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from engine.events import ItemDelta, ItemStarted, SideChatAnswered
from engine.protocol import AgentMessageItem
from tests.tui.conftest import Deck, until
from tests.tui.conftest import transcript as transcript_of
from tui import pacing as paced
from tui.entries import AgentEntry
from tui.pacing import KeysFirstApp, PacedScreen
from tui.private import crop_renders
from tui.widgets.composer import Composer
from tui.widgets.message import AgentMessage
from tui.widgets.notes import TurnMarker
from tui.widgets.side_thread import SideThread
from tui.widgets.transcript import (
    BUSY_FRAME_SECONDS,
    FRAME_SECONDS,
    LATE_SECONDS,
    Transcript,
)

pytestmark = pytest.mark.anyio


class OneTranscript(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.transcript = Transcript("c", "")

    def compose(self) -> ComposeResult:
        yield self.transcript


def delta(seq: int, text: str) -> ItemDelta:
    return ItemDelta(
        seq=seq,
        at=0.0,
        conversation_id="c",
        turn_id="t",
        item_id="m",
        kind="agent_message",
        text=text,
        index=0,
    )


def answer_started() -> ItemStarted:
    return ItemStarted(
        seq=1, at=0.0, conversation_id="c", turn_id="t", item=AgentMessageItem(id="m", text="")
    )


def busy(seconds: float) -> None:
    """Keep the event loop busy, as a heavy frame or a flood of events would."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def test_frames_slow_down_while_the_program_is_behind_and_speed_up_after() -> None:
    app = OneTranscript()
    async with app.run_test() as pilot:
        transcript = app.transcript
        await transcript.apply([answer_started(), delta(2, "Hello")])
        await until(pilot, lambda: transcript.settled, "the first words are drawn")
        assert transcript.frame_seconds == FRAME_SECONDS

        await transcript.apply([delta(3, " there")])
        busy(FRAME_SECONDS + 2 * LATE_SECONDS)
        await until(pilot, lambda: transcript.settled, "the late frame is drawn")
        assert transcript.frame_seconds == BUSY_FRAME_SECONDS

        await transcript.apply([delta(4, ", and welcome")])
        await until(pilot, lambda: transcript.settled, "the next frame is drawn on time")
        assert transcript.frame_seconds == FRAME_SECONDS
        answer = transcript.entries[-1]
        assert isinstance(answer, AgentEntry)
        assert answer.text == "Hello there, and welcome"
        assert isinstance(answer.widget, AgentMessage)
        assert answer.widget.render_line(0).text.strip() == answer.text


class TranscriptScreen(PacedScreen):
    def __init__(self, transcript: Transcript) -> None:
        super().__init__()
        self.transcript = transcript

    def compose(self) -> ComposeResult:
        yield self.transcript


class PacedTranscript(KeysFirstApp):
    def __init__(self) -> None:
        super().__init__()
        self.transcript = Transcript("c", "")

    def on_mount(self) -> None:
        self.push_screen(TranscriptScreen(self.transcript))


async def test_streamed_text_waits_while_a_key_typed_is_not_painted_yet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(paced, "KEY_FIRST_SECONDS", 60.0)
    flushes = 0
    flush = Transcript._flush

    async def counted(transcript: Transcript) -> None:
        nonlocal flushes
        flushes += 1
        await flush(transcript)

    monkeypatch.setattr(Transcript, "_flush", counted)
    app = PacedTranscript()
    async with app.run_test() as pilot:
        transcript = app.transcript
        screen = transcript.screen
        assert isinstance(screen, PacedScreen)
        await transcript.apply([answer_started(), delta(2, "Hello")])
        await until(pilot, lambda: transcript.settled, "the first words are drawn")

        screen.key_coming()
        await transcript.apply([delta(3, " there")])
        await until(pilot, lambda: flushes >= 4, "the transcript tries to draw three times more")
        answer = transcript.entries[-1]
        assert isinstance(answer.widget, AgentMessage)
        assert answer.widget.render_line(0).text.strip() == "Hello"
        assert not transcript.settled

        screen.key_taken()
        await until(pilot, lambda: transcript.settled, "the text follows the key's frame")
        assert answer.widget.render_line(0).text.strip() == "Hello there"


async def test_each_frame_of_a_streaming_answer_draws_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The frame that lays out what a flush added also scrolls to it and paints it: the
    answer is not drawn a second time in a frame of its own (the layout asked for again when
    the answer's and the transcript's sizes were set, which changes nothing)."""
    drawn: list[str] = []
    flush = Transcript._flush
    render_lines = AgentMessage.render_lines

    async def counted_flush(transcript: Transcript) -> None:
        drawn.append("flush")
        await flush(transcript)

    def counted_lines(message: AgentMessage, crop: Region) -> list[Strip]:
        drawn.append("drawn")
        return render_lines(message, crop)

    monkeypatch.setattr(Transcript, "_flush", counted_flush)
    monkeypatch.setattr(AgentMessage, "render_lines", counted_lines)
    app = PacedTranscript()
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.transcript
        await transcript.apply([answer_started()])
        for seq in range(2, 24):
            if seq == 12:
                await until(pilot, lambda: transcript.max_scroll_y > 0, "it is over a screen")
                drawn.clear()  # from now on its width stays (the scroll bar shows)
            words = " ".join(f"word{seq}-{n}" for n in range(30))
            await transcript.apply([delta(seq, f"{words}\n\n")])
            await until(pilot, lambda: transcript.settled, "the paragraph is drawn")
    between = " ".join(drawn).split("flush")[1:-1]
    assert max(part.split().count("drawn") for part in between) == 1, " ".join(drawn)


async def test_the_scroll_bar_moves_in_the_frame_that_moves_the_answer(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app on the real engine, a long answer streaming: the layout that scrolls to what
    came moves the scroll bar's thumb too, and the frame paints both; the scroll bar is never
    painted alone in a frame of its own just after (once it shows)."""
    frames: list[set[str]] = []
    paint = PacedScreen._paint
    answer_lines = AgentMessage.render_lines
    bar_lines = ScrollBar.render_lines

    def counted_paint(screen: PacedScreen) -> None:
        frames.append(set())
        paint(screen)

    def counted_answer(message: AgentMessage, crop: Region) -> list[Strip]:
        if frames:
            frames[-1].add("answer")
        return answer_lines(message, crop)

    def counted_bar(bar: ScrollBar, crop: Region) -> list[Strip]:
        if frames:
            frames[-1].add("scroll bar")
        return bar_lines(bar, crop)

    monkeypatch.setattr(PacedScreen, "_paint", counted_paint)
    monkeypatch.setattr(AgentMessage, "render_lines", counted_answer)
    monkeypatch.setattr(ScrollBar, "render_lines", counted_bar)
    async with deck() as (app, pilot):
        app.main.query_one(Composer).text = "long answer"
        await pilot.press("enter")
        await until(pilot, lambda: transcript_of(app).query(TurnMarker), "the answer ends")
    streaming = [frame for frame in frames if "answer" in frame]
    assert len(streaming) > 5
    assert sum("scroll bar" in frame for frame in streaming) > 5
    # From the first frame that shows the scroll bar with the answer (the one that shows it
    # first may come a frame late, once): never a frame of the scroll bar alone.
    shown = frames.index({"answer", "scroll bar"})
    alone = [frame for frame in frames[shown:] if frame == {"scroll bar"}]
    assert alone == [], frames


class SideThreadScreen(PacedScreen):
    def __init__(self) -> None:
        super().__init__()
        self.thread = SideThread("s")

    def compose(self) -> ComposeResult:
        yield self.thread


class PacedSideThread(KeysFirstApp):
    def __init__(self) -> None:
        super().__init__()
        self.paced = SideThreadScreen()

    def on_mount(self) -> None:
        self.push_screen(self.paced)


async def test_each_frame_of_a_streaming_side_answer_draws_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A side answer grows as the transcript's does: the side chat's layout, which sets how
    tall it has become, does not ask for another layout and a frame that draws the answer
    again; and the side chat still follows the answer as it grows."""
    drawn: list[str] = []
    render_lines = AgentMessage.render_lines

    def counted_lines(message: AgentMessage, crop: Region) -> list[Strip]:
        drawn.append("drawn")
        return render_lines(message, crop)

    monkeypatch.setattr(AgentMessage, "render_lines", counted_lines)
    app = PacedSideThread()
    async with app.run_test(size=(80, 24)) as pilot:
        thread = app.paced.thread
        await thread.asked("what did you do?")
        for seq in range(16):
            if seq == 10:
                await until(pilot, lambda: thread.max_scroll_y > 0, "it is over a screen")
                drawn.clear()  # from now on its width stays (the scroll bar shows)
            words = " ".join(f"word{seq}-{n}" for n in range(12))
            thread.add(f"{words}\n\n")
            drawn.append("flush")
            await thread.flush()
            await pilot.pause(FRAME_SECONDS)  # the pace of the stream
            await pilot.pause()  # what was asked for in that time is painted
        assert thread.scroll_y == thread.max_scroll_y > 0, "the side chat follows its answer"
    between = " ".join(drawn).split("flush")[1:-1]
    assert max(part.split().count("drawn") for part in between) == 1, " ".join(drawn)


async def test_a_side_answer_leaves_the_view_where_the_user_scrolled_it() -> None:
    """Scrolled up, the side chat stays where the user put it as the answer grows and as it
    ends; scrolled back to the end, it follows the answer again."""
    app = PacedSideThread()
    async with app.run_test(size=(80, 24)) as pilot:
        thread = app.paced.thread
        said: list[str] = []

        async def stream(rounds: int) -> None:
            for seq in range(rounds):
                said.append(" ".join(f"word{seq}-{n}" for n in range(12)) + "\n\n")
                thread.add(said[-1])
                await thread.flush()
                await pilot.pause(FRAME_SECONDS)
                await pilot.pause()

        await thread.asked("what did you do?")
        await stream(10)
        assert thread.scroll_y == thread.max_scroll_y > 0
        thread.scroll_home(animate=False)  # to read the question again
        await stream(3)
        await thread.answered(
            SideChatAnswered(
                seq=1,
                at=0.0,
                conversation_id="c",
                side_chat_id="s",
                question="what did you do?",
                answer="".join(said),
                cut=False,
            )
        )
        await pilot.pause()
        assert thread.scroll_y == 0 < thread.max_scroll_y

        await thread.asked("and then?")
        await pilot.pause()
        assert thread.scroll_y == thread.max_scroll_y, "a question asked shows the end"
        thread.scroll_home(animate=False)
        thread.scroll_end(animate=False)
        await stream(3)
        assert thread.scroll_y == thread.max_scroll_y, "back at the end, it follows"


async def test_a_word_added_to_the_last_line_paints_that_line_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An answer streamed at a model's pace grows a few words a frame: a frame whose words
    fit on the answer's last line lays nothing out, and makes no line of the answer again
    but that one (not the rest of its unfinished tail); nor does the frame after one that
    laid the answer out (for a new line), paint it again."""
    made: list[int] = []
    under: list[int] = []
    layouts: list[int] = []
    render_lines = Widget.render_lines
    refresh_layout = Screen._refresh_layout

    def counted_lines(widget: Widget, crop: Region) -> list[Strip]:
        if isinstance(widget, AgentMessage):
            made.append(crop.height)
        if isinstance(widget, Transcript):
            under.append(crop.height)
        return render_lines(widget, crop)

    def counted_layout(
        screen: Screen[None], size: Size | None = None, scroll: bool = False
    ) -> None:
        layouts.append(1)
        refresh_layout(screen, size, scroll)

    monkeypatch.setattr(Widget, "render_lines", counted_lines)
    monkeypatch.setattr(Screen, "_refresh_layout", counted_layout)
    monkeypatch.setattr(Compositor, "_get_renders", Compositor._get_renders)
    crop_renders()  # as the app does
    app = PacedTranscript()
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.transcript
        await transcript.apply([answer_started()])
        paragraphs = "".join(
            " ".join(f"word{seq}-{n}" for n in range(20)) + "\n\n" for seq in range(12)
        )
        unfinished = "".join(f"- point {n}\n" for n in range(4)) + "- The last"  # five lines
        await transcript.apply([delta(2, paragraphs + unfinished)])
        await until(pilot, lambda: transcript.max_scroll_y > 0, "it is over a screen")
        await pilot.pause()
        for seq in range(3, 9):
            made.clear()
            layouts.clear()
            await transcript.apply([delta(seq, " word")])
            await until(pilot, lambda: transcript.settled, "the word is drawn")
            await pilot.pause()
            assert (sum(made), len(layouts)) == (1, 0), (seq, made, layouts)
        answer = transcript.entries[-1].widget
        assert isinstance(answer, AgentMessage)
        last = answer.render_line(answer.size.height - 1).text.strip()
        assert last.endswith("The last" + " word" * 6)

        # A new paragraph: the answer grows, is laid out and painted whole (it moved up),
        # with the lines it painted before taken again: the new ones alone are made.
        made.clear()
        await transcript.apply([delta(9, "\n\nNext")])
        await until(pilot, lambda: transcript.settled, "the paragraph is drawn")
        await pilot.pause()
        assert sum(made) == 2, f"the blank line and the new one, not all in view: {made}"
        under.clear()
        await transcript.apply([delta(10, " word")])
        await until(pilot, lambda: transcript.settled, "the word is drawn")
        await pilot.pause()
        # The line the word went to alone.
        assert sum(under) == 1, "the frame after the layout paints what changed alone"
