"""A conversation as Markdown, from its trace: messages, reasoning, commands with their output,
file changes as diffs, requests with what was decided, side chats marked as such. Secrets go
through the same redactor as the JSONL export."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterable
from pathlib import Path

import anyio

from engine.events import (
    EngineEvent,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    Notice,
    SideChatAnswered,
    TurnCompleted,
)
from engine.protocol import (
    AgentMessageItem,
    CommandExecutionItem,
    FileChangeItem,
    ReasoningItem,
    UserMessageItem,
)
from engine.records.trace import Redactor, jsonl


def fenced(text: str, language: str = "") -> str:
    """`text` in a code fence longer than any run of backticks inside it."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def markdown(title: str, events: Iterable[EngineEvent], redact: Redactor) -> str:
    parts = [f"# {title}", f"Exported by codex-deck on {time.strftime('%Y-%m-%d %H:%M')}."]
    asked: dict[str, str] = {}
    for event in events:
        part = _section(event, asked)
        if part:
            parts.append(part)
    return redact("\n\n".join(parts)) + "\n"


def _section(event: EngineEvent, asked: dict[str, str]) -> str | None:
    if isinstance(event, ItemCompleted):
        return _item(event)
    if isinstance(event, TurnCompleted):
        took = f" in {event.duration_ms / 1000:.1f} s" if event.duration_ms else ""
        return f"*— turn {event.status}{took} —*"
    if isinstance(event, InteractionRequested):
        info = event.interaction
        what = info.command or info.message or info.reason or info.kind
        asked[info.id] = what
        return f"**Request {info.id}** ({info.kind.replace('_', ' ')}): {what}"
    if isinstance(event, InteractionResolved):
        return f"**Request {event.interaction_id}**: {event.detail} (by {event.by})"
    if isinstance(event, SideChatAnswered):
        cut = " *(cut at the size limit)*" if event.cut else ""
        quoted = "\n".join(f"> {line}" for line in event.answer.splitlines())
        return (
            f"**Side chat {event.side_chat_id}** — not part of the conversation\n\n"
            f"> **Q:** {event.question}\n>\n{quoted}{cut}"
        )
    if isinstance(event, Notice) and event.level != "info":
        return f"*{event.level}: {event.text}*"
    return None


def _item(event: ItemCompleted) -> str | None:
    item = event.item
    if isinstance(item, UserMessageItem):
        return f"## You\n\n{item.text}"
    if isinstance(item, AgentMessageItem) and item.text:
        return f"## Codex\n\n{item.text}"
    if isinstance(item, ReasoningItem) and item.summary:
        return (
            "<details><summary>Reasoning</summary>\n\n"
            + "\n\n".join(item.summary)
            + ("\n\n</details>")
        )
    if isinstance(item, CommandExecutionItem):
        if event.status == "declined" or item.status == "declined":
            return f"**Declined** `{item.command}` in `{item.cwd}` (not run)"
        code = f", exit {item.exit_code}" if item.exit_code is not None else ""
        output = fenced(item.aggregated_output or "(no output)")
        return f"**Ran** `{item.command}` in `{item.cwd}` ({event.status}{code})\n\n{output}"
    if isinstance(item, FileChangeItem):
        changes = [
            f"**{change.kind.type}** `{change.path}`\n\n{fenced(change.unified(), 'diff')}"
            for change in item.changes
        ]
        return f"**Changed files** ({event.status})\n\n" + "\n\n".join(changes)
    return None


def write_private(path: Path, text: str, replace: bool = True) -> None:
    """Write an export the user alone can read (0600), making its folder if need be; unless
    `replace`, a file already there is kept (FileExistsError)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file where a folder must be: not "the export is there"
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)) from None
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if replace else os.O_EXCL)
    descriptor = os.open(path, flags, 0o600)
    os.fchmod(descriptor, 0o600)  # an existing file keeps its mode otherwise
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)


async def export_markdown(
    path: Path, title: str, events: list[EngineEvent], redact: Redactor, replace: bool = False
) -> int:
    """Write the conversation as Markdown for the user alone (over a file there only if
    `replace`); returns its size."""
    text = markdown(title, events, redact)
    await anyio.to_thread.run_sync(write_private, path, text, replace)
    return len(text)


async def export_jsonl(path: Path, events: list[EngineEvent], redact: Redactor) -> int:
    """Write the trace as JSONL for the user alone; returns its lines."""
    await anyio.to_thread.run_sync(write_private, path, jsonl(events, redact))
    return len(events)
