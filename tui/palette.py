"""The palette's entries (ctrl+p) for what the main screen does, beside Textual's own."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from textual.app import SystemCommand
from textual.widget import Widget

ENTRIES = (
    ("New conversation", "ctrl+n", "new_conversation"),
    ("Next conversation", "ctrl+down", "next_conversation(1)"),
    ("Previous conversation", "ctrl+up", "next_conversation(-1)"),
    ("Rename conversation", "f2", "rename"),
    ("Archive conversation", "f8", "archive"),
    ("Toggle the trace pane", "ctrl+t", "toggle_trace"),
    ("Trace over the full width", "f6", "trace_full"),
    ("Expand the latest command output", "ctrl+o", "toggle_output"),
    ("Copy the last answer (OSC 52)", "ctrl+y", "copy_answer"),
    ("Session details", "f3", "session"),
)
"""Title, key and the main screen's action."""


def main_commands(main: Widget) -> Iterable[SystemCommand]:
    for title, key, action in ENTRIES:
        yield SystemCommand(title, key, partial(main.run_action, action))
