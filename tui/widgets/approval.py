"""An approval: the command, patch or permissions asked for, in full, and the keys to answer."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from engine import Approve, ApproveScope, Cancel, Decline
from engine.events import InteractionInfo
from tui.text import inert
from tui.widgets.card import InteractionCard
from tui.widgets.diff import render_change

SHOWN_MATCHES = 5
"""Earlier commands a rule would have run, named on the card (the rest counted)."""


class ApprovalCard(InteractionCard):
    """Reached with ctrl+g: y approve, a for the session, p save the offered rule,
    w save the offered network rule, n decline, c decline and stop (or /approve ID …)."""

    BINDINGS = [
        Binding("y", "approve('once')", "Approve", id="approval.approve"),
        Binding("a", "approve('session')", "For session", id="approval.session"),
        Binding("p", "approve('rule')", "Save rule", id="approval.rule", show=False),
        Binding("w", "approve('network')", "Network rule", id="approval.network", show=False),
        Binding("n", "decline", "Decline", id="approval.decline"),
        Binding("c", "cancel", "Cancel turn", id="approval.cancel"),
        Binding("r", "review", "Review hunks", id="approval.review"),
    ]

    @dataclass
    class ReviewAsked(Message):
        """The user asked to review the change hunk by hunk (to accept it with some taken
        back): the screen opens the review."""

        card: ApprovalCard

        @property
        def control(self) -> ApprovalCard:
            return self.card

    def compose(self) -> ComposeResult:
        info = self.info
        yield self.title_line()
        if info.command:
            yield Static(Text("$ " + inert(info.command)), markup=False)
        for label, value in (("cwd", info.cwd), ("why", info.reason)):
            if value:
                yield Static(Text(f"{label}: {inert(value)}"), classes="card-label")
        for action in info.actions:
            yield Static(Text("• " + inert(action)), classes="card-label")
        root = info.cwd.rstrip("/") + "/" if info.cwd else None
        for change in info.changes:
            shown = change.path.removeprefix(root) if root else change.path
            yield Static(Text(inert(shown)), classes="card-label")
            yield Static(render_change(change, self.app.current_theme.dark))
        if info.permissions:
            yield Static(Text("asks for: " + inert(describe(info.permissions))))
        for reach in reaches(info):
            yield Static(Text(reach), classes="card-label card-reach")
        if info.network_hosts:
            hosts = ", ".join(inert(host) for host in info.network_hosts)
            yield Static(
                Text(f"w approves and saves a network rule for {hosts}."), classes="card-label"
            )
        yield self.keys_line(self._keys())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "review" and self.info.kind != "file_change":
            return False
        return super().check_action(action, parameters)

    def _keys(self) -> str:
        if self.info.kind == "permissions":
            return (
                f"ctrl+g goes here, then y allow for this turn · a allow for the session · "
                f"n decline · esc back   (or /approve {self.info.id} [session])"
            )
        keys = ["y approve", "a approve for the session"]
        if self.info.kind == "file_change":
            keys.append("r review hunk by hunk (keep or take back each)")
        if self.info.exec_policy_amendment:
            keys.append("p save the rule")
        keys += ["n decline", "c decline and stop the turn", "esc back"]
        return f"ctrl+g goes here, then {' · '.join(keys)}   (or /approve {self.info.id})"

    def action_review(self) -> None:
        self.post_message(self.ReviewAsked(self))

    def action_approve(self, scope: ApproveScope) -> None:
        self.answer(Approve(scope))

    def action_decline(self) -> None:
        self.answer(Decline())

    def action_cancel(self) -> None:
        if self.info.kind != "permissions":
            self.answer(Cancel())


def reaches(info: InteractionInfo) -> list[str]:
    """How far "for the session" and a saved rule would reach, said before either is
    chosen."""
    said = []
    if info.kind == "command":
        said.append(
            "a: this same command runs again without asking for the rest of this session "
            "(codex keeps it until /reset; nothing is saved)."
        )
    elif info.kind == "file_change":
        said.append(
            "a: approved for the rest of this session (codex keeps it until /reset; nothing "
            "is saved)."
        )
    if info.exec_policy_amendment:
        rule = inert(shlex.join(info.exec_policy_amendment))
        said.append(
            f"p: saves the rule `{rule}`: every command starting so runs without asking, in "
            "every session from now on (kept in codex's rules file, CODEX_HOME/rules/"
            "default.rules; /rules lists and removes rules). Of this conversation's earlier "
            f"commands it would have run {matched(info.rule_matches)}."
        )
    return said


def matched(commands: tuple[str, ...]) -> str:
    """Which earlier commands a rule would have run, in a few words."""
    if not commands:
        return "none"
    shown = ", ".join(f"`{inert(command)}`" for command in commands[:SHOWN_MATCHES])
    more = len(commands) - SHOWN_MATCHES
    return f"{len(commands)}: " + shown + (f" and {more} more" if more > 0 else "")


def describe(permissions: dict[str, object]) -> str:
    """What a permission request asks for, in words."""
    parts = []
    files = permissions.get("fileSystem")
    if isinstance(files, dict):
        for access in ("read", "write"):
            paths = files.get(access)
            if isinstance(paths, list) and paths:
                parts.append(f"{access} access to {', '.join(map(str, paths))}")
    network = permissions.get("network")
    if isinstance(network, dict) and network.get("enabled"):
        parts.append("network access")
    return "; ".join(parts) or str(permissions)
