"""A file change, hunk by hunk: each marked to keep or to take back; then why, in the user's
words (codex is told). Nothing is answered or written here: what to do with the marks is the
caller's (accept the change with them, or take them back of a change applied)."""

from __future__ import annotations

import msgspec
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from engine.hunks import Hunk, hunks_of
from engine.protocol import FileChange
from tui.widgets.ordered import OrderedInput

STYLES = {"+": "green", "-": "red"}


class Reviewed(msgspec.Struct, frozen=True):
    """The hunks to take back (by path, their places from 0) and why."""

    marks: dict[str, list[int]]
    why: str


class HunkReview(ModalScreen[Reviewed | None]):
    """Space marks a hunk to take back (again: keep it); Enter goes on to why, Enter there is
    done; Esc goes back, nothing done."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="hunks.back"),
        Binding("space", "mark", "Keep / take back", id="hunks.mark"),
    ]

    DEFAULT_CSS = """
    HunkReview { align: center middle; }
    HunkReview > Vertical {
        width: 90%; height: 90%; border: round $accent; background: $surface; padding: 0 1;
    }
    HunkReview .hunks-title { text-style: bold; }
    HunkReview OptionList { height: 1fr; border: none; }
    HunkReview #hunks-why { display: none; }
    HunkReview.-why #hunks-why { display: block; }
    HunkReview #hunks-note { color: $error; display: none; }
    HunkReview .hunks-keys { color: $text-muted; }
    """

    def __init__(self, title: str, changes: tuple[FileChange, ...], done: str) -> None:
        super().__init__()
        self._title = title
        self._done = done
        """What Enter does once the hunks are marked (said in the keys line)."""
        self._hunks: list[tuple[str, int, Hunk]] = [
            (change.path, index, hunk)
            for change in changes
            for index, hunk in enumerate(hunks_of(change))
        ]
        self._marked: set[int] = set()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._title, classes="hunks-title", markup=False)
            yield OptionList(
                *(Option(self._prompt(n), id=str(n)) for n in range(len(self._hunks))),
                id="hunks",
            )
            yield OrderedInput(
                placeholder="Why? (codex is told, in your words; Enter: done · Esc: back)",
                id="hunks-why",
            )
            yield Static("", id="hunks-note", markup=False)
            yield Static(
                f"space: keep / take back the hunk · enter: {self._done} · esc: back, nothing done",
                classes="hunks-keys",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _prompt(self, number: int) -> Text:
        path, _, hunk = self._hunks[number]
        taken = number in self._marked
        shown = Text()
        shown.append(
            "[take back] " if taken else "[keep]      ", style="bold red" if taken else "bold"
        )
        shown.append(f"{path}  {hunk.header}\n", style="bold")
        for line in hunk.body:
            shown.append(f"    {line}\n", style=STYLES.get(line[:1], "dim"))
        return shown

    def action_mark(self) -> None:
        found = self.query_one(OptionList)
        number = found.highlighted
        if number is None or self.has_class("-why"):
            return
        self._marked ^= {number}
        found.replace_option_prompt_at_index(number, self._prompt(number))

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if not self._marked:
            self._note("Mark a hunk to take back with space first (esc: back).")
            return
        self._note("")
        self.add_class("-why")
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _why(self, event: Input.Submitted) -> None:
        event.stop()
        marks: dict[str, list[int]] = {}
        for number in sorted(self._marked):
            path, index, _ = self._hunks[number]
            marks.setdefault(path, []).append(index)
        self.dismiss(Reviewed(marks, event.value.strip()))

    def action_back(self) -> None:
        if self.has_class("-why"):
            self.remove_class("-why")
            self.query_one(OptionList).focus()
            return
        self.dismiss(None)

    def _note(self, text: str) -> None:
        note = self.query_one("#hunks-note", Static)
        note.update(text)
        note.display = bool(text)
