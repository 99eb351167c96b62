"""Markdown drawn cheaply: finished blocks are frozen into pieces laid out once per width, and
only the unfinished tail of a streaming answer is drawn again as it grows."""

from __future__ import annotations

import bisect
import re

from rich.markdown import Markdown
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from tui.text import inert

CHUNK_CHARS = 500
"""Roughly how much text a frozen chunk holds."""

_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)


def chunk_ends(text: str, start: int, size: int = CHUNK_CHARS) -> list[int]:
    """Where to cut `text[start:]` into finished chunks of about `size` characters.

    Cuts fall just after a blank line that is outside any fenced code block.
    """
    fences = [match.start() for match in _FENCE.finditer(text)]
    ends = []
    last = start
    position = text.find("\n\n", start)
    while position >= 0:
        point = position + 2
        if point - last >= size and bisect.bisect_left(fences, position) % 2 == 0:
            ends.append(point)
            last = point
        position = text.find("\n\n", point)
    return ends


def markdown(text: str, dark: bool) -> Markdown:
    """`text` as Rich Markdown, its control characters shown, not sent to the terminal."""
    shown = inert(text.replace("\r\n", "\n"))
    return Markdown(shown, code_theme="monokai" if dark else "friendly")


class MarkdownChunk(Widget):
    """Pieces of Markdown drawn one under the other, each laid out once for each width it is
    shown at: the frozen part of an answer grows by whole pieces (`append`), the live tail is
    one piece replaced as it grows (`show`). One widget, however many pieces, keeps the
    screen's layout as cheap for a long answer as for a short one."""

    DEFAULT_CSS = """
    MarkdownChunk { height: auto; padding: 0 1; }
    """

    def __init__(self, text: str = "", *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self._pieces: list[str] = [text] if text else []
        self._lines: list[Strip] = []
        self._drawn = 0
        """How many of the pieces `_lines` holds."""
        self._laid_out_for: tuple[int, bool] | None = None

    @property
    def text(self) -> str:
        return "".join(self._pieces)

    def show(self, text: str) -> None:
        """Replace the text (the live tail of a streaming answer)."""
        self._pieces = [text] if text else []
        self._laid_out_for = None
        self.refresh(layout=True)

    def append(self, text: str) -> None:
        """Add a finished piece under the others (only it is laid out anew)."""
        self._pieces.append(text)
        self.refresh(layout=True)

    def _lay_out(self, width: int) -> list[Strip]:
        dark = self.app.current_theme.dark
        if self._laid_out_for != (width, dark):
            self._laid_out_for = (width, dark)
            self._lines, self._drawn = [], 0
        if self._drawn < len(self._pieces):
            console = self.app.console
            options = console.options.update_width(max(width, 1))
            for piece in self._pieces[self._drawn :]:
                rendered = console.render_lines(markdown(piece, dark), options, pad=False)
                self._lines += [Strip(line) for line in rendered]
            self._drawn = len(self._pieces)
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lay_out(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self._lay_out(width)
        line = lines[y] if y < len(lines) else Strip.blank(width)
        selection = self.text_selection
        span = selection.get_span(y) if selection is not None else None
        if span is not None:
            start, end = span
            end = line.cell_length if end == -1 else end
            style = self.screen.get_component_rich_style("screen--selection")
            line = Strip.join(
                [line.crop(0, start), line.crop(start, end).apply_style(style), line.crop(end)]
            )
        return line.apply_style(self.rich_style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, so a mouse selection can be copied (OSC 52 over ssh too)."""
        text = "\n".join(line.text.rstrip() for line in self._lines)
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()
