"""An answer drawn in pieces (frozen blocks and a live tail) looks as the whole answer drawn
at once: the blank line between two blocks is kept where the text was cut. New pieces are
drawn with the app running between them; a long answer draws what shows first and the rest
once it is quiet, and the view keeps its place meanwhile."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Offset, Region
from textual.pilot import Pilot
from textual.selection import Selection

from tests.tui.conftest import until
from tui.entries import AgentEntry
from tui.markdown import CHUNK_CHARS, KEPT_SCREENS, chunk_ends, markdown
from tui.widgets.message import AgentMessage

pytestmark = pytest.mark.anyio


def blocks(count: int) -> str:
    """Paragraphs, lists and a heading of many lengths, so cuts fall after each kind."""
    parts = []
    for number in range(count):
        items = "".join(
            f"- point {i} of list {number}, with `code`\n" for i in range(number % 7 + 1)
        )
        words = " ".join(["**bold** and plain words"] * (number % 5 + 1))
        parts += [f"## Part {number}\n\n" if number % 4 == 0 else "", f"{words}:\n\n", items, "\n"]
    return "".join(parts)


def uneven(count: int) -> str:
    """Blocks whose height is hard to guess from their text: boxed titles, long paragraphs
    that wrap at word boundaries, code in a frame."""
    parts = []
    for number in range(count):
        words = " ".join(f"word{n % 13 * 'x'}" for n in range(number % 9 * 12 + 5))
        code = f"```python\nvalue = {number}\n```\n\n" if number % 3 == 0 else ""
        parts += [f"# Title {number}\n\n" if number % 5 == 0 else "", f"{words}\n\n", code]
    return "".join(parts)


class OneAnswer(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.answer = AgentMessage(AgentEntry(key="a", text=text))

    def compose(self) -> ComposeResult:
        yield self.answer


def whole_of(app: OneAnswer | AnswerInView, text: str) -> list[str]:
    """`text` drawn at once at the answer's width."""
    options = app.console.options.update_width(app.answer.content_size.width)
    whole = app.console.render_lines(markdown(text, app.current_theme.dark), options)
    return ["".join(segment.text for segment in line).rstrip() for line in whole]


def drawn_and_whole(app: OneAnswer | AnswerInView, text: str) -> tuple[list[str], list[str]]:
    """The answer's lines as drawn, and `text` drawn at once at the same width."""
    answer = app.answer
    drawn = [answer.render_line(y).text.rstrip() for y in range(answer.content_size.height)]
    return drawn, whole_of(app, text)


async def test_an_answer_cut_into_pieces_is_drawn_as_the_whole_of_it() -> None:
    text = blocks(40) + "The tail, still being written"
    app = OneAnswer(text)
    async with app.run_test(size=(80, 500)) as pilot:
        await pilot.pause()
        assert len(app.answer.finished_text) > 10 * CHUNK_CHARS, "the text was cut into pieces"
        drawn, whole = drawn_and_whole(app, text)
        assert drawn == whole


async def redrawn(answer: AgentMessage) -> int:
    """Redraw the answer; how many turns other work got meanwhile."""
    turns = 0
    done = False

    async def other_work() -> None:
        nonlocal turns
        while not done:
            turns += 1
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(other_work)
        await answer.redraw()
        done = True
    return turns


async def test_a_streamed_answer_lets_the_app_run_between_pieces_and_ends_as_the_whole() -> None:
    text = blocks(60) + "The last words"
    app = OneAnswer("")
    async with app.run_test(size=(80, 500)) as pilot:
        await pilot.pause()
        answer = app.answer
        for end in range(0, len(text), 3 * CHUNK_CHARS):
            answer.entry.text = text[:end]
            finished = len(answer.finished_text)
            turns = await redrawn(answer)
            pieces_drawn = len(answer.finished_text) > finished
            assert turns > 1 or not pieces_drawn, "other work ran while new pieces were drawn"
            await pilot.pause()
        answer.entry.text = text
        await answer.finish()
        await pilot.pause()
        drawn, whole = drawn_and_whole(app, text)
        assert drawn == whole


class AnswerInView(App[None]):
    """An answer in a scrolling view that follows the bottom, as in a transcript."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.answer = AgentMessage(AgentEntry(key="a", text=text))
        self.view = VerticalScroll(self.answer)

    def compose(self) -> ComposeResult:
        yield self.view

    def on_mount(self) -> None:
        self.view.anchor()

    def shown(self) -> list[str]:
        """The answer's lines the view shows."""
        top = round(self.view.scroll_y) - self.answer.virtual_region.y
        rows = range(max(top, 0), min(top + self.view.size.height, self.answer.size.height))
        return [self.answer.render_line(y).text.rstrip() for y in rows]


