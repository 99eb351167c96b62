"""Markdown drawn cheaply: finished blocks are frozen into pieces laid out once per width, and
only the unfinished tail of a streaming answer is drawn again as it grows."""

from __future__ import annotations

import bisect
import copy
import re
from functools import cache

import anyio.lowlevel
from markdown_it import MarkdownIt
from rich.markdown import Markdown
from rich.style import Style
from textual.geometry import Region, Size
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


@cache
def _parser() -> MarkdownIt:
    """The parser Rich's Markdown uses. Rich makes a new one for each document, which takes
    longer than parsing a short one, so one is kept."""
    return MarkdownIt().enable("strikethrough").enable("table")


@cache
def _blank(dark: bool) -> Markdown:
    """An empty document with the code theme for a dark or light background."""
    return Markdown("", code_theme="monokai" if dark else "friendly")


def markdown(text: str, dark: bool) -> Markdown:
    """`text` as Rich Markdown, its control characters shown, not sent to the terminal."""
    shown = inert(text.replace("\r\n", "\n"))
    document = copy.copy(_blank(dark))
    document.markup = shown
    document.parsed = _parser().parse(shown)
    return document


class MarkdownChunk(Widget):
    """Markdown drawn as finished pieces one under the other and a live tail under them.

    The finished part of an answer grows by whole pieces (`append`), each laid out once for
    each width it is shown at; the tail is replaced as it grows (`show`) and only
    it is drawn again. One widget, however long the answer, keeps the screen's layout as cheap
    for a long answer as for a short one.
    """

    DEFAULT_CSS = """
    MarkdownChunk { height: auto; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._pieces: list[str] = []
        self._piece_lines: list[Strip] = []
        self._drawn = 0
        """How many of the pieces `_piece_lines` holds."""
        self._tail = ""
        self._tail_lines: list[Strip] | None = None
        self._lines: list[Strip] | None = None
        """The pieces' lines and then the tail's, as drawn for `_laid_out_for`."""
        self._laid_out_for: tuple[int, bool] | None = None
        self._style = Style()
        self._selection: Selection | None = None

    @property
    def finished_text(self) -> str:
        """The text of the finished pieces (without the tail)."""
        return "".join(self._pieces)

    def extend(self, pieces: list[str], tail: str) -> None:
        """Add finished pieces under the others and replace the live tail (only the new pieces
        and the tail are laid out anew)."""
        self._pieces += pieces
        self._tail = tail
        self._tail_lines = self._lines = None
        self.refresh(layout=True)

    async def grow(self, pieces: list[str], tail: str) -> None:
        """`extend`, with the new pieces drawn first, one at a time, at the width the widget is
        laid out at: the event loop (keys, the engine) runs between two pieces, and the next
        layout only has the tail to draw."""
        laid_out = self._laid_out_for
        drawn: list[Strip] = []
        if laid_out is not None:
            for piece in pieces:
                lines = self._draw(piece, *laid_out)
                drawn += _gap(drawn or self._piece_lines, lines) + lines
                await anyio.lowlevel.checkpoint()
        still_laid_out = laid_out is not None and self._laid_out_for == laid_out
        if still_laid_out and self._drawn == len(self._pieces):
            self._piece_lines += drawn
            self._drawn += len(pieces)
        self.extend(pieces, tail)

    def clear(self) -> None:
        """Drop every piece and the tail."""
        self._pieces = []
        self._tail = ""
        self._laid_out_for = None
        self.refresh(layout=True)

    def _lay_out(self, width: int) -> list[Strip]:
        dark = self.app.current_theme.dark
        if self._laid_out_for != (width, dark):
            self._laid_out_for = (width, dark)
            self._piece_lines, self._drawn = [], 0
            self._tail_lines = self._lines = None
        if self._lines is not None:
            return self._lines
        for piece in self._pieces[self._drawn :]:
            drawn = self._draw(piece, width, dark)
            self._piece_lines += _gap(self._piece_lines, drawn) + drawn
        self._drawn = len(self._pieces)
        if self._tail_lines is None:
            tail = self._draw(self._tail, width, dark) if self._tail else []
            self._tail_lines = _gap(self._piece_lines, tail) + tail
        self._lines = self._piece_lines + self._tail_lines
        return self._lines

    def _draw(self, text: str, width: int, dark: bool) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(max(width, 1))
        rendered = console.render_lines(markdown(text, dark), options, pad=False)
        return [Strip(line) for line in rendered]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lay_out(width))

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's style and selection, worked out once for all the lines drawn now.
        self._style = self.rich_style
        self._selection = self.text_selection
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self._lay_out(width)
        line = lines[y] if y < len(lines) else Strip.blank(width)
        selection = self._selection
        span = selection.get_span(y) if selection is not None else None
        if span is not None:
            start, end = span
            end = line.cell_length if end == -1 else end
            style = self.screen.get_component_rich_style("screen--selection")
            line = Strip.join(
                [line.crop(0, start), line.crop(start, end).apply_style(style), line.crop(end)]
            )
        return line.apply_style(self._style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, so a mouse selection can be copied (OSC 52 over ssh too)."""
        text = "\n".join(line.text.rstrip() for line in self._lines or [])
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


def _gap(above: list[Strip], below: list[Strip]) -> list[Strip]:
    """The blank line between two blocks where the text was cut into pieces (a document
    drawn alone does not always end with the one that followed its last block)."""
    if above and below and above[-1].cell_length and below[0].cell_length:
        return [Strip.blank(0)]
    return []
