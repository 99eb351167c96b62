"""F1: every key and every slash command."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from engine import COMMANDS

COMPOSER_KEYS = (
    ("enter", "send (steers the running turn)"),
    ("tab", "queue to run after the running turn"),
    ("shift+enter, ctrl+j", "new line"),
    ("esc", "stop the running turn"),
    ("up, down", "earlier messages (on the first or last line)"),
    ("/", "complete a slash command"),
)


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
