"""codex-deck's themes and stylesheet, shipped inside the wheel: the themes' colours as plain
values (the first frame, painted before Textual is imported, colours with them:
`tui.first_frame`), made Textual themes in `themes.built`."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

STYLESHEET = Path(__file__).with_name("app.tcss")


class Palette(TypedDict):
    primary: str
    secondary: str
    accent: str
    warning: str
    error: str
    success: str
    foreground: str
    background: str
    surface: str
    panel: str


PALETTES: dict[str, Palette] = {
    "codex-deck-dark": {
        "primary": "#5fa8f5",
        "secondary": "#8f7ae6",
        "accent": "#e8a94d",
        "warning": "#e8b44d",
        "error": "#f0716b",
        "success": "#6bcf8c",
        "foreground": "#dcdfe4",
        "background": "#15171c",
        "surface": "#1c1f26",
        "panel": "#242832",
    },
    "codex-deck-light": {
        "primary": "#1f5fae",
        "secondary": "#6a4fc4",
        "accent": "#9a5b00",
        "warning": "#8a5a00",
        "error": "#b3261e",
        "success": "#1d7a3e",
        "foreground": "#1d2127",
        "background": "#f7f7f5",
        "surface": "#eeeeea",
        "panel": "#e2e2dc",
    },
}
"""Each theme's colours by name, as Textual's `Theme` takes them."""
DARK_THEMES = frozenset({"codex-deck-dark"})
