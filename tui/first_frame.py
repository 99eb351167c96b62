"""The first frame, painted with plain escape sequences as soon as the command knows it runs the
app, before Textual is imported (which takes some 300 to 500 ms on a slow machine): the welcome
text, the message box (already taking what is typed), the status line and the keys, laid out
and coloured as the app's own first frame (`tui.screens.starting`), which paints over it.

What is typed meanwhile is kept: text, Backspace, Enter and Tab (which hold the message until
codex is up, as the app's box does; a newline is an Enter here, as typed before the frame the
terminal made it one), Esc (which stops holding it), ctrl+c and ctrl+q (quit as soon as the app
is up); other keys are let go. The app takes it over with `hand_over`.

Only the standard library here (and Rich's colour downgrade, for a terminal of 256 colours):
the point is to paint before anything heavy is imported.
"""

from __future__ import annotations

import os
import re
import select
import signal
import sys
import termios
import threading
import tty
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal, cast

from themes import PALETTES

PLACEHOLDER = "Write to codex · Enter sends · / lists the commands"
STARTING = "starting codex-deck…"
HELD = "your message goes as soon as codex is up · esc keeps it here to edit"
KEYS = ((" ^q ", "Quit "), (" f1 ", "Keys "))
PALETTE_KEY = ("▏", "^p", " palette ")
MUTED = 0.6
"""How much of the contrast colour Textual's `$text-muted` is."""
PLACEHOLDER_ALPHA = 0.4
"""And the message box's placeholder."""
ESCAPE_WAIT = 0.05
"""Seconds to wait for the rest of an escape sequence before taking Esc as a key."""
MIN_SIZE = (40, 10)
ENDINGS = (signal.SIGTERM, signal.SIGHUP)
"""The signals that tell codex-deck to end: it closes as on ctrl+q, at any moment of its start."""
WORD = re.compile(r"\s*\S+\s*")

RGB = tuple[int, int, int]
Mode = Literal["auto", "queue"]


@dataclass(frozen=True)
class Typed:
    """What was typed on the first frame."""

    text: str
    held: Mode | None
    """Sent (Enter, or Tab to queue) before codex was up: it goes once it is."""
    quit: bool
    """ctrl+c or ctrl+q was pressed."""


def rgb(colour: str) -> RGB:
    value = int(colour.lstrip("#"), 16)
    return (value >> 16) & 255, (value >> 8) & 255, value & 255


def blend(base: RGB, over: RGB, alpha: float) -> RGB:
    """`over` at `alpha` on `base`, as Textual blends a colour with transparency."""
    red, green, blue = (int(b + (o - b) * alpha) for b, o in zip(base, over, strict=True))
    return red, green, blue


def contrast(background: RGB) -> RGB:
    """White on a dark colour, black on a light one (Textual's `auto`)."""
    red, green, blue = background
    brightness = (299 * red + 587 * green + 114 * blue) / 255_000
    return (255, 255, 255) if brightness < 0.5 else (0, 0, 0)


