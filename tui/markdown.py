"""Markdown drawn cheaply: finished blocks are frozen into pieces laid out once per width, and
only the unfinished tail of a streaming answer is drawn again as it grows."""

from __future__ import annotations

import bisect
import copy
import math
import re
from functools import cache
from typing import TYPE_CHECKING, NamedTuple, Self

import anyio.lowlevel
from rich.style import Style
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from tui.sized import SizedByLayout
from tui.text import inert

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from rich.markdown import Markdown

CHUNK_CHARS = 500
"""Roughly how much text a frozen chunk holds."""
REST_SECONDS = 0.5
"""How long an answer stays unchanged before its pieces out of view are drawn."""
REST_PIECES = 4
"""Pieces drawn at a time then (about 10 ms)."""
KEPT_SCREENS = 2
"""Pieces more than this many screens above or below the view let go of their lines."""

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
    longer than parsing a short one, so one is kept. Imported here, not before the app is
    ready (some 20 ms); the app imports it in a thread once it is."""
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")


@cache
def _blank(dark: bool) -> Markdown:
    """An empty document with the code theme for a dark or light background."""
    from rich.markdown import Markdown

    return Markdown("", code_theme="monokai" if dark else "friendly")


def markdown(text: str, dark: bool) -> Markdown:
    """`text` as Rich Markdown, its control characters shown, not sent to the terminal."""
    shown = inert(text.replace("\r\n", "\n"))
    document = copy.copy(_blank(dark))
    document.markup = shown
    document.parsed = _parser().parse(shown)
    return document


class MarkdownChunk(SizedByLayout):
    """Markdown drawn as finished pieces one under the other and a live tail under them.

    The finished part of an answer grows by whole pieces (`extend`, `grow`), each drawn once
    for each width it is shown at; the tail is replaced as it grows and only it is drawn
    again. A piece is drawn when it first comes into view (the pieces of the last screenful
    at once): until then its height is estimated from its text, so an answer that streams
    faster than it can be read, or comes back long after a switch or a resize, costs only
    what shows. The rest is drawn once the answer has been quiet for a moment. One widget,
    however long the answer, keeps the screen's layout as cheap for a long answer as for a
    short one.
    """

    DEFAULT_CSS = """
    MarkdownChunk { height: auto; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._pieces: list[str] = []
        self._drawn: list[list[Strip] | None] = []
        """Each piece's lines at `_laid_out_for`, once drawn (one entry for each piece), and
        while they are kept (`let_go` lets them go)."""
        self._shapes: list[Shape | None] = []
        """Each piece's shape at `_laid_out_for`, once drawn, kept when its lines are let go:
        drawn again, it takes the same room."""
        self._tops: list[int] | None = None
        """Where each piece starts (the blank line above it included) and where the last one
        ends, as drawn or estimated; None when a piece has changed."""
        self._tail = ""
        self._tail_lines: list[Strip] | None = None
        self._laid_out_for: tuple[int, bool] | None = None
        self._cleared = 0
        """How many times the pieces were dropped (`clear`)."""
        self._moved = False
        """A piece drawn as it came into view had another height than estimated."""
        self._rest_timer: Timer | None = None
        self._style = Style()
        self._selection: Selection | None = None
        self._painted: dict[int, Strip] = {}
        """The lines painted last (by their y), as Textual's styles made them: a frame that
        only moves the answer (as each frame of a streaming answer does, scrolling up to
        show what came) takes them again rather than making each anew."""
        self._painted_for: tuple[object, ...] | None = None

    @property
    def finished_text(self) -> str:
        """The text of the finished pieces (without the tail)."""
        return "".join(self._pieces)

    @property
    def undrawn(self) -> int:
        """How many pieces wait to be drawn at the width shown (their room not known yet)."""
        return sum(shape is None for shape in self._shapes)

    @property
    def held_lines(self) -> int:
        """How many drawn lines the answer holds."""
        return sum(len(lines) for lines in self._drawn if lines is not None)

    def let_go(self) -> None:
        """Let go of the lines drawn (the answer is out of view: what it holds is then its
        text and each piece's room); each piece is drawn again as it comes into view, in
        the room it took."""
        self._drawn = [None] * len(self._drawn)
        self._tail_lines = None

    def extend(self, pieces: list[str], tail: str) -> None:
        """Add finished pieces under the others and replace the live tail."""
        self._add(pieces, [None] * len(pieces), tail)

    async def grow(self, pieces: list[str], tail: str) -> None:
        """`extend`, with the new pieces that will show at the bottom drawn first, one at a
        time: the event loop (keys, the engine) runs between two pieces, and the next
        layout only has the tail to draw."""
        laid_out = self._laid_out_for
        drawn: list[list[Strip] | None] = [None] * len(pieces)
        if laid_out is not None:
            shown = 0
            for index in reversed(range(len(pieces))):
                if shown >= self._view_lines():
                    break
                lines = drawn[index] = self._draw(pieces[index], *laid_out)
                shown += len(lines)
                await anyio.lowlevel.checkpoint()
        if laid_out is None or self._laid_out_for != laid_out:
            drawn = [None] * len(pieces)
        self._add(pieces, drawn, tail)

    def _add(self, pieces: list[str], drawn: list[list[Strip] | None], tail: str) -> None:
        kept = self._top(len(self._pieces))  # the lines above the tail stay as they are
        before = None if pieces else self._tail_lines  # the tail as last drawn, if it stays one
        self._pieces += pieces
        self._drawn += drawn
        self._shapes += [None if lines is None else _shape(lines) for lines in drawn]
        self._tail = tail
        self._tops = self._tail_lines = None
        height = self.size.height
        same_height = self._laid_out_for is not None and (
            self._lay_out(self._laid_out_for[0]) == height
        )
        if before is not None and self._laid_out_for is not None:
            kept += _same_lines(before, self._tail_block())  # words added to its last lines
        # The lines above `kept` (the tail's first lines, which words added to its end leave
        # as they were) stay painted. An answer as tall as it was (the tail grew within its
        # last line: most frames of an answer streamed at a model's pace) is painted from
        # there down, without a layout of the screen.
        changed = Region(0, kept, self.size.width, max(height - kept, 0))
        self.refresh(changed, layout=not same_height)
        self._rest_later()

    def clear(self) -> None:
        """Drop every piece and the tail."""
        self._pieces = []
        self._drawn = []
        self._shapes = []
        self._cleared += 1
        self._tail = ""
        self._tops = self._tail_lines = None
        self._laid_out_for = None
        self.refresh(layout=True)

    def _view_lines(self) -> int:
        return self.app.size.height

    def _lay_out(self, width: int) -> int:
        """Get ready to draw at `width`; the height of the whole."""
        dark = self.app.current_theme.dark
        if self._laid_out_for != (width, dark):
            self._laid_out_for = (width, dark)
            self._drawn = [None] * len(self._pieces)
            self._shapes = [None] * len(self._pieces)
            self._tops = self._tail_lines = None
            resized = True
        else:
            resized = False
        shown = _estimate(self._tail, width)
        for index in reversed(range(len(self._pieces))):
            if shown >= self._view_lines():
                break
            shape = self._shapes[index]  # known: its room is, without drawing it again
            shown += shape.lines if shape is not None else len(self._piece(index))
        if resized:
            self._rest_later()
        return self._top(len(self._pieces)) + len(self._tail_block())

    def _tail_block(self) -> list[Strip]:
        """The tail's lines, the blank line above it included."""
        if self._tail_lines is None:
            width, dark = self._laid_out_for or (1, True)
            tail = self._draw(self._tail, width, dark) if self._tail else []
            apart = bool(self._shapes) and _apart(self._shapes[-1], _shape(tail))
            self._tail_lines = [Strip.blank(0)] * apart + tail
        return self._tail_lines

    def _piece(self, index: int) -> list[Strip]:
        """Piece `index`'s lines, drawn now if they were not."""
        lines = self._drawn[index]
        if lines is None and self._laid_out_for is not None:
            lines = self._drawn[index] = self._draw(self._pieces[index], *self._laid_out_for)
            if self._shapes[index] is None:
                self._shapes[index] = _shape(lines)
                self._tops = None
                if index == len(self._pieces) - 1:
                    self._tail_lines = None
        return lines or []

    def _top(self, index: int) -> int:
        """The first line of piece `index` (the blank line above it included)."""
        if self._tops is None:
            width = self._laid_out_for[0] if self._laid_out_for is not None else 1
            tops = [0]
            for number, piece in enumerate(self._pieces):
                shape = self._shapes[number]
                height = shape.lines if shape is not None else _estimate(piece, width)
                tops.append(tops[-1] + self._gap_above(number) + height)
            self._tops = tops
        return self._tops[index]

    def _gap_above(self, index: int) -> int:
        """The blank line above piece `index` (taken to be there while it or the one above is
        not drawn: it is, unless a piece ends or starts with a blank line)."""
        return int(index > 0 and _apart(self._shapes[index - 1], self._shapes[index]))

    def _line(self, y: int) -> Strip:
        end = self._top(len(self._pieces))
        if y >= end:
            tail = self._tail_block()
            return tail[y - end] if y - end < len(tail) else Strip.blank(0)
        index = bisect.bisect_right(self._tops or [0], y) - 1
        while self._drawn[index] is None:
            before = (self._tops or [])[index + 1 :]
            self._piece(index)
            self._top(0)
            tops = self._tops or [0]
            self._moved = self._moved or tops[index + 1 :] != before
            index = min(bisect.bisect_right(tops, y) - 1, len(self._pieces) - 1)
        lines = self._drawn[index] or []
        offset = y - self._top(index) - self._gap_above(index)
        return lines[offset] if 0 <= offset < len(lines) else Strip.blank(0)

    def _draw(self, text: str, width: int, dark: bool) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(max(width, 1))
        rendered = console.render_lines(markdown(text, dark), options, pad=False)
        return [Strip(line) for line in rendered]

    def _rest_later(self) -> None:
        """Draw the pieces still waiting once nothing has changed for REST_SECONDS."""
        if self._rest_timer is not None:
            self._rest_timer.stop()
            self._rest_timer = None
        if self.is_mounted and self.undrawn:
            self._rest_timer = self.set_timer(REST_SECONDS, self._draw_rest)

    async def _draw_rest(self) -> None:
        """Draw the pieces still waiting, from the bottom up, a few at a time, and show them
        all at once; a view that is not at the bottom keeps its place while the pieces above
        it take their height."""
        self._rest_timer = None
        laid_out = self._laid_out_for
        state = laid_out, len(self._pieces), self._cleared
        waiting = [index for index, shape in enumerate(self._shapes) if shape is None]
        if laid_out is None or not waiting or not self.is_on_screen:
            return  # a conversation out of view draws the rest when shown again (`on_show`)
        drawn: dict[int, list[Strip]] = {}
        for index in reversed(waiting):
            drawn[index] = self._draw(self._pieces[index], *laid_out)
            if len(drawn) % REST_PIECES == 0:
                await anyio.lowlevel.checkpoint()
                if state != (self._laid_out_for, len(self._pieces), self._cleared):
                    return
        self._top(0)
        at_the_top = bisect.bisect_right(self._tops or [0], self._view_top()) - 1
        shown = min(max(at_the_top, 0), len(self._pieces))
        before = self._top(shown)
        for index, lines in drawn.items():
            if self._shapes[index] is None:
                self._drawn[index], self._shapes[index] = lines, _shape(lines)
        self._tops = self._tail_lines = None
        self._keep_view(self._top(shown) - before)
        self.refresh(layout=True)

    def on_show(self) -> None:
        self._rest_later()

    def _let_go_far(self) -> None:
        """Pieces more than KEPT_SCREENS screens from the view let go of their lines (each
        keeps its room, and is drawn again as it comes near): an answer of thousands of
        lines holds a few screens of them, not every line with what Textual derives from
        each, which every pass of Python's cyclic collector would walk."""
        height = self._view_lines()
        top = self._view_top()
        self._top(0)
        tops = self._tops or [0]
        first = bisect.bisect_right(tops, top - KEPT_SCREENS * height) - 1
        end = bisect.bisect_left(tops, top + (KEPT_SCREENS + 1) * height)
        for index, lines in enumerate(self._drawn):
            if lines is not None and not first <= index < end:
                self._drawn[index] = None

    def _view_top(self) -> int:
        """The first of this widget's lines the scrolling parent shows."""
        parent = self.parent
        if not isinstance(parent, Widget):
            return 0
        return round(parent.scroll_y) - self.virtual_region.y - self.gutter.top

    def _keep_view(self, moved: int) -> None:
        """The pieces above the view grew by `moved` lines: scroll as much (unless the view
        follows the bottom, which keeps its place by itself)."""
        parent = self.parent
        if moved and isinstance(parent, Widget) and parent.scroll_y < parent.max_scroll_y:

            def scroll() -> None:
                parent.scroll_to(y=parent.scroll_y + moved, animate=False, immediate=True)

            self.call_after_refresh(scroll)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._lay_out(width)

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        if repaint:
            below = min((region.y for region in regions), default=0)
            self._painted = {y: line for y, line in self._painted.items() if y < below}
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        self._painted = {}
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's style and selection, worked out once for all the lines drawn now.
        self._style = self.rich_style
        self._selection = self.text_selection
        self._lay_out(self.content_size.width)
        lines = self._paint_lines(crop)
        self._let_go_far()
        if self._moved:
            self._moved = False
            self._painted = {}
            self.call_later(self.refresh, layout=True)
        return lines

    def _paint_lines(self, crop: Region) -> list[Strip]:
        """The lines of `crop` as Textual's styles make them, those painted last taken again
        when nothing they were made from has changed since."""
        gutter = self.styles.gutter
        width = self.outer_size.width
        painted_for = (
            width,
            self._laid_out_for,
            self._style,
            self.background_colors,
            tuple(self.get_line_filters()),
        )
        if self._selection is not None or gutter.top or gutter.bottom:
            self._painted = {}  # a line's look then depends on more than its text
            return super().render_lines(crop)
        if painted_for != self._painted_for:
            self._painted, self._painted_for = {}, painted_for
        painted = self._painted
        wanted = [y for y in crop.line_range if y not in painted]
        for start, end in _runs(wanted):
            made = super().render_lines(Region(0, start, width, end - start))
            if self._moved:  # a piece drawn had another height: the lines under it moved
                return super().render_lines(crop)
            painted.update(zip(range(start, end), made, strict=True))
        lines = [painted[y] for y in crop.line_range]
        # The lines in view are kept: a frame that paints one line (a word added) is often
        # followed by one that paints them all (the answer grew a line and moved up).
        top = self._view_top()
        shown = range(top, top + self._view_lines())
        self._painted = {
            y: line for y, line in painted.items() if y in shown or y in crop.line_range
        }
        if crop.x == 0 and crop.width == width:
            return lines
        return [line.crop(crop.x, crop.right) for line in lines]

    def render_line(self, y: int) -> Strip:
        line = self._line(y)
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
        """The selected text, so a mouse selection can be copied (OSC 52 over ssh too): the
        lines as they show now (a piece not drawn yet is not on screen either)."""
        lines: list[Strip] = []
        for index, shape in enumerate(self._shapes):
            drawn = self._piece(index) if shape is not None else []
            lines += [Strip.blank(0)] * (self._top(index + 1) - self._top(index) - len(drawn))
            lines += drawn
        text = "\n".join(line.text.rstrip() for line in lines + self._tail_block())
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted numbers as runs of consecutive ones (start, end not included)."""
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and runs[-1][1] == number:
            runs[-1] = (runs[-1][0], number + 1)
        else:
            runs.append((number, number + 1))
    return runs


def _estimate(text: str, width: int) -> int:
    """About how many lines `text` takes as Markdown at `width` (before it is drawn)."""
    lines = text.rstrip("\n").split("\n")
    return sum(max(1, math.ceil(len(line) / max(width, 1))) for line in lines)


class Shape(NamedTuple):
    """The room a drawn piece takes, and whether it starts and ends with text."""

    lines: int
    starts_with_text: bool
    ends_with_text: bool


def _shape(lines: list[Strip]) -> Shape:
    return Shape(
        len(lines), bool(lines and lines[0].cell_length), bool(lines and lines[-1].cell_length)
    )


def _same_lines(before: list[Strip], after: list[Strip]) -> int:
    """How many lines `after` starts with that `before` has too, in the same places."""
    same = 0
    for old, new in zip(before, after, strict=False):
        if old != new:
            break
        same += 1
    return same


def _apart(above: Shape | None, below: Shape | None) -> bool:
    """Whether a blank line goes between two blocks where the text was cut into pieces (a
    document drawn alone does not always end with the one that followed its last block).
    None is a piece not drawn yet, taken to end and start with text."""
    if above is not None and not above.ends_with_text:
        return False
    return below is None or below.starts_with_text
