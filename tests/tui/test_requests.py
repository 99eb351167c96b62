"""Request cards in the app: questions answered with keys, forms checked before they are sent,
rules saved from the card, and quitting with answers pending."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static

from engine.conversations.interactions import Answer, Reply
from engine.events import (
    ConversationUpdated,
    InteractionInfo,
    InteractionRequested,
    InteractionResolved,
)
from engine.protocol import ChangeKind, FileChange, Question, QuestionOption
from engine.records.recording import read_recording
from engine.replay import ReplayBackend, playing
from engine.results import CommandResult
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from tests.tui.conftest import Deck, go_to_request, transcript, until
from tui.app import CodexDeckApp
from tui.bridge import EngineBatch
from tui.screens.confirm import ConfirmScreen
from tui.widgets.approval import ApprovalCard
from tui.widgets.card import InteractionCard
from tui.widgets.composer import Composer
from tui.widgets.form import FormCard
from tui.widgets.notes import TurnMarker
from tui.widgets.question import QuestionCard

pytestmark = pytest.mark.anyio

RECORDINGS = Path(__file__).parents[1] / "snapshots" / "recordings"


def answers_sent(model: ScriptedModel) -> list[object]:
    return [
        json.loads(item["output"])
        for item in model.responses_requests()[-1].input_items
        if item.get("type") == "function_call_output"
    ]


async def go_to(app: CodexDeckApp, pilot: Pilot[None], card: InteractionCard) -> None:
    """The card waits without taking the focus from the composer; ctrl+g moves to it."""
    await pilot.pause()
    assert isinstance(app.focused, Composer)
    assert not card.has_focus_within
    await go_to_request(app, pilot)
    await until(pilot, lambda: card.has_focus_within, "ctrl+g moves to the card")


async def card_for(app: CodexDeckApp, pilot: Pilot[None], text: str) -> ApprovalCard:
    """Send `text`; the approval card codex then shows."""
    app.main.query_one(Composer).text = text
    await pilot.press("enter")
    await until(pilot, lambda: transcript(app).query(ApprovalCard), "the card shows")
    return transcript(app).query_one(ApprovalCard)


async def ask(app: CodexDeckApp, pilot: Pilot[None]) -> QuestionCard:
    composer = app.main.query_one(Composer)
    for line in ("/plan on", "ask me"):
        composer.text = line
        await pilot.press("enter")
    await until(pilot, lambda: transcript(app).query(QuestionCard), "the question card shows")
    card = transcript(app).query_one(QuestionCard)
    await go_to(app, pilot, card)
    return card


async def test_questions_are_answered_with_number_keys(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    async with deck() as (app, pilot):
        card = await ask(app, pilot)
        assert isinstance(app.focused, OptionList)
        await pilot.press("2")
        assert card.has_focus_within  # a number moves to the option; enter picks it
        assert not card.resolved
        await pilot.press("enter", "2", "enter")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the turn ends")
        assert card.resolved
        assert answers_sent(scripted_model) == [
            {"answers": {"colour": {"answers": ["Green"]}, "size": {"answers": ["Large"]}}}
        ]
        said = str(card.query_one(".card-keys", Static).render())
        assert said == "answered — Colour: Green; Size: Large", "the card says what was answered"


async def test_a_question_can_be_answered_in_free_text(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    async with deck() as (app, pilot):
        await ask(app, pilot)
        await pilot.press("enter")
        assert isinstance(app.focused, OptionList)
        await pilot.press("tab")
        assert isinstance(app.focused, Input)
        await pilot.press(*"Medium, please", "enter")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the turn ends")
        assert answers_sent(scripted_model) == [
            {
                "answers": {
                    "colour": {"answers": ["Blue (Recommended)"]},
                    "size": {"answers": ["Medium, please"]},
                }
            }
        ]


async def test_save_the_offered_rule_from_the_card(deck: Deck, workspace: Path) -> None:
    async with deck() as (app, pilot):
        card = await card_for(app, pilot, "save a rule")
        await go_to(app, pilot, card)
        said = " ".join(str(s.render()) for s in card.query("Static"))
        assert "a: this same command runs again without asking for the rest of this" in said
        assert "p: saves the rule `/bin/bash -lc 'echo ruled >> rule.txt'`" in said
        assert "Of this conversation's earlier commands it would have run none." in said
        await pilot.press("p")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the turn ends")
        assert (workspace / "rule.txt").read_text() == "ruled\nruled\n"
        assert len(transcript(app).query(ApprovalCard)) == 1


async def test_the_status_bar_shows_plan_mode_and_standing_approvals(
    deck: Deck, workspace: Path
) -> None:
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        status = app.main.status
        composer.text = "/plan on"
        await pilot.press("enter")
        await until(pilot, lambda: "plan mode" in str(status.render()), "plan mode shows")
        composer.text = "/plan off"
        await pilot.press("enter")
        await until(pilot, lambda: "plan mode" not in str(status.render()), "plan mode goes")
        composer.text = "run it twice"
        await pilot.press("enter")
        await until(pilot, lambda: transcript(app).query(ApprovalCard), "the card shows")
        card = transcript(app).query_one(ApprovalCard)
        await go_to(app, pilot, card)
        assert "standing approval" not in str(status.render())
        await pilot.press("a")
        await until(pilot, lambda: transcript(app).query(TurnMarker), "the turn ends")
        assert (workspace / "twice.txt").read_text() == "again\nagain\n"
        assert len(transcript(app).query(ApprovalCard)) == 1
        await until(pilot, lambda: "1 standing approval" in str(status.render()), "the grant shows")


async def test_switching_to_a_conversation_with_a_card_waiting_answers_nothing(
    deck: Deck, workspace: Path
) -> None:
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        card = await card_for(app, pilot, "approval")
        waiting = app.main.query_one("#waiting", Static)
        await until(pilot, lambda: waiting.display, "the request is announced")
        assert f"/approve {card.info.id}" in str(waiting.render())
        first = app.main.current
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.main.current != first, "a new conversation shows")
        assert not waiting.display, "nothing waits in the new one"
        await pilot.press("ctrl+up")
        await until(pilot, lambda: app.main.current == first, "back to the first")
        await pilot.press(*"yes and no")
        assert composer.text == "yes and no"
        assert not card.resolved
        assert waiting.display
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.main.current != first, "a new conversation shows")
        await pilot.press("ctrl+g")  # goes to the conversation where a request waits, and to it
        await until(pilot, lambda: card.has_focus, "ctrl+g moves to the card")
        assert app.main.current == first
        await pilot.press("escape")
        assert app.focused is composer, "esc goes back to the message box"
        assert not card.resolved
        await pilot.press("ctrl+g", "n")
        await until(pilot, lambda: card.resolved, "the card is answered")
        await until(pilot, lambda: not waiting.display, "the strip goes")
    assert not (workspace / "out.txt").exists()


async def test_quitting_with_an_approval_pending_asks_first(deck: Deck, workspace: Path) -> None:
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        composer.text = "approval"
        await pilot.press("enter")
        await until(pilot, lambda: transcript(app).query(ApprovalCard), "the card shows")
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.is_running
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: not app.is_running, "the app exits")
    assert not (workspace / "out.txt").exists()


class RecordingReplay(ReplayBackend):
    """The replay, keeping what the UI tried to answer."""

    answers: list[Answer]

    async def respond(
        self, reference: str, answer: Answer, conversation_id: str | None = None
    ) -> CommandResult:
        self.answers.append(answer)
        return CommandResult(True, "answered")


async def test_a_form_is_checked_before_it_is_sent() -> None:
    backend = RecordingReplay(read_recording(RECORDINGS / "form.jsonl"))
    backend.answers = []

    app = CodexDeckApp(Settings(), playing(backend))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.opened and app.main.query(FormCard), "the form shows")
        card = app.main.query_one(FormCard)
        await until(pilot, lambda: card.query("#field-priority"), "its fields are mounted")
        await go_to(app, pilot, card)
        title = card.query_one("#field-title", Input)
        title.value = "ab"
        await pilot.press("ctrl+s")
        problem = str(card.query_one(".card-problem").render())
        assert problem == "Title: must be at least 3 characters; Priority: required"
        assert backend.answers == []
        title.value = "Crash on start"
        card.query_one("#field-priority", Select).value = "high"
        card.query_one("#field-estimate", Input).value = "3"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: backend.answers, "the answer is sent")
        assert backend.answers == [
            Reply({"title": "Crash on start", "priority": "high", "estimate": 3, "notify": False})
        ]
        await app.shut_down()


SECRET = "correct-horse-battery-staple"


def asked_by_hand(**fields: Any) -> tuple[RecordingReplay, InteractionRequested]:
    """A recorded start with a request added by hand (`fields` of its InteractionInfo):
    codex marks a question secret, or asks for a change with no cwd, only where the scripted
    model cannot make it."""
    start = read_recording(RECORDINGS / "empty.jsonl")
    conversation = next(e.info for e in reversed(start) if isinstance(e, ConversationUpdated))
    info = InteractionInfo(
        id="sec1",
        conversation_id=conversation.id,
        turn_id="turn-1",
        item_id="call-1",
        **fields,
    )
    last = start[-1]
    asked = InteractionRequested(
        seq=last.seq + 1, at=last.at, conversation_id=conversation.id, interaction=info
    )
    backend = RecordingReplay([*start, asked])
    backend.answers = []
    return backend, asked


async def test_a_secret_with_digits_is_typed_into_its_field_not_taken_as_an_option() -> None:
    """Typing `pass1word` into a secret question that offers `1. skip` sent "skip" (the 1)
    and dropped the letters; moved to, the card's field takes all of it."""
    skip = QuestionOption(label="skip", description="answer later")
    backend, _ = asked_by_hand(
        kind="question",
        questions=(
            Question(id="token", question="Your token?", is_secret=True, options=[skip]),
            Question(id="mode", question="Which mode?", is_other=True, options=[skip]),
        ),
    )
    app = CodexDeckApp(Settings(), playing(backend))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.opened and app.main.query(QuestionCard), "the card shows")
        card = app.main.query_one(QuestionCard)
        await pilot.press(*"pass1word")
        assert app.main.query_one(Composer).text == "pass1word", "typed into the message box"
        await go_to(app, pilot, card)
        first, second = card.query(Input)
        assert app.focused is first
        await pilot.press(*"pass1word", "enter")
        assert isinstance(app.focused, OptionList), "on to the next question's options"
        await pilot.press(*"fast1", "enter")  # typed on the options: it goes to the field
        await until(pilot, lambda: backend.answers, "the answer is sent")
        assert backend.answers == [Reply({"token": "pass1word", "mode": "fast1"})]
        assert second.value == "fast1"
        await app.shut_down()


