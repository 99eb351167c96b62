"""codex-deck's themes, as Textual themes."""

from __future__ import annotations

from textual.theme import Theme

from themes import DARK_THEMES, PALETTES

DARK, LIGHT = (
    Theme(name=name, dark=name in DARK_THEMES, **colours) for name, colours in PALETTES.items()
)

THEMES: tuple[Theme, ...] = (DARK, LIGHT)
