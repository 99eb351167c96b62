"""A diff in a screen of its own (/diff): the files on the left, the chosen one's diff on the
right, coloured as the approvals show a change, scrollable; esc closes."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from engine import DiffView, FileDiff
from engine.protocol import ChangeKind, FileChange
from tui.text import inert
from tui.widgets.diff import render_change

KIND_MARKS = {"changed": "M", "new": "A", "deleted": "D", "renamed": "R"}


def as_change(file: FileDiff) -> FileChange:
    """A file of the diff as the approvals' change view takes it (its hunks as they are)."""
    return FileChange(path=file.path, kind=ChangeKind(type="update"), diff=file.diff)


class DiffScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close", id="diff.close"),
        Binding("tab", "switch_focus", "Files / diff", id="diff.focus"),
    ]

    DEFAULT_CSS = """
    DiffScreen { align: center middle; }
    DiffScreen > Vertical {
        width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    DiffScreen .diff-title { text-style: bold; }
    DiffScreen .diff-keys, DiffScreen .diff-note { color: $text-muted; }
    DiffScreen #diff-files { width: 36; height: 1fr; border: none; }
    DiffScreen #diff-body { width: 1fr; height: 1fr; }
    """

    def __init__(self, view: DiffView, at: str | None = None) -> None:
        super().__init__()
        self._view = view
        self._at = at
        """The file to show first (a review's finding's); the first file if not there."""

    def compose(self) -> ComposeResult:
        view = self._view
        with Vertical():
            yield Static(inert(view.title), classes="diff-title", markup=False)
            if view.note:
                yield Static(view.note, classes="diff-note", markup=False)
            with Horizontal():
                yield OptionList(
                    *(
                        Option(Text(f"{KIND_MARKS[file.kind]} {inert(file.path)}"), id=str(n))
                        for n, file in enumerate(view.files)
                    ),
                    id="diff-files",
                )
                with VerticalScroll(id="diff-body"):
                    yield Static("Nothing changed." if not view.files else "", id="diff-text")
            yield Static(
                "↑↓ file · tab files/diff · pgup/pgdn scroll · esc close",
                classes="diff-keys",
                markup=False,
            )

    def on_mount(self) -> None:
        files = self.query_one("#diff-files", OptionList)
        paths = [file.path for file in self._view.files]
        if paths:
            files.highlighted = paths.index(self._at) if self._at in paths else 0
            files.focus()

    @on(OptionList.OptionHighlighted, "#diff-files")
    def _chosen(self, event: OptionList.OptionHighlighted) -> None:
        file = self._view.files[int(event.option.id or 0)]
        self.query_one("#diff-text", Static).update(
            render_change(as_change(file), self.app.current_theme.dark)
        )
        self.query_one("#diff-body", VerticalScroll).scroll_home(animate=False)

    def action_switch_focus(self) -> None:
        files = self.query_one("#diff-files", OptionList)
        body = self.query_one("#diff-body", VerticalScroll)
        (body if files.has_focus else files).focus()
