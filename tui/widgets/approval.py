"""A request from codex waiting for the user: what is asked, in full, and the keys to answer."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from tui.entries import ApprovalEntry
from tui.text import inert
from tui.widgets.diff import render_change

TITLES = {
    "command": "Run this command?",
    "file_change": "Apply these changes?",
    "question": "Codex asks",
    "elicitation": "A tool asks",
    "permissions": "Allow more access?",
}


class ApprovalCard(Vertical, can_focus=True):
    """Focused when it appears; y, a, n and c answer it (or /approve ID … in the composer)."""

    BINDINGS = [
        Binding("y", "answer('approve')", "Approve", id="approval.approve"),
        Binding("a", "answer('approve', 'session')", "For session", id="approval.session"),
        Binding("n", "answer('decline')", "Decline", id="approval.decline"),
        Binding("c", "answer('cancel')", "Cancel turn", id="approval.cancel"),
    ]

    DEFAULT_CSS = """
    ApprovalCard {
        height: auto; margin: 1 0 0 0; padding: 0 1;
        border: round $warning; background: $surface;
    }
    ApprovalCard:focus { border: round $accent; }
    ApprovalCard.-resolved { border: round $panel; }
    ApprovalCard .approval-title { text-style: bold; color: $warning; }
    ApprovalCard.-resolved .approval-title { color: $text-muted; }
    ApprovalCard .approval-label { color: $text-muted; }
    ApprovalCard .approval-keys { color: $text-muted; margin: 1 0 0 0; }
    """

    @dataclass
    class Answered(Message):
        """The user answered with a key; `line` is the command that does it."""

        card: ApprovalCard
        line: str

        @property
        def control(self) -> ApprovalCard:
            return self.card

    def __init__(self, entry: ApprovalEntry) -> None:
        super().__init__()
        self.entry = entry
        self.info = entry.info

    def compose(self) -> ComposeResult:
        info = self.info
        yield Static(
            Text(f"{TITLES[info.kind]}  [{info.id}]"), classes="approval-title", markup=False
        )
        if info.command:
            yield Static(Text("$ " + inert(info.command)), markup=False)
        for label, value in (("cwd", info.cwd), ("why", info.reason), ("url", info.url)):
            if value:
                yield Static(Text(f"{label}: {inert(value)}"), classes="approval-label")
        if info.message:
            yield Static(Text(inert(info.message)))
        for action in info.actions:
            yield Static(Text("• " + inert(action)), classes="approval-label")
        if info.exec_policy_amendment:
            allowed = shlex.join(info.exec_policy_amendment)
            yield Static(
                Text(f"codex offers to allow commands starting with: {inert(allowed)}"),
                classes="approval-label",
            )
        for change in info.changes:
            yield Static(Text(inert(change.path)), classes="approval-label")
            yield Static(render_change(change, self.app.current_theme.dark))
        for question in info.questions:
            header = f"{question.header}: " if question.header else ""
            yield Static(Text(inert(header + question.question)))
            for option in question.options or []:
                yield Static(Text(f"  • {inert(option.label)} — {inert(option.description)}"))
        if info.permissions:
            yield Static(Text(inert(str(info.permissions))), classes="approval-label")
        yield Static(self.entry.resolution or self._keys(), classes="approval-keys", markup=False)
        self.set_class(self.resolved, "-resolved")

    def _keys(self) -> str:
        if self.info.kind in ("command", "file_change"):
            return (
                f"y approve · a approve for the session · n decline · c decline and stop the turn"
                f"   (or /approve {self.info.id})"
            )
        if self.info.kind == "question":
            return f"answer with /respond {self.info.id} TEXT · n decline"
        return f"y accept · n decline   (or /respond {self.info.id} JSON)"

    def action_answer(self, answer: str, option: str = "") -> None:
        if self.resolved:
            return
        if answer == "approve" and self.info.kind == "question":
            return
        line = f"/{answer} {self.info.id}" + (f" {option}" if option else "")
        self.post_message(self.Answered(self, line))

    @property
    def resolved(self) -> bool:
        return bool(self.entry.resolution)

    def show_resolution(self) -> None:
        """Show how it ended (answered, declined, expired …); keys no longer answer it."""
        self.add_class("-resolved")
        self.query_one(".approval-keys", Static).update(self.entry.resolution)
