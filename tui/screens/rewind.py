"""Esc Esc: pick an earlier message of the conversation to go back to and send again, edited."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.text import inert

SHOWN_CHARS = 90
Message = tuple[str, str]
"""An earlier message: the turn it started, and its text."""


class RewindPicker(ModalScreen[Message | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="rewind.cancel")]

    DEFAULT_CSS = """
    RewindPicker { align: center middle; }
    RewindPicker > Vertical {
        width: 90%; height: auto; max-height: 80%; border: round $primary;
        background: $surface; padding: 0 1;
    }
    RewindPicker .rewind-keys { color: $text-muted; }
    RewindPicker OptionList { height: auto; max-height: 20; border: none; }
    """

    def __init__(self, messages: list[Message]) -> None:
        super().__init__()
        self._messages = messages

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                "Go back to before which message? It goes into the box to edit; this "
                "conversation stays as it is, in the list.",
                markup=False,
            )
            options = []
            for number, (_, text) in reversed(list(enumerate(self._messages))):
                line = " ".join(text.split())
                line = line if len(line) <= SHOWN_CHARS else line[: SHOWN_CHARS - 1] + "…"
                options.append(Option(Text(f"{number + 1:>3}  {inert(line)}"), id=str(number)))
            yield OptionList(*options)
            yield Static("↑↓ choose · enter go back · esc cancel", classes="rewind-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self._messages[int(event.option.id or 0)])
