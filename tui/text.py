"""Small text helpers: durations, commands as the user typed them, inert control characters."""

from __future__ import annotations

import re
import shlex

_SHELL_WRAPPER = re.compile(r"^/bin/(?:ba|z)?sh -l?c (.+)$", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def inert(text: str) -> str:
    """Control characters (escape sequences too) shown as visible codes, never interpreted."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def duration(milliseconds: float | None) -> str:
    if milliseconds is None:
        return ""
    seconds = milliseconds / 1000
    if seconds < 1:
        return f"{milliseconds:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def clock(seconds: float) -> str:
    """Elapsed time as m:ss (or h:mm:ss)."""
    seconds = max(0, int(seconds))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def shown_command(command: str) -> str:
    """The command without codex's `/bin/bash -lc '…'` wrapper."""
    match = _SHELL_WRAPPER.match(command.strip())
    if match is None:
        return command
    try:
        parts = shlex.split(match.group(1))
    except ValueError:
        return command
    return parts[0] if len(parts) == 1 else command


def last_lines(text: str, count: int) -> tuple[str, int]:
    """The last `count` lines of `text`, and how many lines were left out."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= count:
        return "\n".join(lines), 0
    return "\n".join(lines[-count:]), len(lines) - count
