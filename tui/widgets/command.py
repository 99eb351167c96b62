"""A command the agent ran (or the user, with `!`): the command, where, how it ended, and its
output (collapsible)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from engine.protocol import USER_SHELL, USER_SHELL_SANDBOXED
from tui.entries import CommandEntry
from tui.text import duration, inert, last_lines, shown_command
from tui.widgets.streamed import Streamed

COLLAPSED_LINES = 4


class CommandCell(Streamed, Vertical, can_focus=True):
    """A command execution. Enter (or a click) shows all of its output."""

    BINDINGS = [
        Binding("enter,space", "toggle_output", "Output", id="command.toggle"),
        Binding("o", "open_output", "Full output", id="command.open"),
    ]

    class OpenOutput(Message):
        """The user asked for the command's whole output in the pager."""

        def __init__(self, entry: CommandEntry) -> None:
            super().__init__()
            self.entry = entry

    DEFAULT_CSS = """
    CommandCell { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $panel; }
    CommandCell:focus { border-left: thick $primary; }
    CommandCell.-failed { border-left: thick $error; }
    CommandCell.-declined { border-left: thick $warning; }
    CommandCell .command-line { text-style: bold; }
    CommandCell .command-meta { color: $text-muted; }
    CommandCell .command-output { color: $text; background: $surface; padding: 0 1; }
    CommandCell .command-more, CommandCell .command-earlier { color: $text-muted; }
    """

    expanded: var[bool] = var(False, toggle_class="-expanded")
    """True when all of the output is shown."""

    def __init__(self, entry: CommandEntry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        command = Text("$ " + inert(shown_command(self.entry.item.command)))
        yield Static(command, classes="command-line")
        yield Static(classes="command-meta", markup=False)
        yield Static(classes="command-earlier", markup=False)
        yield Static(classes="command-output", markup=False)
        yield Static(classes="command-more", markup=False)

    def on_mount(self) -> None:
        self._show()

    @property
    def output(self) -> str:
        return self.entry.output

    async def redraw(self) -> None:
        self._show()

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self._show()

    def action_toggle_output(self) -> None:
        self.expanded = not self.expanded

    def action_open_output(self) -> None:
        self.post_message(self.OpenOutput(self.entry))

    def on_click(self) -> None:
        self.action_toggle_output()

    def _show(self) -> None:
        entry = self.entry
        item = entry.item
        self.set_class(entry.status == "failed", "-failed")
        self.set_class(entry.status == "declined", "-declined")
        parts = [inert(item.cwd), entry.status.replace("inProgress", "running")]
        if item.source == USER_SHELL:
            parts.insert(0, "your command, with full access")
        elif item.source == USER_SHELL_SANDBOXED:
            parts.insert(0, "your command, in the sandbox")
        if item.exit_code is not None:
            parts.append(f"exit {item.exit_code}")
        if item.duration_ms is not None:
            parts.append(duration(item.duration_ms))
        self.query_one(".command-meta", Static).update(" · ".join(parts))
        output, hidden = (
            (entry.output.rstrip("\n"), 0)
            if self.expanded
            else last_lines(entry.output, COLLAPSED_LINES)
        )
        shown = self.query_one(".command-output", Static)
        shown.update(inert(output))
        shown.display = bool(output)
        earlier = self.query_one(".command-earlier", Static)
        earlier.update(f"… {hidden} earlier line(s) — enter to show all" if hidden else "")
        earlier.display = bool(hidden)  # where the folded lines are: above the latest ones
        more = []
        if self.expanded and entry.output.count("\n") > COLLAPSED_LINES:
            more.append("enter to collapse")
        if entry.trimmed:
            more.append("(the screen keeps the latest part · o opens all of it)")
        note = self.query_one(".command-more", Static)
        note.update("  ".join(more))
        note.display = bool(more)