async def test_a_secret_answer_is_typed_masked_and_leaves_the_screen() -> None:
    """Codex marks a question secret only for tools the scripted model cannot call, so the
    request is added by hand to a recorded start."""
    secret = Question(id="token", header="Token", question="Your token?", is_secret=True)
    backend, asked = asked_by_hand(kind="question", questions=(secret,))
    info, conversation_id = asked.interaction, asked.conversation_id

    app = CodexDeckApp(Settings(), playing(backend))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.opened and app.main.query(QuestionCard), "the card shows")
        card = app.main.query_one(QuestionCard)
        await go_to(app, pilot, card)
        field = card.query_one(Input)
        assert app.focused is field
        assert field.password
        await pilot.press(*SECRET)
        assert SECRET not in app.export_screenshot()
        await pilot.press("enter")
        await until(pilot, lambda: backend.answers, "the answer is sent")
        assert backend.answers == [Reply({"token": SECRET})]
        resolved = InteractionResolved(
            seq=asked.seq + 1,
            at=asked.at,
            conversation_id=conversation_id,
            interaction_id=info.id,
            outcome="answered",
            detail="answered (secret answer not shown)",
        )
        app.main.post_message(EngineBatch((resolved,)))
        await until(pilot, lambda: card.resolved, "the card shows the answer went")
        assert field.value == ""
        assert field.disabled
        keys_line = card.query_one(".card-keys", Static)
        assert str(keys_line.render()) == "answered (secret answer not shown)"
        assert SECRET not in app.export_screenshot()
        await app.shut_down()


async def test_a_file_change_asked_for_without_a_cwd_shows_its_whole_path() -> None:
    """With no cwd the card cut the leading / off an absolute path (`tmp/notes.md`)."""
    change = FileChange(path="/tmp/project/notes.md", kind=ChangeKind(type="add"), diff="+hello\n")
    backend, _ = asked_by_hand(kind="file_change", changes=(change,))
    app = CodexDeckApp(Settings(), playing(backend))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.opened and app.main.query(ApprovalCard), "the card shows")
        card = app.main.query_one(ApprovalCard)
        await until(pilot, lambda: card.query(".card-label"), "the card's lines are drawn")
        labels = [str(label.render()) for label in card.query(".card-label")]
        assert "/tmp/project/notes.md" in labels
        await app.shut_down()
