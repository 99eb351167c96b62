"""The frame painted before Textual is imported (`tui.first_frame`): it is the app's own first
frame, cell for cell, in truecolour and in 256 colours and in both themes; what is typed on it
(text, Enter, Esc, Backspace, keys it lets go, a character cut in two) goes on in the app; and
the terminal is as it was once the app has ended."""

from __future__ import annotations

import signal
import sys
import termios
from pathlib import Path

import pyte
import pytest

from tests.reliability.terminal import running
from tests.tui.test_tmux_typing import type_slowly
from tests.tui.tmux import COMMAND, Terminal, message_box, quit_app
from tui.first_frame import Keys, Typed

DEADLINE_SECONDS = 30
MOUSE_ON = b"\x1b[?1000h"
"""What Textual sends first as it takes the terminal over (the frame before it never does)."""

Cell = tuple[str, str, str, bool]


def grid(output: bytes, columns: int, rows: int) -> list[list[Cell]]:
    """The screen `output` paints: each cell's character, colours and weight (a blank cell by
    its background only: its foreground shows nowhere)."""
    screen = pyte.Screen(columns, rows)
    pyte.ByteStream(screen).feed(output)
    return [
        [
            (" ", "", cell.bg, False)
            if cell.data == " "
            else (cell.data, cell.fg, cell.bg, cell.bold)
            for cell in (screen.buffer[row][column] for column in range(columns))
        ]
        for row in range(rows)
    ]


def the_two_frames(
    env: dict[str, str], size: tuple[int, int], tmp_path: Path
) -> tuple[bytes, bytes]:
    """What `codex-deck --demo` writes in a pty before Textual takes over, and from then on
    until Textual's first frame is painted."""
    settings = {"CODEX_DECK_CONFIG": str(tmp_path / "config.toml"), **env}
    with running(["--demo"], settings, size=size, cwd=tmp_path) as app:
        app.wait_until(
            lambda: MOUSE_ON in app.raw and b"palette" in app.raw.split(MOUSE_ON, 1)[1],
            "Textual's first frame",
        )
        before, after = app.raw.split(MOUSE_ON, 1)
    return before, after


@pytest.mark.parametrize(
    ("colours", "theme", "size"),
    [
        ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "codex-deck-dark", (120, 36)),
        ({"TERM": "xterm-256color", "COLORTERM": ""}, "codex-deck-dark", (80, 24)),
        ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "codex-deck-light", (100, 30)),
    ],
    ids=["truecolor-dark", "256-dark", "truecolor-light"],
)
def test_the_frame_before_the_app_is_the_apps_first_frame_cell_for_cell(
    colours: dict[str, str], theme: str, size: tuple[int, int], tmp_path: Path
) -> None:
    (tmp_path / "config.toml").write_text(f'[ui]\ntheme = "{theme}"\n')
    before, after = the_two_frames(colours, size, tmp_path)
    assert b"palette" in before, "the frame is painted before Textual takes over"
    ours, theirs = grid(before, *size), grid(before + after, *size)
    differing = [
        (row, column, ours[row][column], theirs[row][column])
        for row in range(size[1])
        for column in range(size[0])
        if ours[row][column] != theirs[row][column]
    ]
    assert differing == [], differing[:5]


def keys(*chunks: bytes) -> Typed:
    """What a first frame makes of `chunks` of input read one after the other."""
    taken, left = Keys(), b""
    for chunk in chunks:
        left = taken.take(left + chunk)
    return taken.typed


def test_what_the_first_frame_takes_of_keys() -> None:
    assert keys(b"hello") == Typed("hello", None, quit=False)
    assert keys(b"helo\x7flo") == Typed("hello", None, quit=False)
    cut = "café".encode()
    assert keys(cut[:4], cut[4:]) == Typed("café", None, quit=False), "a character cut in two"
    assert keys(b"hi\x1b[A\x1bOP there") == Typed("hi there", None, quit=False), "arrows, F1"
    assert keys(b"send\r", b"more") == Typed("send", "auto", quit=False), "held: no more typing"
    assert keys(b"later\t") == Typed("later", "queue", quit=False)
    assert keys(b"typed before the frame\n") == Typed("typed before the frame", "auto", quit=False)
    assert keys(b"send\r", b"\x1b", b" and more") == Typed("send and more", None, quit=False)
    assert keys(b"\r") == Typed("", None, quit=False), "nothing to hold"
    assert keys(b"bye\x11") == Typed("bye", None, quit=True)
    assert keys(b"\x03") == Typed("", None, quit=True)


def boxed(screen: str) -> str | None:
    """The message box's text; None before there is a box."""
    return message_box(screen) if "╭" in screen else None


def test_keys_typed_from_the_first_moment_go_on_in_the_app_and_the_terminal_is_restored(
    terminal: Terminal, isolated_settings: Path
) -> None:
    """Typed at once as the command starts (on the frame before the app, then in the app as
    it takes over): every key lands once and in order; quitting leaves the terminal in the
    modes it had (echo, lines)."""
    terminal.type(f"stty -a > {isolated_settings.parent / 'before.txt'}", "Enter")
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    text = "typed from the very first moment on"
    terminal.type("-l", text[:5])
    terminal.wait_until(lambda: boxed(terminal.screen()) == text[:5], "the frame shows them")
    type_slowly(terminal, text[:5], text[5:])
    terminal.wait_for("offline demo")
    assert message_box(terminal.screen()) == text
    quit_app(terminal)
    terminal.type(f"stty -a > {isolated_settings.parent / 'after.txt'}", "Enter")
    after = isolated_settings.parent / "after.txt"
    terminal.wait_until(lambda: after.exists() and after.stat().st_size > 0, "stty to answer")
    assert after.read_text() == (isolated_settings.parent / "before.txt").read_text()


def test_told_to_end_before_the_app_is_up_the_terminal_is_left_as_it_was(tmp_path: Path) -> None:
    """SIGTERM (or a hang-up) while only the first frame is there: the frame's screen is left
    and the terminal's modes are as before (lines, echo), not the frame's raw ones."""
    script = "from tui.first_frame import FirstFrame\nFirstFrame.open('w', 'codex-deck-dark')\n"
    script += "import signal\nsignal.pause()\n"
    with running([], {}, size=(100, 30), command=[sys.executable, "-c", script]) as frame:
        frame.wait_for_bytes(b"palette")
        assert not frame.modes()[3] & termios.ICANON, "the frame takes keys raw"
        frame.process.terminate()
        assert frame.process.wait(DEADLINE_SECONDS) == 128 + signal.SIGTERM
        frame.read_rest()
        assert frame.raw.endswith(b"\x1b[?1049l"), "the frame's screen is left"
        assert frame.modes() == frame.first_modes
