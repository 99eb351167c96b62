"""A conversation's earlier turns, as codex keeps them, in the shape of live events: each item
completed, then its turn, timed when codex says the turn started and ended. A front end shows
them with the code that shows a live turn, and can merge them by time with codex-deck's own
trace."""

from __future__ import annotations

import time
from collections.abc import Callable

from engine import protocol as wire
from engine.conversations.item_keys import Item, keyed_items
from engine.errors import ConnectionClosed, RpcError
from engine.events import (
    EngineEvent,
    ItemCompleted,
    ItemDelta,
    Notice,
    Stamp,
    TraceGap,
    TurnCompleted,
)
from engine.protocol import Thread, Turn
from engine.transport.appserver import AppServer

HISTORY_TURNS = 20
"""Turns shown when a conversation is reopened (the newest ones)."""
RUNNING = "inProgress"
"""The status of a turn that has not ended."""
CUT_OFF = " …\n\n*[cut off: the rest of this answer never arrived]*"
"""Ends the text of an answer that never completed."""


async def last_turns(server: AppServer, thread_id: str, limit: int) -> tuple[list[Turn], bool]:
    """The thread's last `limit` turns with their items, oldest first, and whether codex
    keeps earlier ones: paged (`thread/turns/list`), else read whole (`thread/read`); none
    when codex can give neither."""
    params = wire.ThreadTurnsListParams(
        thread_id=thread_id, limit=limit, sort_direction="desc", items_view="full"
    )
    try:
        page = await server.call("thread/turns/list", params, wire.ThreadTurnsListResult)
        return page.data[::-1], page.next_cursor is not None
    except RpcError:
        pass
    except ConnectionClosed:
        return [], False
    try:
        read = await server.thread_read(
            wire.ThreadReadParams(thread_id=thread_id, include_turns=True)
        )
    except (RpcError, ConnectionClosed):
        return [], False
    return read.thread.turns[-limit:], len(read.thread.turns) > limit


def traced_turns(
    turn_ids: list[str | None], traced: Callable[[str], list[EngineEvent]], limit: int
) -> tuple[list[Turn], bool]:
    """The last `limit` turns as codex-deck's trace kept them (for when codex cannot be
    asked), oldest first, and whether there are earlier ones: each with the items completed
    in it and its status as it ended (inProgress when its end was not seen)."""
    turns = []
    for turn_id in turn_ids:
        if turn_id is None:
            continue  # what happened between turns
        events = traced(turn_id)
        ended = next((e for e in events if isinstance(e, TurnCompleted)), None)
        items = [e.item for e in events if isinstance(e, ItemCompleted)]
        if ended is None and not items:
            continue
        turns.append(
            Turn(
                id=turn_id,
                status=ended.status if ended is not None else RUNNING,
                items=items,
                duration_ms=ended.duration_ms if ended is not None else None,
            )
        )
    return turns[-limit:], len(turns) > limit


def history_events(
    conversation_id: str,
    turns: list[Turn],
    more: bool,
    stamp: Callable[[str], Stamp],
    traced: Callable[[str], list[EngineEvent]] | None = None,
) -> list[EngineEvent]:
    """`turns` oldest first; `more`: codex keeps earlier turns than these. `traced(turn_id)`
    is the turn as codex-deck's trace kept it, if it has it (see `turn_items`)."""
    events: list[EngineEvent] = []
    if more:
        events.append(
            Notice(
                **stamp(conversation_id),
                level="info",
                text=f"Earlier turns are kept by codex; the last {len(turns)} are shown.",
            )
        )
    for turn in turns:
        items = turn_items(turn, traced(turn.id) if traced is not None else [])
        events += turn_events(conversation_id, turn, items, True, stamp)
    return events


def turn_events(
    conversation_id: str, turn: Turn, items: list[Item], ends: bool, stamp: Callable[[str], Stamp]
) -> list[EngineEvent]:
    """A turn's `items` as completed items, then, if `ends`, the turn's end."""
    running = turn.status == RUNNING
    events: list[EngineEvent] = [
        ItemCompleted(
            **timed(stamp(conversation_id), turn.started_at),
            turn_id=turn.id,
            item=item,
            status="completed" if running else turn.status,
        )
        for item in items
    ]
    if ends and not running:  # one that runs on (in a shared codex) ends as it ends
        events.append(
            TurnCompleted(
                **timed(stamp(conversation_id), turn.completed_at or turn.started_at),
                turn_id=turn.id,
                status=turn.status,
                error=turn.error.message if turn.error is not None else None,
                duration_ms=turn.duration_ms,
            )
        )
    return events


def turn_items(turn: Turn, traced: list[EngineEvent]) -> list[Item]:
    """A turn's items, each under its name: as codex-deck's trace kept them when it saw the
    whole turn, else as codex's thread has them. Codex's thread keeps one item of each id in
    a turn (of a provider that gives several messages one id, the last message only) and no
    answer that a steer or a stop cut short; the trace keeps each as it was shown. An answer
    that never completed (cut short, or codex-deck stopped while it streamed) is shown with
    what had streamed of it, marked cut off; one the trace saw complete, as it completed (the
    trace keeps only the start of its stream)."""
    streamed: dict[str, list[str]] = {}
    for event in traced:
        if isinstance(event, ItemDelta) and event.kind == "agent_message":
            streamed.setdefault(event.item_id, []).append(event.text)
    if not whole_in_trace(turn.id, traced):
        items = keyed_items(turn.id, turn.items)
        if turn.status == RUNNING:
            return items  # it streams on: what it says comes live
        kept = {item.id for item in items}
        completed = {
            event.item.id: event.item
            for event in traced
            if isinstance(event, ItemCompleted)
            and isinstance(event.item, wire.AgentMessageItem)
            and event.item.text
        }
        return items + [
            completed.get(key) or cut_off(key, parts)
            for key, parts in streamed.items()
            if key not in kept
        ]
    items = []
    for event in traced:
        if not isinstance(event, ItemCompleted) or event.turn_id != turn.id:
            continue
        item = event.item
        if isinstance(item, wire.AgentMessageItem) and not item.text:
            parts = streamed.get(item.id, [])
            if not "".join(parts):
                continue
            item = (
                cut_off(item.id, parts)
                if turn.status != "completed"
                else item.replace(text="".join(parts))
            )
        items.append(item)
    return items


def whole_in_trace(turn_id: str, traced: list[EngineEvent]) -> bool:
    """Whether codex-deck's trace of a turn (`traced`) saw it whole: its end, nothing dropped."""
    return not any(isinstance(e, TraceGap) for e in traced) and any(
        isinstance(e, TurnCompleted) and e.turn_id == turn_id for e in traced
    )


def cut_off(item_id: str, parts: list[str]) -> wire.AgentMessageItem:
    """An answer that never completed: what had streamed of it, marked as cut off."""
    return wire.AgentMessageItem(id=item_id, text="".join(parts).rstrip() + CUT_OFF)


def timed(stamp: Stamp, at: int | None) -> Stamp:
    """`stamp` at the time codex gives (unix seconds), when it gives one."""
    return (
        stamp
        if at is None
        else Stamp(seq=stamp["seq"], at=float(at), conversation_id=stamp["conversation_id"])
    )


def describe_thread(thread: Thread) -> str:
    """One line: when it was last used, where, and how it starts."""
    when = time.strftime(
        "%Y-%m-%d %H:%M", time.localtime(thread.updated_at or thread.created_at or 0)
    )
    first = " ".join((thread.name or thread.preview or "(empty)").split())
    return f"{when}  {thread.cwd or ''}  {first[:60]}"
