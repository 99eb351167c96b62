"""The box the user writes in, as the first frame shows it (before the engine is loaded) and
as the main screen's composer is: its look, what it says while empty, and a message held
because it was sent before codex was up."""

from __future__ import annotations

from typing import Literal

import msgspec
from textual import events
from textual.strip import Strip
from textual.widgets import TextArea

from tui.first_frame import HELD, PLACEHOLDER

__all__ = ["HELD", "PLACEHOLDER", "Draft", "DraftBox", "Mode", "away"]


def away(why: str) -> str:
    """What a message held while codex is away says (`why`: how it is being brought back)."""
    return f"codex is away ({why}): your message goes once it is back · esc keeps it here to edit"


Mode = Literal["auto", "queue"]
"""How a message goes: at once (steering a running turn), or queued after it."""


class Draft(msgspec.Struct, frozen=True):
    """What a box holds: its text, where its cursor is, and how it was sent if it was sent
    before codex was up."""

    text: str
    cursor: tuple[int, int]
    held: Mode | None


class DraftBox(TextArea):
    """A message box. A message sent before codex is up is held in it, as it stands (it
    cannot be edited meanwhile), until it can go (`release`)."""

    DEFAULT_CSS = """
    DraftBox { height: auto; min-height: 3; max-height: 12; border: round $panel; padding: 0 1; }
    DraftBox:focus { border: round $primary; }
    """

    def __init__(self, id: str) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=PLACEHOLDER,
        )
        self.held: Mode | None = None
        self._width: int | None = None
        """The width the box was last laid out at (None before its first layout)."""

    def on_resize(self, event: events.Resize) -> None:
        # Textual wraps the text again for the new width but repaints only when that changes
        # how many rows it takes: rewrapped into as many rows, the box kept showing the rows
        # of the old width, cut at the new edge (words past it not shown).
        if self._width is not None and event.size.width != self._width:
            self.refresh()
        self._width = event.size.width

    def render_line(self, y: int) -> Strip:
        if self.content_size.width <= 0:
            # Textual wraps the placeholder to the box's width, and at none it raises
            # (range() arg 3 must not be zero): a box squeezed to nothing shows nothing.
            return Strip.blank(0)
        return super().render_line(y)

    @property
    def draft(self) -> Draft:
        return Draft(self.text, self.cursor_location, self.held)

    def hold(self, mode: Mode) -> None:
        self.held = mode
        self.read_only = True

    def release(self) -> Mode | None:
        """Stop holding the message: how it was sent, if it was."""
        held, self.held = self.held, None
        self.read_only = False
        return held

    def take(self, draft: Draft) -> None:
        """Carry on from another box's draft."""
        self.text = draft.text
        self.move_cursor(draft.cursor)
        if draft.held is not None:
            self.hold(draft.held)