def wrap(text: str, width: int) -> list[str]:
    """The lines `text` takes in `width` cells, broken between words as Rich breaks them."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in WORD.findall(paragraph):
            if line and len(line) + len(word.rstrip()) > width:
                lines.append(line)
                line = word
            else:
                line += word
            while len(line.rstrip()) > width:  # a word longer than the line: folded
                lines.append(line[:width])
                line = line[width:]
        lines.append(line)
    return lines


class Painter:
    """Escape sequences for text in a colour pair, in truecolour or 256 colours."""

    def __init__(self, truecolor: bool) -> None:
        self._truecolor = truecolor
        self._numbers: dict[RGB, int] = {}

    def colour(self, value: RGB, layer: Literal[38, 48]) -> str:
        if self._truecolor:
            return f"{layer};2;{value[0]};{value[1]};{value[2]}"
        number = self._numbers.get(value)
        if number is None:
            from rich.color import Color, ColorSystem

            downgraded = Color.from_rgb(*value).downgrade(ColorSystem.EIGHT_BIT)
            number = self._numbers[value] = downgraded.number or 0
        return f"{layer};5;{number}"

    def text(self, text: str, fg: RGB, bg: RGB, bold: bool = False) -> str:
        weight = "1;" if bold else ""
        return f"\x1b[{weight}{self.colour(fg, 38)};{self.colour(bg, 48)}m{text}\x1b[0m"


class Keys:
    """What is typed on the first frame, as the app's first message box would take it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._text = ""
        self._held: Mode | None = None
        self._quit = False

    @property
    def typed(self) -> Typed:
        with self._lock:
            return Typed(self._text, self._held, self._quit)

    def take(self, data: bytes) -> bytes:
        """Apply the keys in `data`; what is left (the start of a character cut in two)."""
        at = 0
        while at < len(data):
            byte = data[at]
            if byte == 0x1B:
                at = self._escape(data, at)
                continue
            if byte < 0x20 or byte == 0x7F:
                self._control(byte)
                at += 1
                continue
            end = at + 1
            while end < len(data) and 0x80 <= data[end] < 0xC0:
                end += 1
            try:
                character = data[at:end].decode()
            except UnicodeDecodeError:
                if end == len(data):
                    return data[at:]  # the rest of the character comes next
                at = end
                continue
            with self._lock:
                if self._held is None:
                    self._text += character
            at = end
        return b""

    def _escape(self, data: bytes, at: int) -> int:
        """Esc alone stops holding the message; a sequence (an arrow, a function key) or
        alt with a key is let go. Where the next key starts."""
        if at + 1 >= len(data):
            with self._lock:
                self._held = None
            return at + 1
        follower = data[at + 1]
        if follower in b"[O":
            end = at + 2
            while end < len(data) and not 0x40 <= data[end] <= 0x7E:
                end += 1
            return end + 1
        return at + 2

    def _control(self, byte: int) -> None:
        with self._lock:
            if byte in (0x03, 0x11):
                self._quit = True
            elif self._held is not None:
                return
            elif byte in (0x7F, 0x08):
                self._text = self._text[:-1]
            elif byte in (0x0D, 0x0A, 0x09) and self._text.strip():
                # A newline is an Enter too: one pressed before the frame took the terminal
                # over came through the terminal's carriage-return-to-newline translation.
                self._held = "queue" if byte == 0x09 else "auto"


