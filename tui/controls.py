"""The last guard between model text and the terminal: a line filter on everything drawn.

Widgets show control characters in text they take from codex as visible codes (`inert`);
this filter makes sure that a widget which forgets still cannot send one. It drops control
characters from every drawn segment and links that hold them. Rich gives control characters
no width, so dropping them leaves every line as wide as it was laid out."""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class DropControls(LineFilter):
    """Control characters in drawn text (an escape sequence from an agent's answer, say)
    never reach the terminal: Textual's own sequences come from styles, never from text."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(_unsafe(segment) for segment in segments):
            return segments
        return [_made_safe(segment) for segment in segments]


def _unsafe(segment: Segment) -> bool:
    text, style, control = segment
    if control:
        return False
    link = style.link if style is not None else None
    return CONTROL.search(text) is not None or (
        link is not None and CONTROL.search(link) is not None
    )


def _made_safe(segment: Segment) -> Segment:
    if not _unsafe(segment):
        return segment
    text, style, _ = segment
    if style is not None and style.link is not None and CONTROL.search(style.link):
        style = style.update_link(None)
    return Segment(CONTROL.sub("", text), style)
