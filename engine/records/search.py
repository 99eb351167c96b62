"""Finding text in what conversations said and did: messages, reasoning, commands and their
output, diffs, and what was asked and answered in their side chats. Case-insensitive; each hit
comes with a one-line excerpt around the match."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import anyio
import msgspec

from engine.events import EngineEvent, ItemCompleted, SideChatAnswered
from engine.protocol import (
    AgentMessageItem,
    CommandExecutionItem,
    FileChangeItem,
    KnownItem,
    ReasoningItem,
    UnknownItem,
    UserMessageItem,
)
from engine.records.recording import RecordingError, event_from_json

if TYPE_CHECKING:
    from engine.records.store import Store

EXCERPT_CHARS = 90
READERS = max(1, min(4, os.cpu_count() or 1))
"""How many parts of the store are read at once when searching it (each in a thread)."""


class SearchHit(msgspec.Struct, frozen=True, kw_only=True):
    """Where a conversation says the text searched for."""

    conversation_id: str
    title: str
    where: str
    """you, codex, reasoning, command, command output or diff."""
    excerpt: str
    at: float
    archived: bool = False
    thread_id: str | None = None
    host: str | None = None
    """The machine whose codex holds the conversation (`[hosts]`; None: the only one)."""
    side_chat_id: str | None = None
    """The side chat whose question or answer it is (None: the conversation's own)."""


def item_texts(item: KnownItem | UnknownItem) -> list[tuple[str, str]]:
    """The searchable texts of an item, each with what it is."""
    if isinstance(item, UserMessageItem):
        return [("you", item.text)]
    if isinstance(item, AgentMessageItem):
        return [("codex", item.text)]
    if isinstance(item, ReasoningItem):
        return [("reasoning", "\n".join(item.summary))]
    if isinstance(item, CommandExecutionItem):
        return [("command", item.command), ("command output", item.aggregated_output or "")]
    if isinstance(item, FileChangeItem):
        return [("diff", f"{change.path}\n{change.diff}") for change in item.changes]
    return []


def matches(text: str, query: str) -> Iterator[int]:
    """Where `query` starts in `text`, ignoring case, left to right (not overlapping)."""
    if not query:
        return
    haystack, needle = text.lower(), query.lower()
    at = haystack.find(needle)
    while at != -1:
        yield at
        at = haystack.find(needle, at + len(needle))


def excerpt(text: str, start: int, length: int, width: int = EXCERPT_CHARS) -> str:
    """The line around a match, cut to about `width` characters, with … where it was cut."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start + length)
    line_end = len(text) if line_end == -1 else line_end
    margin = max(0, (width - length) // 2)
    left = max(line_start, start - margin)
    right = min(line_end, start + length + margin)
    cut = text[left:right].replace("\t", " ")
    return ("…" if left > line_start else "") + cut + ("…" if right < line_end else "")


def search_events(
    events: Iterable[EngineEvent], query: str, title: str, limit: int
) -> list[SearchHit]:
    """The first match of each searchable text of each completed item, newest first."""
    hits: list[SearchHit] = []
    for event in reversed(list(events)):
        if event.conversation_id is None:
            continue
        side_chat_id = None
        if isinstance(event, ItemCompleted):
            texts = item_texts(event.item)
        elif isinstance(event, SideChatAnswered):
            side_chat_id = event.side_chat_id
            texts = [
                (f"side chat {side_chat_id}", event.answer),
                (f"side question {side_chat_id}", event.question),
            ]
        else:
            continue
        for where, text in texts:
            start = next(matches(text, query), None)
            if start is None:
                continue
            hits.append(
                SearchHit(
                    conversation_id=event.conversation_id,
                    title=title,
                    where=where,
                    excerpt=excerpt(text, start, len(query)),
                    at=event.at,
                    side_chat_id=side_chat_id,
                )
            )
            if len(hits) >= limit:
                return hits
    return hits


def like_pattern(query: str) -> str:
    """A LIKE pattern (escape `\\`) for the query as it appears inside stored JSON text."""
    quoted = json.dumps(query, ensure_ascii=False)[1:-1]
    escaped = quoted.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def search(
    kept: list[tuple[str, list[EngineEvent]]], store: Store | None, query: str, limit: int
) -> list[SearchHit]:
    """Where `kept` (each conversation's title and events) and the store's archived
    conversations say `query`; newest first, `limit` hits at most."""

    def in_memory() -> list[SearchHit]:
        return [hit for title, got in kept for hit in search_events(got, query, title, limit)]

    hits = await anyio.to_thread.run_sync(in_memory)
    if store is not None:
        await store.flush()  # what was archived or brought back a moment ago is in it
        rows = await archived_items_like(store, like_pattern(query), limit)
        for _, _, title, thread_id, text in rows:
            with contextlib.suppress(RecordingError, ValueError):
                event = event_from_json(json.loads(text))
                for hit in search_events([event], query, title, limit):
                    hits.append(msgspec.structs.replace(hit, archived=True, thread_id=thread_id))
    hits.sort(key=lambda hit: hit.at, reverse=True)
    return hits[:limit]


async def archived_items_like(
    store: Store, pattern: str, limit: int
) -> list[tuple[int, str, str, str | None, str]]:
    """The store's completed items of archived conversations LIKE `pattern`, newest first,
    `limit` at most: its trace read in READERS parts at once (the search is bound by reading
    it, and each part leaves the interpreter while the database reads)."""
    low, high = await anyio.to_thread.run_sync(store.trace_seqs)
    step = (high - low) // READERS + 1
    found: list[tuple[int, str, str, str | None, str]] = []

    async def read(part: tuple[int, int]) -> None:
        found.extend(
            await anyio.to_thread.run_sync(store.archived_items_like, pattern, limit, part)
        )

    async with anyio.create_task_group() as reading:
        for start in range(low, high + 1, step):
            reading.start_soon(read, (start, min(start + step - 1, high)))
    found.sort(reverse=True)
    return found[:limit]
