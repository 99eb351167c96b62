"""The side chats and the trace beside the conversation, at the widths terminals have: the
app ended (Textual raised on a message box squeezed to no width) when both were open, at any
width, and when the trace was opened on a terminal under 100 columns."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal

from tests.tui.tmux import COMMAND, message_box, open_terminal
from tui.widgets.draft import DraftBox


@pytest.mark.parametrize("size", [(120, 36), (160, 40), (100, 30)])
def test_the_side_chats_and_the_trace_open_together_and_the_message_box_stays(
    isolated_settings: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    with open_terminal(tmp_path, size) as terminal:
        terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
        terminal.wait_for("offline demo")
        terminal.type("F4")
        terminal.wait_for("Ask aside")
        terminal.type("C-t")
        terminal.wait_for("trace · all")
        screen = terminal.screen()
        assert "Side chats" in screen
        assert "Traceback" not in screen
        terminal.type("C-l")
        terminal.type("count for me")
        terminal.wait_for("count for me")
        terminal.type("Enter")
        terminal.wait_for("turn completed")


@pytest.mark.parametrize(
    "keys",
    [("C-t", "C-t"), ("C-t", "C-l"), ("F4", "C-l"), ("F4", "C-t", "C-l"), ("C-b", "C-l")],
)
def test_what_is_typed_at_once_after_opening_and_closing_panes_goes_to_the_message_box(
    isolated_settings: Path, tmp_path: Path, keys: tuple[str, ...]
) -> None:
    """At full speed the focus asked for by one key landed after the next key had moved it
    on: the text went to the hidden trace (where `e` exported, `f` filtered, `r` opened the raw
    event) or to the side box."""
    with open_terminal(tmp_path) as terminal:
        terminal.type(f"cd {tmp_path}", "Enter")
        terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
        terminal.wait_for("offline demo")
        for key in keys:
            terminal.type(key)
        terminal.type("count for me, then export")
        terminal.wait_until(
            lambda: "count for me, then export" in message_box(terminal.screen()),
            "the text in the message box",
        )
        assert not list(tmp_path.glob("codex-deck-trace-*")), "no key reached the trace"


def test_the_trace_takes_a_narrow_terminal_and_gives_it_back(
    isolated_settings: Path, tmp_path: Path
) -> None:
    with open_terminal(tmp_path, (80, 24)) as terminal:
        terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
        terminal.wait_for("offline demo")
        terminal.type("C-t")
        # Waited for as one screen: a capture can fall between two frames of the change.
        terminal.wait_until(
            lambda: "trace · all" in (shown := terminal.screen()) and "Write to codex" not in shown,
            "the trace with the whole width",
        )
        terminal.type("C-t")
        terminal.wait_for("Write to codex")
        terminal.type("count for me", "Enter")
        terminal.wait_for("turn completed")


class Squeezed(App[None]):
    CSS = "#box { width: 1fr; } #wide { width: 100%; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield DraftBox(id="box")
            yield DraftBox(id="wide")


@pytest.mark.anyio
async def test_a_message_box_squeezed_to_no_width_shows_nothing_and_the_app_goes_on() -> None:
    app = Squeezed()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        box = app.query_one("#box", DraftBox)
        assert box.content_size.width == 0
        assert app.is_running
