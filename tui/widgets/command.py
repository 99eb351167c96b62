"""A command the agent ran: the command, where, how it ended, and its output (collapsible)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import Static

from engine.protocol import CommandExecutionItem
from tui.text import duration, inert, last_lines, shown_command

COLLAPSED_LINES = 4
KEPT_OUTPUT_CHARS = 256 * 1024
"""Output kept on screen; past it the oldest output is dropped (the engine keeps the item)."""


class CommandCell(Vertical, can_focus=True):
    """A command execution. Enter (or a click) shows all of its output."""

    BINDINGS = [Binding("enter,space", "toggle_output", "Output", id="command.toggle")]

    DEFAULT_CSS = """
    CommandCell { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $panel; }
    CommandCell:focus { border-left: thick $primary; }
    CommandCell.-failed { border-left: thick $error; }
    CommandCell.-declined { border-left: thick $warning; }
    CommandCell .command-line { text-style: bold; }
    CommandCell .command-meta { color: $text-muted; }
    CommandCell .command-output { color: $text; background: $surface; padding: 0 1; }
    CommandCell .command-more { color: $text-muted; }
    """

    expanded: var[bool] = var(False, toggle_class="-expanded")
    """True when all of the output is shown."""

    def __init__(self, item: CommandExecutionItem) -> None:
        super().__init__()
        self.item_id = item.id
        self._item = item
        self._output = ""
        self._pending: list[str] = []
        self._trimmed = False
        self._status = item.status

    def compose(self) -> ComposeResult:
        yield Static(Text("$ " + inert(shown_command(self._item.command))), classes="command-line")
        yield Static(classes="command-meta", markup=False)
        yield Static(classes="command-output", markup=False)
        yield Static(classes="command-more", markup=False)

    def on_mount(self) -> None:
        self._show()

    @property
    def output(self) -> str:
        return self._output

    @property
    def dirty(self) -> bool:
        return bool(self._pending)

    def add(self, delta: str) -> None:
        self._pending.append(delta)

    async def flush(self) -> None:
        if not self._pending:
            return
        self._set_output(self._output + "".join(self._pending))
        self._pending.clear()
        self._show()

    async def finish(self, item: CommandExecutionItem | None, status: str) -> None:
        """The command ended; codex's aggregated output wins over the streamed deltas."""
        await self.flush()
        if item is not None:
            self._item = item
            if item.aggregated_output is not None:
                self._set_output(item.aggregated_output)
        self._status = status
        self.set_class(status == "failed", "-failed")
        self.set_class(status == "declined", "-declined")
        self._show()

    def _set_output(self, text: str) -> None:
        if len(text) > KEPT_OUTPUT_CHARS:
            text = text[-KEPT_OUTPUT_CHARS:]
            self._trimmed = True
        self._output = text

    def watch_expanded(self) -> None:
        if self.is_mounted:
            self._show()

    def action_toggle_output(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.action_toggle_output()

    def _show(self) -> None:
        item = self._item
        parts = [inert(item.cwd), self._status.replace("inProgress", "running")]
        if item.exit_code is not None:
            parts.append(f"exit {item.exit_code}")
        if item.duration_ms is not None:
            parts.append(duration(item.duration_ms))
        self.query_one(".command-meta", Static).update(" · ".join(parts))
        output, hidden = (
            (self._output.rstrip("\n"), 0)
            if self.expanded
            else last_lines(self._output, COLLAPSED_LINES)
        )
        self.query_one(".command-output", Static).update(inert(output))
        self.query_one(".command-output", Static).display = bool(output)
        more = []
        if hidden:
            more.append(f"… {hidden} more line(s) — enter to show all")
        elif self.expanded and self._output.count("\n") > COLLAPSED_LINES:
            more.append("enter to collapse")
        if self._trimmed:
            more.append("(the oldest output was dropped from the screen)")
        self.query_one(".command-more", Static).update("  ".join(more))
        self.query_one(".command-more", Static).display = bool(more)
