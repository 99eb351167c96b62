"""A list of completions above the message box (the slash commands, the files an `@` finds):
shown only while it has something, never focused (the box keeps the keys)."""

from __future__ import annotations

from textual.widgets import OptionList


class CompletionList(OptionList):
    DEFAULT_CSS = """
    CompletionList {
        height: auto; max-height: 14; border: round $primary; background: $surface;
        display: none;
    }
    CompletionList.-open { display: block; }
    """

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.can_focus = False

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def chosen(self) -> str | None:
        """The id of the option highlighted in the open list (None: nothing to choose)."""
        if not self.is_open or self.highlighted is None:
            return None
        return self.get_option_at_index(self.highlighted).id
