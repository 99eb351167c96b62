"""What every request card shares: a title with its id, a line of keys, how it ended."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from engine import Answer
from tui.entries import ApprovalEntry

FIELDS = "OptionList, Input, Select, Checkbox"
"""What a card may hold for the user to fill in."""

TITLES = {
    "command": "Run this command?",
    "file_change": "Apply these changes?",
    "question": "Codex asks",
    "elicitation": "A tool asks",
    "permissions": "Allow more access?",
}


class InteractionCard(Vertical, can_focus=True):
    """A request waiting for an answer. Once resolved it shows the outcome and takes no keys.
    Esc goes back to the message box, answering nothing."""

    BINDINGS = [Binding("escape", "leave", "Back", id="card.leave")]

    DEFAULT_CSS = """
    InteractionCard {
        height: auto; margin: 1 0 0 0; padding: 0 1;
        border: round $warning; background: $surface;
    }
    InteractionCard:focus-within { border: round $accent; }
    InteractionCard.-resolved { border: round $panel; }
    InteractionCard .card-title { text-style: bold; color: $warning; }
    InteractionCard.-resolved .card-title { color: $text-muted; }
    InteractionCard .card-label { color: $text-muted; }
    /* What each answer would reach: said before the choice, not after it. */
    InteractionCard.-resolved .card-reach { display: none; }
    InteractionCard .card-keys { color: $text-muted; margin: 1 0 0 0; }
    InteractionCard .card-problem { color: $error; }
    """

    @dataclass
    class Answered(Message):
        """The user answered on the card."""

        card: InteractionCard
        answer: Answer

        @property
        def control(self) -> InteractionCard:
            return self.card

    def __init__(self, entry: ApprovalEntry) -> None:
        super().__init__()
        self.entry = entry
        self.info = entry.info
        self._keys_line = Static("", classes="card-keys", markup=False)

    @property
    def resolved(self) -> bool:
        return bool(self.entry.resolution)

    def title_line(self) -> Static:
        asker = f"Sub-agent {self.info.sub_agent[:13]} · " if self.info.sub_agent else ""
        title = Text(f"{asker}{TITLES[self.info.kind]}  [{self.info.id}]")
        return Static(title, classes="card-title", markup=False)

    def keys_line(self, keys: str) -> Static:
        self._keys_line.update(self.entry.resolution or keys)
        self.set_class(self.resolved, "-resolved")
        return self._keys_line

    @dataclass
    class Left(Message):
        """The user left the card without answering it (Esc)."""

        card: InteractionCard

        @property
        def control(self) -> InteractionCard:
            return self.card

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A resolved card takes no more answers, so its keys leave the footer."""
        return action == "leave" or not self.resolved

    def action_leave(self) -> None:
        self.post_message(self.Left(self))

    def reach(self) -> None:
        """The user moved to the card (ctrl+g): focus it, or the field to fill in first, and
        once it is laid out show it from its top (a card taller than the view shows its
        question first). A card never takes the focus by itself: keys typed for the message
        box must not answer it."""
        self.screen.set_focus(self.first_field(), scroll_visible=False)  # before the next key
        self.call_after_refresh(self._show_from_top)

    def first_field(self) -> Widget:
        """What takes the keys when the user moves to the card."""
        fields = self.query(FIELDS)
        return fields.first() if fields else self

    def _show_from_top(self) -> None:
        if self.is_attached:
            self.screen.scroll_to_widget(self, animate=False, top=True)

    def answer(self, answer: Answer) -> None:
        if not self.resolved:
            self.post_message(self.Answered(self, answer))

    def show_resolution(self) -> None:
        """Show how it ended (answered, declined, expired …); keys no longer answer it."""
        self.add_class("-resolved")
        self._keys_line.update(self.entry.resolution)
        self._close_fields()
        self.refresh_bindings()

    def on_mount(self) -> None:
        if self.resolved:
            self._close_fields()

    def _close_fields(self) -> None:
        """Nothing more can be typed, and a masked answer leaves the screen."""
        for field in self.query(FIELDS):
            if isinstance(field, Input) and field.password:
                field.value = ""
            field.disabled = True
