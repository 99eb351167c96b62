"""An answer drawn in pieces (frozen blocks and a live tail) looks as the whole answer drawn
at once: the blank line between two blocks is kept where the text was cut."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest
from textual.app import App, ComposeResult

from tui.entries import AgentEntry
from tui.markdown import CHUNK_CHARS, markdown
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


class OneAnswer(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.answer = AgentMessage(AgentEntry(key="a", text=text))

    def compose(self) -> ComposeResult:
        yield self.answer


def drawn_and_whole(app: OneAnswer, text: str) -> tuple[list[str], list[str]]:
    """The answer's lines as drawn, and `text` drawn at once at the same width."""
    answer = app.answer
    width = answer.content_size.width
    drawn = [answer.render_line(y).text.rstrip() for y in range(answer.content_size.height)]
    options = app.console.options.update_width(width)
    whole = app.console.render_lines(markdown(text, app.current_theme.dark), options)
    return drawn, ["".join(segment.text for segment in line).rstrip() for line in whole]


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
