"""`@` file mentions in the message box: the `@word` at the cursor, and the list of files that
match it (codex's fuzzy search of the working directory, as the user types)."""

from __future__ import annotations

import msgspec
from rich.text import Text
from textual.widgets.option_list import Option

from engine.protocol import FileMatch
from tui.widgets.completion_list import CompletionList

FILES_SHOWN = 12


class Mention(msgspec.Struct, frozen=True):
    """An `@` being typed: where it starts on its line, and the query after it."""

    row: int
    column: int
    query: str


def mention_at(line: str, row: int, column: int) -> Mention | None:
    """The `@word` that ends at the cursor (`column` of `line`), if one does: an `@` at the
    start of the line or after a space, and no space between it and the cursor."""
    before = line[:column]
    start = max(before.rfind(" "), before.rfind("\t")) + 1
    word = before[start:]
    if not word.startswith("@"):
        return None
    return Mention(row, start, word[1:])


def as_typed(path: str) -> str:
    """A path as it goes into the message: quoted when it has a space."""
    return f'"{path}"' if any(c.isspace() for c in path) else path


def label(match: FileMatch) -> Text:
    """The path, with the characters the query matched in bold."""
    text = Text(match.path + ("/" if match.match_type == "directory" else ""))
    for index in match.indices or []:
        if index < len(match.path):
            text.stylize("bold underline", index, index + 1)
    return text


class FileCompletion(CompletionList):
    """The files matching the `@word` being typed; tab or enter puts the chosen one in."""

    def __init__(self) -> None:
        super().__init__(id="files")
        self.mention: Mention | None = None
        """The `@word` the list is for (None: closed)."""

    def looking(self, mention: Mention) -> None:
        """Open for `mention`; the files found for the `@word` before stay until the new
        ones come (tab takes the one highlighted even so)."""
        self.mention = mention
        if not self.is_open:
            self._say("type to find a file · esc closes")

    def searching(self, mention: Mention, where: str) -> None:
        """Say what is searched, while nothing is found yet."""
        if mention == self.mention and self.chosen() is None:
            self._say(f"files in {where} · type to narrow · esc closes")

    def show(self, query: str, files: list[FileMatch]) -> None:
        """The files found for `query` (nothing when it is not what is typed now)."""
        if self.mention is None or query != self.mention.query:
            return  # found for what was typed before
        if not files:
            self._say(f"no file matches {query!r}")
            return
        self.clear_options()
        for match in files[:FILES_SHOWN]:
            self.add_option(Option(label(match), id=match.path))
        self.highlighted = 0
        self.add_class("-open")

    def problem(self, mention: Mention, why: str) -> None:
        if mention == self.mention:
            self._say(why)

    def close(self) -> None:
        self.mention = None
        if self.is_open:
            self.clear_options()
            self.remove_class("-open")

    def _say(self, text: str) -> None:
        self.clear_options()
        self.add_option(Option(Text(text, style="dim"), disabled=True))
        self.add_class("-open")
