"""F1: every key and every slash command."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from engine import COMMANDS
from tui.widgets.approval import ApprovalCard
from tui.widgets.card import InteractionCard
from tui.widgets.command import CommandCell
from tui.widgets.form import FormCard
from tui.widgets.question import QuestionCard
from tui.widgets.side_panel import SidePanel
from tui.widgets.trace_pane import TracePane

COMPOSER_KEYS = (
    ("enter", "send (steers the running turn)"),
    ("tab", "queue to run after the running turn"),
    ("shift+enter, ctrl+j", "new line"),
    ("esc", "stop the running turn"),
    ("up, down", "earlier messages (on the first or last line)"),
    ("/", "complete a slash command"),
)


WHERE: dict[type[DOMNode], str] = {
    InteractionCard: "on a request's card (ctrl+g goes there)",
    ApprovalCard: "on an approval card (ctrl+g goes there)",
    QuestionCard: "on a question card (ctrl+g goes there)",
    FormCard: "on a form card (ctrl+g goes there)",
    CommandCell: "on a command cell",
    TracePane: "in the trace pane (ctrl+t)",
    SidePanel: "in the side panel (F4)",
}
"""The widgets with keys of their own, and where the user is for those keys to work."""


def keys_in(
    app_bindings: Sequence[Binding], screens: Iterable[Screen[object]], keys: Mapping[str, str]
) -> list[tuple[str, str]]:
    """Each key (as the settings' `keys` have it) and what it does, with where it works when
    that is only somewhere: the app's bindings given, each screen's, each widget's."""
    owners: list[tuple[Sequence[object], str]] = [(app_bindings, "")]
    owners += [(screen.BINDINGS, "") for screen in screens]
    owners += [(widget.BINDINGS, f" — {where}") for widget, where in WHERE.items()]
    return [
        (
            keys.get(binding.id, binding.key),
            f"{binding.description or binding.action}{there}  [{binding.id}]",
        )
        for bindings, there in owners
        for binding in bindings
        if isinstance(binding, Binding) and binding.id
    ]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", id="help.close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 110; height: 90%; border: round $primary; background: $surface;
        padding: 0 1;
    }
    """

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = keys
        """Each key and what it does (and where, when it works only somewhere)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text("codex-deck — keys and commands (esc closes)", style="bold"))
            yield Static(self._table("key", self.keys))
            yield Static(self._table("in the composer", list(COMPOSER_KEYS)))
            commands = [(usage.line, usage.summary) for usage in COMMANDS]
            commands.append(("//TEXT", "send TEXT that starts with a slash"))
            yield Static(self._table("command", commands))

    def _table(self, title: str, rows: list[tuple[str, str]]) -> Table:
        table = Table(box=None, show_edge=False, padding=(0, 2, 0, 0), title_justify="left")
        table.add_column(title, style="bold", no_wrap=True, min_width=24)
        table.add_column("does")
        for key, description in rows:
            table.add_row(Text(key), Text(description))
        table.add_row("", "")
        return table
