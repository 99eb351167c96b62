"""Finding text: ctrl+f (or / outside the composer) in the conversation shown, jumping through
the matches in order; the palette searches every conversation and opens the hit."""

from __future__ import annotations

import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import Input

from tests.tui.conftest import Deck, go_to_request, transcript, until
from tests.tui.test_app import turn_markers, type_and_send
from tui.app import CodexDeckApp
from tui.widgets.approval import ApprovalCard
from tui.widgets.command import CommandCell
from tui.widgets.composer import Composer
from tui.widgets.conversation_list import ConversationList
from tui.widgets.find_bar import FindBar

pytestmark = pytest.mark.anyio


async def rich_turn(app: CodexDeckApp, pilot: object) -> None:
    """Reasoning, an approved command with output, a new file and an answer."""
    await type_and_send(app, pilot, "do it all")
    await until(pilot, lambda: transcript(app).query(ApprovalCard), "the card shows")  # type: ignore[arg-type]
    await go_to_request(app, pilot)  # type: ignore[arg-type]
    await until(pilot, lambda: app.main.query_one(ApprovalCard).has_focus, "ctrl+g moves to it")  # type: ignore[arg-type]
    await pilot.press("y")  # type: ignore[attr-defined]
    await until(pilot, lambda: turn_markers(app), "the turn ends")  # type: ignore[arg-type]
    await until(pilot, lambda: transcript(app).settled, "it is drawn")  # type: ignore[arg-type]


def listed(app: CodexDeckApp) -> str:
    """What the command palette lists."""
    results = app.screen.query_one(CommandList)
    return "\n".join(
        str(results.get_option_at_index(i).prompt) for i in range(results.option_count)
    )


def found_where(bar: FindBar) -> list[str]:
    return [match.where for match in bar.found]


async def test_find_goes_through_messages_output_and_diffs_in_order(deck: Deck) -> None:
    async with deck(size=(120, 40)) as (app, pilot):
        await rich_turn(app, pilot)
        bar = app.main.query_one(FindBar)
        await pilot.press("ctrl+f")
        assert bar.is_open
        assert bar.input.has_focus
        await pilot.press(*"hello")
        await until(pilot, lambda: bar.query_text == "hello", "the search ran")
        assert found_where(bar) == ["command", "command output", "request", "codex"]
        entries = transcript(app).entries
        visited = []
        for _ in range(len(bar.found)):
            assert bar.current is not None
            match = bar.found[bar.current]
            widget = entries[match.entry].widget
            assert widget is not None
            assert widget.has_class("-found-current")
            visited.append(match.where)
            await pilot.press("enter")
        assert visited == found_where(bar)
        assert bar.current == 0, "after the last match it goes round to the first"
        await pilot.press("up")
        assert bar.current == len(bar.found) - 1
        status = str(bar.query_one("#find-status").render())
        assert status.startswith("4/4 · codex: ")
        assert "says hello" in status
        cell = transcript(app).query_one(CommandCell)
        assert cell.expanded, "a match in the output unfolds it"

        bar.input.value = "scripted model"
        await until(pilot, lambda: bar.query_text == "scripted model", "the search ran again")
        assert found_where(bar) == ["diff"]
        bar.input.value = "no such words"
        await until(pilot, lambda: bar.query_text == "no such words", "the search ran again")
        assert bar.found == []
        assert str(bar.query_one("#find-status").render()) == "no match"
        await pilot.press("escape")
        assert not bar.is_open
        assert not transcript(app).query(".-found, .-found-current")
        composer = app.main.query_one(Composer)
        assert composer.has_focus
        await pilot.press("slash")
        assert composer.text == "/", "in the composer / starts a command"
        assert not bar.is_open
        composer.text = ""
        app.main.query_one(ConversationList).focus()
        await pilot.press("slash")
        assert bar.is_open, "elsewhere / finds"


async def test_the_palette_finds_text_in_another_conversation_and_opens_it(deck: Deck) -> None:
    async with deck(size=(120, 40)) as (app, pilot):
        await rich_turn(app, pilot)
        first = app.main.current
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.main.current != first, "a new conversation shows")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette opens")
        app.screen.query_one(Input).value = "scripted model"
        await until(pilot, lambda: "Conversation 1 · diff: " in listed(app), "the hit is listed")
        await pilot.press("enter")
        await until(pilot, lambda: app.main.current == first, "its conversation shows")
        bar = app.main.query_one(FindBar)
        await until(pilot, lambda: bar.found, "the text is found in it")
        assert bar.is_open
        assert bar.input.value == "scripted model"
        assert found_where(bar) == ["diff"]


async def test_after_a_jump_new_output_is_marked_and_followed_again(deck: Deck) -> None:
    """Find jumps up; a whole new turn then came off-screen with nothing to say so, and
    switching conversations did not bring it back. Now a line says there is new output
    below; ctrl+end (or closing find, or switching back) follows the end again."""
    async with deck(size=(100, 30)) as (app, pilot):
        for count in (1, 2):
            await type_and_send(app, pilot, "show markdown")
            await until(pilot, lambda n=count: len(turn_markers(app)) == n, "the turn ends")  # type: ignore[misc]
        below = app.main.query_one("#below")
        view = transcript(app)
        await until(pilot, lambda: view.settled and view.following, "it follows the end")
        await pilot.press("ctrl+f", *"Streaming", "enter")
        await until(pilot, lambda: not view.following, "find jumps up")
        assert not below.display
        await pilot.press("ctrl+l")  # back to the message box, find still open
        await type_and_send(app, pilot, "count for me")
        await until(pilot, lambda: len(turn_markers(app)) == 3, "a new turn ends")
        await until(pilot, lambda: below.display, "the new output is said to be below")
        assert "ctrl+end" in str(below.render())
        assert not view.following
        await pilot.press("ctrl+end")
        await until(pilot, lambda: view.following, "back at the end")
        assert not below.display

        await pilot.press("ctrl+f", "enter")
        await until(pilot, lambda: not view.following, "find jumps up again")
        first = app.main.current
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.main.current != first, "another conversation")
        await pilot.press("ctrl+up")
        await until(pilot, lambda: app.main.current == first, "back")
        await until(pilot, lambda: view.following, "it comes back at its latest")
