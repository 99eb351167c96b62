"""The user's `!command`s that run under command/exec (see user_shell.py): the turn and the
command item each is shown as, and its output as it comes."""

from __future__ import annotations

import base64
import codecs
import shlex
import time
import uuid
from typing import TypeVar

import msgspec

from engine import protocol as wire

SHELL = ("/bin/bash", "-lc")
"""How the command is run (as codex runs a shell command of the user's)."""
Notified = TypeVar("Notified", wire.ItemStarted, wire.ItemCompleted)


class ShellRun(msgspec.Struct):
    """One `!command` running under command/exec: the turn and item it is shown as."""

    command: str
    conversation_id: str
    thread_id: str
    cwd: str
    process_id: str = msgspec.field(default_factory=lambda: f"deck-shell-{uuid.uuid4().hex[:12]}")
    started: float = msgspec.field(default_factory=time.monotonic)
    stopped: bool = False
    reserved_absent: list[str] = msgspec.field(default_factory=list)
    """The names codex's sandbox reserves that were not there before (see
    sandbox_leftovers.py)."""
    cut: bool = False
    """codex's output cap was reached."""
    _output: list[str] = msgspec.field(default_factory=list)
    _decoders: dict[str, codecs.IncrementalDecoder] = msgspec.field(default_factory=dict)

    @property
    def turn_id(self) -> str:
        return f"{self.process_id}-turn"

    def item(self, status: str, exit_code: int | None = None) -> wire.CommandExecutionItem:
        done = status != "inProgress"
        return wire.CommandExecutionItem(
            id=self.process_id,
            command=shlex.join([*SHELL, self.command]),
            cwd=self.cwd,
            status=status,
            aggregated_output=self.output if done else None,
            exit_code=exit_code,
            duration_ms=round(self.seconds * 1000) if done else None,
            process_id=self.process_id,
            source=wire.USER_SHELL_SANDBOXED,
        )

    def item_notification(
        self, kind: type[Notified], status: str, exit_code: int | None = None
    ) -> Notified:
        """The command's item started or completed, as codex would send it (so the item is
        read as any item codex sends)."""
        item = self.item(status, exit_code).to_wire()
        return kind.read({"threadId": self.thread_id, "turnId": self.turn_id, "item": item})

    def take(self, delta: wire.CommandExecOutput) -> str:
        """The text of a piece of output (a character split between pieces waits)."""
        decoder = self._decoders.setdefault(
            delta.stream, codecs.getincrementaldecoder("utf-8")(errors="replace")
        )
        text = decoder.decode(base64.b64decode(delta.delta_base64))
        self.cut = self.cut or delta.cap_reached
        self._output.append(text)
        return text

    @property
    def output(self) -> str:
        return "".join(self._output)

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started


class ShellRuns:
    """The user's commands running under command/exec, by process id (where their output
    goes) and by the turn they are shown as (what /stop stops)."""

    def __init__(self) -> None:
        self._runs: dict[str, ShellRun] = {}

    def add(self, run: ShellRun) -> None:
        self._runs[run.process_id] = run

    def remove(self, run: ShellRun) -> None:
        self._runs.pop(run.process_id, None)

    def get(self, process_id: str) -> ShellRun | None:
        return self._runs.get(process_id)

    def of_turn(self, turn_id: str | None) -> ShellRun | None:
        return next((run for run in self._runs.values() if run.turn_id == turn_id), None)
