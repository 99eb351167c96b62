"""File changes as coloured unified diffs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from engine.protocol import FileChange
from tui.entries import FileChangeEntry
from tui.text import inert

if TYPE_CHECKING:
    from rich.syntax import Syntax

KIND_WORDS = {"add": "new file", "delete": "deleted", "update": "changed"}


def render_change(change: FileChange, dark: bool) -> Syntax:
    from rich.syntax import Syntax  # imported when first drawn, not before the app is ready

    return Syntax(
        inert(change.unified()).rstrip("\n") or "(empty)",
        "diff",
        theme="ansi_dark" if dark else "ansi_light",
        background_color="default",
        word_wrap=True,
    )


class FileChangeCell(Vertical):
    """Every file of a patch, with its diff (paths shown relative to the conversation's cwd)."""

    DEFAULT_CSS = """
    FileChangeCell { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $secondary; }
    FileChangeCell.-declined { border-left: thick $warning; }
    FileChangeCell.-failed { border-left: thick $error; }
    FileChangeCell .change-path { text-style: bold; }
    FileChangeCell .change-status { color: $text-muted; }
    """

    def __init__(self, entry: FileChangeEntry, root: str = "") -> None:
        super().__init__()
        self.entry = entry
        self._root = root.rstrip("/") + "/" if root else ""

    def compose(self) -> ComposeResult:
        yield from self._parts()

    def _parts(self) -> list[Static]:
        parts = []
        for change in self.entry.item.changes:
            words = KIND_WORDS.get(change.kind.type, change.kind.type)
            moved = f" → {change.kind.move_path}" if change.kind.move_path else ""
            path = change.path.removeprefix(self._root) if self._root else change.path
            title = Text(f"{inert(path)}{inert(moved)} ({words})")
            parts.append(Static(title, classes="change-path"))
            parts.append(Static(render_change(change, self.app.current_theme.dark)))
        status = self.entry.status.replace("inProgress", "applying")
        parts.append(Static(status, classes="change-status"))
        self.set_class(self.entry.status == "declined", "-declined")
        self.set_class(self.entry.status == "failed", "-failed")
        return parts

    async def finish(self) -> None:
        """The patch was applied, declined or failed: draw it again with its status."""
        await self.remove_children()
        await self.mount_all(self._parts())
