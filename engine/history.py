"""A conversation's earlier turns, as codex keeps them, in the shape of live events: each item
completed, then its turn, timed when codex says the turn started and ended. A front end shows
them with the code that shows a live turn, and can merge them by time with codex-deck's own
trace."""

from __future__ import annotations

import time
from collections.abc import Callable

from engine.events import EngineEvent, ItemCompleted, Notice, Stamp, TurnCompleted
from engine.protocol import Thread, Turn

HISTORY_TURNS = 20
"""Turns shown when a conversation is reopened (the newest ones)."""


def history_events(
    conversation_id: str, turns: list[Turn], more: bool, stamp: Callable[[str], Stamp]
) -> list[EngineEvent]:
    """`turns` oldest first; `more`: codex keeps earlier turns than these."""
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
        for item in turn.items:
            events.append(
                ItemCompleted(
                    **timed(stamp(conversation_id), turn.started_at),
                    turn_id=turn.id,
                    item=item,
                    status=turn.status,
                )
            )
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
