"""The side panel on the real engine: /side opens it, follow-ups and new side chats from its
box, switching, closing, keeping one as a conversation, and the transcript left alone."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Static

from tests.tui.conftest import Deck, transcript, until
from tui.app import CodexDeckApp
from tui.widgets.composer import Composer
from tui.widgets.message import AgentMessage, UserMessage
from tui.widgets.notes import TurnMarker
from tui.widgets.side_panel import SidePanel
from tui.widgets.side_thread import SideThread

pytestmark = pytest.mark.anyio

SIDE_ANSWER = (
    "From the conversation so far: you asked me something and I answered it. "
    "Nothing else happened, and this side chat changes nothing."
)


def focused(app: CodexDeckApp) -> Widget | None:
    return app.focused


def panel(app: CodexDeckApp) -> SidePanel:
    return app.main.query_one(SidePanel)


def shown_thread(app: CodexDeckApp) -> SideThread | None:
    threads = [t for t in panel(app).query(SideThread) if t.display]
    return threads[0] if len(threads) == 1 else None


def answers(thread: SideThread | None) -> list[str]:
    return [] if thread is None else [m.text for m in thread.query(AgentMessage)]


def tabs(app: CodexDeckApp) -> str:
    return str(panel(app).query_one("#side-tabs", Static).render())


async def after_a_turn(app: CodexDeckApp, pilot: Pilot[None]) -> None:
    composer = app.main.query_one(Composer)
    composer.text = "count for me"
    await pilot.press("enter")
    await until(pilot, lambda: transcript(app).query(TurnMarker), "the turn ends")


async def ask_in_panel(app: CodexDeckApp, pilot: Pilot[None], question: str, count: int) -> None:
    box = panel(app).query_one(Input)
    assert app.focused is box
    await pilot.press(*question, "enter")
    await until(
        pilot,
        lambda: len(answers(shown_thread(app))) == count and "…" not in tabs(app),
        f"the answer to {question!r} shows",
    )
    assert box.value == ""


async def test_side_opens_the_panel_and_the_transcript_stays_as_it_was(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await after_a_turn(app, pilot)
        said = [m.text for m in transcript(app).query(UserMessage)]
        composer = app.main.query_one(Composer)
        composer.text = "/side what did you do?"
        await pilot.press("enter")
        await until(pilot, lambda: panel(app).display, "the side panel opens")
        await until(
            pilot,
            lambda: (
                shown_thread(app) is not None
                and SIDE_ANSWER in " ".join(answers(shown_thread(app))).replace("**", "")
            ),
            "the side answer shows",
        )
        assert app.focused is panel(app).query_one(Input)
        assert composer.text == ""
        assert [m.text for m in transcript(app).query(UserMessage)] == said
        assert "s1 what did you do?" in tabs(app)
        await pilot.press("escape")
        assert focused(app) is composer


async def test_follow_ups_new_side_chats_switching_and_closing(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await after_a_turn(app, pilot)
        await pilot.press("f4")
        assert panel(app).display
        await ask_in_panel(app, pilot, "what did you do?", 1)
        await ask_in_panel(app, pilot, "and before that?", 2)
        first = shown_thread(app)
        await pilot.press("ctrl+n")
        assert "+ new side chat" in tabs(app)
        await ask_in_panel(app, pilot, "try a command", 1)
        assert answers(shown_thread(app)) == [
            "I tried to run a command, but this side chat has no tools."
        ]
        assert "s1 what did you do?" in tabs(app)
        assert "s2 try a command" in tabs(app)
        await pilot.press("alt+left")
        assert shown_thread(app) is first
        await pilot.press("f5")
        await until(pilot, lambda: "s1" not in tabs(app), "s1 is closed")
        assert "s2 try a command" in tabs(app)
        assert len(app.main.backend.side_chats(app.main.current or "")) == 1  # type: ignore[union-attr]


async def test_keeping_a_side_chat_makes_a_conversation(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await after_a_turn(app, pilot)
        parent = app.main.current
        await pilot.press("f4")
        await ask_in_panel(app, pilot, "what did you do?", 1)
        await pilot.press("f7")
        await until(pilot, lambda: app.main.current != parent, "the kept conversation shows")
        backend = app.main.backend
        assert backend is not None
        titles = [c.title for c in backend.conversations()]
        assert titles == ["Conversation 1", "Conversation 1 · what did you do?"]
        await until(pilot, lambda: transcript(app).query(UserMessage), "the inherited turns show")
        assert [m.text for m in transcript(app).query(UserMessage)] == ["count for me"]
        assert SIDE_ANSWER not in " ".join(m.text for m in transcript(app).query(AgentMessage))


async def test_a_side_question_that_is_refused_stays_in_the_box(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await pilot.press("f4")
        box = panel(app).query_one(Input)
        await pilot.press(*"what did you do?", "enter")
        note = panel(app).query_one("#side-note", Static)
        await until(pilot, lambda: note.display, "the refusal shows")
        assert "send it a message first" in str(note.render())
        assert box.value == "what did you do?"


async def test_on_a_narrow_terminal_the_panel_takes_the_screen_and_esc_gives_it_back(
    deck: Deck,
) -> None:
    async with deck(size=(80, 24)) as (app, pilot):
        await after_a_turn(app, pilot)
        center = app.main.query_one("#center")
        await pilot.press("f4")
        await ask_in_panel(app, pilot, "what did you do?", 1)
        assert panel(app).region.width == 80
        assert not center.display or center.region.width == 0
        await pilot.press("escape")
        assert not panel(app).display
        assert center.region.width == 80
        assert focused(app) is app.main.query_one(Composer)
        await pilot.press("f4")
        assert panel(app).display
        assert answers(shown_thread(app)) != []


async def test_a_side_question_that_starts_with_a_slash_stays_in_the_side_chat(deck: Deck) -> None:
    """`//…` in the side box (a question that starts with a slash) went to the conversation
    as a message: the box sent every line starting with `/` to the conversation's commands."""
    async with deck() as (app, pilot):
        await after_a_turn(app, pilot)
        said = [m.text for m in transcript(app).query(UserMessage)]
        await pilot.press("f4")
        box = panel(app).query_one(Input)
        await pilot.press(*"//what did you do?", "enter")
        await until(pilot, lambda: box.value == "", "the question is sent")
        await until(pilot, lambda: "s1 /what did you do?" in tabs(app), "asked aside")
        await until(pilot, lambda: "…" not in tabs(app), "the side answer ends")
        assert [m.text for m in transcript(app).query(UserMessage)] == said