async def test_a_long_answer_draws_what_shows_and_the_rest_once_quiet_keeping_the_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("tui.markdown.REST_SECONDS", 3600)
    text = uneven(200) + "The last words"
    app = AnswerInView(text)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.answer.size.height > 0, "the answer is laid out")
        answer = app.answer
        pieces = len(chunk_ends(text, 0))
        assert 0 < pieces - answer.undrawn < pieces / 10, "only the pieces at the bottom are drawn"
        whole = whole_of(app, text)
        assert app.shown() == whole[-len(app.shown()) :], "the bottom shows as drawn whole"

        app.view.scroll_to(y=app.view.max_scroll_y // 2, animate=False, immediate=True)
        await until(pilot, lambda: app.shown() == app.shown(), "what came into view is drawn")
        middle = app.shown()
        assert middle
        assert all(line in whole for line in middle), "the middle shows real lines"
        assert answer.undrawn > pieces / 2, "the pieces above the view still wait"

        monkeypatch.setattr("tui.markdown.REST_SECONDS", 0.01)
        await answer.redraw()
        whole = whole_of(app, text)
        await until(
            pilot,
            lambda: answer.undrawn == 0 and answer.content_size.height == len(whole),
            "the rest is drawn once quiet, and laid out",
        )
        assert app.shown() == middle, "the view kept its place while the pieces above took shape"
        drawn, whole = drawn_and_whole(app, text)
        assert drawn == whole


async def drawn_whole(app: AnswerInView, pilot: Pilot[None]) -> int:
    """Wait until the answer is laid out and every piece of it drawn; its height."""
    answer = app.answer
    await until(pilot, lambda: answer.size.height > 0 and not answer.undrawn, "drawn whole")
    return answer.content_size.height


async def test_an_answer_that_let_go_of_its_lines_draws_them_again_in_the_same_room() -> None:
    text = uneven(200) + "The last words"
    app = AnswerInView(text)
    async with app.run_test(size=(80, 24)) as pilot:
        answer = app.answer
        height = await drawn_whole(app, pilot)
        drawn, whole = drawn_and_whole(app, text)
        assert drawn == whole
        held = answer.held_lines
        assert held >= len(whole) - 2 * len(chunk_ends(text, 0)), "every piece's lines held"

        answer.let_go()
        assert answer.held_lines == 0
        assert not answer.undrawn, "the room each piece takes is still known"
        app.view.scroll_to(y=app.view.max_scroll_y // 2, animate=False, immediate=True)
        await pilot.pause()
        assert answer.content_size.height == height, "it takes the same room"
        top = round(app.view.scroll_y) - answer.virtual_region.y
        assert app.shown() == whole[top : top + len(app.shown())], "drawn again as it was"
        assert 0 < answer.held_lines < held / 4, "only what came into view is drawn again"
        drawn, whole = drawn_and_whole(app, text)
        assert drawn == whole


async def test_a_long_answer_holds_the_lines_of_a_few_screens_around_the_view() -> None:
    """Drawn whole once quiet, a long answer keeps only the lines of the pieces near the view
    (the others keep their room): going up, what comes near is drawn again and what is left
    far below lets go."""
    text = uneven(400) + "The last words"
    app = AnswerInView(text)
    async with app.run_test(size=(80, 24)) as pilot:
        answer = app.answer
        height = await drawn_whole(app, pilot)
        near = (2 * KEPT_SCREENS + 1) * 24 + 2 * 60  # the screens kept, a piece cut at each end
        assert height > 4 * near, "the answer is many screens long"
        await until(pilot, lambda: 0 < answer.held_lines <= near, "the far pieces let go")

        app.view.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        whole = whole_of(app, text)
        assert app.shown() == whole[: len(app.shown())], "the top is drawn again as it was"
        assert answer.content_size.height == height, "in the room it took"
        assert 0 < answer.held_lines <= near, "the bottom let go as the top was drawn"
        assert answer.render_line(height - 1).text.strip() == "The last words"


async def test_lines_painted_again_take_the_new_theme_and_the_selection() -> None:
    """Lines an answer painted are taken again in the next frame only while nothing they
    were made from has changed: a new theme, or a selection, paints them anew."""
    app = OneAnswer("Some **bold** words.\n\nAnd more words after them.")
    async with app.run_test(size=(60, 10)) as pilot:
        answer = app.answer
        await pilot.pause()
        whole = Region(0, 0, answer.outer_size.width, answer.outer_size.height)
        dark = answer.render_lines(whole)
        assert answer.render_lines(whole) == dark, "nothing changed: the same lines"
        app.theme = "textual-light"
        await pilot.pause()
        light = answer.render_lines(whole)
        assert [line.text for line in light] == [line.text for line in dark]
        assert light != dark, "the lines take the light theme's colours"
        app.screen.selections = {answer: Selection(Offset(0, 0), Offset(4, 0))}
        await pilot.pause()
        assert answer.render_lines(whole)[0] != light[0], "the selection shows"
