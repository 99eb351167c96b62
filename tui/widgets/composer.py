"""Where the user writes: Enter sends (steers a running turn), Tab queues, Esc stops.

A `/` at the start opens completion of the slash commands with their usage. Up and down on
the first or last line walk through what was sent before.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from engine.commands import COMMANDS, Usage
from engine.images import IMAGE_SUFFIXES
from tui.widgets.draft import DraftBox, Mode

HISTORY_KEPT = 200


def completions(text: str) -> list[Usage]:
    """The commands that complete what is typed (a `/` and part of a name, no space yet)."""
    if not text.startswith("/") or " " in text or "\n" in text or text.startswith("//"):
        return []
    typed = text[1:].lower()
    return [usage for usage in COMMANDS if usage.name.startswith(typed)]


class CommandCompletion(OptionList):
    """The commands matching what is typed, each with its usage and what it does."""

    DEFAULT_CSS = """
    CommandCompletion {
        height: auto; max-height: 12; border: round $primary; background: $surface;
        display: none;
    }
    CommandCompletion.-open { display: block; }
    """

    def __init__(self) -> None:
        super().__init__(id="completion")
        self.can_focus = False

    def show(self, usages: list[Usage]) -> None:
        if not usages and not self.option_count:
            return  # it is called for every key typed; clearing an empty list re-lays out
        self.clear_options()
        for usage in usages:
            label = Text()
            label.append(usage.line, style="bold")
            label.append(f"  {usage.summary}", style="dim")
            self.add_option(Option(label, id=usage.name))
        self.set_class(bool(usages), "-open")
        if usages:
            self.highlighted = 0

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def chosen(self) -> str | None:
        if not self.is_open or self.highlighted is None:
            return None
        return self.get_option_at_index(self.highlighted).id


class Composer(DraftBox):
    """The message box."""

    @dataclass
    class Submitted(Message):
        """Send `text` (`queue`: after the running turn)."""

        composer: Composer
        text: str
        mode: Mode

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
    class ImagePasted(Message):
        """A path to an image was pasted: attach it (or, if it cannot be, type it)."""

        composer: Composer
        path: str

        @property
        def control(self) -> Composer:
            return self.composer

    def __init__(self) -> None:
        super().__init__(id="composer")
        self.sent: list[str] = []
        self._history_at: int | None = None
        self._draft = ""

    @property
    def completion(self) -> CommandCompletion:
        return self.screen.query_one(CommandCompletion)

    def remember(self, text: str) -> None:
        """Keep a sent message for up/down."""
        if text.strip() and (not self.sent or self.sent[-1] != text):
            self.sent.append(text)
            del self.sent[:-HISTORY_KEPT]
        self._history_at = None

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        completion = self.completion
        typed_whole_name = any(self.text == f"/{usage.name}" for usage in COMMANDS)
        if key == "enter" and typed_whole_name:
            completion.show([])
        if completion.is_open and key in ("up", "down", "tab", "enter", "escape"):
            self._stop(event)
            if key == "escape":
                completion.show([])
            elif key in ("up", "down"):
                completion.action_cursor_up() if key == "up" else completion.action_cursor_down()
            else:
                name = completion.chosen()
                if name is not None:
                    self.text = f"/{name} "
                    self.move_cursor(self.document.end)
                completion.show([])
            return
        if key == "enter":
            self._stop(event)
            self._send("auto")
        elif key == "tab":
            self._stop(event)
            self._send("queue")
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
            else:
                await super()._on_key(event)
        else:
            await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        path = image_path(event.text)
        if path is None or self.read_only:
            await super()._on_paste(event)
            return
        event.stop()
        event.prevent_default()
        self.post_message(self.ImagePasted(self, path))

    def _stop(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def _send(self, mode: Mode) -> None:
        if self.text.strip():
            self.post_message(self.Submitted(self, self.text, mode))

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
        self.completion.show(completions(self.text))


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
