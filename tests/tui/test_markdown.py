"""An answer drawn in pieces (frozen blocks and a live tail) looks as the whole answer drawn
at once: the blank line between two blocks is kept where the text was cut."""

from __future__ import annotations

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


async def test_an_answer_cut_into_pieces_is_drawn_as_the_whole_of_it() -> None:
    text = blocks(40) + "The tail, still being written"
    app = OneAnswer(text)
    async with app.run_test(size=(80, 500)) as pilot:
        await pilot.pause()
        answer = app.answer
        assert len(answer.finished_text) > 10 * CHUNK_CHARS, "the text was cut into pieces"
        width = answer.content_size.width
        drawn = [answer.render_line(y).text.rstrip() for y in range(answer.content_size.height)]
        options = app.console.options.update_width(width)
        whole = app.console.render_lines(markdown(text, app.current_theme.dark), options)
        expected = ["".join(segment.text for segment in line).rstrip() for line in whole]
        assert drawn == expected
