"""A file change hunk by hunk, and a file with some of its hunks taken back: each hunk's new
lines, found where the change put them, replaced by its old ones; refused, with the reason,
when the file no longer holds them as the change left them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import msgspec

from engine.protocol import FileChange

Marks = Mapping[str, Sequence[int]]
"""Hunks to take back, by file path: their places in `hunks_of(change)`, from 0."""
HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class RevertRefused(ValueError):
    """The file is not as the change left it where a hunk to take back is; nothing changed."""


class Hunk(msgspec.Struct, frozen=True):
    """One hunk of a change: where it is (1-based, as in its header) and its lines, the
    context in both."""

    header: str
    old_start: int
    old_lines: tuple[str, ...]
    new_start: int
    new_lines: tuple[str, ...]
    body: tuple[str, ...]
    """Its lines as the diff shows them (each with its ` `, `-` or `+`)."""


def hunks_of(change: FileChange) -> list[Hunk]:
    """The hunks of a change: an update's as its diff has them; an added file is one hunk of
    its whole content, a deleted one one hunk of all it held."""
    body = change.unified().splitlines()
    if body and not body[0].startswith("@@"):  # a whole file, added or deleted: one hunk
        old = sum(1 for line in body if not line.startswith("+"))
        new = len(body) - old
        body.insert(0, f"@@ -{min(old, 1)},{old} +{min(new, 1)},{new} @@")
    hunks: list[Hunk] = []
    current: list[str] = []
    header = ""
    for line in [*body, "@@ end"]:
        if line.startswith("@@"):
            if header:
                hunks.append(_hunk(header, current))
            header, current = line, []
        elif header and not line.startswith("\\"):  # "\ No newline at end of file"
            current.append(line)
    return hunks


def _hunk(header: str, body: list[str]) -> Hunk:
    found = HEADER.match(header)
    old_start = int(found[1]) if found else 1
    new_start = int(found[3]) if found else 1
    old = tuple(line[1:] for line in body if line[:1] in (" ", "-", ""))
    new = tuple(line[1:] for line in body if line[:1] in (" ", "+", ""))
    return Hunk(header, old_start, old, new_start, new, tuple(body))


def reverted(path: str, content: str, hunks: list[Hunk]) -> str:
    """`content` (the file at `path` as it is now) with `hunks` taken back.

    Raises:
        RevertRefused: a hunk's new lines are not where the change put them (the file
            changed since); nothing is taken back.
    """
    lines = content.split("\n")
    for hunk in sorted(hunks, key=lambda h: h.new_start, reverse=True):
        at = hunk.new_start - 1 if hunk.new_lines else hunk.new_start
        size = len(hunk.new_lines)
        found = tuple(lines[at : at + size]) if at >= 0 else ()
        if found != hunk.new_lines:
            differs = next(
                (n for n, line in enumerate(hunk.new_lines) if n >= len(found) or found[n] != line),
                0,
            )
            place = at + differs
            reads = repr(lines[place][:60]) if 0 <= place < len(lines) else "nothing (it ends)"
            raise RevertRefused(
                f"{path} changed since the change was applied: {hunk.header} no longer "
                f"matches it (line {place + 1} reads {reads}, the change left "
                f"{hunk.new_lines[differs][:60]!r}). Nothing was taken back."
            )
        lines[at : at + size] = hunk.old_lines
    return "\n".join(lines)


def described(path: str, hunks: list[Hunk]) -> str:
    """The hunks of `path`, as the model is told of them."""
    return "\n".join(f"{path} {hunk.header}\n" + "\n".join(hunk.body) for hunk in hunks)
