"""Where the user writes: Enter sends (steers a running turn), Tab queues, Esc stops.

A `/` at the start opens completion of the slash commands with their usage (and, after
`/new @`, of the hosts); an `@` opens the files that match what follows it
(`tui.widgets.mentions`). Up and down on the first or last
line walk through what was sent before.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

import msgspec
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.option_list import Option

from engine import COMMANDS, IMAGE_SUFFIXES
from engine.protocol import TEXT_INPUT_CHARS
from tui.widgets.completion_list import CompletionList
from tui.widgets.draft import DraftBox, Mode
from tui.widgets.mentions import FileCompletion, Mention, as_typed, mention_at
from tui.widgets.ordered import run_binding

HISTORY_KEPT = 200
PASTE_SHOWN_CHARS = 4000
PASTE_SHOWN_LINES = 40
"""A paste longer than this shows in the box as a placeholder, sent as what was pasted."""


class Completed(msgspec.Struct, frozen=True):
    """A way to complete what is typed: the line it becomes, and what the list shows."""

    line: str
    usage: str
    summary: str


def completions(text: str, hosts: Collection[str] = ()) -> list[Completed]:
    """What completes what is typed: the commands for a `/` and part of a name (no space
    yet); the `hosts` for `/new ` (which host? Enter alone: the one in view, as before) and
    for `/new @` and part of a name."""
    if hosts and text == "/new ":
        said = "start the conversation on this host (or Enter: on the one in view)"
        return [Completed(f"/new @{h} ", f"@{h}", said) for h in hosts]
    if text.startswith("/new @") and " " not in text[len("/new @") :] and "\n" not in text:
        typed = text[len("/new @") :]
        said = "start the conversation on this host"
        return [Completed(f"/new @{h} ", f"@{h}", said) for h in hosts if h.startswith(typed)]
    if not text.startswith("/") or " " in text or "\n" in text or text.startswith("//"):
        return []
    typed = text[1:].lower()
    return [
        Completed(f"/{usage.name} ", usage.line, usage.summary)
        for usage in COMMANDS
        if usage.name.startswith(typed)
    ]


class CommandCompletion(CompletionList):
    """The commands matching what is typed, each with its usage and what it does."""

    def __init__(self) -> None:
        super().__init__(id="completion")
        self._offered: list[str] = []

    def show(self, found: list[Completed]) -> None:
        lines = [completed.line for completed in found]
        if lines == self._offered:
            # It is called for every key typed: the same list keeps the one moved to (made
            # again, up and down then tab chose the first), and an empty one is not laid out.
            return
        self._offered = lines
        self.clear_options()
        for completed in found:
            label = Text()
            label.append(completed.usage, style="bold")
            label.append(f"  {completed.summary}", style="dim")
            self.add_option(Option(label, id=completed.line))
        self.set_class(bool(found), "-open")
        if found:
            self.highlighted = 0


class Composer(DraftBox):
    """The message box. ctrl+a, ctrl+e, ctrl+k and ctrl+u work on the whole line, as in a
    shell, however it wraps (the text area's own go to the edge of the row on the screen)."""

    BINDINGS = [
        Binding("ctrl+a", "line_edge(False)", "Line start", show=False),
        Binding("ctrl+e", "line_edge(True)", "Line end", show=False),
        Binding("ctrl+k", "kill_line", "Delete to line end", show=False),
        Binding("ctrl+u", "kill_line_start", "Delete to line start", show=False),
    ]

    @dataclass
    class Submitted(Message):
        """Send `text` (`queue`: after the running turn); `held`: it was held in the box as
        it was sent (codex was not up), and is sent again when it is let go."""

        composer: Composer
        text: str
        mode: Mode
        held: bool = False

        @property
        def control(self) -> Composer:
            return self.composer

    @dataclass
    class StopPressed(Message):
        composer: Composer

        @property
        def control(self) -> Composer:
            return self.composer

    @dataclass
    class MentionTyped(Message):
        """An `@word` is being typed: find the files that match it."""

        composer: Composer
        mention: Mention

        @property
        def control(self) -> Composer:
            return self.composer

    @dataclass
    class ImagePasted(Message):
        """A path to an image was pasted: attach it (or, if it cannot be, type it)."""

        composer: Composer
        path: str

        @property
        def control(self) -> Composer:
            return self.composer

    keys_in_order = True
    """Keys other than text act in the order typed (see `tui.widgets.ordered`)."""

    def __init__(self) -> None:
        super().__init__(id="composer")
        self.engine: Literal["starting", "up", "away", "failed"] = "starting"
        """Whether codex is up: a message sent before it is held in the box, and one sent
        while codex is away (being started or reached again: a command goes on, it can do
        without codex); once it is up, the box is emptied as Enter is pressed, so what is
        typed next starts afresh."""
        self.sent: list[str] = []
        self.hosts: tuple[str, ...] = ()
        """The hosts `/new @` completes (`[hosts]`; none: one codex)."""
        self._history_at: int | None = None
        self._draft = ""
        self._pasted: dict[str, str] = {}
        """What each placeholder of a large paste stands for (kept for the history too)."""

    @property
    def completion(self) -> CommandCompletion:
        return self.screen.query_one(CommandCompletion)

    @property
    def files(self) -> FileCompletion:
        return self.screen.query_one(FileCompletion)

    def _mention(self) -> Mention | None:
        """The `@word` at the cursor, a file to find; not in `/new @HOST`, which names a host
        (a file it matched took Enter)."""
        if self.text.lstrip().lower().startswith("/new "):
            return None
        row, column = self.cursor_location
        return mention_at(self.document.get_line(row), row, column)

    def _choose_file(self, key: str) -> bool:
        """A key for the list of files open for the `@word` at the cursor: move in it, put
        the chosen file in (tab, enter) or close it (esc). False when the key is not the
        list's (it then does what it does in the box)."""
        files = self.files
        if not files.is_open or key not in ("up", "down", "tab", "enter", "escape"):
            return False
        mention = self._mention()
        if mention is None:
            files.close()  # a list left from what was typed before
            return False
        if key == "escape":
            files.close()
            return True
        if key in ("up", "down"):
            files.action_cursor_up() if key == "up" else files.action_cursor_down()
            return True
        path = files.chosen()
        if path is None and key == "tab":
            return True  # the files have not come yet: tab waits for them, it queues nothing
        if path is None:
            files.close()
            return False  # nothing to choose: enter sends
        end = (mention.row, mention.column + 1 + len(mention.query))
        self.replace(as_typed(path) + " ", (mention.row, mention.column), end)
        files.close()
        return True

    def remember(self, text: str) -> None:
        """Keep a sent message for up/down (as it looked in the box)."""
        text = self.collapsed(text)
        if text.strip() and (not self.sent or self.sent[-1] != text):
            self.sent.append(text)
            del self.sent[:-HISTORY_KEPT]
        self._history_at = None

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        completion = self.completion
        if completion.is_open:
            # It follows the text as the text area says it changed, which can come after
            # this key: a stale list took Enter on `/plan on` typed at full speed as `/stop`.
            completion.show(completions(self.text, self.hosts))
        found = completions(self.text, self.hosts)
        typed_whole_name = any(self.text == completed.line.rstrip() for completed in found)
        asked_host = self.text == "/new " and bool(found)  # the hosts offered; Enter: this one
        if key == "enter" and (typed_whole_name or asked_host):  # Enter sends it as it is
            completion.show([])
        if completion.is_open and key in ("up", "down", "tab", "enter", "escape"):
            self._stop(event)
            if key == "escape":
                completion.show([])
            elif key in ("up", "down"):
                completion.action_cursor_up() if key == "up" else completion.action_cursor_down()
            else:
                line = completion.chosen()
                if line is not None:
                    self.text = line
                    self.move_cursor(self.document.end)
                completion.show([])
            return
        if self._choose_file(key):
            self._stop(event)
            return
        if key == "enter":
            self._stop(event)
            self.submit("auto")
        elif key == "tab":
            self._stop(event)
            self.submit("queue")
        elif key == "escape":
            self._stop(event)
            self.post_message(self.StopPressed(self))
        elif self.held is not None:
            await super()._on_key(event)  # a held message stays as it was sent
        elif key in ("shift+enter", "ctrl+j"):
            self._stop(event)
            self.insert("\n")
        elif key == "up" and self.cursor_location[0] == 0 and self.sent:
            self._stop(event)
            self._walk_history(-1)
        elif key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            if self._history_at is not None:
                self._stop(event)
                self._walk_history(1)
            elif not await run_binding(self, event):
                await super()._on_key(event)
        elif not await run_binding(self, event):
            await super()._on_key(event)

    @dataclass
    class PasteRefused(Message):
        """A paste would make the message longer than codex takes: it was not added."""

        composer: Composer
        why: str

        @property
        def control(self) -> Composer:
            return self.composer

    async def _on_paste(self, event: events.Paste) -> None:
        """Insert a paste once (the text area's own handler is not run): its line ends as
        newlines (terminals paste them as returns), a large one as a placeholder, and one
        too large for a message not at all; a path to an image attaches the image."""
        self._stop(event)
        if self.read_only:
            return
        pasted = event.text.replace("\r\n", "\n").replace("\r", "\n")
        path = image_path(pasted)
        if path is not None:
            self.post_message(self.ImagePasted(self, path))
            return
        if len(self.expanded(self.text)) + len(pasted) > TEXT_INPUT_CHARS:
            why = (
                f"Not pasted: it has {len(pasted):,} characters, and a message can have "
                f"{TEXT_INPUT_CHARS:,} at most (codex's limit). Nothing was added."
            )
            self.post_message(self.PasteRefused(self, why))
            return
        lines = pasted.count("\n") + 1
        if len(pasted) > PASTE_SHOWN_CHARS or lines > PASTE_SHOWN_LINES:
            label = placeholder(pasted, lines, self._pasted)
            self._pasted[label] = pasted
            pasted = label
        result = self.replace(pasted, *self.selection, maintain_selection_offset=False)
        self.move_cursor(result.end_location)

    def expanded(self, text: str) -> str:
        """`text` with each placeholder of a large paste replaced by what was pasted."""
        for label, pasted in self._pasted.items():
            if label in text:
                text = text.replace(label, pasted)
        return text

    def collapsed(self, text: str) -> str:
        """A message sent from here as it looked in the box: large pastes as placeholders."""
        for label, pasted in self._pasted.items():
            if pasted in text:
                text = text.replace(pasted, label)
        return text

    def action_line_edge(self, end: bool) -> None:
        row, _ = self.cursor_location
        self.move_cursor((row, len(self.document.get_line(row)) if end else 0))

    def action_kill_line(self) -> None:
        """Delete to the end of the line (at its end: the line break, joining the next)."""
        if self.read_only:
            return
        row, column = self.cursor_location
        line_end = len(self.document.get_line(row))
        if column < line_end:
            self.delete((row, column), (row, line_end))
        elif row + 1 < self.document.line_count:
            self.delete((row, column), (row + 1, 0))

    def action_kill_line_start(self) -> None:
        """Delete from the start of the line to the cursor."""
        if not self.read_only:
            row, column = self.cursor_location
            self.delete((row, 0), (row, column))

    def _stop(self, event: events.Key | events.Paste) -> None:
        event.stop()
        event.prevent_default()

    def submit(self, mode: Mode) -> None:
        """Send what is written (Enter, Tab, or a held message once codex is up)."""
        shown = self.text
        if not shown.strip():
            return
        held = self.engine == "starting" or (self.engine == "away" and not is_command(shown))
        if held:
            self.hold(mode)
        elif self.engine in ("up", "away"):
            self.text = ""
            self._history_at = None
        self.post_message(self.Submitted(self, self.expanded(shown), mode, held))

    def give_back(self, text: str) -> None:
        """A message sent was not taken: put it back, before anything typed since."""
        typed = self.text
        text = self.collapsed(text)
        self.text = f"{text}\n{typed}" if typed.strip() else text
        self.move_cursor(self.document.end)

    def _walk_history(self, step: int) -> None:
        if self._history_at is None:
            self._draft = self.text
            at = len(self.sent)
        else:
            at = self._history_at
        at += step
        if at >= len(self.sent):
            self._history_at = None
            self.text = self._draft
        else:
            self._history_at = max(0, at)
            self.text = self.sent[self._history_at]
        self.move_cursor(self.document.end)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.completion.show(completions(self.text, self.hosts))
        mention = self._mention()
        files = self.files
        if mention is None:
            files.close()
        elif mention != files.mention:
            files.looking(mention)  # the files found for what was typed before stay meanwhile
            self.post_message(self.MentionTyped(self, mention))


def is_command(text: str) -> bool:
    """Whether what is written is a slash command (`//` starts a message)."""
    written = text.lstrip()
    return written.startswith("/") and not written.startswith("//")


def placeholder(pasted: str, lines: int, taken: Collection[str]) -> str:
    """What the box shows for a large paste, as the Codex TUI does: `[pasted 5,000 lines]`
    (numbered when the box has one of that name already)."""
    size = f"{lines:,} lines" if lines > 1 else f"{len(pasted):,} characters"
    label = f"[pasted {size}]"
    number = 1
    while label in taken:
        number += 1
        label = f"[pasted {size} #{number}]"
    return label


def image_path(pasted: str) -> str | None:
    """The path in a paste that is only a path to an image file (by its name: a terminal
    pastes a dragged file as its path, often quoted or as a file:// URL)."""
    text = pasted.strip()
    if "\n" in text or len(text) < 2:
        return None
    if text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    text = text.removeprefix("file://")
    return text if text.lower().endswith(IMAGE_SUFFIXES) else None
