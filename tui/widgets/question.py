"""Questions from codex (plan mode): pick an option with the keys, or type an answer.

A secret question is typed into a masked field, and its answer is only ever sent to codex.
"""

from __future__ import annotations

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from engine import Decline, Reply
from engine.protocol import Question
from tui.text import inert
from tui.widgets.card import InteractionCard
from tui.widgets.ordered import OrderedInput, run_binding


class Choices(OptionList):
    """A question's options: 1-9 moves to the option with that number, enter picks it. Other
    text typed here goes to the question's answer field, if it has one."""

    keys_in_order = True

    async def on_key(self, event: events.Key) -> None:
        if event.key.isdigit() and 0 < int(event.key) <= self.option_count:
            event.stop()
            event.prevent_default()
            self.highlighted = int(event.key) - 1
            return
        if event.key == "enter" and self.highlighted is not None:
            event.stop()
            event.prevent_default()
            self.query_ancestor(QuestionCard).advance(self)  # before the next key comes
            return
        field = self.parent.query(Input) if self.parent is not None else None
        if event.is_printable and event.character not in (None, " ") and field:
            event.stop()
            event.prevent_default()
            typed = field.first()
            self.screen.set_focus(typed)
            typed.insert_text_at_cursor(event.character)
            return
        await run_binding(self, event)


class AnswerField(OrderedInput):
    """A question's free answer: enter moves on at once (before the next key comes)."""

    async def on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.query_ancestor(QuestionCard).advance(self)
            return
        await super().on_key(event)


class QuestionField(Vertical):
    """One question: its options and, where allowed, a free answer."""

    DEFAULT_CSS = """
    QuestionField { height: auto; margin: 1 0 0 0; }
    QuestionField Choices, QuestionField Choices:focus {
        height: auto; max-height: 8; border: none; padding: 0; margin: 0; width: 100%;
    }
    QuestionField Input, QuestionField Input:focus { margin: 0; width: 100%; }
    """

    def __init__(self, question: Question) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        question = self.question
        header = f"{question.header}: " if question.header else ""
        yield Static(Text(inert(header + question.question), style="bold"), markup=False)
        options = question.options or []
        if options:
            yield Choices(
                *(
                    Option(Text(f"{n}. {inert(o.label)} — {inert(o.description)}"), id=str(n))
                    for n, o in enumerate(options, 1)
                )
            )
        if question.is_other or question.is_secret or not options:
            placeholder = "the answer (hidden)" if question.is_secret else "or type an answer"
            yield AnswerField(
                placeholder=placeholder, password=question.is_secret, select_on_focus=False
            )

    def entry(self) -> Widget:
        """Where the user starts on this question: the field of a secret (or open) question,
        else its options."""
        typed = self.query(Input)
        if typed and (self.question.is_secret or not self.query(Choices)):
            return typed.first()
        return self.query_one(Choices)

    def value(self) -> str | None:
        """The typed answer if there is one, else the highlighted option."""
        typed = self.query(Input)
        if typed and typed.first().value.strip():
            return typed.first().value.strip()
        choices = self.query(OptionList)
        options = self.question.options or []
        highlighted = choices.first().highlighted if choices else None
        return options[highlighted].label if highlighted is not None else None


class QuestionCard(InteractionCard):
    """Enter on an option (or in the answer field) moves on; after the last question it sends.
    ctrl+x declines."""

    BINDINGS = [Binding("ctrl+x", "decline", "Decline", id="question.decline")]

    def first_field(self) -> Widget:
        return self.query(QuestionField).first().entry()

    def compose(self) -> ComposeResult:
        yield self.title_line()
        for question in self.info.questions:
            yield QuestionField(question)
        yield Static("", classes="card-problem", markup=False)
        yield self.keys_line(
            "ctrl+g goes here, then 1-9 moves · enter picks · type where there is a field · "
            "ctrl+x declines · esc back"
            f"   (or /respond {self.info.id} …)"
        )

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        """An option clicked."""
        event.stop()
        self.advance(event.option_list)

    def advance(self, widget: Widget) -> None:
        """On from the question `widget` is in: to the next one, or, after the last, send."""
        fields = list(self.query(QuestionField))
        current = widget.query_ancestor(QuestionField)
        for field in fields[fields.index(current) + 1 :]:
            target = field.query("OptionList, Input")
            if target:
                self.screen.set_focus(target.first())
                return
        self._send(fields)

    def _send(self, fields: list[QuestionField]) -> None:
        answers = {field.question.id: field.value() for field in fields}
        missing = [
            field.question.header or field.question.id
            for field in fields
            if answers[field.question.id] is None
        ]
        if missing:
            self.query_one(".card-problem", Static).update("still to answer: " + ", ".join(missing))
            return
        self.answer(Reply(answers))

    def action_decline(self) -> None:
        self.answer(Decline())
