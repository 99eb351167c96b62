"""The keys line at the bottom: the bindings in force where the focus is, drawn as one line of
text. (Textual's Footer makes a widget per key and remakes them all whenever the focus moves,
which cost 200 to 500 ms a move in codex-deck's screens; this redraws one line.)"""

from __future__ import annotations

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static


class KeyBar(Static):
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description"}

    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; background: $footer-background; }
    KeyBar > .key-bar--key { color: $footer-key-foreground; text-style: bold; }
    KeyBar > .key-bar--description { color: $footer-description-foreground; }
    /* Under a screen on top (the inbox, a review …), which has keys of its own. */
    KeyBar.-behind { text-opacity: 35%; }
    """

    def __init__(self) -> None:
        super().__init__(id="key-bar", markup=False)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen:
            self._draw()

    def _draw(self) -> None:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        active = self.screen.active_bindings
        shown: dict[str, Text] = {}
        for _, binding, enabled, _ in active.values():
            if not binding.show or binding.action in shown:
                continue
            entry = Text.assemble(
                (f" {self.app.get_key_display(binding)} ", key_style),
                (f"{binding.description} ", description_style),
            )
            if not enabled:
                entry.stylize("dim")
            shown[binding.action] = entry
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        right = Text()
        if palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            binding = palette[1]
            right = Text.assemble(
                ("▏", description_style),
                (f"{self.app.get_key_display(binding)}", key_style),
                (f" {binding.description} ", description_style),
            )
        width = max(self.size.width - right.cell_len, 0)
        line = Text().join(shown.values())
        line.truncate(width, overflow="ellipsis")
        line.pad_right(width - line.cell_len)
        self.update(line + right)
