"""Finding text in one transcript: every match in its entries (messages, reasoning, commands
and their output, diffs, requests, notices), in the order they are shown."""

from __future__ import annotations

import msgspec

from engine import excerpt, item_texts, matches
from tui.entries import (
    AgentEntry,
    ApprovalEntry,
    CommandEntry,
    Entry,
    FileChangeEntry,
    NoticeEntry,
    ReasoningEntry,
    ToolEntry,
    UserEntry,
    describe_item,
)

MAX_MATCHES = 5000
"""Matches counted at most (the bar says when there are more)."""


class Match(msgspec.Struct, frozen=True):
    entry: int
    """The index of the entry in the transcript."""
    where: str
    text: str
    """The text of the entry it was found in."""
    start: int
    """Where the match starts in `text`."""
    length: int

    def excerpt(self, width: int) -> str:
        """The line around the match, in about `width` characters."""
        return excerpt(self.text, self.start, self.length, width)


def entry_texts(entry: Entry) -> list[tuple[str, str]]:
    """The searchable texts of an entry, each with what it is."""
    if isinstance(entry, UserEntry):
        return [("you", entry.text)]
    if isinstance(entry, AgentEntry):
        return [("codex", entry.text)]
    if isinstance(entry, ReasoningEntry):
        return [("reasoning", entry.text)]
    if isinstance(entry, CommandEntry):
        return [("command", entry.item.command), ("command output", entry.output)]
    if isinstance(entry, FileChangeEntry):
        return item_texts(entry.item)
    if isinstance(entry, ApprovalEntry):
        info = entry.info
        asked = [info.command or "", info.reason or "", info.message or ""]
        asked += [f"{change.path}\n{change.diff}" for change in info.changes]
        return [("request", "\n".join(part for part in asked if part))]
    if isinstance(entry, NoticeEntry):
        return [("notice", entry.text)]
    if isinstance(entry, ToolEntry):
        return [("tool", describe_item(entry.item, entry.status))]
    return []


def find_matches(
    texts: list[tuple[int, str, str]], query: str, limit: int = MAX_MATCHES
) -> list[Match]:
    """Every match of `query` (ignoring case) in `texts` (entry index, what, text), in order;
    at most `limit`. Safe to run off the UI thread: it only reads the strings it is given."""
    found: list[Match] = []
    for index, where, text in texts:
        for start in matches(text, query):
            found.append(Match(index, where, text, start, len(query)))
            if len(found) >= limit:
                return found
    return found