class FirstFrame:
    """The first frame on the terminal of `fd` (input and output), and what is typed on it."""

    def __init__(self, fd: int, welcome: str, theme: str, painter: Painter) -> None:
        self._fd = fd
        self._welcome = welcome
        palette = cast(dict[str, str], PALETTES[theme])  # the colours, each a str
        colours = {name: rgb(value) for name, value in palette.items()}
        self._colours = colours
        background, surface, panel = colours["background"], colours["surface"], colours["panel"]
        self._muted = blend(background, contrast(background), MUTED)
        self._status_muted = blend(panel, contrast(panel), MUTED)
        self._placeholder = blend(surface, contrast(surface), PLACEHOLDER_ALPHA)
        self._painter = painter
        self._original = termios.tcgetattr(fd)
        self._keys = Keys()
        self._handlers: dict[int, Any] = {}
        """What handled the signals that end the process before the frame."""
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, name="first-frame", daemon=True)

    @classmethod
    def open(cls, welcome: str, theme: str) -> FirstFrame | None:
        """The first frame painted on this process's terminal, taking what is typed; None
        where it would not look as the app's does (no terminal, a small one, no colours, a
        theme of Textual's own)."""
        stdin, stdout = sys.__stdin__, sys.__stdout__
        if stdin is None or stdout is None or not (stdin.isatty() and stdout.isatty()):
            return None
        if os.environ.get("TEXTUAL_DRIVER") or os.environ.get("NO_COLOR"):
            return None
        truecolor = os.environ.get("COLORTERM", "").lower() in ("truecolor", "24bit")
        if not truecolor and not os.environ.get("TERM", "").endswith("256color"):
            return None
        if theme not in PALETTES:
            return None
        fd = stdin.fileno()
        columns, rows = os.get_terminal_size(fd)
        if columns < MIN_SIZE[0] or rows < MIN_SIZE[1]:
            return None
        frame = cls(fd, welcome, theme, Painter(truecolor))
        for ending in ENDINGS:
            frame._handlers[ending] = signal.signal(ending, frame._ended)
        tty.setraw(fd, termios.TCSANOW)
        os.write(stdout.fileno(), b"\x1b[?1049h\x1b[?25l" + frame.render().encode())
        frame._reader.start()
        return frame

    def render(self) -> str:
        """The whole frame, as escape sequences that paint it from the top left."""
        columns, rows = os.get_terminal_size(self._fd)
        colours, paint = self._colours, self._painter.text
        background, surface, panel = colours["background"], colours["surface"], colours["panel"]
        typed = self._keys.typed
        text, held = typed.text, typed.held
        inner = columns - 4
        shown = wrap(text, inner - 1) if text else [""]
        box = [self._border("╭", "╮", columns)]
        for number, line in enumerate(shown):
            last = number == len(shown) - 1
            if text:
                cells = paint(line, colours["foreground"], surface)
                if last:
                    cells += paint(" ", background, colours["foreground"])
                    used = len(line) + 1
                else:
                    used = len(line)
            else:
                cells = paint(PLACEHOLDER[:1], background, colours["foreground"])
                cells += paint(PLACEHOLDER[1:inner], self._placeholder, surface)
                used = min(len(PLACEHOLDER), inner)
            side = paint("│", colours["primary"], surface)
            filler = paint(" " * (inner - used), colours["foreground"], surface)
            box.append(side + paint(" ", surface, surface) + cells + filler)
            box[-1] += paint(" ", surface, surface) + side
        box.append(self._border("╰", "╯", columns))
        status = f"{STARTING} {HELD}" if held else STARTING
        status_line = paint(" ", panel, panel)
        status_line += paint(status[: columns - 2].ljust(columns - 2), self._status_muted, panel)
        status_line += paint(" ", panel, panel)
        above = max(rows - len(box) - 2, 0)
        welcome = ["", *wrap(self._welcome, columns - 4)]
        lines = []
        for number in range(above):
            said = welcome[number] if number < len(welcome) else ""
            lines.append(
                paint("  ", background, background)
                + paint(said[: columns - 4].ljust(columns - 4), self._muted, background)
                + paint("  ", background, background)
            )
        lines += [*box[: rows - above - 2], status_line, self._key_bar(columns)]
        drawn = "".join(f"\x1b[{row};1H{line}" for row, line in enumerate(lines, 1))
        return drawn + f"\x1b[{rows};1H"

    def _border(self, left: str, right: str, columns: int) -> str:
        colours = self._colours
        return self._painter.text(
            left + "─" * (columns - 2) + right, colours["primary"], colours["surface"]
        )

    def _key_bar(self, columns: int) -> str:
        colours, paint = self._colours, self._painter.text
        key, said, panel = colours["accent"], colours["foreground"], colours["panel"]
        line = "".join(paint(k, key, panel, bold=True) + paint(d, said, panel) for k, d in KEYS)
        used = sum(len(k) + len(d) for k, d in KEYS)
        bar, palette, description = PALETTE_KEY
        right = len(bar) + len(palette) + len(description)
        line += paint(" " * max(columns - used - right, 0), said, panel)
        return (
            line
            + paint(bar, said, panel)
            + paint(palette, key, panel, bold=True)
            + paint(description, said, panel)
        )

    def _read(self) -> None:
        pending = b""
        while not self._stop.is_set():
            ready, _, _ = select.select([self._fd], [], [], 0.02)
            if not ready:
                continue
            pending += os.read(self._fd, 4096)
            if pending.endswith(b"\x1b"):
                more, _, _ = select.select([self._fd], [], [], ESCAPE_WAIT)
                if more:
                    continue  # the rest of a sequence is on its way
            pending = self._keys.take(pending)
            os.write(sys.__stdout__.fileno() if sys.__stdout__ else 1, self.render().encode())

    def hand_over(self) -> Typed:
        """Stop taking keys (what comes next is the app's to read) and say what was typed;
        the frame stays on the screen until the app paints over it. The terminal's modes
        are as they were before the frame: the app keeps them to go back to (when it ends,
        and when it steps aside for a pager)."""
        self._stop.set()
        if self._reader.is_alive():
            self._reader.join()
        termios.tcsetattr(self._fd, termios.TCSADRAIN, self._original)
        for ending, handler in self._handlers.items():
            signal.signal(ending, handler)
        self._handlers.clear()
        return self._keys.typed

    def _ended(self, number: int, _: FrameType | None) -> None:
        """Told to end (a hang-up, SIGTERM) before the app is up: the terminal as it was,
        then end (what is open is closed on the way out)."""
        self.close()
        raise SystemExit(128 + number)

    def close(self) -> None:
        """The app will not start: leave the frame's screen, and the terminal as it was."""
        self.hand_over()
        out = sys.__stdout__.fileno() if sys.__stdout__ else 1
        os.write(out, b"\x1b[?25h\x1b[?1049l")
