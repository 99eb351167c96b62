"""A one-line question (a new title …): Enter answers, Esc cancels."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.widgets.ordered import OrderedInput


class PromptInput(OrderedInput):
    """The answer's field. Once Enter or Esc has ended the question, the field lets go of the
    focus at once: what is typed next is kept for the screen below (`tui.app`), not taken by a
    field that is going away (a message typed straight after a rename was lost)."""

    async def on_key(self, event: events.Key) -> None:
        await super().on_key(event)
        if event.key in ("enter", "escape"):
            self.screen.set_focus(None)


class PromptScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical {
        width: 60; height: auto; border: round $primary; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, question: str, value: str = "") -> None:
        super().__init__()
        self._question = question
        self._value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._question)
            yield PromptInput(value=self._value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
