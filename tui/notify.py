"""Telling the user a conversation out of view needs an answer: bell and OSC 9."""

from __future__ import annotations

from typing import Any

from textual.app import App

from engine.settings import Notifications
from tui.private import driver
from tui.text import inert


def alert(app: App[Any], text: str, style: Notifications = "both") -> None:
    """Ring the terminal bell and/or send an OSC 9 desktop notification."""
    if style in ("both", "bell"):
        app.bell()
    terminal = driver(app)  # Textual writes its own escape sequences (bell, OSC 52) this way
    if style in ("both", "osc9") and terminal is not None and not app.is_headless:
        message = inert(text).replace("\x07", "")
        terminal.write(f"\x1b]9;{message}\x07")
